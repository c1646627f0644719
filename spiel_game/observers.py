"""Information-state and observation tensors and strings, from named pieces.

``CancellationHeartsGame.make_py_observer`` returns :func:`make_observer`'s
observer, in the pattern of OpenSpiel's ``KuhnPokerObserver``: one flat
``float32`` buffer ``tensor``, named reshaped views of it in ``dict``,
``set_from(state, player)`` and ``string_from(state, player)``.

The layout is a list of named pieces ``(name, shape)`` chosen from the rules and
the ``IIGObservationType``; :func:`tensor_layout` and :func:`format_layout`
print it, so no offset is ever written by hand. Conventions:

* Seats are *relative* to the observer: relative seat ``(q - player) mod n``
  (0 = the observer, 1 = the player on the left, ...). The public view
  (``private_info=NONE``) is the same for every player and uses absolute seats.
* ``K = 53`` card types; ``M`` = most copies of one card in the deck. A
  multiset of cards is a thermometer ``(K, M)``: ``[c, j] = 1`` iff it holds
  more than ``j`` copies of card ``c``. A single card is a one-hot over ``K``.
* ``T`` = tricks per hand, ``pc`` = cards passed per player (0: no passing).
* The kitty (R3 A) is face down until taken; this model turns it face up once
  the winner of a trick takes it (``kitty_taken``).
* Passing is a simultaneous choice (R5): a player never observes how far the
  others have got with choosing their cards.
* Cards are picked up when the deal is complete: during the deal every view
  shows only how many cards have been dealt (``deal_progress``). Nobody acts
  during the deal, and so the order in which one's own cards arrived need not
  be remembered for perfect recall (OpenSpiel's ``InfostateTree`` checks it).

Views (``perfect_recall`` x ``private_info``, ``public_info=True``):

* information state (``perfect_recall=True``): the whole hand as seen by the
  player: own deal, own passes in order, received cards, every trick by
  relative seat with its result. In a match (``target_score > 0``) the tensor
  covers the current hand plus scores; the *string* also lists what the player
  saw in the previous hands (replayed from ``state.history()``).
* observation (``perfect_recall=False``, the default): a Markov summary: own
  hand, cards passed and received, current trick, copies of each card played,
  the suits each player has shown void in, points, pot, player to move.
* ``private_info=SINGLE_PLAYER`` (default): the observer's own cards;
  ``NONE``: public pieces only; ``ALL_PLAYERS``: every player's dealt hand,
  passes and hand (``(n, ...)`` by relative seat) and the kitty.
* ``public_info=False``: the private pieces only (seat, dealt hand, passes,
  received cards; per seat and the kitty for ``ALL_PLAYERS``).

Hot loops: :meth:`CancellationHeartsObserver.set_from` is one compiled kernel
over the engine vectors (``state._s``, ``state._P``).
"""

from __future__ import annotations

import numpy as np
import pyspiel
from numba import njit

from . import cards as C
from . import _engine as E
from . import _rules as R

__all__ = ["CancellationHeartsObserver", "make_observer", "tensor_layout",
           "format_layout", "INFO_STATE_OBS_TYPE", "OBSERVATION_OBS_TYPE",
           "PUBLIC_OBS_TYPE"]

K = E.K
_NUM_SUITS = 4

#: The information-state view (what ``state.information_state_tensor`` uses).
INFO_STATE_OBS_TYPE = pyspiel.IIGObservationType(perfect_recall=True)
#: The default observation view.
OBSERVATION_OBS_TYPE = pyspiel.IIGObservationType(perfect_recall=False)
#: The public view (no private information), with perfect recall.
PUBLIC_OBS_TYPE = pyspiel.IIGObservationType(
    perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)

_PHASE_NAMES = ("deal", "pass", "play", "moon", "over")

# Piece ids: the kernel fills piece ``pid`` at ``offsets[pid]`` (-1: absent).
(_SEAT, _DEALER, _PASS_OFFSET, _PHASE, _DEAL_PROGRESS, _DEALT, _PASSED_SEQ,
 _RECEIVED, _HAND, _TRICK_LEADER, _TRICK_CARDS, _TRICK_RESULT, _POT, _KITTY,
 _POINTS, _BROKEN, _KITTY_TAKEN, _MOON_PENDING, _MOON_CHOICE, _SCORES,
 _HAND_NUMBER, _PASSED_SET, _CUR_TRICK, _LEADER, _PLAYED, _VOIDS, _TO_MOVE,
 _DEALT_ALL, _PASSED_SEQ_ALL, _HANDS_ALL, _PASSED_SET_ALL, _KITTY_ALL) = range(32)
