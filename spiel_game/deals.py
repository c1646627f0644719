"""Whole deals: counting and enumerating distinct deals of a multiset deck.

A *distinct deal* gives each seat (and the kitty) a multiset of card types.
Its probability under a uniform shuffle is
``prod_c multinomial(copies_c; k_c1..k_cm) / multinomial(N; h_1..h_m)``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["count_deals", "enumerate_deals", "WHOLE_DEAL_LIMIT"]

#: Largest number of distinct deals ``deal="whole"`` accepts.
WHOLE_DEAL_LIMIT = 2_000_000


def _compositions(total: int, parts: int):
    """All tuples of ``parts`` non-negative ints summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def count_deals(deck_counts, sizes) -> int:
    """Number of distinct ways to split the multiset ``deck_counts`` into groups of ``sizes``."""
    types = [int(c) for c in deck_counts if c > 0]
    sizes = tuple(int(s) for s in sizes)

    @lru_cache(maxsize=None)
    def go(i: int, remaining: tuple[int, ...]) -> int:
        if i == len(types):
            return 1 if not any(remaining) else 0
        total = 0
        for comp in _compositions(types[i], len(remaining)):
            if all(c <= r for c, r in zip(comp, remaining)):
                total += go(i + 1, tuple(r - c for r, c in zip(remaining, comp)))
        return total

    return go(0, sizes)


def enumerate_deals(deck_counts, sizes, limit: int = WHOLE_DEAL_LIMIT):
    """All distinct deals and their exact probabilities.

    Returns ``(deals, probs)`` with ``deals`` of shape ``[D, len(sizes), 53]``
    (int8 copy counts) in lexicographic order and ``probs`` of shape ``[D]``
    (float64, summing to 1). Raises ValueError naming the count if ``D > limit``.
    """
    deck_counts = np.asarray(deck_counts)
    d = count_deals(deck_counts, sizes)
    if d > limit:
        raise ValueError(
            f"deal='whole' would need {d:,} distinct deals, more than the limit of "
            f"{limit:,}; use a smaller custom deck or deal='cards'")
    ids = [c for c in range(len(deck_counts)) if deck_counts[c] > 0]
    m = len(sizes)
    out = np.zeros((d, m, len(deck_counts)), np.int8)
    probs = np.zeros(d, np.float64)
    total_ways = math.factorial(int(deck_counts.sum()))
    for s in sizes:
        total_ways //= math.factorial(int(s))
    row = [0]
    cur = np.zeros((m, len(deck_counts)), np.int8)

    def go(i: int, remaining: tuple[int, ...], ways: int):
        if i == len(ids):
            if not any(remaining):
                out[row[0]] = cur
                probs[row[0]] = ways / total_ways
                row[0] += 1
            return
        c = ids[i]
        k = int(deck_counts[c])
        for comp in _compositions(k, m):
            if all(a <= r for a, r in zip(comp, remaining)):
                cur[:, c] = comp
                w = math.factorial(k)
                for a in comp:
                    w //= math.factorial(a)
                go(i + 1, tuple(r - a for r, a in zip(remaining, comp)), ways * w)
        cur[:, c] = 0

    go(0, tuple(int(s) for s in sizes), 1)
    assert row[0] == d
    return out, probs
