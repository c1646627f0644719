"""Sampling the hidden cards consistently with one player's information state.

``resample_from_infostate(state, player, rng)`` returns a full state (with a
complete, legal history) that ``player`` cannot tell from ``state``: the same
information-state string and tensor, current player and legal actions.

What is sampled, and from which distribution (a modelling decision, stated
here and in the README):

* The unseen cards -- the other players' current hands and an untaken kitty --
  are drawn **over physical card assignments** consistent with everything the
  player knows: own cards,
  the cards the player passed (still held by the receiver unless played),
  received cards, every card played, who showed void in which suit, what a
  lead proves (R6 A, R9: a heart led while hearts are unbroken means a hand of
  hearts only; classic: a point card discarded on the first trick means a
  hand of point cards only) and the copies of each card. Each assignment is
  weighted by its number of physical deals *including the copies each holder
  has played* (a factor ``1 / C(k + p, k)`` for a holder with ``k`` unseen
  and ``p`` played copies of a card; copies it holds from the player count as
  played). Without passing this is exactly the posterior of the uniform
  shuffle. With passing the true posterior depends on how the others chose
  their (hidden) passes, which no model knows; the same weights are used.
* During the deal nobody has picked up any card (see observers), so every
  dealt card is unseen, the player's own included.
* The parts of the history that the player never sees -- the order of the
  deal, the order in which the cards received were chosen, and the cards the
  other players passed to each other -- are filled in uniformly among the
  choices consistent with the sampled hands.

What the player knows and what the plays prove is :mod:`spiel_game._hidden`
(:func:`~spiel_game._hidden.hidden_cards`, the same model that the searches
of :mod:`solvers` sample); the draw is :mod:`spiel_game._sampler` (random
permutations of the unseen pool, accepted when they meet the constraints and
the weight test: exact rejection sampling in numba; when rejection is
unlikely to succeed, the exact class-table sampler, and an exact dynamic
programme in Python where those tables would be too large). This module only
rebuilds a history around the sampled hands; the state is built from that
history by the adapter's public constructor
(:meth:`spiel_game.game.CancellationHeartsState.from_history`).

Single-hand card-by-card games (the default) are resampled by one compiled
kernel (``_resample_hand``: problem, draw, passes, deal order, history);
matches, whole-deal chance and states inside the deal take the Python path
below, which draws from the same distribution (``tests/game/test_resample.py``
compares the two).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _engine as E
from ._hidden import hidden_cards, hidden_cards_into
from ._rng import fill_cards, make_rng_state, rand_below, shuffle_prefix
from ._sampler import REJECTION_TRIES, assign, rejection_assign, weight_list

__all__ = ["resample_from_infostate", "resample_history", "draw_into"]

K = E.K
CHANCE = E.CHANCE
# The compiled path's rejection budget (a failed try costs ~0.1 us); past it,
# the class-table sampler, which costs a Python-side set-up (~0.2 ms).
_FAST_TRIES = 1000


def _as_generator(rng) -> np.random.Generator:
    """A numpy Generator from the ``rng`` argument (``probability_sampler`` of
    ``state.resample_from_infostate``); a clear error for anything else."""
    what = ("rng (probability_sampler) must be a numpy Generator, an int seed >= 0, or "
            "a callable returning a float in [0, 1) (e.g. pyspiel.UniformProbabilitySampler)")
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise ValueError(f"{what}; got None")
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"{what}; got the bool {rng}")
    if isinstance(rng, (int, np.integer)):
        if rng < 0:
            raise ValueError(f"{what}; got the negative seed {rng}")
        return np.random.default_rng(int(rng))
    if callable(rng):
        u = rng()
        if isinstance(u, (bool, np.bool_)) or not isinstance(
                u, (int, float, np.integer, np.floating)):
            raise TypeError(f"{what}; the callable returned {u!r} ({type(u).__name__})")
        u = float(u)
        if not 0.0 <= u < 1.0:
            raise ValueError(f"{what}; the callable returned {u!r}")
        return np.random.default_rng(int(u * 2**53))
    raise TypeError(f"{what}; got {type(rng).__name__}")


def _check_player(player, n: int) -> int:
    """The observing player as an int seat, or a clear error."""
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise TypeError(f"player (player_id) must be an int, a seat 0..{n - 1} of this "
                        f"{n}-player game; got {player!r} ({type(player).__name__})")
    if not 0 <= player < n:
        raise ValueError(f"player (player_id) {player} is not a seat of this {n}-player game; "
                         f"allowed 0..{n - 1}")
    return int(player)

def _draw(multiset, k, rng):
    """``k`` physical cards drawn without replacement from a count vector, in random order."""
    phys = np.repeat(np.arange(K), multiset)
    rng.shuffle(phys)
    return [int(c) for c in phys[:k]]


# ------------------------------------------------------------- one hand
class _Hand:
    """The actions of one hand, split by kind, and who played what."""

    def __init__(self, n):
        self.deal = []          # chance actions (card ids, or one whole-deal index)
        self.passes = {}        # seat -> [cards] in order
        self.pass_order = []    # seats in passing order
        self.plays = []         # (seat, card)
        self.moon = []          # (seat, action)
        self.n = n


def _current_hand_from_engine(game, state, history):
    """The hand of a single-hand game, read off the engine vector (no replay)."""
    P, s = state.engine_params, state.engine_state
    n = game.rules.players
    h = _Hand(n)
    nd = (1 if int(s[E.S_DEALT]) else 0) if game.whole_deals is not None else int(s[E.S_DEALT])
    h.deal = list(history[:nd])
    pc = int(P[E.P_PASS])
    if pc:
        dealer = int(s[E.S_DEALER])
        for i in range(n):
            q = (dealer + 1 + i) % n
            row = E.pass_choices(P, s, q)
            seq = [int(c) for c in row if c >= 0]
            if seq:
                h.passes[q] = seq
                h.pass_order.append(q)
    seats = np.empty(n * game.rules.hand_size, np.int64)
    cards = np.empty_like(seats)
    m = E.plays(P, s, seats, cards)
    h.plays = list(zip(seats[:m].tolist(), cards[:m].tolist()))
    if s[E.S_MOON_CHOICE] >= 0:
        h.moon.append((int(s[E.S_SHOOTER]), int(history[-1])))
    return h


def _split_history(game, history):
    """Replay ``history`` on the engine and split it into hands."""
    P = game.engine_params
    deals = game.whole_deals
    s = E.new_state(P)
    hands = [_Hand(game.rules.players)]
    for a in history:
        if s[E.S_PHASE] == E.PH_OVER:
            break
        ph = s[E.S_PHASE]
        cur = int(s[E.S_CUR])
        h = hands[-1]
        if ph == E.PH_DEAL:
            h.deal.append(a)
            if deals is not None:
                E.apply_whole_deal(P, s, deals[a])
                continue
        elif ph == E.PH_PASS:
            if cur not in h.passes:
                h.passes[cur] = []
                h.pass_order.append(cur)
            h.passes[cur].append(a)
        elif ph == E.PH_PLAY:
            h.plays.append((cur, a))
        else:
            h.moon.append((cur, a))
        hno = s[E.S_HANDNO]
        E.apply_unchecked(P, s, a)
        if s[E.S_HANDNO] != hno and s[E.S_PHASE] != E.PH_OVER:
            hands.append(_Hand(game.rules.players))
    return hands


def _rebuild_passes(n, me, off, pc, hand_now, played, my_passed, received_by_me, *, rng):
    """Passes of every seat and dealt hands, consistent with current hands + plays.

    ``hand_now[q]`` and ``played[q]`` are count vectors; the player's own passes
    and received cards are known. Returns (passed_seq[q], dealt[q]).
    """
    have = np.asarray(hand_now) + np.asarray(played)      # hand after passing, in full
    seq = [None] * n
    seq[me] = list(my_passed)
    giver = (me - off) % n
    if giver != me:
        rcv = sorted(received_by_me)          # the order they were chosen in is unseen
        rng.shuffle(rcv)
        seq[giver] = [int(c) for c in rcv]
    for q in range(n):
        if seq[q] is None:
            r = (q + off) % n
            seq[q] = _draw(have[r], pc, rng)
    passed = np.zeros((n, K), np.int64)
    for q in range(n):
        np.add.at(passed[q], np.asarray(seq[q], np.int64), 1)
    dealt = have + passed - np.roll(passed, off, axis=0)  # received from seat q - off
    if (dealt < 0).any():
        raise RuntimeError("inconsistent passes while resampling")
    return seq, list(dealt)


def _deal_sequence(game, dealer, dealt, kitty, my_seat, my_real_deal, rng, n_dealt=None):
    """Chance actions dealing ``dealt[q]`` (and the kitty) in R4 order, each
    seat's cards in random order (no player remembers the order of the deal:
    cards are picked up once the deal is over)."""
    r = game.rules
    n, T = r.players, r.hand_size
    total = r.num_cards if n_dealt is None else n_dealt
    seq = np.empty(total, np.int64)
    m = min(total, n * T)
    dealt = np.asarray(dealt, np.int64).reshape(n, K)
    cards = np.repeat(np.tile(np.arange(K), n), dealt.ravel())       # grouped by seat
    seat_of_card = np.repeat(np.arange(n), dealt.sum(axis=1))
    shuffled = cards[np.lexsort((rng.random(len(cards)), seat_of_card))]
    seat_of_pos = (dealer + 1 + np.arange(m)) % n
    seq[np.argsort(seat_of_pos, kind="stable")] = shuffled[:m]
    if total > n * T:
        kit = np.repeat(np.arange(K), kitty)
        rng.shuffle(kit)
        seq[n * T:] = kit[:total - n * T]
    return seq.tolist()


def _my_real_deal(game, hand: _Hand, dealer, me):
    """Cards dealt to ``me`` in their real order (the player saw them)."""
    n = game.rules.players
    if game.whole_deals is not None:
        if not hand.deal:
            return []
        d = game.whole_deals[hand.deal[0]][me]
        return [int(c) for c in np.repeat(np.arange(K), d)]
    first = (me - dealer - 1) % n
    return list(hand.deal[first:n * game.rules.hand_size:n])


def _whole_deal_index(game, dealt, kitty):
    m = np.zeros((game.whole_deals.shape[1], K), np.int64)
    for q, d in enumerate(dealt):
        m[q] = d
    if game.rules.kitty_size:
        m[game.rules.players] = kitty
    return game.deal_outcome(m)


def _finished_hand_actions(game, hand: _Hand, hand_no, me, rng):
    """A consistent action list for a finished hand of a match: the public play
    and the player's own cards kept, everyone else's deal order and passes redrawn."""
    r = game.rules
    n = r.players
    dealer = (n - 1 + hand_no) % n
    off = r.pass_offset % n if r.passes else 0
    if hand_no % 2 == 1 and off:
        off = (n - off) % n
    played = np.zeros((n, K), np.int64)
    if hand.plays:
        pl = np.array(hand.plays, np.int64)
        np.add.at(played, (pl[:, 0], pl[:, 1]), 1)
    zero = [np.zeros(K, np.int64) for _ in range(n)]
    my_passed = hand.passes.get(me, [])
    if off and r.pass_count:
        received = hand.passes.get((me - off) % n, [])
        seq, dealt = _rebuild_passes(n, me, off, r.pass_count, zero, played, my_passed,
                                     received, rng=rng)
    else:
        seq, dealt = [[] for _ in range(n)], played
    kitty = np.zeros(K, np.int64)
    if r.kitty_size:
        kitty = np.array(r.deck_counts, np.int64) - sum(dealt)
    actions = []
    if game.whole_deals is not None:
        actions.append((CHANCE, _whole_deal_index(game, dealt, kitty)))
    else:
        for a in _deal_sequence(game, dealer, dealt, kitty, me,
                                _my_real_deal(game, hand, dealer, me), rng):
            actions.append((CHANCE, a))
    for q in hand.pass_order:
        for a in seq[q]:
            actions.append((q, a))
    actions.extend(hand.plays)
    actions.extend(hand.moon)
    return actions


def _seat_hands(hc, got, n, me, mine, kitty_real):
    """(each seat's cards, the kitty) from a draw ``got`` (a row per hidden
    holder of ``hc``): ``me`` holds ``mine``; the kitty is the drawn one when it
    is hidden, else ``kitty_real``."""
    hands = [None] * n
    hands[me] = mine.astype(np.int64)
    H = len(hc.seats)
    for i in range(H):
        if hc.seats[i] >= 0:
            hands[int(hc.seats[i])] = got[i]
    return hands, got[H - 1] if H and hc.seats[H - 1] < 0 else kitty_real


def _current_hand_actions(game, state, hand: _Hand, me, rng, tries=REJECTION_TRIES):
    """A consistent action list for the hand in progress (see module docstring)."""
    r = game.rules
    P, s = state.engine_params, state.engine_state
    n = r.players
    ph = int(s[E.S_PHASE])
    dealer = int(s[E.S_DEALER])
    off = int(s[E.S_PASSOFF])
    pc = int(P[E.P_PASS])
    my_real_deal = _my_real_deal(game, hand, dealer, me)
    my_passed = hand.passes.get(me, [])
    kitty_real = E.kitty(P, s).astype(np.int64)
    actions = []

    if ph == E.PH_DEAL:
        # Cards are picked up only once the deal is over (see observers), so
        # during the deal every card is unseen, the player's own included.
        nd = int(s[E.S_DEALT])
        if game.whole_deals is not None:
            return actions          # nothing dealt yet in a whole deal
        seq = np.repeat(np.arange(K), np.asarray(r.deck_counts, np.int64))
        rng.shuffle(seq)
        return [(CHANCE, int(a)) for a in seq[:nd]]

    hc = hidden_cards(P, s, me)
    if ph == E.PH_PASS:
        got = assign(hc.pool, hc.sizes, hc.forbid, rng, hc.weights)
        dealt, kitty = _seat_hands(hc, got, n, me, E.dealt_hand(P, s, me), kitty_real)
        seq = {}
        for q in hand.pass_order:
            k = len(hand.passes[q])
            seq[q] = list(my_passed) if q == me else _draw(dealt[q], k, rng)
    else:
        got = assign(hc.pool, hc.sizes, hc.forbid, rng, hc.weights, tries) + hc.forced
        now, kitty = _seat_hands(hc, got, n, me, E.hand(P, s, me), kitty_real)
        played = hc.played
        if pc > 0 and off != 0:
            received = hand.passes.get((me - off) % n, [])
            seq_l, dealt = _rebuild_passes(n, me, off, pc, now, played, my_passed,
                                           received, rng=rng)
            seq = {q: seq_l[q] for q in hand.pass_order}
        else:
            dealt = [now[q] + played[q] for q in range(n)]
            seq = {}
    if game.whole_deals is not None:
        actions.append((CHANCE, _whole_deal_index(game, dealt, kitty)))
    else:
        actions.extend([(CHANCE, a) for a in
                        _deal_sequence(game, dealer, dealt, kitty, me, my_real_deal, rng)])
    for q in hand.pass_order:
        actions.extend([(q, a) for a in seq[q]])
    actions.extend(hand.plays)
    actions.extend(hand.moon)
    return actions


# ------------------------------------------------------------- compiled path
# The whole resample of a single-hand, card-by-card game (passing, play, moon
# choice, end), in one kernel: the same distribution as the Python path below
# (which handles matches, whole-deal chance, the deal itself, and the exact
# fallback when rejection fails).
_FAST_REJECTED, _FAST_INCONSISTENT = -1, -2


@njit(cache=True)
def draw_into(counts, k, rng, tmp, dst, d0):
    """``k`` physical cards drawn without replacement from ``counts``, in random
    order, written to ``dst[d0:d0 + k]``."""
    m = fill_cards(counts, tmp, 0)
    for j in range(k):
        r = j + rand_below(rng, m - j)
        t = tmp[j]
        tmp[j] = tmp[r]
        tmp[r] = t
        dst[d0 + j] = tmp[j]


@njit(cache=True)
def _resample_hand(p, s, me, moon_action, rng, tries, out_pl, out_act):
    """Actions (``out_pl``, ``out_act``) of a history ``me`` cannot tell from
    ``s``. Returns the number of actions, ``_FAST_REJECTED`` when ``tries``
    rejection tries all failed, or ``_FAST_INCONSISTENT``."""
    n, T, pc = p[E.P_N], p[E.P_HAND], p[E.P_PASS]
    ph = s[E.S_PHASE]
    dealer, off = s[E.S_DEALER], s[E.S_PASSOFF]
    deck = E.deck(p)
    total = 0
    for c in range(K):
        total += deck[c]
    tmp = np.empty(total + K, np.int64)
    seat = np.zeros(n, np.int64)
    pool = np.zeros(K, np.int64)
    sizes = np.zeros(n, np.int64)
    npass_h = np.zeros(n, np.int64)
    forced = np.zeros((n, K), np.int64)
    weights = np.zeros((n, K), np.int64)
    played = np.zeros((n, K), np.int64)
    forbid = np.zeros((n, K), np.bool_)
    H = hidden_cards_into(p, s, me, seat, pool, sizes, forced, forbid, weights, npass_h, played)
    if H < 0:
        return _FAST_INCONSISTENT
    passes_done = ph != E.PH_PASS and pc > 0 and off != 0
    ncards = 0
    for c in range(K):
        ncards += pool[c]
    cards = np.empty(ncards, np.int64)
    fill_cards(pool, cards, 0)
    got = np.zeros((H, K), np.int64)
    if not rejection_assign(cards, sizes[:H], forbid[:H], weight_list(weights[:H]), got, rng,
                            tries):
        return _FAST_REJECTED
    # Hands now (or dealt hands, while passing), then passes and dealt hands.
    dealt = np.zeros((n, K), np.int64)
    kitty = E.kitty(p, s).astype(np.int64)
    for h in range(H):
        q = seat[h]
        for c in range(K):
            v = got[h, c] + forced[h, c]
            if q < 0:
                kitty[c] = v
            else:
                dealt[q, c] = v
    seq = np.full((n, max(pc, 1)), -1, np.int64)
    npass = np.zeros(n, np.int64)
    for q in range(n):
        choices = E.pass_choices(p, s, q)
        for j in range(pc):
            if choices[j] >= 0:
                npass[q] += 1
    if ph == E.PH_PASS:
        dealt[me] = E.dealt_hand(p, s, me)
        mine = E.pass_choices(p, s, me)
        for q in range(n):
            if q == me:
                for j in range(npass[q]):
                    seq[q, j] = mine[j]
            elif npass[q] > 0:
                draw_into(dealt[q], npass[q], rng, tmp, seq[q], 0)
    else:
        dealt[me] = E.hand(p, s, me)
        for q in range(n):
            for c in range(K):
                dealt[q, c] += played[q, c]            # the hand after passing, in full
        if passes_done:
            giver = (me - off) % n
            seq[me, :pc] = E.pass_choices(p, s, me)[:pc]
            if giver != me:
                seq[giver, :pc] = E.pass_choices(p, s, giver)[:pc]
                seq[giver, :pc] = np.sort(seq[giver, :pc])
                shuffle_prefix(seq[giver], pc, rng)    # the order they were chosen in is unseen
            for q in range(n):
                if q != me and q != giver:
                    draw_into(dealt[(q + off) % n], pc, rng, tmp, seq[q], 0)
            passed = np.zeros((n, K), np.int64)
            for q in range(n):
                for j in range(pc):
                    passed[q, seq[q, j]] += 1
            for q in range(n):
                g = (q - off) % n
                for c in range(K):
                    v = dealt[q, c] + passed[q, c] - passed[g, c]
                    if v < 0:
                        return _FAST_INCONSISTENT
                    dealt[q, c] = v
    # The deal in R4 order, each seat's cards in random order (cards are picked
    # up once the deal is over, so nobody saw the order).
    k = 0
    nt = min(total, n * T)
    start = np.zeros(n + 1, np.int64)
    for q in range(n):
        k = fill_cards(dealt[q], tmp, k)
        start[q + 1] = k
    for q in range(n):
        shuffle_prefix(tmp[start[q]:start[q + 1]], start[q + 1] - start[q], rng)
    ptr = start[:n].copy()
    a = 0
    for i in range(nt):
        q = (dealer + 1 + i) % n
        out_pl[a] = -1
        out_act[a] = tmp[ptr[q]]
        ptr[q] += 1
        a += 1
    if total > nt:
        kk = fill_cards(kitty, tmp, 0)
        shuffle_prefix(tmp, kk, rng)
        for j in range(total - nt):
            out_pl[a] = -1
            out_act[a] = tmp[j]
            a += 1
    for i in range(n):
        q = (dealer + 1 + i) % n
        for j in range(npass[q] if ph == E.PH_PASS else (pc if passes_done else 0)):
            out_pl[a] = q
            out_act[a] = seq[q, j]
            a += 1
    if ph != E.PH_PASS:
        a += E.plays(p, s, out_pl[a:], out_act[a:])
        if s[E.S_MOON_CHOICE] >= 0:
            out_pl[a] = s[E.S_SHOOTER]
            out_act[a] = moon_action
            a += 1
    return a


def _fast_history(game, state, player, g):
    """The compiled path (single-hand card-by-card games after the deal):
    (players, actions), or None when rejection failed and the exact sampler
    is needed."""
    P, s = game.engine_params, state.engine_state
    L = int(P[E.P_N]) * int(P[E.P_HAND]) * 2 + 64 + int(E.deck(P).sum())
    out_pl = np.empty(L, np.int64)
    out_act = np.empty(L, np.int64)
    moon = state.history()[-1] if s[E.S_MOON_CHOICE] >= 0 else -1
    rng = make_rng_state(int(g.integers(2**63)), 0)
    a = _resample_hand(P, s, player, moon, rng, _FAST_TRIES, out_pl, out_act)
    if a == _FAST_REJECTED:
        return None
    if a < 0:
        raise RuntimeError("resampling met an inconsistent information state; please report "
                           "this with the state's serialization")
    return out_pl[:a], out_act[:a]


def _check_state(state):
    """The state's game, or a TypeError for anything but a Cancellation Hearts state."""
    if not (callable(getattr(type(state), "from_history", None))
            and hasattr(state, "engine_state") and hasattr(state, "get_game")):
        raise TypeError(f"state must be a Cancellation Hearts state, got {type(state).__name__}")
    return state.get_game()


