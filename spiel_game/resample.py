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

The draw only reads the information state: random permutations of the unseen
pool, accepted when they meet the void/lead constraints and the weight test
(exact rejection sampling, in numba). When rejection is unlikely to succeed,
the exact class-table sampler of :mod:`spiel_game.hidden` takes over, and an
exact dynamic programme (Python) where those tables would be too large.

Single-hand card-by-card games (the default) are resampled by one compiled
kernel (``_resample_hand``: constraints, draw, passes, deal order, history);
matches, whole-deal chance and states inside the deal take the Python path
below, which draws from the same distribution (``tests/test_resample.py``
compares the two).
"""

from __future__ import annotations

import collections
import math
from functools import lru_cache

import numpy as np
import pyspiel
from numba import njit

from . import cards as C
from . import engine as E
from .game import _state_with_history
from .hidden import build_problem, sample_assignment, weight_ok
from .policies import make_rng_state, rand_below, rand_uniform, shuffle_prefix

__all__ = ["resample_from_infostate", "hidden_constraints"]

K = E.K
_REJECTION_TRIES = 20000
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
        if isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.integer, np.floating)):
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


# ------------------------------------------------------------- constraints
@njit(cache=True)
def _trick_constraints(p, s, forbid):
    """Mark in ``forbid[n, K]`` the card types each seat provably does not hold now.

    Hands only shrink during play, so a proof about the hand at some trick
    holds for the current hand as well.
    """
    n = p[E.P_N]
    T = p[E.P_HAND]
    broken = 0
    nplayed = 0
    t_now = s[E.S_TRICK]
    if s[E.S_PHASE] != E.PH_PLAY and s[E.S_PHASE] != E.PH_MOON and s[E.S_PHASE] != E.PH_OVER:
        return
    for t in range(min(t_now + 1, T)):
        leader = s[p[E.L_TLEAD] + t]
        if leader < 0:
            break
        base = p[E.L_TCARDS] + t * n
        lead = s[base + leader]
        led = E.SUIT_OF[lead]
        for i in range(n):
            q = (leader + i) % n
            c = s[base + q]
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


def hidden_constraints(state, player):
    """``forbid[n, 53]``: card types each seat provably does not hold (from public play)."""
    P, s = state._P, state._b.a
    forbid = np.zeros((int(P[E.P_N]), K), np.bool_)
    _trick_constraints(P, s, forbid)
    return forbid


# ------------------------------------------------------------- sampling
@njit(cache=True)
def _rejection_assign(pool_cards, sizes, forbid_h, wlist, out, rng, tries):
    """Up to ``tries`` uniform shuffles of ``pool_cards`` dealt into holders of
    ``sizes``; True at the first that gives no holder a forbidden card and
    passes the physical-deal weight test (:func:`spiel_game.hidden.weight_ok`:
    exact rejection sampling). Fills ``out[h, K]``; ``rng`` is a splitmix
    stream (uint64[1])."""
    m = pool_cards.shape[0]
    arr = pool_cards.copy()
    H = sizes.shape[0]
    for _ in range(tries):
        shuffle_prefix(arr, m, rng)
        k = 0
        ok = True
        for h in range(H):
            for _ in range(sizes[h]):
                if forbid_h[h, arr[k]]:
                    ok = False
                    break
                k += 1
            if not ok:
                break
        if not ok:
            continue
        out[:, :] = 0
        k = 0
        for h in range(H):
            for _ in range(sizes[h]):
                out[h, arr[k]] += 1
                k += 1
        if weight_ok(out, wlist, rand_uniform(rng)):
            return True
    return False


@njit(cache=True)
def _weight_list(played_h):
    """``(holder, card, copies)`` rows of the nonzero weights (see weight_ok)."""
    H = played_h.shape[0]
    m = 0
    for h in range(H):
        for c in range(K):
            if played_h[h, c] > 0:
                m += 1
    w = np.empty((m, 3), np.int64)
    m = 0
    for h in range(H):
        for c in range(K):
            if played_h[h, c] > 0:
                w[m, 0] = h
                w[m, 1] = c
                w[m, 2] = played_h[h, c]
                m += 1
    return w


def _exact_assign(pool, sizes, forbid_h, played_h, rng):
    """Exact sampler: class-compressed dynamic programming over holders draws a
    uniform constrained physical assignment; the physical-deal weight is then
    applied by rejection."""
    H = len(sizes)
    # Card types with the same forbidding pattern form one class.
    patterns: dict[tuple, list[int]] = {}
    for c in np.nonzero(pool)[0]:
        patterns.setdefault(tuple(bool(x) for x in forbid_h[:, c]), []).append(int(c))
    classes = list(patterns.items())
    totals = tuple(int(sum(pool[c] for c in cs)) for _, cs in classes)

    def allocations(h, rem):
        allowed = [i for i, (pat, _) in enumerate(classes) if not pat[h]]

        def rec(idx, left, cur):
            if idx == len(allowed):
                if left == 0:
                    yield tuple(cur)
                return
            i = allowed[idx]
            for x in range(min(left, rem[i]) + 1):
                cur[i] = x
                yield from rec(idx + 1, left - x, cur)
            cur[i] = 0
        yield from rec(0, sizes[h], [0] * len(classes))

    @lru_cache(maxsize=None)
    def count(h, rem):
        if h == H:
            return 1.0 if not any(rem) else 0.0
        tot = 0.0
        for x in allocations(h, rem):
            w = 1.0
            for xi in x:
                w /= math.factorial(xi)
            tot += w * count(h + 1, tuple(r - xi for r, xi in zip(rem, x)))
        return tot

    if count(0, totals) == 0.0:
        raise RuntimeError("no deal is consistent with this information state")
    while True:
        out = _dp_draw(classes, totals, H, allocations, count, pool, rng)
        if weight_ok(out, _weight_list(played_h), rng.random()):
            return out


def _dp_draw(classes, totals, H, allocations, count, pool, rng):
    rem = totals
    alloc = []
    for h in range(H):
        opts, ws = [], []
        for x in allocations(h, rem):
            w = 1.0
            for xi in x:
                w /= math.factorial(xi)
            w *= count(h + 1, tuple(r - xi for r, xi in zip(rem, x)))
            if w > 0:
                opts.append(x)
                ws.append(w)
        ws = np.array(ws)
        x = opts[int(rng.choice(len(opts), p=ws / ws.sum()))]
        alloc.append(x)
        rem = tuple(r - xi for r, xi in zip(rem, x))
    # Within each class, the physical cards are a uniform shuffle.
    out = np.zeros((H, K), np.int64)
    for i, (_, cs) in enumerate(classes):
        phys = np.repeat(np.array(cs), [int(pool[c]) for c in cs])
        rng.shuffle(phys)
        k = 0
        for h in range(H):
            for c in phys[k:k + alloc[h][i]]:
                out[h, c] += 1
            k += alloc[h][i]
    return out


def _assign(pool, sizes, forbid_h, rng, played_h=None, tries=_REJECTION_TRIES):
    """Physical assignment of ``pool`` (counts[K]) to holders: uniform among
    those respecting ``forbid_h``, reweighted by ``played_h`` (see hidden.weight_ok)."""
    sizes = np.asarray(sizes, np.int64)
    if int(pool.sum()) != int(sizes.sum()):
        raise RuntimeError(f"inconsistent resampling: {int(pool.sum())} unseen cards for "
                           f"{int(sizes.sum())} places")
    cards = np.repeat(np.arange(K), pool).astype(np.int64)
    out = np.zeros((len(sizes), K), np.int64)
    if played_h is None:
        played_h = np.zeros((len(sizes), K), np.int64)
    played_h = np.ascontiguousarray(played_h, np.int64)
    st = make_rng_state(int(rng.integers(2**63)), 0)
    if tries and _rejection_assign(cards, sizes, forbid_h, _weight_list(played_h), out, st,
                                   tries):
        return out
    # Rejection is unlikely to succeed: the compiled class-table sampler, or the
    # dynamic programme below where the tables would be too large.
    pr = _table_problem(np.ascontiguousarray(pool, np.int64), sizes,
                        np.ascontiguousarray(forbid_h, np.bool_), played_h)
    if pr.use_table:
        return sample_assignment(pr, st)
    return _exact_assign(pool, sizes, forbid_h, played_h, rng)


_PROBLEMS: "collections.OrderedDict[tuple, object]" = collections.OrderedDict()
_PROBLEMS_KEPT = 8


def _table_problem(pool, sizes, forbid_h, played_h):
    """``hidden.build_problem`` for the table sampler, remembered for the last
    few problems: a search resamples one information state many times, and
    building a large table costs milliseconds (11 players, 3 packs)."""
    key = (pool.tobytes(), sizes.tobytes(), forbid_h.shape, forbid_h.tobytes(),
           played_h.tobytes())
    pr = _PROBLEMS.get(key)
    if pr is None:
        pr = build_problem(pool, sizes, forbid_h, played_h)
        pr.max_tries = 0                       # straight to the tables
        _PROBLEMS[key] = pr
        if len(_PROBLEMS) > _PROBLEMS_KEPT:
            _PROBLEMS.popitem(last=False)
    else:
        _PROBLEMS.move_to_end(key)
    return pr


def _draw(multiset, k, rng):
    """``k`` physical cards drawn without replacement from a count vector, in random order."""
    phys = np.repeat(np.arange(K), multiset)
    rng.shuffle(phys)
    return [int(c) for c in phys[:k]]


def _counts(ids):
    return np.bincount(np.asarray(ids, np.int64), minlength=K)


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
    P, s = state._P, state._b.a
    n = game.rules.players
    h = _Hand(n)
    nd = (1 if int(s[E.S_DEALT]) else 0) if game._deals is not None else int(s[E.S_DEALT])
    h.deal = list(history[:nd])
    pc = int(P[E.P_PASS])
    if pc:
        dealer = int(s[E.S_DEALER])
        for i in range(n):
            q = (dealer + 1 + i) % n
            row = s[P[E.L_PASSSEQ] + q * pc:P[E.L_PASSSEQ] + (q + 1) * pc]
            seq = [int(c) for c in row if c >= 0]
            if seq:
                h.passes[q] = seq
                h.pass_order.append(q)
    seats = np.empty(n * game.rules.hand_size, np.int64)
    cards = np.empty_like(seats)
    m = _plays(P, s, seats, cards)
    h.plays = list(zip(seats[:m].tolist(), cards[:m].tolist()))
    if s[E.S_MOON_CHOICE] >= 0:
        h.moon.append((int(s[E.S_SHOOTER]), int(history[-1])))
    return h


def _split_history(game, history):
    """Replay ``history`` on the engine and split it into hands."""
    P = game._P
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
            if game._deals is not None:
                E.apply_whole_deal(P, s, game._deals[a])
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


def _rebuild_passes(n, me, off, pc, hand_now, played, my_passed, received_by_me, rng):
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
    if game._deals is not None:
        if not hand.deal:
            return []
        d = game._deals[hand.deal[0]][me]
        return [int(c) for c in np.repeat(np.arange(K), d)]
    first = (me - dealer - 1) % n
    return list(hand.deal[first:n * game.rules.hand_size:n])


def _whole_deal_index(game, dealt, kitty):
    table = getattr(game, "_deal_index", None)
    if table is None:
        table = {game._deals[i].tobytes(): i for i in range(len(game._deals))}
        game._deal_index = table
    m = np.zeros_like(game._deals[0])
    for q, d in enumerate(dealt):
        m[q] = d
    if game.rules.kitty_size:
        m[game.rules.players] = kitty
    return table[m.tobytes()]


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
                                     received, rng)
    else:
        seq, dealt = [[] for _ in range(n)], played
    kitty = np.zeros(K, np.int64)
    if r.kitty_size:
        kitty = np.array(r.deck_counts, np.int64) - sum(dealt)
    actions = []
    if game._deals is not None:
        actions.append((pyspiel.PlayerId.CHANCE, _whole_deal_index(game, dealt, kitty)))
    else:
        for a in _deal_sequence(game, dealer, dealt, kitty, me,
                                _my_real_deal(game, hand, dealer, me), rng):
            actions.append((pyspiel.PlayerId.CHANCE, a))
    for q in hand.pass_order:
        for a in seq[q]:
            actions.append((q, a))
    actions.extend(hand.plays)
    actions.extend(hand.moon)
    return actions


def _current_hand_actions(game, state, hand: _Hand, me, rng, tries=_REJECTION_TRIES):
    """A consistent action list for the hand in progress (see module docstring)."""
    r = game.rules
    P, s = state._P, state._b.a
    n, T = r.players, r.hand_size
    ph = int(s[E.S_PHASE])
    dealer = int(s[E.S_DEALER])
    off = int(s[E.S_PASSOFF])
    pc = int(P[E.P_PASS])
    deck = np.array(r.deck_counts, np.int64)
    hands = s[P[E.L_HANDS]:P[E.L_HANDS] + n * K].reshape(n, K).astype(np.int64)
    dealt_real = s[P[E.L_DEALT_HANDS]:P[E.L_DEALT_HANDS] + n * K].reshape(n, K).astype(np.int64)
    my_real_deal = _my_real_deal(game, hand, dealer, me)
    my_passed = hand.passes.get(me, [])
    kitty_hidden = r.kitty_size > 0 and (ph == E.PH_DEAL or s[E.S_KITTY_IN_POT] == 1)
    kitty_real = s[P[E.L_KITTY]:P[E.L_KITTY] + K].astype(np.int64)
    actions = []

    if ph == E.PH_DEAL:
        # Holders: other seats (cards dealt so far), the partial kitty, the undealt rest.
        # Cards are picked up only once the deal is over (see observers), so
        # during the deal even the player's own cards are unseen.
        nd = int(s[E.S_DEALT])
        if game._deals is not None:
            return actions          # nothing dealt yet in a whole deal
        seq = np.repeat(np.arange(K), deck)
        rng.shuffle(seq)
        return [(-1, int(a)) for a in seq[:nd]]

    passes_done = ph != E.PH_PASS and pc > 0 and off != 0
    played = np.zeros((n, K), np.int64)
    if hand.plays:
        pl = np.array(hand.plays, np.int64)
        np.add.at(played, (pl[:, 0], pl[:, 1]), 1)

    if ph == E.PH_PASS:
        others = [q for q in range(n) if q != me]
        sizes = [T] * len(others) + ([r.kitty_size] if kitty_hidden else [])
        pool = deck - dealt_real[me]
        got = _assign(pool, sizes, np.zeros((len(sizes), K), np.bool_), rng)
        dealt = [None] * n
        dealt[me] = dealt_real[me]
        for i, q in enumerate(others):
            dealt[q] = got[i]
        kitty = got[len(others)] if kitty_hidden else kitty_real
        seq = {}
        for q in hand.pass_order:
            k = len(hand.passes[q])
            seq[q] = list(my_passed) if q == me else _draw(dealt[q], k, rng)
    else:
        forbid = np.zeros((n, K), np.bool_)
        _trick_constraints(P, s, forbid)
        others = [q for q in range(n) if q != me]
        sizes = [int(hands[q].sum()) for q in others]
        pool = deck - hands[me] - played.sum(axis=0)
        if not kitty_hidden:
            pool = pool - kitty_real
        forced = np.zeros((len(others), K), np.int64)
        if passes_done:
            rcv = (me + off) % n
            need = np.maximum(0, _counts(my_passed) - played[rcv])
            forced[others.index(rcv)] = need
        if (int(P[E.P_FIRST_LEAD]) == E.FIRST_LEAD_OPENING and s[E.S_NPLAYED] == 0
                and ph == E.PH_PLAY and int(s[E.S_LEADER]) != me):
            # R6 B: the player to lead the first trick holds the opening card.
            i = others.index(int(s[E.S_LEADER]))
            oc = int(P[E.P_OPENING])
            forced[i, oc] = max(forced[i, oc], 1)
        fh = forbid[others]
        if kitty_hidden:
            sizes.append(r.kitty_size)
            fh = np.vstack([fh, np.zeros((1, K), np.bool_)])
            forced = np.vstack([forced, np.zeros((1, K), np.int64)])
        played_h = played[others]
        if kitty_hidden:
            played_h = np.vstack([played_h, np.zeros((1, K), np.int64)])
        # Forced copies count as already held (they were dealt to the receiver's side).
        rem_sizes = [sz - int(f.sum()) for sz, f in zip(sizes, forced)]
        got = _assign(pool - forced.sum(axis=0), rem_sizes, fh, rng, played_h + forced,
                      tries) + forced
        now = [None] * n
        now[me] = hands[me]
        for i, q in enumerate(others):
            now[q] = got[i]
        kitty = got[len(others)] if kitty_hidden else kitty_real
        if passes_done:
            received = hand.passes.get((me - off) % n, [])
            seq_l, dealt = _rebuild_passes(n, me, off, pc, now, played, my_passed,
                                           received, rng)
            seq = {q: seq_l[q] for q in hand.pass_order}
        else:
            dealt = [now[q] + played[q] for q in range(n)]
            seq = {}
    if game._deals is not None:
        actions.append((pyspiel.PlayerId.CHANCE, _whole_deal_index(game, dealt, kitty)))
    else:
        actions.extend([(-1, a) for a in
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
def _draw_into(counts, k, rng, tmp, dst, d0):
    """``k`` physical cards drawn without replacement from ``counts``, in random
    order, written to ``dst[d0:d0 + k]``."""
    m = 0
    for c in range(K):
        for _ in range(counts[c]):
            tmp[m] = c
            m += 1
    for j in range(k):
        r = j + rand_below(rng, m - j)
        t = tmp[j]
        tmp[j] = tmp[r]
        tmp[r] = t
        dst[d0 + j] = tmp[j]


@njit(cache=True)
def _plays(p, s, seats, cards):
    """The cards played so far, in order: (seat, card) into ``seats``/``cards``; how many."""
    n, T = p[E.P_N], p[E.P_HAND]
    m = 0
    for t in range(T):
        leader = s[p[E.L_TLEAD] + t]
        if leader < 0:
            break
        for i in range(n):
            q = (leader + i) % n
            c = s[p[E.L_TCARDS] + t * n + q]
            if c < 0:
                break
            seats[m] = q
            cards[m] = c
            m += 1
    return m


@njit(cache=True)
def _resample_hand(p, s, me, moon_action, rng, tries, out_pl, out_act, s_new):
    """Actions (``out_pl``, ``out_act``) of a history ``me`` cannot tell from
    ``s``, replayed into ``s_new`` (a fresh state). Returns the number of
    actions, ``_FAST_REJECTED`` when ``tries`` rejection tries all failed, or
    ``_FAST_INCONSISTENT``."""
    n, T, pc, ksz = p[E.P_N], p[E.P_HAND], p[E.P_PASS], p[E.P_KITTY]
    ph = s[E.S_PHASE]
    dealer, off = s[E.S_DEALER], s[E.S_PASSOFF]
    LH, LD, LK, LQ = p[E.L_HANDS], p[E.L_DEALT_HANDS], p[E.L_KITTY], p[E.L_PASSSEQ]
    kitty_hidden = ksz > 0 and s[E.S_KITTY_IN_POT] == 1
    H = n - 1 + (1 if kitty_hidden else 0)
    seat = np.empty(H, np.int64)
    h = 0
    for q in range(n):
        if q != me:
            seat[h] = q
            h += 1
    if kitty_hidden:
        seat[H - 1] = -1
    total = 0
    for c in range(K):
        total += p[E.P_DECK + c]
    played = np.zeros((n, K), np.int64)
    sizes = np.zeros(H, np.int64)
    forced = np.zeros((H, K), np.int64)
    forbid_h = np.zeros((H, K), np.bool_)
    pool = np.zeros(K, np.int64)
    tmp = np.empty(total + K, np.int64)
    passes_done = ph != E.PH_PASS and pc > 0 and off != 0
    if ph == E.PH_PASS:
        for c in range(K):
            pool[c] = p[E.P_DECK + c] - s[LD + me * K + c]
        for h in range(H):
            sizes[h] = T if seat[h] >= 0 else ksz
    else:
        play_q = np.empty(n * T, np.int64)
        play_c = np.empty(n * T, np.int64)
        nplays = _plays(p, s, play_q, play_c)
        for i in range(nplays):
            played[play_q[i], play_c[i]] += 1
        forbid = np.zeros((n, K), np.bool_)
        _trick_constraints(p, s, forbid)
        for c in range(K):
            v = p[E.P_DECK + c] - s[LH + me * K + c]
            for q in range(n):
                v -= played[q, c]
            if not kitty_hidden:
                v -= s[LK + c]
            pool[c] = v
        for h in range(H):
            q = seat[h]
            if q < 0:
                sizes[h] = ksz
                continue
            for c in range(K):
                sizes[h] += s[LH + q * K + c]
                forbid_h[h, c] = forbid[q, c]
        if passes_done:
            rcv = (me + off) % n
            hr = rcv - 1 if rcv > me else rcv
            for j in range(pc):
                c = s[LQ + me * pc + j]
                if c >= 0:
                    forced[hr, c] += 1
            for c in range(K):
                forced[hr, c] = max(0, forced[hr, c] - played[rcv, c])
        leader = s[E.S_LEADER]
        if (p[E.P_FIRST_LEAD] == E.FIRST_LEAD_OPENING and s[E.S_NPLAYED] == 0
                and ph == E.PH_PLAY and leader != me):
            hl = leader - 1 if leader > me else leader
            oc = p[E.P_OPENING]
            forced[hl, oc] = max(forced[hl, oc], 1)
    # Forced copies count as already held (they were dealt to the receiver's side).
    played_h = np.zeros((H, K), np.int64)
    m = 0
    for h in range(H):
        q = seat[h]
        for c in range(K):
            f = forced[h, c]
            sizes[h] -= f
            pool[c] -= f
            if q >= 0:
                played_h[h, c] = played[q, c] + f
    ncards = 0
    for c in range(K):
        if pool[c] < 0:
            return _FAST_INCONSISTENT
        ncards += pool[c]
    need = 0
    for h in range(H):
        if sizes[h] < 0:
            return _FAST_INCONSISTENT
        need += sizes[h]
    if ncards != need:
        return _FAST_INCONSISTENT
    cards = np.empty(ncards, np.int64)
    for c in range(K):
        for _ in range(pool[c]):
            cards[m] = c
            m += 1
    got = np.zeros((H, K), np.int64)
    if not _rejection_assign(cards, sizes, forbid_h, _weight_list(played_h), got, rng, tries):
        return _FAST_REJECTED
    # Hands now (or dealt hands, while passing), then passes and dealt hands.
    dealt = np.zeros((n, K), np.int64)
    kitty = np.zeros(K, np.int64)
    for c in range(K):
        kitty[c] = s[LK + c]
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
        for j in range(pc):
            if s[LQ + q * pc + j] >= 0:
                npass[q] += 1
    if ph == E.PH_PASS:
        for c in range(K):
            dealt[me, c] = s[LD + me * K + c]
        for q in range(n):
            if q == me:
                for j in range(npass[q]):
                    seq[q, j] = s[LQ + q * pc + j]
            elif npass[q] > 0:
                _draw_into(dealt[q], npass[q], rng, tmp, seq[q], 0)
    else:
        for c in range(K):
            dealt[me, c] = s[LH + me * K + c]
        for q in range(n):
            for c in range(K):
                dealt[q, c] += played[q, c]            # the hand after passing, in full
        if passes_done:
            giver = (me - off) % n
            for j in range(pc):
                seq[me, j] = s[LQ + me * pc + j]
            if giver != me:
                for j in range(pc):
                    seq[giver, j] = s[LQ + giver * pc + j]
                seq[giver, :pc] = np.sort(seq[giver, :pc])
                shuffle_prefix(seq[giver], pc, rng)    # the order they were chosen in is unseen
            for q in range(n):
                if q != me and q != giver:
                    _draw_into(dealt[(q + off) % n], pc, rng, tmp, seq[q], 0)
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
        for c in range(K):
            for _ in range(dealt[q, c]):
                tmp[k] = c
                k += 1
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
        kk = 0
        for c in range(K):
            for _ in range(kitty[c]):
                tmp[kk] = c
                kk += 1
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
        a += _plays(p, s, out_pl[a:], out_act[a:])
        if s[E.S_MOON_CHOICE] >= 0:
            out_pl[a] = s[E.S_SHOOTER]
            out_act[a] = moon_action
            a += 1
    for i in range(a):
        if E.apply_action(p, s_new, out_act[i]):
            return _FAST_INCONSISTENT
    return a


def _fast_resample(game, state, player, g):
    """The compiled path (single-hand card-by-card games after the deal), or
    None when rejection failed and the exact sampler is needed."""
    P, s = game._P, state._b.a
    L = int(P[E.P_N]) * int(P[E.P_HAND]) * 2 + 64 + int(P[E.P_DECK:E.P_DECK + K].sum())
    out_pl = np.empty(L, np.int64)
    out_act = np.empty(L, np.int64)
    s_new = game._S0.copy()
    moon = state.history()[-1] if s[E.S_MOON_CHOICE] >= 0 else -1
    rng = make_rng_state(int(g.integers(2**63)), 0)
    a = _resample_hand(P, s, player, moon, rng, _FAST_TRIES, out_pl, out_act, s_new)
    if a == _FAST_REJECTED:
        return None
    if a < 0:
        raise RuntimeError("resampling met an inconsistent information state; please report "
                           "this with the state's serialization")
    return _state_with_history(game, out_pl[:a], out_act[:a], s_new)


def resample_from_infostate(state, player: int, rng) -> "pyspiel.State":
    """A state ``player`` cannot tell from ``state``, drawn as the module docstring says.

    Args:
      state: a Cancellation Hearts state.
      player: the observing player (0..n-1).
      rng: a numpy Generator, an int seed, or a callable returning uniform
        floats in [0, 1) (OpenSpiel's ``UniformProbabilitySampler``).
    """
    from .game import CancellationHeartsState
    if not isinstance(state, CancellationHeartsState):
        raise TypeError(f"state must be a Cancellation Hearts state, got {type(state).__name__}")
    game = state._game
    player = _check_player(player, game.rules.players)
    g = _as_generator(rng)
    if (not game.rules.is_match and game._deals is None
            and state._b.a[E.S_PHASE] != E.PH_DEAL):
        fast = _fast_resample(game, state, player, g)
        if fast is not None:
            return fast
        tries = 0                       # rejection failed: the exact sampler
    else:
        tries = _REJECTION_TRIES
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
    return _state_from_actions(game, actions)


@njit(cache=True)
def _replay(p, s, actions, start):
    for i in range(start, actions.shape[0]):
        err = E.apply_action(p, s, actions[i])
        if err:
            return err
    return 0


def _state_from_actions(game, actions):
    """Build the state by running the engine, then attach the history
    (``game._state_with_history``: trusted, no replay through pyspiel)."""
    P = game._P
    s = E.new_state(P)
    acts = np.array([a for _, a in actions], np.int32)
    if game._deals is None:
        err = _replay(P, s, acts, 0)
    else:
        err = 0
        for a in acts:
            if s[E.S_PHASE] == E.PH_DEAL:
                E.apply_whole_deal(P, s, game._deals[a])
            else:
                err = E.apply_action(P, s, a)
                if err:
                    break
    if err:
        raise RuntimeError(f"resampling built an illegal history (error {err}); "
                           f"please report this with the state's serialization")
    players = np.array([pl for pl, _ in actions], np.int64)
    return _state_with_history(game, players, acts, s)
