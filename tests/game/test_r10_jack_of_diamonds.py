"""R10 variant: the Jack of Diamonds (Omnibus Hearts), ``jack_of_diamonds=-10``.

Points count against a player (``returns = -score`` with ``utility='points'``):
the JD's taker gets ``jack_of_diamonds`` points, so -10 lowers its points by
10 and raises its return by 10. The decisions for Cancellation Hearts:

* A cancelled JD still counts, like every cancelled card (R7: "they still
  count for points"): it goes to the trick's winner, or is set aside with a
  void trick (R8) and taken by the next winner, or scores for nobody in a void
  last trick under R8 A.
* The JD does not count toward shooting the moon (standard Omnibus): the
  shooter takes every heart and Black Maria; the JD still scores for whoever
  took it, shooter or not.
"""

import numpy as np
import pytest

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game import _validation as V
from spiel_game._rules import GameParameterError, RuleSet
from spiel_game._simulator import simulate

from _rule_referee import check_random_games
from _rule_helpers import deal, hand_points, last_hand_and_scores, load

# Two players, one pack of J and A of diamonds and hearts: JD, AD, JH, AH.
DH2 = dict(deck="custom", players=2, packs=1, suits="DH", ranks="JA", pass_count=0,
           jack_of_diamonds=-10)


def test_r10_jack_of_diamonds_is_off_by_default():
    r = RuleSet.from_params({})
    assert r.jack_of_diamonds == 0 and r.card_points[C.JD] == 0
    assert r.card_points == tuple(int(x) for x in C.POINTS_OF)
    assert r.bonus_points == 0 and r.total_points == r.penalty_points == 52
    p = E.make_params(r)
    assert list(E.card_points(p)) == list(C.POINTS_OF) and p[E.P_BONUS_PTS] == 0


def test_r10_jack_of_diamonds_scores_minus_ten_for_its_taker():
    game = load(moon="off", **DH2)
    assert game.rules.card_points[C.JD] == -10
    assert game.rules.penalty_points == 2 and game.rules.total_points == -8
    # P0 leads AD, P1 must follow with JD: P0 takes the JD. P1 takes both hearts.
    st = deal(game, ["AD JH", "JD AH"], plays="AD JD JH AH")
    assert st.is_terminal()
    assert hand_points(st) == [-10, 2]
    assert last_hand_and_scores(st) == ([-10, 2], [-10, 2])
    assert list(st.returns()) == [10.0, -2.0]
    assert V.validate(st.engine_params, np.asarray(st.engine_state)) == 0


def test_r10_the_moon_needs_hearts_and_black_marias_not_the_jack():
    # P1 takes the JD, P0 takes every heart: P0 shoots the moon all the same.
    game = load(moon="subtract", moon_points=26, **DH2)
    st = deal(game, ["JD AH", "AD JH"], plays="JD AD JH AH")
    assert E.scores(st.engine_params, np.asarray(st.engine_state)).tolist() == [-24, -10]
    assert st.engine_state[E.S_SHOOTER] == 0
    # The shooter who also takes the JD gets both: 2 - 10 - 26.
    st = deal(game, ["AD AH", "JD JH"], plays="AD JD AH JH")
    assert last_hand_and_scores(st) == ([-34, 0], [-34, 0])
    assert V.validate(st.engine_params, np.asarray(st.engine_state)) == 0
    # moon="add": the others get 26, the shooter keeps its JD.
    st = deal(load(moon="add", **DH2), ["AD AH", "JD JH"], plays="AD JD AH JH")
    assert last_hand_and_scores(st) == ([-8, 26], [-8, 26])


# Two packs of JD and AD, no hearts: the tricks cancel.
DD2 = dict(deck="custom", players=2, packs=2, suits="D", ranks="JA", pass_count=0,
           jack_of_diamonds=-10)


@pytest.mark.parametrize("void_last, expect", [("leader", [-20, 0]), ("discard", [0, 0])])
def test_r7_r8_a_cancelled_jack_still_counts(void_last, expect):
    # JD JD cancel (void, set aside with -20), then AD AD cancel in the last
    # trick: R8 B gives everything to its leader P0, R8 A to nobody.
    st = deal(load(void_last_trick=void_last, **DD2), ["JD AD", "JD AD"], plays="JD JD AD AD")
    assert st.is_terminal()
    assert hand_points(st) == expect
    if void_last == "discard":
        assert st.engine_state[E.S_DISCARDED] == -20
    assert V.validate(st.engine_params, np.asarray(st.engine_state)) == 0


@pytest.mark.parametrize("value, ok", [(0, True), (-10, True), (-26, True), (-27, False),
                                       (1, False), (10, False), ("-10", False), (-10.0, False),
                                       (True, False)])
def test_jack_of_diamonds_parameter_is_checked(value, ok):
    if ok:
        assert RuleSet.from_params({"jack_of_diamonds": value}).jack_of_diamonds == value
    else:
        with pytest.raises(GameParameterError, match="jack_of_diamonds"):
            RuleSet.from_params({"jack_of_diamonds": value})


OMNIBUS = [dict(jack_of_diamonds=-10),
           dict(jack_of_diamonds=-10, players=5, moon="subtract"),
           dict(jack_of_diamonds=-10, deck="kitty", players=7, moon="both"),
           dict(jack_of_diamonds=-10, players=11, packs=3, void_last_trick="discard"),
           dict(jack_of_diamonds=-26, players=6, moon="choose", target_score=60),
           dict(jack_of_diamonds=-10, deck="classic", players=4, packs=1, moon="both"),
           dict(jack_of_diamonds=-10, players=5, utility="zero_sum", moon="subtract")]


@pytest.mark.parametrize("params", OMNIBUS)
def test_r10_omnibus_random_games_agree_with_the_referee(params):
    """The engine against the independent referee (tests/game/_rule_referee.py) in
    random games; returns stay within the game's utility bounds and every
    final state validates."""
    game = spiel_game.load(params)
    lo, hi = game.min_utility(), game.max_utility()
    for ret in check_random_games(game, range(4)):
        assert all(lo <= x <= hi for x in ret), (ret, lo, hi)


@pytest.mark.parametrize("params", OMNIBUS)
def test_r10_omnibus_simulated_scores_within_bounds(params):
    rules = RuleSet.from_params(params)
    lo, hi = rules.hand_points_range()
    assert lo == min(0, rules.penalty_points - rules.moon_points
                     if rules.moon in ("subtract", "both", "choose") else 0) \
        + rules.bonus_points
    res = simulate(rules, 400, "uniform", seed=7, workers=1)
    hands = res.stat("hands")
    assert (res.points >= hands[:, None] * lo).all() and (res.points <= hands[:, None] * hi).all()
    if not rules.is_match and rules.moon == "add" and rules.void_last_trick == "leader":
        # No discard: the seats share every card's points, plus moon points.
        moons = res.stat("moons")
        total = res.points.sum(axis=1)
        assert (total == rules.total_points + moons * rules.moon_points
                * (rules.players - 1)).all()
    # Somebody took a JD: the totals differ from the game without it.
    plain = simulate(dict(params, jack_of_diamonds=0), 400, "uniform", seed=7, workers=1)
    assert not np.array_equal(res.points, plain.points)
