"""The exact exploitability pipeline (experiments.studies.passing_exact) on two deals
small enough to solve by hand.

The tests run the pipeline's own functions (``DealAnalysis``, ``solve_play``,
``exploitability``, ``run_unit``) and compare with the numbers derived below.
Points are counted for seat 0 (the game's return is minus the points).

Common setting: 2 players, one pack of 4 cards, 2 cards each, ``pass_count=1``
(R5: each seat passes one card to the other; with 2 players offset +1 is the
other seat, and a seat chooses without seeing what it receives: seat 1's pass
information set holds both of seat 0's possible passes). ``deal="whole"``: one
chance node over the C(4, 2) = 6 equally likely deals (seat 0's hand fixes
seat 1's). Custom deck, so R6 A: seat 0 (left of the dealer) leads the first
trick, with any card but a heart or the Black Maria unless it holds nothing
else. ``moon="off"``: shooting the moon (R10 A) would make the deals
non-constant-sum (taking both tricks takes everything here). The whole deck
is dealt, so after the pass both players know both hands: the play is a
perfect-information game of two tricks, and its value depends only on seat 0's
post-pass hand ``{x, z}``: the card ``x`` it kept and the card ``z`` seat 1
passed it. Each deal is therefore a 2x2 table "x (rows) by z (columns)" of
seat-0 points, which seat 0 wants low and seat 1 high (constant sum).

Conventions on two cards (solvers/_base/passing.py docstring), "passes":
``high`` the higher by rank, spades before hearts on equal rank (AS > AH > QS >
QH); ``low`` the lower; ``dump_points`` QS, then hearts from the ace down, then
AS; ``keep_maria`` hearts from the ace down, then AS, never QS while anything
else is held; ``void_short`` the card of the shorter non-heart suit, i.e. with
one spade and one heart the spade, with two cards of one suit the higher;
``expert`` QS (unprotected), then AS, then hearts from the ace down; ``random``
each card with probability 1/2.

Deal HEARTS: J Q K A of hearts (1 point each, 4 in all)
=========================================================
Every card is a heart, so any card may be led (R6 A/R9: nothing else held).
A trick holds two hearts (2 points) and goes to the higher card; its winner
leads the last trick, which is forced. Each player wants to play *under*.
Seat-0 points F by post-pass hand (seat 1 holds the other two cards):

* JQ v KA: 0. Seat 1 wins both tricks whatever is played.
* KA v JQ: 4. Seat 0 wins both.
* QA v JK: 4. Seat 1 ducks every lead: J under Q (then seat 0 leads A over K),
  K under A (keeping J under the Q).
* JK v QA: 2. Lead J: seat 1 must win; with A it then leads Q under the K
  (2 each); with Q it would lead A over K and take 4, so it plays A. Lead K:
  seat 1 ducks with Q, seat 0 leads J under A (2 each; A over K would give
  seat 1 4). 2 either way.
* JA v QK: 2. The J loses one trick and the A wins the other, whatever is led.
* QK v JA: 2. The J (seat 1) loses one trick and the A wins the other.

So F(JQ, JK, JA, QK, QA, KA) = (0, 2, 2, 2, 4, 4): F never decreases when one
of seat 0's cards is replaced by a higher card. Hence keeping the lower card
(seat 0) and passing the higher card (seat 1) are weakly dominant: ``high`` is
a best response to everything and cannot be exploited in passing. On this deck
``dump_points`` and ``keep_maria`` (no QS: hearts from the ace down),
``void_short`` (one suit: its highest card) and ``expert`` (high hearts, Q and
above, before the J) all pass the higher card too.

Deals (the engine's order), with a < b seat 0's cards and c < d seat 1's;
cells: seat 0 keeps a or b, receives c or d::

          H0   H1  | keep a: rec c  rec d | keep b: rec c  rec d
    d0    KA   JQ  |        KJ 2   KQ 2   |        AJ 2   AQ 4
    d1    QA   JK  |        QJ 0   QK 2   |        AJ 2   AK 4
    d2    QK   JA  |        QJ 0   QA 4   |        KJ 2   KA 4
    d3    JA   QK  |        JQ 0   JK 2   |        AQ 4   AK 4
    d4    JK   QA  |        JQ 0   JA 2   |        KQ 2   KA 4
    d5    JQ   KA  |        JK 2   JA 2   |        QK 2   QA 4

Seat-0 points summed over the 6 deals, P = sum / 6 (seat 1 takes 4 - P):

* everyone ``high`` = (keep a, rec d): 2+2+4+2+2+2 = 14, P = 7/3;
* everyone ``low`` = (keep b, rec c): 2+2+2+4+2+2 = 14, P = 7/3;
* everyone ``random`` = mean of the 4 cells: (10+8+10+10+8+10)/4 = 14, P = 7/3.
  (The everyone-C values coincide on this deck; the cross assignments and the
  gains below tell the conventions apart.)
* seat 0 ``high``, seat 1 ``low`` (a, c): 2+0+0+0+0+2 = 4, P = 2/3;
* seat 0 ``low``, seat 1 ``high`` (b, d): 4 * 6 = 24, P = 4;
* seat 0 ``high``, seat 1 ``random`` (row a averaged): 2+1+2+1+1+2 = 9, P = 3/2;
* seat 0 ``random``, seat 1 ``high`` (column d averaged): 3+3+4+3+3+3 = 19, P = 19/6;
* seat 0 ``low``, seat 1 ``random`` (row b averaged): 3+3+3+4+3+3 = 19, P = 19/6;
* seat 0 ``random``, seat 1 ``low`` (column c averaged): 2+1+1+2+1+2 = 9, P = 3/2.

Pass-only gains (everyone else on C; seat 0 picks the best row given the
column(s) C plays, seat 1 the best column given the row(s); seat 0's pass set
is one deal, seat 1's is one deal with seat 0's pass unseen, so with C random
it maximises the column *average*):

* ``high``: (a, d) is a saddle point of every table (F monotone): 0 and 0.
* ``low``, seat 0: best row in column c: 2+0+0+0+0+2 = 4 against 14: (14-4)/6 = 5/3.
  Seat 1: best column in row b: 4*6 = 24 against 14: 10/6 = 5/3.
* ``random``, seat 0: lowest row average: 2+1+2+1+1+2 = 9 against 14: 5/6.
  Seat 1: highest column average: 3+3+4+3+3+3 = 19 against 14: 5/6.

Pass+play gains equal pass-only gains (up to the play NashConv): the play
policy is a minimax strategy of each perfect-information play subgame, which no
play deviation can beat.

Meta-game (high, low, random): ``A[i, j]`` = a seat's payoff using i against
j, averaged over the two seats: ``A[i, j] = (-P(i, j) - (4 - P(j, i))) / 2``
with P(i, j) the seat-0 points above (seat 0 on i, seat 1 on j)::

    A = [[-2,    -1/3,  -7/6 ],
         [-11/3, -2,    -17/6],
         [-17/6, -7/6,  -2   ]]

``high`` is weakly dominant, and A - A^T has a positive ``high`` row (10/3,
5/3), so the maximin mixture is ``high`` alone, with regret 0.

The play phase here is solved by DCFR (200 iterations, the ``quick``
profile): the average policy keeps ~1e-7 probability on dominated replies, so
the play NashConv is ~1.2e-7, not 0; the values agree with the hand numbers to
that order (tolerance 1e-6), the pass-only gains to rounding.

Deal MARIA: QH AH QS AS (hearts 1 point each, QS 13 points: 15 in all)
=======================================================================
R7: follow suit when able; only the suit led can win. Seat-0 points G:

* AS QS v QH AH: 15. R6 A: seat 0 must lead AS (it holds a card that is
  neither a heart nor QS); seat 1 has no spade and discards a heart, AS wins;
  QS then wins the other heart: all 15 points.
* AS AH v QH QS: 15. AS must be led, QS must follow (13); AH then beats QH (2).
* QH AH v QS AS: 15. Seat 1 has no heart: both hearts win, with any discards.
* AS QH v QS AH: 13. AS must be led, QS must follow (13 to seat 0); QH then
  loses to AH (2 to seat 1).
* QS AH v AS QH: 2. Nothing but a heart and QS, so either may be led: QS led,
  AS takes it (13 to seat 1), which leads QH under AH (2 to seat 0); AH led,
  QH follows (2 to seat 0), then QS under AS (13 to seat 1).
* QS QH v AS AH: 0. Each queen meets the ace of its suit.

Every line of play gives these points (each decision is forced or immaterial),
so any play policy is optimal: the play is solved exactly (NashConv 0) and
pass+play gains equal pass-only gains. Deals (rows: seat 0 keeps; columns:
seat 1 passes)::

          H0     H1     rows      columns   table
    d0    AH AS  QH QS  AH / AS   QH / QS   [[15,  2], [13, 15]]
    d1    QS AS  QH AH  QS / AS   QH / AH   [[ 0,  2], [13, 15]]
    d2    AH QS  QH AS  AH / QS   QH / AS   [[15, 15], [ 0, 15]]
    d3    QH AS  AH QS  QH / AS   AH / QS   [[15,  0], [15, 15]]
    d4    QH AH  QS AS  QH / AH   QS / AS   [[ 0, 13], [ 2, 15]]
    d5    QH QS  AH AS  QH / QS   AH / AS   [[15, 13], [ 2, 15]]

What each convention passes, by hand (from the rules above)::

    hand     high  low  dump_points  keep_maria  void_short  expert
    AH AS    AS    AH   AH           AH          AS          AS
    QS AS    AS    QS   QS           AS          AS          QS
    AH QS    AH    QS   QS           AH          QS          QS
    QH AS    AS    QH   QH           QH          AS          AS
    QH AH    AH    QH   AH           AH          AH          AH
    QH QS    QS    QH   QS           QH          QS          QS

Everyone on C: seat 0 keeps (d0..d5), seat 1 passes (d0..d5), the cells, the
sum; then the pass-only gains: seat 0 takes the lowest cell of the column C
plays, seat 1 the highest cell of the row C plays (both conventions are
deterministic, so nothing hidden matters); gain0 = (sum - seat-0 best) / 6,
gain1 = (seat-1 best - sum) / 6::

    C            keeps               passes              cells              sum  P
    high         AH QS QS QH QH QH   QS AH AS AH AS AS   2 2 15 15 13 13    60   10
    low          AS AS AH AS AH QS   QH QH QH QS QS AH   13 13 15 15 2 2    60   10
    dump_points  AS AS AH AS QH QH   QS AH QH QS QS AH   15 15 15 15 0 15   75   25/2
    keep_maria   AS QS QS AS QH QS   QH AH QH AH AS AH   13 2 0 15 13 2     45   15/2
    void_short   AH QS AH QH QH QH   QS AH AS QS AS AS   2 2 15 0 13 13     45   15/2
    expert       AH AS AH QH QH QH   QS AH AS QS QS AS   2 15 15 0 0 13     45   15/2

    C            seat-0 best (column min)  gain0   seat-1 best (row max)  gain1
    high         2 2 15 15 13 13   = 60    0       15 2 15 15 13 15 = 75  15/6
    low          13 0 0 0 0 2      = 15    45/6    15 15 15 15 15 15 = 90 30/6
    dump_points  2 2 0 0 0 2       = 6     69/6    15 15 15 15 13 15 = 88 13/6
    keep_maria   13 2 0 15 13 2    = 45    0       15 2 15 15 13 15 = 75  30/6
    void_short   2 2 15 0 13 13    = 45    0       15 2 15 15 13 15 = 75  30/6
    expert       2 2 15 0 0 13     = 32    13/6    15 15 15 15 13 15 = 88 43/6

``random``: everyone random, the mean of all 24 cells: (45+30+45+45+30+45)/24
= 10. Seat 0 (it moves first; seat 1's pass is still a coin): lowest row
average per deal 8.5, 1, 7.5, 7.5, 6.5, 8.5 (sum 39.5) against the deal means
11.25, 7.5, 11.25, 11.25, 7.5, 11.25 (sum 60): gain 20.5/6 = 41/12. Seat 1
(seat 0's pass unseen: the best column *average*): 14, 8.5, 15, 15, 14, 14
(sum 80.5) against 60: gain 41/12. (A best response that saw seat 0's pass
would take the best cell of each row instead: 15, 8.5, 15, 15, 14, 15, sum
82.5, gain 45/12; so 41/12 checks that the hidden pass stays hidden.)

Meta-game (high, dump_points, keep_maria), seat-0 point sums S(i, j) over the 6
deals (seat 0 on i, seat 1 on j), read off the tables as above::

    seat 0 v seat 1      seat 0 keeps       seat 1 passes      cells              S
    high v dump          AH QS QS QH QH QH  QS AH QH QS QS AH  2 2 0 0 0 15       19
    dump v high          AS AS AH AS QH QH  QS AH AS AH AS AS  15 15 15 15 13 13  86
    high v keep_maria    AH QS QS QH QH QH  QH AH QH AH AS AH  15 2 0 15 13 15    60
    keep_maria v high    AS QS QS AS QH QS  QS AH AS AH AS AS  15 2 15 15 13 15   75
    dump v keep_maria    AS AS AH AS QH QH  QH AH QH AH AS AH  13 15 15 15 13 15  86
    keep_maria v dump    AS QS QS AS QH QS  QS AH QH QS QS AH  15 2 0 15 0 2      34

(dump = dump_points.) ``A[i, j] = (S(j, i) - S(i, j) - 90) / 12``; the
diagonal is -15/2. In A - A^T, high beats dump_points by 134/12 and keep_maria
by 30/12, keep_maria beats dump_points by 104/12: the maximin mixture is
``high`` alone, with regret 0.

What these tests catch: a convention passing the wrong card (the pass tables,
the cross assignments, the gains); passes attached to the wrong seat or
information set by ``fix_to_chance``/``assignment_profile`` (the asymmetric
cross assignments); a play solver that does not reach the minimax values (or
maximises points); a best response that does not maximise, uses the wrong
seat, weights the deals wrongly, or sees the hidden pass (41/12 above); the
first-lead rule (R6 A decides the AS QH and QS AH holdings, and seat 0 leading
decides JK v QA); the meta-game assembly and its Nash. Not caught: whether
``gain_pass_only`` really freezes the deviator's play (on both deals play
deviations gain nothing, so pass-only and pass+play gains coincide); that is
left to tests/solvers/test_passing_exact.py. alpha-Rank is not derived here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import spiel_game
from experiments._base.registry import Unit
from experiments.studies import passing_exact as pe
from solvers._metagame import metagame_table, one_vs_population

HEARTS = {"deck": "custom", "players": 2, "suits": "H", "ranks": "JQKA", "packs": 1,
          "pass_count": 1, "deal": "whole", "moon": "off"}
MARIA = {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QA", "packs": 1,
         "pass_count": 1, "deal": "whole", "moon": "off"}
DECKS = {"hearts": HEARTS, "maria": MARIA}
TOTAL = {"hearts": 4, "maria": 15}


def _h(cards: str) -> frozenset:
    return frozenset(cards.split())


# Post-pass seat-0 points by seat 0's hand (the module docstring, F and G).
PLAY = {
    "hearts": {_h("JH QH"): 0, _h("JH KH"): 2, _h("JH AH"): 2, _h("QH KH"): 2,
               _h("QH AH"): 4, _h("KH AH"): 4},
    "maria": {_h("AS QS"): 15, _h("AS AH"): 15, _h("QH AH"): 15, _h("AS QH"): 13,
              _h("QS AH"): 2, _h("QS QH"): 0},
}

# The card each convention passes from each two-card hand (docstring tables).
_HEARTS_HANDS = ["JH QH", "JH KH", "JH AH", "QH KH", "QH AH", "KH AH"]   # lower card first
_MARIA_HANDS = ["AH AS", "QS AS", "AH QS", "QH AS", "QH AH", "QH QS"]
PASSES = {
    "hearts": {c: {_h(h): h.split()[1 if c != "low" else 0] for h in _HEARTS_HANDS}
               for c in ("high", "dump_points", "keep_maria", "void_short", "expert", "low")},
    "maria": {c: {_h(h): card for h, card in zip(_MARIA_HANDS, cards)} for c, cards in {
        #              AH AS QS AS AH QS QH AS QH AH QH QS
        "high":        ["AS", "AS", "AH", "AS", "AH", "QS"],
        "low":         ["AH", "QS", "QS", "QH", "QH", "QH"],
        "dump_points": ["AH", "QS", "QS", "QH", "AH", "QS"],
        "keep_maria":  ["AH", "AS", "AH", "QH", "AH", "QH"],
        "void_short":  ["AS", "AS", "QS", "AS", "AH", "QS"],
        "expert":      ["AS", "QS", "QS", "AS", "AH", "QS"],
    }.items()},
}

# Everyone on C: seat-0 points (docstring); seat 1 takes TOTAL minus them.
EVERYONE = [("hearts", "high", 7 / 3), ("hearts", "low", 7 / 3), ("hearts", "random", 7 / 3),
            ("maria", "high", 10), ("maria", "low", 10), ("maria", "dump_points", 25 / 2),
            ("maria", "keep_maria", 15 / 2), ("maria", "void_short", 15 / 2),
            ("maria", "expert", 15 / 2), ("maria", "random", 10)]

# Pass-only gains (seat 0, seat 1) of a best responder against everyone on C.
GAINS = [("hearts", "high", 0, 0), ("hearts", "low", 5 / 3, 5 / 3),
         ("hearts", "random", 5 / 6, 5 / 6),
         ("maria", "high", 0, 15 / 6), ("maria", "low", 45 / 6, 30 / 6),
         ("maria", "dump_points", 69 / 6, 13 / 6), ("maria", "keep_maria", 0, 30 / 6),
         ("maria", "void_short", 0, 30 / 6), ("maria", "expert", 13 / 6, 43 / 6),
         ("maria", "random", 41 / 12, 41 / 12)]

# Meta-game: seat-0 points P(i, j) (seat 0 on i, seat 1 on j) and the Nash mixture.
META = {
    "hearts": (("high", "low", "random"),
               {("high", "high"): 7 / 3, ("low", "low"): 7 / 3, ("random", "random"): 7 / 3,
                ("high", "low"): 2 / 3, ("low", "high"): 4,
                ("high", "random"): 3 / 2, ("random", "high"): 19 / 6,
                ("low", "random"): 19 / 6, ("random", "low"): 3 / 2},
               [[-2, -1 / 3, -7 / 6], [-11 / 3, -2, -17 / 6], [-17 / 6, -7 / 6, -2]],
               [1.0, 0.0, 0.0]),
    "maria": (("high", "dump_points", "keep_maria"),
              {("high", "high"): 60 / 6, ("dump_points", "dump_points"): 75 / 6,
               ("keep_maria", "keep_maria"): 45 / 6,
               ("high", "dump_points"): 19 / 6, ("dump_points", "high"): 86 / 6,
               ("high", "keep_maria"): 60 / 6, ("keep_maria", "high"): 75 / 6,
               ("dump_points", "keep_maria"): 86 / 6, ("keep_maria", "dump_points"): 34 / 6},
              [[-15 / 2, -23 / 12, -75 / 12], [-157 / 12, -15 / 2, -142 / 12],
               [-105 / 12, -38 / 12, -15 / 2]],
              [1.0, 0.0, 0.0]),
}

# Play solved by DCFR on HEARTS: NashConv ~1.2e-7 at 200 iterations; exact on MARIA.
TOL = {"hearts": 1e-6, "maria": 1e-9}

_cache: dict[str, pe.DealAnalysis] = {}


def _da(deck: str) -> pe.DealAnalysis:
    if deck not in _cache:
        _cache[deck] = pe.DealAnalysis(DECKS[deck])
    return _cache[deck]


def _names(state, player=None):
    p = state.current_player() if player is None else player
    return {state.action_to_string(p, a): a for a in state.legal_actions()}


def _play_outcomes(state):
    """(minimax returns, set of returns over every line of play)."""
    if state.is_terminal():
        r = tuple(state.returns())
        return r, {r}
    p = state.current_player()
    kids = [_play_outcomes(state.child(a)) for a in state.legal_actions()]
    best = max((k[0] for k in kids), key=lambda r: r[p])
    return best, set().union(*(k[1] for k in kids))


# ------------------------------------------------------------------ the deals
@pytest.mark.parametrize("deck", DECKS)
def test_post_pass_play_values_by_hand(deck):
    """The hand table of play values (F, G) is the engine's minimax, seat 0
    leads after the pass (R6 A), and the 6 deals are equally likely."""
    game = spiel_game.load(DECKS[deck])
    root = game.new_initial_state()
    outcomes = root.chance_outcomes()
    assert len(outcomes) == 6 and all(p == pytest.approx(1 / 6) for _, p in outcomes)
    seen = set()
    for d, _ in outcomes:
        s0 = root.child(d)
        assert s0.current_player() == 0
        hand0 = _names(s0)
        for c0, a0 in hand0.items():
            s1 = s0.child(a0)
            assert s1.current_player() == 1
            for c1, a1 in _names(s1).items():
                play = s1.child(a1)
                assert play.current_player() == 0            # seat 0 leads trick 1
                held = frozenset((set(hand0) - {c0}) | {c1})
                seen.add(held)
                best, every = _play_outcomes(play)
                pts = PLAY[deck][held]
                assert best == (-pts, -(TOTAL[deck] - pts)), (deck, held)
                if deck == "maria":                          # every line gives the same
                    assert every == {best}, (held, every)
    assert seen == set(PLAY[deck])


@pytest.mark.parametrize("deck", DECKS)
def test_convention_passes_by_hand(deck):
    da = _da(deck)
    tr = da.tree
    seq = tr.infoset_seq_start
    pass_sets = np.flatnonzero(da.is_pass)
    assert len(pass_sets) == 12                               # 6 hands x 2 seats
    for i in pass_sets:
        st = tr.state(int(tr.infoset_node[i]))
        p = st.current_player()
        # seat 0 sees the deal; seat 1 does not see seat 0's pass (2 histories)
        nodes = np.flatnonzero((tr.node_player == p) & (tr.node_data == i))
        assert len(nodes) == (1 if p == 0 else 2)
        acts = [int(a) for a in tr.sequence_action[seq[i]:seq[i + 1]]]
        names = [st.action_to_string(p, a) for a in acts]
        hand = frozenset(names)
        for conv in pe.CONVENTIONS:
            got = dict(zip(names, da.convention(conv)[seq[i]:seq[i + 1]]))
            if conv == "random":
                want = {n: 0.5 for n in names}
            else:
                want = {n: float(n == PASSES[deck][conv][hand]) for n in names}
            assert got == want, (deck, conv, p, hand)


# ------------------------------------------------------------------ the pipeline
@pytest.mark.parametrize("deck,conv,points", EVERYONE)
def test_everyone_on_c_by_hand(deck, conv, points):
    prof, nc, vals = pe.solve_play(_da(deck), (conv, conv))
    assert 0 <= nc < TOL[deck]
    assert vals == pytest.approx([-points, -(TOTAL[deck] - points)], abs=TOL[deck])


@pytest.mark.parametrize("deck,conv,gain0,gain1", GAINS)
def test_best_response_gains_by_hand(deck, conv, gain0, gain1):
    prof, nc, _ = pe.solve_play(_da(deck), (conv, conv))
    ex = pe.exploitability(_da(deck), prof)
    assert ex["gain_pass_only"] == pytest.approx([gain0, gain1], abs=TOL[deck])
    # no play deviation helps against minimax play: pass+play = pass only, up to
    # the play NashConv
    assert (ex["gain_pass_play"] >= ex["gain_pass_only"] - 1e-12).all()
    assert ex["gain_pass_play"] == pytest.approx(ex["gain_pass_only"], abs=nc + 1e-12)


@pytest.fixture(scope="module", params=list(META))
def meta_rows(request):
    """``run_unit`` (the experiment's unit) on a hand deal, registered for the
    duration as a preset so that the config accepts it."""
    deck = request.param
    convs = META[deck][0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(spiel_game.PRESETS, f"by_hand_{deck}", DECKS[deck])
        mp.setattr(pe, "_deal", lambda name: _da(deck))
        cfg = pe.PassingExactConfig(deals=(f"by_hand_{deck}",), conventions=convs)
        rows = pe.run_unit(cfg, Unit(0, 0, {"deal": f"by_hand_{deck}"}))
    return deck, rows


def test_metagame_by_hand(meta_rows):
    deck, rows = meta_rows
    convs, points, a_hand, nash = META[deck]
    tol, total = TOL[deck], TOTAL[deck]
    assign = {tuple(r["assignment"].split("|")): r for r in rows if r["kind"] == "assignment"}
    assert set(assign) == set(itertools.product(convs, repeat=2))
    payoffs = {}
    for key, r in assign.items():
        assert r["play_nash_conv"] < tol
        assert [r["payoff_0"], r["payoff_1"]] == pytest.approx(
            [-points[key], -(total - points[key])], abs=tol), key
        payoffs[key] = np.array([r["payoff_0"], r["payoff_1"]])
    profs, table = metagame_table(payoffs, list(convs), 2)
    assert one_vs_population(profs, table) == pytest.approx(np.array(a_hand), abs=tol)
    conv = {r["convention"]: r for r in rows if r["kind"] == "convention"}
    assert [conv[c]["nash"] for c in convs] == pytest.approx(nash, abs=1e-6)
    assert conv[convs[0]]["nash_regret"] == pytest.approx(0.0, abs=tol)
    # the per-convention rows carry the seat-averaged gains derived above
    gains = {(d, c): (g0 + g1) / 2 for d, c, g0, g1 in GAINS}
    for c in convs:
        if (deck, c) in gains:
            assert conv[c]["gain_pass_only"] == pytest.approx(gains[deck, c], abs=tol)
