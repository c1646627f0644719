"""R10 Scoring a hand: hearts 1, the Black Maria 13, shooting the moon."""

import math

import pyspiel
import pytest

from _rule_referee import check_random_games
from _rule_helpers import (deal, hand_points, last_hand_and_scores, legal, load,
                           random_playout)

# Four players, two packs of J Q K A in hearts and spades (34 points in play).
HS4 = dict(deck="custom", players=4, packs=2, suits="HS", ranks="JQKA", pass_count=0,
           moon="off")


def test_r10_heart_is_one_point_black_maria_thirteen():
    st = deal(load(**HS4), ["AS KS JS JS", "QS QH QH KH", "AH AH KH JH", "QS KS AS JH"],
              plays="AS QS AH KS")
    assert hand_points(st) == [14, 0, 0, 0]       # QS 13 + AH 1
    st = deal(load(**HS4), ["AS KS JS JS", "QS QH QH KH", "AH AH KH JH", "QS KS AS JH"],
              plays="AS QS AH QS")                 # both QS cancel, AS still wins
    assert hand_points(st) == [27, 0, 0, 0]


@pytest.mark.parametrize("params", [dict(players=n) for n in range(5, 12)]
                         + [dict(deck="kitty", players=n) for n in (5, 7, 8, 11)])
def test_r10_52_points_in_play_with_two_packs(params):
    game = load(moon="off", **params)
    assert game.rules.total_points == 52
    for seed in range(2):
        st = random_playout(game, seed=seed)
        assert math.fsum(st.returns()) == -52.0
        assert sum(hand_points(st)) == 52


def test_r10_78_points_in_play_with_three_packs():
    game = load(players=11, packs=3, moon="off")
    assert game.rules.total_points == 78
    assert math.fsum(random_playout(game, seed=5).returns()) == -78.0


def test_r10_void_last_trick_discard_can_remove_points():
    # With "discard" the sum of points is 52 minus the discarded points.
    game = load(players=6, void_last_trick="discard", moon="off")
    for seed in range(4):
        st = random_playout(game, seed=seed)
        assert -52.0 <= math.fsum(st.returns()) <= 0.0
        assert math.fsum(st.returns()) == -sum(hand_points(st))


# Three players, two packs of Q K A in hearts and spades: 6 hearts + 2 QS = 32
# points. P0 takes every trick (its spades are never matched by a spade).
MOON3 = dict(deck="custom", players=3, packs=2, suits="HS", ranks="QKA", pass_count=0)
MOON_HANDS = ["AS AS KS KS", "QS QS AH AH", "KH KH QH QH"]
MOON_PLAYS = "AS QS KH AS QS KH KS AH QH KS AH QH"
# P0 takes both QS and four hearts, P1 the last trick with two hearts: no moon.
NEAR_HANDS = ["AS AS KS QH", "QS QS AH AH", "KS KH KH QH"]
NEAR_PLAYS = "AS QS KS AS QS KH KS AH KH QH AH QH"


@pytest.mark.parametrize("moon,points,expected", [
    ("off", 26, [-32, 0, 0]),
    ("add", 26, [-32, -26, -26]),          # default: 26 added to every other player
    ("subtract", 26, [-6, 0, 0]),           # 32 - 26
    ("both", 26, [-6, -26, -26]),
    ("add", 10, [-32, -10, -10]),
    ("subtract", 10, [-22, 0, 0]),
    ("subtract", 40, [8, 0, 0]),
])
def test_r10_shooting_the_moon(moon, points, expected):
    game = load(moon=moon, moon_points=points, **MOON3)
    st = deal(game, MOON_HANDS, plays=MOON_PLAYS)
    assert st.is_terminal()
    assert hand_points(st) == [32, 0, 0]
    assert st.returns() == [float(x) for x in expected]
    assert last_hand_and_scores(st)[0] == [-x for x in expected]
    assert ("P0 shot the moon" in str(st)) is (moon != "off")


def test_r10_moon_default_is_add_26():
    r = load(players=6).rules
    assert (r.moon, r.moon_points) == ("add", 26)


