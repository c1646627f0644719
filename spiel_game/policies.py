"""The uniform policy, and the former home of the strategies.

A policy is an ``@njit`` function ``policy(p, s, legal, k, rng) -> action``
choosing one of ``legal[:k]`` for the player to move in engine state ``s``
(see :mod:`spiel_game.simulator`). The rules package holds only the uniform
policy; the strategies live in :mod:`solvers` (the heuristic player in
:mod:`solvers.heuristic`, the passing conventions in :mod:`solvers.passing`)
and the random numbers in :mod:`spiel_game.rng`.

For code not yet moved, the old names still resolve here: the random-number
functions (re-exported from :mod:`spiel_game.rng`) and, lazily and deprecated,
``heuristic_policy``, ``unseen_copies``, ``KS``, ``AS``, ``CONVENTIONS``,
``pass_scores`` and ``convention_policy`` (imported from :mod:`solvers` on first
use; import them from there instead).
"""

from __future__ import annotations

from numba import njit

from . import engine as E
from .engine import MOON_SUBTRACT_ACTION, PH_MOON, S_PHASE
from .rng import make_rng_state, rand_below, rand_uniform, rng_start, shuffle_prefix

__all__ = ["uniform_policy", "uniform_action", "make_rng_state", "rng_start", "rand_below",
           "rand_uniform", "shuffle_prefix"]


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


# Deprecated names, for the modules that still import the strategies from here.
_MOVED = {"heuristic_policy": "solvers.heuristic", "unseen_copies": "solvers.heuristic",
          "CONVENTIONS": "solvers.passing", "pass_scores": "solvers.passing",
          "convention_policy": "solvers.passing"}


def __getattr__(name):
    if name in ("KS", "AS"):
        from . import cards
        return getattr(cards, name)
    if name in _MOVED:
        import importlib
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'spiel_game.policies' has no attribute {name!r}")