def resample_history(state, player: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """A history that ``player`` cannot tell from ``state``'s, drawn as the
    module docstring says: ``(players int64[L], actions int64[L])``, chance
    actions with player -1. Arguments as :func:`resample_from_infostate`."""
    game = _check_state(state)
    player = _check_player(player, game.rules.players)
    g = _as_generator(rng)
    deals = game.whole_deals
    s = state.engine_state
    if not game.rules.is_match and deals is None and s[E.S_PHASE] != E.PH_DEAL:
        fast = _fast_history(game, state, player, g)
        if fast is not None:
            return fast
        tries = 0                       # rejection failed: the exact sampler
    else:
        tries = REJECTION_TRIES
    hist = state.history()
    if game.rules.is_match:
        hands = _split_history(game, hist)
    else:
        hands = [_current_hand_from_engine(game, state, hist)]
    actions = []
    for hno, hand in enumerate(hands[:-1]):
        actions.extend(_finished_hand_actions(game, hand, hno, player, g))
    if state.is_terminal() and game.rules.is_match and len(hands) > 0:
        actions.extend(_finished_hand_actions(game, hands[-1], len(hands) - 1, player, g))
    else:
        actions.extend(_current_hand_actions(game, state, hands[-1], player, g, tries))
    players = np.fromiter((pl for pl, _ in actions), np.int64, len(actions))
    acts = np.fromiter((a for _, a in actions), np.int64, len(actions))
    return players, acts


def resample_from_infostate(state, player: int, rng):
    """A state ``player`` cannot tell from ``state``, drawn as the module docstring says.

    The history comes from :func:`resample_history`; the state is built from
    it by the adapter's public constructor ``type(state).from_history``.

    Args:
      state: a Cancellation Hearts state.
      player: the observing player (0..n-1).
      rng: a numpy Generator, an int seed, or a callable returning uniform
        floats in [0, 1) (OpenSpiel's ``UniformProbabilitySampler``).
    """
    players, actions = resample_history(state, player, rng)
    try:
        return type(state).from_history(state.get_game(), actions, players=players)
    except ValueError as e:
        raise RuntimeError(f"resampling built an illegal history ({e}); please report this "
                           f"with the state's serialization") from None