@pytest.mark.parametrize("moon", ["add", "subtract", "both", "choose"])
def test_r10_no_moon_without_every_point(moon):
    st = deal(load(moon=moon, **MOON3), NEAR_HANDS, plays=NEAR_PLAYS)
    assert st.is_terminal()
    assert hand_points(st) == [29, 3, 0]
    assert st.returns() == [-29.0, -3.0, 0.0]
    assert "shot the moon" not in str(st)


@pytest.mark.parametrize("choice,expected", [("moon:subtract", [-6.0, 0.0, 0.0]),
                                             ("moon:add", [-32.0, -26.0, -26.0])])
def test_r10_moon_choose_is_the_shooters_action(choice, expected):
    game = load(moon="choose", **MOON3)
    assert game.num_distinct_actions() == 55
    st = deal(game, MOON_HANDS, plays=MOON_PLAYS)
    assert not st.is_terminal()
    assert st.current_player() == 0
    assert "phase moon choice, P0 to move" in str(st)
    assert st.legal_actions() == [53, 54]
    assert legal(st) == ["moon:subtract", "moon:add"]
    assert st.string_to_action(choice) in (53, 54)
    with pytest.raises(ValueError, match="R10"):
        st.apply_action(0)
    st.apply_action(st.string_to_action(choice))
    assert st.is_terminal()
    assert st.returns() == expected


def test_r10_moon_choice_belongs_to_the_shooter_not_seat0():
    game = load(moon="choose", **MOON3)
    st = deal(game, ["KS KS QH QH", "AS AS AH AH", "QS QS KH KH"],
              plays="KS AS QS AS QS KS AH KH QH AH KH QH")
    assert hand_points(st) == [0, 32, 0]
    assert st.current_player() == 1
    assert legal(st) == ["moon:subtract", "moon:add"]
    st.apply_action(53)
    assert st.returns() == [0.0, -6.0, 0.0]
    assert "P1 shot the moon" in str(st)


def test_r10_utility_zero_sum():
    game = load(utility="zero_sum", moon="off", **MOON3)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    st = deal(game, NEAR_HANDS, plays=NEAR_PLAYS)
    # Own points against the mean of the others': P0 -(29 - 1.5), P1 14.5 - 3, P2 16.
    assert st.returns() == [-27.5, 11.5, 16.0]
    assert math.fsum(st.returns()) == 0.0
    st = deal(load(utility="zero_sum", moon="add", **MOON3), MOON_HANDS, plays=MOON_PLAYS)
    # After the moon rule the points are [32, 26, 26].
    assert st.returns() == [-6.0, 3.0, 3.0]


@pytest.mark.parametrize("params", [dict(players=7), dict(deck="kitty", players=9),
                                    dict(players=5, moon="both")])
def test_r10_zero_sum_returns_sum_to_zero(params):
    game = load(utility="zero_sum", **params)
    for seed in range(2):
        assert math.fsum(random_playout(game, seed=seed).returns()) == pytest.approx(0.0)


def test_r10_points_utility_is_minus_points():
    st = deal(load(**dict(MOON3, moon="off")), NEAR_HANDS, plays=NEAR_PLAYS)
    assert st.returns() == [-float(p) for p in hand_points(st)]


@pytest.mark.parametrize("params", [
    dict(players=6, moon="add"), dict(players=6, moon="subtract", moon_points=13),
    dict(players=9, moon="both"), dict(players=5, moon="choose", utility="zero_sum"),
    dict(deck="kitty", players=7, void_last_trick="discard"),
    # Small decks where random play often shoots the moon.
    dict(deck="custom", players=3, packs=2, suits="HS", ranks="QKA", pass_count=1, moon="choose"),
    dict(deck="custom", players=2, packs=2, suits="HS", ranks="QKA", pass_count=1, moon="both"),
    dict(deck="custom", players=3, packs=3, suits="HS", ranks="QKA", pass_count=0,
         moon="subtract", utility="zero_sum"),
])
def test_r10_scores_of_random_games_match_the_reference_referee(params):
    game = load(**params)
    check_random_games(game, seeds=range(6))
