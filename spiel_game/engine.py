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
* ``returns(p, s) -> float64[n]``; ``validate(p, s) -> int`` (0 = consistent,
  else the code of the failed check: ``VALIDATE_ERRORS[code]`` is its name and
  what is allowed, ``validate_message(p, s)`` the sentence).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as _ir
from numba import njit
from numba.extending import intrinsic as _intrinsic, overload as _overload

from . import cards as C
from .rules import (P_N, P_HAND, P_KITTY, P_NCARDS, P_PASS, P_PASS_OFFSET,
                    P_FIRST_LEAD, P_OPENING, P_VOID_LAST, P_NO_PTS_FIRST, P_MOON,
                    P_MOON_PTS, P_TARGET, P_MAX_HANDS, P_UTILITY, P_PENALTY_PTS,
                    P_BONUS_PTS, P_DECK, P_POINTS, P_SIZE, FIRST_LEAD_OPENING, VOID_LEADER,
                    MOON_OFF, MOON_ADD, MOON_SUBTRACT, MOON_CHOOSE, MOON_BOTH,
                    UTIL_POINTS, RuleSet)

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

# ------------------------------------------------------------ state layout
# The state vector, generated from one field table: first the scalars (one
# int32 each, at fixed indices ``S_<name>``), then the regions, whose sizes
# depend on the rules (``n`` players, ``t`` tricks per hand, ``pc`` cards
# passed, at least 1). A region's offset in ``s`` is ``p[L_<name>]`` (the params
# vector carries the layout after the rules); read regions with the accessors
# below (``hand(p, s, seat)``, ``trick_cards(p, s, t)``, ...), never by arithmetic.
#: ``(name, meaning)`` of each scalar; the counters marked "match" count over a match.
STATE_SCALARS = (
    ("PHASE", "PH_DEAL, PH_PASS, PH_PLAY, PH_MOON or PH_OVER"),
    ("CUR", "player to move: a seat, CHANCE or TERMINAL"),
    ("DEALT", "cards dealt so far this hand"),
    ("DEALER", "dealer's seat (R11)"),
    ("HANDNO", "hands scored so far"),
    ("PASSOFF", "this hand's pass offset (R5, R11)"),
    ("NPASS", "pass choices made this hand"),
    ("NPLAYED", "cards played this hand"),
    ("TRICK", "tricks completed this hand"),
    ("LEADER", "leader of the current trick, -1 before play"),
    ("TLEN", "cards in the current trick"),
    ("BROKEN", "hearts broken (R9): 0 or 1"),
    ("POTPTS", "points set aside (void tricks, R8; the kitty until taken)"),
    ("POTN", "cards set aside"),
    ("KITTY_IN_POT", "1 while the kitty waits for the first trick taken"),
    ("SHOOTER", "seat that shot the moon, -1 if none (R10)"),
    ("VOIDS", "void tricks (match)"),
    ("CANCELS", "cancelled pairs (match)"),
    ("MOON_CHOICE", "the shooter's choice: 0 subtract, 1 add, -1 none or by rule"),
    ("AARD_TRY", "tricks led with QS (match)"),
    ("AARD_WIN", "QS leads met by another QS (match)"),
    ("POT_AT_LAST", "hands whose set-aside cards reached the last trick (match)"),
    ("DISCARDED", "points discarded by a void last trick (R8 A)"),
    ("MOONS", "moons shot (match)"),
)
(S_PHASE, S_CUR, S_DEALT, S_DEALER, S_HANDNO, S_PASSOFF, S_NPASS, S_NPLAYED, S_TRICK,
 S_LEADER, S_TLEN, S_BROKEN, S_POTPTS, S_POTN, S_KITTY_IN_POT, S_SHOOTER, S_VOIDS,
 S_CANCELS, S_MOON_CHOICE, S_AARD_TRY, S_AARD_WIN, S_POT_AT_LAST, S_DISCARDED,
 S_MOONS) = range(len(STATE_SCALARS))
S_NSCALARS = len(STATE_SCALARS)

#: ``(name, size(n, t, pc), meaning)`` of each region, in order.
STATE_REGIONS = (
    ("UNDEALT", lambda n, t, pc: K, "copies of each card type not dealt yet"),
    ("HANDS", lambda n, t, pc: n * K, "each seat's hand: copies of each card type"),
    ("DEALT_HANDS", lambda n, t, pc: n * K, "each seat's cards as dealt"),
    ("PASSED", lambda n, t, pc: n * K, "the cards each seat passed"),
    ("KITTY", lambda n, t, pc: K, "the kitty (R3 A)"),
    ("POT", lambda n, t, pc: K, "the cards set aside by void tricks (R8)"),
    ("POINTS", lambda n, t, pc: n, "points each seat took this hand"),
    ("HANDPTS", lambda n, t, pc: n, "each seat's points for the last hand scored (R10)"),
    ("SCORES", lambda n, t, pc: n, "each seat's score (R11)"),
    ("TLEAD", lambda n, t, pc: t, "leader of each trick, -1 before it starts"),
    ("TWIN", lambda n, t, pc: t, "winner of each trick, or TW_NONE / TW_VOID / TW_DISCARDED"),
    ("TCARDS", lambda n, t, pc: t * n, "card each seat played to each trick, -1 none"),
    ("PASSSEQ", lambda n, t, pc: n * pc, "each seat's pass choices in order, -1 not made"),
    ("SUITCNT", lambda n, t, pc: n * 4, "cards of each suit in each hand (derived, for speed)"),
    ("SCRATCH", lambda n, t, pc: K, "counters for trick resolution, 0 between kernel calls"),
)
(L_UNDEALT, L_HANDS, L_DEALT_HANDS, L_PASSED, L_KITTY, L_POT, L_POINTS, L_HANDPTS,
 L_SCORES, L_TLEAD, L_TWIN, L_TCARDS, L_PASSSEQ, L_SUITCNT,
 L_SCRATCH) = range(P_SIZE, P_SIZE + len(STATE_REGIONS))
L_STATE_SIZE = P_SIZE + len(STATE_REGIONS)     # p[L_STATE_SIZE]: the state's length
PARAMS_SIZE = L_STATE_SIZE + 1
assert all(globals()["S_" + name] == i for i, (name, _) in enumerate(STATE_SCALARS))
assert all(globals()["L_" + name] == P_SIZE + i for i, (name, _, _) in enumerate(STATE_REGIONS))


