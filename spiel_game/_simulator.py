"""Batch simulation of whole hands in compiled code, over the same engine kernels.

``simulate(params, n_hands, policies, seed, workers)`` deals, passes and plays
``n_hands`` independent games (single hands, or matches when
``target_score > 0``) entirely inside numba, on ``workers`` threads. Game ``h``
draws from its own random stream ``(seed, h)``, so results do not depend on the
number of workers.

Policies are numba functions ``policy(p, s, legal, k, rng) -> action`` that pick
one of ``legal[:k]`` for the player to move in engine state ``s`` (rules ``p``;
``rng`` is a ``uint64[1]`` stream for :func:`spiel_game._rng.rand_below`). Pass
an ``@njit`` function with that signature in ``policies``, or a name of the
policy table :data:`POLICIES`: ``"uniform"`` is built in; the heuristic player
(``"heuristic"``) and the passing conventions (``"pass:<convention>+heuristic"``,
``"pass:<convention>+uniform"``) live in :mod:`solvers` and register with
:func:`register_policy` when :mod:`solvers._base.heuristic` / :mod:`solvers._base.passing`
are imported. A policy reads ``p``, ``s`` and ``legal`` and must not write to them.

**Dispatch.** The game loop receives the policies as a table: a tuple of
first-class functions (each policy compiled for :data:`POLICY_SIGNATURE`) and,
for each seat, its index in the table while passing and otherwise. So one
compiled game loop (cached on disk) runs any policies; a new policy compiles
only itself.

**Checked actions.** Inside the compiled loop every action a checked seat
chooses is tested against the legal actions listed for it (a bit mask built
before the policy is called, so a policy that writes into ``legal`` cannot fool
it). An action outside them is not applied: the game stops, the kernel returns
a status and :func:`simulate` raises :class:`IllegalPolicyActionError` naming
the policy, the seat, the action and what was legal (plus the game's history up
to it, and every game before it as a result). ``checked=None`` (the default)
checks the seats of user policies and runs the registered policies marked
``proven_legal`` unchecked (uniform, the heuristic player, the passing
conventions): ``tests/game/test_trust_simulator.py`` plays many games of every
registered policy checked and requires identical results both ways.
``checked=True`` checks every seat (registered ones too), ``checked=False``
none (for a user policy proven legal; an illegal action then corrupts the
results or crashes the process).

**Checked arguments.** The Python entry points (:func:`simulate`,
:func:`rollout`, :func:`make_rng`, :func:`clone`, :func:`state_checksum`,
:func:`check_params`, :func:`check_state`) check their arguments and raise
``TypeError``/``ValueError`` naming the argument and what is allowed before
any compiled code runs (the checks of the rules and state vectors are
:mod:`spiel_game._vector_checks`). The compiled steps :func:`step_legal`,
:func:`step_apply` and :func:`step_uniform` are for ``@njit`` search loops and
check nothing (like ``engine.apply_unchecked``); from Python use
``engine.legal_actions`` / ``engine.apply_action`` instead.

Search primitives (no pyspiel): :func:`clone`, :func:`rollout`,
:func:`make_rng`, plus the engine's ``legal_into`` / ``apply_action``.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence

import numba
import numpy as np
from numba import njit, prange, types
from numba.core.dispatcher import Dispatcher as _Dispatcher
from numba.core.errors import NumbaError as _NumbaError
from numba.core.errors import NumbaExperimentalFeatureWarning as _ExperimentalWarning

from . import cards as C
from . import _engine as E
from ._checks import check_bool
from ._engine import K, S_PHASE, S_CUR, PH_DEAL, PH_OVER, P_N, P_NCARDS
from ._policies import uniform_policy, uniform_action
from ._rng import fill_cards, make_rng_state, rng_start, shuffle_prefix
from ._rules import RuleSet
from ._vector_checks import check_array, check_params, check_rng, check_state
from . import _rules as R
from ._policy_plugins import (POLICY_ENTRY_POINT_GROUP, PolicyPluginError,
                              _PLUGINS, load_policy_plugins)

__all__ = ["simulate", "SimulationResult", "POLICIES", "BUILTIN_POLICIES", "register_policy",
           "POLICY_ENTRY_POINT_GROUP", "load_policy_plugins", "PolicyPluginError",
           "POLICY_SIGNATURE", "clone", "rollout",
           "make_rng", "STAT_NAMES", "state_checksum", "bytes_per_game_in_flight",
           "step_legal", "step_apply", "step_uniform", "IllegalPolicyActionError",
           "check_params", "check_state", "MAX_SEED", "MAX_STREAM"]

#: The signature every simulator policy is compiled for: ``policy(p, s, legal,
#: k, rng) -> action`` with ``p`` the (read-only) rules vector, ``s`` the state,
#: ``legal`` the int32 buffer whose first ``k`` entries are the legal actions and
#: ``rng`` a ``uint64[1]`` stream.
POLICY_SIGNATURE = types.int64(types.Array(types.int32, 1, "C", readonly=True),
                               types.Array(types.int32, 1, "C"),
                               types.Array(types.int32, 1, "C"), types.int64,
                               types.Array(types.uint64, 1, "C"))


@dataclasses.dataclass(frozen=True)
class _Entry:
    """A named simulator policy: ``passing`` while passing, ``play`` otherwise."""

    passing: _Dispatcher
    play: _Dispatcher
    proven_legal: bool


#: The policy table: name -> policy. ``uniform`` is built in; the heuristic
#: player (``heuristic``) and the passing conventions (``pass:<convention>+heuristic``,
#: ``pass:<convention>+uniform``) are registered by the ``solvers`` package, which
#: declares its registering module in :data:`POLICY_ENTRY_POINT_GROUP`. The rules
#: package never imports solvers: the first time a name is not in this table, the
#: modules that the installed packages declare in that group are imported once
#: (:func:`load_policy_plugins`).
POLICIES: dict[str, _Entry] = {}
_ROLLOUT_SEATS: dict[tuple, tuple] = {}     # rollout's seats by policy names (see rollout)
#: The same table under its former name.
BUILTIN_POLICIES = POLICIES


def register_policy(name: str, play, *, passing=None, proven_legal: bool = False) -> None:
    """Register compiled policy ``play`` (and ``passing`` for the passing phase,
    default ``play``) under ``name`` for :func:`simulate` and :func:`rollout`.

    ``proven_legal=True`` lets ``checked=None`` run the policy unchecked: only
    for policies a test proves legal (``tests/game/test_trust_simulator.py`` checks
    every registered policy). Registering a name again replaces it."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"a policy name must be a non-empty str; got {name!r}")
    for f in (play, passing):
        if f is not None and not isinstance(f, _Dispatcher):
            raise TypeError(f"policy {name!r}: {f!r} is not an @numba.njit function "
                            f"policy(p, s, legal, k, rng) -> action")
    POLICIES[name] = _Entry(play if passing is None else passing, play, bool(proven_legal))
    _ROLLOUT_SEATS.clear()


