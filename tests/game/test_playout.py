"""spiel_game._playout: the one random-play helper and the conformance check."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game
from spiel_game import _engine as E
from spiel_game._playout import ConformanceError, cards_played, conformance, play_random

SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "9TJQKA", "packs": 1,
         "pass_count": 1}


def _reference(game, rng, stop):
    """The hand-written loop play_random replaced (two spellings of its draws)."""
    st = game.new_initial_state()
    while not st.is_terminal() and not stop(st):
        if st.is_chance_node():
            outcomes, probs = zip(*st.chance_outcomes())
            st.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            st.apply_action(int(rng.choice(st.legal_actions())))
    return st


@pytest.mark.parametrize("params", [SMALL, {"players": 6}, {"deck": "kitty", "players": 7}])
def test_play_random_draws_the_same_games_as_the_loops_it_replaced(params):
    game = spiel_game.load(params)
    for seed in range(3):
        got = play_random(game, np.random.default_rng(seed))
        want = _reference(game, np.random.default_rng(seed), lambda st: False)
        assert got.is_terminal() and got.history() == want.history()
        half = game.rules.num_cards // 4
        got = play_random(game, seed, until=cards_played(half))
        want = _reference(game, np.random.default_rng(seed),
                          lambda st, half=half: not st.is_chance_node()
                          and st.engine_state[E.S_NPLAYED] >= half)
        assert got.history() == want.history() and not got.is_chance_node()
        assert got.engine_state[E.S_NPLAYED] == half


def test_play_random_continues_a_state_on_a_clone_or_in_place_and_ignores_the_global_rng():
    game = spiel_game.load(SMALL)
    st = play_random(game, 1, until=cards_played(2))
    before = st.history()
    np.random.seed(0)
    a = play_random(st, np.random.default_rng(9))
    np.random.seed(1)
    np.random.random(50)
    b = play_random(st, np.random.default_rng(9))
    assert st.history() == before and a.history() == b.history() and a.is_terminal()
    same = play_random(st, np.random.default_rng(9), in_place=True)
    assert same is st and st.history() == a.history()


def test_play_random_works_on_any_pyspiel_game():
    st = play_random(pyspiel.load_game("kuhn_poker"), 3)
    assert st.is_terminal() and len(st.returns()) == 2


@pytest.mark.parametrize("params", [SMALL, {"deck": "custom", "players": 2, "suits": "HS",
                                            "ranks": "QKA", "deal": "whole", "pass_count": 1},
                                    {"players": 5, "moon": "off", "pass_count": 0}])
def test_conformance_of_variants(params):
    game = spiel_game.load(params)
    report = conformance(game, games=2, seed=4)
    assert report["games"] == 2 and report["states"] > 2 * report["max_length"] > 0
    assert report["max_length"] <= game.max_game_length()


class _Unsorted:
    """A decision state whose legal actions are not sorted: conformance must say so."""

    def __init__(self, moved=0):
        self.moved = moved

    def current_player(self):
        return pyspiel.PlayerId.TERMINAL if self.moved else 0

    def is_terminal(self):
        return bool(self.moved)

    def is_chance_node(self):
        return False

    def legal_actions(self, player=None):
        return [] if self.moved else [1, 0]

    def clone(self):
        return _Unsorted(self.moved)

    def history(self):
        return [0] * self.moved

    def rewards(self):
        return [0.0]

    def __str__(self):
        return str(self.moved)


class _UnsortedGame:
    def get_type(self):
        return pyspiel.load_game("kuhn_poker").get_type()

    def __getattr__(self, name):
        values = {"num_players": 1, "num_distinct_actions": 2, "max_chance_outcomes": 0,
                  "min_utility": 0.0, "max_utility": 1.0, "max_game_length": 1,
                  "information_state_tensor_shape": [1], "observation_tensor_shape": [1]}
        return lambda *a: values[name]

    def new_initial_state(self):
        return _Unsorted()


def test_conformance_names_the_broken_promise():
    game = _UnsortedGame()
    game.get_type = lambda: pyspiel.GameType(
        "fake", "fake", pyspiel.GameType.Dynamics.SEQUENTIAL,
        pyspiel.GameType.ChanceMode.DETERMINISTIC, pyspiel.GameType.Information.PERFECT_INFORMATION,
        pyspiel.GameType.Utility.GENERAL_SUM, pyspiel.GameType.RewardModel.TERMINAL, 1, 1,
        False, False, False, False, {})
    with pytest.raises(ConformanceError, match="legal_actions\\(\\) not sorted"):
        conformance(game, games=1, serialize=False)