def state_layout(n: int, t: int, pc: int) -> list[tuple[str, int, int, int]]:
    """``(name, L index, offset in s, size)`` of each region for ``n`` players,
    ``t`` tricks per hand and ``pc`` cards passed (the order of ``make_params``)."""
    out, off = [], S_NSCALARS
    for i, (name, size, _) in enumerate(STATE_REGIONS):
        k = size(n, t, max(1, pc))
        out.append((name, P_SIZE + i, off, k))
        off += k
    return out


def format_state_layout(n: int, t: int, pc: int) -> str:
    """The state layout as a table, generated from the field table."""
    lines = [f"{'index':>7}  {'size':>5}  field"]
    for i, (name, text) in enumerate(STATE_SCALARS):
        lines.append(f"{i:>7}  {1:>5}  S_{name}: {text}")
    for (name, _, off, k), (_, _, text) in zip(state_layout(n, t, pc), STATE_REGIONS):
        lines.append(f"{off:>7}  {k:>5}  L_{name}: {text}")
    return "\n".join(lines)


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


# ------------------------------------------------------------ bit masks
# popcount / lowest_bit are plain Python (for NUMBA_DISABLE_JIT) and compile to
# the CPU's popcnt / tzcnt instructions inside kernels.
def popcount(x):
    """Number of set bits of a non-negative integer mask."""
    return bin(int(x)).count("1")


def lowest_bit(x):
    """Index of the lowest set bit of a non-zero integer mask."""
    x = int(x)
    return (x & -x).bit_length() - 1


@_intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@_intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], _ir.Constant(_ir.IntType(1), 0))
    return x(x), codegen


@_overload(popcount, inline='always')
def _popcount_jit(x):
    return lambda x: _ctpop(x)


@_overload(lowest_bit, inline='always')
def _lowest_bit_jit(x):
    return lambda x: _cttz(x)


@njit(cache=True, inline='always')
def nth_bit(m, j):
    """Index of the ``j``-th lowest set bit of mask ``m`` (``j < popcount(m)``)."""
    for _ in range(j):
        m &= m - 1
    return lowest_bit(m)


def make_params(rules: RuleSet) -> np.ndarray:
    """Engine parameter vector: the rules plus the state layout offsets."""
    p = np.zeros(PARAMS_SIZE, np.int32)
    p[:P_SIZE] = rules.engine_params()
    # The pass region has rules.pass_count entries per seat (at least 1) even
    # when nobody passes in this game (p[P_PASS] == 0).
    layout = state_layout(rules.players, rules.hand_size, rules.pass_count)
    for _, field, off, _ in layout:
        p[field] = off
    p[L_STATE_SIZE] = layout[-1][2] + layout[-1][3]
    p.setflags(write=False)
    return p


# ------------------------------------------------------------ accessors
# Views of the state's regions (no copy; writing to a view writes the state).
# They compile inline, to the same code as the offset arithmetic they hide.
@njit(cache=True, inline='always')
def undealt(p, s):
    """int32[53]: copies of each card type not dealt yet."""
    return s[p[L_UNDEALT]:p[L_UNDEALT] + K]


@njit(cache=True, inline='always')
def hand(p, s, seat):
    """int32[53]: copies of each card type in ``seat``'s hand."""
    b = p[L_HANDS] + seat * K
    return s[b:b + K]


@njit(cache=True, inline='always')
def dealt_hand(p, s, seat):
    """int32[53]: the cards ``seat`` was dealt this hand."""
    b = p[L_DEALT_HANDS] + seat * K
    return s[b:b + K]


@njit(cache=True, inline='always')
def passed(p, s, seat):
    """int32[53]: the cards ``seat`` passed (chosen so far) this hand."""
    b = p[L_PASSED] + seat * K
    return s[b:b + K]


@njit(cache=True, inline='always')
def pass_choices(p, s, seat):
    """int32[max(1, pass count)]: ``seat``'s pass choices in order, -1 not made."""
    pcs = max(1, p[P_PASS])
    b = p[L_PASSSEQ] + seat * pcs
    return s[b:b + pcs]


@njit(cache=True, inline='always')
def kitty(p, s):
    """int32[53]: the kitty (R3 A; zeros without one)."""
    return s[p[L_KITTY]:p[L_KITTY] + K]


@njit(cache=True, inline='always')
def pot(p, s):
    """int32[53]: the cards set aside by void tricks (R8), not the kitty."""
    return s[p[L_POT]:p[L_POT] + K]


@njit(cache=True, inline='always')
def points(p, s):
    """int32[n]: the points each seat took this hand (R10, before the moon)."""
    return s[p[L_POINTS]:p[L_POINTS] + p[P_N]]


@njit(cache=True, inline='always')
def hand_points(p, s):
    """int32[n]: each seat's points for the last hand scored (moon rule applied)."""
    return s[p[L_HANDPTS]:p[L_HANDPTS] + p[P_N]]


@njit(cache=True, inline='always')
def scores(p, s):
    """int32[n]: each seat's score: the sum of its hands' points (R11)."""
    return s[p[L_SCORES]:p[L_SCORES] + p[P_N]]


@njit(cache=True, inline='always')
def trick_leaders(p, s):
    """int32[t]: the leader of each trick of this hand, -1 before it starts."""
    return s[p[L_TLEAD]:p[L_TLEAD] + p[P_HAND]]


@njit(cache=True, inline='always')
def trick_winners(p, s):
    """int32[t]: each trick's winner, or TW_NONE, TW_VOID, TW_DISCARDED (R7, R8)."""
    return s[p[L_TWIN]:p[L_TWIN] + p[P_HAND]]


@njit(cache=True, inline='always')
def trick_cards(p, s, t):
    """int32[n]: the card each seat played to trick ``t`` (by seat), -1 none yet."""
    b = p[L_TCARDS] + t * p[P_N]
    return s[b:b + p[P_N]]


@njit(cache=True, inline='always')
def all_trick_cards(p, s):
    """int32[t * n]: ``trick_cards`` of every trick, trick by trick."""
    return s[p[L_TCARDS]:p[L_TCARDS] + p[P_HAND] * p[P_N]]


@njit(cache=True, inline='always')
def suit_counts(p, s, seat):
    """int32[4]: cards of each suit (C D H S) in ``seat``'s hand."""
    b = p[L_SUITCNT] + seat * 4
    return s[b:b + 4]


