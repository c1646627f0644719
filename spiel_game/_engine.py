"""The rules of Cancellation Hearts, once: compiled kernels over flat arrays.

The whole state of a game is one ``int32`` vector ``s`` (cheap to copy) and
the rules are one read-only ``int32`` vector ``p`` (``make_params``). Every
kernel is a numba ``njit`` function of ``(p, s, ...)`` so that the pyspiel
adapter, the batch simulator and the solvers all run the same code.
Set ``NUMBA_DISABLE_JIT=1`` to step through the rules in pure Python.

Kernel API (documented, used by the adapter and the solvers):

* ``new_state(p) -> s``: the initial state (before the deal).
* ``current_player(p, s) -> int`` (``CHANCE``/``TERMINAL`` sentinels).
* ``legal_actions(p, s) -> int32[k]``: sorted legal actions (chance included).
* ``check_action(p, s, a) -> int``: 0 if legal, else an ``ERR_*`` code.
* ``apply_action(p, s, a) -> int``: applies a legal action in place and
  returns 0, or returns an ``ERR_*`` code and leaves ``s`` unchanged.
* ``apply_unchecked(p, s, a)``: the same for an action known to be legal.
* ``legal_into(p, s, out) -> k``: allocation-free ``legal_actions``.
* ``legal_mask(p, s) -> int``: the legal card actions as a bit mask (bit c:
  card type c); ``popcount`` and ``nth_bit`` count and index it, so a uniform
  draw need not list the actions (``policies.uniform_action``).
* ``apply_whole_deal(p, s, hands)``: deal every hand at once.
* ``returns(p, s) -> float64[n]``.

The state layout (``S_*`` indices, ``L_*`` offsets, ``make_params``, the
region accessors such as ``hand(p, s, seat)``) is defined in
:mod:`spiel_game._layout`, the bit-mask helpers (``popcount``, ``lowest_bit``,
``nth_bit``) in :mod:`spiel_game._bits`; both are part of this API, read as
``engine.<name>``.

Whether a state vector is consistent (``validate(p, s)``, its named checks and
their messages) is decided in :mod:`spiel_game._validation`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import cards as C
from ._rules import (P_N, P_HAND, P_KITTY, P_NCARDS, P_PASS, P_PASS_OFFSET,
                    P_FIRST_LEAD, P_OPENING, P_VOID_LAST, P_NO_PTS_FIRST, P_MOON,
                    P_MOON_PTS, P_TARGET, P_MAX_HANDS, P_UTILITY, P_PENALTY_PTS,
                    P_BONUS_PTS, P_DECK, P_POINTS, FIRST_LEAD_OPENING, VOID_LEADER,
                    MOON_OFF, MOON_ADD, MOON_SUBTRACT, MOON_CHOOSE, MOON_BOTH,
                    UTIL_POINTS)
# The state layout, its accessors (:mod:`spiel_game._layout`) and the bit-mask
# helpers (:mod:`spiel_game._bits`) are part of this module's kernel API: the
# kernels below use some of them, and the rest is re-exported (``X as X``).
from ._bits import lowest_bit, nth_bit as nth_bit, popcount as popcount
from ._layout import (S_PHASE, S_CUR, S_DEALT, S_DEALER, S_HANDNO, S_PASSOFF, S_NPASS,
                     S_NPLAYED, S_TRICK, S_LEADER, S_TLEN, S_BROKEN, S_POTPTS, S_POTN,
                     S_KITTY_IN_POT, S_SHOOTER, S_VOIDS, S_CANCELS, S_MOON_CHOICE, S_AARD_TRY,
                     S_AARD_WIN, S_POT_AT_LAST, S_DISCARDED, S_MOONS, L_UNDEALT, L_HANDS,
                     L_DEALT_HANDS, L_PASSED, L_KITTY, L_POT, L_POINTS, L_HANDPTS, L_SCORES,
                     L_TLEAD, L_TWIN, L_TCARDS, L_PASSSEQ, L_SUITCNT, L_SCRATCH, L_STATE_SIZE,
                     kitty, trick_winners, trick_cards, card_points)
from ._layout import (STATE_SCALARS as STATE_SCALARS, S_NSCALARS as S_NSCALARS,
                     STATE_REGIONS as STATE_REGIONS, PARAMS_SIZE as PARAMS_SIZE,
                     state_layout as state_layout, format_state_layout as format_state_layout,
                     make_params as make_params, undealt as undealt, hand as hand,
                     dealt_hand as dealt_hand, passed as passed, pass_choices as pass_choices,
                     pot as pot, points as points, hand_points as hand_points,
                     scores as scores, trick_leaders as trick_leaders,
                     all_trick_cards as all_trick_cards, suit_counts as suit_counts,
                     plays as plays, deck as deck, region as region)

K = C.NUM_CARD_TYPES          # 53 card types
JOKER = C.JOKER
QS = C.QS
HEARTS = C.HEARTS
MOON_SUBTRACT_ACTION = K      # 53
MOON_ADD_ACTION = K + 1       # 54
NUM_ACTIONS_WITH_MOON = K + 2

SUIT_OF = np.ascontiguousarray(C.SUIT_OF)
ORDER_OF = np.ascontiguousarray(C.ORDER_OF)
#: Points of the standard penalty cards (hearts 1, QS 13): what a moon needs and
#: what ``points_on_first_trick='forbidden'`` forbids. The scoring table of a
#: game is ``card_points(p)`` (these points, plus ``jack_of_diamonds``).
POINTS_OF = np.ascontiguousarray(C.POINTS_OF)

CHANCE = -1
TERMINAL = -4

# Phases.
PH_DEAL, PH_PASS, PH_PLAY, PH_MOON, PH_OVER = 0, 1, 2, 3, 4


# Trick winner sentinels.
TW_NONE, TW_VOID, TW_DISCARDED = -1, -2, -3

# Error codes of check_action / apply_action.
OK = 0
ERR_TERMINAL = 1
ERR_RANGE = 2
ERR_NOT_DEALT = 3
ERR_NOT_IN_HAND = 4
ERR_FOLLOW = 5
ERR_OPENING = 6
ERR_FIRST_LEAD = 7
ERR_HEARTS = 8
ERR_FIRST_TRICK_POINTS = 9
ERR_MOON = 10

# Play constraints (one place decides what may be played).
CON_ANY, CON_FOLLOW, CON_OPENING, CON_NO_HEART_NO_QS, CON_NO_HEART, CON_NO_POINTS = 0, 1, 2, 3, 4, 5


def _allowed_table():
    t = np.zeros((6, K), np.bool_)
    for c in range(K):
        su = SUIT_OF[c]
        t[CON_ANY, c] = True
        t[CON_NO_HEART_NO_QS, c] = su != HEARTS and c != QS
        t[CON_NO_HEART, c] = su != HEARTS
        t[CON_NO_POINTS, c] = POINTS_OF[c] == 0
    return t


#: ALLOWED[constraint, card] for the constraints that do not depend on an argument.
ALLOWED = _allowed_table()


def _mask_tables():
    suit = np.zeros(4, np.int64)
    con = np.zeros(6, np.int64)
    for c in range(K):
        suit[SUIT_OF[c]] |= 1 << c
        for k in range(6):
            if ALLOWED[k, c]:
                con[k] |= 1 << c
    return suit, con


#: Card-type bit masks (bit c = card type c, 53 bits): SUIT_MASK[suit] (the
#: joker is a club, R3) and CON_MASK[constraint], ``ALLOWED`` as masks.
SUIT_MASK, CON_MASK = _mask_tables()

# ---------------------------------------------------------------- helpers
@njit(cache=True)
def _reset_hand(p, s):
    n = p[P_N]
    t = p[P_HAND]
    for i in range(K):
        s[p[L_UNDEALT] + i] = p[P_DECK + i]
        s[p[L_KITTY] + i] = 0
        s[p[L_POT] + i] = 0
    for i in range(n * K):
        s[p[L_HANDS] + i] = 0
        s[p[L_DEALT_HANDS] + i] = 0
        s[p[L_PASSED] + i] = 0
    for i in range(n * 4):
        s[p[L_SUITCNT] + i] = 0
    for i in range(n):
        s[p[L_POINTS] + i] = 0          # L_HANDPTS keeps the previous hand's result
    for i in range(t):
        s[p[L_TLEAD] + i] = -1
        s[p[L_TWIN] + i] = TW_NONE
    for i in range(t * n):
        s[p[L_TCARDS] + i] = -1
    for i in range(n * max(1, p[P_PASS])):
        s[p[L_PASSSEQ] + i] = -1
    s[S_PHASE] = PH_DEAL
    s[S_CUR] = CHANCE
    s[S_DEALT] = 0
    s[S_NPASS] = 0
    s[S_NPLAYED] = 0
    s[S_TRICK] = 0
    s[S_LEADER] = -1
    s[S_TLEN] = 0
    s[S_BROKEN] = 0
    s[S_POTPTS] = 0
    s[S_POTN] = 0
    s[S_KITTY_IN_POT] = 0
    s[S_SHOOTER] = -1
    s[S_MOON_CHOICE] = -1
    s[S_DISCARDED] = 0
    # R11: hand h has dealer (n - 1 + h) mod n; passes alternate left, right.
    h = s[S_HANDNO]
    s[S_DEALER] = (n - 1 + h) % n
    off = p[P_PASS_OFFSET]
    if h % 2 == 1:
        off = (n - off) % n
    s[S_PASSOFF] = off


@njit(cache=True)
def new_state(p):
    """The initial state: hand 0, before the deal. Returns ``int32[state_size]``."""
    s = np.zeros(p[L_STATE_SIZE], np.int32)
    s[S_HANDNO] = 0
    _reset_hand(p, s)
    return s


@njit(cache=True)
def current_player(p, s):
    ph = s[S_PHASE]
    if ph == PH_DEAL:
        return CHANCE
    if ph == PH_OVER:
        return TERMINAL
    return s[S_CUR]


@njit(cache=True, inline='always')
def _deal_seat(p, s):
    """Seat receiving the next dealt card (R4), or -1 for the kitty."""
    n = p[P_N]
    d = s[S_DEALT]
    if d >= n * p[P_HAND]:
        return -1
    return (s[S_DEALER] + 1 + d) % n


@njit(cache=True, inline='always')
def _passer(p, s):
    n = p[P_N]
    return (s[S_DEALER] + 1 + s[S_NPASS] // p[P_PASS]) % n


@njit(cache=True, inline='always')
def led_suit(p, s):
    """The suit led in the current trick (its leader's card)."""
    n = p[P_N]
    ld = s[S_LEADER]
    return SUIT_OF[s[p[L_TCARDS] + s[S_TRICK] * n + ld]]


@njit(cache=True, inline='always')
def play_constraint(p, s, player):
    """(constraint, argument) for the card ``player`` must play now (R6, R7, R9)."""
    sc = p[L_SUITCNT] + player * 4
    if s[S_TLEN] > 0:
        led = led_suit(p, s)
        if s[sc + led] > 0:
            return CON_FOLLOW, led
    hearts = s[sc + HEARTS]
    total = s[sc] + s[sc + 1] + hearts + s[sc + 3]
    qs = s[p[L_HANDS] + player * K + QS]
    if s[S_TLEN] > 0:
        if p[P_NO_PTS_FIRST] == 1 and s[S_TRICK] == 0 and total - hearts - qs > 0:
            return CON_NO_POINTS, 0
        return CON_ANY, 0
    # Leading.
    if s[S_NPLAYED] == 0:
        if p[P_FIRST_LEAD] == FIRST_LEAD_OPENING:
            return CON_OPENING, p[P_OPENING]
        if total - hearts - qs > 0:
            return CON_NO_HEART_NO_QS, 0
        return CON_ANY, 0
    if s[S_BROKEN] == 0 and total - hearts > 0:
        return CON_NO_HEART, 0
    return CON_ANY, 0


@njit(cache=True, inline='always')
def _satisfies(con, arg, c):
    if con == CON_ANY:
        return True
    if con == CON_FOLLOW:
        return SUIT_OF[c] == arg
    if con == CON_OPENING:
        return c == arg
    if con == CON_NO_HEART_NO_QS:
        return SUIT_OF[c] != HEARTS and c != QS
    if con == CON_NO_HEART:
        return SUIT_OF[c] != HEARTS
    return POINTS_OF[c] == 0     # CON_NO_POINTS


@njit(cache=True, inline='always')
def _held_mask(s, base):
    """Bit c set iff ``s[base + c] > 0``: the card types present (vectorised)."""
    h = s[base:base + K]
    m = 0
    for c in range(K):
        if h[c] > 0:
            m |= 1 << c
    return m


@njit(cache=True, inline='always')
def legal_mask(p, s):
    """The legal card actions as a bit mask (bit c: card type c; at a deal node
    the card types left to deal). 0 at a moon choice (actions 53, 54) and at the end."""
    ph = s[S_PHASE]
    if ph == PH_DEAL:
        return _held_mask(s, p[L_UNDEALT])
    if ph == PH_PASS:
        return _held_mask(s, p[L_HANDS] + s[S_CUR] * K)
    if ph == PH_PLAY:
        pl = s[S_CUR]
        con, arg = play_constraint(p, s, pl)
        if con == CON_OPENING:
            return 1 << arg
        m = _held_mask(s, p[L_HANDS] + pl * K)
        if con == CON_FOLLOW:
            return m & SUIT_MASK[arg]
        return m & CON_MASK[con]
    return 0


@njit(cache=True, inline='always')
def legal_into(p, s, out):
    """Write the sorted legal actions into ``out`` (int32[>= 55]); return how many."""
    if s[S_PHASE] == PH_MOON:
        out[0] = MOON_SUBTRACT_ACTION
        out[1] = MOON_ADD_ACTION
        return 2
    m = legal_mask(p, s)
    k = 0
    while m != 0:
        out[k] = lowest_bit(m)
        k += 1
        m &= m - 1
    return k


@njit(cache=True)
def legal_actions(p, s):
    """Sorted legal actions of the player to move (chance: card types left)."""
    out = np.empty(K + 2, np.int32)
    k = legal_into(p, s, out)
    return out[:k]


@njit(cache=True)
def chance_probabilities(p, s):
    """(outcomes, probabilities) at a deal node: copies left / cards left."""
    left = 0
    for c in range(K):
        left += s[p[L_UNDEALT] + c]
    acts = legal_actions(p, s)
    probs = np.empty(acts.shape[0], np.float64)
    for i in range(acts.shape[0]):
        probs[i] = s[p[L_UNDEALT] + acts[i]] / left
    return acts, probs


@njit(cache=True)
def check_action(p, s, a):
    """0 if ``a`` is legal now, else the ERR_* code naming the broken rule."""
    ph = s[S_PHASE]
    if ph == PH_OVER:
        return ERR_TERMINAL
    if ph == PH_MOON:
        if a == MOON_SUBTRACT_ACTION or a == MOON_ADD_ACTION:
            return OK
        return ERR_MOON
    if a < 0 or a >= K:
        return ERR_RANGE
    if ph == PH_DEAL:
        return OK if s[p[L_UNDEALT] + a] > 0 else ERR_NOT_DEALT
    pl = s[S_CUR]
    if s[p[L_HANDS] + pl * K + a] <= 0:
        return ERR_NOT_IN_HAND
    if ph == PH_PASS:
        return OK
    con, arg = play_constraint(p, s, pl)
    if _satisfies(con, arg, a):
        return OK
    if con == CON_FOLLOW:
        return ERR_FOLLOW
    if con == CON_OPENING:
        return ERR_OPENING
    if con == CON_NO_HEART_NO_QS:
        return ERR_FIRST_LEAD
    if con == CON_NO_HEART:
        return ERR_HEARTS
    return ERR_FIRST_TRICK_POINTS


# ------------------------------------------------------------ transitions
@njit(cache=True, inline='always')
def _start_play(p, s):
    n = p[P_N]
    s[S_PHASE] = PH_PLAY
    s[S_TRICK] = 0
    s[S_TLEN] = 0
    if p[P_FIRST_LEAD] == FIRST_LEAD_OPENING:
        oc = p[P_OPENING]
        leader = 0
        for q in range(n):
            if s[p[L_HANDS] + q * K + oc] > 0:
                leader = q
        s[S_LEADER] = leader
    else:
        s[S_LEADER] = (s[S_DEALER] + 1) % n
    s[S_CUR] = s[S_LEADER]


@njit(cache=True)
def _after_deal(p, s):
    n = p[P_N]
    if p[P_KITTY] > 0:
        pts = 0
        for c in range(K):
            pts += s[p[L_KITTY] + c] * p[P_POINTS + c]
        s[S_POTPTS] = pts
        s[S_POTN] = p[P_KITTY]
        s[S_KITTY_IN_POT] = 1
    if p[P_PASS] > 0 and s[S_PASSOFF] % n != 0:
        s[S_PHASE] = PH_PASS
        s[S_NPASS] = 0
        s[S_CUR] = _passer(p, s)
    else:
        _start_play(p, s)


@njit(cache=True, inline='always')
def _apply_deal(p, s, c):
    seat = _deal_seat(p, s)
    s[p[L_UNDEALT] + c] -= 1
    if seat >= 0:
        s[p[L_HANDS] + seat * K + c] += 1
        s[p[L_DEALT_HANDS] + seat * K + c] += 1
        s[p[L_SUITCNT] + seat * 4 + SUIT_OF[c]] += 1
    else:
        s[p[L_KITTY] + c] += 1
    s[S_DEALT] += 1
    if s[S_DEALT] == p[P_NCARDS]:
        _after_deal(p, s)


@njit(cache=True)
def apply_deal_sequence(p, s, cards):
    """Deal ``cards`` (int[num_cards], in R4 order) from a fresh deal phase; the
    same result as applying them one by one as chance actions."""
    n = p[P_N]
    nh = n * p[P_HAND]
    hands = p[L_HANDS]
    dealt = p[L_DEALT_HANDS]
    sc = p[L_SUITCNT]
    seat = (s[S_DEALER] + 1) % n
    for i in range(nh):
        c = cards[i]
        s[hands + seat * K + c] += 1
        s[dealt + seat * K + c] += 1
        s[sc + seat * 4 + SUIT_OF[c]] += 1
        seat += 1
        if seat == n:
            seat = 0
    for i in range(nh, p[P_NCARDS]):
        s[p[L_KITTY] + cards[i]] += 1
    for c in range(K):
        s[p[L_UNDEALT] + c] = 0
    s[S_DEALT] = p[P_NCARDS]
    _after_deal(p, s)


@njit(cache=True)
def apply_whole_deal(p, s, hands):
    """Deal every card at once. ``hands``: int[n (+1 kitty), 53] copy counts."""
    n = p[P_N]
    for q in range(n):
        for c in range(K):
            v = hands[q, c]
            s[p[L_HANDS] + q * K + c] = v
            s[p[L_DEALT_HANDS] + q * K + c] = v
            s[p[L_UNDEALT] + c] -= v
            s[p[L_SUITCNT] + q * 4 + SUIT_OF[c]] += v
    if p[P_KITTY] > 0:
        for c in range(K):
            s[p[L_KITTY] + c] = hands[n, c]
            s[p[L_UNDEALT] + c] -= hands[n, c]
    s[S_DEALT] = p[P_NCARDS]
    _after_deal(p, s)


@njit(cache=True, inline='always')
def _apply_pass(p, s, c):
    n = p[P_N]
    pl = s[S_CUR]
    s[p[L_HANDS] + pl * K + c] -= 1
    s[p[L_SUITCNT] + pl * 4 + SUIT_OF[c]] -= 1
    s[p[L_PASSED] + pl * K + c] += 1
    s[p[L_PASSSEQ] + pl * p[P_PASS] + s[S_NPASS] % p[P_PASS]] = c
    s[S_NPASS] += 1
    if s[S_NPASS] == n * p[P_PASS]:
        # R5: everyone has chosen; the passed cards join the receivers' hands.
        off = s[S_PASSOFF]
        pc = p[P_PASS]
        seq = p[L_PASSSEQ]
        hands = p[L_HANDS]
        sc = p[L_SUITCNT]
        for q in range(n):
            r = q + off
            if r >= n:
                r -= n
            for j in range(pc):
                x = s[seq + q * pc + j]
                s[hands + r * K + x] += 1
                s[sc + r * 4 + SUIT_OF[x]] += 1
        _start_play(p, s)
    else:
        s[S_CUR] = _passer(p, s)


@njit(cache=True, inline='always')
def trick_outcome(p, s, t):
    """Resolve the complete trick ``t``: (winner seat or -1 if void, points by
    the scoring table (cancelled cards count, R7), pairs cancelled). O(n):
    copies are counted in the state's scratch counters."""
    n = p[P_N]
    base = p[L_TCARDS] + t * n
    scr = p[L_SCRATCH]
    leader = s[p[L_TLEAD] + t]
    led = SUIT_OF[s[base + leader]]
    for q in range(n):
        s[scr + s[base + q]] += 1
    best = -1
    best_order = -1
    pts = 0
    pairs = 0
    for q in range(n):
        c = s[base + q]
        pts += p[P_POINTS + c]
        copies = s[scr + c]
        if copies > 1:            # R7: identical cards cancel
            pairs += copies // 2
            s[scr + c] = -copies  # count each card type once
            continue
        if copies < 0:
            continue
        o = ORDER_OF[c]
        if SUIT_OF[c] == led and o > best_order:
            best_order = o
            best = q
    for q in range(n):
        s[scr + s[base + q]] = 0
    return best, pts, pairs


@njit(cache=True, inline='always')
def _take(p, s, seat, pts):
    s[p[L_POINTS] + seat] += pts + s[S_POTPTS]
    if s[S_POTN] > 0:
        s[S_POTPTS] = 0
        s[S_POTN] = 0
        s[S_KITTY_IN_POT] = 0
        for c in range(K):
            s[p[L_POT] + c] = 0


@njit(cache=True)
def _finish_hand(p, s, choice):
    """Apply the moon rule (R10) with ``choice`` (-1 by rule, 0 subtract, 1 add) and score."""
    n = p[P_N]
    mode = p[P_MOON]
    sh = s[S_SHOOTER]
    mp = p[P_MOON_PTS]
    for q in range(n):
        s[p[L_HANDPTS] + q] = s[p[L_POINTS] + q]
    if sh >= 0:
        s[S_MOONS] += 1
        sub = mode == MOON_SUBTRACT or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 0)
        add = mode == MOON_ADD or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 1)
        for q in range(n):
            if q == sh:
                if sub:
                    s[p[L_HANDPTS] + q] -= mp
            elif add:
                s[p[L_HANDPTS] + q] += mp
        s[S_MOON_CHOICE] = choice
    hi = -2147483647
    for q in range(n):
        s[p[L_SCORES] + q] += s[p[L_HANDPTS] + q]
        if s[p[L_SCORES] + q] > hi:
            hi = s[p[L_SCORES] + q]
    s[S_HANDNO] += 1
    if p[P_TARGET] <= 0 or hi >= p[P_TARGET] or s[S_HANDNO] >= p[P_MAX_HANDS]:
        s[S_PHASE] = PH_OVER
        s[S_CUR] = TERMINAL
    else:
        _reset_hand(p, s)