register_policy("uniform", uniform_policy, proven_legal=True)


# At most this many games per chunk of a run (a chunk reuses one set of buffers).
_CHUNK = 256
STAT_NAMES = ("void_tricks", "moons", "cancelled_pairs", "aardvark_attempts",
              "aardvark_successes", "pot_at_last_trick", "hands", "actions",
              "state_checksum")
_NSTAT = len(STAT_NAMES)
#: Seeds are unsigned 64-bit words: 0..MAX_SEED.
MAX_SEED = 2**64 - 1
#: Random streams (game indices) are 0..MAX_STREAM.
MAX_STREAM = 2**63 - 2
# Row of the error buffer a chunk fills when a checked seat chooses an illegal action.
_ERR_GAME, _ERR_SEAT, _ERR_ACTION, _ERR_MASK, _ERR_HAND, _ERR_PHASE, _ERR_TRICK, \
    _ERR_NACT, _ERR_CODE = range(9)
_NERR = 9


class IllegalPolicyActionError(ValueError):
    """A checked seat's policy chose an action outside the legal ones.

    Attributes: ``policy`` (its name), ``seat``, ``action`` (the raw value),
    ``legal`` (the legal actions, a tuple of ints), ``game`` (index of the game,
    the random stream it used; ``None`` in :func:`rollout`), ``hand`` (hand of a
    match, 0 for single hands), ``phase`` (``"passing"``, ``"play"`` or
    ``"moon choice"``), ``trick``, ``history`` (every action of the game before
    the illegal one, chance included: replay it through pyspiel with
    ``state.apply_action``; ``None`` in :func:`rollout`) and ``completed`` (a
    :class:`SimulationResult` of the games before ``game``, whose results are
    sound, or ``None`` if there are none).
    """

    def __init__(self, message, *, policy, seat, action, legal, game=None, hand=0,
                 phase="", trick=0, history=None, completed=None):
        super().__init__(message)
        self.policy, self.seat, self.action, self.legal = policy, seat, action, legal
        self.game, self.hand, self.phase, self.trick = game, hand, phase, trick
        self.history, self.completed = history, completed