@njit(cache=True)
def plays(p, s, seats, cards):
    """The cards played so far this hand, in order: ``(seat, card)`` into
    ``seats`` and ``cards`` (each at least ``n * t`` long); returns how many."""
    n = p[P_N]
    lead = trick_leaders(p, s)
    m = 0
    for t in range(p[P_HAND]):
        leader = lead[t]
        if leader < 0:
            break
        row = trick_cards(p, s, t)
        for i in range(n):
            q = (leader + i) % n
            c = row[q]
            if c < 0:
                break
            seats[m] = q
            cards[m] = c
            m += 1
    return m


@njit(cache=True, inline='always')
def deck(p):
    """int32[53]: copies of each card type in the deck (R3)."""
    return p[P_DECK:P_DECK + K]


@njit(cache=True, inline='always')
def card_points(p):
    """int32[53]: the scoring table of these rules, points of each card type (R10)."""
    return p[P_POINTS:P_POINTS + K]


def region(p, s, field):
    """The state region ``field`` (an ``L_*`` index) as a view, whole (Python only)."""
    n = int(p[P_N])
    size = dict((f, k) for _, f, _, k in state_layout(n, int(p[P_HAND]), 1))[field]
    if field == L_PASSSEQ:
        size = n * max(1, int(p[P_PASS]))
    return s[p[field]:p[field] + size]


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
def _led_suit(p, s):
    n = p[P_N]
    ld = s[S_LEADER]
    return SUIT_OF[s[p[L_TCARDS] + s[S_TRICK] * n + ld]]


@njit(cache=True, inline='always')
def play_constraint(p, s, player):
    """(constraint, argument) for the card ``player`` must play now (R6, R7, R9)."""
    sc = p[L_SUITCNT] + player * 4
    if s[S_TLEN] > 0:
        led = _led_suit(p, s)
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