@njit(cache=True)
def bonus_taken(p, s, seat):
    """Points of the cards worth less than 0 (``jack_of_diamonds``) that ``seat``
    took in this hand's completed tricks, with the set-aside cards and the
    kitty they carried (R3 A, R8); 0 in a game without such cards."""
    if p[P_BONUS_PTS] == 0:
        return 0
    n = p[P_N]
    table = card_points(p)
    carried = 0                         # set aside, for the next trick taken
    if p[P_KITTY] > 0:
        kit = kitty(p, s)
        for c in range(K):
            if table[c] < 0:
                carried += kit[c] * table[c]
    won = trick_winners(p, s)
    out = 0
    for t in range(s[S_TRICK]):
        b = 0
        cards = trick_cards(p, s, t)
        for q in range(n):
            if table[cards[q]] < 0:
                b += table[cards[q]]
        w = won[t]
        if w >= 0:
            if w == seat:
                out += carried + b
            carried = 0
        elif w == TW_VOID:
            carried += b
        else:                           # TW_DISCARDED (R8 A): nobody's
            carried = 0
    return out


@njit(cache=True, inline='always')
def _shot_the_moon(p, s, seat):
    """Did ``seat`` take every penalty card (hearts, QS) of the hand (R10)? The
    cards worth less than 0 do not count (Omnibus Hearts)."""
    pts = s[p[L_POINTS] + seat]
    if p[P_BONUS_PTS] != 0:
        pts -= bonus_taken(p, s, seat)
    return pts == p[P_PENALTY_PTS]