_NUM_PIDS = 32

#: What each piece holds (printed by :func:`format_layout`). "seat" entries are
#: relative to the observer (absolute in the public view); card sets are thermometers.
_MEANING = {
    _SEAT: "observer's own seat (absolute, one-hot)",
    _DEALER: "dealer's seat",
    _PASS_OFFSET: "this hand's pass offset (one-hot; zeros if no passing)",
    _PHASE: "deal, pass, play, moon choice, over (one-hot)",
    _DEAL_PROGRESS: "cards dealt / cards in the deck",
    _DEALT: "own cards as dealt (after the deal)",
    _PASSED_SEQ: "own passes, in the order chosen (one card each)",
    _RECEIVED: "cards received (once all passing is over)",
    _HAND: "own current hand",
    _TRICK_LEADER: "leader's seat of each trick so far",
    _TRICK_CARDS: "card played by each seat to each trick so far",
    _TRICK_RESULT: "winner's seat, or [n] void, or [n+1] discarded (R8)",
    _POT: "cards set aside by void tricks (R8)",
    _KITTY: "kitty cards, face up once taken (R3 A)",
    _POINTS: "points taken this hand by each seat / points in the deck",
    _BROKEN: "hearts broken (R9)",
    _KITTY_TAKEN: "kitty has left the pot (taken, or discarded by R8 A)",
    _MOON_PENDING: "observer shot the moon and must choose (R10)",
    _MOON_CHOICE: "the shooter's choice this hand: subtract, add",
    _SCORES: "match score of each seat / target score",
    _HAND_NUMBER: "hands completed / max hands",
    _PASSED_SET: "own passed cards",
    _CUR_TRICK: "card played by each seat to the current trick",
    _LEADER: "leader's seat of the current trick",
    _PLAYED: "copies of each card played this hand",
    _VOIDS: "suits (CDHS) each seat has failed to follow this hand",
    _TO_MOVE: "seat to move",
    _DEALT_ALL: "each seat's cards as dealt (after the deal)",
    _PASSED_SEQ_ALL: "each seat's passes, in the order chosen",
    _HANDS_ALL: "each seat's current hand",
    _PASSED_SET_ALL: "each seat's passed cards",
    _KITTY_ALL: "kitty cards (after the deal)",
}


# ------------------------------------------------------------------ layout
def _obs_type(iig_obs_type):
    """(perfect_recall, public_info, private_info) with None = default observation."""
    if iig_obs_type is None:
        return False, True, pyspiel.PrivateInfoType.SINGLE_PLAYER
    return (bool(iig_obs_type.perfect_recall), bool(iig_obs_type.public_info),
            iig_obs_type.private_info)