# ------------------------------------------------------------ compiled game loop
@njit(cache=True)
def _shuffled_undealt(p, s, rng, deck_buf):
    """Fill ``deck_buf`` with the cards not dealt yet, in a uniformly random
    order (Fisher-Yates); returns their number. Before the deal these are the
    whole deck in card order, shuffled with the same draws as ever."""
    m = fill_cards(E.undealt(p, s), deck_buf, 0)
    shuffle_prefix(deck_buf, m, rng)
    return m


# Engine steps for compiled game loops (this simulator, ISMCTS and PIMC
# rollouts), compiled without reference counting (``_nrt=False``; they
# allocate nothing, and anything that did would not compile). Inlined into an
# ordinary numba function, the engine kernels bring atomic reference-count
# updates of ``p`` and ``s`` with them, which cost more than the rules
# themselves; across a call boundary they do not. Call these from your own
# ``@njit`` search loops. They check nothing (a state, rules and action known
# to be sound); from Python use ``engine.legal_actions``/``engine.apply_action``.
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


@njit(cache=True, _nrt=False)
def _uniform_draw(p, s, rng):
    """``step_uniform``'s draw without applying it (for checked seats)."""
    return uniform_action(p, s, rng)


@njit(cache=True)
def _mask_of(legal, k):
    """Bit mask of the actions ``legal[:k]`` (all below 64)."""
    m = np.int64(0)
    for j in range(k):
        m |= np.int64(1) << np.int64(legal[j])
    return m


@njit(cache=True)
def _in_mask(mask, a):
    """Is action ``a`` (any integer a policy returned) one of the mask's actions?"""
    if a < 0 or a >= 63:
        return False
    return (mask >> np.int64(a)) & np.int64(1) != 0


@njit(cache=True)
def _report(err, row, s, seat, a, mask, nact, code):
    err[row, _ERR_SEAT] = seat
    err[row, _ERR_ACTION] = np.int64(a)
    err[row, _ERR_MASK] = mask
    err[row, _ERR_HAND] = s[E.S_HANDNO]
    err[row, _ERR_PHASE] = s[S_PHASE]
    err[row, _ERR_TRICK] = s[E.S_TRICK]
    err[row, _ERR_NACT] = nact
    err[row, _ERR_CODE] = code


