"""Exact best response and NashConv (solvers/cfr/_best_response.py) against
OpenSpiel's ``exploitability`` module, for uniform, random and solved policies."""

import dataclasses

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

import spiel_game
from solvers.cfr._best_response import best_response, nash_conv, policy_values
from solvers.cfr._policy import random_profile, to_tabular_policy, uniform_profile
from solvers.cfr._solvers import CFR
from solvers.cfr._tree import build_tree

TOL = 1e-9

GAMES = {
    "kuhn_poker": lambda: pyspiel.load_game("kuhn_poker"),
    "kuhn_poker_3p": lambda: pyspiel.load_game("kuhn_poker", {"players": 3}),
    "leduc_poker": lambda: pyspiel.load_game("leduc_poker"),
    "micro": lambda: spiel_game.load("micro"),
    "micro3": lambda: spiel_game.load("micro3"),
    "micro4": lambda: spiel_game.load("micro4"),
}


def _profiles(tree):
    return {"uniform": uniform_profile(tree), "random": random_profile(tree, 7),
            "solved": CFR(tree).iterate(100).average_policy()}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_nash_conv_and_best_response_values_match_openspiel(name):
    game = GAMES[name]()
    tree = build_tree(game)
    for kind, profile in _profiles(tree).items():
        tab = to_tabular_policy(tree, profile)
        theirs = exploitability.nash_conv(game, tab, return_only_nash_conv=False)
        ours = nash_conv(tree, profile, return_details=True)
        assert abs(theirs.nash_conv - ours.nash_conv) < TOL, kind
        assert np.abs(theirs.player_improvements - ours.player_improvements).max() < TOL, kind
        if name in ("kuhn_poker", "micro3"):
            for p in range(game.num_players()):
                br = exploitability.best_response(game, tab, p)
                assert abs(br["best_response_value"] - ours.best_response_values[p]) < TOL
                assert np.abs(np.asarray(br["on_policy_values"])
                              - ours.on_policy_values).max() < TOL


def test_nash_conv_is_zero_at_kuhn_equilibrium_and_positive_elsewhere():
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    assert nash_conv(tree, uniform_profile(tree)) > 0.5
    assert nash_conv(tree, CFR(tree).iterate(2000).average_policy()) < 2e-3


@pytest.mark.parametrize("name", ["leduc_poker", "micro3", "micro4"])
def test_best_response_policy_attains_its_value(name):
    tree = build_tree(GAMES[name]())
    profile = random_profile(tree, np.random.default_rng(3))
    for p in range(tree.num_players):
        br = best_response(tree, profile, p)
        assert abs(policy_values(tree, br.as_policy(tree, profile))[p] - br.value) < TOL
        assert br.value >= policy_values(tree, profile)[p] - TOL


@pytest.mark.parametrize("name", ["kuhn_poker_3p", "leduc_poker", "micro4"])
def test_depth_by_depth_best_response_equals_level_by_level(name):
    """The general algorithm (one pass per depth of the player's own
    sequences, for information sets spanning several depths) agrees with the
    single-pass one."""
    tree = build_tree(GAMES[name]())
    general = dataclasses.replace(tree, infosets_level_consistent=False)
    profile = random_profile(tree, 11)
    for p in range(tree.num_players):
        a, b = best_response(tree, profile, p), best_response(general, profile, p)
        assert abs(a.value - b.value) < TOL


def test_profile_shape_is_checked():
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ValueError, match="float64"):
        nash_conv(tree, np.ones(3))
