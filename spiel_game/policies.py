"""Compiled policies for the engine (used by the simulator, rollouts and bots).

A policy is an ``@njit`` function ``policy(p, s, legal, k, rng) -> action``
choosing one of ``legal[:k]`` for the player to move in engine state ``s``.
``rng`` is a ``uint64[1]`` splitmix64 stream (explicit, seeded; no global RNG).

``heuristic_policy`` is a rule-based player a decent human would recognise:

* **Passing:** passes the most dangerous card first: a Black Maria (QS), then
  the A/K of spades (they catch a Black Maria), then high hearts, then other
  high cards; low clubs/diamonds are kept.
* **Following suit:** ducks: plays the highest card that does not win the
  trick, counting cancellation (a card whose twin is already in the trick
  cancels it and cannot win; playing the twin of the winning card cancels the
  winner). If every card wins, the last player sheds its highest card, others
  play their lowest. Never plays a Black Maria into a trick it would win if it
  can avoid it.
* **Discarding (void in the suit led):** dumps a Black Maria, then the highest
  heart, then A/K of spades while a Black Maria is still out, then its highest card.
* **Leading:** the Aardvark when it holds one Black Maria, the twin is still
  out and it holds no higher spade (K or A of spades); otherwise low in the
  suit where its lowest card is lowest, avoiding hearts and spades above the jack.
* **Moon choice:** subtract.

The player uses only what its seat knows. "A Black Maria is still out" means
that some copy of the QS is neither in its hand nor seen: not played to any
trick of this hand and not in a kitty that has been turned face up. (Before
2026-11-30 the player peeked at the other hands to decide this, and the
Aardvark rule read the King and Ace of *clubs* instead of spades.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import engine as E
from . import cards as C
from .engine import (K, QS, HEARTS, SUIT_OF, ORDER_OF, POINTS_OF, S_PHASE, S_CUR, P_PASS,
                     S_TLEN, S_TRICK, S_LEADER, PH_PASS, PH_PLAY, PH_MOON, PH_DEAL, P_N,
                     L_HANDS, L_TCARDS, L_KITTY, S_KITTY_IN_POT, MOON_SUBTRACT_ACTION)
from .rules import P_DECK, P_HAND, P_KITTY

__all__ = ["make_rng_state", "rng_start", "rand_below", "rand_uniform", "shuffle_prefix", "uniform_policy",
           "uniform_action",
           "heuristic_policy", "CONVENTIONS", "pass_scores", "convention_policy"]

#: Passing conventions (documented in solvers/passing.py), by code.
CONVENTIONS = ("random", "high", "dump_points", "void_short", "keep_maria", "low", "expert")

#: Named cards the heuristic reasons about (ids are ``rank * 4 + suit``).
KS = C.card("K", "S")
AS = C.card("A", "S")
SPADES = C.SUITS.index("S")
_JACK = int(C.ORDER_OF[C.card("J", "S")])

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_start(seed, stream):
    """The starting word of stream ``stream`` of ``seed`` (see ``make_rng_state``)."""
    return _mix(np.uint64(seed) + _GOLDEN * np.uint64(stream + 1))


@njit(cache=True)
def make_rng_state(seed, stream):
    """Independent stream ``stream`` of ``seed``: a uint64[1] state."""
    st = np.empty(1, np.uint64)
    st[0] = rng_start(seed, stream)
    return st


@njit(cache=True)
def _next(rng):
    rng[0] += _GOLDEN
    return _mix(rng[0])


@njit(cache=True)
def rand_uniform(rng):
    """A float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rand_below(rng, n):
    """An int in [0, n) (multiply-shift on the top 32 bits; n < 2**32)."""
    return int(((_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def shuffle_prefix(a, m, rng):
    """Fisher-Yates shuffle of ``a[:m]`` in place with stream ``rng``."""
    for i in range(m - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True)
def uniform_policy(p, s, legal, k, rng):
    return legal[rand_below(rng, k)]


@njit(cache=True, inline='always')
def uniform_action(p, s, rng):
    """``uniform_policy`` without the list: the same action from the same draw
    (``legal[j]`` is the ``j``-th set bit of the engine's ``legal_mask``)."""
    if s[S_PHASE] == PH_MOON:
        return MOON_SUBTRACT_ACTION + rand_below(rng, 2)
    m = E.legal_mask(p, s)
    return E.nth_bit(m, rand_below(rng, E.popcount(m)))


@njit(cache=True)
def _danger(c, qs_out, hearts_first):
    """How much a card hurts to keep: higher passes/discards first.

    Passing (``hearts_first=False``): a Black Maria, then the K/A of spades
    (while a Black Maria is out), then hearts, then other cards by rank.
    Discarding (``hearts_first=True``): a Black Maria, then hearts, then the
    K/A of spades (while a Black Maria is out), then other cards by rank.
    """
    if c == QS:
        return 1000
    su = SUIT_OF[c]
    o = ORDER_OF[c]
    if (c == KS or c == AS) and qs_out:
        return (300 if hearts_first else 500) + o
    if su == HEARTS:
        return (400 if hearts_first else 200) + o * 10
    return o * 10 + (5 if su == SPADES else 0)


@njit(cache=True)
def _most_dangerous(legal, k, qs_out, hearts_first):
    best = legal[0]
    bd = -1
    for i in range(k):
        d = _danger(legal[i], qs_out, hearts_first)
        if d > bd:
            bd = d
            best = legal[i]
    return best


@njit(cache=True)
def _winner_if(p, s, me, c):
    """Seat that would currently win the trick if ``me`` played ``c`` (-1: void)."""
    n = p[P_N]
    t = s[S_TRICK]
    base = p[L_TCARDS] + t * n
    leader = s[S_LEADER]
    led = SUIT_OF[s[base + leader]] if s[S_TLEN] > 0 else SUIT_OF[c]
    best = -1
    best_o = -1
    for q in range(n):
        x = c if q == me else s[base + q]
        if x < 0:
            continue
        dup = 0
        for r in range(n):
            y = c if r == me else s[base + r]
            if y == x:
                dup += 1
        if dup > 1:
            continue
        if SUIT_OF[x] == led and ORDER_OF[x] > best_o:
            best_o = ORDER_OF[x]
            best = q
    return best


@njit(cache=True)
def unseen_copies(p, s, me, c):
    """Copies of card ``c`` that seat ``me`` has not seen: the deck's copies
    minus its own hand, every card played to a trick of this hand (the current
    trick included) and a kitty that has been turned face up. Public
    information plus the seat's own hand only (no peeking at other hands)."""
    n = p[P_N]
    cnt = p[P_DECK + c] - s[p[L_HANDS] + me * K + c]
    ph = s[S_PHASE]
    if ph != PH_DEAL:
        base = p[L_TCARDS]
        for i in range(p[P_HAND] * n):
            if s[base + i] == c:
                cnt -= 1
        if p[P_KITTY] > 0 and s[S_KITTY_IN_POT] == 0:
            cnt -= s[p[L_KITTY] + c]
    return cnt


@njit(cache=True)
def _qs_out(p, s, me):
    """True if some Black Maria is still out: neither in ``me``'s hand nor seen."""
    return unseen_copies(p, s, me, QS) > 0


@njit(cache=True)
def heuristic_policy(p, s, legal, k, rng):
    ph = s[S_PHASE]
    me = s[S_CUR]
    if ph == PH_MOON:
        return MOON_SUBTRACT_ACTION
    if ph == PH_PASS:
        return _most_dangerous(legal, k, True, False)
    n = p[P_N]
    qs_out = _qs_out(p, s, me)
    if s[S_TLEN] == 0:
        # Leading.
        h = p[L_HANDS] + me * K
        if s[h + QS] == 1 and qs_out:
            if s[h + KS] + s[h + AS] == 0:   # no higher spade
                for i in range(k):
                    if legal[i] == QS:
                        return QS
        best = legal[0]
        bs = 1 << 30
        for i in range(k):
            c = legal[i]
            score = ORDER_OF[c] * 4
            if SUIT_OF[c] == HEARTS:
                score += 100
            if SUIT_OF[c] == SPADES and ORDER_OF[c] > _JACK:
                score += 200
            if c == QS:
                score += 400
            if score < bs:
                bs = score
                best = c
        return best
    leader = s[S_LEADER]
    led = SUIT_OF[s[p[L_TCARDS] + s[S_TRICK] * n + leader]]
    following = SUIT_OF[legal[0]] == led
    for i in range(k):
        if SUIT_OF[legal[i]] != led:
            following = False
    if following:
        last = s[S_TLEN] == n - 1
        best = -1
        bo = -1
        for i in range(k):
            c = legal[i]
            if _winner_if(p, s, me, c) != me and ORDER_OF[c] > bo and c != QS:
                bo = ORDER_OF[c]
                best = c
        if best < 0:
            for i in range(k):
                if legal[i] == QS and _winner_if(p, s, me, QS) != me:
                    return QS
        if best >= 0:
            return best
        # Every card wins: the last player sheds its highest, others play low.
        pick = legal[0]
        for i in range(k):
            c = legal[i]
            if c == QS:
                continue
            if last:
                if ORDER_OF[c] > ORDER_OF[pick] or pick == QS:
                    pick = c
            elif ORDER_OF[c] < ORDER_OF[pick] or pick == QS:
                pick = c
        return pick
    return _most_dangerous(legal, k, qs_out, True)    # discarding


@njit(cache=True)
def pass_scores(code, p, s, player, out):
    """Score every card type for ``player``'s next pass under convention ``code``
    (higher passes first); cards not held score -1e9. ``out``: float64[53]."""
    h = p[L_HANDS] + player * K
    suitn = np.zeros(4, np.int64)
    for c in range(K):
        suitn[SUIT_OF[c]] += s[h + c]
    low_spades = 0
    for c in range(K):
        if SUIT_OF[c] == SPADES and ORDER_OF[c] < ORDER_OF[QS]:
            low_spades += s[h + c]
    qs_held = s[h + QS] > 0
    pc = p[P_PASS]
    for c in range(K):
        if s[h + c] <= 0:
            out[c] = -1e9
            continue
        su = SUIT_OF[c]
        o = ORDER_OF[c]
        base = o * 4.0 + su            # 'high' order: rank, then S > H > D > C
        v = 0.0
        if code == 0:                  # random: all equal (chosen uniformly below)
            v = 0.0
        elif code == 1:                # high
            v = base
        elif code == 2 or code == 4:   # dump_points / keep_maria: differ on QS only
            if c == QS:
                v = 10000.0 if code == 2 else -5000.0
            elif su == HEARTS:
                v = 5000.0 + o
            elif su == SPADES and o > ORDER_OF[QS]:
                v = 4000.0 + o
            else:
                v = base
        elif code == 3:                # void_short
            n_su = suitn[su]
            v = (1000.0 - n_su * 50.0) + o - (500.0 if su == HEARTS else 0.0)
        elif code == 5:                # low
            v = -base
        else:                          # expert
            protected = low_spades >= 5
            if c == QS:
                v = -3000.0 if protected else 10000.0
            elif su == SPADES and o > ORDER_OF[QS]:
                v = 1000.0 + o if (qs_held and protected) else 8000.0 + o
            elif su == HEARTS and o >= _JACK:
                v = 6000.0 + o
            elif su < 2 and suitn[su] <= pc:
                v = 3000.0 + o - suitn[su] * 20.0
            else:
                v = base
        out[c] = v


@njit(cache=True)
def convention_policy(code, p, s, legal, k, rng):
    """A compiled policy for the passing phase (signature of spiel_game.policies)."""
    if code == 0:
        return legal[rand_below(rng, k)]
    scores = np.empty(K, np.float64)
    pass_scores(code, p, s, s[S_CUR], scores)
    best = legal[0]
    bv = -1e18
    for i in range(k):
        c = legal[i]
        if scores[c] > bv:
            bv = scores[c]
            best = c
    return best