def _pieces(rules, iig_obs_type):
    """The layout as ``[(name, shape, pid)]``, in tensor order."""
    recall, public, private = _obs_type(iig_obs_type)
    PI = pyspiel.PrivateInfoType
    if private not in (PI.NONE, PI.SINGLE_PLAYER, PI.ALL_PLAYERS):
        raise ValueError(f"unknown private_info {private!r}")
    if not public and private == PI.NONE:
        raise ValueError(
            "python_cancellation_hearts: an observation with public_info=False and "
            "private_info=NONE would be empty; supported: public_info=True with "
            "private_info NONE, SINGLE_PLAYER or ALL_PLAYERS (perfect_recall True or "
            "False), or public_info=False with SINGLE_PLAYER or ALL_PLAYERS "
            "(the private pieces only)")
    n, T, kitty = rules.players, rules.hand_size, rules.kitty_size > 0
    M = max(rules.deck_counts)
    pc = rules.pass_count if rules.passes else 0
    single, every = private == PI.SINGLE_PLAYER, private == PI.ALL_PLAYERS
    cards = (K, M)
    out = []

    def add(name, shape, pid):
        out.append((name, tuple(int(x) for x in shape), pid))

    if not public:                       # the private pieces only
        add("seat", (n,), _SEAT)
        if single:
            add("dealt_hand", cards, _DEALT)
            if pc:
                if recall:
                    add("passed", (pc, K), _PASSED_SEQ)
                else:
                    add("passed", cards, _PASSED_SET)
                add("received", cards, _RECEIVED)
        else:
            add("dealt_hands", (n,) + cards, _DEALT_ALL)
            if pc:
                if recall:
                    add("passed", (n, pc, K), _PASSED_SEQ_ALL)
                else:
                    add("passed", (n,) + cards, _PASSED_SET_ALL)
            if kitty:
                add("kitty", cards, _KITTY_ALL)
        return out

    if private != PI.NONE:
        add("seat", (n,), _SEAT)
    add("dealer", (n,), _DEALER)
    add("pass_offset", (n,), _PASS_OFFSET)
    add("phase", (len(_PHASE_NAMES),), _PHASE)
    add("deal_progress", (1,), _DEAL_PROGRESS)
    if recall:
        if single:
            add("dealt_hand", cards, _DEALT)
            if pc:
                add("passed", (pc, K), _PASSED_SEQ)
                add("received", cards, _RECEIVED)
            add("hand", cards, _HAND)
        elif every:
            add("dealt_hands", (n,) + cards, _DEALT_ALL)
            if pc:
                add("passed", (n, pc, K), _PASSED_SEQ_ALL)
            add("hands", (n,) + cards, _HANDS_ALL)
        add("trick_leader", (T, n), _TRICK_LEADER)
        add("trick_cards", (T, n, K), _TRICK_CARDS)
        add("trick_result", (T, n + 2), _TRICK_RESULT)
        add("pot", cards, _POT)
        if kitty:
            add("kitty", cards, _KITTY_ALL if every else _KITTY)
        add("points", (n,), _POINTS)
        add("hearts_broken", (1,), _BROKEN)
        if kitty:
            add("kitty_taken", (1,), _KITTY_TAKEN)
    else:
        if single:
            add("hand", cards, _HAND)
            if pc:
                add("passed", cards, _PASSED_SET)
                add("received", cards, _RECEIVED)
        elif every:
            add("hands", (n,) + cards, _HANDS_ALL)
            if pc:
                add("passed", (n,) + cards, _PASSED_SET_ALL)
        add("current_trick", (n, K), _CUR_TRICK)
        add("leader", (n,), _LEADER)
        add("played", cards, _PLAYED)
        add("voids", (n, _NUM_SUITS), _VOIDS)
        add("points", (n,), _POINTS)
        add("pot", cards, _POT)
        add("to_move", (n,), _TO_MOVE)
        add("hearts_broken", (1,), _BROKEN)
        if kitty:
            add("kitty_taken", (1,), _KITTY_TAKEN)
            add("kitty", cards, _KITTY_ALL if every else _KITTY)
    if private != PI.NONE:
        add("moon_pending", (1,), _MOON_PENDING)
    if rules.moon == "choose" and rules.penalty_points > 0:
        add("moon_choice", (2,), _MOON_CHOICE)
    if rules.is_match:
        add("scores", (n,), _SCORES)
        add("hand_number", (1,), _HAND_NUMBER)
    return out


def tensor_layout(game, iig_obs_type=None) -> list[tuple[str, int, tuple[int, ...]]]:
    """``[(name, offset, shape)]`` of the tensor of ``iig_obs_type`` (None: observation)."""
    layout, off = [], 0
    for name, shape, _ in _pieces(game.rules, iig_obs_type):
        layout.append((name, off, shape))
        off += int(np.prod(shape, dtype=np.int64))
    return layout


def _view_name(iig_obs_type) -> str:
    recall, public, private = _obs_type(iig_obs_type)
    kind = "information state" if recall else "observation"
    who = {pyspiel.PrivateInfoType.NONE: "public",
           pyspiel.PrivateInfoType.SINGLE_PLAYER: "own private",
           pyspiel.PrivateInfoType.ALL_PLAYERS: "every player's private"}[private]
    return f"{kind}, {who} info" + ("" if public else " only (no public info)")


