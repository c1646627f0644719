"""Batch simulation of whole hands in compiled code, over the same engine kernels.

``simulate(params, n_hands, policies, seed, workers)`` deals, passes and plays
``n_hands`` independent games (single hands, or matches when
``target_score > 0``) entirely inside numba, on ``workers`` threads. Game ``h``
draws from its own random stream ``(seed, h)``, so results do not depend on the
number of workers.

Policies are numba functions ``policy(p, s, legal, k, rng) -> action`` that pick
one of ``legal[:k]`` for the player to move in engine state ``s`` (rules ``p``;
``rng`` is a ``uint64[1]`` stream for :func:`rand_below`). Built in:
``"uniform"`` and ``"heuristic"`` (see :mod:`spiel_game.policies`). To add one,
write an ``@njit`` function with that signature and pass it in ``policies``.

Search primitives (no pyspiel): :func:`clone`, :func:`rollout`,
:func:`make_rng`, plus the engine's ``legal_into`` / ``apply_action``.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from typing import Callable, Mapping, Sequence

import numba
import numpy as np
from numba import njit, prange

from . import engine as E
from .engine import (K, S_PHASE, S_CUR, PH_DEAL, PH_OVER, P_N, P_NCARDS, P_DECK,
                     L_SCORES)
from .policies import (uniform_policy, uniform_action, heuristic_policy, make_rng_state,
                       rng_start, shuffle_prefix,
                       convention_policy, CONVENTIONS)
from .rules import RuleSet

__all__ = ["simulate", "SimulationResult", "BUILTIN_POLICIES", "clone", "rollout",
           "make_rng", "STAT_NAMES", "state_checksum", "bytes_per_game_in_flight",
           "step_legal", "step_apply", "step_uniform"]

BUILTIN_POLICIES = {"uniform": 0, "heuristic": 1}
# Passing conventions while passing, then a built-in play policy:
# "pass:<convention>+heuristic" = 16 + 2 i, "pass:<convention>+uniform" = 17 + 2 i.
for _i, _name in enumerate(CONVENTIONS):
    BUILTIN_POLICIES[f"pass:{_name}+heuristic"] = 16 + 2 * _i
    BUILTIN_POLICIES[f"pass:{_name}+uniform"] = 17 + 2 * _i
# Seat code of the uniform policy: the game loop draws it without listing the
# legal actions (``uniform_action``: the same action from the same draw).
_UNIFORM = BUILTIN_POLICIES["uniform"]
# At most this many games per chunk of a run (a chunk reuses one set of buffers).
_CHUNK = 256
STAT_NAMES = ("void_tricks", "moons", "cancelled_pairs", "aardvark_attempts",
              "aardvark_successes", "pot_at_last_trick", "hands", "actions",
              "state_checksum")
_NSTAT = len(STAT_NAMES)


@njit(cache=True)
def _choose_builtin(code, p, s, legal, k, rng):
    if code >= 16:
        if s[S_PHASE] == E.PH_PASS:
            return convention_policy((code - 16) // 2, p, s, legal, k, rng)
        code = 1 if code % 2 == 0 else 0
    if code == 1:
        return heuristic_policy(p, s, legal, k, rng)
    return uniform_policy(p, s, legal, k, rng)


@njit(cache=True)
def _shuffled_deck(p, rng, deck_buf):
    """Fill ``deck_buf`` with the deck in a uniformly random order (Fisher-Yates)."""
    m = 0
    for c in range(K):
        for _ in range(p[P_DECK + c]):
            deck_buf[m] = c
            m += 1
    shuffle_prefix(deck_buf, m, rng)


@njit(cache=True)
def _deal(p, s, rng, deck_buf):
    """Shuffle and deal the whole deck (R4), as one call."""
    _shuffled_deck(p, rng, deck_buf)
    E.apply_deal_sequence(p, s, deck_buf)


# Engine steps for compiled game loops (this simulator, ISMCTS and PIMC
# rollouts), compiled without reference counting (``_nrt=False``; they
# allocate nothing, and anything that did would not compile). Inlined into an
# ordinary numba function, the engine kernels bring atomic reference-count
# updates of ``p`` and ``s`` with them, which cost more than the rules
# themselves; across a call boundary they do not. Call these from your own
# ``@njit`` search loops.
@njit(cache=True, _nrt=False)
def step_uniform(p, s, rng):
    """Draw the uniform policy's action (``uniform_action``), apply it, return it."""
    a = uniform_action(p, s, rng)
    E.apply_unchecked(p, s, a)
    return a


