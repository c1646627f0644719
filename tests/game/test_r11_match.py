"""R11 The game: hands repeat until someone reaches the target; the lowest total wins."""

import math

import pytest

from spiel_game import GameParameterError
from spiel_game._scenarios import parse_cards

from _rule_referee import check_random_games
from _rule_helpers import (dealer, hand_counts, hand_number, hand_of, last_hand_and_scores,
                           load, play, play_out_hand)

# Four players, two packs of 7 8 9 T in hearts and spades: 8 points a hand.
SMALL = dict(deck="custom", players=4, packs=2, suits="HS", ranks="789T",
             pass_count=0, moon="off")
# Seat 0 (left of the dealer) leads; tricks won by 0, 1, 1; the last is void
# and goes to its leader (seat 1): points [2, 6, 0, 0].
BASE_HANDS = ["TS 9S 8S 7S", "8S TS 9S 7S", "TH 9H 7H 8H", "9H TH 7H 8H"]
BASE_PLAYS = "TS 8S TH 9H 9S TS 9H TH 9S 7H 7H 8S 7S 8H 8H 7S"


def _deal_hand(state, hands):
    """Deal ``hands[seat]`` under R4 from the seat left of the current dealer."""
    n = len(hands)
    first = (dealer(state) + 1) % n
    parsed = [parse_cards(h) for h in hands]
    for i in range(len(parsed[0])):
        for k in range(n):
            state.apply_action(parsed[(first + k) % n][i])


def _rotated(h):
    """The base deal moved h seats clockwise: seat s gets BASE_HANDS[s - h]."""
    return [BASE_HANDS[(s - h) % 4] for s in range(4)]


def test_r11_single_hand_is_the_default():
    game = load(**SMALL)
    assert game.rules.target_score == 0 and not game.rules.is_match
    st = game.new_initial_state()
    _deal_hand(st, BASE_HANDS)
    play(st, BASE_PLAYS)
    assert st.is_terminal()
    assert st.returns() == [-2.0, -6.0, 0.0, 0.0]


def test_r11_match_rotates_dealer_and_ends_at_target():
    game = load(target_score=10, **SMALL)
    st = game.new_initial_state()
    expected_scores = [0, 0, 0, 0]
    for h in range(5):
        assert hand_number(st) == h
        assert dealer(st) == (3 + h) % 4          # one seat clockwise each hand
        assert st.is_chance_node()
        _deal_hand(st, _rotated(h))
        # The seat left of the dealer leads (R6 A), so the rotated deal plays
        # out exactly like the base deal, one seat further round.
        assert st.current_player() == h % 4
        play(st, BASE_PLAYS)
        pts = [[2, 6, 0, 0][(s - h) % 4] for s in range(4)]
        expected_scores = [a + b for a, b in zip(expected_scores, pts)]
        # (Once the next hand's deal starts, the "last hand" points are reset;
        # the cumulative scores carry the history.)
        assert last_hand_and_scores(st)[1] == expected_scores
        if max(expected_scores) >= 10:
            break
        assert not st.is_terminal()
    # Scores 2+0+0+6+2, 6+2+0+0+6, ...: P1 reaches 14 >= 10 after hand 5.
    assert h == 4
    assert expected_scores == [10, 14, 8, 8]
    assert st.is_terminal()
    assert st.returns() == [-10.0, -14.0, -8.0, -8.0]


def test_r11_reaching_the_target_exactly_ends_the_match():
    game = load(target_score=8, **SMALL)
    st = game.new_initial_state()
    _deal_hand(st, _rotated(0))
    play(st, BASE_PLAYS)                        # scores [2, 6, 0, 0]
    assert not st.is_terminal()
    _deal_hand(st, _rotated(1))
    play(st, BASE_PLAYS)                        # + [0, 2, 6, 0]: P1 has exactly 8
    assert st.is_terminal()
    assert last_hand_and_scores(st) == ([0, 2, 6, 0], [2, 8, 6, 0])   # terminal: kept
    assert st.returns() == [-2.0, -8.0, -6.0, 0.0]


def test_r11_deal_starts_left_of_the_dealer():
    game = load(players=6, target_score=10_000, pass_count=0)
    st = game.new_initial_state()
    play_out_hand(st, seed=0)
    assert hand_number(st) == 1 and dealer(st) == 0
    st.apply_action(st.legal_actions()[0])
    assert [q for q in range(6) if hand_of(st, q)] == [1]
    for _ in range(5):
        st.apply_action(st.legal_actions()[0])
    assert all(hand_of(st, q) for q in range(6))