# carries: the rules and the state (p, s), the policy table, its seats and checks
# (table, seats, checks), the rng, the trace and its row (trace, trace_row, record),
# the buffers (legal, deck_buf) and the error rows (err, err_row)
@njit(cache=True)
def _play_game(p, s, table, seats, checks, rng, trace, trace_row, record, legal, deck_buf, err,
               err_row):
    """Play from ``s`` to the end (in place); returns the number of actions.

    Seat ``q`` plays ``table[seats[0, q]]`` while passing and ``table[seats[1,
    q]]`` otherwise; index -1 is the uniform policy, drawn without listing the
    legal actions (``uniform_action``: the same action from the same draw).

    Seats with ``checks[seat] != 0`` have every chosen action tested against
    their legal actions; an illegal one is not applied: ``err[err_row]`` gets
    the seat, the action, the legal mask, the hand, phase and trick and the
    number of actions before it, and -1 is returned. A state in the middle of
    the deal gets the rest of the deck, shuffled. ``legal`` (int32[K + 2]) and
    ``deck_buf`` (int32[num_cards]) are scratch."""
    nact = 0
    while s[S_PHASE] != PH_OVER:
        if s[S_PHASE] == PH_DEAL:
            m = _shuffled_undealt(p, s, rng, deck_buf)
            if record or s[E.S_DEALT] > 0:
                # Card by card: the trace replays through pyspiel, and a deal
                # already under way is completed rather than restarted.
                for i in range(m):
                    if record:
                        trace[trace_row, nact] = deck_buf[i]
                    nact += 1
                    step_apply(p, s, deck_buf[i])
            else:
                E.apply_deal_sequence(p, s, deck_buf)
                nact += m
            continue
        seat = s[S_CUR]
        i = seats[0, seat] if s[S_PHASE] == E.PH_PASS else seats[1, seat]
        if checks[seat] != 0:
            k = step_legal(p, s, legal)
            mask = _mask_of(legal, k)
            if i < 0:
                a = _uniform_draw(p, s, rng)
            else:
                a = table[i](p, s, legal, k, rng)
            if not _in_mask(mask, a):
                _report(err, err_row, s, seat, a, mask, nact, i)
                return -1
            step_apply(p, s, a)
        elif i < 0:
            a = step_uniform(p, s, rng)
        else:
            k = step_legal(p, s, legal)
            a = table[i](p, s, legal, k, rng)
            step_apply(p, s, a)
        if record:
            trace[trace_row, nact] = a
        nact += 1
    return nact


@njit(cache=True)
def _record(p, s, h, points, stats, nact, record):
    sc = E.scores(p, s)
    for q in range(p[P_N]):
        points[h, q] = sc[q]
    stats[h, 0] = s[E.S_VOIDS]
    stats[h, 1] = s[E.S_MOONS]
    stats[h, 2] = s[E.S_CANCELS]
    stats[h, 3] = s[E.S_AARD_TRY]
    stats[h, 4] = s[E.S_AARD_WIN]
    stats[h, 5] = s[E.S_POT_AT_LAST]
    stats[h, 6] = s[E.S_HANDNO]
    stats[h, 7] = nact
    stats[h, 8] = _checksum(s) if record else 0


@njit(cache=True)
def _checksum(s):
    acc = np.int64(0)
    for i in range(s.shape[0]):
        acc = (acc * 1000003 + s[i] + 7) % 2147483647
    return acc


# carries: the rules and the start state (p, s0), the policy table, its seats and
# checks, the run's seed and first stream (seed, first), the chunk and its games
# (c, lo, hi), the outputs (points, stats, trace, record) and the error rows (err)
@njit(cache=True)
def _chunk(p, s0, table, seats, checks, seed, first, c, lo, hi, points, stats, trace, record,
           err):
    """Games ``lo..hi-1`` of a run, with one set of buffers. The chunk stops at
    its first illegal action (``err[c]`` describes it; ``err[c, 0]`` = game)."""
    s = s0.copy()
    rng = np.empty(1, np.uint64)
    legal = np.empty(K + 2, np.int32)
    deck_buf = np.empty(p[P_NCARDS], np.int32)
    for i in range(lo, hi):
        rng[0] = rng_start(seed, first + i)
        s[:] = s0
        nact = _play_game(p, s, table, seats, checks, rng, trace, i, record, legal, deck_buf, err,
                          c)
        if nact < 0:
            err[c, 0] = i
            return
        _record(p, s, i, points, stats, nact, record)


