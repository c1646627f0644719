"""R1 Players and seating: 5-11 players, clockwise play, seat 0 left of the dealer."""

import pytest

from spiel_game import GameParameterError

from _rule_helpers import (dealer, deal, fill_hands, hand_counts, hand_number, hand_of, load,
                           play_out_hand)


@pytest.mark.parametrize("deck", ["balanced", "kitty"])
@pytest.mark.parametrize("n", range(5, 12))
def test_r1_five_to_eleven_players(deck, n):
    game = load(deck=deck, players=n)
    assert game.num_players() == n
    assert game.rules.players == n


@pytest.mark.parametrize("deck", ["balanced", "kitty"])
@pytest.mark.parametrize("n", [3, 4, 12])
def test_r1_other_player_counts_rejected(deck, n):
    with pytest.raises(GameParameterError, match=f"players={n}"):
        load(deck=deck, players=n)


@pytest.mark.parametrize("n", [5, 8, 11])
def test_r1_dealer_is_last_seat_and_seat0_is_left_of_dealer(n):
    st = load(players=n).new_initial_state()
    assert f"dealer P{n - 1}," in str(st)
    # The first card dealt goes to the dealer's left, i.e. seat 0 (R1, R4).
    st.apply_action(st.legal_actions()[-1])
    assert hand_of(st, 0) != ""
    assert all(hand_of(st, q) == "" for q in range(1, n))


def test_r1_play_is_clockwise():
    # Four players, every trick follows seats leader, leader+1, ... (mod n).
    game = load(deck="custom", players=4, suits="CS", ranks="89T", pass_count=0,
                moon="off")
    hands = ["8C 9C TC", "8S 9S TS", "8C 9C TC", "8S 9S TS"]
    st = deal(game, hands)
    seen = []
    for card in ["TC", "8S", "8C", "9S"]:     # P0 leads TC (wins), order 0,1,2,3
        seen.append(st.current_player())
        st.apply_action(st.string_to_action(card))
    assert seen == [0, 1, 2, 3]
    # P0 won the trick (TC, the only ten of clubs) and leads again.
    assert st.current_player() == 0
    # A trick led by seat 2 wraps around: 2, 3, 0, 1.
    game2 = load(deck="custom", players=4, suits="CS", ranks="89T", pass_count=0)
    st2 = deal(game2, hands, plays="8C 9S 9C TS")   # P2's 9C wins the trick
    order = []
    for card in ["TC", "8S", "9C", "8S"]:
        order.append(st2.current_player())
        st2.apply_action(st2.string_to_action(card))
    assert order == [2, 3, 0, 1]


@pytest.mark.parametrize("n", [5, 7, 11])
def test_r1_player_on_your_left_is_next_seat(n):
    # With pass_offset=+1 ("to the left") seat q's cards reach seat q+1, and the
    # dealer's (seat n-1) cards reach seat 0.
    game = load(players=n, pass_count=1, pass_offset=1)
    hands = fill_hands(game)
    passed = [h.split()[-1] for h in hands]     # each seat passes its last card
    st = deal(game, hands, passes=passed)
    for q in range(n):
        expected = hand_counts(hands[q])
        expected[passed[q]] -= 1
        got = passed[(q - 1) % n]
        expected[got] = expected.get(got, 0) + 1
        assert hand_counts(hand_of(st, q)) == {k: v for k, v in expected.items() if v}
    assert "phase play" in str(st)


def test_r1_dealer_moves_clockwise_in_a_match():
    game = load(players=5, target_score=10_000, max_hands=4, pass_count=0)
    st = game.new_initial_state()
    dealers = []
    for h in range(4):
        assert hand_number(st) == h
        dealers.append(dealer(st))
        play_out_hand(st, seed=h)
    assert st.is_terminal()
    assert dealers == [4, 0, 1, 2]
