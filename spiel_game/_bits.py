"""Bit masks of card types inside kernels: count, find and index set bits.

``popcount`` and ``lowest_bit`` are plain Python (for ``NUMBA_DISABLE_JIT=1``)
and compile to the CPU's popcnt / tzcnt instructions inside kernels;
``nth_bit`` indexes a mask. A legal-action mask (``engine.legal_mask``) is
drawn from with them without listing its actions. They are part of the kernel
API of :mod:`spiel_game._engine`, which imports them.
"""

from __future__ import annotations

from llvmlite import ir as _ir
from numba import njit
from numba.extending import intrinsic as _intrinsic, overload as _overload

__all__ = ["popcount", "lowest_bit", "nth_bit"]


def popcount(x):
    """Number of set bits of a non-negative integer mask."""
    return bin(int(x)).count("1")


def lowest_bit(x):
    """Index of the lowest set bit of a non-zero integer mask."""
    x = int(x)
    return (x & -x).bit_length() - 1


@_intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@_intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], _ir.Constant(_ir.IntType(1), 0))
    return x(x), codegen


@_overload(popcount, inline='always')
def _popcount_jit(x):
    return lambda x: _ctpop(x)


@_overload(lowest_bit, inline='always')
def _lowest_bit_jit(x):
    return lambda x: _cttz(x)


@njit(cache=True, inline='always')
def nth_bit(m, j):
    """Index of the ``j``-th lowest set bit of mask ``m`` (``j < popcount(m)``)."""
    for _ in range(j):
        m &= m - 1
    return lowest_bit(m)