def format_layout(game, iig_obs_type=None) -> str:
    """A printable table of :func:`tensor_layout`: name, offset, size, shape.

    ``iig_obs_type`` picks the view, as for ``game.make_py_observer``: None (the
    default) is the *observation* (``state.observation_tensor``);
    :data:`INFO_STATE_OBS_TYPE` the *information state*
    (``state.information_state_tensor``), the layout ``docs/game.md`` shows:
    ``format_layout(game, INFO_STATE_OBS_TYPE)``. Its second line names the view."""
    rows = tensor_layout(game, iig_obs_type)
    pids = [pid for _, _, pid in _pieces(game.rules, iig_obs_type)]
    total = sum(int(np.prod(s, dtype=np.int64)) for _, _, s in rows)
    seats = ("absolute seats" if _obs_type(iig_obs_type)[2] == pyspiel.PrivateInfoType.NONE
             else "seats relative to the observer")
    lines = [f"{game.rules.describe()}",
             f"view: {_view_name(iig_obs_type)}; {total} floats; {seats}",
             f"{'piece':<14} {'offset':>7} {'size':>6}  {'shape':<14} meaning"]
    for (name, off, shape), pid in zip(rows, pids):
        size = int(np.prod(shape, dtype=np.int64))
        lines.append(f"{name:<14} {off:>7} {size:>6}  {str(shape):<14} {_MEANING[pid]}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ kernel
@njit(cache=True, inline="always")
def _thermo(out, o, counts, M):
    """Thermometer of ``counts`` (int[53] copies of each card type) at ``out[o:]``."""
    for c in range(K):
        v = counts[c]
        if v > M:
            v = M
        for j in range(v):
            out[o + c * M + j] = 1.0


@njit(cache=True)
def fill_view(p, s, player, base, offs, out):
    """Write the pieces at ``offs[pid] >= 0`` of ``player``'s view into ``out``.

    ``base`` is the seat that relative seat 0 refers to (``player``, or 0 for
    the public view).
    """
    out[:] = 0.0
    n = p[R.P_N]
    T = p[R.P_HAND]
    M = p[R.P_MAX_COPIES]
    pc = p[R.P_PASS]
    ph = s[E.S_PHASE]
    deal_done = ph != E.PH_DEAL
    kitty_visible = p[R.P_KITTY] > 0 and deal_done and s[E.S_KITTY_IN_POT] == 0
    ntr = 0                     # tricks with a leader (the current one included)
    done = 0                    # completed tricks
    if ph == E.PH_PLAY:
        ntr = s[E.S_TRICK] + 1
        done = s[E.S_TRICK]
    elif ph == E.PH_MOON or ph == E.PH_OVER:
        ntr = T
        done = T
    tl = E.trick_leaders(p, s)
    tc = E.all_trick_cards(p, s)        # tc[t * n + seat]
    tw = E.trick_winners(p, s)

    o = offs[_SEAT]
    if o >= 0:
        out[o + player] = 1.0
    o = offs[_DEALER]
    if o >= 0:
        out[o + (s[E.S_DEALER] - base + n) % n] = 1.0
    o = offs[_PASS_OFFSET]
    if o >= 0 and pc > 0:
        out[o + s[E.S_PASSOFF]] = 1.0
    o = offs[_PHASE]
    if o >= 0:
        out[o + ph] = 1.0
    o = offs[_DEAL_PROGRESS]
    if o >= 0:
        out[o] = s[E.S_DEALT] / p[R.P_NCARDS]
    o = offs[_DEALT]
    if o >= 0 and deal_done:
        _thermo(out, o, E.dealt_hand(p, s, player), M)
    o = offs[_PASSED_SEQ]
    if o >= 0:
        seq = E.pass_choices(p, s, player)
        for i in range(pc):
            c = seq[i]
            if c >= 0:
                out[o + i * K + c] = 1.0
    o = offs[_RECEIVED]
    if o >= 0 and ph >= E.PH_PLAY and pc > 0:
        sender = (player - s[E.S_PASSOFF] + n) % n
        _thermo(out, o, E.passed(p, s, sender), M)
    o = offs[_HAND]
    if o >= 0 and deal_done:
        _thermo(out, o, E.hand(p, s, player), M)
    o = offs[_TRICK_LEADER]
    if o >= 0:
        for t in range(ntr):
            ld = tl[t] if t < done else s[E.S_LEADER]
            out[o + t * n + (ld - base + n) % n] = 1.0
    o = offs[_TRICK_CARDS]
    if o >= 0:
        for t in range(ntr):
            for q in range(n):
                c = tc[t * n + q]
                if c >= 0:
                    out[o + (t * n + (q - base + n) % n) * K + c] = 1.0
    o = offs[_TRICK_RESULT]
    if o >= 0:
        for t in range(done):
            w = tw[t]
            if w >= 0:
                out[o + t * (n + 2) + (w - base + n) % n] = 1.0
            elif w == E.TW_VOID:
                out[o + t * (n + 2) + n] = 1.0
            elif w == E.TW_DISCARDED:
                out[o + t * (n + 2) + n + 1] = 1.0
    o = offs[_POT]
    if o >= 0:
        _thermo(out, o, E.pot(p, s), M)
    o = offs[_KITTY]
    if o >= 0 and kitty_visible:
        _thermo(out, o, E.kitty(p, s), M)
    o = offs[_KITTY_ALL]
    if o >= 0 and deal_done:
        _thermo(out, o, E.kitty(p, s), M)
    o = offs[_POINTS]
    if o >= 0:
        tot = p[R.P_PENALTY_PTS]
        if tot < 1:
            tot = 1
        taken = E.points(p, s)
        for q in range(n):
            out[o + (q - base + n) % n] = taken[q] / tot
    o = offs[_BROKEN]
    if o >= 0:
        out[o] = s[E.S_BROKEN]
    o = offs[_KITTY_TAKEN]
    if o >= 0 and kitty_visible:
        out[o] = 1.0
    o = offs[_MOON_PENDING]
    if o >= 0 and ph == E.PH_MOON and s[E.S_SHOOTER] == player:
        out[o] = 1.0
    o = offs[_MOON_CHOICE]
    if o >= 0 and s[E.S_MOON_CHOICE] >= 0:
        out[o + s[E.S_MOON_CHOICE]] = 1.0
    o = offs[_SCORES]
    if o >= 0:
        sc = E.scores(p, s)
        for q in range(n):
            out[o + (q - base + n) % n] = sc[q] / p[R.P_TARGET]
    o = offs[_HAND_NUMBER]
    if o >= 0:
        out[o] = s[E.S_HANDNO] / p[R.P_MAX_HANDS]
    o = offs[_PASSED_SET]
    if o >= 0:
        _thermo(out, o, E.passed(p, s, player), M)
    o = offs[_CUR_TRICK]
    if o >= 0 and ph == E.PH_PLAY:
        t = s[E.S_TRICK]
        for q in range(n):
            c = tc[t * n + q]
            if c >= 0:
                out[o + ((q - base + n) % n) * K + c] = 1.0
    o = offs[_LEADER]
    if o >= 0 and ph == E.PH_PLAY:
        out[o + (s[E.S_LEADER] - base + n) % n] = 1.0
    o = offs[_PLAYED]
    if o >= 0:
        cnt = np.zeros(K, np.int32)
        for i in range(ntr * n):
            c = tc[i]
            if c >= 0:
                cnt[c] += 1
        _thermo(out, o, cnt, M)
    o = offs[_VOIDS]
    if o >= 0:
        for t in range(ntr):
            ld = tl[t]
            if ld < 0:
                continue
            led = E.SUIT_OF[tc[t * n + ld]]
            for q in range(n):
                c = tc[t * n + q]
                if c >= 0 and E.SUIT_OF[c] != led:
                    out[o + ((q - base + n) % n) * _NUM_SUITS + led] = 1.0
    o = offs[_TO_MOVE]
    if o >= 0 and (ph == E.PH_PASS or ph == E.PH_PLAY or ph == E.PH_MOON):
        out[o + (s[E.S_CUR] - base + n) % n] = 1.0
    o = offs[_DEALT_ALL]
    if o >= 0 and deal_done:
        for q in range(n):
            _thermo(out, o + ((q - base + n) % n) * K * M, E.dealt_hand(p, s, q), M)
    o = offs[_HANDS_ALL]
    if o >= 0 and deal_done:
        for q in range(n):
            _thermo(out, o + ((q - base + n) % n) * K * M, E.hand(p, s, q), M)
    o = offs[_PASSED_SET_ALL]
    if o >= 0:
        for q in range(n):
            _thermo(out, o + ((q - base + n) % n) * K * M, E.passed(p, s, q), M)
    o = offs[_PASSED_SEQ_ALL]
    if o >= 0:
        for q in range(n):
            r = (q - base + n) % n
            seq = E.pass_choices(p, s, q)
            for i in range(pc):
                c = seq[i]
                if c >= 0:
                    out[o + (r * pc + i) * K + c] = 1.0


# ------------------------------------------------------------------ strings
#: Card ids in the order of ``cards.cards_to_string`` (suit, then rank), and their names.
_TEXT_ORDER = np.array(sorted(range(K), key=lambda c: (int(C.SUIT_OF[c]), int(C.ORDER_OF[c]))))
_TEXT_NAMES = np.array([C.card_to_string(int(c)) for c in _TEXT_ORDER])
_NAMES = [C.card_to_string(c) for c in range(K)]
_SUIT = C.SUIT_OF.tolist()


def _cards(v) -> str:
    """``cards.cards_to_string(v)`` (a faster equivalent), or ``-`` when empty."""
    return " ".join(np.repeat(_TEXT_NAMES, v[_TEXT_ORDER]).tolist()) or "-"


def _seq(ids) -> str:
    """Card ids (``-1`` = none) in the given order."""
    if isinstance(ids, np.ndarray):
        ids = ids.tolist()
    return " ".join([_NAMES[c] for c in ids if c >= 0]) or "-"


class _Ctx:
    """What the text formatters read: one state seen by one player."""

    __slots__ = ("n", "T", "pc", "player", "ph", "s", "o", "ntr", "done", "kitty_visible",
                 "num_cards")

    def __init__(self, rules, p, s, player):
        self.n, self.T, self.num_cards = rules.players, rules.hand_size, rules.num_cards
        self.pc = int(p[R.P_PASS])
        self.player = player
        self.s = s
        self.o = p                       # offsets of the array fields: p[E.L_*]
        ph = self.ph = int(s[E.S_PHASE])
        self.kitty_visible = (rules.kitty_size > 0 and ph != E.PH_DEAL
                              and s[E.S_KITTY_IN_POT] == 0)
        if ph == E.PH_PLAY:
            self.ntr, self.done = int(s[E.S_TRICK]) + 1, int(s[E.S_TRICK])
        elif ph in (E.PH_MOON, E.PH_OVER):
            self.ntr = self.done = self.T
        else:
            self.ntr = self.done = 0

    def vec(self, field, q=0, size=K):
        o = int(self.o[field]) + q * size
        return self.s[o:o + size]

    def tricks(self):
        return self.vec(E.L_TCARDS, size=self.T * self.n).reshape(self.T, self.n)

    def in_order(self, tcards, t, ld):
        n = self.n
        row = tcards[t].tolist()
        return [row[(ld + i) % n] for i in range(n)]

    def seats(self, field):
        return " ".join(f"P{q}:{v}" for q, v in enumerate(self.vec(field, size=self.n).tolist()))


def _t_deal_progress(c):
    if c.ph == E.PH_DEAL:
        return f"dealt {int(c.s[E.S_DEALT])}/{c.num_cards}"


def _t_received(c):
    if c.ph >= E.PH_PLAY and c.pc:
        sender = (c.player - int(c.s[E.S_PASSOFF])) % c.n
        return f"received: {_cards(c.vec(E.L_PASSED, sender))}"


def _t_per_seat(label, field, fmt, size=K):
    def text(c):
        return label + " ".join(f"P{q}[{fmt(c.vec(field, q, size if size else c.pc))}]"
                                for q in range(c.n))
    return text


def _t_tricks(c):
    """Every trick so far, with its leader and result (pieces trick_*)."""
    tcards = c.tricks()
    tlead, twin = c.vec(E.L_TLEAD, size=c.T).tolist(), c.vec(E.L_TWIN, size=c.T).tolist()
    out = []
    for t in range(c.ntr):
        ld = tlead[t] if t < c.done else int(c.s[E.S_LEADER])
        text = f"T{t + 1} P{ld}: {_seq(c.in_order(tcards, t, ld))}"
        if t < c.done:
            w = twin[t]
            text += " -> " + {E.TW_VOID: "void", E.TW_DISCARDED: "discarded"}.get(w, f"P{w}")
        out.append(text)
    return " | ".join(out)


def _t_current_trick(c):
    """The trick in progress and its leader (pieces current_trick, leader)."""
    if c.ph == E.PH_PLAY:
        ld = int(c.s[E.S_LEADER])
        return f"trick P{ld}: {_seq(c.in_order(c.tricks(), int(c.s[E.S_TRICK]), ld))}"


def _t_played(c):
    ids = c.tricks()[:c.ntr].ravel()
    return f"played: {_cards(np.bincount(ids[ids >= 0], minlength=K))}"


def _t_voids(c):
    tcards = c.tricks().tolist()
    tlead = c.vec(E.L_TLEAD, size=c.T).tolist()
    void = [set() for _ in range(c.n)]
    for t in range(c.ntr):
        ld = tlead[t]
        if ld < 0:
            continue
        led = _SUIT[tcards[t][ld]]
        for q, x in enumerate(tcards[t]):
            if x >= 0 and _SUIT[x] != led:
                void[q].add(led)
    text = " ".join(f"P{q}:" + "".join(C.SUITS[x] for x in sorted(v))
                    for q, v in enumerate(void) if v)
    return f"void: {text}" if text else None


def _t_pot(c):
    pot = c.vec(E.L_POT)
    return f"pot: {_cards(pot)}" if pot.any() else None


def _t_moon_choice(c):
    m = int(c.s[E.S_MOON_CHOICE])
    if m >= 0:
        return "moon " + ("add" if m == 1 else "subtract")


def _t_to_move(c):
    if c.ph in (E.PH_PASS, E.PH_PLAY, E.PH_MOON):
        return f"P{int(c.s[E.S_CUR])} to move"


#: pid -> text of that piece (None: nothing to say). trick_leader/trick_result
#: are written with trick_cards, and leader with current_trick.
_TEXT = {
    _SEAT: lambda c: f"P{c.player} of {c.n}",
    _DEALER: lambda c: f"dealer P{int(c.s[E.S_DEALER])}",
    _PASS_OFFSET: lambda c: f"pass +{int(c.s[E.S_PASSOFF])}" if c.pc else "no passing",
    _PHASE: lambda c: f"phase {_PHASE_NAMES[c.ph]}",
    _DEAL_PROGRESS: _t_deal_progress,
    _DEALT: lambda c: f"dealt: {_cards(c.vec(E.L_DEALT_HANDS, c.player))}",
    _PASSED_SEQ: lambda c: f"passed: {_seq(c.vec(E.L_PASSSEQ, c.player, c.pc))}",
    _PASSED_SET: lambda c: f"passed: {_cards(c.vec(E.L_PASSED, c.player))}",
    _RECEIVED: _t_received,
    _HAND: lambda c: f"hand: {_cards(c.vec(E.L_HANDS, c.player))}",
    _DEALT_ALL: _t_per_seat("dealt: ", E.L_DEALT_HANDS, _cards),
    _PASSED_SEQ_ALL: _t_per_seat("passed: ", E.L_PASSSEQ, _seq, size=0),
    _PASSED_SET_ALL: _t_per_seat("passed: ", E.L_PASSED, _cards),
    _HANDS_ALL: _t_per_seat("hands: ", E.L_HANDS, _cards),
    _TRICK_CARDS: _t_tricks,
    _CUR_TRICK: _t_current_trick,
    _PLAYED: _t_played,
    _VOIDS: _t_voids,
    _POT: _t_pot,
    _KITTY: lambda c: f"kitty: {_cards(c.vec(E.L_KITTY))}" if c.kitty_visible else None,
    _KITTY_ALL: lambda c: f"kitty: {_cards(c.vec(E.L_KITTY))}",
    _POINTS: lambda c: f"points {c.seats(E.L_POINTS)}",
    _BROKEN: lambda c: "hearts broken" if c.s[E.S_BROKEN] else None,
    _KITTY_TAKEN: lambda c: "kitty taken" if c.kitty_visible else None,
    _MOON_PENDING: lambda c: ("moon choice pending" if c.ph == E.PH_MOON
                              and c.s[E.S_SHOOTER] == c.player else None),
    _MOON_CHOICE: _t_moon_choice,
    _SCORES: lambda c: f"scores {c.seats(E.L_SCORES)}",
    _HAND_NUMBER: lambda c: f"hands played {int(c.s[E.S_HANDNO])}",
    _TO_MOVE: _t_to_move,
}


#: Pieces showing cards being dealt: empty until the deal is complete.
_PICKED_UP = frozenset([_DEALT, _HAND, _DEALT_ALL, _HANDS_ALL, _KITTY_ALL])


def _view_parts(rules, p, s, player, pids) -> list[str]:
    """The text of the pieces ``pids`` of ``player``'s view: the same facts as the tensor."""
    c = _Ctx(rules, p, s, player)
    parts = []
    for pid in pids:
        f = _TEXT.get(pid)
        if f is not None and not (c.ph == E.PH_DEAL and pid in _PICKED_UP):
            text = f(c)
            if text:
                parts.append(text)
    return parts


# ------------------------------------------------------------------ observer
class CancellationHeartsObserver:
    """Observer conforming to OpenSpiel's PyObserver interface (see ``observation.py``).

    ``tensor``: ``float32[size]``; ``dict``: name -> view of ``tensor`` with the
    piece's shape (see :func:`format_layout`).
    """

    def __init__(self, game, iig_obs_type=None, params=None):
        if params:
            raise ValueError(
                f"python_cancellation_hearts observers take no parameters; got {params!r}")
        self._game = game
        self._rules = rules = game.rules
        recall, public, private = _obs_type(iig_obs_type)
        self._public_view = private == pyspiel.PrivateInfoType.NONE
        pieces = _pieces(rules, iig_obs_type)
        self._pids = [pid for _, _, pid in pieces]
        sizes = [int(np.prod(shape, dtype=np.int64)) for _, shape, _ in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict = {}
        self._offs = np.full(_NUM_PIDS, -1, np.int64)
        off = 0
        for (name, shape, pid), size in zip(pieces, sizes):
            self.dict[name] = self.tensor[off:off + size].reshape(shape)
            self._offs[pid] = off
            off += size
        self._match_history = recall and rules.is_match and public
        self._n = rules.players
        self._params = game.new_initial_state()._P

    def _check(self, state, player) -> None:
        # The kernel does not check bounds: refuse what would write outside a piece.
        if not 0 <= player < self._n:
            raise ValueError(f"player {player} is not a seat of this {self._n}-player game")
        if state._P is not self._params and not np.array_equal(state._P, self._params):
            raise ValueError("the state belongs to a game with other rules than this observer's")

    def set_from(self, state, player: int) -> None:
        """Fill ``tensor`` (and so ``dict``) with ``state`` seen by ``player``."""
        self._check(state, player)
        fill_view(state._P, state._s, player, 0 if self._public_view else player,
              self._offs, self.tensor)

    def string_from(self, state, player: int) -> str:
        """``state`` seen by ``player`` as text, with the same facts as the tensor.

        For the information state of a match, what the player saw in each
        previous hand comes first (``H1[...] H2[...]``).
        """
        self._check(state, player)
        text = " | ".join(_view_parts(self._rules, state._P, state._s, player, self._pids))
        if not self._match_history:
            return text
        return "".join(f"H{i + 1}[{h}] " for i, h in
                       enumerate(self._previous_hands(state, player))) + text

    def _previous_hands(self, state, player: int) -> list[str]:
        """The player's view at the end of each completed, earlier hand of a match.

        Replays ``state.history()``; a hand's view is taken before its last
        action (which resets the engine for the next hand), followed by that
        public action (a card played or the moon choice).
        """
        out = []
        st = self._game.new_initial_state()
        for a in state.history():
            before, mover = st._s.copy(), st.current_player()
            st.apply_action(a)
            if st._s[E.S_HANDNO] != before[E.S_HANDNO] and not st.is_terminal():
                parts = _view_parts(self._rules, st._P, before, player, self._pids)
                out.append(" | ".join(parts) + f" | then {st.action_to_string(mover, a)}")
        return out


def make_observer(game, iig_obs_type=None, params=None) -> CancellationHeartsObserver:
    """The observer of ``iig_obs_type`` (None: the default observation)."""
    return CancellationHeartsObserver(game, iig_obs_type, params)
