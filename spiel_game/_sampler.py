"""Drawing physical card assignments under constraints, compiled.

The problem (built from an engine state by :func:`spiel_game._hidden.hidden_cards`):
deal a pool of unseen physical cards to holders of given sizes (the other
seats, an untaken kitty), no holder getting a card type it provably does not
hold (``forbid``), each assignment weighted by its number of physical deals
including the copies each holder has played (``1 / C(k + p, k)`` per holder
and card, see :func:`weight_ok`).

Three samplers, one distribution:

* :func:`rejection_assign` -- shuffle and deal, accepted when no holder gets a
  forbidden card and the weight test passes (numba);
* the class-table sampler -- a uniform constrained assignment drawn exactly
  over class-count tables (card types with the same forbidding pattern form a
  class; a multivariate hypergeometric dynamic programme over the holders that
  have constraints, the others filled uniformly), accepted with probability
  equal to its weight (:func:`build_problem` prepares the tables once per
  information state in Python, :func:`sample_hidden` draws in numba,
  :func:`sample_assignment` from Python);
* :func:`exact_assign` -- the same dynamic programme in Python, for problems
  whose tables would be too large.

:func:`assign` picks among them (rejection first, then the tables, remembered
for the last few problems, then the Python programme).
"""

from __future__ import annotations

import collections
import math
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit

from . import _engine as E
from ._rng import make_rng_state, rand_below, rand_uniform, shuffle_prefix

__all__ = ["HiddenProblem", "SamplerWork", "build_problem", "sample_hidden",
           "sample_assignment", "weight_ok", "weight_list", "rejection_assign",
           "exact_assign", "assign", "BINOM", "MAX_TABLE", "REJECTION_TRIES"]

K = E.K
BINOM = np.array([[math.comb(a, b) for b in range(200)] for a in range(200)], np.float64)
BINOM.setflags(write=False)
# Class-count tables above this many entries: rejection only.
MAX_TABLE = 1 << 22
#: Rejection tries of :func:`assign` before the exact samplers take over.
REJECTION_TRIES = 20000


@njit(cache=True)
def _hyper_w(x, f, rem, remf, D, bc):
    """prod_d C(rem_d, x_d) * C(remf, f) (the hypergeometric numerator)."""
    w = bc[remf, f]
    for d in range(D):
        w *= bc[rem[d], x[d]]
    return w


@njit(cache=True)
def _next_alloc(x, rem, allowed_h, D, size):
    """Advance the odometer ``x`` over allocations with x_d <= rem_d, sum <= size."""
    for d in range(D):
        if not allowed_h[d]:
            continue
        tot = 0
        for e in range(D):
            tot += x[e]
        if x[d] < rem[d] and tot < size:
            x[d] += 1
            return True
        x[d] = 0
    return False


