"""The random numbers of compiled code: splitmix64 streams in ``uint64[1]`` arrays.

Every compiled policy, rollout and sampler draws from an explicit stream (no
global RNG): ``make_rng_state(seed, stream)`` is stream ``stream`` of ``seed``,
independent of the others, and advances in place with every draw. The
simulator gives game ``h`` of a run stream ``h``, so results do not depend on
how games are split between threads. ``fill_cards`` lists the cards of a
multiset of counts, in card order, for a shuffle or a draw to order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["make_rng_state", "rng_start", "rand_below", "rand_uniform", "shuffle_prefix",
           "fill_cards"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_start(seed, stream):
    """The starting word of stream ``stream`` of ``seed`` (see ``make_rng_state``)."""
    return _mix(np.uint64(seed) + _GOLDEN * np.uint64(stream + 1))


@njit(cache=True)
def make_rng_state(seed, stream):
    """Independent stream ``stream`` of ``seed``: a uint64[1] state."""
    st = np.empty(1, np.uint64)
    st[0] = rng_start(seed, stream)
    return st


@njit(cache=True)
def _next(rng):
    rng[0] += _GOLDEN
    return _mix(rng[0])


@njit(cache=True)
def rand_uniform(rng):
    """A float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rand_below(rng, n):
    """An int in [0, n) (multiply-shift on the top 32 bits; n < 2**32)."""
    return int(((_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def shuffle_prefix(a, m, rng):
    """Fisher-Yates shuffle of ``a[:m]`` in place with stream ``rng``."""
    for i in range(m - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True)
def fill_cards(counts, out, start):
    """Card type ``c`` written ``counts[c]`` times, in card order, into ``out``
    from index ``start`` (the physical cards of a multiset of counts, which
    :func:`shuffle_prefix` or a draw then orders); returns the index after the
    last card written."""
    m = start
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            out[m] = c
            m += 1
    return m