# carries: the rules and the start state (p, s0), the policy table, its seats and
# checks, the run (seed, first, n_hands, chunk), the outputs (points, stats, trace,
# record) and the error rows (err)
@njit(cache=True, parallel=True)
def _simulate(p, s0, table, seats, checks, seed, first, n_hands, chunk, points, stats, trace,
              record, err):
    for c in prange((n_hands + chunk - 1) // chunk):
        _chunk(p, s0, table, seats, checks, seed, first, c, c * chunk,
               min(n_hands, (c + 1) * chunk), points, stats, trace, record, err)


# The compiled form of each policy function the simulator has seen: a copy
# compiled for POLICY_SIGNATURE only, so that a tuple of them is a table of
# first-class functions of one type (numba's FunctionType). Every table is
# padded to TABLE_SIZE entries, so one game loop, compiled once and cached on
# disk, serves every set of policies (a tuple's length is part of its type:
# unpadded, each new number of distinct policies cost a fresh compile of the
# loop, about 25 s).
_TYPED: dict[_Dispatcher, _Dispatcher] = {}

#: Entries of every policy table: a passing and a play policy per seat, at most
#: 11 seats (the rules' largest table).
TABLE_SIZE = 22


class _Quiet(warnings.catch_warnings):
    """numba calls first-class functions experimental; they are what the table is."""

    def __enter__(self):
        super().__enter__()
        warnings.simplefilter("ignore", _ExperimentalWarning)


def _typed(f: _Dispatcher) -> _Dispatcher:
    g = _TYPED.get(f)
    if g is None:
        options = {k: v for k, v in f.targetoptions.items() if k != "nopython"}
        with _Quiet():
            g = _TYPED[f] = njit(POLICY_SIGNATURE, **options)(f.py_func)
    return g


def _table(funcs) -> tuple:
    """The policy table of ``funcs``, padded with the uniform policy to
    :data:`TABLE_SIZE` entries (seats index only the first ``len(funcs)``)."""
    funcs = list(funcs)
    if len(funcs) > TABLE_SIZE:
        raise ValueError(f"{len(funcs)} distinct policy functions; allowed at most "
                         f"{TABLE_SIZE} (a passing and a play policy for each of 11 seats)")
    return tuple(_typed(f) for f in funcs + [uniform_policy] * (TABLE_SIZE - len(funcs)))


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

    def __repr__(self) -> str:
        """One line: the rules, the seed, the games and their mean points."""
        games, n = self.points.shape
        mean = np.round(self.points.mean(axis=0), 2).tolist() if games else []
        trace = "recorded" if self.trace is not None else "not recorded"
        return (f"SimulationResult({games:,} games, seed={self.seed}, mean points {mean}, "
                f"trace {trace}, rules: {self.rules.describe()})")


# ------------------------------------------------------------ argument checks
def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """``value`` as a Python int in ``lo..hi``, else a TypeError/ValueError naming ``name``."""
    allowed = f"an integer in {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}; got {value!r} ({type(value).__name__})")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {allowed}; got {v}")
    return v


def _check_checked(checked):
    if checked is not None and not isinstance(checked, (bool, np.bool_)):
        raise TypeError(f"checked must be None (check user policies), True (check every seat) "
                        f"or False (check nothing); got {checked!r}")
    return checked if checked is None else bool(checked)


def _policy_name(f) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def _unknown_names_hint() -> str:
    hint = ""
    if "heuristic" not in POLICIES:
        hint = (" (the heuristic player and the passing conventions are registered by the "
                f"'solvers' package through the entry-point group {POLICY_ENTRY_POINT_GROUP!r}; "
                "install the project, e.g. pip install -e ., or import solvers._base.passing)")
    return hint