# ---------------------------------------------------------------- validation
# Codes of ``validate`` (0 = consistent). Every check has its own code.
# Codes 1..V_FIRST_CROSS-1 check the range of one field, independently of every
# other field (so a single out-of-range value is reported by its own code);
# the codes from V_FIRST_CROSS check values that depend on the phase and the
# invariants that tie fields together. ``VALIDATE_ERRORS[code] = (NAME, what
# is allowed)``; ``VALIDATE_FIELD[code]`` is the scalar ``S_*`` index a range
# code is about (to print its value).
_VALIDATE_CHECKS = (
    # ---- ranges of the scalar fields
    ("SIZE", None, "the state vector must have this game's length (a state of other rules?)"),
    ("PHASE", S_PHASE, "S_PHASE must be 0 deal, 1 pass, 2 play, 3 moon choice or 4 over"),
    ("CUR", S_CUR, "S_CUR (player to move) must be -1 (chance), -4 (terminal) or a seat 0..n-1"),
    ("DEALT", S_DEALT, "S_DEALT (cards dealt) must be 0..the number of cards in the deck"),
    ("DEALER", S_DEALER, "S_DEALER must be a seat 0..n-1"),
    ("HANDNO", S_HANDNO, "S_HANDNO (hands scored) must be 0..max_hands (1 without a match)"),
    ("PASSOFF", S_PASSOFF, "S_PASSOFF (this hand's pass offset) must be 0..n-1"),
    ("NPASS", S_NPASS, "S_NPASS (pass choices made) must be 0..n * pass_count"),
    ("NPLAYED", S_NPLAYED, "S_NPLAYED (cards played this hand) must be 0..n * hand size"),
    ("TRICK", S_TRICK, "S_TRICK (tricks completed) must be 0..hand size"),
    ("LEADER", S_LEADER, "S_LEADER must be -1 (before play) or a seat 0..n-1"),
    ("TLEN", S_TLEN, "S_TLEN (cards in the current trick) must be 0..n-1"),
    ("BROKEN", S_BROKEN, "S_BROKEN (hearts broken) must be 0 or 1"),
    ("POTPTS", S_POTPTS, "S_POTPTS (points set aside) must lie between the points of the cards "
                         "worth less than 0 (jack_of_diamonds) and the penalty points in the deck"),
    ("POTN", S_POTN, "S_POTN (cards set aside) must be 0..the number of cards in the deck"),
    ("KITTY_IN_POT", S_KITTY_IN_POT, "S_KITTY_IN_POT must be 0 or 1 (always 0 without a kitty)"),
    ("SHOOTER", S_SHOOTER, "S_SHOOTER must be -1 (nobody shot the moon) or a seat 0..n-1"),
    ("VOIDS", S_VOIDS, "S_VOIDS (void tricks) must be 0..max_hands * hand size"),
    ("CANCELS", S_CANCELS, "S_CANCELS (cancelled pairs) must be 0..max_hands * hand size "
                           "* (n // 2)"),
    ("MOON_CHOICE", S_MOON_CHOICE, "S_MOON_CHOICE must be -1 (none or by rule), 0 (subtract) or "
                                   "1 (add)"),
    ("AARD_TRY", S_AARD_TRY, "S_AARD_TRY (tricks led with QS) must be 0..max_hands * hand size"),
    ("AARD_WIN", S_AARD_WIN, "S_AARD_WIN (QS led and another QS played) must be "
                             "0..max_hands * hand size"),
    ("POT_AT_LAST", S_POT_AT_LAST, "S_POT_AT_LAST (hands whose set-aside cards reached the last "
                                   "trick) must be 0..max_hands"),
    ("DISCARDED", S_DISCARDED, "S_DISCARDED (points discarded, R8 A) must lie between the points "
                               "of the cards worth less than 0 and the penalty points in the deck"),
    ("MOONS", S_MOONS, "S_MOONS (moons shot) must be 0..max_hands"),
    # ---- ranges of the array fields
    ("UNDEALT_RANGE", None, "undealt copies of each card type must be 0..its copies in the deck"),
    ("HANDS_RANGE", None, "copies of a card type in a hand must be 0..its copies in the deck"),
    ("DEALT_HANDS_RANGE", None, "copies of a card type dealt to a seat must be 0..its copies in "
                                "the deck"),
    ("PASSED_RANGE", None, "copies of a card type passed by a seat must be 0..its copies in the "
                           "deck"),
    ("KITTY_RANGE", None, "copies of a card type in the kitty must be 0..its copies in the deck"),
    ("POT_RANGE", None, "copies of a card type set aside must be 0..its copies in the deck"),
    ("POINTS_RANGE", None, "points taken this hand by a seat must lie between the points of the "
                           "cards worth less than 0 and the penalty points in the deck"),
    ("HANDPTS_RANGE", None, "a seat's points for one hand (moon rule applied) must lie in "
                            "RuleSet.hand_points_range()"),
    ("SCORES_RANGE", None, "a score must lie within max_hands times the range of one hand's "
                           "points"),
    ("TLEAD_RANGE", None, "a trick's leader must be -1 (not started) or a seat 0..n-1"),
    ("TWIN_RANGE", None, "a trick's winner must be a seat 0..n-1, -1 (not complete), "
                         "-2 (void) or -3 (discarded, R8 A)"),
    ("TCARDS_RANGE", None, "a card played to a trick must be -1 (none yet) or a card type of the "
                           "deck"),
    ("PASSSEQ_RANGE", None, "a pass choice must be -1 (not made) or a card type of the deck"),
    ("SUITCNT_RANGE", None, "a seat's count of one suit must be 0..hand size"),
    ("SCRATCH", None, "the scratch counters must be zero between kernel calls"),
    # ---- phase-dependent values and invariants across fields
    ("HANDNO_PHASE", S_HANDNO, "hands scored must be below max_hands while the game goes on "
                               "and at least 1 when it is over"),
    ("DEALER_HAND", S_DEALER, "the dealer of hand h must be seat (n - 1 + h) mod n (R11)"),
    ("PASSOFF_HAND", S_PASSOFF, "the pass offset must be pass_offset, mirrored in odd hands (R11)"),
    ("DEALT_PHASE", S_DEALT, "cards dealt must be below the deck size during the deal and the "
                             "whole deck after it"),
    ("NPASS_PHASE", S_NPASS, "pass choices must be 0 during the deal, below n * pass_count during "
                             "passing (only in a game with passing) and n * pass_count after it"),
    ("TRICK_PHASE", S_TRICK, "tricks completed must be 0 before play, below the hand size during "
                             "play and the hand size at the moon choice and the end"),
    ("TLEN_PHASE", S_TLEN, "a trick can only be in progress during play"),
    ("NPLAYED_PHASE", S_NPLAYED, "cards played must be n * tricks completed + cards in the "
                                 "current trick"),
    ("LEADER_PHASE", S_LEADER, "the leader must be -1 before play and a seat from the start of "
                               "play"),
    ("CUR_PHASE", S_CUR, "the player to move must be chance during the deal, the next passer in "
                         "order (dealer's left first) during passing, (leader + cards in the "
                         "trick) mod n during play, the shooter at the moon choice, -4 at the end"),
    ("UNDEALT_PHASE", None, "the undealt cards must number the deck size minus the cards dealt"),
    ("DEALT_HANDS", None, "each seat must have been dealt the number of cards R4 gives it so far"),
    ("KITTY_SIZE", None, "the kitty must hold the cards dealt beyond n * hand size"),
    ("PASS_SEQ", None, "pass choices must be made seat by seat from the dealer's left: exactly "
                       "the first S_NPASS of them filled"),
    ("PASSED", None, "the cards passed by each seat must be its pass choices"),
    ("TRICK_CARDS", None, "completed tricks must hold one card from every seat, the current trick "
                          "one from each seat from the leader on, later tricks none"),
    ("TRICK_LEADS", None, "started tricks must name their leader, later tricks -1"),
    ("LEADER_CHAIN", S_LEADER, "the first trick must be led by the holder of the opening card "
                               "(R6 B) or the dealer's left (R6 A), each later trick by the "
                               "previous winner (the same leader after a void trick, R8)"),
    ("TRICK_WINNERS", None, "each completed trick must record its winner (R7), -2 if void "
                            "(R8), the leader or -3 for a void last trick (R8 B / A), and -1 "
                            "for tricks not completed"),
    ("POT", None, "the set-aside cards must be exactly those of the void tricks since a trick "
                  "was last taken (R8)"),
    ("POT_COUNTS", S_POTN, "S_POTN / S_POTPTS must count the set-aside cards and points, with "
                           "the kitty while nobody has taken it"),
    ("KITTY_IN_POT_PHASE", S_KITTY_IN_POT, "the kitty must be in the pot from the end of the deal "
                                           "until the first trick is taken"),
    ("POINTS", None, "points taken must be those of the tricks each seat won, with the "
                     "set-aside cards (R8, R9)"),
    ("DISCARDED_PHASE", S_DISCARDED, "discarded points must be those of a void last trick under "
                                     "R8 A, else 0"),
    ("BROKEN_PLAYED", S_BROKEN, "hearts are broken exactly when a heart or QS has been played "
                                "this hand (R9)"),
    ("CONSERVATION", None, "every card type must be conserved: undealt + hands + passes "
                                   "in flight + kitty + played = the deck"),
    ("HANDS_CONTENT", None, "each hand must be its dealt cards, less its passes, plus the cards "
                            "received once passing is over, less the cards it played"),
    ("SUITCNT", None, "the suit counts must agree with the hands"),
    ("SHOOTER_PHASE", S_SHOOTER, "the shooter must be the seat that took every point card, known "
                                 "only once the tricks are over (and present at a moon choice)"),
    ("MOON_CHOICE_PHASE", S_MOON_CHOICE, "a moon choice (0/1) exists only at the end of a hand "
                                         "whose shooter chose (moon='choose'), else -1"),
    ("HANDPTS", None, "the last hand's points must be the points taken with the moon rule "
                      "(R10) at the end, and 0 before any hand is scored"),
    ("SCORES", None, "scores must be 0 before any hand is scored and the sum of the hands' "
                     "points (each within their range)"),
    ("MATCH_END", None, "the game ends when a score reaches target_score or max_hands hands "
                        "are played (R11), and not before"),
    ("VOIDS_COUNT", S_VOIDS, "S_VOIDS must count this hand's void tricks plus at most hand size "
                             "per earlier hand"),
    ("CANCELS_COUNT", S_CANCELS, "S_CANCELS must count this hand's cancelled pairs plus at most "
                                 "hand size * (n // 2) per earlier hand"),
    ("AARD_TRY_COUNT", S_AARD_TRY, "S_AARD_TRY must count this hand's tricks led with QS plus "
                                   "at most hand size per earlier hand"),
    ("AARD_WIN_COUNT", S_AARD_WIN, "S_AARD_WIN must count this hand's QS leads met by another QS "
                                   "plus at most hand size per earlier hand, and not exceed "
                                   "S_AARD_TRY"),
    ("POT_AT_LAST_COUNT", S_POT_AT_LAST, "S_POT_AT_LAST must count whether this hand's set-aside "
                                         "cards reached the last trick plus at most 1 per "
                                         "earlier hand"),
    ("MOONS_COUNT", S_MOONS, "S_MOONS must count a moon shot in this (scored) hand plus at most 1 "
                             "per earlier hand"),
)

