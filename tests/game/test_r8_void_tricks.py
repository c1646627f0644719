"""R8 Void tricks: set aside for the next winner; the leader leads again; the last trick."""

import pytest

from _rule_referee import check_random_games
from _rule_helpers import (deal, hand_points, last_hand_and_scores, load, play,
                           set_aside_line, trick_line)

# Four players, two packs of 7 8 9 T in hearts and spades: 8 points in play.
SMALL = dict(deck="custom", players=4, packs=2, suits="HS", ranks="789T",
             pass_count=0, moon="off")


def test_r8_leader_of_a_void_trick_leads_again():
    st = deal(load(**SMALL), ["7S 9S TS 8S", "TS 9S 8S 7S", "7H 9H TH 8H", "8H 9H TH 7H"],
              plays="7S TS 7H 8H")
    assert trick_line(st, 1) == "Trick 1: P0:7S P1:TS P2:7H P3:8H -> won by P1"
    play(st, "9S 9H 9H 9S")
    assert trick_line(st, 2) == "Trick 2: P1:9S P2:9H P3:9H P0:9S -> void, set aside"
    assert st.current_player() == 1              # P1 led the void trick: P1 again
    play(st, "8S TH TH TS")
    assert trick_line(st, 3) == "Trick 3: P1:8S P2:TH P3:TH P0:TS -> won by P0"
    assert hand_points(st) == [4, 2, 0, 0]       # P0: 9H 9H set aside + TH TH
    play(st, "8S 7S 8H 7H")
    assert st.returns() == [-6.0, -2.0, 0.0, 0.0]


def test_r8_set_aside_cards_accumulate_until_a_trick_is_won():
    st = deal(load(**SMALL), ["TS 9S 7S 7S", "TS 9S 8S 8S", "9H TH 8H 7H", "9H TH 8H 7H"])
    play(st, "TS TS 9H 9H")
    assert trick_line(st, 1).endswith("-> void, set aside")
    assert st.current_player() == 0
    play(st, "9S 9S TH TH")
    assert trick_line(st, 2).endswith("-> void, set aside")
    assert set_aside_line(st) == "Set aside: [9H 9H TH TH 9S 9S TS TS] (4 points in the pot)"
    assert hand_points(st) == [0, 0, 0, 0]
    assert st.current_player() == 0
    play(st, "7S 8S 8H 8H")
    assert trick_line(st, 3) == "Trick 3: P0:7S P1:8S P2:8H P3:8H -> won by P1"
    assert hand_points(st) == [0, 6, 0, 0]
    assert set_aside_line(st) == "Set aside: [] (0 points in the pot)"


# Every trick of this deal is void: P0 and P1 play the same spade, P2 and P3
# the same heart.
ALL_VOID = ["TS 9S 8S 7S", "TS 9S 8S 7S", "TH 9H 8H 7H", "TH 9H 8H 7H"]
ALL_VOID_PLAYS = "TS TS TH TH 9S 9S 9H 9H 8S 8S 8H 8H 7S 7S 7H 7H"

# Tricks 1-3 are won, the last one is void (2 points: 8H 8H).
LAST_VOID = ["TS 9S 8S 7S", "8S TS 9S 7S", "TH 9H 7H 8H", "9H TH 7H 8H"]
LAST_VOID_PLAYS = "TS 8S TH 9H 9S TS 9H TH 9S 7H 7H 8S 7S 8H 8H 7S"


def test_r8_default_void_last_trick_is_leader():
    assert load(players=6).rules.void_last_trick == "leader"


def test_r8_b_void_last_trick_won_by_its_leader_with_the_pot():
    st = deal(load(void_last_trick="leader", **SMALL), ALL_VOID, plays=ALL_VOID_PLAYS)
    for t in (1, 2, 3):
        assert trick_line(st, t).endswith("-> void, set aside")
    # P0 led a 7S, which is cancelled, yet takes the trick and all set aside.
    assert trick_line(st, 4) == "Trick 4: P0:7S P1:7S P2:7H P3:7H -> won by P0"
    assert st.is_terminal()
    assert hand_points(st) == [8, 0, 0, 0]
    assert st.returns() == [-8.0, 0.0, 0.0, 0.0]


def test_r8_b_void_last_trick_leader_not_seat0():
    st = deal(load(void_last_trick="leader", **SMALL), LAST_VOID, plays=LAST_VOID_PLAYS)
    assert trick_line(st, 4) == "Trick 4: P1:7S P2:8H P3:8H P0:7S -> won by P1"
    assert st.returns() == [-2.0, -6.0, 0.0, 0.0]


def test_r8_a_void_last_trick_discarded_scores_for_no_one():
    st = deal(load(void_last_trick="discard", **SMALL), LAST_VOID, plays=LAST_VOID_PLAYS)
    assert trick_line(st, 4) == "Trick 4: P1:7S P2:8H P3:8H P0:7S -> void, discarded"
    assert st.is_terminal()
    assert hand_points(st) == [2, 4, 0, 0]
    assert st.returns() == [-2.0, -4.0, 0.0, 0.0]
    assert last_hand_and_scores(st) == ([2, 4, 0, 0], [2, 4, 0, 0])


def test_r8_a_void_last_trick_discards_the_set_aside_cards_too():
    st = deal(load(void_last_trick="discard", **SMALL), ALL_VOID, plays=ALL_VOID_PLAYS)
    assert trick_line(st, 4).endswith("-> void, discarded")
    assert hand_points(st) == [0, 0, 0, 0]
    assert st.returns() == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("rule,expected,shooter", [
    ("leader", [-8.0, -26.0, -26.0, -26.0], True),
    ("discard", [0.0, 0.0, 0.0, 0.0], False)])
def test_r8_void_last_trick_and_moon(rule, expected, shooter):
    # Under "leader" P0 takes all 8 points by the void last trick: with the
    # moon rule on, that is shooting the moon (R10, add 26 to the others).
    st = deal(load(void_last_trick=rule, **dict(SMALL, moon="add")), ALL_VOID,
              plays=ALL_VOID_PLAYS)
    assert st.returns() == expected
    assert ("P0 shot the moon" in str(st)) is shooter


@pytest.mark.parametrize("rule", ["leader", "discard"])
@pytest.mark.parametrize("params", [
    dict(players=2, packs=4, suits="HS", ranks="KA", pass_count=1, moon="both"),
    dict(players=3, packs=4, suits="HS", ranks="QKA", pass_count=0, moon="choose"),
    dict(players=4, packs=2, suits="HS", ranks="789T", pass_count=0, moon="add"),
])
def test_r8_random_games_with_many_void_tricks_follow_the_referee(rule, params):
    # Decks with many copies of few cards make void (and void last) tricks common.
    game = load(deck="custom", void_last_trick=rule, **params)
    results = check_random_games(game, seeds=range(8))
    assert len(results) == 8
