"""R4 Dealing: one card at a time, clockwise from seat 0; the kitty last."""

import math

import pytest

from spiel_game import cards as C
from spiel_game._scenarios import deal_actions

from _rule_helpers import fill_hands, hand_of, load


def _kitty_text(state):
    for line in str(state).splitlines():
        if line.startswith("Kitty ["):
            return line.split("[", 1)[1].split("]", 1)[0]
    raise AssertionError("no kitty line")


@pytest.mark.parametrize("n", [5, 6, 11])
def test_r4_one_card_at_a_time_clockwise_from_seat0(n):
    game = load(players=n)
    hands = fill_hands(game)
    st = game.new_initial_state()
    for k, a in enumerate(deal_actions(game, hands)[: 2 * n + 1]):
        before = [hand_of(st, q) for q in range(n)]
        assert st.is_chance_node()
        st.apply_action(a)
        after = [hand_of(st, q) for q in range(n)]
        changed = [q for q in range(n) if before[q] != after[q]]
        assert changed == [k % n], f"card {k} went to {changed}"
        assert C.card_to_string(a) in after[k % n].split()


def test_r4_kitty_dealt_last():
    game = load(deck="kitty", players=6)     # 17 cards each, 2 in the kitty
    hands = fill_hands(game, kitty="AS KH")
    acts = deal_actions(game, hands, kitty="AS KH")
    st = game.new_initial_state()
    for a in acts[:102]:
        st.apply_action(a)
    assert all(len(hand_of(st, q).split()) == 17 for q in range(6))
    assert _kitty_text(st) == ""
    assert st.is_chance_node()
    st.apply_action(C.string_to_card("AS"))
    assert _kitty_text(st) == "AS"
    assert all(len(hand_of(st, q).split()) == 17 for q in range(6))
    st.apply_action(C.string_to_card("KH"))
    assert _kitty_text(st) == "KH AS"
    assert not st.is_chance_node()
    assert st.current_player() == 0


def test_r4_chance_probabilities_are_copies_left_over_cards_left():
    game = load(players=5)                  # 105 cards: 2 of each, 1 joker
    st = game.new_initial_state()
    out = dict(st.chance_outcomes())
    assert len(out) == 53
    assert out[C.JOKER] == pytest.approx(1 / 105)
    assert out[C.QS] == pytest.approx(2 / 105)
    assert math.fsum(out.values()) == pytest.approx(1.0)
    st.apply_action(C.QS)
    out = dict(st.chance_outcomes())
    assert out[C.QS] == pytest.approx(1 / 104)
    assert out[C.JOKER] == pytest.approx(1 / 104)
    assert out[C.TWO_CLUBS] == pytest.approx(2 / 104)
    st.apply_action(C.QS)
    st.apply_action(C.JOKER)
    out = dict(st.chance_outcomes())
    assert C.QS not in out and C.JOKER not in out
    assert len(out) == 51
    assert out[C.TWO_CLUBS] == pytest.approx(2 / 102)
    assert math.fsum(out.values()) == pytest.approx(1.0)
    assert sorted(out) == st.legal_actions()


def test_r4_chance_probabilities_removed_twos():
    game = load(players=9)                  # one 2C, no 2D, no 2S: 99 cards
    out = dict(game.new_initial_state().chance_outcomes())
    assert out[C.TWO_CLUBS] == pytest.approx(1 / 99)
    assert C.string_to_card("2D") not in out and C.string_to_card("2S") not in out
    assert out[C.string_to_card("2H")] == pytest.approx(2 / 99)
    assert len(out) == 50


def test_r4_only_undealt_cards_can_be_dealt():
    game = load(deck="custom", players=2, packs=1, suits="S", ranks="AK", pass_count=0)
    st = game.new_initial_state()
    st.apply_action(C.string_to_card("AS"))
    assert st.chance_outcomes() == [(C.string_to_card("KS"), 1.0)]
    with pytest.raises(ValueError, match="R4"):
        st.apply_action(C.string_to_card("AS"))