(V_SIZE, V_PHASE, V_CUR, V_DEALT, V_DEALER, V_HANDNO, V_PASSOFF, V_NPASS, V_NPLAYED,
 V_TRICK, V_LEADER, V_TLEN, V_BROKEN, V_POTPTS, V_POTN, V_KITTY_IN_POT, V_SHOOTER, V_VOIDS,
 V_CANCELS, V_MOON_CHOICE, V_AARD_TRY, V_AARD_WIN, V_POT_AT_LAST, V_DISCARDED, V_MOONS,
 V_UNDEALT_RANGE, V_HANDS_RANGE, V_DEALT_HANDS_RANGE, V_PASSED_RANGE, V_KITTY_RANGE,
 V_POT_RANGE, V_POINTS_RANGE, V_HANDPTS_RANGE, V_SCORES_RANGE, V_TLEAD_RANGE, V_TWIN_RANGE,
 V_TCARDS_RANGE, V_PASSSEQ_RANGE, V_SUITCNT_RANGE, V_SCRATCH, V_HANDNO_PHASE, V_DEALER_HAND,
 V_PASSOFF_HAND, V_DEALT_PHASE, V_NPASS_PHASE, V_TRICK_PHASE, V_TLEN_PHASE, V_NPLAYED_PHASE,
 V_LEADER_PHASE, V_CUR_PHASE, V_UNDEALT_PHASE, V_DEALT_HANDS, V_KITTY_SIZE, V_PASS_SEQ,
 V_PASSED, V_TRICK_CARDS, V_TRICK_LEADS, V_LEADER_CHAIN, V_TRICK_WINNERS, V_POT,
 V_POT_COUNTS, V_KITTY_IN_POT_PHASE, V_POINTS, V_DISCARDED_PHASE, V_BROKEN_PLAYED,
 V_CONSERVATION, V_HANDS_CONTENT, V_SUITCNT, V_SHOOTER_PHASE, V_MOON_CHOICE_PHASE,
 V_HANDPTS, V_SCORES, V_MATCH_END, V_VOIDS_COUNT, V_CANCELS_COUNT, V_AARD_TRY_COUNT,
 V_AARD_WIN_COUNT, V_POT_AT_LAST_COUNT, V_MOONS_COUNT) = range(1, len(_VALIDATE_CHECKS) + 1)
V_FIRST_CROSS = V_HANDNO_PHASE
VALIDATE_ERRORS = {i + 1: (name, text) for i, (name, _, text) in enumerate(_VALIDATE_CHECKS)}
VALIDATE_FIELD = {i + 1: field for i, (_, field, _) in enumerate(_VALIDATE_CHECKS)
                  if field is not None}
assert all(globals()["V_" + name] == code for code, (name, _) in VALIDATE_ERRORS.items())


@njit(cache=True, inline='always')
def _hand_points_bounds(p):
    """(lo, hi): the points one seat can end one hand with (RuleSet.hand_points_range)."""
    tp = np.int64(p[P_PENALTY_PTS])
    mp = np.int64(p[P_MOON_PTS])
    mode = p[P_MOON]
    lo = np.int64(0)
    hi = tp
    if mode == MOON_SUBTRACT or mode == MOON_BOTH or mode == MOON_CHOOSE:
        lo = min(lo, tp - mp)
    if mode == MOON_ADD or mode == MOON_BOTH or mode == MOON_CHOOSE:
        hi = max(hi, mp)
    return lo + p[P_BONUS_PTS], hi


