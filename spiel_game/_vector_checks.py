"""Checks of the vectors that Python hands to compiled code.

:func:`check_params` (a rules vector), :func:`check_state` (a state of those
rules), :func:`check_array` (dtype, one dimension, contiguous) and
:func:`check_rng` (a random stream) raise ``TypeError``/``ValueError`` naming
the argument and what is allowed, before any kernel reads it. The simulator's
entry points call them; :mod:`spiel_game._simulator` exports ``check_params``
and ``check_state``.
"""

from __future__ import annotations

import numpy as np

from . import cards as C
from . import _engine as E
from . import _rules as R
from . import _validation as V
from ._engine import K

__all__ = ["check_params", "check_state", "check_array", "check_rng"]


def check_array(name: str, a, dtype, what: str) -> None:
    """Raise TypeError/ValueError unless ``a`` (the argument ``name``, described as
    ``what``) is a one-dimensional, contiguous numpy array of ``dtype``."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name} must be {what} (a numpy {np.dtype(dtype).name} array); "
                        f"got {type(a).__name__}")
    if a.dtype != dtype:
        raise TypeError(f"{name} must be {what}: dtype {np.dtype(dtype).name}, got dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name} must be {what}: one-dimensional, got shape {a.shape}")
    if not a.flags.c_contiguous:
        raise ValueError(f"{name} must be {what}: a contiguous array, got a strided view "
                         f"(pass np.ascontiguousarray({name}))")


_GOOD_PARAMS: dict[bytes, None] = {}


def check_params(p) -> None:
    """Raise TypeError/ValueError unless ``p`` is an engine rules vector
    (``engine.make_params``; ``state.engine_params``): int32, shape
    ``(engine.PARAMS_SIZE,)``, every rule in its range and the state layout the
    one its rules imply."""
    what = "an engine rules vector (engine.make_params(rules), state.engine_params)"
    check_array("p", p, np.int32, what)
    if p.shape[0] != E.PARAMS_SIZE:
        raise ValueError(f"p must be {what} of length {E.PARAMS_SIZE}; got length {p.shape[0]}")
    key = p.tobytes()
    if key in _GOOD_PARAMS:
        return
    v = [int(x) for x in p]
    deck = v[R.P_DECK:R.P_DECK + K]
    n, t, kitty, ncards = v[R.P_N], v[R.P_HAND], v[R.P_KITTY], v[R.P_NCARDS]

    def bad(field, allowed):
        raise ValueError(f"p is not {what}: {field} = {v[getattr(R, field)]}, allowed {allowed}")

    if not 2 <= n <= 11:
        bad("P_N", "2..11 players")
    if t < 1:
        bad("P_HAND", ">= 1 card per hand")
    if kitty < 0:
        bad("P_KITTY", ">= 0")
    if any(c < 0 or c > 4 for c in deck):
        raise ValueError(f"p is not {what}: deck copy counts {deck} must be in 0..4")
    if sum(deck) != ncards or ncards != n * t + kitty:
        raise ValueError(f"p is not {what}: P_NCARDS = {ncards}, but the deck holds {sum(deck)} "
                         f"cards and players x hand + kitty = {n * t + kitty}")
    if v[R.P_MAX_COPIES] != max(deck):
        bad("P_MAX_COPIES", f"{max(deck)} (the most copies of a card in the deck)")
    if not 0 <= v[R.P_PASS] <= t:
        bad("P_PASS", f"0..{t} (the hand size)")
    if not 0 <= v[R.P_PASS_OFFSET] < n:
        bad("P_PASS_OFFSET", f"0..{n - 1}")
    if v[R.P_FIRST_LEAD] not in (R.FIRST_LEAD_OPENING, R.FIRST_LEAD_LEFT):
        bad("P_FIRST_LEAD", f"{R.FIRST_LEAD_OPENING} or {R.FIRST_LEAD_LEFT}")
    if not -1 <= v[R.P_OPENING] < K:
        bad("P_OPENING", f"a card id 0..{K - 1}, or -1 (none)")
    if v[R.P_VOID_LAST] not in (R.VOID_LEADER, R.VOID_DISCARD):
        bad("P_VOID_LAST", f"{R.VOID_LEADER} or {R.VOID_DISCARD}")
    if v[R.P_NO_PTS_FIRST] not in (0, 1):
        bad("P_NO_PTS_FIRST", "0 or 1")
    if v[R.P_MOON] not in (R.MOON_OFF, R.MOON_ADD, R.MOON_SUBTRACT, R.MOON_CHOOSE, R.MOON_BOTH):
        bad("P_MOON", "a moon rule code 0..4")
    # The parameter bounds that keep every score within int32.
    if not 0 <= v[R.P_MOON_PTS] <= R.MAX_MOON_POINTS:
        bad("P_MOON_PTS", f"0..{R.MAX_MOON_POINTS}")
    if not 0 <= v[R.P_TARGET] <= R.MAX_TARGET_SCORE:
        bad("P_TARGET", f"0..{R.MAX_TARGET_SCORE}")
    if not 1 <= v[R.P_MAX_HANDS] <= R.MAX_HANDS:
        bad("P_MAX_HANDS", f"1..{R.MAX_HANDS}")
    if v[R.P_UTILITY] not in (R.UTIL_POINTS, R.UTIL_ZERO_SUM):
        bad("P_UTILITY", f"{R.UTIL_POINTS} or {R.UTIL_ZERO_SUM}")
    table = v[R.P_POINTS:R.P_POINTS + K]
    for c in range(K):
        allowed = (R.JACK_OF_DIAMONDS_RANGE if c == C.JD else (int(E.POINTS_OF[c]),) * 2)
        if not allowed[0] <= table[c] <= allowed[1]:
            raise ValueError(f"p is not {what}: points of {C.card_to_string(c)} = {table[c]} "
                             f"(P_POINTS + {c}), allowed {allowed[0]}..{allowed[1]}")
    penalty = sum(table[c] * deck[c] for c in range(K) if table[c] > 0)
    if v[R.P_PENALTY_PTS] != penalty:
        bad("P_PENALTY_PTS", f"{penalty} (the points of the penalty cards in the deck)")
    bonus = sum(table[c] * deck[c] for c in range(K) if table[c] < 0)
    if v[R.P_BONUS_PTS] != bonus:
        bad("P_BONUS_PTS", f"{bonus} (the points of the cards worth less than 0 in the deck)")
    off = E.S_NSCALARS
    for name, field, _, size in E.state_layout(n, t, v[R.P_PASS]):
        if v[field] != off:
            raise ValueError(f"p is not {what}: state layout offset p[L_{name}] = p[{field}] = "
                             f"{v[field]}, but its rules put that field at {off}")
        off += size
    if v[E.L_STATE_SIZE] != off:
        raise ValueError(f"p is not {what}: state size p[{E.L_STATE_SIZE}] = "
                         f"{v[E.L_STATE_SIZE]}, but its rules give {off}")
    if len(_GOOD_PARAMS) >= 256:
        _GOOD_PARAMS.clear()
    _GOOD_PARAMS[key] = None


def _validate_text(code: int) -> str:
    if code in V.VALIDATE_ERRORS:
        name, text = V.VALIDATE_ERRORS[code]
        return f" ({name}: {text})"
    return ""


def check_state(p, s, consistent: bool = True) -> None:
    """Raise TypeError/ValueError unless ``p`` passes :func:`check_params` and
    ``s`` is a state of those rules: int32, one-dimensional, contiguous, of
    length ``p[engine.L_STATE_SIZE]``, and (``consistent=True``)
    ``validation.validate(p, s) == 0``."""
    check_params(p)
    what = "an engine state vector of these rules (engine.new_state(p), state.engine_state)"
    check_array("s", s, np.int32, what)
    size = int(p[E.L_STATE_SIZE])
    if s.shape[0] != size:
        raise ValueError(f"s must be {what}: length {size}, got length {s.shape[0]} "
                         f"(a state of another game?)")
    if not consistent:
        return
    code = int(V.validate(p, s))
    if code != 0:
        raise ValueError(f"s is not a consistent state of the rules p: validation.validate(p, s) "
                         f"returned {code}{_validate_text(code)}")


def check_rng(rng) -> None:
    """Raise TypeError/ValueError unless ``rng`` is a writable ``uint64[1]`` random
    stream (``simulator.make_rng``)."""
    what = "a random stream from make_rng(seed, stream)"
    check_array("rng", rng, np.uint64, what)
    if rng.shape[0] != 1:
        raise ValueError(f"rng must be {what}: shape (1,), got shape {rng.shape}")
    if not rng.flags.writeable:
        raise ValueError(f"rng must be {what}: a writable array (the stream advances in place)")
