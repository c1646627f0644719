"""R2 Cards: two packs, ranks A high to 2 low, no trumps, R2 notation."""

import pytest

from spiel_game import cards as C

from _rule_helpers import deal, load, trick_line

ALL_STRINGS = [r + s for r in "23456789TJQKA" for s in "CDHS"]


def test_r2_notation_round_trip_every_card():
    seen = set()
    for c in range(C.NUM_CARD_TYPES):
        text = C.card_to_string(c)
        assert C.string_to_card(text) == c
        seen.add(text)
    assert seen == set(ALL_STRINGS) | {"0C"}
    assert C.card_to_string(C.QS) == "QS"
    assert C.card_to_string(C.card("T", "H")) == "TH"
    assert C.card_to_string(C.TWO_CLUBS) == "2C"
    assert C.card_to_string(C.JOKER) == "0C"


def test_r2_notation_accepts_ten_and_lower_case_rejects_others():
    assert C.string_to_card("10H") == C.string_to_card("TH")
    assert C.string_to_card("qs") == C.QS
    for bad in ["1H", "QX", "", "QSS", "0D"]:
        with pytest.raises(ValueError):
            C.string_to_card(bad)


def test_r2_action_strings_are_card_notation():
    game = load(players=5)          # has the joker
    st = game.new_initial_state()
    for c in range(C.NUM_CARD_TYPES):
        assert st.action_to_string(-1, c) == C.card_to_string(c)
        assert st.string_to_action(C.card_to_string(c)) == c


def test_r2_two_packs_every_card_twice():
    game = load(deck="kitty", players=8)   # the plain two-pack deck, no changes
    counts = game.rules.deck_counts
    assert list(counts[:52]) == [2] * 52
    assert counts[C.JOKER] == 0
    assert game.rules.num_cards == 104


def test_r2_black_maria_is_queen_of_spades_and_hearts_score():
    for c in range(52):
        expected = 13 if C.card_to_string(c) == "QS" else (1 if c % 4 == C.HEARTS else 0)
        assert C.POINTS_OF[c] == expected
    assert C.POINTS_OF[C.JOKER] == 0


@pytest.mark.parametrize("low,high", list(zip("23456789TJQK", "3456789TJQKA")) + [("2", "A")])
def test_r2_ranks_ace_high_two_low(low, high):
    # P0 leads the lower club, P1 follows with the higher: P1 wins; and the
    # other way round when P1 holds the lower diamond and P0 leads the higher.
    game = load(deck="custom", players=2, packs=1, suits="CD", ranks=low + high,
                pass_count=0)
    st = deal(game, [f"{low}C {high}D", f"{high}C {low}D"], plays=f"{low}C {high}C")
    assert trick_line(st, 1) == f"Trick 1: P0:{low}C P1:{high}C -> won by P1"
    assert st.current_player() == 1
    st.apply_action(st.string_to_action(f"{low}D"))
    st.apply_action(st.string_to_action(f"{high}D"))
    assert trick_line(st, 2) == f"Trick 2: P1:{low}D P0:{high}D -> won by P0"


@pytest.mark.parametrize("off", ["D", "H", "S"])
def test_r2_no_trumps(off):
    # P1 cannot follow clubs and plays an ace of another suit: the 3C still wins.
    game = load(deck="custom", players=3, packs=1, suits="C" + off, ranks="23A",
                pass_count=0, moon="off")
    st = deal(game, ["2C AC", f"A{off} 2{off}", f"3C 3{off}"], plays=f"2C A{off} 3C")
    assert trick_line(st, 1) == f"Trick 1: P0:2C P1:A{off} P2:3C -> won by P2"
    assert st.current_player() == 2
