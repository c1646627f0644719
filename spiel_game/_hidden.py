"""The hidden-card model: what one seat knows about the cards it cannot see.

The rules of what a seat sees and what a play proves live here, once:

* **seen** (RULES.md R3 A, R5): the seat's own dealt hand and passes, the
  cards it received once the passing round is over (:func:`received_seen`),
  every card played, and the kitty once it lies face up (:func:`kitty_seen`;
  an untaken kitty is a hidden holder, :func:`kitty_hidden`);
* **proved by a play** (:func:`proven_absent`): a seat that does not follow
  the suit led is void in it (R7); a heart led while hearts are unbroken means
  a hand of hearts only (R9); a heart or the Black Maria led to the first
  trick where R6 A forbids it means nothing else is held; a point card
  discarded on the first trick of the classic game means a hand of point
  cards only;
* **forced**: the cards the seat passed are still held by the receiver unless
  played; the player to lead the first trick holds the opening card (R6 B).

:func:`hidden_cards_into` (compiled) turns an engine state and a seat into the
hidden-card problem -- the unseen pool, the holders (the other seats, then an
untaken kitty) with their free places, forbidden and forced cards, and the
physical-deal weights (copies each holder has played or provably holds, see
:func:`spiel_game._sampler.weight_ok`). :func:`hidden_cards` is the same from
Python. Its users: :mod:`spiel_game._resample` (the compiled kernel and the
Python path), the determinizer of :mod:`solvers._ismcts` and :mod:`solvers._pimc`,
and the information-set key of :mod:`solvers.cfr._engine_walk` (through
:func:`received_seen` and :func:`kitty_seen`). The samplers that draw an
assignment are in :mod:`spiel_game._sampler`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from . import _engine as E

__all__ = ["HiddenCards", "hidden_cards", "hidden_cards_into", "hidden_constraints",
           "proven_absent", "played_counts", "received_seen", "kitty_seen", "kitty_hidden"]

K = E.K


# ------------------------------------------------------------- what is seen
@njit(cache=True)
def received_seen(p, s):
    """True once the cards passed to each seat are in its hand and seen (R5:
    passes are simultaneous, so they are seen when the passing round is over)."""
    return p[E.P_PASS] > 0 and s[E.S_PHASE] >= E.PH_PLAY


@njit(cache=True)
def kitty_seen(p, s):
    """True when the kitty lies face up (R3 A: taken with the first trick)."""
    return p[E.P_KITTY] > 0 and s[E.S_KITTY_IN_POT] == 0


@njit(cache=True)
def kitty_hidden(p, s):
    """True while the kitty is dealt and nobody has seen it: a hidden holder."""
    return p[E.P_KITTY] > 0 and s[E.S_KITTY_IN_POT] == 1


# ------------------------------------------------------------- what a play proves
@njit(cache=True)
def proven_absent(p, s, forbid):
    """Mark in ``forbid[n, K]`` the card types each seat provably does not hold now.

    Hands only shrink during play, so a proof about the hand at some trick
    holds for the current hand as well. Only the play (and moon choice, end)
    phases carry proofs; other phases leave ``forbid`` untouched.
    """
    n = p[E.P_N]
    T = p[E.P_HAND]
    broken = 0
    nplayed = 0
    t_now = s[E.S_TRICK]
    if s[E.S_PHASE] != E.PH_PLAY and s[E.S_PHASE] != E.PH_MOON and s[E.S_PHASE] != E.PH_OVER:
        return
    leaders = E.trick_leaders(p, s)
    for t in range(min(t_now + 1, T)):
        leader = leaders[t]
        if leader < 0:
            break
        row = E.trick_cards(p, s, t)
        led = E.SUIT_OF[row[leader]]
        for i in range(n):
            q = (leader + i) % n
            c = row[q]
            if c < 0:
                break
            if i == 0:
                if nplayed == 0:
                    if p[E.P_FIRST_LEAD] != E.FIRST_LEAD_OPENING and (
                            E.SUIT_OF[c] == E.HEARTS or c == E.QS):
                        for x in range(K):                    # R6 A: nothing else held
                            if E.SUIT_OF[x] != E.HEARTS and x != E.QS:
                                forbid[q, x] = True
                elif broken == 0 and E.SUIT_OF[c] == E.HEARTS:
                    for x in range(K):                        # R9: hearts only
                        if E.SUIT_OF[x] != E.HEARTS:
                            forbid[q, x] = True
            elif E.SUIT_OF[c] != led:
                for x in range(K):                            # R7: void in the suit led
                    if E.SUIT_OF[x] == led:
                        forbid[q, x] = True
                if p[E.P_NO_PTS_FIRST] == 1 and t == 0 and E.POINTS_OF[c] > 0:
                    for x in range(K):                        # classic: points only
                        if E.POINTS_OF[x] == 0:
                            forbid[q, x] = True
            if E.SUIT_OF[c] == E.HEARTS or c == E.QS:
                broken = 1
            nplayed += 1


@njit(cache=True)
def played_counts(p, s, played):
    """Add to ``played[n, K]`` the copies of each card each seat has played this hand."""
    m = p[E.P_N] * p[E.P_HAND]
    seats = np.empty(m, np.int64)
    cards = np.empty(m, np.int64)
    for i in range(E.plays(p, s, seats, cards)):
        played[seats[i], cards[i]] += 1


def hidden_constraints(state, player):
    """``forbid[n, 53]``: card types each seat provably does not hold (from public play)."""
    P, s = state.engine_params, state.engine_state
    forbid = np.zeros((int(P[E.P_N]), K), np.bool_)
    proven_absent(P, s, forbid)
    return forbid


# ------------------------------------------------------------- the problem
# carries: the rules, the state and the observer (p, s, me), and the arrays the
# problem is written to (seats, pool, sizes, forced, forbid, weights, npass, played)
@njit(cache=True)
def hidden_cards_into(p, s, me, seats, pool, sizes, forced, forbid, weights, npass, played):
    """The hidden-card problem of seat ``me`` in engine state ``s`` (passing,
    play, moon choice or end of a hand; not the deal).

    Holders ``h = 0..H-1``: the other seats in seat order, then the kitty
    (``seats[h] = -1``) while it is unseen. Fills the arrays (each with at
    least ``n`` rows, zeroed here):

    * ``seats int64[n]``: the holder's seat, -1 for the kitty;
    * ``pool int64[K]``: unseen physical cards left to deal (forced ones taken out);
    * ``sizes int64[n]``: the holder's free places (forced cards taken out);
    * ``forced int64[n, K]``: cards the holder provably holds (passes from
      ``me`` not yet played, the opening card of R6 B);
    * ``forbid bool[n, K]``: card types the holder provably does not hold;
    * ``weights int64[n, K]``: copies the holder has played or is forced to
      hold (the physical-deal weight ``1 / C(k + p, k)``);
    * ``npass int64[n]``: hidden passes the holder has made (passing phase);
    * ``played int64[n, K]`` (by seat): copies each seat has played this hand.

    Returns ``H``, or -1 when the state is inconsistent (a negative pool or
    size, or as many unseen cards as places to fill do not match).
    """
    n, T, pc, ksz = p[E.P_N], p[E.P_HAND], p[E.P_PASS], p[E.P_KITTY]
    ph = s[E.S_PHASE]
    deck = E.deck(p)
    hidden_kitty = kitty_hidden(p, s)
    H = n - 1 + (1 if hidden_kitty else 0)
    seats[:] = 0
    pool[:] = 0
    sizes[:] = 0
    forced[:, :] = 0
    forbid[:, :] = False
    weights[:, :] = 0
    npass[:] = 0
    played[:, :] = 0
    h = 0
    for q in range(n):
        if q != me:
            seats[h] = q
            h += 1
    if hidden_kitty:
        seats[H - 1] = -1
    if ph == E.PH_PASS:
        mine = E.dealt_hand(p, s, me)
        for c in range(K):
            pool[c] = deck[c] - mine[c]
        for h in range(H):
            q = seats[h]
            if q < 0:
                sizes[h] = ksz
                continue
            sizes[h] = T
            choices = E.pass_choices(p, s, q)
            for j in range(pc):
                if choices[j] >= 0:
                    npass[h] += 1
    else:
        played_counts(p, s, played)
        proven = np.zeros((n, K), np.bool_)
        proven_absent(p, s, proven)
        mine = E.hand(p, s, me)
        kit = E.kitty(p, s)
        for c in range(K):
            v = deck[c] - mine[c]
            for q in range(n):
                v -= played[q, c]
            if not hidden_kitty:
                v -= kit[c]
            pool[c] = v
        for h in range(H):
            q = seats[h]
            if q < 0:
                sizes[h] = ksz
                continue
            held = E.hand(p, s, q)
            for c in range(K):
                sizes[h] += held[c]
                forbid[h, c] = proven[q, c]
        off = s[E.S_PASSOFF]
        if received_seen(p, s) and off != 0:
            rcv = (me + off) % n                  # still holds what ``me`` passed, unless played
            hr = rcv - 1 if rcv > me else rcv
            mine_passed = E.pass_choices(p, s, me)
            for j in range(pc):
                c = mine_passed[j]
                if c >= 0:
                    forced[hr, c] += 1
            for c in range(K):
                forced[hr, c] = max(0, forced[hr, c] - played[rcv, c])
        leader = s[E.S_LEADER]
        if (p[E.P_FIRST_LEAD] == E.FIRST_LEAD_OPENING and s[E.S_NPLAYED] == 0
                and ph == E.PH_PLAY and leader != me):
            hl = leader - 1 if leader > me else leader   # R6 B: holds the opening card
            oc = p[E.P_OPENING]
            forced[hl, oc] = max(forced[hl, oc], 1)
    # Forced copies count as already held (they were dealt to the receiver's side).
    need = 0
    for h in range(H):
        q = seats[h]
        for c in range(K):
            f = forced[h, c]
            sizes[h] -= f
            pool[c] -= f
            if q >= 0:
                weights[h, c] = played[q, c] + f
        if sizes[h] < 0:
            return -1
        need += sizes[h]
    ncards = 0
    for c in range(K):
        if pool[c] < 0:
            return -1
        ncards += pool[c]
    if ncards != need:
        return -1
    return H


@dataclass(frozen=True)
class HiddenCards:
    """The hidden-card problem of one seat (see :func:`hidden_cards_into`);
    holder rows ``h = 0..H-1``: the other seats in order, then an unseen kitty."""

    passing: bool           # the passing phase: sampled hands are the dealt hands
    seats: np.ndarray       # int64[H] holder seat, -1 = the kitty
    pool: np.ndarray        # int64[K] unseen physical cards to deal (forced ones out)
    sizes: np.ndarray       # int64[H] free places (forced cards out)
    forced: np.ndarray      # int64[H, K] cards a holder provably holds
    forbid: np.ndarray      # bool[H, K] card types a holder provably lacks
    weights: np.ndarray     # int64[H, K] copies played or forced (physical-deal weights)
    npass: np.ndarray       # int64[H] hidden passes made (passing phase)
    played: np.ndarray      # int64[n, K] copies each seat has played this hand


def hidden_cards(P, s, me: int) -> HiddenCards:
    """:func:`hidden_cards_into` from Python: the problem of seat ``me`` in
    engine state ``s`` (passing, play, moon choice or end of a hand). Raises
    ValueError during the deal, RuntimeError on an inconsistent state."""
    if int(s[E.S_PHASE]) == E.PH_DEAL:
        raise ValueError("hidden cards: during the deal every card is unseen (no problem to build)")
    n = int(P[E.P_N])
    seats, sizes, npass = (np.zeros(n, np.int64) for _ in range(3))
    pool = np.zeros(K, np.int64)
    forced, weights, played = (np.zeros((n, K), np.int64) for _ in range(3))
    forbid = np.zeros((n, K), np.bool_)
    H = hidden_cards_into(P, s, int(me), seats, pool, sizes, forced, forbid, weights, npass,
                          played)
    if H < 0:
        raise RuntimeError("hidden cards: the unseen cards do not fit the places to fill "
                           "(inconsistent information state; please report with "
                           "state.serialize())")
    return HiddenCards(bool(s[E.S_PHASE] == E.PH_PASS), seats[:H], pool, sizes[:H],
                       forced[:H], forbid[:H], weights[:H], npass[:H], played)
