"""The uniform policy (the only policy of the rules package).

A policy is an ``@njit`` function ``policy(p, s, legal, k, rng) -> action``
choosing one of ``legal[:k]`` for the player to move in engine state ``s``
(see :mod:`spiel_game._simulator`). The rules package holds only the uniform
policy; the strategies live in :mod:`solvers` (the heuristic player in
:mod:`solvers._base.heuristic`, the passing conventions in :mod:`solvers._base.passing`)
and the random numbers in :mod:`spiel_game._rng`.
"""

from __future__ import annotations

from numba import njit

from . import _engine as E
from ._engine import MOON_SUBTRACT_ACTION, PH_MOON, S_PHASE
from ._rng import rand_below

__all__ = ["uniform_policy", "uniform_action"]


@njit(cache=True)
def uniform_policy(p, s, legal, k, rng):
    """Uniform over ``legal[:k]``."""
    return legal[rand_below(rng, k)]


@njit(cache=True, inline='always')
def uniform_action(p, s, rng):
    """``uniform_policy`` without the list: the same action from the same draw
    (``legal[j]`` is the ``j``-th set bit of the engine's ``legal_mask``)."""
    if s[S_PHASE] == PH_MOON:
        return MOON_SUBTRACT_ACTION + rand_below(rng, 2)
    m = E.legal_mask(p, s)
    return E.nth_bit(m, rand_below(rng, E.popcount(m)))
