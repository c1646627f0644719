"""Passing conventions: what each one passes, on explicit hands."""

import numpy as np
import pyspiel
import pytest

import spiel_game
from spiel_game._scenarios import state_from_hands
from spiel_game._simulator import simulate
from solvers._base.passing import CONVENTIONS, ConventionBot, choose_pass, compiled_convention

# 6 players x 17 cards; seat 0's hand is chosen, the others are filled from the deck.
HAND0 = "QS KS 2S 3S AH KH 2H 3C 4C 5C 6C 7C 8D 9D TD JD QD"


def _state(pass_count=4):
    game = spiel_game.load(players=6, pass_count=pass_count)
    deck = np.array(game.rules.deck_counts)
    mine = [spiel_game.cards.string_to_card(c) for c in HAND0.split()]
    for c in mine:
        deck[c] -= 1
    rest = [c for c in range(53) for _ in range(deck[c])]
    hands = [mine] + [rest[i * 17:(i + 1) * 17] for i in range(5)]
    return game, state_from_hands(game, hands)


def _passes(name, pass_count=4):
    game, st = _state(pass_count)
    out = []
    for _ in range(pass_count):
        dist = choose_pass(name, st)
        a = max(dist, key=dist.get)
        out.append(st.action_to_string(0, a))
        st.apply_action(a)
    return out


def test_dump_points_passes_black_maria_then_high_hearts():
    assert _passes("dump_points") == ["QS", "AH", "KH", "2H"]


def test_keep_maria_never_passes_a_black_maria():
    p = _passes("keep_maria")
    assert "QS" not in p and p[:2] == ["AH", "KH"]


def test_high_and_low_pass_extremes():
    assert _passes("high") == ["AH", "KS", "KH", "QS"]
    assert _passes("low") == ["2H", "2S", "3C", "3S"]


def test_void_short_empties_the_shortest_suit_first():
    # Suits held: S 4, H 3, C 5, D 5; hearts are voided last -> spades first.
    assert sorted(_passes("void_short")) == sorted(["QS", "KS", "2S", "3S"])


def test_random_is_uniform_over_the_hand():
    game, st = _state()
    dist = choose_pass("random", st)
    assert len(dist) == 17 and abs(sum(dist.values()) - 1) < 1e-12


def test_conventions_only_act_while_passing_and_names_are_checked():
    game, st = _state(pass_count=0)
    with pytest.raises(ValueError, match="R5"):
        choose_pass("high", st)
    with pytest.raises(ValueError, match="known"):
        choose_pass("nonsense", st)


@pytest.mark.parametrize("name", CONVENTIONS)
def test_convention_bot_plays_legal_games(name):
    game = spiel_game.load(players=6)
    bots = [ConventionBot(name, pyspiel.make_uniform_random_bot(i, 10 + i), seed=i)
            for i in range(6)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sum(returns) <= -52


def test_compiled_conventions_run_in_the_simulator_and_dumping_beats_low():
    dump = compiled_convention("dump_points")
    low = compiled_convention("low")
    res = simulate({"players": 6}, 3000, [dump, low] * 3, seed=1)
    assert res.points[:, 0::2].mean() < res.points[:, 1::2].mean()
