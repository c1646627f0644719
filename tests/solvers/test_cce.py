"""The CCE gap of empirical play (solvers/cfr/_cce.py) against independent computations:
pure-strategy enumeration (kuhn_poker), the existing exact best response on a tree
where chance draws the iteration (kuhn 2p/3p, leduc, micro3), per-iteration policy
values, the regret bound and, in two-player zero-sum games, NashConv of the average."""

import dataclasses
import itertools

import numpy as np
import pyspiel
import pytest
from conftest import check_figure_and_macros

import spiel_game
from solvers.cfr._best_response import best_response, nash_conv, policy_values
from solvers.cfr._cce import EmpiricalPlay, run_cce, simultaneous_iterate
from solvers.cfr._policy import random_profile
from solvers.cfr._solvers import CFR, CFRPlus, make_solver
from solvers.cfr._tree import CHANCE, build_tree

TOL = 1e-9

GAMES = {
    "kuhn_poker": lambda: pyspiel.load_game("kuhn_poker"),
    "kuhn_poker_3p": lambda: pyspiel.load_game("kuhn_poker", {"players": 3}),
    "leduc_poker": lambda: pyspiel.load_game("leduc_poker"),
    "micro3": lambda: spiel_game.load("micro3"),
}
_TREES: dict = {}


def _tree(name):
    if name not in _TREES:
        _TREES[name] = build_tree(GAMES[name]())
    return _TREES[name]