@njit(cache=True, inline='always')
def _end_of_tricks(p, s):
    n = p[P_N]
    s[S_SHOOTER] = -1
    if p[P_MOON] != MOON_OFF and p[P_PENALTY_PTS] > 0:
        for q in range(n):
            if _shot_the_moon(p, s, q):
                s[S_SHOOTER] = q
    if s[S_SHOOTER] >= 0 and p[P_MOON] == MOON_CHOOSE:
        s[S_PHASE] = PH_MOON
        s[S_CUR] = s[S_SHOOTER]
    else:
        _finish_hand(p, s, -1)


@njit(cache=True, inline='always')
def _apply_play(p, s, c):
    n = p[P_N]
    pl = s[S_CUR]
    t = s[S_TRICK]
    s[p[L_HANDS] + pl * K + c] -= 1
    s[p[L_SUITCNT] + pl * 4 + SUIT_OF[c]] -= 1
    s[p[L_TCARDS] + t * n + pl] = c
    if s[S_TLEN] == 0:
        s[p[L_TLEAD] + t] = pl
    s[S_TLEN] += 1
    s[S_NPLAYED] += 1
    s[S_BROKEN] |= (SUIT_OF[c] == HEARTS) | (c == QS)   # R9
    if s[S_TLEN] < n:
        s[S_CUR] = pl + 1 if pl + 1 < n else 0
        return
    leader = s[S_LEADER]
    winner, pts, pairs = trick_outcome(p, s, t)
    s[S_CANCELS] += pairs
    if s[p[L_TCARDS] + t * n + leader] == QS:  # the Aardvark (R9 B)
        s[S_AARD_TRY] += 1
        for q in range(n):
            if q != leader and s[p[L_TCARDS] + t * n + q] == QS:
                s[S_AARD_WIN] = s[S_AARD_WIN] + 1
                break
    last = t == p[P_HAND] - 1
    if last and s[S_POTN] - p[P_KITTY] * s[S_KITTY_IN_POT] > 0:
        s[S_POT_AT_LAST] += 1                   # set-aside cards reach the last trick
    if winner < 0:
        s[S_VOIDS] += 1
        if last:
            if p[P_VOID_LAST] == VOID_LEADER:       # R8 B
                winner = leader
            else:                                   # R8 A: scores for no one
                s[S_DISCARDED] = pts + s[S_POTPTS]
                s[p[L_TWIN] + t] = TW_DISCARDED
                s[S_POTPTS] = 0
                s[S_POTN] = 0
                s[S_KITTY_IN_POT] = 0
                for x in range(K):
                    s[p[L_POT] + x] = 0
        else:                                       # R8: set aside
            s[p[L_TWIN] + t] = TW_VOID
            for q in range(n):
                s[p[L_POT] + s[p[L_TCARDS] + t * n + q]] += 1
            s[S_POTPTS] += pts
            s[S_POTN] += n
    if winner >= 0:
        s[p[L_TWIN] + t] = winner
        _take(p, s, winner, pts)
        s[S_LEADER] = winner
    s[S_TRICK] = t + 1
    s[S_TLEN] = 0
    s[S_CUR] = s[S_LEADER]
    if t + 1 == p[P_HAND]:
        _end_of_tricks(p, s)


