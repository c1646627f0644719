"""R7 Playing a trick: follow suit; highest uncancelled card of the suit led wins."""

import pytest

from _rule_referee import check_random_games
from _rule_helpers import (deal, fill_hands, hand_points, legal, load, play,
                           set_aside_line, trick_line)

# Example (A): Al leads 10S, Beth 9H, Charlie 9H, Dave 10S. Two packs of 8 9 T
# in hearts and spades; Beth and Charlie hold no spades.
AL_BETH = dict(deck="custom", players=4, packs=2, suits="HS", ranks="89T",
               pass_count=0, moon="off")
AL_BETH_HANDS = ["TS 8S 8S", "9H TH 8H", "9H TH 8H", "TS 9S 9S"]


def test_r7_identical_cards_cancel_al_beth_charlie_dave():
    st = deal(load(**AL_BETH), AL_BETH_HANDS, plays="TS 9H 9H TS")
    assert trick_line(st, 1) == "Trick 1: P0:TS P1:9H P2:9H P3:TS -> void, set aside"
    assert set_aside_line(st) == "Set aside: [9H 9H TS TS] (2 points in the pot)"
    assert hand_points(st) == [0, 0, 0, 0]
    assert st.current_player() == 0           # R8: Al leads again
    # The next trick that is won takes the void trick's cards with it.
    play(st, "8S TH TH 9S")
    assert trick_line(st, 2) == "Trick 2: P0:8S P1:TH P2:TH P3:9S -> won by P3"
    assert hand_points(st) == [0, 0, 0, 4]
    assert set_aside_line(st) == "Set aside: [] (0 points in the pot)"
    play(st, "9S 8S 8H 8H")
    assert trick_line(st, 3) == "Trick 3: P3:9S P0:8S P1:8H P2:8H -> won by P3"
    assert st.is_terminal()
    assert st.returns() == [0.0, 0.0, 0.0, -6.0]


# Example (B): hearts led, both AH played: the aces cancel, the next heart wins.
HEARTS_B = dict(deck="custom", players=4, packs=2, suits="CH", ranks="JQKA",
                pass_count=0, moon="off")
HEARTS_B_HANDS = ["AH QH QH JH", "AH AC AC KC", "KH KH JH QC", "JC JC QC KC"]


def test_r7_both_aces_of_hearts_cancel_next_highest_heart_wins():
    st = deal(load(**HEARTS_B), HEARTS_B_HANDS)
    assert "AH" in legal(st)                  # P0 holds only hearts (R6 A, R9)
    play(st, "AH AH KH JC")
    assert trick_line(st, 1) == "Trick 1: P0:AH P1:AH P2:KH P3:JC -> won by P2"
    # The cancelled aces still count for points.
    assert hand_points(st) == [0, 0, 3, 0]
    assert st.current_player() == 2


def test_r7_several_pairs_cancel_in_one_trick():
    game = load(deck="custom", players=6, packs=2, suits="CD", ranks="579", pass_count=0)
    hands = ["5C 7C", "9C 5D", "9C 5D", "5C 7D", "7C 7D", "9D 9D"]
    st = deal(game, hands, plays="5C 9C 9C 5C 7C 9D")
    assert trick_line(st, 1) == "Trick 1: P0:5C P1:9C P2:9C P3:5C P4:7C P5:9D -> won by P4"
    play(st, "7D 9D 7C 5D 5D 7D")
    assert trick_line(st, 2) == "Trick 2: P4:7D P5:9D P0:7C P1:5D P2:5D P3:7D -> won by P5"
    assert st.is_terminal()


def test_r7_three_packs_all_copies_cancel():
    game = load(deck="custom", players=4, packs=3, suits="CD", ranks="25", pass_count=0)
    st = deal(game, ["5C 5D 2D", "5C 5D 2D", "5C 5D 2D", "2C 2C 2C"], plays="5C 5C 5C 2C")
    assert trick_line(st, 1) == "Trick 1: P0:5C P1:5C P2:5C P3:2C -> won by P3"


def test_r7_three_packs_two_copies_of_two_cards_void():
    game = load(deck="custom", players=4, packs=3, suits="CD", ranks="25", pass_count=0)
    st = deal(game, ["5C 5D 2D", "5C 5D 2D", "2C 5D 2D", "2C 2C 5C"], plays="5C 5C 2C 2C")
    assert trick_line(st, 1) == "Trick 1: P0:5C P1:5C P2:2C P3:2C -> void, set aside"


def test_r7_three_packs_real_deck_triple_aces_cancel():
    game = load(players=11, packs=3, pass_count=0)
    plays = ["2C", "AC", "AC", "AC", "KC", "3C", "4C", "5C", "6C", "7C", "8C"]
    hands = fill_hands(game, fixed=dict(enumerate(plays)))
    st = deal(game, hands, plays=" ".join(plays))
    assert trick_line(st, 1).endswith("P4:KC P5:3C P6:4C P7:5C P8:6C P9:7C P10:8C -> won by P4")
    assert st.current_player() == 4


