"""The CFR family (solvers/cfr/_solvers.py) against OpenSpiel and known values."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import discounted_cfr, exploitability

import spiel_game
from solvers.cfr._best_response import nash_conv, policy_values
from solvers.cfr._policy import from_policy
from solvers.cfr._solvers import CFR, DCFR, SOLVERS, CFRPlus, LinearCFR, PCFRPlus, make_solver
from solvers.cfr._tree import build_tree

TOL = 1e-9

#: pyspiel.CFRSolver on ``tiny`` (683,150 histories), NashConv of the average
#: policy after iterations 1, 2, 3 by pyspiel.nash_conv: recorded once because
#: OpenSpiel needs ~50 s per iteration and ~7 min per NashConv on this game
#: (regenerate: ``python -m experiments.bench.cfr --tiny-reference 3``).
TINY_PYSPIEL_CFR_NASHCONV = [12.546800261209992, 8.136292237905655, 6.265446665630785]


def _trajectory_vs_pyspiel(game, iterations, pyspiel_nash_conv="every"):
    """Run pyspiel.CFRSolver and ours side by side; returns the largest
    NashConv difference and the largest policy difference over the iterates.

    ``pyspiel_nash_conv``: value pyspiel's iterates with ``pyspiel.nash_conv``
    at ``"every"`` iteration, only the ``"last"``, or ``"none"`` (the others by
    our exact best response, checked against OpenSpiel in
    test_cfr_best_response.py)."""
    tree = build_tree(game)
    ref = pyspiel.CFRSolver(game)
    ours = CFR(tree)
    worst_nc = worst_pol = 0.0
    for t in range(iterations):
        ref.evaluate_and_update_policy()
        ours.iterate()
        theirs = from_policy(tree, ref.average_policy())
        mine = ours.average_policy()
        worst_pol = max(worst_pol, float(np.abs(theirs - mine).max()))
        if pyspiel_nash_conv == "every" or (pyspiel_nash_conv == "last"
                                            and t == iterations - 1):
            a = pyspiel.nash_conv(game, ref.average_policy())
        else:
            a = nash_conv(tree, theirs)
        worst_nc = max(worst_nc, abs(a - nash_conv(tree, mine)))
    return worst_nc, worst_pol


@pytest.mark.parametrize("name,params,iterations", [
    ("kuhn_poker", {}, 60), ("kuhn_poker", {"players": 3}, 40), ("leduc_poker", {}, 6)])
def test_cfr_reproduces_pyspiel_cfrsolver_nash_conv_trajectory(name, params, iterations):
    worst_nc, worst_pol = _trajectory_vs_pyspiel(pyspiel.load_game(name, params), iterations)
    assert worst_nc < TOL
    assert worst_pol < TOL


@pytest.mark.parametrize("preset,iterations,pyspiel_nash_conv", [
    ("micro", 8, "last"), ("micro3", 8, "last"), ("micro4", 3, "none"),
    ("micro_pass", 2, "none")])
def test_cfr_reproduces_pyspiel_cfrsolver_on_reduced_deals(preset, iterations,
                                                           pyspiel_nash_conv):
    """Iterate by iterate on our python game (2, 3, 4 players, passing);
    pyspiel.nash_conv (seconds per call here) values the last iterate of the
    two smallest."""
    worst_nc, worst_pol = _trajectory_vs_pyspiel(spiel_game.load(preset), iterations,
                                                 pyspiel_nash_conv)
    assert worst_nc < TOL and worst_pol < TOL


def test_cfr_reproduces_pyspiel_cfrsolver_on_tiny():
    tree = build_tree(spiel_game.load("tiny"))
    ours = CFR(tree)
    for expected in TINY_PYSPIEL_CFR_NASHCONV:
        ours.iterate()
        assert abs(nash_conv(tree, ours.average_policy()) - expected) < TOL


def test_kuhn_average_policy_reaches_the_game_value():
    """Kuhn poker's value for player 0 is -1/18 (Kuhn 1950; open_spiel kuhn_poker_test)."""
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    solver = CFR(tree).iterate(1000)
    values = policy_values(tree, solver.average_policy())
    assert abs(values[0] - (-1 / 18)) < 1e-3
    assert abs(values.sum()) < 1e-12                  # zero-sum
    assert nash_conv(tree, solver.average_policy()) < 3e-3