@njit(cache=True)
def _check_fields(p, s):
    """Stage 1 of ``validate``: the range of every field on its own."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    nc = np.int64(p[P_NCARDS])
    pc = np.int64(p[P_PASS])
    kit = np.int64(p[P_KITTY])
    tp = np.int64(p[P_PENALTY_PTS])
    bp = np.int64(p[P_BONUS_PTS])
    mh = np.int64(p[P_MAX_HANDS])
    und, hnd, dlt, psd = p[L_UNDEALT], p[L_HANDS], p[L_DEALT_HANDS], p[L_PASSED]
    kty, pot, pts, hpts, scr = p[L_KITTY], p[L_POT], p[L_POINTS], p[L_HANDPTS], p[L_SCORES]
    tl, tw, tc, seq, sc = p[L_TLEAD], p[L_TWIN], p[L_TCARDS], p[L_PASSSEQ], p[L_SUITCNT]
    pcs = max(np.int64(1), pc)
    if s.shape[0] != p[L_STATE_SIZE]:
        return V_SIZE
    ph = s[S_PHASE]
    if ph < PH_DEAL or ph > PH_OVER:
        return V_PHASE
    cur = s[S_CUR]
    if not (cur == CHANCE or cur == TERMINAL or (cur >= 0 and cur < n)):
        return V_CUR
    if s[S_DEALT] < 0 or s[S_DEALT] > nc:
        return V_DEALT
    if s[S_DEALER] < 0 or s[S_DEALER] >= n:
        return V_DEALER
    if s[S_HANDNO] < 0 or s[S_HANDNO] > mh:
        return V_HANDNO
    if s[S_PASSOFF] < 0 or s[S_PASSOFF] >= n:
        return V_PASSOFF
    if s[S_NPASS] < 0 or s[S_NPASS] > n * pc:
        return V_NPASS
    if s[S_NPLAYED] < 0 or s[S_NPLAYED] > n * T:
        return V_NPLAYED
    if s[S_TRICK] < 0 or s[S_TRICK] > T:
        return V_TRICK
    if s[S_LEADER] < -1 or s[S_LEADER] >= n:
        return V_LEADER
    if s[S_TLEN] < 0 or s[S_TLEN] >= n:
        return V_TLEN
    if s[S_BROKEN] < 0 or s[S_BROKEN] > 1:
        return V_BROKEN
    if s[S_POTPTS] < bp or s[S_POTPTS] > tp:
        return V_POTPTS
    if s[S_POTN] < 0 or s[S_POTN] > nc:
        return V_POTN
    if s[S_KITTY_IN_POT] < 0 or s[S_KITTY_IN_POT] > (1 if kit > 0 else 0):
        return V_KITTY_IN_POT
    if s[S_SHOOTER] < -1 or s[S_SHOOTER] >= n:
        return V_SHOOTER
    per_match = mh * T
    if s[S_VOIDS] < 0 or s[S_VOIDS] > per_match:
        return V_VOIDS
    if s[S_CANCELS] < 0 or s[S_CANCELS] > per_match * (n // 2):
        return V_CANCELS
    if s[S_MOON_CHOICE] < -1 or s[S_MOON_CHOICE] > 1:
        return V_MOON_CHOICE
    if s[S_AARD_TRY] < 0 or s[S_AARD_TRY] > per_match:
        return V_AARD_TRY
    if s[S_AARD_WIN] < 0 or s[S_AARD_WIN] > per_match:
        return V_AARD_WIN
    if s[S_POT_AT_LAST] < 0 or s[S_POT_AT_LAST] > mh:
        return V_POT_AT_LAST
    if s[S_DISCARDED] < bp or s[S_DISCARDED] > tp:
        return V_DISCARDED
    if s[S_MOONS] < 0 or s[S_MOONS] > mh:
        return V_MOONS
    for c in range(K):
        if s[und + c] < 0 or s[und + c] > p[P_DECK + c]:
            return V_UNDEALT_RANGE
    for q in range(n):
        for c in range(K):
            if s[hnd + q * K + c] < 0 or s[hnd + q * K + c] > p[P_DECK + c]:
                return V_HANDS_RANGE
    for q in range(n):
        for c in range(K):
            if s[dlt + q * K + c] < 0 or s[dlt + q * K + c] > p[P_DECK + c]:
                return V_DEALT_HANDS_RANGE
    for q in range(n):
        for c in range(K):
            if s[psd + q * K + c] < 0 or s[psd + q * K + c] > p[P_DECK + c]:
                return V_PASSED_RANGE
    for c in range(K):
        if s[kty + c] < 0 or s[kty + c] > p[P_DECK + c]:
            return V_KITTY_RANGE
    for c in range(K):
        if s[pot + c] < 0 or s[pot + c] > p[P_DECK + c]:
            return V_POT_RANGE
    for q in range(n):
        if s[pts + q] < bp or s[pts + q] > tp:
            return V_POINTS_RANGE
    lo, hi = _hand_points_bounds(p)
    for q in range(n):
        if s[hpts + q] < lo or s[hpts + q] > hi:
            return V_HANDPTS_RANGE
    for q in range(n):
        if s[scr + q] < mh * lo or s[scr + q] > mh * hi:
            return V_SCORES_RANGE
    for u in range(T):
        if s[tl + u] < -1 or s[tl + u] >= n:
            return V_TLEAD_RANGE
    for u in range(T):
        if s[tw + u] < TW_DISCARDED or s[tw + u] >= n:
            return V_TWIN_RANGE
    for i in range(T * n):
        v = s[tc + i]
        if v != -1 and (v < 0 or v >= K or p[P_DECK + v] <= 0):
            return V_TCARDS_RANGE
    for i in range(n * pcs):
        v = s[seq + i]
        if v != -1 and (v < 0 or v >= K or p[P_DECK + v] <= 0):
            return V_PASSSEQ_RANGE
    for i in range(n * 4):
        if s[sc + i] < 0 or s[sc + i] > T:
            return V_SUITCNT_RANGE
    for c in range(K):
        if s[p[L_SCRATCH] + c] != 0:
            return V_SCRATCH

    return 0


@njit(cache=True)
def _check_deal_and_passes(p, s):
    """Stage 2 of ``validate`` (fields in range): phase-dependent values, the
    deal, the passes and the trick rows."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    nc = np.int64(p[P_NCARDS])
    pc = np.int64(p[P_PASS])
    mh = np.int64(p[P_MAX_HANDS])
    und, dlt, psd = p[L_UNDEALT], p[L_DEALT_HANDS], p[L_PASSED]
    kty = p[L_KITTY]
    tl, tw, tc, seq = p[L_TLEAD], p[L_TWIN], p[L_TCARDS], p[L_PASSSEQ]
    pcs = max(np.int64(1), pc)
    ph = s[S_PHASE]
    cur = s[S_CUR]
    over = ph == PH_OVER
    h = np.int64(s[S_HANDNO])
    if over:
        if h < 1:
            return V_HANDNO_PHASE
        hand = h - 1                  # the hand whose arrays the state still holds
    else:
        if h >= mh:
            return V_HANDNO_PHASE
        hand = h
    dealer = np.int64(s[S_DEALER])
    if dealer != (n - 1 + hand) % n:
        return V_DEALER_HAND
    off = np.int64(p[P_PASS_OFFSET])
    if hand % 2 == 1:
        off = (n - off) % n
    if s[S_PASSOFF] != off:
        return V_PASSOFF_HAND
    d = np.int64(s[S_DEALT])
    if (ph == PH_DEAL and d >= nc) or (ph != PH_DEAL and d != nc):
        return V_DEALT_PHASE
    npass = np.int64(s[S_NPASS])
    if ph == PH_DEAL:
        if npass != 0:
            return V_NPASS_PHASE
    elif ph == PH_PASS:
        if pc == 0 or npass >= n * pc:
            return V_NPASS_PHASE
    elif npass != n * pc:
        return V_NPASS_PHASE
    trick = np.int64(s[S_TRICK])
    tlen = np.int64(s[S_TLEN])
    if ph == PH_PLAY:
        if trick >= T:
            return V_TRICK_PHASE
    elif ph == PH_DEAL or ph == PH_PASS:
        if trick != 0:
            return V_TRICK_PHASE
    elif trick != T:
        return V_TRICK_PHASE
    if ph != PH_PLAY and tlen != 0:
        return V_TLEN_PHASE
    if s[S_NPLAYED] != trick * n + tlen:
        return V_NPLAYED_PHASE
    leader = np.int64(s[S_LEADER])
    if (ph == PH_DEAL or ph == PH_PASS) != (leader < 0):
        return V_LEADER_PHASE
    sh = np.int64(s[S_SHOOTER])
    if ph == PH_DEAL:
        ok = cur == CHANCE
    elif ph == PH_PASS:
        ok = cur == (dealer + 1 + npass // pc) % n
    elif ph == PH_PLAY:
        ok = cur == (leader + tlen) % n
    elif ph == PH_MOON:
        ok = sh >= 0 and cur == sh
    else:
        ok = cur == TERMINAL
    if not ok:
        return V_CUR_PHASE

    # The deal (R4): clockwise from the dealer's left, the kitty last.
    left = np.int64(0)
    for c in range(K):
        left += s[und + c]
    if left != (nc - d if ph == PH_DEAL else 0):
        return V_UNDEALT_PHASE
    m = min(d, n * T)
    for q in range(n):
        o = (q - dealer - 1 + n) % n
        cnt = np.int64(0)
        for c in range(K):
            cnt += s[dlt + q * K + c]
        if cnt != m // n + (1 if o < m % n else 0):
            return V_DEALT_HANDS
    cnt = np.int64(0)
    for c in range(K):
        cnt += s[kty + c]
    if cnt != max(np.int64(0), d - n * T):
        return V_KITTY_SIZE

    # The passes (R5): seat order o from the dealer's left chooses pc cards in turn.
    count = np.zeros(K, np.int64)
    for q in range(n):
        o = (q - dealer - 1 + n) % n
        for j in range(pcs):
            v = s[seq + q * pcs + j]
            if (pc > 0 and o * pc + j < npass) != (v >= 0):
                return V_PASS_SEQ
            if v >= 0:
                count[v] += 1
        for c in range(K):
            if s[psd + q * K + c] != count[c]:
                return V_PASSED
            count[c] = 0

    # The trick rows.
    for u in range(T):
        for q in range(n):
            if u < trick:
                filled = True
            elif u == trick and ph == PH_PLAY:
                filled = (q - leader + n) % n < tlen
            else:
                filled = False
            if filled != (s[tc + u * n + q] >= 0):
                return V_TRICK_CARDS
        if u < trick:
            ok = s[tl + u] >= 0
        elif u == trick and ph == PH_PLAY and tlen > 0:
            ok = s[tl + u] == leader
        else:
            ok = s[tl + u] == -1
        if not ok:
            return V_TRICK_LEADS
        if u >= trick and s[tw + u] != TW_NONE:
            return V_TRICK_WINNERS

    return 0


@njit(cache=True)
def _check_play(p, s, exact_hands):
    """Stage 3 of ``validate`` (stages 1-2 passed): the tricks replayed, the
    hands, the moon, the scores and the counters. ``exact_hands`` False
    (``validate_determinization``): a hand need only have the right size."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    pc = np.int64(p[P_PASS])
    kit = np.int64(p[P_KITTY])
    tp = np.int64(p[P_PENALTY_PTS])
    mh = np.int64(p[P_MAX_HANDS])
    und, hnd, dlt, psd = p[L_UNDEALT], p[L_HANDS], p[L_DEALT_HANDS], p[L_PASSED]
    kty, pot, pts, hpts, scr = p[L_KITTY], p[L_POT], p[L_POINTS], p[L_HANDPTS], p[L_SCORES]
    tl, tw, tc, sc = p[L_TLEAD], p[L_TWIN], p[L_TCARDS], p[L_SUITCNT]
    ph = s[S_PHASE]
    over = ph == PH_OVER
    h = np.int64(s[S_HANDNO])
    hand = h - 1 if over else h
    dealer = np.int64(s[S_DEALER])
    off = np.int64(s[S_PASSOFF])
    trick = np.int64(s[S_TRICK])
    tlen = np.int64(s[S_TLEN])
    leader = np.int64(s[S_LEADER])
    sh = np.int64(s[S_SHOOTER])
    lo, hi = _hand_points_bounds(p)
    count = np.zeros(K, np.int64)
    # Replay the completed tricks (R6-R9): leaders, winners, pot, points, counters.
    played = np.zeros(n * K, np.int64)
    potc = np.zeros(K, np.int64)
    taken = np.zeros(n, np.int64)
    kip = np.int64(1) if (kit > 0 and ph != PH_DEAL) else np.int64(0)
    pot_pts = np.int64(0)
    pot_n = np.int64(0)
    if kip == 1:
        for c in range(K):
            pot_pts += s[kty + c] * p[P_POINTS + c]
        pot_n = kit
    voids = cancels = atry = awin = plast = np.int64(0)
    discarded = np.int64(0)
    broken = np.int64(0)
    exp_leader = np.int64(-1)
    if ph != PH_DEAL and ph != PH_PASS:
        started = trick > 0 or tlen > 0
        l0 = np.int64(s[tl]) if started else leader
        if l0 < 0:
            return V_LEADER_CHAIN
        if p[P_FIRST_LEAD] == FIRST_LEAD_OPENING:
            oc = p[P_OPENING]
            if started:
                if s[tc + l0] != oc:
                    return V_LEADER_CHAIN
            elif s[hnd + l0 * K + oc] <= 0:
                return V_LEADER_CHAIN
        elif l0 != (dealer + 1) % n:
            return V_LEADER_CHAIN
        exp_leader = l0
    for u in range(trick):
        ld = np.int64(s[tl + u])
        if ld != exp_leader:
            return V_LEADER_CHAIN
        base = tc + u * n
        led = SUIT_OF[s[base + ld]]
        for q in range(n):
            count[s[base + q]] += 1
        winner = np.int64(-1)
        best_order = -1
        tpts = np.int64(0)
        for q in range(n):
            c = s[base + q]
            tpts += p[P_POINTS + c]
            k = count[c]
            if k > 1:                     # R7: identical cards cancel
                cancels += k // 2
                count[c] = -k
                continue
            if k < 0:
                continue
            if SUIT_OF[c] == led and ORDER_OF[c] > best_order:
                best_order = ORDER_OF[c]
                winner = q
        for q in range(n):
            count[s[base + q]] = 0
        if s[base + ld] == QS:
            atry += 1
            for q in range(n):
                if q != ld and s[base + q] == QS:
                    awin += 1
                    break
        last = u == T - 1
        if last and pot_n - kit * kip > 0:
            plast += 1
        expect = winner
        if winner < 0:
            voids += 1
            if last:
                if p[P_VOID_LAST] == VOID_LEADER:        # R8 B
                    winner = ld
                    expect = ld
                else:                                   # R8 A
                    discarded = tpts + pot_pts
                    expect = TW_DISCARDED
                    pot_pts = 0
                    pot_n = 0
                    kip = 0
                    potc[:] = 0
            else:                                       # R8: set aside
                expect = TW_VOID
                for q in range(n):
                    potc[s[base + q]] += 1
                pot_pts += tpts
                pot_n += n
        if winner >= 0:
            taken[winner] += tpts + pot_pts
            if pot_n > 0:
                pot_pts = 0
                pot_n = 0
                kip = 0
                potc[:] = 0
        if s[tw + u] != expect:
            return V_TRICK_WINNERS
        exp_leader = winner if winner >= 0 else ld
    if ph != PH_DEAL and ph != PH_PASS and leader != exp_leader:
        return V_LEADER_CHAIN
    for u in range(min(trick + 1, T)):
        for q in range(n):
            c = s[tc + u * n + q]
            if c >= 0:
                played[q * K + c] += 1
                if SUIT_OF[c] == HEARTS or c == QS:
                    broken = 1
    for c in range(K):
        if s[pot + c] != potc[c]:
            return V_POT
    if s[S_POTN] != pot_n or s[S_POTPTS] != pot_pts:
        return V_POT_COUNTS
    if s[S_KITTY_IN_POT] != kip:
        return V_KITTY_IN_POT_PHASE
    for q in range(n):
        if s[pts + q] != taken[q]:
            return V_POINTS
    if s[S_DISCARDED] != discarded:
        return V_DISCARDED_PHASE
    if s[S_BROKEN] != broken:
        return V_BROKEN_PLAYED

    # Cards: conservation, then each hand exactly, then the suit counts.
    in_flight = ph == PH_PASS
    for c in range(K):
        tot = np.int64(s[und + c] + s[kty + c])
        for q in range(n):
            tot += s[hnd + q * K + c] + played[q * K + c]
            if in_flight:
                tot += s[psd + q * K + c]
        if tot != p[P_DECK + c]:
            return V_CONSERVATION
    received = ph != PH_DEAL and ph != PH_PASS and pc > 0
    for q in range(n):
        giver = (q - off + n) % n
        size = np.int64(0)
        for c in range(K):
            e = s[dlt + q * K + c] - s[psd + q * K + c] - played[q * K + c]
            if received:
                e += s[psd + giver * K + c]
            if exact_hands and s[hnd + q * K + c] != e:
                return V_HANDS_CONTENT
            size += e - s[hnd + q * K + c]
        if size != 0:
            return V_HANDS_CONTENT
    for q in range(n):
        for su in range(4):
            cnt = 0
            for c in range(K):
                if SUIT_OF[c] == su:
                    cnt += s[hnd + q * K + c]
            if cnt != s[sc + q * 4 + su]:
                return V_SUITCNT

    # The moon (R10) and the scores (R11).
    mode = p[P_MOON]
    exp_sh = np.int64(-1)
    if (ph == PH_MOON or over) and mode != MOON_OFF and tp > 0:
        for q in range(n):
            if taken[q] - bonus_taken(p, s, q) == tp:
                exp_sh = q
    if sh != exp_sh or (ph == PH_MOON and mode != MOON_CHOOSE):
        return V_SHOOTER_PHASE
    choice = s[S_MOON_CHOICE]
    if over and sh >= 0 and mode == MOON_CHOOSE:
        if choice != 0 and choice != 1:
            return V_MOON_CHOICE_PHASE
    elif choice != -1:
        return V_MOON_CHOICE_PHASE
    if over:
        mp = np.int64(p[P_MOON_PTS])
        sub = mode == MOON_SUBTRACT or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 0)
        add = mode == MOON_ADD or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 1)
        for q in range(n):
            e = taken[q]
            if sh >= 0:
                if q == sh:
                    if sub:
                        e -= mp
                elif add:
                    e += mp
            if s[hpts + q] != e:
                return V_HANDPTS
    elif h == 0:
        for q in range(n):
            if s[hpts + q] != 0:
                return V_HANDPTS
    best = np.int64(-(2 ** 62))
    for q in range(n):
        sq = np.int64(s[scr + q])
        if h == 0:
            if sq != 0:
                return V_SCORES
        else:
            rest = sq - s[hpts + q]
            if sq < h * lo or sq > h * hi or rest < (h - 1) * lo or rest > (h - 1) * hi:
                return V_SCORES
        best = max(best, sq)
    target = np.int64(p[P_TARGET])
    if over:
        if not (target <= 0 or best >= target or h >= mh):
            return V_MATCH_END
    elif h >= 1 and not (target > 0 and best < target):
        return V_MATCH_END
    prior = hand
    if s[S_VOIDS] < voids or s[S_VOIDS] > voids + prior * T:
        return V_VOIDS_COUNT
    if s[S_CANCELS] < cancels or s[S_CANCELS] > cancels + prior * T * (n // 2):
        return V_CANCELS_COUNT
    if s[S_AARD_TRY] < atry or s[S_AARD_TRY] > atry + prior * T:
        return V_AARD_TRY_COUNT
    if (s[S_AARD_WIN] < awin or s[S_AARD_WIN] > awin + prior * T
            or s[S_AARD_WIN] > s[S_AARD_TRY]):
        return V_AARD_WIN_COUNT
    if s[S_POT_AT_LAST] < plast or s[S_POT_AT_LAST] > plast + prior:
        return V_POT_AT_LAST_COUNT
    moons = np.int64(1) if (over and sh >= 0) else np.int64(0)
    if s[S_MOONS] < moons or s[S_MOONS] > moons + prior:
        return V_MOONS_COUNT
    return 0


@njit(cache=True)
def validate(p, s, exact_hands=True):
    """0 if ``s`` is a consistent state for rules ``p``, else the code of the
    first failed check (``VALIDATE_ERRORS[code]`` names it and says what is
    allowed). Read-only; never indexes with a value it has not range-checked.

    First the range of every field on its own (codes below ``V_FIRST_CROSS``),
    then the phase and every invariant across fields: the dealer, pass offset
    and counters of the hand; the deal order (R4); the pass choices in order
    (R5); the trick rows and leaders (R6, R8); each completed trick's winner,
    the set-aside pot and every seat's points, replayed from the tricks (R7-R9);
    each hand = dealt - passed + received - played, the suit counts,
    conservation of every card type; the shooter, moon choice and hand points
    (R10); scores and the end of a match (R11); the match counters.
    ``exact_hands=False``: see ``validate_determinization``.
    """
    code = _check_fields(p, s)
    if code == 0:
        code = _check_deal_and_passes(p, s)
    if code == 0:
        code = _check_play(p, s, exact_hands)
    return code


def validate_determinization(p, s):
    """``validate`` for the engine states a search draws (``spiel_game.determinize.Determinizer``):
    the hidden hands are redrawn without a history, so each hand is checked for
    its size only, not against the cards its seat was dealt and passed."""
    return validate(p, s, False)


def validate_message(p, s) -> str:
    """'' if ``validate(p, s) == 0``, else a sentence naming the failed check,
    what is allowed and (for a scalar field) the value found."""
    code = int(validate(p, s))
    if code == 0:
        return ""
    name, text = VALIDATE_ERRORS[code]
    msg = f"consistency check {code} {name} failed: {text}"
    field = VALIDATE_FIELD.get(code)
    if field is not None and field < s.shape[0]:
        msg += f" (found {int(s[field])})"
    return msg