JOKER5 = dict(players=5, pass_count=0, moon="off")


def test_r7_joker_wins_when_every_other_club_cancels():
    game = load(**JOKER5)
    hands = fill_hands(game, fixed={2: "0C", 3: "5C", 4: "5C", 0: "9C", 1: "9C"})
    st = deal(game, hands, plays="0C 5C 5C 9C 9C")
    assert trick_line(st, 1) == "Trick 1: P2:0C P3:5C P4:5C P0:9C P1:9C -> won by P2"
    assert st.current_player() == 2


def test_r7_joker_loses_to_an_uncancelled_club():
    game = load(**JOKER5)
    hands = fill_hands(game, fixed={2: "0C", 3: "5C", 4: "5C", 0: "9C", 1: "2C"})
    st = deal(game, hands, plays="0C 5C 5C 9C 2C")
    assert trick_line(st, 1) == "Trick 1: P2:0C P3:5C P4:5C P0:9C P1:2C -> won by P0"


def test_r7_joker_following_clubs_wins_when_the_rest_cancel():
    game = load(first_lead="left_of_dealer", **JOKER5)
    hands = fill_hands(game, fixed={0: "5C", 1: "5C", 2: "0C", 3: "9C", 4: "9C"},
                       avoid={2: "C"})
    st = deal(game, hands, plays="5C 5C")
    assert legal(st) == ["0C"]                    # P2's only club
    play(st, "0C 9C 9C")
    assert trick_line(st, 1) == "Trick 1: P0:5C P1:5C P2:0C P3:9C P4:9C -> won by P2"


def test_r7_joker_as_a_discard_never_wins():
    game = load(first_lead="left_of_dealer", **JOKER5)
    hands = fill_hands(game, fixed={0: "5S", 1: "5S", 2: "0C", 3: "AH", 4: "AD"},
                       avoid={2: "S", 3: "S", 4: "S"})
    st = deal(game, hands, plays="5S 5S 0C AH AD")
    assert trick_line(st, 1) == "Trick 1: P0:5S P1:5S P2:0C P3:AH P4:AD -> void, set aside"
    assert st.current_player() == 0


def test_r7_must_follow_suit():
    st = deal(load(**AL_BETH), AL_BETH_HANDS, plays="TS")
    assert legal(st) == ["8H", "9H", "TH"]             # Beth has no spade: anything
    play(st, "9H 9H")
    assert legal(st) == ["9S", "TS"]                   # Dave follows with spades
    st = deal(load(**HEARTS_B), HEARTS_B_HANDS, plays="AH")
    assert legal(st) == ["AH"]                         # P1's only heart
    with pytest.raises(ValueError, match="R7 \\(playing a trick\\): player 1 holds H "
                                           "and must follow the suit led"):
        st.apply_action(st.string_to_action("AC"))
    assert trick_line(st, 1) == "Trick 1: P0:AH -> in progress"   # unchanged
    play(st, "AH")
    assert legal(st) == ["JH", "KH"]
    play(st, "JH")
    assert legal(st) == ["JC", "QC", "KC"]             # P3 has no heart: anything


def test_r7_cannot_play_a_card_not_held():
    st = deal(load(**AL_BETH), AL_BETH_HANDS)
    with pytest.raises(ValueError, match="R7 \\(playing a trick\\): 9S is not in player 0's hand"):
        st.apply_action(st.string_to_action("9S"))


def test_r7_winner_leads_next_trick_highest_of_suit_led():
    game = load(deck="custom", players=3, packs=1, suits="CD", ranks="2JA", pass_count=0)
    st = deal(game, ["2C AD", "JC 2D", "AC JD"], plays="2C JC AC")
    assert trick_line(st, 1) == "Trick 1: P0:2C P1:JC P2:AC -> won by P2"
    assert st.current_player() == 2
    play(st, "JD AD 2D")
    assert trick_line(st, 2) == "Trick 2: P2:JD P0:AD P1:2D -> won by P0"


@pytest.mark.parametrize("params", [
    dict(players=5), dict(players=8), dict(players=11), dict(players=11, packs=3),
    dict(deck="kitty", players=6), dict(deck="kitty", players=9),
    dict(players=7, first_lead="left_of_dealer", pass_offset=-3),
    dict(deck="custom", players=4, packs=3, suits="HS", ranks="JQKA", pass_count=1),
    dict(deck="custom", players=3, packs=4, suits="CHS", ranks="QKA", pass_count=0),
])
def test_r7_random_games_follow_the_reference_referee(params):
    # Every legal action list, player to move and chance distribution of
    # random games agrees with an independent plain-Python referee of R1-R10.
    game = load(moon="off", **params)
    check_random_games(game, seeds=range(4))