@njit(cache=True, inline='always')
def apply_unchecked(p, s, a):
    """Apply ``a``, known to be legal (e.g. taken from ``legal_into``), in place."""
    ph = s[S_PHASE]
    if ph == PH_DEAL:
        _apply_deal(p, s, a)
    elif ph == PH_PASS:
        _apply_pass(p, s, a)
    elif ph == PH_PLAY:
        _apply_play(p, s, a)
    else:
        _finish_hand(p, s, 1 if a == MOON_ADD_ACTION else 0)


@njit(cache=True)
def apply_action(p, s, a):
    """Apply ``a`` in place; returns 0, or an ERR_* code with ``s`` unchanged."""
    err = check_action(p, s, a)
    if err != OK:
        return err
    apply_unchecked(p, s, a)
    return OK


@njit(cache=True)
def returns(p, s):
    """Utility of each player (terminal: R10/R11 scores; otherwise 0)."""
    n = p[P_N]
    out = np.zeros(n, np.float64)
    if s[S_PHASE] != PH_OVER:
        return out
    total = 0.0
    for q in range(n):
        total += s[p[L_SCORES] + q]
    for q in range(n):
        own = float(s[p[L_SCORES] + q])
        if p[P_UTILITY] == UTIL_POINTS:
            out[q] = 0.0 - own
        else:
            out[q] = (total - own) / (n - 1) - own
    return out


