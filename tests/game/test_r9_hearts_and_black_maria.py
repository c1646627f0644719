"""R9 Hearts and the Black Maria: no heart lead until broken; QS any time; the Aardvark."""

import pytest

from _rule_helpers import deal, hand_points, legal, load, play, trick_line


def _broken(state) -> bool:
    line = str(state).splitlines()[1]
    assert "hearts broken " in line
    return line.endswith("hearts broken yes")


CDH = dict(deck="custom", players=3, packs=1, suits="CDH", ranks="JQKA", pass_count=0)


def test_r9_hearts_cannot_be_led_until_broken():
    st = deal(load(**CDH), ["AC KH AD QC", "KC JC QH JH", "KD QD AH JD"], plays="AC KC KD")
    assert trick_line(st, 1) == "Trick 1: P0:AC P1:KC P2:KD -> won by P0"
    assert not _broken(st)
    assert legal(st) == ["QC", "AD"]
    with pytest.raises(ValueError,
                       match="R9 \\(hearts and the Black Maria\\): hearts are not broken; QS "
                             "or a non-heart must be led"):
        st.apply_action(st.string_to_action("KH"))


def test_r9_a_heart_played_breaks_hearts():
    st = deal(load(**CDH), ["AC KH AD QC", "KC JC QH JH", "KD QD AH JD"], plays="AC KC AH")
    assert _broken(st)
    assert hand_points(st) == [1, 0, 0]
    assert legal(st) == ["QC", "KH", "AD"]
    play(st, "KH")
    assert trick_line(st, 2) == "Trick 2: P0:KH -> in progress"


CHS = dict(deck="custom", players=3, packs=1, suits="CHS", ranks="QKA", pass_count=0)
CHS_HANDS = ["AC KH KS", "KC QC AH", "QS AS QH"]


def test_r9_the_black_maria_played_breaks_hearts():
    st = deal(load(**CHS), CHS_HANDS, plays="AC KC QS")
    assert _broken(st)
    assert hand_points(st) == [13, 0, 0]
    assert legal(st) == ["KH", "KS"]


def test_r9_other_discard_does_not_break_hearts():
    st = deal(load(**CHS), CHS_HANDS, plays="AC KC AS")
    assert not _broken(st)
    assert legal(st) == ["KS"]


def test_r9_leader_holding_only_hearts_may_lead_them():
    game = load(deck="custom", players=3, packs=1, suits="CH", ranks="9TJQKA", pass_count=0)
    st = deal(game, ["AC KH AH QH", "KC QC JC TC", "9C 9H TH JH"], plays="AC KC 9C")
    assert not _broken(st)
    assert legal(st) == ["QH", "KH", "AH"]
    play(st, "KH")
    assert _broken(st)


def test_r9_black_maria_may_be_led_before_hearts_are_broken():
    game = load(deck="custom", players=3, packs=1, suits="CDHS", ranks="QKA", pass_count=0)
    st = deal(game, ["AC QS KH AD", "KC QC KD QD", "QH AH AS KS"], plays="AC KC KS")
    assert not _broken(st)
    assert legal(st) == ["QS", "AD"]           # sorted by card id; never KH
    play(st, "QS")
    assert _broken(st)


def test_r9_hand_of_only_hearts_and_black_maria_must_lead_the_black_maria():
    game = load(deck="custom", players=3, packs=1, suits="CHS", ranks="QKA", pass_count=0)
    st = deal(game, ["AC KH QS", "KC QC AH", "KS AS QH"], plays="AC KC KS")
    assert not _broken(st)
    assert legal(st) == ["QS"]                 # the QS is not a heart


# The Aardvark (B): the Black Maria led, the other one played, both cancel,
# and the trick's taker collects 26 points.
AARDVARK = dict(deck="custom", players=4, packs=2, suits="HS", ranks="JQKA",
                pass_count=0, moon="off")
AARDVARK_HANDS = ["QS AH KH JH", "QS AS AH QH", "KS KS JS QH", "JS AS KH JH"]


def test_r9_aardvark_both_black_marias_cancel_taker_gets_26():
    st = deal(load(**AARDVARK), AARDVARK_HANDS)
    assert "QS" in legal(st)                   # only points cards: any lead (R6 A)
    play(st, "QS")
    assert legal(st) == ["QS", "AS"]
    play(st, "QS KS JS")
    assert trick_line(st, 1) == "Trick 1: P0:QS P1:QS P2:KS P3:JS -> won by P2"
    assert hand_points(st) == [0, 0, 26, 0]
    assert st.current_player() == 2


def test_r9_aardvark_fails_when_a_higher_spade_is_the_only_one():
    st = deal(load(**AARDVARK), AARDVARK_HANDS, plays="QS AS KS JS")
    assert trick_line(st, 1) == "Trick 1: P0:QS P1:AS P2:KS P3:JS -> won by P1"
    assert hand_points(st) == [0, 13, 0, 0]
