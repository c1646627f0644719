"""Whole deals: counting and enumerating distinct deals of a multiset deck.

A *distinct deal* gives each seat (and the kitty) a multiset of card types.
Its probability under a uniform shuffle is
``prod_c multinomial(copies_c; k_c1..k_cm) / multinomial(N; h_1..h_m)``.

Counting (:func:`count_deals`) never lists deals. The number of distinct deals
is the number of nonnegative integer matrices with one row per card type
(summing to its copies) and one column per seat or kitty (summing to its
size). It is counted one column at a time; since card types with the same
number of copies left are interchangeable, the state after some columns is
only *how many card types have r copies left* (r = 0..max copies), and the
last column takes what is left. For the decks of this game (at most 4 copies
of a card) that is a few thousand states at most; with at most 2 copies
(every balanced and kitty deck) any deck is counted in well under a second.

:func:`whole_deal_count` is what ``deal="whole"`` uses: it refuses at once when
the lower bound ``N! / (prod h_j! * prod_t M(c_t))`` is above the limit (each
distinct deal stands for at most ``prod_t M(c_t)`` deals of labelled cards,
``M(c)`` the largest multinomial of ``c`` copies over the seats), and counts
exactly otherwise.
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import lru_cache

import numpy as np

__all__ = ["count_deals", "deal_count_bounds", "whole_deal_count", "enumerate_deals",
           "WHOLE_DEAL_LIMIT"]

#: Largest number of distinct deals ``deal="whole"`` accepts.
WHOLE_DEAL_LIMIT = 2_000_000

#: Work (inner-loop steps) spent on an exact count for a refusal message before
#: settling for the lower bound; deterministic, about 0.2 s here.
_MESSAGE_WORK = 150_000


class _TooMuchWork(Exception):
    pass


def _compositions(total: int, parts: int):
    """All tuples of ``parts`` non-negative ints summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _normalize(deck_counts, sizes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(copies of each card type present, sorted; sizes, sorted), checked."""
    copies, out_sizes = [], []
    for name, values, into in (("deck_counts", deck_counts, copies), ("sizes", sizes, out_sizes)):
        for v in np.asarray(values).ravel().tolist():
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be non-negative integers, got {v!r}")
            into.append(v)
    return tuple(sorted(c for c in copies if c > 0)), tuple(sorted(out_sizes))


_SPLITS: dict[tuple[int, int, int], tuple] = {}


def _splits(r: int, x: int, hmax: int, work: list) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """``x`` card types with ``r`` copies left each give a column ``k`` copies
    (``t[k]`` of them give ``k``), at most ``hmax`` in all: tuples
    ``(copies given, t, number of ways)``; ``t[k]`` types are left with ``r - k``."""
    key = (r, x, hmax)
    if key in _SPLITS:
        return _SPLITS[key]
    out = []
    fx = math.factorial(x)

    def go(k: int, left: int, given: int, t: tuple, ways: int) -> None:
        if k == 0:
            work[0] -= 4                       # costs about 4 steps of _column
            if work[0] < 0:
                raise _TooMuchWork
            out.append((given, (left,) + t, ways // math.factorial(left)))
            return
        for tk in range(min(left, (hmax - given) // k) + 1):
            go(k - 1, left - tk, given + k * tk, (tk,) + t, ways // math.factorial(tk))

    go(r, x, 0, (), fx)
    result = tuple(out)
    if len(_SPLITS) < 4096:
        _SPLITS[key] = result
    return result


def _column(a: tuple[int, ...], h: int, work: list[int]) -> dict[tuple[int, ...], int]:
    """One column of ``h`` cards taken from class vector ``a`` (``a[r]``: card
    types with ``r`` copies left): ``{class vector after: number of ways}``."""
    top = len(a) - 1
    partial = {((a[0],) + (0,) * top, 0): 1}      # (classes after, taken so far) -> ways
    left = sum(r * a[r] for r in range(top + 1))  # copies in classes not split yet
    for r in range(top, 0, -1):
        x = a[r]
        if not x:
            continue
        left -= r * x
        nxt: dict = defaultdict(int)
        splits = _splits(r, x, h, work)
        for (b, taken), w in partial.items():
            work[0] -= len(splits)
            if work[0] < 0:
                raise _TooMuchWork
            for given, t, ways in splits:
                got = taken + given
                if got > h or got + left < h:
                    continue
                nb = list(b)
                for k, tk in enumerate(t):
                    nb[r - k] += tk
                nxt[(tuple(nb), got)] += w * ways
        partial = nxt
    return {b: w for (b, taken), w in partial.items() if taken == h}


def _count(copies: tuple[int, ...], sizes: tuple[int, ...], work: int | None) -> int:
    if sum(copies) != sum(sizes):
        return 0
    if not copies:
        return 1
    if len(sizes) == 2:                        # [z^h] prod_t (1 + z + ... + z^c_t)
        poly = [1]
        for c in copies:
            nxt = [0] * (len(poly) + c)
            for i, v in enumerate(poly):
                for k in range(c + 1):
                    nxt[i + k] += v
            poly = nxt
        return poly[sizes[0]]
    top = max(copies)
    states = {tuple(copies.count(r) for r in range(top + 1)): 1}
    budget = [work if work is not None else math.inf]
    for h in sizes[:-1]:                       # the largest column takes the rest
        nxt: dict = defaultdict(int)
        for a, w in states.items():
            for b, ways in _column(a, h, budget).items():
                nxt[b] += w * ways
        states = nxt
    return sum(states.values())


@lru_cache(maxsize=256)
def _count_cached(copies, sizes) -> int:
    return _count(copies, sizes, None)


def count_deals(deck_counts, sizes) -> int:
    """Number of distinct ways to split the multiset ``deck_counts`` (copies of
    each card type) into labelled groups of ``sizes`` (0 if the sizes do not
    add up to the deck). Exact; see the module docstring for the method."""
    return _count_cached(*_normalize(deck_counts, sizes))


def _most_ways(c: int, m: int) -> int:
    """The largest multinomial ``c! / prod k_j!`` over splits of ``c`` into ``m`` parts
    (the most even split)."""
    q, r = divmod(c, m)
    return math.factorial(c) // (math.factorial(q + 1) ** r * math.factorial(q) ** (m - r))


def deal_count_bounds(deck_counts, sizes) -> tuple[int, int]:
    """``(lower, upper)`` bounds on :func:`count_deals`, instantly.

    Deals of labelled cards number ``N! / prod h_j!``; one distinct deal stands
    for ``prod_t multinomial(c_t; k_t1..k_tm)`` of them, between 1 and the
    product of the largest such multinomials (most even splits). The upper bound
    is also at most ``prod_t C(c_t + m - 1, m - 1)`` (each card type split on its
    own)."""
    copies, sz = _normalize(deck_counts, sizes)
    if sum(copies) != sum(sz):
        return 0, 0
    labelled = math.factorial(sum(sz))
    for h in sz:
        labelled //= math.factorial(h)
    m = len(sz)
    perms = math.prod(_most_ways(c, m) for c in copies)
    lower = -(-labelled // perms)
    upper = min(labelled, math.prod(math.comb(c + m - 1, m - 1) for c in copies))
    return lower, upper


def _too_many(text: str, limit: int) -> ValueError:
    return ValueError(
        f"deal='whole' would need {text} distinct deals, more than the limit of "
        f"{limit:,} (WHOLE_DEAL_LIMIT); use a smaller custom deck (fewer suits, "
        f"ranks or packs) or deal='cards'")


def _amount(d: int) -> str:
    """``2,704,156``; a count of 16 digits or more as ``about 6.731e+62 (= 6731...)``."""
    return f"{d:,}" if d < 10 ** 15 else f"about {d:.3e} (= {d})"


def whole_deal_count(deck_counts, sizes, limit: int = WHOLE_DEAL_LIMIT) -> int:
    """The number of distinct deals if it is at most ``limit``; otherwise a
    ValueError naming ``deal='whole'``, the count (or, when even counting
    would be slow, a lower bound) and the limit. Answers within a second for
    every deck of the game."""
    copies, sz = _normalize(deck_counts, sizes)
    lower, upper = deal_count_bounds(copies, sz)
    if lower > limit:
        try:
            d = _count(copies, sz, _MESSAGE_WORK)
        except _TooMuchWork:
            raise _too_many(f"at least {lower:,}" if lower < 10 ** 15 else
                            f"at least {lower:.3e}", limit) from None
        raise _too_many(_amount(d), limit)
    d = _count_cached(copies, sz)
    if d > limit:
        raise _too_many(_amount(d), limit)
    return d


def enumerate_deals(deck_counts, sizes, limit: int = WHOLE_DEAL_LIMIT):
    """All distinct deals and their exact probabilities.

    Returns ``(deals, probs)`` with ``deals`` of shape ``[D, len(sizes), 53]``
    (int8 copy counts) in lexicographic order (card types in id order; for each,
    the splits of its copies in :func:`_compositions` order) and ``probs`` of
    shape ``[D]`` (float64, summing to 1; each the correctly rounded quotient of
    two exact integers). Raises ValueError naming the count and the limit if
    ``D > limit`` (see :func:`whole_deal_count`), before listing anything.

    Built type by type over all partial deals at once (numpy); every partial
    deal can be completed (any multiset fits groups whose sizes add up to it),
    so no level holds more than ``D`` rows.
    """
    d = whole_deal_count(deck_counts, sizes, limit)      # refuses big decks at once
    deck_counts = np.asarray(deck_counts)
    sizes = [int(x) for x in sizes]
    ids = [c for c in range(len(deck_counts)) if deck_counts[c] > 0]
    m = len(sizes)
    total_ways = math.factorial(int(deck_counts.sum()))
    for x in sizes:
        total_ways //= math.factorial(x)

    room = np.array([sizes], np.int16)                  # [rows, m] room left per group
    levels = []                                         # per type: (comps, parent, choice)
    for c in ids:
        k = int(deck_counts[c])
        comps = np.array(list(_compositions(k, m)), np.int8)           # [P, m]
        weights = [math.factorial(k) // math.prod(math.factorial(int(a)) for a in comp)
                   for comp in comps]
        parents, choices = [], []
        step = max(1, 4_000_000 // len(comps))
        for lo in range(0, room.shape[0], step):
            fits = (room[lo:lo + step, None, :] >= comps[None, :, :]).all(axis=2)
            i, j = np.nonzero(fits)                     # row-major: parent, then split
            parents.append(i + lo)
            choices.append(j)
        parent = np.concatenate(parents)
        choice = np.concatenate(choices).astype(np.int16)
        room = room[parent] - comps[choice]
        levels.append((c, comps, parent, choice, weights))
    assert room.shape[0] == d and not room.any()

    exact = math.prod(max(w) for *_, w in levels) < 2 ** 53 and total_ways < 2 ** 53
    ways = np.ones(d, np.int64 if exact else object)
    held = np.empty((d, m, len(ids)), np.int8)          # copies of each present type
    rows = np.arange(d)
    for t in range(len(levels) - 1, -1, -1):
        c, comps, parent, choice, weights = levels[t]
        pick = choice[rows]
        held[:, :, t] = comps[pick]
        ways = ways * np.array(weights, np.int64 if exact else object)[pick]
        rows = parent[rows]
    out = np.zeros((d, m, len(deck_counts)), np.int8)
    out[:, :, ids] = held
    if exact:       # both exact in float64: the quotient is correctly rounded
        probs = ways.astype(np.float64) / float(total_ways)
    else:
        probs = np.array([w / total_ways for w in ways.tolist()], np.float64)
    return out, probs