def test_r11_first_lead_left_of_dealer_in_later_hands():
    game = load(deck="kitty", players=6, target_score=10_000, max_hands=3, pass_count=0)
    st = game.new_initial_state()
    for h in range(3):
        while st.is_chance_node():
            st.apply_action(st.legal_actions()[0])
        assert dealer(st) == (5 + h) % 6
        assert st.current_player() == h          # R6 A: the dealer's left leads
        play_out_hand(st, seed=h)
    assert st.is_terminal()


@pytest.mark.parametrize("n", [5, 6])
def test_r11_pass_direction_alternates_left_right(n):
    game = load(players=n, target_score=10_000, max_hands=3)
    k = game.rules.pass_count
    st = game.new_initial_state()
    for h in range(3):
        assert hand_number(st) == h
        while st.is_chance_node():
            st.apply_action(st.legal_actions()[0])
        step = 1 if h % 2 == 0 else -1
        assert f"pass offset {step % n} x {k}" in str(st)
        before = [hand_of(st, q) for q in range(n)]
        passed = [None] * n
        order = []
        while "phase pass" in str(st):
            q = st.current_player()
            order.append(q)
            chosen = st.legal_actions()[:k]
            passed[q] = [st.action_to_string(q, a) for a in chosen]
            for a in chosen:
                st.apply_action(a)
        # Passing starts left of the dealer and goes clockwise.
        first = (dealer(st) + 1) % n
        assert order == [(first + i) % n for i in range(n)]
        for q in range(n):
            expected = hand_counts(before[q])
            for c in passed[q]:
                expected[c] -= 1
            for c in passed[(q - step) % n]:
                expected[c] = expected.get(c, 0) + 1
            assert hand_counts(hand_of(st, q)) == {c: v for c, v in expected.items() if v}
        play_out_hand(st, seed=h)
    assert st.is_terminal()


def test_r11_returns_are_minus_cumulative_scores():
    game = load(players=5, target_score=60)
    st = game.new_initial_state()
    previous = [0] * 5
    for h in range(100):
        play_out_hand(st, seed=h)
        sc = last_hand_and_scores(st)[1]
        # Every hand adds the 52 points in play (moon "add": 52 + 4 x 26).
        assert sum(sc) - sum(previous) in (52, 52 + 4 * 26)
        assert all(a >= b for a, b in zip(sc, previous))
        previous = sc
        if st.is_terminal():
            break
        assert max(sc) < 60
        assert hand_number(st) == h + 1
    assert h >= 1
    assert max(sc) >= 60
    assert st.returns() == [-float(x) for x in sc]


def test_r11_zero_sum_match_returns():
    game = load(players=5, target_score=60, utility="zero_sum")
    st = game.new_initial_state()
    while not st.is_terminal():
        play_out_hand(st, seed=hand_number(st))
    sc = last_hand_and_scores(st)[1]
    total = sum(sc)
    assert st.returns() == pytest.approx([(total - x) / 4 - x for x in sc])
    assert math.fsum(st.returns()) == pytest.approx(0.0)


def test_r11_max_hands_caps_a_match():
    # Engine safety valve, not a rule: with an unreachable target the match
    # stops after max_hands hands.
    game = load(target_score=10_000, max_hands=2, **SMALL)
    st = game.new_initial_state()
    for h in range(2):
        _deal_hand(st, _rotated(h))
        play(st, BASE_PLAYS)
    assert st.is_terminal()
    assert st.returns() == [-2.0, -8.0, -6.0, 0.0]


def test_r11_negative_target_rejected():
    with pytest.raises(GameParameterError, match="target_score"):
        load(players=6, target_score=-1)


@pytest.mark.parametrize("params", [
    dict(players=6, target_score=60, moon="choose"),
    dict(deck="kitty", players=7, target_score=80, utility="zero_sum"),
    dict(players=5, target_score=100, pass_offset=2),
    dict(deck="custom", players=3, packs=2, suits="HS", ranks="QKA", pass_count=1,
         target_score=100, moon="choose"),
])
def test_r11_random_matches_follow_the_reference_referee(params):
    game = load(**params)
    check_random_games(game, seeds=range(3))