@pytest.mark.parametrize("name,iterations", [("kuhn_poker", 40), ("leduc_poker", 4)])
def test_cfr_plus_reproduces_pyspiel_cfrplussolver(name, iterations):
    game = pyspiel.load_game(name)
    tree = build_tree(game)
    ref = pyspiel.CFRPlusSolver(game)
    ours = CFRPlus(tree)
    for _ in range(iterations):
        ref.evaluate_and_update_policy()
        ours.iterate()
        assert abs(pyspiel.nash_conv(game, ref.average_policy())
                   - nash_conv(tree, ours.average_policy())) < TOL


@pytest.mark.parametrize("ours_cls,theirs", [
    (LinearCFR, lambda g: discounted_cfr.LCFRSolver(g)),
    (DCFR, lambda g: discounted_cfr.DCFRSolver(g, alpha=1.5, beta=0, gamma=2))])
def test_linear_and_discounted_cfr_reproduce_openspiel(ours_cls, theirs):
    """Against OpenSpiel's python discounted_cfr (alternating updates,
    discount after adding the iteration's regrets)."""
    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    ref, ours = theirs(game), ours_cls(tree)
    for _ in range(25):
        ref.evaluate_and_update_policy()
        ours.iterate()
        a = nash_conv(tree, from_policy(tree, ref.average_policy()))
        assert abs(a - nash_conv(tree, ours.average_policy())) < TOL
    assert abs(exploitability.nash_conv(game, ref.average_policy())
               - nash_conv(tree, ours.average_policy())) < TOL


@pytest.fixture(scope="module")
def leduc_runs():
    """NashConv of every variant on leduc_poker after 10, 100 and 1000 iterations."""
    tree = build_tree(pyspiel.load_game("leduc_poker"))
    out = {}
    for name in SOLVERS:
        s = make_solver(name, tree)
        out[name] = []
        for it in (10, 100, 1000):
            s.iterate(it - s.iteration)
            out[name].append(nash_conv(tree, s.average_policy()))
    return out


def test_every_variant_converges_on_leduc(leduc_runs):
    for name, (nc10, nc100, nc1000) in leduc_runs.items():
        assert nc10 > nc100 > nc1000, name
    assert leduc_runs["CFR"][2] < 0.03                 # vanilla CFR, 1000 iterations


def test_variants_beat_vanilla_cfr_on_leduc_after_1000_iterations(leduc_runs):
    """As documented by Brown and Sandholm (2019: LCFR, DCFR) and Farina et
    al. (2021: PCFR+): after 1000 iterations every variant is below vanilla
    CFR, and DCFR is below Linear CFR."""
    cfr = leduc_runs["CFR"][2]
    for name in ("CFR+", "LCFR", "DCFR", "PCFR+"):
        assert leduc_runs[name][2] < cfr, name
    assert leduc_runs["DCFR"][2] < leduc_runs["LCFR"][2]
    assert leduc_runs["DCFR"][2] < cfr / 10 and leduc_runs["PCFR+"][2] < cfr / 10


def test_variants_converge_on_three_player_and_passing_deals():
    for preset in ("micro3", "micro_pass"):
        tree = build_tree(spiel_game.load(preset))
        start = nash_conv(tree, CFR(tree).average_policy())
        for name in SOLVERS:
            s = make_solver(name, tree).iterate(200)
            assert nash_conv(tree, s.average_policy()) < start / 20, (preset, name)


def test_pcfr_plus_solves_kuhn_fastest():
    """Farina et al. (2021): PCFR+ is orders of magnitude faster on Kuhn."""
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    ncs = {name: nash_conv(tree, make_solver(name, tree).iterate(300).average_policy())
           for name in SOLVERS}
    assert min(ncs, key=ncs.get) == "PCFR+"
    assert ncs["PCFR+"] < 1e-5


def test_hyperparameters_are_keyword_only_with_defaults():
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    d = DCFR(tree)
    assert (d.alpha, d.beta, d.gamma) == (1.5, 0.0, 2.0)
    assert PCFRPlus(tree).average_exponent == 2.0
    with pytest.raises(TypeError):
        DCFR(tree, 1.5)
    with pytest.raises(KeyError, match="unknown solver"):
        make_solver("CFR-BR", tree)


def test_policies_are_distributions_and_memory_is_reported():
    tree = build_tree(spiel_game.load("micro_pass"))
    s = PCFRPlus(tree).iterate(5)
    for pol in (s.current_policy(), s.average_policy()):
        sums = np.add.reduceat(pol, tree.infoset_seq_start[:-1])
        assert np.allclose(sums, 1) and pol.min() >= 0
    assert s.nbytes() == 8 * (tree.num_players + 2) * tree.num_nodes + 32 * tree.num_sequences