def _iterates(tree, count, seed):
    """``count`` distinct product profiles: random ones and CFR iterates."""
    out = [random_profile(tree, seed + k) for k in range(count // 2)]
    s = CFR(tree)
    while len(out) < count:
        s.iterate(1)
        out.append(s.current_policy())
    return out


def _mixture_tree(tree, profiles, weights, player):
    """An independent reference: a tree whose root chance node draws ``t`` with
    probability ``weights[t] / sum(weights)`` and whose copy ``t`` of ``tree`` has
    every decision of the players other than ``player`` turned into a chance node
    playing ``profiles[t]``; ``player``'s information sets are shared by the copies
    (it does not observe ``t``). The existing :func:`best_response` on it is
    ``max_pi E_t u_player(pi, sigma^t_-player)``."""
    T = len(profiles)
    N = tree.num_nodes
    ls = tree.level_start
    order = [0]                                   # new node -> (copy, old node)
    copies = [-1]
    for d in range(ls.shape[0] - 1):
        for t in range(T):
            order.extend(range(int(ls[d]), int(ls[d + 1])))
            copies.extend([t] * int(ls[d + 1] - ls[d]))
    order, copies = np.array(order), np.array(copies)
    nchild = np.diff(tree.child_start)[order]
    nchild[0] = T
    child_start = np.concatenate([[0], np.cumsum(nchild)]) + 1
    child_start[0] = 1
    player_of = tree.node_player[order].copy()
    data = tree.node_data[order].copy()
    probs = [tree.chance_prob, np.asarray(weights, np.float64) / np.sum(weights)]
    acts = [tree.chance_action, np.arange(T)]
    at = tree.chance_prob.shape[0]
    player_of[0], data[0] = CHANCE, at
    at += T
    seq = tree.infoset_seq_start
    for k in range(1, order.shape[0]):
        p = player_of[k]
        if p >= 0 and p != player:
            i = data[k]
            a, b = seq[i], seq[i + 1]
            probs.append(profiles[copies[k]][a:b])
            acts.append(tree.sequence_action[a:b])
            player_of[k], data[k] = CHANCE, at
            at += b - a
    assert child_start[-1] == 1 + T * N
    return dataclasses.replace(
        tree, node_player=player_of, node_data=data.astype(tree.node_data.dtype),
        child_start=child_start.astype(np.int64),
        level_start=np.concatenate([[0], 1 + T * ls]).astype(np.int64),
        chance_prob=np.concatenate(probs), chance_action=np.concatenate(acts).astype(np.int64),
        _keys=None)


def _mean_values(tree, profiles, weights):
    w = np.asarray(weights, np.float64)
    return sum(wt * policy_values(tree, p) for wt, p in zip(w, profiles)) / w.sum()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_one_profile_gives_the_exact_best_response_and_values(name):
    tree = _tree(name)
    prof = random_profile(tree, 3)
    res = EmpiricalPlay(tree).add(prof, 2.5).gaps()
    nc = nash_conv(tree, prof, return_details=True)
    assert np.abs(res.best_response_values - nc.best_response_values).max() < TOL
    assert np.abs(res.values - nc.on_policy_values).max() < TOL
    assert abs(res.gap_sum - nc.nash_conv) < TOL


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("general", [False, True])
def test_best_response_to_the_mixture_equals_the_reference_tree(name, general):
    """Also on the general (not level-consistent) path, and with unequal weights."""
    tree = _tree(name)
    if general:
        tree = dataclasses.replace(tree, infosets_level_consistent=False)
    profiles = _iterates(tree, 5, seed=11)
    weights = [1.0, 2.0, 0.5, 3.0, 1.5]
    play = EmpiricalPlay(tree)
    for p, w in zip(profiles, weights):
        play.add(p, w)
    on = _mean_values(tree, profiles, weights)
    assert np.abs(play.values() - on).max() < TOL
    for i in range(tree.num_players):
        ref = best_response(_mixture_tree(tree, profiles, weights, i), profiles[0], i).value
        br = play.best_response(i)
        assert abs(br.value - ref) < TOL, i
        # The chosen pure strategy attains that value, iteration by iteration.
        per_t = [policy_values(tree, br.as_policy(tree, p))[i] for p in profiles]
        assert abs(np.dot(weights, per_t) / np.sum(weights) - br.value) < TOL, i


def test_kuhn_best_response_equals_enumeration_of_pure_strategies():
    tree = _tree("kuhn_poker")
    profiles = _iterates(tree, 6, seed=5)
    play = EmpiricalPlay(tree)
    for p in profiles:
        play.add(p)
    for i in range(2):
        sets = range(int(tree.player_infoset_start[i]), int(tree.player_infoset_start[i + 1]))
        best = -np.inf
        for pure in itertools.product(*(range(int(tree.infoset_seq_start[j + 1]
                                                  - tree.infoset_seq_start[j]))
                                        for j in sets)):
            total = 0.0
            for prof in profiles:
                dev = prof.copy()
                for j, a in zip(sets, pure):
                    s0, s1 = tree.infoset_seq_start[j], tree.infoset_seq_start[j + 1]
                    dev[s0:s1] = 0.0
                    dev[s0 + a] = 1.0
                total += policy_values(tree, dev)[i]
            best = max(best, total / len(profiles))
        assert abs(play.best_response(i).value - best) < TOL


def test_a_wrong_mixture_gives_a_different_value():
    """The checks can fail: the best response to the product of the averaged
    strategies (what NashConv of an average measures) is not the best response to
    the mixture of product profiles in a 3-player game."""
    tree = _tree("kuhn_poker_3p")
    profiles = _iterates(tree, 4, seed=2)
    play = EmpiricalPlay(tree)
    for p in profiles:
        play.add(p)
    flat_avg = np.mean(profiles, axis=0)      # a behavioural average: a product profile
    right = play.best_response(0).value
    wrong = best_response(tree, flat_avg, 0).value
    ref = best_response(_mixture_tree(tree, profiles, [1.0] * 4, 0), profiles[0], 0).value
    assert abs(right - ref) < TOL
    assert abs(right - wrong) > 1e-3
    # The reference tree with a shifted weight disagrees too.
    off = best_response(_mixture_tree(tree, profiles, [2.0, 1, 1, 1], 0), profiles[0], 0).value
    assert abs(right - off) > 1e-4


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_two_player_zero_sum_gap_sum_is_nash_conv_of_the_average(name):
    """Simultaneous vanilla CFR, uniform weights; CFR+ with its own (linear) weights."""
    tree = _tree(name)
    for cls, weighting in ((CFR, "uniform"), (CFRPlus, "solver")):
        s = cls(tree)
        play = EmpiricalPlay(tree)
        simultaneous_iterate(s, 40, play, weighting)
        res = play.gaps()
        assert abs(res.gap_sum - nash_conv(tree, s.average_policy())) < TOL, cls.name
        if weighting == "uniform":
            bound = EmpiricalPlay.regret_bound(tree, s.regret, play.total_weight)
            assert (res.gaps <= bound + TOL).all()


@pytest.mark.parametrize("name", ["kuhn_poker", "kuhn_poker_3p", "micro3"])
@pytest.mark.parametrize("solver", ["CFR", "CFR+", "PCFR+"])
def test_gaps_stay_under_the_regret_bound_and_shrink(name, solver):
    tree = _tree(name)
    rows = run_cce(tree, solver, 200, [1, 10, 50, 200])
    n = tree.num_players
    for r in rows:
        assert r["cce_gap"] <= r["regret_bound"] + TOL
        assert abs(r["cce_gap"] - max(r[f"gap_{p}"] for p in range(n))) < 1e-12
    assert rows[-1]["cce_gap"] < rows[0]["cce_gap"] / 5
    assert rows[-1]["regret_bound"] < rows[0]["regret_bound"]


def test_alternating_driver_records_the_solver_iterates():
    """With alternating updates the recorded play is the profile at the start of
    each of the solver's own iterations."""
    tree = _tree("kuhn_poker_3p")
    rows = run_cce(tree, "CFR", 7, [7], updates="alternating")
    s, play = CFR(tree), EmpiricalPlay(tree)
    for _ in range(7):
        play.add(s.current_policy())
        s.iterate(1)
    r = rows[0]
    assert abs(r["cce_gap"] - play.gaps().cce_gap) < 1e-12
    assert abs(r["nash_conv_avg"] - nash_conv(tree, s.average_policy())) < 1e-12
    assert abs(r["nash_conv_current"] - nash_conv(tree, s.current_policy())) < 1e-12
    assert np.isnan(r["regret_bound"])


def test_simultaneous_updates_differ_from_alternating_and_keep_solver_state():
    tree = _tree("kuhn_poker_3p")
    a = make_solver("DCFR", tree).iterate(5)
    b = simultaneous_iterate(make_solver("DCFR", tree), 5)
    assert b.iteration == 5 and b.seconds > 0
    assert not np.allclose(a.current_policy(), b.current_policy())
    assert np.allclose(np.add.reduceat(b.current_policy(), tree.infoset_seq_start[:-1]), 1.0)


def test_bad_input_is_refused_with_a_clear_message():
    tree = _tree("kuhn_poker")
    play = EmpiricalPlay(tree)
    with pytest.raises(ValueError, match="no profile added"):
        play.gaps()
    with pytest.raises(ValueError, match=r"float64\[24\]"):
        play.add(np.ones(3))
    with pytest.raises(ValueError, match="weight"):
        play.add(np.full(24, 0.5), 0.0)
    play.add(np.full(24, 0.5))
    with pytest.raises(ValueError, match="player=2"):
        play.best_response(2)
    with pytest.raises(ValueError, match="solver='CFR-BR'"):
        run_cce(tree, "CFR-BR", 3)
    with pytest.raises(ValueError, match="updates='both'"):
        run_cce(tree, "CFR", 3, updates="both")
    with pytest.raises(ValueError, match="weighting='linear'"):
        run_cce(tree, "CFR", 3, weighting="linear")
    with pytest.raises(ValueError, match="checkpoints"):
        run_cce(tree, "CFR", 3, [0, 3])


def test_cce_study_figure_and_macros_end_to_end(tmp_path):
    import re

    import texmacros as macros
    from experiments import runner
    from experiments._base import registry
    from texmacros.studies import cce as writer
    from experiments._base.config import ConfigError
    from experiments.studies import cce as study

    assert registry.get("cce").reproduce and "texmacros.studies.cce" in macros.SOURCES
    with pytest.raises(ConfigError, match="unknown deal 'nope'"):
        study.CCEConfig(deals=("nope",))
    with pytest.raises(ConfigError, match="unknown updates"):
        study.CCEConfig(updates=("sometimes",))
    out = tmp_path / "results"
    res = runner.run("cce", out=out, workers=1, progress=False, verbose=False,
                     overrides={"deals": "kuhn_poker(players=3),micro3", "iterations": 40,
                                "checkpoints": 5, "solvers": "CFR,CFR+",
                                "updates": "simultaneous,alternating"})
    rows = res.rows
    assert set(rows.deal) == {"kuhn_poker(players=3)", "micro3"}
    # CFR: 2 update schemes x uniform; CFR+: 2 x (uniform, solver); CFR-Jr of each
    assert len(res.tables["summary"]) == 2 * (2 + 4 + 2)
    assert (rows.play == "sampled").sum() == 2 * 2 * 5
    for _, g in rows.groupby(["deal", "solver", "updates", "weighting", "play"]):
        g = g.sort_values("iteration")
        assert g.iteration.iloc[-1] == 40
        assert np.allclose(g.cce_gap, g[[f"gap_{p}" for p in range(3)]].max(axis=1))
        assert g.cce_gap.iloc[-1] < g.cce_gap.iloc[0]
    cert = rows[rows.regret_bound.notna()]
    assert len(cert) and (cert.cce_gap <= cert.regret_bound + TOL).all()
    # The figure script reads the profile's folder (a run with overrides has its own).
    import shutil
    shutil.move(res.path, out / "cce")
    # The figure, and the paper's macros computed from these rows, none missing.
    tex = check_figure_and_macros("cce", study, out, tmp_path)
    value = lambda name: re.search(rf"\\newcommand{{\\{name}}}{{(.*?)}}  %", tex,  # noqa: E731
                                   re.S).group(1)
    assert value("CceIterations") == "40" and value("CceRuns") == str(len(res.tables["summary"]))
    last = rows[rows.iteration == 40]
    simult = last[(last.updates == "simultaneous") & (last.weighting == "uniform")
                  & (last.play == "iterate")]
    assert value("CceGapHi") == macros.sci(simult.cce_gap.max())
    assert value("CceJrGapLo") == macros.sci(last[last.play == "sampled"].cce_gap.min())
    assert value("CceCertified") == str(len(cert))
    assert "\\newif\\ifCceAlternating\\CceAlternatingtrue" in tex
    body = value("CceRows")
    assert body.count("\\quad ") == 2 * 2 * 2        # deal x solver x updates
    assert body.count("\\multicolumn") == 2 and body.count("\\\\") == 2 + 2 * 2 * 2
    # A gap above its bound is not certified: the macro is missing, not a false claim.
    bad = out / "bad" / "cce"
    bad.mkdir(parents=True)
    shutil.copy(out / "cce" / "metadata.json", bad / "metadata.json")
    broken = rows.copy()
    i = broken.index[broken.regret_bound.notna()][0]
    broken.loc[i, "cce_gap"] = broken.loc[i, "regret_bound"] + 1e-3
    broken.to_csv(bad / "rows.csv", index=False)
    m = macros.Macros()
    writer.paper_macros(m, out / "bad", tmp_path)
    assert [w for w in m.warnings if "CceCertified" in w and "above its regret bound" in w]


def test_cce_study_large_deals_run_apart(tmp_path):
    """A large deal: simultaneous updates only, no CFR-Jr, its own iteration count,
    and macros of its own (the other deals' ranges leave it out)."""
    import re

    import texmacros as macros
    from experiments import runner
    from texmacros.studies import cce as writer
    from experiments._base.config import ConfigError
    from experiments.studies import cce as study

    with pytest.raises(ConfigError, match="overlap"):
        study.CCEConfig(deals=("micro3",), large_deals=("micro3",))
    with pytest.raises(ValueError, match="large_iterations"):
        study.CCEConfig(large_deals=("small3",), large_iterations=0)
    assert study.PROFILES["paper"].large_deals == ("medium3",)
    assert not study.PROFILES["quick"].large_deals
    out = tmp_path
    res = runner.run("cce", out=out, workers=1, progress=False, verbose=False,
                     overrides={"deals": "kuhn_poker(players=3)", "large_deals": "micro3",
                                "iterations": 20, "large_iterations": 12, "checkpoints": 3,
                                "updates": "simultaneous,alternating"})
    rows = res.rows
    big = rows[rows.deal == "micro3"]
    assert set(big.updates) == {"simultaneous"} and set(big.play) == {"iterate"}
    assert big.iteration.max() == 12 and rows[rows.deal != "micro3"].iteration.max() == 20
    assert len(big.groupby(["solver", "weighting"])) == 3      # CFR; CFR+ uniform, solver
    import shutil
    shutil.move(res.path, out / "cce")
    m = macros.Macros()
    writer.paper_macros(m, out, out)
    assert not m.warnings, m.warnings
    tex = m.tex("test")
    value = lambda name: re.search(rf"\\newcommand{{\\{name}}}{{(.*?)}}  %", tex,  # noqa: E731
                                   re.S).group(1)
    assert "\\newif\\ifCceLarge\\CceLargetrue" in tex
    assert value("CceLargeIterations") == "12" and "micro3" in value("CceLargeDeal")
    assert "micro3" not in value("CceDeals")
    last = big[big.iteration == 12]
    uni = last[last.weighting == "uniform"]
    assert value("CceLargeGapHi") == macros.sci(uni.cce_gap.max())
    small = rows[(rows.deal != "micro3") & (rows.iteration == 20) & (rows.play == "iterate")
                 & (rows.updates == "simultaneous") & (rows.weighting == "uniform")]
    assert value("CceGapHi") == macros.sci(small.cce_gap.max())
    assert "micro3}: 2{,}015 histories, 12 iterations}" in value("CceRows")


def test_cfr_jr_samples_pure_plans_from_the_iterates():
    from solvers.cfr._cce import sample_pure_profile
    tree = _tree("kuhn_poker_3p")
    prof = random_profile(tree, 4)
    rng = np.random.default_rng(0)
    draws = np.array([sample_pure_profile(tree, prof, rng) for _ in range(4000)])
    assert set(np.unique(draws)) == {0.0, 1.0}
    assert np.allclose(np.add.reduceat(draws, tree.infoset_seq_start[:-1], axis=1), 1.0)
    assert np.abs(draws.mean(axis=0) - prof).max() < 0.04          # ~5 sigma at 4000 draws
    # The driver records exactly those draws (same seed), one per iteration.
    rows = run_cce(tree, "CFR", 6, [6], play="sampled", seed=9)
    s, play, rng = CFR(tree), EmpiricalPlay(tree), np.random.default_rng(9)
    for _ in range(6):
        play.add(sample_pure_profile(tree, s.policy, rng))
        simultaneous_iterate(s, 1)
    assert abs(rows[0]["cce_gap"] - play.gaps().cce_gap) < 1e-12
    assert rows[0]["play"] == "sampled" and np.isnan(rows[0]["regret_bound"])
    with pytest.raises(ValueError, match="seed"):
        run_cce(tree, "CFR", 3, play="sampled")
    with pytest.raises(ValueError, match="play='mixed'"):
        run_cce(tree, "CFR", 3, play="mixed")