def _policy_seats(policies, n, allow_functions=True):
    """``(funcs, seats, user, names)``: the distinct policy functions (the
    table), each seat's table index while passing (``seats[0]``) and otherwise
    (``seats[1]``; -1: uniform, drawn without the list), whether each seat
    plays a policy not proven legal, and each seat's policy name.
    ``allow_functions=False``: registered names only (``rollout``'s ``policy``)."""
    arg = "policies" if allow_functions else "policy"
    if policies is None:
        policies = "uniform"
    if isinstance(policies, str) or callable(policies):
        policies = [policies] * n
    elif isinstance(policies, Sequence):
        policies = list(policies)
    else:
        raise TypeError(f"{arg} must be a policy (a registered name"
                        + (" or an @njit function" if allow_functions else "")
                        + f") or a list with one per seat; got {type(policies).__name__}")
    if len(policies) != n:
        raise ValueError(f"{arg}: expected one policy per seat ({n}), got {len(policies)}")
    def unknown():
        return list(dict.fromkeys(x for x in policies if isinstance(x, str) and x not in POLICIES))

    bad = unknown()
    if bad and not _PLUGINS["loaded"]:
        load_policy_plugins()
        bad = unknown()
    if bad:
        raise ValueError(f"{arg}: unknown policies {bad}; registered: {sorted(POLICIES)}"
                         + _unknown_names_hint()
                         + (" (or pass an @njit function policy(p, s, legal, k, rng))"
                            if allow_functions else ""))
    by_function = {e.play: name for name, e in POLICIES.items() if e.passing is e.play}
    funcs: list = []
    seats = np.full((2, n), -1, np.int32)
    user = np.zeros(n, np.int8)
    names = []

    def index(f):
        if f is uniform_policy:
            return -1
        if f not in funcs:
            funcs.append(f)
        return funcs.index(f)

    for seat, x in enumerate(policies):
        if isinstance(x, _Dispatcher) and x in by_function:
            x = by_function[x]
        if isinstance(x, str):
            e = POLICIES[x]
            seats[0, seat], seats[1, seat] = index(e.passing), index(e.play)
            user[seat] = not e.proven_legal
            names.append(x)
        elif allow_functions and isinstance(x, _Dispatcher):
            seats[0, seat] = seats[1, seat] = index(x)
            user[seat] = 1
            names.append(_policy_name(x))
        elif allow_functions:
            raise TypeError(f"policies[{seat}] = {x!r} is not a policy: pass a registered name "
                            f"({', '.join(sorted(POLICIES))}) or an @numba.njit "
                            f"function policy(p, s, legal, k, rng) -> action")
        else:
            raise TypeError(f"policy[{seat}] = {x!r}: rollout runs registered policies only, "
                            f"one of {sorted(POLICIES)}")
    return funcs, seats, user, names


def _seat_checks(user, checked) -> np.ndarray:
    if checked is None:
        return user.copy()
    return np.full(user.shape[0], 1 if checked else 0, np.int8)


def _compiled_table(funcs) -> tuple:
    """The table of ``funcs``, or a TypeError naming a policy that does not compile."""
    try:
        return _table(funcs)
    except (_NumbaError, TypeError) as e:
        raise TypeError(
            f"policies {[_policy_name(f) for f in funcs]} do not compile in the simulator: "
            f"a policy must be an @numba.njit function policy(p, s, legal, k, rng) "
            f"returning an integer action. numba said: {str(e).strip().splitlines()[0]}"
        ) from e


def _action_text(a: int) -> str:
    if 0 <= a < K:
        return repr(C.card_to_string(a))
    if a == E.MOON_SUBTRACT_ACTION:
        return f"{a} (moon:subtract)"
    if a == E.MOON_ADD_ACTION:
        return f"{a} (moon:add)"
    return str(a)


def _legal_text(mask: int) -> list[str]:
    out = []
    for a in range(64):
        if mask >> a & 1:
            out.append(C.card_to_string(a) if a < K else
                       "moon:subtract" if a == E.MOON_SUBTRACT_ACTION else "moon:add")
    return out


_PHASES = {E.PH_PASS: "passing", E.PH_PLAY: "play", E.PH_MOON: "moon choice"}


def _illegal(row, names, rules, *, game=None, seed=None, history=None, completed=None):
    """The IllegalPolicyActionError of an error row (see ``_report``)."""
    seat, a, mask = int(row[_ERR_SEAT]), int(row[_ERR_ACTION]), int(row[_ERR_MASK])
    hand, phase, trick = int(row[_ERR_HAND]), _PHASES.get(int(row[_ERR_PHASE]), "?"), \
        int(row[_ERR_TRICK])
    policy = names[seat]
    where = []
    if game is not None:
        where.append(f"game {game} (random stream {game} of seed {seed})")
    if rules.target_score > 0:
        where.append(f"hand {hand} of the match")
    where.append(f"{phase} phase" + (f", trick {trick}" if phase == "play" else ""))
    legal = [a_ for a_ in range(64) if mask >> a_ & 1]
    msg = (f"policy {policy!r} (seat {seat}) chose {_action_text(a)}, which is not a legal "
           f"action: {', '.join(where)}; legal: {_legal_text(mask)}. The action was not "
           f"applied and the game was stopped")
    if game is not None:
        msg += ("; error.history replays the game up to it, error.completed holds the "
                "games before it")
    return IllegalPolicyActionError(msg + ".", policy=policy, seat=seat, action=a,
                                    legal=tuple(legal), game=game, hand=hand, phase=phase,
                                    trick=trick, history=history, completed=completed)


