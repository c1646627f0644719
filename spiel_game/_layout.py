"""The engine's state vector: its layout, the rules vector and the region accessors.

The state of a game is one ``int32`` vector ``s``: the scalars at fixed indices
``S_<name>``, then the regions, whose offsets ``p[L_<name>]`` the rules vector
``p`` (:func:`make_params`) carries after the rules. The tables
:data:`STATE_SCALARS` and :data:`STATE_REGIONS` generate both; the accessors
(``hand(p, s, seat)``, ``trick_cards(p, s, t)``, ...) read the regions. All of
it is part of the kernel API of :mod:`spiel_game._engine`, which imports it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import cards as C
from ._rules import P_N, P_HAND, P_PASS, P_DECK, P_POINTS, P_SIZE, RuleSet

__all__ = ["STATE_SCALARS", "STATE_REGIONS", "S_NSCALARS", "L_STATE_SIZE", "PARAMS_SIZE",
           "state_layout", "format_state_layout", "make_params", "undealt", "hand",
           "dealt_hand", "passed", "pass_choices", "kitty", "pot", "points", "hand_points",
           "scores", "trick_leaders", "trick_winners", "trick_cards", "all_trick_cards",
           "suit_counts", "plays", "deck", "card_points", "region"]

K = C.NUM_CARD_TYPES          # 53 card types


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

