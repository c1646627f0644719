"""Metropolis-Hastings moves of weighted worlds, and chains carried between decisions.

A root-level pool (:class:`solvers.beliefs._replay.WorldPool`) weighs prior
draws; when no candidate is close to the worlds the plays point to, weighting
alone cannot help. The moves here bring the worlds closer: :func:`mh_step`
(two other players swap a card, accepted by the Metropolis-Hastings rule
towards the posterior under the opponent model, :func:`move_pool` for a pool),
and :func:`advance_world` / :func:`advance_pool`, which carry the worlds of an
earlier decision of the same hand forward to the current one (persistent
chains). Every swap keeps what the observer knows (:func:`move_constraints`).

Everything random comes from the caller's explicit splitmix64 stream
(``uint64[1]``, :mod:`spiel_game._rng`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._determinize import determinize
from spiel_game._hidden import played_counts, proven_absent
from spiel_game._rng import rand_below, rand_uniform

from ._likelihood import FAILED, NEG_INF, belief_log_likelihood, candidate_world, complete_world

__all__ = ["mh_step", "move_pool", "move_constraints", "advance_world", "advance_pool"]

K = E.K


@njit(cache=True)
def move_constraints(p, root, me):
    """What a card swap between two other players must respect, from the
    observer's root state: ``(played, known)``, int64[n, K] each: the copies of
    each card every seat played this hand
    (:func:`spiel_game._hidden.played_counts`), and the copies the observer
    knows a seat holds (the cards ``me`` passed that the receiver has not
    played yet: ``max(0, passed - played)``, the determinizer's forced cards).
    Both are the same in every world of the information set."""
    n, pc = p[E.P_N], p[E.P_PASS]
    played = np.zeros((n, K), np.int64)
    played_counts(p, root, played)
    known = np.zeros((n, K), np.int64)
    off = root[E.S_PASSOFF] % n
    if pc > 0 and off != 0:
        rcv = (me + off) % n
        mine = E.passed(p, root, me)
        for c in range(K):
            known[rcv, c] = max(0, mine[c] - played[rcv, c])
    return played, known


@njit(cache=True)
def _movers(p, w, me):
    """The other seats that still hold cards (``live``, int64) and every seat's
    hand size (``sizes``, int64[n]): what :func:`mh_step` draws from. Swaps
    keep both, so :func:`move_pool` computes them once per pool."""
    n = p[E.P_N]
    sizes = np.zeros(n, np.int64)
    k = 0
    for q in range(n):
        sizes[q] = E.hand(p, w, q).sum()
        if q != me and sizes[q] > 0:
            k += 1
    live = np.empty(k, np.int64)
    j = 0
    for q in range(n):
        if q != me and sizes[q] > 0:
            live[j] = q
            j += 1
    return live, sizes


@njit(cache=True)
def _log_holdings(k, pl):
    """log C(k + pl, k): a holder of ``k`` unseen and ``pl`` played copies of a
    card type is drawn with weight ``1 / C(k + pl, k)`` (the determinizer's
    number-of-physical-deals factor)."""
    return math.lgamma(k + pl + 1.0) - math.lgamma(k + 1.0) - math.lgamma(pl + 1.0)


@njit(cache=True)
def _pick_card(h, size, rng):
    """A card type drawn with probability ``h[c] / size`` (a uniform physical card
    of the hand ``h``)."""
    r = rand_below(rng, size)
    for c in range(K):
        if r < h[c]:
            return c
        r -= h[c]
    return -1


# carries: the world, its log-likelihood and the observer (p, w, ll, me), what the observer knows
# (played, known, live, sizes), the candidate's buffer (cand), the rng and the belief (rng, bel)
@njit(cache=True)
def mh_step(p, w, ll, me, played, known, live, sizes, cand, rng, bel):
    """One Metropolis-Hastings step on the complete world ``w`` (log-likelihood
    ``ll``) targeting the posterior prior x likelihood: two other seats and a
    uniform physical card of each are drawn and swapped (a symmetric proposal
    on physical assignments), the unseen passes are drawn again from their
    prior (:func:`complete_world`), and the result is accepted with
    probability ``min(1, prior ratio x likelihood ratio)``; the prior ratio is
    the product of the determinizer's factors ``C(k + pl, k)`` of the changed
    holdings. Swaps that would touch a card the observer knows a seat holds
    (``known``), leave a play illegal or a pass impossible are rejected (their
    target is 0 or they are excluded in both directions). On acceptance ``w``
    becomes the new world. ``live`` and ``sizes``: the other seats holding cards
    and every seat's hand size (:func:`_movers`; swaps keep them). Returns the
    world's log-likelihood after the step
    (``ll`` when rejected) and counts the step in ``bel.stats[3:5]`` (steps,
    accepted)."""
    bel.stats[3] += 1.0
    k = live.shape[0]
    if k < 2:
        return ll
    i1 = rand_below(rng, k)
    i2 = rand_below(rng, k - 1)
    if i2 >= i1:
        i2 += 1
    q1 = live[int(i1)]
    q2 = live[int(i2)]
    h1 = E.hand(p, w, q1)
    h2 = E.hand(p, w, q2)
    c1 = _pick_card(h1, sizes[q1], rng)
    c2 = _pick_card(h2, sizes[q2], rng)
    if c1 == c2:
        bel.stats[4] += 1.0                    # the same type: the world is unchanged
        return ll
    if known[q1, c1] + known[q1, c2] + known[q2, c1] + known[q2, c2] > 0:
        return ll
    log_prior = (_log_holdings(h1[c1], played[q1, c1]) + _log_holdings(h1[c2], played[q1, c2])
                 + _log_holdings(h2[c1], played[q2, c1]) + _log_holdings(h2[c2], played[q2, c2])
                 - _log_holdings(h1[c1] - 1, played[q1, c1])
                 - _log_holdings(h1[c2] + 1, played[q1, c2])
                 - _log_holdings(h2[c1] + 1, played[q2, c1])
                 - _log_holdings(h2[c2] - 1, played[q2, c2]))
    cand[:] = w
    g1 = E.hand(p, cand, q1)
    g2 = E.hand(p, cand, q2)
    g1[c1] -= 1
    g1[c2] += 1
    g2[c2] -= 1
    g2[c1] += 1
    u1 = E.suit_counts(p, cand, q1)
    u2 = E.suit_counts(p, cand, q2)
    u1[E.SUIT_OF[c1]] -= 1
    u1[E.SUIT_OF[c2]] += 1
    u2[E.SUIT_OF[c2]] -= 1
    u2[E.SUIT_OF[c1]] += 1
    if not complete_world(p, cand, me, rng, bel.seats, bel.cards, bel.tmp):
        return ll
    new = belief_log_likelihood(p, cand, me, bel, rng)
    if new == NEG_INF:
        return ll
    if rand_uniform(rng) < math.exp(min(0.0, log_prior + new - ll)):
        w[:] = cand
        bel.stats[4] += 1.0
        return new
    return ll


@njit(cache=True)
def move_pool(p, pool, logw, m, me, steps, rng, bel):
    """``steps`` :func:`mh_step` moves of each world ``pool[:m]`` (log-likelihoods
    ``logw[:m]``, updated in place)."""
    played, known = move_constraints(p, pool[0], me)
    live, sizes = _movers(p, pool[0], me)
    cand = bel.cand
    for i in range(m):
        ll = logw[i]
        for _ in range(steps):
            ll = mh_step(p, pool[i], ll, me, played, known, live, sizes, cand, rng, bel)
        logw[i] = ll


@njit(cache=True)
def _movable(target, known, forbid, q, to, avoid):
    """A card type ``q`` can hand to seat ``to``: held beyond what the observer
    knows ``q`` holds, not proven absent from ``to``, not ``avoid``; drawn
    uniformly over such physical cards by the caller's ``k``. Returns the
    number of such cards (the caller draws among them with :func:`_nth_movable`)."""
    cnt = 0
    for d in range(K):
        if d != avoid and not forbid[to, d]:
            v = target[q, d] - known[q, d]
            if v > 0:
                cnt += v
    return cnt


@njit(cache=True)
def _nth_movable(target, known, forbid, q, to, avoid, k):
    for d in range(K):
        if d != avoid and not forbid[to, d]:
            v = target[q, d] - known[q, d]
            if v > 0:
                if k < v:
                    return d
                k -= v
    return -1


@njit(cache=True)
def _swap_out(target, known, forbid, q, c, me, n, rng):
    """Give one copy of ``c`` away from ``q`` to another seat ``r`` (not the
    observer, ``c`` not proven absent from ``r``) in exchange for a card ``r``
    can give ``q``; the partner is drawn uniformly among those that can.
    Returns False when no seat can."""
    start = np.int64(rand_below(rng, n))
    for j in range(n):
        r = (start + j) % n
        if r == me or r == q or forbid[r, c]:
            continue
        cnt = _movable(target, known, forbid, r, q, c)
        if cnt == 0:
            continue
        d = _nth_movable(target, known, forbid, r, q, c, np.int64(rand_below(rng, cnt)))
        _swap(target, q, r, c, d)
        return True
    return False


@njit(cache=True)
def _swap(target, a, b, ca, cb):
    """Seat ``a`` gives one ``ca`` to seat ``b``, which gives one ``cb`` back."""
    target[a, ca] -= 1
    target[b, ca] += 1
    target[b, cb] -= 1
    target[a, cb] += 1


# carries: the earlier world, the new root and the observer (p, old, root, me), the result (out),
# the rng, the determinizer and the belief (rng, det, bel), the work arrays (seats, cards) and the
# constraints (forbid, known)
@njit(cache=True)
def advance_world(p, old, root, me, out, rng, det, bel, seats, cards, forbid, known):
    """Carry the complete world ``old`` (a world of an earlier decision of the
    same hand) forward to the observer's current ``root``, into ``out``: every
    other seat keeps its cards in ``old`` minus what it has played since. A
    play of a card ``old`` put in another seat's hand is repaired by a swap
    (the player had that copy after all: the seat that had it in ``old`` takes
    one of the player's cards instead), and a card a seat has since been
    proven not to hold (``forbid``, :func:`spiel_game._hidden.proven_absent`
    at ``root``) is swapped with a seat that may hold it; no swap moves a
    card the observer knows a seat holds (``known``, :func:`move_constraints`).
    The result is completed (:func:`complete_world`) and weighed; if a repair
    is impossible or the world still contradicts the plays, ``out`` is a
    fresh determinization of ``root`` instead (a fresh chain). Returns
    ``(log-likelihood, carried)``; the log-likelihood is ``FAILED`` (+inf) when
    even the fresh draw failed. Work arrays ``seats``, ``cards``: int64[n * t]."""
    n = p[E.P_N]
    out[:] = root
    if not determinize(p, out, rng, det):
        return FAILED, False
    target = np.zeros((n, K), np.int64)
    for q in range(n):
        if q != me:
            h = E.hand(p, old, q)
            for c in range(K):
                target[q, c] = h[c]
    m0 = E.plays(p, old, seats, cards)
    m1 = E.plays(p, root, seats, cards)
    ok = m1 >= m0
    for i in range(m0, m1):
        if not ok:
            break
        q = seats[i]
        c = cards[i]
        if q == me:
            continue
        if target[q, c] == 0:
            # q held that copy: the seat that had it in ``old`` gets one of q's.
            r = -1
            start = np.int64(rand_below(rng, n))
            for j in range(n):
                x = (start + j) % n
                if x != me and x != q and target[x, c] > known[x, c]:
                    r = x
                    break
            if r < 0:
                ok = False
                break
            cnt = _movable(target, known, forbid, q, r, c)
            if cnt == 0:
                ok = False
                break
            d = _nth_movable(target, known, forbid, q, r, c, np.int64(rand_below(rng, cnt)))
            _swap(target, r, q, c, d)
        target[q, c] -= 1
    for q in range(n):
        if not ok:
            break
        if q == me:
            continue
        for c in range(K):
            while ok and forbid[q, c] and target[q, c] > 0:
                ok = _swap_out(target, known, forbid, q, c, me, n, rng)
    if ok:                                       # the same unseen cards, the same sizes
        for q in range(n):
            if q == me:
                continue
            h = E.hand(p, out, q)
            tot = 0
            for c in range(K):
                tot += h[c] - target[q, c]
            if tot != 0:
                ok = False
        for c in range(K):
            if not ok:
                break
            v = 0
            for q in range(n):
                if q != me:
                    v += E.hand(p, out, q)[c] - target[q, c]
            if v != 0:
                ok = False
    if ok:
        bel.cand[:] = out
        for q in range(n):
            if q == me:
                continue
            h = E.hand(p, bel.cand, q)
            su = E.suit_counts(p, bel.cand, q)
            for u in range(4):
                su[u] = 0
            for c in range(K):
                h[c] = target[q, c]
                su[E.SUIT_OF[c]] += target[q, c]
        if complete_world(p, bel.cand, me, rng, bel.seats, bel.cards, bel.tmp):
            ll = belief_log_likelihood(p, bel.cand, me, bel, rng)
            if ll != NEG_INF:
                out[:] = bel.cand
                return ll, True
    if not complete_world(p, out, me, rng, bel.seats, bel.cards, bel.tmp):
        return NEG_INF, False
    ll = belief_log_likelihood(p, out, me, bel, rng)
    return ll, False


# carries: the earlier pool, the new root and the observer (p, old, root, me), the new pool and
# its log-weights (new, logw), the rng, the determinizer and the belief (rng, det, bel)
@njit(cache=True)
def advance_pool(p, old, root, me, new, logw, rng, det, bel):
    """:func:`advance_world` for every world of ``old`` into ``new`` (same
    shape), log-likelihoods into ``logw``. A world whose carried and fresh
    versions both have weight 0 is replaced by further fresh draws (up to
    100). Returns how many worlds were carried (not redrawn), or -1 when the
    sampler failed."""
    n, t = p[E.P_N], p[E.P_HAND]
    seats = np.empty(n * t, np.int64)
    cards = np.empty(n * t, np.int64)
    forbid = np.zeros((n, K), np.bool_)
    proven_absent(p, root, forbid)
    _, known = move_constraints(p, root, me)
    carried = 0
    for i in range(old.shape[0]):
        ll, kept = advance_world(p, old[i], root, me, new[i], rng, det, bel, seats, cards,
                                 forbid, known)
        tries = 0
        while ll == NEG_INF and tries < 100:
            ll = candidate_world(p, root, new[i], rng, det, bel)
            tries += 1
        if ll == FAILED or ll == NEG_INF:
            return -1
        logw[i] = ll
        if kept:
            carried += 1
    return carried
