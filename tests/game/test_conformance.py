"""OpenSpiel conformance: random_sim_test, api_test's checks, pickling.

Every deck scheme and player count goes through OpenSpiel's own C++
``random_sim_test`` (with serialization); a small custom deck goes through the
full-tree and partial-tree checks of ``open_spiel/integration_tests/api_test.py``
by subclassing its base classes.
"""

import pickle

import numpy as np
import pyspiel
import pytest

import spiel_game
from open_spiel.integration_tests import api_test as _api
from open_spiel.python.algorithms import get_all_states

NAME = spiel_game.GAME_NAME

SIM_CONFIGS = (
    [{"players": n} for n in range(5, 12)]
    + [{"deck": "kitty", "players": n} for n in range(5, 12)]
    + [{"players": 11, "packs": 3},
       spiel_game.preset("classic"),
       {"deck": "classic", "players": 4, "packs": 1, "pass_offset": 2},
       {"deck": "custom", "players": 3, "suits": "CHS", "ranks": "9TJQKA"},
       {"deck": "custom", "players": 4, "suits": "CDHS", "ranks": "TJQKA", "packs": 3,
        "first_lead": "left_of_dealer", "void_last_trick": "discard"},
       {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA", "deal": "whole",
        "pass_count": 1},
       {"players": 6, "target_score": 40, "moon": "choose", "utility": "zero_sum"},
       {"players": 7, "moon": "subtract", "pass_offset": -1, "void_last_trick": "discard"},
       {"players": 5, "moon": "off", "pass_count": 0}]
)


@pytest.mark.parametrize("params", SIM_CONFIGS,
                         ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_random_sim_test_with_serialization(params):
    game = pyspiel.load_game(NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_load_by_game_string():
    game = pyspiel.load_game(f"{NAME}(players=7,deck=kitty)")
    assert game.num_players() == 7
    assert game.rules.kitty_size == 104 % 7


@pytest.mark.parametrize("params", [{}, {"deck": "kitty", "players": 9},
                                    {"players": 6, "target_score": 30, "moon": "choose"}])
def test_pickle_round_trip_of_game_and_states(params):
    game = pyspiel.load_game(NAME, params)
    g2 = pickle.loads(pickle.dumps(game))
    assert str(g2) == str(game)
    rng = np.random.default_rng(3)
    st = game.new_initial_state()
    k = 0
    while not st.is_terminal():
        la = st.legal_actions()
        st.apply_action(la[int(rng.integers(len(la)))])
        k += 1
        if k % 37 == 0 or st.is_terminal():
            st2 = pickle.loads(pickle.dumps(st))
            assert str(st2) == str(st)
            assert st2.history() == st.history()
            assert st2.legal_actions() == st.legal_actions()
            st3 = game.deserialize_state(st.serialize())
            assert str(st3) == str(st)
            assert st3.returns() == st.returns()


def test_python_and_cpp_paths_agree_on_legal_actions():
    """legal_actions is answered in Python; the C++ path (_legal_actions) must agree."""
    game = pyspiel.load_game(NAME, {"players": 7, "deck": "kitty"})
    rng = np.random.default_rng(11)
    st = game.new_initial_state()
    while not st.is_terminal():
        cur = st.current_player()
        la = st.legal_actions()
        if not st.is_chance_node():
            assert la == st._legal_actions(cur)
            mask = [int(a in la) for a in range(game.num_distinct_actions())]
            assert st.legal_actions_mask(cur) == mask
        else:
            assert la == [a for a, _ in st.chance_outcomes()]
        st.apply_action(la[int(rng.integers(len(la)))])


# ---------------------------------------------------------------- api_test
# A custom deck small enough for full-tree traversal: 2 players, hearts and
# spades Q-K, two packs (8 cards, 4 each), one card passed, whole deal.
_SMALL = {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QK", "pass_count": 1,
          "deal": "whole"}
_SMALL_NAME = "cancellation_hearts_small"


def _count_nodes(game):
    """Independent enumeration: (chance, decision, terminal) histories and
    (infostate, player) pairs, walking the tree by history."""
    chance = decision = terminal = 0
    infostates = set()
    stack = [game.new_initial_state()]
    while stack:
        st = stack.pop()
        if st.is_terminal():
            terminal += 1
            continue
        if st.is_chance_node():
            chance += 1
        else:
            decision += 1
            infostates.add((st.information_state_string(), st.current_player()))
        stack.extend(st.child(a) for a in st.legal_actions())
    return (chance, decision, terminal), len(infostates)


_small_game = pyspiel.load_game(NAME, _SMALL)
_nodes, _n_infostates = _count_nodes(_small_game)
_api.TOTAL_NUM_STATES[_SMALL_NAME] = _nodes
_api.PERFECT_RECALL_NUM_STATES[_SMALL_NAME] = _n_infostates


def test_small_tree_counts_are_plausible():
    chance, decision, terminal = _nodes
    assert chance == 1                      # whole deal: one chance node
    assert terminal == _nodes[2] > 0
    # get_all_states de-duplicates by str(state): equal counts show str(state)
    # identifies the history uniquely in this game.
    states = get_all_states.get_all_states(_small_game, depth_limit=-1, include_terminals=True,
                                           include_chance_states=True)
    assert len(states) == chance + decision + terminal


class TestOpenSpielAPIFullTree(_api.EnforceAPIOnFullTreeBase):
    game_name = _SMALL_NAME
    game = _small_game


class TestOpenSpielAPIPartialTreeSmall(_api.EnforceAPIOnPartialTreeBase):
    game_name = _SMALL_NAME
    game = _small_game


class TestOpenSpielAPIPartialTreeDefault(_api.EnforceAPIOnPartialTreeBase):
    game_name = NAME
    game = pyspiel.load_game(NAME)


class TestOpenSpielAPIPartialTreeKitty(_api.EnforceAPIOnPartialTreeBase):
    game_name = NAME + "_kitty"
    game = pyspiel.load_game(NAME, {"deck": "kitty", "players": 7})