@njit(cache=True)
def build_table(dims, strides, allowed, sizes, R, g, bc):
    """g[h, rem]: probability that a uniform assignment of a pool with
    constrained-class counts ``rem`` (and ``R[h] - sum(rem)`` free cards) to
    holders h.. respects every holder's forbidden classes. Holders >= Hc are
    unconstrained (g = 1 there)."""
    Hc = allowed.shape[0]
    D = dims.shape[0]
    S = g.shape[1]
    rem = np.zeros(D, np.int64)
    x = np.zeros(D, np.int64)
    for idx in range(S):
        t = 0
        for d in range(D):
            t += (idx // strides[d]) % (dims[d] + 1)
        g[Hc, idx] = 1.0 if t <= R[Hc] else 0.0
    total = 0
    for d in range(D):
        total += dims[d]
    for h in range(Hc - 1, -1, -1):
        m = sizes[h]
        norm = bc[R[h], m]
        before = R[0] - R[h]              # places of the holders before h
        for idx in range(S):
            tot = 0
            for d in range(D):
                rem[d] = (idx // strides[d]) % (dims[d] + 1)
                tot += rem[d]
            remf = R[h] - tot
            if remf < 0 or total - tot > before:      # impossible, or unreachable from the top
                g[h, idx] = 0.0
                continue
            acc = 0.0
            x[:] = 0
            while True:
                sx = 0
                off = 0
                for d in range(D):
                    sx += x[d]
                    off += x[d] * strides[d]
                f = m - sx
                if 0 <= f <= remf:
                    nxt = g[h + 1, idx - off]
                    if nxt > 0.0:
                        acc += _hyper_w(x, f, rem, remf, D, bc) / norm * nxt
                if not _next_alloc(x, rem, allowed[h], D, m):
                    break
            g[h, idx] = acc


# carries: the class table (dims, strides, allowed), the holders' sizes, the count
# tables (R, g, bc), the draw and its work arrays (xout, wbuf, xbuf) and the rng
@njit(cache=True)
def _sample_tables(dims, strides, allowed, sizes, R, g, bc, xout, wbuf, xbuf, rng):
    """Draw the class counts ``xout[h, d]`` of the constrained holders, holder
    by holder: P(x) ~ hypergeometric(x | rem) * g[h + 1, rem - x]."""
    Hc = allowed.shape[0]
    D = dims.shape[0]
    rem = dims.copy()
    x = np.zeros(D, np.int64)
    for h in range(Hc):
        m = sizes[h]
        tot = 0
        idx = 0
        for d in range(D):
            tot += rem[d]
            idx += rem[d] * strides[d]
        remf = R[h] - tot
        total = 0.0
        nA = 0
        x[:] = 0
        sx = 0
        off = 0
        while True:
            f = m - sx
            if f <= remf:
                nxt = g[h + 1, idx - off]
                if nxt > 0.0:
                    total += _hyper_w(x, f, rem, remf, D, bc) * nxt
                    wbuf[nA] = total
                    xbuf[nA, :D] = x
                    nA += 1
            d = 0
            while d < D:                      # odometer over x_d <= rem_d, sum <= m
                if allowed[h, d] and x[d] < rem[d] and sx < m:
                    x[d] += 1
                    sx += 1
                    off += strides[d]
                    break
                sx -= x[d]
                off -= x[d] * strides[d]
                x[d] = 0
                d += 1
            if d == D:
                break
        u = rand_uniform(rng) * total
        lo_i, hi_i = 0, nA - 1
        while lo_i < hi_i:                    # first cumulative weight > u
            mid = (lo_i + hi_i) // 2
            if wbuf[mid] > u:
                hi_i = mid
            else:
                lo_i = mid + 1
        for d in range(D):
            xout[h, d] = xbuf[lo_i, d]
            rem[d] -= xbuf[lo_i, d]


@njit(cache=True)
def weight_ok(out, wlist, u):
    """Physical-deal weight test (every sampler of this module): accept with
    probability prod_{h,c} 1 / C(k + p, k) for holder h holding k unseen copies
    of card c after playing (or provably holding) p copies of it.
    ``wlist[i] = (h, c, p)`` lists the cells with p > 0 (the others weigh 1)."""
    w = 1.0
    for i in range(wlist.shape[0]):
        k = out[wlist[i, 0], wlist[i, 1]]
        pp = wlist[i, 2]
        for j in range(1, k + 1):
            w *= j / (pp + j)
    return u < w


@njit(cache=True)
def sample_hidden(pr, work, rng):
    """Physical assignment of the pool ``pr.cards`` to holders of ``pr.sizes``
    (a :class:`HiddenProblem`), no holder getting a forbidden card type,
    weighted as :func:`weight_ok`; counts into ``work.out[H, K]`` (a
    :class:`SamplerWork`), holders in the problem's order.

    A uniform constrained draw (rejection: shuffle and deal, for up to
    ``pr.max_tries`` tries; then the exact sampler over class tables), accepted
    by the weight test, else drawn again: exact. Returns False only when
    rejection is the only method and every try failed."""
    while True:
        if _uniform_constrained(pr.cards, pr.cls_start, pr.forbid, pr.sizes, pr.dims,
                                pr.strides, pr.allowed, pr.R, pr.g, pr.bc, pr.use_table,
                                pr.max_tries, work.out, work.buf, work.xout, work.wbuf,
                                work.xbuf, rng):
            if weight_ok(work.out, pr.wlist, rand_uniform(rng)):
                return True
        else:
            return False


# carries: the cards and their classes (cards, cls_start), the constraints (forbid,
# sizes), the class table and count tables (dims, strides, allowed, R, g, bc), the
# method and its budget (use_table, max_tries), the draw and its work arrays (out,
# buf, xout, wbuf, xbuf) and the rng
@njit(cache=True)
def _uniform_constrained(cards, cls_start, forbid, sizes, dims, strides, allowed, R, g, bc,
                         use_table, max_tries, out, buf, xout, wbuf, xbuf, rng):
    H = sizes.shape[0]
    M = cards.shape[0]
    for _ in range(max_tries):
        buf[:M] = cards
        shuffle_prefix(buf, M, rng)
        out[:, :] = 0
        k = 0
        ok = True
        for h in range(H):
            for _ in range(sizes[h]):
                c = buf[k]
                if forbid[h, c]:
                    ok = False
                    break
                out[h, c] += 1
                k += 1
            if not ok:
                break
        if ok:
            return True
    if not use_table:
        return False
    Hc = allowed.shape[0]
    D = dims.shape[0]
    _sample_tables(dims, strides, allowed, sizes, R, g, bc, xout, wbuf, xbuf, rng)
    out[:, :] = 0
    buf[:M] = cards
    # Shuffle each class (D constrained classes, then the free class).
    for i in range(D + 1):
        a, b = cls_start[i], cls_start[i + 1]
        for j in range(b - 1, a, -1):
            r = a + rand_below(rng, j - a + 1)
            t = buf[j]
            buf[j] = buf[r]
            buf[r] = t
    ptr = cls_start[:D + 2].copy()
    for h in range(Hc):
        fcount = sizes[h]
        for d in range(D):
            for _ in range(xout[h, d]):
                out[h, buf[ptr[d]]] += 1
                ptr[d] += 1
            fcount -= xout[h, d]
        for _ in range(fcount):
            out[h, buf[ptr[D]]] += 1
            ptr[D] += 1
    # The leftovers of every class go uniformly to the unconstrained holders.
    m = 0
    for i in range(D + 1):
        for j in range(ptr[i], cls_start[i + 1]):
            buf[M + m] = buf[j]
            m += 1
    shuffle_prefix(buf[M:M + m], m, rng)
    k = M
    for h in range(Hc, H):
        for _ in range(sizes[h]):
            out[h, buf[k]] += 1
            k += 1
    return True


class SamplerWork(NamedTuple):
    """Work arrays of :func:`sample_hidden` (:meth:`HiddenProblem.buffers`)."""

    out: np.ndarray         # int64[H, K] the draw, holders in the problem's order
    buf: np.ndarray         # int64[2 M + 1] shuffled physical cards
    xout: np.ndarray        # int64[Hc, D] class counts of the constrained holders
    wbuf: np.ndarray        # float64[A] cumulative weights of the allocations
    xbuf: np.ndarray        # int64[A, D] the allocations


class HiddenProblem(NamedTuple):
    """One hidden-card problem prepared for :func:`sample_hidden`, holders
    reordered (constrained holders first); read by compiled code as a record.

    ``order[i]``: the caller's holder index of holder ``i``; ``sizes``,
    ``forbid`` and the sampler's output rows follow this order."""

    order: np.ndarray       # int64[H]
    sizes: np.ndarray       # int64[H] places to fill
    forbid: np.ndarray      # bool[H, K]
    wlist: np.ndarray       # int64[L, 3] (holder, card, copies played or forced): weights
    cards: np.ndarray       # int64[M] the physical cards of the pool, grouped by class
    cls_start: np.ndarray   # int64[D + 2]
    dims: np.ndarray        # int64[D] cards of each constrained class
    strides: np.ndarray     # int64[D]
    allowed: np.ndarray     # bool[Hc, D]
    R: np.ndarray           # int64[Hc + 1] places of holders h..
    g: np.ndarray           # float64[Hc + 1, S] (1 x 1 when unused)
    bc: np.ndarray          # float64[200, 200] binomial coefficients (BINOM)
    use_table: bool
    max_tries: int
    accept: float           # probability that one rejection try is valid

    def __repr__(self) -> str:
        """One line of sizes (the default printed the 200 x 200 binomial table)."""
        return (f"HiddenProblem({len(self.order)} holders ({self.allowed.shape[0]} constrained), "
                f"{len(self.cards)} cards in {len(self.dims) + 1} classes, "
                f"{len(self.wlist)} weights, use_table={self.use_table}, "
                f"max_tries={self.max_tries}, "
                f"accept={self.accept:.3g})")

    def buffers(self) -> SamplerWork:
        """Fresh work arrays for :func:`sample_hidden`."""
        Hc, D = self.allowed.shape
        n_alloc = 1
        if self.use_table:
            m = int(self.sizes[:Hc].max())
            n_alloc = int(np.prod(np.minimum(self.dims, m) + 1))
        n_cards = max(1, int(self.cards.shape[0]))
        return SamplerWork(np.zeros((self.sizes.shape[0], K), np.int64),
                           np.zeros(2 * n_cards + 1, np.int64),
                           np.zeros((Hc, max(1, D)), np.int64), np.zeros(n_alloc, np.float64),
                           np.zeros((n_alloc, max(1, D)), np.int64))


def build_problem(pool, sizes, forbid, weights, *, method: str = "auto") -> HiddenProblem:
    """The problem of dealing ``pool`` (counts[K]) to holders of ``sizes`` with
    ``forbid[H, K]``, weighted by ``weights[H, K]`` (copies each holder played
    or provably holds). ``method``: ``auto``; ``table`` or ``rejection`` only
    (for tests). Raises RuntimeError when no assignment is possible."""
    if method not in ("auto", "table", "rejection"):
        raise ValueError(f"method={method!r}; allowed: auto, table, rejection")
    pool = np.asarray(pool, np.int64)
    sizes = np.asarray(sizes, np.int64)
    if (pool < 0).any() or (sizes < 0).any() or int(pool.sum()) != int(sizes.sum()):
        raise RuntimeError(
            f"hidden cards: {int(pool.sum())} unseen cards for {int(sizes.sum())} places "
            f"(inconsistent information state; please report with state.serialize())")
    present = pool > 0
    forbid = np.asarray(forbid, np.bool_) & present[None, :]
    constrained_h = forbid.any(axis=1)
    order = np.concatenate([np.nonzero(constrained_h)[0], np.nonzero(~constrained_h)[0]])
    sizes, forbid = sizes[order], forbid[order]
    played_h = np.ascontiguousarray(np.asarray(weights, np.int64)[order])
    hh, cc = np.nonzero((played_h > 0) & present[None, :])
    wlist = np.stack([hh, cc, played_h[hh, cc]], axis=1).astype(np.int64).reshape(-1, 3)
    Hc = int(constrained_h.sum())
    patterns: dict[tuple, list[int]] = {}
    for c in np.nonzero(present)[0]:
        patterns.setdefault(tuple(forbid[:Hc, c].tolist()), []).append(int(c))
    free_key = tuple([False] * Hc)
    cons = [(k, v) for k, v in patterns.items() if k != free_key]
    classes = cons + [(free_key, patterns.get(free_key, []))]
    D = len(cons)
    cards, starts = [], [0]
    for _, cs in classes:
        for c in cs:
            cards.extend([c] * int(pool[c]))
        starts.append(len(cards))
    dims = np.array([starts[i + 1] - starts[i] for i in range(D)], np.int64)
    strides = np.ones(D, np.int64)
    for d in range(1, D):
        strides[d] = strides[d - 1] * (dims[d - 1] + 1)
    allowed = np.array([[not k[h] for k, _ in cons] for h in range(Hc)], np.bool_).reshape(Hc, D)
    R = np.array([int(sizes[h:].sum()) for h in range(Hc + 1)], np.int64)
    S = int(np.prod(dims + 1)) if D else 1
    use_table = Hc > 0 and S * (Hc + 1) <= MAX_TABLE
    g = np.ones((1, 1))
    accept = 1.0
    if use_table:
        g = np.zeros((Hc + 1, S))
        build_table(dims, strides, allowed, sizes[:Hc].copy(), R, g, BINOM)
        accept = float(g[0, S - 1])
        if accept <= 0.0:
            raise RuntimeError("hidden cards: no deal is consistent with this information state")
    # Rejection while a try is likely to succeed; the table sampler otherwise.
    if Hc == 0:
        max_tries = 1
    elif use_table:
        max_tries = 4 if accept > 0.25 else 0
    else:
        max_tries = 1_000_000
    if method == "table" and use_table:
        max_tries = 0
    elif method == "rejection" and Hc > 0:
        max_tries, use_table = 1_000_000, False
    return HiddenProblem(order, np.ascontiguousarray(sizes), np.ascontiguousarray(forbid),
                         np.ascontiguousarray(wlist), np.array(cards, np.int64),
                         np.array(starts, np.int64), dims, strides,
                         np.ascontiguousarray(allowed), R, np.ascontiguousarray(g), BINOM,
                         bool(use_table), int(max_tries), float(accept))


def sample_assignment(pr: HiddenProblem, rng: np.ndarray):
    """One draw: counts[H, K] in the caller's holder order, or None when only
    rejection was possible and every try failed. ``rng``: a uint64[1] stream."""
    work = pr.buffers()
    if not sample_hidden(pr, work, rng):
        return None
    res = np.empty_like(work.out)
    res[pr.order] = work.out
    return res


# ------------------------------------------------------------- rejection, choice
@njit(cache=True)
def rejection_assign(pool_cards, sizes, forbid_h, wlist, out, rng, tries):
    """Up to ``tries`` uniform shuffles of ``pool_cards`` dealt into holders of
    ``sizes``; True at the first that gives no holder a forbidden card and
    passes the physical-deal weight test (:func:`weight_ok`:
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
def weight_list(played_h):
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


def exact_assign(pool, sizes, forbid_h, played_h, rng):
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

    @cache
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
        if weight_ok(out, weight_list(played_h), rng.random()):
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


def assign(pool, sizes, forbid_h, rng, played_h=None, tries=REJECTION_TRIES):
    """Physical assignment of ``pool`` (counts[K]) to holders: uniform among
    those respecting ``forbid_h``, reweighted by ``played_h`` (see :func:`weight_ok`)."""
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
    if tries and rejection_assign(cards, sizes, forbid_h, weight_list(played_h), out, st,
                                   tries):
        return out
    # Rejection is unlikely to succeed: the compiled class-table sampler, or the
    # dynamic programme below where the tables would be too large.
    pr = _table_problem(np.ascontiguousarray(pool, np.int64), sizes,
                        np.ascontiguousarray(forbid_h, np.bool_), played_h)
    if pr.use_table:
        return sample_assignment(pr, st)
    return exact_assign(pool, sizes, forbid_h, played_h, rng)


_PROBLEMS: collections.OrderedDict[tuple, object] = collections.OrderedDict()
_PROBLEMS_KEPT = 8


def _table_problem(pool, sizes, forbid_h, played_h):
    """``build_problem`` for the table sampler, remembered for the last
    few problems: a search resamples one information state many times, and
    building a large table costs milliseconds (11 players, 3 packs)."""
    key = (pool.tobytes(), sizes.tobytes(), forbid_h.shape, forbid_h.tobytes(),
           played_h.tobytes())
    pr = _PROBLEMS.get(key)
    if pr is None:
        pr = build_problem(pool, sizes, forbid_h, played_h)._replace(max_tries=0)  # tables
        _PROBLEMS[key] = pr
        if len(_PROBLEMS) > _PROBLEMS_KEPT:
            _PROBLEMS.popitem(last=False)
    else:
        _PROBLEMS.move_to_end(key)
    return pr