@njit(cache=True, _nrt=False)
def step_legal(p, s, legal):
    """``engine.legal_into``: the legal actions into ``legal``; their number."""
    return E.legal_into(p, s, legal)


@njit(cache=True, _nrt=False)
def step_apply(p, s, a):
    """``engine.apply_unchecked``: apply a legal action in place."""
    E.apply_unchecked(p, s, a)


@njit(cache=True)
def _play_game(p, s, codes, rng, trace, trace_row, record, legal, deck_buf):
    """Play from ``s`` to the end (in place); returns the number of actions.
    ``legal`` (int32[K + 2]) and ``deck_buf`` (int32[num_cards]) are scratch."""
    nact = 0
    while s[S_PHASE] != PH_OVER:
        if s[S_PHASE] == PH_DEAL:
            if record:
                # Record card by card so the trace replays through pyspiel.
                _shuffled_deck(p, rng, deck_buf)
                for i in range(p[P_NCARDS]):
                    trace[trace_row, nact] = deck_buf[i]
                    nact += 1
                    step_apply(p, s, deck_buf[i])
            else:
                _deal(p, s, rng, deck_buf)
                nact += p[P_NCARDS]
            continue
        code = codes[s[S_CUR]]
        if code == _UNIFORM:
            a = step_uniform(p, s, rng)
        else:
            k = step_legal(p, s, legal)
            a = _choose_builtin(code, p, s, legal, k, rng)
            step_apply(p, s, a)
        if record:
            trace[trace_row, nact] = a
        nact += 1
    return nact


@njit(cache=True)
def _record(p, s, h, points, stats, nact, record):
    n = p[P_N]
    for q in range(n):
        points[h, q] = s[p[L_SCORES] + q]
    stats[h, 0] = s[E.S_VOIDS]
    stats[h, 1] = s[E.S_MOONS]
    stats[h, 2] = s[E.S_CANCELS]
    stats[h, 3] = s[E.S_AARD_TRY]
    stats[h, 4] = s[E.S_AARD_WIN]
    stats[h, 5] = s[E.S_POT_AT_LAST]
    stats[h, 6] = s[E.S_HANDNO]
    stats[h, 7] = nact
    stats[h, 8] = state_checksum(s) if record else 0


@njit(cache=True)
def state_checksum(s):
    """A position-weighted checksum of an engine state vector (int32)."""
    acc = np.int64(0)
    for i in range(s.shape[0]):
        acc = (acc * 1000003 + s[i] + 7) % 2147483647
    return acc


@njit(cache=True)
def _chunk_builtin(p, s0, codes, seed, first, lo, hi, points, stats, trace, record):
    """Games ``lo..hi-1`` of a run, with one set of buffers."""
    s = s0.copy()
    rng = np.empty(1, np.uint64)
    legal = np.empty(K + 2, np.int32)
    deck_buf = np.empty(p[P_NCARDS], np.int32)
    for i in range(lo, hi):
        rng[0] = rng_start(seed, first + i)
        s[:] = s0
        nact = _play_game(p, s, codes, rng, trace, i, record, legal, deck_buf)
        _record(p, s, i, points, stats, nact, record)