@njit(cache=True)
def card_locations(p, s):
    """Copies of each card type in each place -> int32[n + 5, 53]:
    rows 0..n-1 the hands; n passed cards in flight (pass phase); n+1 the kitty
    while nobody has taken it; n+2 the set-aside pot; n+3 the current trick;
    n+4 cards taken (or discarded, R8 A) in completed tricks, with a taken kitty.
    With the undealt cards, the rows add up to the deck."""
    n = p[P_N]
    ph = s[S_PHASE]
    out = np.zeros((n + 5, K), np.int32)
    for q in range(n):
        for c in range(K):
            out[q, c] = s[p[L_HANDS] + q * K + c]
    if ph == PH_PASS:
        for q in range(n):
            for c in range(K):
                out[n, c] += s[p[L_PASSED] + q * K + c]
    kitty_free = ph == PH_DEAL or s[S_KITTY_IN_POT] == 1
    for c in range(K):
        if kitty_free:
            out[n + 1, c] = s[p[L_KITTY] + c]
        else:
            out[n + 4, c] = s[p[L_KITTY] + c]
        out[n + 2, c] = s[p[L_POT] + c]
        out[n + 4, c] -= s[p[L_POT] + c]
    t = s[S_TRICK]
    if ph == PH_DEAL:
        t = 0
    for u in range(min(t, p[P_HAND])):
        for q in range(n):
            c = s[p[L_TCARDS] + u * n + q]
            if c >= 0:
                out[n + 4, c] += 1
    if ph == PH_PLAY:
        for q in range(n):
            c = s[p[L_TCARDS] + t * n + q]
            if c >= 0:
                out[n + 3, c] += 1
    return out
