"""Policy conversion (solvers/cfr/_policy.py) and sampling MCCFR (solvers/cfr/_mccfr.py)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability

import spiel_game
from solvers.cfr._best_response import nash_conv
from solvers.cfr._mccfr import ExternalSamplingMCCFR, MCCFRPolicy, OutcomeSamplingMCCFR
from solvers.cfr._policy import (FlatPolicy, from_policy, random_profile, to_tabular_policy,
                                uniform_profile)
from solvers.cfr._solvers import CFR
from solvers.cfr._tree import build_tree


# ------------------------------------------------------------------ policy
@pytest.mark.parametrize("make", [lambda: pyspiel.load_game("leduc_poker"),
                                  lambda: spiel_game.load("micro_pass")])
def test_tabular_policy_round_trip(make):
    game = make()
    tree = build_tree(game)
    prof = random_profile(tree, 5)
    tab = to_tabular_policy(tree, prof)
    assert isinstance(tab, os_policy.TabularPolicy)
    assert np.array_equal(from_policy(tree, tab), prof)
    # Rows are distributions over legal actions only.
    assert np.allclose(tab.action_probability_array.sum(axis=1), 1)
    assert np.all(tab.action_probability_array[tab.legal_actions_mask == 0] == 0)
    # The same profile read through the generic Policy interface (states).
    assert np.allclose(from_policy(tree, FlatPolicy(tree, prof)), prof, atol=0, rtol=0)
    assert np.array_equal(from_policy(tree, tab.to_dict()), prof)


def test_cpp_policy_and_uniform_conversions():
    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    solver = pyspiel.CFRSolver(game)
    solver.evaluate_and_update_policy()
    prof = from_policy(tree, solver.average_policy())
    assert np.allclose(np.add.reduceat(prof, tree.infoset_seq_start[:-1]), 1)
    assert np.array_equal(from_policy(tree, os_policy.UniformRandomPolicy(game)),
                          uniform_profile(tree))
    with pytest.raises(KeyError):
        from_policy(tree, {}, missing="error")
    assert np.array_equal(from_policy(tree, {}), uniform_profile(tree))     # the default
    with pytest.raises(TypeError):
        from_policy(tree, object())


def test_flat_policy_is_accepted_by_openspiel_tools():
    game = spiel_game.load("micro3")
    tree = build_tree(game)
    prof = CFR(tree).iterate(30).average_policy()
    a = exploitability.nash_conv(game, FlatPolicy(tree, prof))
    assert abs(a - nash_conv(tree, prof)) < 1e-9


# ------------------------------------------------------------------ MCCFR
@pytest.mark.parametrize("cls,iterations,bound", [(ExternalSamplingMCCFR, 3000, 0.06),
                                                  (OutcomeSamplingMCCFR, 20000, 0.2)])
def test_mccfr_converges_on_kuhn(cls, iterations, bound):
    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    solver = cls(game, seed=1).iterate(iterations)
    nc = nash_conv(tree, from_policy(tree, solver.average_policy(), missing="uniform"))
    assert nc < bound
    # The same NashConv through OpenSpiel's evaluation of the MCCFR policy.
    assert abs(exploitability.nash_conv(game, solver.average_policy()) - nc) < 1e-9


@pytest.mark.parametrize("cls", [ExternalSamplingMCCFR, OutcomeSamplingMCCFR])
def test_mccfr_is_seeded_and_ignores_the_global_rng(cls):
    game = spiel_game.load("micro_pass")
    np.random.seed(123)
    a = cls(game, seed=9).iterate(30).average_policy_dict()
    np.random.seed(456)
    np.random.random(17)
    b = cls(game, seed=9).iterate(30).average_policy_dict()
    c = cls(game, seed=10).iterate(30).average_policy_dict()
    assert a == b
    assert a != c


def test_mccfr_improves_on_reduced_deal():
    game = spiel_game.load("micro3")
    tree = build_tree(game)
    start = nash_conv(tree, uniform_profile(tree))
    es = ExternalSamplingMCCFR(game, seed=0).iterate(400)
    assert nash_conv(tree, from_policy(tree, es.average_policy(), missing="uniform")) < start / 3
    assert isinstance(es.average_policy(), MCCFRPolicy)
    with pytest.raises(ValueError, match="epsilon"):
        OutcomeSamplingMCCFR(game, seed=0, epsilon=0.0)