def _rules_of(params) -> RuleSet:
    if isinstance(params, RuleSet):
        return params
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of game parameters or a RuleSet; got "
                        f"{type(params).__name__}")
    return RuleSet.from_params(dict(params))


# ------------------------------------------------------------ the batch simulator
def simulate(params: Mapping | RuleSet | None = None, n_hands: int = 1000,
             policies: str | Callable | Sequence = "uniform", seed: int = 0,
             workers: int | None = None, record: bool = False,
             first_hand: int = 0, checked: bool | None = None) -> SimulationResult:
    """Play ``n_hands`` games of ``python_cancellation_hearts(params)``.

    Args:
      params: game parameters (dict) or a RuleSet.
      n_hands: number of independent games (hands, or matches if target_score > 0), >= 1.
      policies: one name/function for every seat, or one per seat.
      seed: 0..MAX_SEED (2**64 - 1); game ``h`` uses random stream ``(seed, first_hand + h)``.
      workers: threads, >= 1 (default: all local cores; more are capped to them);
        results do not depend on it.
      record: also return every action (chance included) in ``trace``.
      first_hand: index of the first game (to split a run into chunks), >= 0,
        with ``first_hand + n_hands - 1 <= MAX_STREAM``.
      checked: which seats have every action checked: ``None`` (default) the
        seats of user policies, ``True`` every seat, ``False`` none (see the
        module docstring).

    Raises:
      IllegalPolicyActionError: a checked seat chose an illegal action (the
        game with the lowest index that did; the error holds its history and
        the results of every game before it).
      TypeError, ValueError: a bad argument (named, with what is allowed).
    """
    rules = _rules_of(params)
    n_hands = _check_int("n_hands", n_hands, 1, MAX_STREAM + 1)
    seed = _check_int("seed", seed, 0, MAX_SEED)
    first_hand = _check_int("first_hand", first_hand, 0, MAX_STREAM + 1 - n_hands)
    avail = numba.config.NUMBA_NUM_THREADS
    workers = avail if workers is None else _check_int("workers", workers, 1)
    record = check_bool("record", record)
    checked = _check_checked(checked)
    p = E.make_params(rules)
    s0 = E.new_state(p)
    n = rules.players
    funcs, seats, user, names = _policy_seats(policies, n)
    checks = _seat_checks(user, checked)
    table = _compiled_table(funcs)
    points = np.zeros((n_hands, n), np.int32)
    stats = np.zeros((n_hands, _NSTAT), np.int32)
    max_len = (rules.num_cards + rules.decisions_per_hand) * rules.num_hands_max
    trace = np.full((n_hands if record else 1, max_len if record else 1), -1, np.int32)
    threads = min(workers, avail)
    # Chunks only group games for scheduling: game h always uses stream h.
    chunk = max(1, min(_CHUNK, -(-n_hands // (8 * workers))))
    err = np.full((-(-n_hands // chunk), _NERR), -1, np.int64)

    def run(first, count, chunk, points, stats, trace, record, err):
        prev = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            with _Quiet():
                _simulate(p, s0, table, seats, checks, np.uint64(seed), first, count, chunk,
                          points, stats, trace, record, err)
        finally:
            numba.set_num_threads(prev)

    run(first_hand, n_hands, chunk, points, stats, trace, record, err)
    failed = err[err[:, 0] >= 0]
    if failed.shape[0]:
        # Every chunk stops at its own first illegal action, so the lowest game
        # index among them is the first game of the run that has one, however
        # the games were split between workers.
        row = failed[np.argmin(failed[:, 0])]
        h = int(row[0])
        # The history of that game, from a serial replay of its random stream.
        one_trace = np.full((1, max_len), -1, np.int32)
        one_err = np.full((1, _NERR), -1, np.int64)
        run(first_hand + h, 1, 1, np.zeros((1, n), np.int32),
            np.zeros((1, _NSTAT), np.int32), one_trace, True, one_err)
        history = one_trace[0, :int(one_err[0, _ERR_NACT])].tolist() if one_err[0, 0] == 0 \
            else None
        completed = None
        if h > 0:
            completed = SimulationResult(rules, seed, points[:h].copy(), stats[:h].copy(),
                                         trace[:h].copy() if record else None)
        raise _illegal(row, names, rules, game=first_hand + h, seed=seed, history=history,
                       completed=completed)
    return SimulationResult(rules, seed, points, stats, trace if record else None)


def bytes_per_game_in_flight(params: Mapping | RuleSet | None = None) -> int:
    """Memory one game in flight uses inside the simulator: the state vector,
    the legal-action and deck buffers and the random stream (plus its row of
    the output arrays)."""
    rules = _rules_of(params)
    p = E.make_params(rules)
    return int(p[E.L_STATE_SIZE] * 4 + (K + 2) * 4 + rules.num_cards * 4 + 8
               + (rules.players + _NSTAT) * 4)


# ------------------------------------------------------------ search primitives
def make_rng(seed: int, stream: int = 0) -> np.ndarray:
    """A ``uint64[1]`` random stream for compiled policies and rollouts
    (``seed`` in 0..MAX_SEED, ``stream`` in 0..MAX_STREAM)."""
    seed = _check_int("seed", seed, 0, MAX_SEED)
    stream = _check_int("stream", stream, 0, MAX_STREAM)
    return make_rng_state(np.uint64(seed), stream)


def clone(s: np.ndarray) -> np.ndarray:
    """A copy of engine state vector ``s`` (int32, one-dimensional)."""
    check_array("s", s, np.int32, "an engine state vector")
    return s.copy()


def state_checksum(s) -> int:
    """A position-weighted checksum of an engine state vector (int32)."""
    check_array("s", s, np.int32, "an engine state vector")
    return int(_checksum(s))


@njit(cache=True)
def _rollout(p, s, table, seats, checks, rng, err):
    trace = np.empty((1, 1), np.int32)
    nact = _play_game(p, s, table, seats, checks, rng, trace, 0, False,
                      np.empty(K + 2, np.int32), np.empty(p[P_NCARDS], np.int32), err, 0)
    if nact < 0:
        err[0, 0] = 0
    return E.returns(p, s)


# Table, seats, checks and names of the policies rollout has seen (registered names only).


def rollout(p: np.ndarray, s: np.ndarray, rng: np.ndarray,
            policy: str | Sequence[str] = "uniform", checked: bool | None = None) -> np.ndarray:
    """Play a copy of engine state ``s`` to the end with registered ``policy``
    (one name, or one per seat); return the returns (float64[n]).

    ``p`` and ``s`` must pass :func:`check_state` (a state of the rules ``p``;
    a state in the middle of the deal gets the rest of the deck shuffled, a
    terminal state returns its returns), ``rng`` comes from :func:`make_rng`
    and advances in place. ``checked``: ``None`` (default) checks the
    arguments, ``True`` also every action of the registered policies, ``False``
    skips ``validation.validate`` (types, shapes and rules are still checked): for
    states known to be sound, such as a pyspiel state's ``engine_state``."""
    checked = _check_checked(checked)
    check_state(p, s, consistent=checked is not False)
    check_rng(rng)
    n = int(p[P_N])
    key = (policy if isinstance(policy, str) else tuple(policy)
           if isinstance(policy, (list, tuple)) and all(isinstance(x, str) for x in policy)
           else None, n, checked)
    seats = _ROLLOUT_SEATS.get(key) if key[0] is not None else None
    if seats is None:
        funcs, where, user, names = _policy_seats(policy, n, allow_functions=False)
        seats = _table(funcs), where, _seat_checks(user, checked), names
        if key[0] is not None:
            if len(_ROLLOUT_SEATS) >= 256:
                _ROLLOUT_SEATS.clear()
            _ROLLOUT_SEATS[key] = seats
    table, where, checks, names = seats
    err = np.full((1, _NERR), -1, np.int64)
    if p.flags.writeable:
        p = p.view()                    # the policies take the rules read-only
        p.setflags(write=False)
    with _Quiet():
        out = _rollout(p, s.copy(), table, where, checks, rng, err)
    if err[0, 0] >= 0:
        raise _illegal(err[0], names, _RulesView(p))
    return out


class _RulesView:
    """What ``_illegal`` reads of the rules, from a rules vector."""

    def __init__(self, p):
        self.target_score = int(p[R.P_TARGET])