@njit(cache=True, parallel=True)
def _simulate_builtin(p, s0, codes, seed, first, n_hands, chunk, points, stats, trace, record):
    for c in prange((n_hands + chunk - 1) // chunk):
        _chunk_builtin(p, s0, codes, seed, first, c * chunk, min(n_hands, (c + 1) * chunk),
                       points, stats, trace, record)


def _custom_kernel(funcs: tuple, parallel: bool = True):
    """A parallel kernel dispatching seat codes to ``funcs`` (compiled per set).

    It is ``_play_game``'s own source with the built-in dispatch replaced, so
    custom policies run exactly the same game loop.
    """
    src = ["def choose(code, p, s, legal, k, rng):"]
    for i in range(len(funcs)):
        src.append(f"    {'if' if i == 0 else 'elif'} code == {i}:\n"
                   f"        return f{i}(p, s, legal, k, rng)")
    src.append("    return legal[0]")
    ns = dict(globals())
    ns.update({f"f{i}": f for i, f in enumerate(funcs)})
    ns["_UNIFORM"] = funcs.index(uniform_policy) if uniform_policy in funcs else -1
    exec("\n".join(src), ns)
    ns["choose"] = njit(ns["choose"])
    body = textwrap.dedent(inspect.getsource(_play_game.py_func))
    body = body.replace("@njit(cache=True)\n", "").replace("_choose_builtin(", "choose(")
    exec(body, ns)
    play = njit(ns["_play_game"])

    @njit(parallel=parallel)
    def kernel(p, s0, codes, seed, first, n_hands, chunk, points, stats, trace, record):
        for c in prange((n_hands + chunk - 1) // chunk):
            s = s0.copy()
            rng = np.empty(1, np.uint64)
            legal = np.empty(K + 2, np.int32)
            deck_buf = np.empty(p[P_NCARDS], np.int32)
            for i in range(c * chunk, min(n_hands, (c + 1) * chunk)):
                rng[0] = rng_start(seed, first + i)
                s[:] = s0
                nact = play(p, s, codes, rng, trace, i, record, legal, deck_buf)
                _record(p, s, i, points, stats, nact, record)
    return kernel


_KERNELS: dict[tuple, Callable] = {}


@dataclasses.dataclass(frozen=True)
class SimulationResult:
    """Per-game arrays. ``points[h, seat]``: final points (hand, or match totals,
    after the moon rule); ``stats[h, j]`` with ``j`` named by ``STAT_NAMES``;
    ``trace[h, t]``: the actions of game ``h`` (chance included, -1 padded) when
    ``record=True`` (then also ``stat("state_checksum")``, a checksum of the final
    engine state; 0 otherwise)."""

    rules: RuleSet
    seed: int
    points: np.ndarray
    stats: np.ndarray
    trace: np.ndarray | None

    def stat(self, name: str) -> np.ndarray:
        return self.stats[:, STAT_NAMES.index(name)]


def _policy_codes(policies, n):
    if policies is None:
        policies = "uniform"
    if isinstance(policies, (str,)) or callable(policies):
        policies = [policies] * n
    policies = list(policies)
    if len(policies) != n:
        raise ValueError(f"expected one policy per seat ({n}), got {len(policies)}")
    if all(isinstance(x, str) for x in policies):
        bad = [x for x in policies if x not in BUILTIN_POLICIES]
        if bad:
            raise ValueError(f"unknown policies {bad}; built in: {sorted(BUILTIN_POLICIES)} "
                             f"(or pass an @njit function policy(p, s, legal, k, rng))")
        return None, np.array([BUILTIN_POLICIES[x] for x in policies], np.int32)
    funcs, codes = [], []
    for x in policies:
        f = {"uniform": uniform_policy, "heuristic": heuristic_policy}.get(x, x) \
            if isinstance(x, str) else x
        if isinstance(x, str) and x not in BUILTIN_POLICIES:
            raise ValueError(f"unknown policy {x!r}; built in: {sorted(BUILTIN_POLICIES)}")
        if f not in funcs:
            funcs.append(f)
        codes.append(funcs.index(f))
    return tuple(funcs), np.array(codes, np.int32)


def simulate(params: Mapping | RuleSet | None = None, n_hands: int = 1000,
             policies: str | Callable | Sequence = "uniform", seed: int = 0,
             workers: int | None = None, record: bool = False,
             first_hand: int = 0) -> SimulationResult:
    """Play ``n_hands`` games of ``python_cancellation_hearts(params)``.

    Args:
      params: game parameters (dict) or a RuleSet.
      n_hands: number of independent games (hands, or matches if target_score > 0).
      policies: one name/function for every seat, or one per seat.
      seed: game ``h`` uses random stream ``(seed, first_hand + h)``.
      workers: threads (default: all local cores); results do not depend on it.
      record: also return every action (chance included) in ``trace``.
      first_hand: index of the first game (to split a run into chunks).
    """
    rules = params if isinstance(params, RuleSet) else RuleSet.from_params(dict(params or {}))
    if n_hands < 0:
        raise ValueError(f"n_hands must be >= 0, got {n_hands}")
    p = E.make_params(rules)
    s0 = E.new_state(p)
    funcs, codes = _policy_codes(policies, rules.players)
    n = rules.players
    points = np.zeros((n_hands, n), np.int32)
    stats = np.zeros((n_hands, _NSTAT), np.int32)
    max_len = (rules.num_cards + rules.decisions_per_hand) * rules.num_hands_max
    trace = np.full((n_hands if record else 1, max_len if record else 1), -1, np.int32)
    avail = numba.config.NUMBA_NUM_THREADS
    workers = avail if workers is None else int(workers)
    if not 1 <= workers:
        raise ValueError(f"workers must be >= 1, got {workers}")
    prev = numba.get_num_threads()
    numba.set_num_threads(min(workers, avail))
    try:
        if funcs is None:
            kernel = _simulate_builtin
        else:
            key = (funcs, workers > 1)      # a serial kernel compiles faster
            kernel = _KERNELS.get(key)
            if kernel is None:
                kernel = _KERNELS[key] = _custom_kernel(funcs, parallel=workers > 1)
        # Chunks only group games for scheduling: game h always uses stream h.
        chunk = max(1, min(_CHUNK, -(-n_hands // (8 * workers))))
        kernel(p, s0, codes, np.uint64(seed), first_hand, n_hands, chunk, points, stats, trace,
               record)
    finally:
        numba.set_num_threads(prev)
    return SimulationResult(rules, seed, points, stats, trace if record else None)


def bytes_per_game_in_flight(params: Mapping | RuleSet | None = None) -> int:
    """Memory one game in flight uses inside the simulator: the state vector,
    the legal-action and deck buffers and the random stream (plus its row of
    the output arrays)."""
    rules = params if isinstance(params, RuleSet) else RuleSet.from_params(dict(params or {}))
    p = E.make_params(rules)
    return int(p[E.L_STATE_SIZE] * 4 + (K + 2) * 4 + rules.num_cards * 4 + 8
               + (rules.players + _NSTAT) * 4)


# ------------------------------------------------------------ search primitives
def make_rng(seed: int, stream: int = 0) -> np.ndarray:
    """A ``uint64[1]`` random stream for compiled policies and rollouts."""
    return make_rng_state(np.uint64(seed), stream)


def clone(s: np.ndarray) -> np.ndarray:
    return s.copy()


@njit(cache=True)
def _rollout(p, s, codes, rng):
    trace = np.empty((1, 1), np.int32)
    _play_game(p, s, codes, rng, trace, 0, False, np.empty(K + 2, np.int32),
               np.empty(p[P_NCARDS], np.int32))
    return E.returns(p, s)


def rollout(p: np.ndarray, s: np.ndarray, rng: np.ndarray,
            policy: str | Sequence[str] = "uniform") -> np.ndarray:
    """Play a copy of engine state ``s`` to the end with built-in ``policy``
    (one name, or one per seat); return the returns (float64[n])."""
    n = int(p[P_N])
    if isinstance(policy, str):
        policy = [policy] * n
    try:
        codes = np.array([BUILTIN_POLICIES[x] for x in policy], np.int32)
    except KeyError as e:
        raise ValueError(f"unknown policy {e.args[0]!r}; built in: {sorted(BUILTIN_POLICIES)}") from None
    return _rollout(p, s.copy(), codes, rng)
