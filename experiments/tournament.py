"""Duplicate-deal tournaments between agents, with confidence intervals.

**Format.** Every *deal* (the chance outcomes of a game: the shuffled pack of
each hand) is played once per *seat assignment*: a lineup of the agents over
the seats (agent ``i % k`` on seat ``i`` by default) rotated cyclically, so
every agent plays every seat with the same cards and the luck of the deal
cancels. All distinct rotations are used, or an evenly spaced subset of
``rotations`` of them (e.g. for 11 players). Forced moves (a single legal
action) are played without asking the agent; every agent is informed of
every action (``inform_action``), as in ``pyspiel.evaluate_bots``.

**Statistics.** For each deal and agent: its mean points per hand over the
seats it held in all assignments (lower is better), and its mean zero-sum
payoff per hand (the mean of the other seats' points minus its own; higher
is better). Means and 95% confidence intervals (Student t,
:func:`experiments.stats.mean_ci`) are computed over
deals, the independent unit; for each pair of agents, the per-deal
difference gives a paired t-test and a 95% CI of the mean difference.

**Reproducible.** Deal ``d`` depends only on ``(seed, d)``: its chance
outcomes and every agent's seed are drawn from
``numpy.random.SeedSequence([seed, d, ...])``, so results do not depend on the
number of worker processes, on how the deals are split into units or on the
order in which they finish (agents with a time budget are the exception).

**One results engine.** Tournaments run through :mod:`experiments.runner`:
its worker backends (spawned processes that ignore SIGINT and die with the
driver; Ray for the registered experiment) and its results store (one shard
per unit with its SHA-256 recorded first, a lock per folder, resume, damaged
shards named and, with ``repair``/``recompute_corrupt``, moved aside and
recomputed, the code that made every unit recorded). ``run_tournament(config,
out)`` writes a runner folder at ``out`` (one unit per deal; ``rows.csv``,
``agents.csv``, ``pairs.csv``, ``summary.txt``, ``metadata.json``): a killed
tournament restarted with the same configuration plays only the deals not
saved, and a longer tournament of the same configuration (more ``deals``)
reuses the saved ones. ``--out`` folders of earlier versions (``deals.jsonl``,
one checksummed line per deal) are read by :func:`read_records` and turned
into runner folders by :func:`convert_deals`.

**Bad input is refused before anything is written.** The game parameters,
the seat lineup and every agent spec are checked (each agent is built once
on a throwaway seat) before ``out`` is created or touched.

**Per-move time limit.** With ``move_time_limit`` (seconds) the units run in
worker processes (at least one, also with ``workers=1``) that report every
agent call (building, ``restart``, ``step``, ``inform_action``) to the main
process (:func:`experiments.runner.call_watch`); a call that has not returned
after the limit (0.05 s resolution) stops the run: the workers are killed and
a :class:`TournamentError` (:class:`experiments.runner.RunError` from the
runner) names the agent, the seat, the deal, the seat assignment and the
limit. Finished deals stay saved.

**Stopping.** SIGINT (Ctrl-C) or SIGTERM stops the workers (killed at once)
and raises :class:`TournamentInterrupted` (a ``KeyboardInterrupt``) saying
how many deals are saved. Rerunning resumes.

**Results are never silently stale.** Every saved unit records the code that
made it: this package's sources, the source file of the module defining each
agent's factory, the files of the modules that module imports outside the
standard library and site-packages (a file bot's helpers), the SHA-256 of
every agent parameter naming an existing file (a checkpoint) and of the
shipped model a network agent loads, :func:`agent_sources` (which also says
what is not tracked). A rerun says how many units it
reused; a unit made by other code is recomputed (saying which part differs)
unless ``reuse_stale``; ``fresh`` recomputes everything.

**The command line.** ``python -m experiments.tournament --agents heuristic
"ismcts(iterations=500)" --game '{"players": 6}' --deals 100 --workers 2 --out
results/tournaments/x`` runs the registered runner experiment ``tournament``
(:mod:`experiments.studies.tournament`, units of ``--deals-per-unit`` deals)
into ``results/tournaments/x/tournament@<8 hex>/`` (``rows.csv``,
``agents.csv``, ``pairs.csv``, ``summary.txt``, ``metadata.json``) and prints
the summary table; ``--move-time-limit SECONDS`` sets ``move_time_limit``,
``--recompute-corrupt`` moves damaged shards aside and recomputes them,
``--reuse-stale`` and ``--fresh`` as above. Ctrl-C or SIGTERM prints one line
(how many units are saved) and exits with 128 + the signal number; the same
command resumes.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import inspect
import json
import math
import os
import signal
import socket
import sys
import time
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel
import scipy.stats

import spiel_game
from spiel_game import engine as E

from . import runner
from .config import ConfigError, check_output_dir, check_seed, config_from_dict, config_to_dict
from .registry import Experiment, Summary, Unit, UnitOutput, unit_seed
from .runner import unit_progress
from .stats import mean_ci
from spiel_game.provenance import file_sha256

__all__ = ["TournamentConfig", "TournamentError", "TournamentInterrupted", "TournamentResult",
           "seat_assignments", "run_tournament", "play_deal", "check_agents", "read_records",
           "convert_deals", "paired_test", "summarize", "summary_table", "summary_tables",
           "deal_rows", "deal_records", "play_block", "game_records", "agent_sources",
           "ROW_COLUMNS", "AGENT_COLUMNS", "PAIR_COLUMNS", "agent_parameters", "cpu_now",
           "pin_cores"]

SHARD = "deals.jsonl"            # the record file of earlier versions (read_records)
MAX_DEALS_BYTES = 1 << 30        # the longest deals.jsonl read (regular files only)
FORMAT = 2                      # deals.jsonl with a checksum on every line


class TournamentError(RuntimeError):
    """A tournament that cannot run: a bad configuration, an illegal move, a foreign or
    damaged record file, an agent over the move time limit."""


class TournamentInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped the tournament; ``signum`` is the signal. Finished
    deals are saved; rerunning resumes."""

    def __init__(self, message: str = "", signum: int = signal.SIGINT):
        super().__init__(message)
        self.signum = int(signum)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """A tournament. ``agents``: registry specs (or names given in ``factories``);
    ``game``: game parameters as ``((key, value), ...)`` (a dict is accepted);
    ``lineup``: agent index per seat before rotation (default ``i % k``);
    ``rotations``: number of seat assignments (None: every distinct rotation);
    ``workers``: processes (results do not depend on it); ``move_time_limit``:
    seconds an agent may take for one call (None: no limit); ``first_deal``:
    the tournament plays deals ``first_deal .. first_deal + deals - 1`` (a block
    of a longer tournament: deal ``d`` depends only on ``(seed, d)``)."""

    agents: tuple[str, ...]
    game: tuple[tuple[str, Any], ...] = ()
    deals: int = 100
    seed: int = 0
    rotations: int | None = None
    lineup: tuple[int, ...] | None = None
    workers: int = 1
    move_time_limit: float | None = None
    first_deal: int = 0
    #: seeds are ``0 <= seed < 2**63`` (the studies derive theirs below ``2**62``)
    SEED_BITS: ClassVar[int] = 63

    def __post_init__(self):
        if isinstance(self.game, Mapping):
            object.__setattr__(self, "game", tuple(sorted(self.game.items())))
        if isinstance(self.agents, (str, bytes)) or not isinstance(self.agents, Sequence):
            raise TournamentError(f"agents must be a list of agent specs, got {self.agents!r}")
        object.__setattr__(self, "agents", tuple(str(a) for a in self.agents))
        if self.lineup is not None:
            if not all(_is_int(i) for i in self.lineup):
                raise TournamentError(f"lineup must be agent indices (integers), got "
                                      f"{list(self.lineup)!r}")
            object.__setattr__(self, "lineup", tuple(int(i) for i in self.lineup))
        if len(self.agents) < 1:
            raise TournamentError("a tournament needs at least one agent")
        try:
            check_seed(self.seed, bits=self.SEED_BITS)
        except ConfigError as err:
            raise TournamentError(str(err)) from None
        for name, lo in (("deals", 1), ("seed", None), ("workers", 1), ("first_deal", 0)):
            v = getattr(self, name)
            if not _is_int(v):
                raise TournamentError(f"{name} must be an integer, got {v!r}")
            if lo is not None and v < lo:
                raise TournamentError(f"{name} must be >= {lo}, got {v}")
            object.__setattr__(self, name, int(v))
        if self.rotations is not None and (not _is_int(self.rotations) or self.rotations < 1):
            raise TournamentError(f"rotations must be an integer >= 1 or None, "
                                  f"got {self.rotations!r}")
        lim = self.move_time_limit
        if lim is not None:
            if (isinstance(lim, (bool, np.bool_)) or not isinstance(lim, (int, float, np.number))
                    or not math.isfinite(lim) or lim <= 0):
                raise TournamentError(f"move_time_limit must be a number of seconds > 0 or "
                                      f"None (no limit), got {lim!r}")
            object.__setattr__(self, "move_time_limit", float(lim))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TournamentConfig:
        """Build from a dict (:func:`experiments.config.config_from_dict`): unknown
        keys, a missing ``agents`` or a value of the wrong type raise
        :class:`TournamentError` naming the allowed keys."""
        return config_from_dict(cls, d, error=TournamentError)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["game"] = dict(self.game)
        return d

    @property
    def game_params(self) -> dict:
        return dict(self.game)

    def fingerprint(self) -> str:
        """What the per-deal results depend on (not ``deals``, ``first_deal``,
        ``workers`` nor ``move_time_limit``)."""
        d = self.to_dict()
        del d["deals"], d["workers"], d["move_time_limit"], d["first_deal"]
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


def seat_assignments(n_seats: int, n_agents: int, lineup: Sequence[int] | None = None,
                     rotations: int | None = None) -> list[tuple[int, ...]]:
    """Agent index per seat for each assignment: the cyclic rotations of ``lineup``
    (distinct ones, in order of the shift), or ``rotations`` of them evenly spaced."""
    if n_agents > n_seats:
        raise TournamentError(f"{n_agents} agents do not fit {n_seats} seats")
    lineup = [i % n_agents for i in range(n_seats)] if lineup is None else list(lineup)
    if len(lineup) != n_seats:
        raise TournamentError(f"lineup has {len(lineup)} entries for {n_seats} seats")
    if min(lineup) < 0 or max(lineup) >= n_agents:
        raise TournamentError(f"lineup {lineup} names agents outside 0..{n_agents - 1}")
    if set(lineup) != set(range(n_agents)):
        raise TournamentError(f"lineup {lineup} leaves out agents "
                              f"{sorted(set(range(n_agents)) - set(lineup))}")
    seen, out = set(), []
    for r in range(n_seats):
        a = tuple(lineup[(q + r) % n_seats] for q in range(n_seats))
        if a not in seen:
            seen.add(a)
            out.append(a)
    if rotations is not None and rotations < len(out):
        out = [out[(j * len(out)) // rotations] for j in range(rotations)]
    return out




# ------------------------------------------------------------------ playing
def _seed(*words: int) -> int:
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0]
               & np.uint64(2**62 - 1))


class _Chance:
    """The chance outcomes of one deal: hand ``h`` is a shuffle of the pack drawn
    from ``SeedSequence([seed, deal, 1, h])`` (one outcome per card, or one whole
    deal drawn with the game's probabilities)."""

    def __init__(self, game, seed: int, deal: int):
        self.game, self.seed, self.deal = game, seed, deal
        self.whole = game.rules.deal == "whole"
        self.count = 0
        self._seq: list[int] = []

    def next(self, state) -> int:
        ncards = 1 if self.whole else self.game.rules.num_cards
        hand, pos = divmod(self.count, ncards)
        self.count += 1
        rng = np.random.default_rng([self.seed, self.deal, 1, hand])
        if self.whole:
            acts, probs = zip(*state.chance_outcomes())
            return int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))])
        if pos == 0:
            seq = np.repeat(np.arange(E.K), self.game.rules.deck_counts)
            rng.shuffle(seq)
            self._seq = seq.tolist()
        return self._seq[pos]


# The agent calls a watched unit reports (experiments.runner.call_watch).
_BUILD, _RESTART, _STEP, _INFORM = range(4)
_CALLS = {_BUILD: "building the agent", _RESTART: "restart()", _STEP: "step() (its move)",
          _INFORM: "inform_action()"}


def _labels(config: TournamentConfig, deal: int, ai: int, assign, where: str) -> list:
    """``labels[seat][call]``: the error message of a watched call that does not
    return (``{limit}``: the limit, filled in by the runner), UTF-8."""
    pre = f"{where}: " if where else ""
    return [[(f"{pre}agent {config.agents[a]!r} on seat {q} did not return from {_CALLS[c]} "
              f"within the move time limit of {{limit}} s (deal {deal}, seat assignment "
              f"{ai}); the tournament was stopped").encode() for c in range(4)]
            for q, a in enumerate(assign)]


def cpu_now(bot) -> float:
    """CPU seconds so far of this thread (:func:`time.thread_time`) plus those of
    ``bot``'s helper processes (``bot.cpu_seconds()`` when the agent has it: the
    xinxin driver's). The difference around a ``step`` is the agent's CPU time for
    that move."""
    extra = getattr(bot, "cpu_seconds", None)
    return time.thread_time() + (float(extra()) if callable(extra) else 0.0)


def pin_cores() -> tuple[int, int] | None:
    """Pin this process (and the workers it starts later) to one core and let the
    xinxin drivers started later run on another (:data:`solvers.xinxin.CORE_ENV`):
    returns ``(ours, driver's)``, or None (nothing pinned, a note on stderr) when
    fewer than two cores are available to this process."""
    from solvers.xinxin import CORE_ENV
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print(f"note: only {len(cores)} core(s) available: the tournament is not pinned",
              file=sys.stderr)
        return None
    ours, theirs = cores[0], cores[1]
    os.sched_setaffinity(0, {ours})
    os.environ[CORE_ENV] = str(theirs)
    return ours, theirs


class _AgentFailed(TournamentError):
    """An exception escaped the agent on ``seat`` (:func:`_agent_failure`); ``detail``
    says what it raised where, without the agent's name (:func:`play_deal` adds it)."""

    def __init__(self, seat: int, name: str, detail: str):
        super().__init__(f"{name} on seat {seat} {detail}")
        self.seat, self.detail = seat, detail


def _agent_failure(e: BaseException, seat: int, name: str, call: str) -> BaseException:
    """What to raise for ``e`` escaping the code of agent ``name`` on ``seat`` during
    ``call``: a one-line :class:`TournamentError` naming the agent, the exception, its
    message and where it was raised, for any exception, ``SystemExit`` or
    ``KeyboardInterrupt`` the agent's code raised itself; ``e`` itself for a SIGINT
    or SIGTERM (a ``KeyboardInterrupt`` carrying ``signum``: the runner's, and
    :func:`_interrupts_marked`'s) and for a TournamentError."""
    if isinstance(e, TournamentError) or (
            isinstance(e, KeyboardInterrupt) and getattr(e, "signum", None) is not None):
        return e
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    at = f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb is not None else ""
    text = " ".join(str(e).split())
    text = text if len(text) <= 300 else text[:297] + "..."
    kind = ("exited (SystemExit)" if isinstance(e, SystemExit) else
            "raised KeyboardInterrupt itself" if isinstance(e, KeyboardInterrupt) else
            f"raised {type(e).__name__}")
    return _AgentFailed(seat, name, f"{kind}{': ' + text if text else ''} in {call}{at}; the "
                                    f"tournament was stopped")


def _interrupts_marked(fn):
    """Run ``fn`` (in the main thread) with SIGINT and SIGTERM, when their handlers are
    Python functions that raise ``KeyboardInterrupt`` (Python's default SIGINT
    handler, the command line's SIGTERM one), raising it with ``signum`` set: a
    signal then stops the tournament, while a ``KeyboardInterrupt`` that an
    agent raises itself (no ``signum``) is reported as that agent's failure
    (:func:`_agent_failure`)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        import threading
        if threading.current_thread() is not threading.main_thread():
            return fn(*args, **kwargs)
        old = {}

        def handler(signum, frame):
            try:
                old[signum](signum, frame)
            except KeyboardInterrupt as e:
                if getattr(e, "signum", None) is None:
                    e.signum = int(signum)
                raise
        handler.marks = True
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                h = signal.getsignal(sig)
                if callable(h) and not getattr(h, "marks", False):
                    old[sig] = h
                    signal.signal(sig, handler)
            return fn(*args, **kwargs)
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
    return wrapper


def play_game(game, bots: Sequence, chance: _Chance, watch: runner.CallWatch | None = None,
              keep: list | None = None, labels: Sequence | None = None,
              cpu: list | None = None):
    """Play one game; returns (points per seat per hand, hands, seconds per seat,
    decisions per seat). ``cpu`` (a list of one number per seat): each seat's CPU
    seconds of its decisions are added to it (:func:`cpu_now`). ``watch`` (a watched
    worker, :func:`experiments.runner.call_watch`) gets every agent call reported,
    described by ``labels[seat][call]`` (:func:`_labels`).
    ``keep`` (a list): gets the final state and the thinking seconds of every action
    (None for chance and forced moves) appended, for a game record."""
    n = game.num_players()
    st = game.new_initial_state()
    for q, b in enumerate(bots):
        if watch is not None:
            watch.begin(labels[q][_RESTART])
        try:
            b.restart()
        except BaseException as e:
            raise _agent_failure(e, q, type(b).__name__, _CALLS[_RESTART]) from None
    if watch is not None:
        watch.end()
    secs, decisions = [0.0] * n, [0] * n
    per_action: list[float | None] = []
    while not st.is_terminal():
        took = None
        if st.is_chance_node():
            a = chance.next(st)
            player = pyspiel.PlayerId.CHANCE
        else:
            player = st.current_player()
            legal = st.legal_actions()
            if len(legal) == 1:
                a = legal[0]
            else:
                c0 = cpu_now(bots[player]) if cpu is not None else 0.0
                t0 = time.perf_counter()
                if watch is not None:
                    watch.begin(labels[player][_STEP])
                try:
                    a = bots[player].step(st)
                except BaseException as e:
                    raise _agent_failure(e, player, type(bots[player]).__name__,
                                         _CALLS[_STEP]) from None
                if watch is not None:
                    watch.end()
                took = time.perf_counter() - t0
                if cpu is not None:
                    cpu[player] += cpu_now(bots[player]) - c0
                secs[player] += took
                decisions[player] += 1
                if a not in legal:
                    raise TournamentError(
                        f"{type(bots[player]).__name__} on seat {player} chose illegal action "
                        f"{a} (legal: {legal}) in state {st.serialize()!r}")
            for q, b in enumerate(bots):
                if q != player:
                    if watch is not None:
                        watch.begin(labels[q][_INFORM])
                    try:
                        b.inform_action(st, player, a)
                    except BaseException as e:
                        raise _agent_failure(e, q, type(b).__name__, _CALLS[_INFORM]) from None
            if watch is not None:
                watch.end()
        st.apply_action(int(a))
        per_action.append(took)
    if keep is not None:
        keep.append((st, per_action))
    s, P = st.engine_state, st.engine_params
    hands = max(1, int(s[E.S_HANDNO]))
    points = [int(s[P[E.L_SCORES] + q]) / hands for q in range(n)]
    return points, hands, secs, decisions


def _make(label: str, game, seat: int, seed: int, factories: Mapping[str, Callable] | None):
    from solvers.registry import make_agent
    if factories and label in factories:
        return make_agent(factories[label], game, seat, seed)
    return make_agent(label, game, seat, seed)


def _resolved(agents: Sequence[str], factories: Mapping[str, Callable] | None) -> dict:
    """``factories`` plus, for every other agent spec, its factory with the spec's
    keywords bound (``functools.partial``), looked up once: building a registry agent
    by its spec looks the name up among the installed plug-ins each time, which
    costs far more than building the agent. The same factory gets the same
    arguments, so the agents are the same. Specs that do not resolve are left to
    :func:`_make` (which names what is wrong)."""
    from solvers import registry as reg
    out = dict(factories or {})
    todo = [a for a in dict.fromkeys(agents) if a not in out]
    if todo:
        known = reg.factories()
        for label in todo:
            try:
                sp = reg.parse_spec(label)
            except reg.AgentSpecError:
                continue
            try:
                f = reg.factory(sp.name) if ":" in sp.name else known.get(sp.name)
            except reg.AgentSpecError:
                f = None
            if f is not None:
                out[label] = functools.partial(f, **sp.kwargs) if sp.params else f
    return out


@_interrupts_marked
def check_agents(agents: Sequence[str], game, factories: Mapping[str, Callable] | None = None,
                 assignment: Sequence[int] | None = None, *,
                 time_limit: float | None = None) -> None:
    """Build every agent once (seed 0, on the first seat it holds in ``assignment``,
    else seat 0) and throw it away: a bad spec (unknown agent, unknown keyword, bad
    value) raises :class:`TournamentError` naming the agent before anything runs.
    ``game``: a loaded game or its parameters. ``time_limit`` (seconds, the
    tournament's ``move_time_limit``): the agents are built in a child process
    and one whose building (the import of its module included) takes longer is
    stopped with a :class:`TournamentError` naming it; the child is killed."""
    if not hasattr(game, "num_players"):
        game = _load_game(game)
    if time_limit is not None:
        return _check_agents_limited(agents, game, factories, assignment, float(time_limit))
    for label in dict.fromkeys(agents):
        seat = list(assignment).index(agents.index(label)) if assignment else 0
        _check_one(label, game, seat, factories)


def _check_one(label: str, game, seat: int, factories) -> None:
    from solvers.registry import AgentSpecError
    try:
        _make(label, game, seat, 0, factories)
    except AgentSpecError as e:
        raise TournamentError(f"bad agent spec: {e}" if repr(label) in str(e)
                              else f"bad agent spec {label!r}: {e}") from None
    except Exception as e:                  # a plug-in factory's own error
        raise TournamentError(f"agent {label!r} could not be built (seat {seat}): "
                              f"{type(e).__name__}: {e}") from e
    except BaseException as e:  # SystemExit, a KeyboardInterrupt it raised itself; not a signal
        raise _agent_failure(e, seat, f"agent {label!r}", _CALLS[_BUILD]) from None


#: Seconds the child of :func:`check_agents` may take to start (import this
#: package) before it builds anything; not part of any agent's time.
CHECK_STARTUP_SECONDS = 300.0


def _check_agents_child(agents, params, factories, assignment, conn) -> None:
    """The child of :func:`_check_agents_limited`: reports ``("ready",)``, then
    ``("start", label, seat)`` before and ``("ok",)`` after building each agent,
    or ``("error", message)``."""
    try:
        import solvers.registry  # noqa: F401  (the package import is not an agent's time)
        game = _load_game(params)
        conn.send(("ready",))
        for label in dict.fromkeys(agents):
            seat = list(assignment).index(agents.index(label)) if assignment else 0
            conn.send(("start", label, seat))
            _check_one(label, game, seat, factories)
            conn.send(("ok",))
        conn.send(("done",))
    except BaseException as e:              # reported; the process ends
        msg = str(e) if isinstance(e, TournamentError) else (
            f"checking the agents failed: {type(e).__name__}: {e}")
        try:
            conn.send(("error", msg))
        except Exception:
            pass
    finally:
        conn.close()


def _check_agents_limited(agents, game, factories, assignment, limit: float) -> None:
    """:func:`check_agents` with each agent's building bounded by ``limit`` seconds."""
    import multiprocessing
    import pickle
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    params = dict(game.get_parameters())
    args = (list(agents), params, dict(factories) if factories else None,
            list(assignment) if assignment else None, send)
    try:
        pickle.dumps(args[2])
    except Exception:                       # unpicklable factories: built here, unbounded
        recv.close()
        send.close()
        for label in dict.fromkeys(agents):
            seat = list(assignment).index(agents.index(label)) if assignment else 0
            _check_one(label, game, seat, factories)
        return
    proc = ctx.Process(target=_check_agents_child, args=args, daemon=True)
    proc.start()
    send.close()
    current = None                          # (label, seat) being built
    try:
        while True:
            wait = CHECK_STARTUP_SECONDS if current is None else limit
            if not recv.poll(wait):
                if current is None:
                    raise TournamentError(
                        f"checking the agents: the checking process did not start within "
                        f"{CHECK_STARTUP_SECONDS:g} s")
                label, seat = current
                raise TournamentError(
                    f"agent {label!r} (seat {seat}) was not built within the move time limit "
                    f"of {limit:g} s (building includes importing its module); the "
                    f"tournament was not started")
            try:
                msg = recv.recv()
            except EOFError:
                proc.join(5)
                raise TournamentError(
                    f"checking the agents: the checking process ended (exit code "
                    f"{proc.exitcode})" + (f" while building agent {current[0]!r}"
                                           if current else "")) from None
            if msg[0] == "start":
                current = (msg[1], msg[2])
            elif msg[0] == "ok":
                current = None
            elif msg[0] == "done":
                return
            elif msg[0] == "error":
                raise TournamentError(msg[1])
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)


def _load_game(params: Mapping[str, Any]):
    try:
        return spiel_game.load(dict(params))
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise TournamentError(f"bad game parameters {dict(params)}: {e}") from None


@_interrupts_marked
def play_deal(config: TournamentConfig, deal: int, game=None,
              factories: Mapping[str, Callable] | None = None,
              watch: runner.CallWatch | None = None, games: bool = False,
              where: str = "", on_game: Callable[[int, int], None] | None = None) -> dict:
    """Every seat assignment of deal ``deal``: its record (assignments, points, hands,
    timing). With ``games``, the dict also has ``"games"``: one game record
    (:mod:`spiel_game.records`, as a JSON object) per seat assignment. ``watch``:
    report every agent call (:func:`experiments.runner.call_watch`; ``where``
    prefixes the error of a call over the time limit). ``on_game(i, m)`` (optional)
    is called after the ``i``-th of the ``m`` seat assignments (progress)."""
    game = game or spiel_game.load(config.game_params)
    if watch is not None:
        import solvers.registry  # noqa: F401  (the import is not the agent's build time)
        # importing the agents' modules (a file bot's) is watched like building them
        names = ", ".join(map(repr, dict.fromkeys(config.agents)))
        watch.begin((f"{where}: " if where else "").encode() + (
            f"importing the modules of the agents {names} did not finish within the move "
            f"time limit of {{limit}} s (deal {deal}); the tournament was stopped").encode())
    factories = _resolved(config.agents, factories)
    if watch is not None:
        watch.end()
    n, k = game.num_players(), len(config.agents)
    assigns = seat_assignments(n, k, config.lineup, config.rotations)
    points, hands = [], []
    secs, decs, cpus = np.zeros(k), np.zeros(k, np.int64), np.zeros(k)
    kept: list = [] if games else None
    for ai, assign in enumerate(assigns):
        bots = []
        labels = _labels(config, deal, ai, assign, where) if watch is not None else None
        for q in range(n):
            if watch is not None:
                watch.begin(labels[q][_BUILD])
            try:
                bots.append(_make(config.agents[assign[q]], game, q,
                                  _seed(config.seed, deal, 2, ai, q), factories))
            except BaseException as e:
                raise _agent_failure(e, q, f"agent {config.agents[assign[q]]!r}",
                                     _CALLS[_BUILD]) from None
        cpu = [0.0] * n
        try:
            pts, h, sc, dc = play_game(game, bots, _Chance(game, config.seed, deal), watch,
                                       kept, labels, cpu)
        except _AgentFailed as e:
            raise TournamentError(f"agent {config.agents[assign[e.seat]]!r} on seat {e.seat} "
                                  f"{e.detail} (deal {deal}, seat assignment {ai})") from None
        points.append(pts)
        hands.append(h)
        for q in range(n):
            secs[assign[q]] += sc[q]
            decs[assign[q]] += dc[q]
            cpus[assign[q]] += cpu[q]
        if on_game is not None:
            on_game(ai + 1, len(assigns))
    out = {"deal": deal, "assignments": [list(a) for a in assigns], "points": points,
           "hands": hands, "timing": {"seconds": secs.tolist(), "decisions": decs.tolist(),
                      "cpu_seconds": cpus.tolist()}}
    if games:
        out["games"] = [_game_record(config, deal, ai, assign, st, per_action).to_dict()
                        for ai, (assign, (st, per_action)) in enumerate(zip(assigns, kept))]
    return out


def _game_record(config: TournamentConfig, deal: int, ai: int, assign, state, seconds):
    """The game record (:mod:`spiel_game.records`) of one seat assignment of a deal."""
    from spiel_game.records import record_from_state
    seats = [{"agent": config.agents[a], "seed": _seed(config.seed, deal, 2, ai, q)}
             for q, a in enumerate(assign)]
    return record_from_state(
        state, seats, seed=config.seed, seconds=seconds,
        info={"source": "experiments.tournament", "fingerprint": config.fingerprint(),
              "deal": deal, "assignment": ai, "lineup": list(assign),
              "chance": "numpy.random.default_rng([seed, deal, 1, hand])"})




# ------------------------------------------------------------------ statistics
def paired_test(x, y) -> dict:
    """Paired comparison over deals: mean of ``x - y`` with its 95% CI and the
    two-sided paired t-test p-value."""
    d = np.asarray(x, np.float64) - np.asarray(y, np.float64)
    out = mean_ci(d)
    if len(d) >= 2 and out["sd"] > 0:
        out["p_value"] = float(scipy.stats.ttest_1samp(d, 0.0).pvalue)
    else:
        out["p_value"] = float("nan") if len(d) < 2 else (1.0 if out["mean"] == 0 else 0.0)
    return out


def per_deal_agent_values(record: dict, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean points per hand, mean zero-sum payoff per hand) of each agent in one deal."""
    pts = np.zeros(n_agents)
    pay = np.zeros(n_agents)
    cnt = np.zeros(n_agents)
    for assign, row in zip(record["assignments"], record["points"]):
        row = np.asarray(row, np.float64)
        n = len(row)
        payoff = (row.sum() - row) / (n - 1) - row if n > 1 else -row
        for q, a in enumerate(assign):
            pts[a] += row[q]
            pay[a] += payoff[q]
            cnt[a] += 1
    return pts / cnt, pay / cnt


def summarize(config: TournamentConfig, records: Sequence[dict]) -> dict:
    """The tournament's statistics from its deal records (in deal order)."""
    k = len(config.agents)
    records = sorted(records, key=lambda r: r["deal"])
    if records:
        vals = [per_deal_agent_values(r, k) for r in records]
        pts = np.array([v[0] for v in vals])        # [deals, agents]
        pay = np.array([v[1] for v in vals])
    else:
        pts = pay = np.zeros((0, k))
    agents = []
    for i, name in enumerate(config.agents):
        agents.append({"agent": name, "points_per_hand": mean_ci(pts[:, i]),
                       "zero_sum_payoff": mean_ci(pay[:, i])})
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            pairs.append({"a": config.agents[i], "b": config.agents[j],
                          "payoff_difference": paired_test(pay[:, i], pay[:, j]),
                          "points_difference": paired_test(pts[:, i], pts[:, j])})
    secs = np.sum([r["timing"]["seconds"] for r in records], axis=0) if records else np.zeros(k)
    decs = np.sum([r["timing"]["decisions"] for r in records], axis=0) if records else np.zeros(k)
    # CPU seconds: only when every record has them (older records do not)
    cpu = (np.sum([r["timing"]["cpu_seconds"] for r in records], axis=0)
           if records and all(r["timing"].get("cpu_seconds") is not None for r in records)
           else [None] * k)
    timing = [{"agent": a, "seconds": float(s), "decisions": int(d),
               "ms_per_decision": float(1e3 * s / d) if d else None,
               "cpu_seconds": None if c is None else float(c),
               "cpu_ms_per_decision": float(1e3 * c / d) if d and c is not None else None}
              for a, s, d, c in zip(config.agents, secs, decs, cpu)]
    return {"deals": len(records),
            "assignments": records[0]["assignments"] if records else [],
            "agents": agents, "pairs": pairs, "timing": timing}


# ------------------------------------------------------------------ tidy rows (runner units)
#: The columns of :func:`deal_rows` (after the caller's key columns).
ROW_COLUMNS = ("kind", "deal", "assignment", "seat", "agent", "points", "hands", "seconds",
               "decisions", "cpu_seconds")


def deal_rows(records: Sequence[dict], **key) -> list[dict]:
    """The tidy rows of deal records (:func:`play_deal`), ``key`` columns first:
    ``kind == "seat"``, one per (deal, seat assignment, seat): the ``agent`` index on
    that seat and its ``points`` per hand over the ``hands`` of that assignment;
    ``kind == "agent"``, one per (deal, agent): its thinking ``seconds`` (wall
    clock), ``decisions`` and ``cpu_seconds`` (None in records without them) over
    the deal's seat assignments. The columns a kind does not use
    hold -1 (integers) or None. :func:`deal_records` is the inverse."""
    rows = []
    for r in records:
        for ai, (assign, points, hands) in enumerate(zip(r["assignments"], r["points"],
                                                         r["hands"])):
            for q, (a, p) in enumerate(zip(assign, points)):
                rows.append({**key, "kind": "seat", "deal": r["deal"], "assignment": ai,
                             "seat": q, "agent": a, "points": p, "hands": hands,
                             "seconds": None, "decisions": -1, "cpu_seconds": None})
        t = r["timing"]
        cpu = t.get("cpu_seconds") or [None] * len(t["seconds"])
        for a, (s, d, c) in enumerate(zip(t["seconds"], t["decisions"], cpu)):
            rows.append({**key, "kind": "agent", "deal": r["deal"], "assignment": -1,
                         "seat": -1, "agent": a, "points": None, "hands": -1, "seconds": s,
                         "decisions": d, "cpu_seconds": c})
    return rows


def deal_records(rows) -> list[dict]:
    """The deal records (deal order, as :func:`play_deal` returns them) of the rows
    of one tournament (:func:`deal_rows`; a list of dicts or a DataFrame, e.g. a
    runner's ``rows.csv``). Raises ``ValueError`` when a deal's rows are incomplete
    or repeated."""
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    seats = sorted((r for r in rows if r["kind"] == "seat"),
                   key=lambda r: (int(r["deal"]), int(r["assignment"]), int(r["seat"])))
    recs: dict[int, dict] = {}
    for r in seats:
        d, ai, q = int(r["deal"]), int(r["assignment"]), int(r["seat"])
        rec = recs.setdefault(d, {"deal": d, "assignments": [], "points": [], "hands": [],
                                  "timing": {"seconds": [], "decisions": []}})
        if ai == len(rec["assignments"]):
            rec["assignments"].append([])
            rec["points"].append([])
            rec["hands"].append(int(r["hands"]))
        if ai != len(rec["assignments"]) - 1 or q != len(rec["assignments"][ai]):
            raise ValueError(f"the rows of deal {d} miss or repeat a seat assignment or seat "
                             f"(assignment {ai}, seat {q})")
        rec["assignments"][ai].append(int(r["agent"]))
        rec["points"][ai].append(float(r["points"]))
    agents = sorted((r for r in rows if r["kind"] == "agent"),
                    key=lambda r: (int(r["deal"]), int(r["agent"])))
    for r in agents:
        d, a = int(r["deal"]), int(r["agent"])
        if d not in recs:
            raise ValueError(f"deal {d} has agent rows but no seat rows")
        t = recs[d]["timing"]
        if a != len(t["seconds"]):
            raise ValueError(f"the rows of deal {d} miss or repeat agent {a}")
        t["seconds"].append(float(r["seconds"]))
        t["decisions"].append(int(r["decisions"]))
        c = r.get("cpu_seconds")
        t.setdefault("cpu_seconds", []).append(
            None if c is None or (isinstance(c, float) and math.isnan(c)) else float(c))
    for rec in recs.values():       # rows without CPU seconds (older runs): no key
        t = rec["timing"]
        if "cpu_seconds" in t and any(c is None for c in t["cpu_seconds"]):
            del t["cpu_seconds"]
    return [recs[d] for d in sorted(recs)]




def play_block(config: TournamentConfig, where: str, games: bool = False):
    """The deal records of ``config`` (a block of deals: :attr:`TournamentConfig.first_deal`),
    played in this process for a unit of a runner experiment (every agent call
    reported to the runner's call watch when the run has a time limit:
    :func:`experiments.runner.call_watch`); with ``games``, the pair ``(deal
    records, game records)``. A :class:`TournamentError` becomes a
    :class:`experiments.runner.RunError` starting with ``where``; SIGINT and
    SIGTERM are the runner's (its handler's exception passes through)."""
    watch = runner.call_watch()
    try:
        game = _game_of(config)
        recs, kept = [], []
        deals = _deal_range(config)
        for i, d in enumerate(deals):
            def step(a, m, i=i):
                unit_progress(i + a / m, len(deals))
            rec = play_deal(config, d, game, None, watch=watch, games=games, where=where,
                            on_game=step)
            kept += rec.pop("games", None) or []
            recs.append(rec)
    except TournamentError as err:
        raise runner.RunError(f"{where}: {err}") from None
    return (recs, kept) if games else recs


# ------------------------------------------------------------------ results
# ------------------------------------------------------------------ the record file
@dataclasses.dataclass
class TournamentResult:
    config: TournamentConfig
    records: list[dict]
    summary: dict
    path: Path | None
    notes: list[str] = dataclasses.field(default_factory=list)
    games: list[dict] | None = None     # game records, with run_tournament(keep_games=True)

    def table(self) -> str:
        return summary_table(self.summary)

    def __repr__(self) -> str:
        """One line: agents, deals, mean zero-sum payoffs (not every record)."""
        pay = ", ".join(f"{a['agent']}: {a['zero_sum_payoff']['mean']:+.3f}"
                        for a in self.summary.get("agents", []))
        where = "" if self.path is None else f", path='{self.path}'"
        return (f"TournamentResult(agents={list(self.config.agents)}, "
                f"deals={len(self.records)}, mean payoff {{{pay}}}{where})")



# ------------------------------------------------------------------ running (the runner)
_GAMES: dict[str, Any] = {}


def _game_of(config: TournamentConfig):
    """The loaded game of ``config`` (cached per process: units of one tournament)."""
    key = json.dumps(sorted(config.game), default=str)
    if key not in _GAMES:
        _GAMES[key] = spiel_game.load(config.game_params)
    return _GAMES[key]


def _deal_unit(config: TournamentConfig, unit: Unit, factories=None,
               games: bool = False) -> UnitOutput:
    """A unit of :func:`run_tournament`: deal ``unit.params["deal"]``, its tidy rows and
    (with ``games``) its game records as the attachment ``"games"``."""
    rec = play_deal(config, unit.params["deal"], _game_of(config), factories,
                    watch=runner.call_watch(), games=games)
    kept = rec.pop("games", None)
    return UnitOutput(deal_rows([rec]), {"games": kept} if games else {})


def _library_summary(config: TournamentConfig, rows) -> Summary:
    records = deal_records(rows)
    s = summarize(dataclasses.replace(config, deals=len(records)), records)
    agents, pairs = summary_tables(s)
    return Summary(tables={"agents": agents, "pairs": pairs}, text=summary_table(s))


def _experiment(config: TournamentConfig, factories, games: bool) -> Experiment:
    """The runner experiment of :func:`run_tournament` (not registered)."""
    return Experiment(
        name="tournament", config_cls=TournamentConfig, units_fn=lambda c: [],
        unit_fn=functools.partial(_deal_unit, factories=dict(factories) if factories else None,
                                  games=games),
        summary_fn=_library_summary, profiles={}, description="run_tournament",
        reproduce=False, module=__name__,
        call_time_limit_fn=lambda c: c.move_time_limit,
        sources_fn=lambda c: agent_sources(c.agents, factories))


def _units(config: TournamentConfig) -> list[Unit]:
    return [Unit(d, unit_seed(config.seed, d), {"deal": d}) for d in _deal_range(config)]


def run_tournament(config: TournamentConfig, out: str | Path | None = None, *,
                   factories: Mapping[str, Callable] | None = None,
                   progress: bool = True, repair: bool = False,
                   records: str | Path | None = None, keep_games: bool = False,
                   fresh: bool = False, reuse_stale: bool = False,
                   pin: bool = False) -> TournamentResult:
    """Play (or resume) the tournament through :mod:`experiments.runner`.

    ``out`` (a folder): the runner's results folder of this tournament, one unit
    per deal (module docstring): finished deals are saved as they finish, a rerun
    plays only the missing ones (and those made by other code, unless
    ``reuse_stale``; ``fresh`` deletes the folder's results first), a longer
    tournament of the same configuration reuses the saved deals. A damaged
    shard stops the run naming the file unless ``repair`` (the runner's
    ``recompute_corrupt``: moved to ``out/corrupt/`` and played again, so the
    results equal those of an undamaged run). ``out=None``: nothing is written.

    ``records`` (a file path): also write every game played (one per deal and
    seat assignment) as a game record (:mod:`spiel_game.records`, JSON Lines) to
    that file; the results are the same with or without it. The file is new, or
    one that tournaments wrote (every line a game record of
    ``experiments.tournament``): it is rewritten with the other tournaments'
    lines kept and this one's replaced. Anything else there (a folder, a FIFO,
    a device, a link, another file) is refused before a deal is played.
    ``keep_games``: also return them in ``TournamentResult.games`` (deal, then
    seat-assignment order). With ``out`` the game records are always kept in
    the shards.

    ``factories`` maps agent labels of ``config.agents`` to factories
    ``f(game, player, seed) -> pyspiel.Bot`` (OpenSpiel's bots, for example);
    with worker processes (``workers > 1`` or a ``move_time_limit``) they must
    be picklable (module-level functions). Everything is checked (game,
    lineup, every agent built once) before ``out`` is created or touched.
    Notes (units reused or recomputed) go to stderr.

    ``pin``: first pin this process (and so its workers) to one core and the
    xinxin drivers to another (:func:`pin_cores`; it stays pinned afterwards;
    nothing is pinned on a machine with one core). Every agent's CPU seconds per
    decision are recorded either way (``cpu_ms_per_decision``).
    """
    if pin:
        pin_cores()
    if not isinstance(config, TournamentConfig):
        raise TournamentError(f"config must be a TournamentConfig, got {type(config).__name__}")
    game = _load_game(config.game_params)
    n = game.num_players()
    assigns = seat_assignments(n, len(config.agents), config.lineup, config.rotations)
    check_agents(config.agents, game, factories, assigns[0], time_limit=config.move_time_limit)
    if out is not None:
        try:
            check_output_dir(out)
        except ConfigError as err:
            raise TournamentError(str(err)) from None
    if out is not None and (Path(out) / SHARD).exists() and not (Path(out) / "run.json").exists():
        raise TournamentError(
            f"{out} holds the record file of an earlier version ({SHARD}); "
            f"convert_deals({str(out)!r}, NEW_FOLDER) turns it into a results folder, or "
            f"choose another folder")
    want_games = records is not None or keep_games or out is not None
    others = _other_records(Path(records), config.fingerprint()) if records is not None else None
    exp = _experiment(config, factories, want_games)
    units = _units(config)
    try:
        if out is None:
            recs, games = _run_in_memory(exp, config, units, progress)
        else:
            res = runner.run_experiment(
                exp, config, Path(out), units=units, identity=config.fingerprint(),
                workers=config.workers, fresh=fresh, recompute_corrupt=repair,
                reuse_stale=reuse_stale, progress=progress, verbose=False,
                command=f"run_tournament(config, {str(out)!r})")
            recs = deal_records(res.rows)
            games = ([g for _, gs in runner.attachments(res, "games") for g in gs]
                     if records is not None or keep_games else None)
    except TournamentInterrupted:
        raise
    except KeyboardInterrupt as e:          # a signal (the runner's) or a bare Ctrl-C
        signum = getattr(e, "signum", signal.SIGINT)
        where = f"saved in {out}; rerun the same command to resume"
        if out is None:
            raise TournamentInterrupted(
                f"tournament stopped by {signal.Signals(signum).name}: nothing is saved (no "
                f"output folder)", signum) from None
        saved = sum((Path(out) / "shards" / f"unit-{u.index:06d}.json").exists()
                    for u in units)
        raise TournamentInterrupted(
            f"tournament stopped by {signal.Signals(signum).name}: {saved} of "
            f"{config.deals} deals are {where}", signum) from None
    except runner.RunError as e:
        raise TournamentError(str(e)) from None
    if records is not None:
        _write_records(Path(records), others, games, config, recs)
    summary = summarize(config, recs)
    return TournamentResult(config, recs, summary, None if out is None else Path(out), [],
                            games if keep_games else None)


#: What a game record written by a tournament carries in ``info["source"]``.
RECORDS_SOURCE = "experiments.tournament"


def _records_lines(path: Path, fingerprint: str):
    """``(raw line, belongs to another tournament)`` for every non-blank line of the
    game record file ``path``, read one by one (bounded, regular file only); a
    line that is not a record written by a tournament raises TournamentError."""
    from spiel_game.records import MAX_RECORD_BYTES, GameRecord, RecordError
    from spiel_game.safe_io import RefusedFile, iter_lines
    try:
        for no, raw in enumerate(iter_lines(path, MAX_RECORD_BYTES, "game record file"), 1):
            if not raw.strip():
                continue
            try:
                rec = GameRecord.from_dict(json.loads(raw), f"{path} line {no}")
            except (ValueError, RecursionError, RecordError) as e:
                raise TournamentError(
                    f"--records {path}: line {no} is not a game record ({str(e)[:200]}); "
                    f"--records writes a new file or rewrites one that a tournament wrote, "
                    f"so this file is left as it is: give another file name") from None
            if rec.info.get("source") != RECORDS_SOURCE:
                raise TournamentError(
                    f"--records {path}: line {no} is a game record not written by a "
                    f"tournament (info.source {rec.info.get('source')!r}); --records "
                    f"rewrites only files that tournaments wrote, so this file is left as "
                    f"it is: give another file name")
            yield raw.rstrip(b"\n"), rec.info.get("fingerprint") != fingerprint
    except RefusedFile as e:
        raise TournamentError(f"--records {path}: {e.problem}") from None
    except OSError as e:
        raise TournamentError(f"--records {path}: cannot be read "
                              f"({e.strerror or e})") from None


def _other_records(path: Path, fingerprint: str) -> int:
    """Check ``--records PATH`` before anything is played; the number of lines of
    other tournaments that a rewrite keeps.

    ``PATH`` may be a new file (its folder must exist or be creatable), or a
    regular file (not a symbolic link) that tournaments wrote: every line a
    game record with ``info.source`` ``experiments.tournament`` (an empty file
    too). Anything else (a folder, a FIFO, a device such as ``/dev/full``, a
    link, a file of anything else) raises TournamentError, and nothing is
    written there."""
    import stat as _stat
    from spiel_game.safe_io import kind
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        try:
            check_output_dir(path.parent)
        except ConfigError as err:
            raise TournamentError(f"--records {path}: {err}") from None
        return 0
    except OSError as e:
        raise TournamentError(f"--records {path}: {e.strerror or e}") from None
    if not _stat.S_ISREG(st.st_mode):
        raise TournamentError(
            f"--records {path} exists and is {kind(st.st_mode)}; --records writes a new "
            f"regular file or rewrites a game record file that a tournament wrote, and never "
            f"replaces anything else: give another file name")
    return sum(other for _, other in _records_lines(path, fingerprint))


def _write_records(path: Path, others: int, games: list[dict], config, recs) -> None:
    """Rewrite ``path``: the other tournaments' lines, then this one's game records
    (each deal once)."""
    _replace_records(path, config.fingerprint(), (json.dumps(g) for g in games))
    _missing_note(path, games, recs)


def _replace_records(path: Path, fingerprint: str | None, lines) -> None:
    """Rewrite the game record file ``path`` atomically: the lines of tournaments
    other than ``fingerprint`` (None: none kept), each checked again as it is
    copied (:func:`_other_records`), then ``lines``. The new file is written
    beside it under a fresh name (created, never opened through a link) and
    renamed over ``path`` only when complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(tmp, flags, 0o644)
    except OSError as e:
        raise TournamentError(f"--records {path}: cannot write {tmp} ({e.strerror or e}); "
                              f"nothing there was replaced") from None
    try:
        with os.fdopen(fd, "wb") as f:
            if os.path.lexists(path):
                _other_records(path, fingerprint or "")       # still a records file
                for raw, other in _records_lines(path, fingerprint or ""):
                    if other and fingerprint is not None:
                        f.write(raw + b"\n")
            for line in lines:
                f.write((line + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise TournamentError(f"--records {path}: cannot be written ({e.strerror or e}); "
                              f"nothing there was replaced") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _missing_note(path: Path, games: list[dict], recs) -> None:
    have = {g["info"].get("deal") for g in games}
    missing = [r["deal"] for r in recs if r["deal"] not in have]
    if missing:
        print(f"note: {len(missing)} saved deals (first {missing[:5]}) were played without "
              f"game records; {path} holds only the deals played with them", file=sys.stderr)


def _run_in_memory(exp, config: TournamentConfig, units, progress: bool):
    """The units on the runner's local backend, nothing written: (records, games)."""
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(units), unit="deal", desc=" vs ".join(config.agents)[:60],
                   file=sys.stderr)
    got: dict[int, dict] = {}
    try:
        with runner._stop_on_signals():
            try:
                stream = runner.execute(exp, config, units, workers=config.workers)
                try:
                    for u, res in stream:
                        got[u.index] = res
                        if bar is not None:
                            bar.update(1)
                finally:
                    stream.close()
            except runner._Stop as stop:
                raise TournamentInterrupted(
                    f"tournament stopped by {signal.Signals(stop.signum).name}: {len(got)} of "
                    f"{config.deals} deals were played (no output folder: nothing is saved)",
                    stop.signum) from None
    finally:
        if bar is not None:
            bar.close()
    rows = [r for d in sorted(got) for r in got[d]["rows"]]
    games = [g for d in sorted(got) for g in (got[d].get("attachments") or {}).get("games", [])]
    return deal_records(rows), games


# ------------------------------------------------------------------ tables, records, sources
#: The columns of the ``agents`` and ``pairs`` tables (``agent``, ``a``, ``b``: the agent's
#: index; ``label``: its name in the printed tables, :func:`solvers.registry.short_labels`).
AGENT_COLUMNS = ("agent", "spec", "deals", "seat_assignments", "points_per_hand", "points_lo",
                 "points_hi", "payoff", "payoff_lo", "payoff_hi", "seconds", "decisions",
                 "ms_per_decision", "cpu_ms_per_decision", "label")
PAIR_COLUMNS = ("a", "b", "a_spec", "b_spec", "payoff_difference", "payoff_lo", "payoff_hi",
                "payoff_p_value", "points_difference", "points_lo", "points_hi",
                "points_p_value")


def summary_tables(s: dict):
    """The DataFrames ``(agents, pairs)`` of a :func:`summarize` result: per agent
    its points per hand and zero-sum payoff with 95% intervals, thinking time and
    decisions; per pair ``a < b`` the paired differences (payoff, points) with
    95% intervals and p-values (columns :data:`AGENT_COLUMNS`, :data:`PAIR_COLUMNS`)."""
    import pandas as pd
    from solvers.registry import short_labels
    labels = short_labels([a["agent"] for a in s["agents"]])    # the table's names
    agents = []
    for i, (a, t) in enumerate(zip(s["agents"], s["timing"])):
        p, z = a["points_per_hand"], a["zero_sum_payoff"]
        agents.append({"agent": i, "spec": a["agent"], "label": labels[i], "deals": s["deals"],
                       "seat_assignments": len(s["assignments"]),
                       "points_per_hand": p["mean"], "points_lo": p["lo"], "points_hi": p["hi"],
                       "payoff": z["mean"], "payoff_lo": z["lo"], "payoff_hi": z["hi"],
                       "seconds": t["seconds"], "decisions": t["decisions"],
                       "ms_per_decision": t["ms_per_decision"],
                       "cpu_ms_per_decision": t.get("cpu_ms_per_decision")})
    k = len(s["agents"])
    index = [(i, j) for i in range(k) for j in range(i + 1, k)]    # summarize's order
    pairs = []
    for (i, j), p in zip(index, s["pairs"]):
        z, q = p["payoff_difference"], p["points_difference"]
        pairs.append({"a": i, "b": j, "a_spec": p["a"], "b_spec": p["b"],
                      "payoff_difference": z["mean"], "payoff_lo": z["lo"],
                      "payoff_hi": z["hi"], "payoff_p_value": z["p_value"],
                      "points_difference": q["mean"], "points_lo": q["lo"],
                      "points_hi": q["hi"], "points_p_value": q["p_value"]})
    return (pd.DataFrame(agents, columns=list(AGENT_COLUMNS)),
            pd.DataFrame(pairs, columns=list(PAIR_COLUMNS)))


def game_records(result) -> tuple[list, list[int]]:
    """``(records, missing)`` of a loaded tournament run (:func:`experiments.runner.load`
    or :func:`run_tournament`'s folder): the :class:`spiel_game.records.GameRecord` of
    every deal and seat assignment, in deal order (each shard checked against its
    recorded hash), and the deals whose unit was saved without game records."""
    from spiel_game.records import GameRecord
    got = runner.attachments(result, "games")
    have = {i for i, _ in got}
    records = [GameRecord.from_dict(g, origin=f"{result.path} unit {i}")
               for i, games in got for g in games]
    records.sort(key=lambda r: (r.info.get("deal", 0), r.info.get("assignment", 0)))
    cfg = result.config or {}
    if dataclasses.is_dataclass(cfg):
        cfg = dataclasses.asdict(cfg)
    per = int(cfg.get("deals_per_unit", 10))
    total = int(cfg.get("deals", 0))
    missing = [d for i in runner._indices(result.metadata) if i not in have
               for d in range(i * per, min((i + 1) * per, total))]
    return records, missing


#: The agents whose ``checkpoint`` is a shipped model's name or, left out, the
#: default shipped model (:mod:`solvers.net.zoo`).
ZOO_AGENTS = ("network", "ismcts_net", "ismcts_bias")
#: The most files of imported modules one agent's fingerprint hashes.
MAX_IMPORTED_FILES = 2000


def _shared_roots() -> tuple[str, ...]:
    """Folders whose modules are not hashed as an agent's imports: the standard
    library, site-packages (installed packages) and this package's own
    packages (hashed whole as ``package code``)."""
    import site
    import sysconfig
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= set(getattr(site, "getsitepackages", lambda: [])())
    roots.add(getattr(site, "getusersitepackages", lambda: None)())
    roots |= set(runner.package_dirs())
    return tuple(os.path.join(os.path.realpath(r), "") for r in roots if r)


def _local_file(path, roots: tuple[str, ...]) -> str | None:
    """``path`` (real) if it is a Python source file outside ``roots``."""
    if not isinstance(path, str) or not path.endswith(".py"):
        return None
    real = os.path.realpath(path)
    if real.startswith(roots) or not os.path.isfile(real):
        return None
    return real


def _imported_files(module, roots: tuple[str, ...]) -> tuple[list[str], bool]:
    """``(files, complete)``: the source files of the modules that ``module``
    imports, directly or through each other, that lie outside ``roots`` (the
    user's own helper modules). A module is followed through its globals (an
    imported module, or the module of an imported function or class) and
    through the ``import`` statements of its source (those inside functions
    too), each resolved without running code. ``complete`` is False when
    :data:`MAX_IMPORTED_FILES` stopped the search."""
    import ast
    import importlib.util
    from spiel_game.safe_io import RefusedFile, read_text

    start = _local_file(getattr(module, "__file__", None), roots)
    if start is None:
        return [], True
    seen = {start}
    queue = [(start, getattr(module, "__name__", ""), module)]
    found: list[str] = []

    def visit(name: str, mod=None) -> None:
        mod = mod if mod is not None else sys.modules.get(name)
        f = getattr(mod, "__file__", None) if mod is not None else None
        if f is None and mod is None and name and "." not in name:
            try:                        # not imported yet (an import inside a function)
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError, AttributeError):
                spec = None
            f = getattr(spec, "origin", None)
        f = _local_file(f, roots)
        if f is not None and f not in seen:
            seen.add(f)
            found.append(f)
            queue.append((f, name, mod))

    while queue:
        if len(found) > MAX_IMPORTED_FILES:
            return sorted(found[:MAX_IMPORTED_FILES]), False
        path, name, mod = queue.pop()
        if mod is not None:
            for v in list(vars(mod).values()):
                if inspect.ismodule(v):
                    visit(v.__name__, v)
                else:
                    try:
                        owner = getattr(v, "__module__", None) if (
                            inspect.isfunction(v) or inspect.isclass(v)) else None
                    except Exception:   # an object whose attributes raise
                        owner = None
                    if isinstance(owner, str):
                        visit(owner)
        try:
            tree = ast.parse(read_text(path, 16 << 20, "module source"))
        except (OSError, RefusedFile, SyntaxError, ValueError, RecursionError):
            continue
        package = getattr(mod, "__package__", None) or name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    visit(a.name)
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                try:
                    base = importlib.util.resolve_name(base, package) if node.level else base
                except (ImportError, ValueError):
                    continue
                visit(base)
                for a in node.names:
                    visit(f"{base}.{a.name}")
    return sorted(found), True


def _model_sources(f, sp_name: str, params: Mapping, known: Mapping) -> dict[str, str]:
    """``{"model <name>": sha256}`` of the shipped model an agent of the zoo
    (:data:`ZOO_AGENTS`) loads: its ``checkpoint`` given as a model's name, or
    left out (the default model). The file is checked against the manifest's
    SHA-256 (:func:`solvers.net.zoo.model_path`), so a model rebuilt in place
    (file and manifest) is another model."""
    if sp_name not in ZOO_AGENTS and not any(
            n in known and inspect.unwrap(known[n]) is f for n in ZOO_AGENTS):
        return {}
    ck = params.get("checkpoint")
    from solvers.net import zoo
    try:
        if ck is None:
            name = zoo.DEFAULT_MODEL
        elif isinstance(ck, str) and not zoo.is_path(ck) and ck in zoo.models():
            name = ck
        else:
            return {}                   # a path: hashed as a checkpoint file
        zoo.model_path(name)            # the file matches the manifest, or refused
        return {f"model {name}": zoo.models()[name].sha256}
    except Exception:                   # refused with a clear error when the agent is built
        return {}


def agent_sources(agents: Sequence[str], factories: Mapping[str, Callable] | None = None
                  ) -> dict[str, str]:
    """What the agents' results depend on besides this package, as
    ``{label: sha256}``:

    - ``"agent module <file>"``: the source file of the module that defines each
      agent's factory (``inspect.getsourcefile``: built-in, registered, plug-in
      or file-defined agents alike);
    - ``"imported module <file>"``: the source file of every module that the
      agent's module imports, directly or through each other, outside the
      standard library, site-packages and this package (hashed whole as
      ``package code``): a file bot's helper modules (:func:`_imported_files`);
    - ``"checkpoint <file>"``: every agent parameter naming an existing file;
    - ``"model <name>"``: the SHA-256 of the shipped model a network agent
      loads (by name, or the default model), checked against the file.

    Not tracked: modules imported by a name computed at run time
    (``importlib.import_module(variable)``), files that an agent opens by a
    path it builds itself, and installed packages other than this one. Specs
    that cannot be resolved contribute nothing (they are refused elsewhere)."""
    from solvers import registry as reg
    out: dict[str, str] = {}
    known = None
    roots = None
    for label in dict.fromkeys(agents):
        params: dict = {}
        sp_name = ""
        if factories and label in factories:
            f = factories[label]
        else:
            try:
                sp = reg.parse_spec(label)
            except Exception:           # refused with a clear error by check_agents
                continue
            params, sp_name = sp.kwargs, sp.name
            if ":" in sp.name:              # module:factory or path/to/bot.py:factory
                try:
                    f = reg.factory(sp.name)
                except Exception:           # refused with a clear error by check_agents
                    f = None
            else:
                known = reg.factories() if known is None else known
                f = known.get(sp.name)
        if f is not None:
            f = inspect.unwrap(getattr(f, "func", f))
            if not (inspect.isfunction(f) or inspect.isclass(f) or inspect.ismethod(f)):
                f = type(f)                 # a callable object: its class's module
            try:
                src = inspect.getsourcefile(f)
            except TypeError:
                src = None
            if src and os.path.isfile(src):
                out[f"agent module {src}"] = file_sha256(src)
            roots = _shared_roots() if roots is None else roots
            files, complete = _imported_files(sys.modules.get(getattr(f, "__module__", None)
                                                              or ""), roots)
            for path in files:
                out[f"imported module {path}"] = file_sha256(path)
            if not complete:
                out["imported modules"] = (f"more than {MAX_IMPORTED_FILES} files; the first "
                                           f"{MAX_IMPORTED_FILES} are tracked")
            known = reg.factories() if known is None else known
            out.update(_model_sources(f, sp_name, params, known))
        for v in params.values():
            if isinstance(v, str) and v and os.path.isfile(v):
                out[f"checkpoint {os.path.abspath(v)}"] = file_sha256(v)
    return out


# ------------------------------------------------------------------ earlier record files
def convert_deals(old: str | Path, out: str | Path, *, progress: bool = False
                  ) -> TournamentResult:
    """Turn an ``--out`` folder of an earlier version (``old/deals.jsonl``: a header
    with the configuration, one checksummed line per deal) into the runner folder
    ``out`` of the same tournament, without playing a deal.

    Every line is checked as :func:`read_records` does (header, fingerprint,
    checksums, structure); the deals become the units' shards (marked
    ``imported_from``), the runner records their hashes and writes the tables,
    ``summary.txt`` and ``metadata.json``. The code that played them is not
    known, so they are reused as made by other code (a later
    ``run_tournament(config, out)`` recomputes them unless ``reuse_stale``).
    Refuses an ``out`` that exists. Returns the :class:`TournamentResult`."""
    old, out = Path(old), Path(out)
    path = old / SHARD
    try:
        from spiel_game.safe_io import RefusedFile, iter_lines
        try:
            header = json.loads(next(iter(iter_lines(path, MAX_DEALS_BYTES, "record file")),
                                     b""))
        except RefusedFile as e:
            raise TournamentError(str(e)) from None
        config = TournamentConfig.from_dict(header["config"])
    except FileNotFoundError:
        raise TournamentError(f"{path} not found") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise TournamentError(f"{path}: the header line (format, fingerprint, config) is "
                              f"damaged or missing: {e}") from None
    saved = _scan_shard(path, config, seat_assignments(
        _load_game(config.game_params).num_players(), len(config.agents), config.lineup,
        config.rotations), _load_game(config.game_params).num_players()).records
    deals = sorted(d for d in saved if d >= config.first_deal)
    last = deals[-1] + 1 if deals else config.first_deal
    config = dataclasses.replace(config, deals=last - config.first_deal, workers=1)
    records = read_records(old, config)             # every deal, every check
    if out.exists():
        raise TournamentError(f"{out} exists; convert into a new folder")
    tmp = out.with_name(out.name + ".converting")
    runner_tmp = tmp / "shards"
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    runner_tmp.mkdir(parents=True)
    units = _units(config)
    for u, rec in zip(units, records):
        shard = {"index": u.index, "seed": u.seed, "params": u.params,
                 "rows": json.loads(json.dumps(deal_rows([rec]))),
                 "elapsed_s": sum(rec["timing"]["seconds"]), "host": socket.gethostname(),
                 "imported_from": str(path)}
        (runner_tmp / f"unit-{u.index:06d}.json").write_text(json.dumps(shard, indent=1))
    cfg = config_to_dict(config)
    (tmp / "run.json").write_text(json.dumps(
        {"experiment": "tournament", "profile": "quick", "config": cfg, "units": len(units),
         "fingerprint": config.fingerprint()}, indent=1))
    tmp.rename(out)
    return run_tournament(config, out, progress=progress, reuse_stale=True)



# ------------------------------------------------------------------ deals.jsonl (read-only)
def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _digest(obj: dict, salt: str) -> str:
    """SHA-256 of ``salt`` (a record: the tournament's fingerprint) and ``obj``'s
    canonical JSON (``sha256`` itself left out)."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    return hashlib.sha256((salt + "\n" + _canonical(body)).encode()).hexdigest()




def _short_keys(obj: dict) -> str:
    keys = sorted(map(str, obj))
    text = repr(keys)
    return text if len(text) <= 120 else text[:100] + f"... ({len(keys)} keys)"


def _header_problem(obj: dict) -> str | None:
    """Why a header line is damaged (None: intact)."""
    if "sha256" in obj:
        if obj.get("format") != FORMAT:
            return f"unknown record-file format {obj.get('format')!r} (this version reads {FORMAT})"
        return None if obj["sha256"] == _digest(obj, "") else "the header's checksum does not match"
    if set(obj) != {"fingerprint", "config"}:  # a checksummed header whose "sha256" is damaged
        return (f"the header's fields {_short_keys(obj)} are damaged (a header has format, "
                f"fingerprint, config and sha256)")
    try:                                        # written before checksums: self-consistency
        ok = TournamentConfig.from_dict(obj["config"]).fingerprint() == obj["fingerprint"]
    except (TournamentError, KeyError, TypeError, ValueError):
        ok = False
    return None if ok else "the header's fingerprint does not match its config"


_RECORD_KEYS = {"deal", "assignments", "points", "hands", "timing"}


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _record_problem(obj: dict, fingerprint: str, assigns: list[list[int]], n: int, k: int,
                    legacy: bool) -> str | None:
    """Why a deal line cannot be used (None: it is a valid record of this tournament)."""
    missing, extra = _RECORD_KEYS - set(obj), set(obj) - _RECORD_KEYS - {"sha256"}
    if missing:
        return f"not a deal record: missing {sorted(missing)}"
    if extra:
        return f"unexpected field(s) {sorted(extra)} in a deal record"
    d = obj["deal"]
    if not _is_int(d) or d < 0:
        return f"deal index {d!r} is not an integer >= 0"
    if obj["assignments"] != assigns:
        return (f"deal {d}: seat assignments {obj['assignments']!r} differ from this "
                f"tournament's {assigns!r}")
    pts, hands, tm = obj["points"], obj["hands"], obj["timing"]
    if not isinstance(pts, list) or len(pts) != len(assigns) or not all(
            isinstance(r, list) and len(r) == n and all(_num(x) for x in r) for r in pts):
        return f"deal {d}: points must be {len(assigns)} rows of {n} finite numbers"
    if not isinstance(hands, list) or len(hands) != len(assigns) or not all(
            _is_int(h) and h >= 1 for h in hands):
        return f"deal {d}: hands must be {len(assigns)} integers >= 1"
    for r, h in zip(pts, hands):
        if any(abs(x * h - round(x * h)) > 1e-6 * max(1.0, abs(x * h)) for x in r):
            return f"deal {d}: points {r} are not whole scores over {h} hand(s)"
    if (not isinstance(tm, dict) or set(tm) - {"cpu_seconds"} != {"seconds", "decisions"}
            or not isinstance(tm["seconds"], list) or len(tm["seconds"]) != k
            or not all(_num(x) and x >= 0 for x in tm["seconds"])
            or not isinstance(tm["decisions"], list) or len(tm["decisions"]) != k
            or not all(_is_int(x) and x >= 0 for x in tm["decisions"])):
        return f"deal {d}: timing must hold seconds and decisions for {k} agents"
    if "sha256" not in obj:
        return None if legacy else f"deal {d}: no checksum (sha256)"
    if obj["sha256"] != _digest(obj, fingerprint):
        return (f"deal {d}: checksum mismatch: the record was changed after it was written "
                f"(or belongs to another tournament)")
    return None


@dataclasses.dataclass
class _Scan:
    """What ``deals.jsonl`` holds: valid records, problems (line, what, raw bytes or
    None) and how the file must be fixed."""

    records: dict[int, dict] = dataclasses.field(default_factory=dict)
    problems: list[tuple[int, str, bytes | None]] = dataclasses.field(default_factory=list)
    header_ok: bool = False
    legacy: bool = False
    foreign: dict | None = None         # the header of another tournament
    other_lines: int = 0                # non-blank lines besides the header
    tail_start: int | None = None       # byte offset of an incomplete last line
    tail_note: str | None = None
    tail_kept: bool = False             # the last line is complete but lacks its newline


def _scan_shard(path: Path, config: TournamentConfig, assigns, n: int) -> _Scan:
    sc = _Scan()
    if not path.exists():
        return sc
    from spiel_game.safe_io import RefusedFile, read_bytes
    try:
        raw = read_bytes(path, MAX_DEALS_BYTES, "record file")
    except RefusedFile as e:
        raise TournamentError(str(e)) from None
    fp, k = config.fingerprint(), len(config.agents)
    assigns = [list(a) for a in assigns]
    first_line = {}                     # deal -> line number of its record
    pos, lineno, first = 0, 0, True
    while pos < len(raw):
        nl = raw.find(b"\n", pos)
        complete = nl >= 0
        end = nl if complete else len(raw)
        line, start = raw[pos:end], pos
        pos = end + 1
        lineno += 1
        if not line.strip():
            if not complete:
                sc.tail_start = start
            continue
        problem, obj = None, None
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as e:
            problem = f"not valid JSON ({e})"
        if problem is None and not isinstance(obj, dict):
            problem = f"not a JSON object (a {type(obj).__name__})"
        is_header = problem is None and "fingerprint" in obj
        if problem is None and is_header:
            if not first:
                problem = "a header line out of place (the header belongs on line 1)"
            else:
                problem = _header_problem(obj)
                if problem is None and obj["fingerprint"] != fp:
                    sc.foreign = obj
                elif problem is None:
                    sc.header_ok, sc.legacy = True, "sha256" not in obj
        elif problem is None:
            problem = _record_problem(obj, fp, assigns, n, k, sc.legacy)
            if problem is None and obj["deal"] in sc.records:
                problem = (f"deal {obj['deal']} is recorded twice (first on line "
                           f"{first_line[obj['deal']]})")
        if problem is not None and not complete:     # a torn last line: a killed writer
            sc.tail_start = start
            sc.tail_note = (f"{path}: line {lineno} is incomplete ({len(line)} bytes without a "
                            f"newline: a write cut off by a kill); it was dropped"
                            + ("" if first else " and its deal will be played again"))
            break
        if first and not is_header:
            sc.problems.append((lineno, "the file does not start with its header line "
                                "(format, fingerprint, config)", None))
        if not first or not is_header:
            sc.other_lines += 1
        first = False
        if problem is not None:
            sc.problems.append((lineno, problem, line))
        elif not is_header:
            sc.records[obj["deal"]] = {k_: v for k_, v in obj.items() if k_ != "sha256"}
            first_line[obj["deal"]] = lineno
        if not complete:
            sc.tail_kept = True
    return sc


def _problem_report(path: Path, problems, limit: int = 20) -> str:
    lines = [f"  line {ln}: {what}" for ln, what, _ in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"  ... and {len(problems) - limit} more")
    return (f"{path}: {len(problems)} bad line(s); nothing was changed:\n" + "\n".join(lines)
            + "\n(a record file of an earlier version: read-only; convert_deals turns its "
            "valid deals into a runner folder)")



def _deal_range(config: TournamentConfig) -> range:
    return range(config.first_deal, config.first_deal + config.deals)


def read_records(out: str | Path, config: TournamentConfig) -> list[dict]:
    """The deal records of ``config`` saved in ``out/deals.jsonl`` (in deal order, the
    deals of :attr:`TournamentConfig.first_deal` ... only), read with every check a
    resumed tournament makes (header, fingerprint, checksums, structure); changes
    nothing. This reads the ``--out`` folders of earlier versions (the record file
    ``deals.jsonl``); :func:`convert_deals` turns them into runner folders.
    Raises :class:`TournamentError` when the file is missing, belongs to
    another tournament, has a bad or incomplete line, or lacks one of the deals."""
    path = Path(out) / SHARD
    if not path.is_file():
        if path.exists():
            from spiel_game.safe_io import kind
            raise TournamentError(f"{path} is {kind(path.stat().st_mode)}; allowed: a regular "
                                  f"file (the record file of an earlier version)")
        raise TournamentError(f"{path} not found")
    game = _load_game(config.game_params)
    n = game.num_players()
    assigns = seat_assignments(n, len(config.agents), config.lineup, config.rotations)
    sc = _scan_shard(path, config, assigns, n)
    if sc.foreign is not None:
        raise TournamentError(f"{path} holds deals of another tournament (its config: "
                              f"{sc.foreign.get('config')}; expected {config.to_dict()})")
    if sc.problems:
        raise TournamentError(_problem_report(path, sc.problems))
    if sc.tail_note or not sc.header_ok:
        raise TournamentError(sc.tail_note or f"{path} has no header line")
    missing = [d for d in _deal_range(config) if d not in sc.records]
    if missing:
        raise TournamentError(f"{path} lacks {len(missing)} deal(s) of the "
                              f"{config.deals} asked for: {missing[:10]}")
    return [sc.records[d] for d in _deal_range(config)]




def summary_table(summary: dict) -> str:
    """A markdown table of the agents and of the pairwise tests. Agents are named by
    their short labels (:func:`solvers.registry.short_labels`: checkpoint paths by
    file name); a legend under the tables gives the full spec of every shortened
    label."""
    from solvers.registry import short_labels

    def fmt(c):
        if c["n"] < 2:
            return f"{c['mean']:.3f}"
        return f"{c['mean']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]"
    specs = [a["agent"] for a in summary["agents"]]
    labels = short_labels(specs)
    k = len(specs)
    lines = [f"{summary['deals']} deals x {len(summary['assignments'])} seat assignments", "",
             "| agent | points per hand, lower is better (95% CI) | zero-sum payoff, higher is "
             "better (95% CI) | ms per decision | CPU ms per decision |",
             "|---|---|---|---|---|"]
    for lab, a, t in zip(labels, summary["agents"], summary["timing"]):
        ms = f"{t['ms_per_decision']:.2f}" if t["ms_per_decision"] is not None else "-"
        cpu = t.get("cpu_ms_per_decision")
        cpu = f"{cpu:.2f}" if cpu is not None else "-"
        lines.append(f"| {lab} | {fmt(a['points_per_hand'])} | "
                     f"{fmt(a['zero_sum_payoff'])} | {ms} | {cpu} |")
    if summary["pairs"]:
        lines += ["", "| a vs b | zero-sum payoff a - b, > 0: a is better (95% CI) | "
                      "paired t p-value |", "|---|---|---|"]
        index = [(i, j) for i in range(k) for j in range(i + 1, k)]   # summarize's order
        for (i, j), p in zip(index, summary["pairs"]):
            d = p["payoff_difference"]
            lines.append(f"| {labels[i]} vs {labels[j]} | {fmt(d)} | {d['p_value']:.2g} |")
    lines += ["", "zero-sum payoff: per hand, the mean of the other seats' points minus the "
                  "agent's own"]
    legend = [f"  {lab} = {x}" for lab, x in zip(labels, specs) if lab != x]
    if legend:
        lines += ["", "agents (full specs):", *legend]
    return "\n".join(lines)


def agent_parameters(agents: Sequence[str]) -> str | None:
    """The agents with every parameter they are built with, defaults included
    (:func:`solvers.registry.effective_spec`: bare ``ismcts`` is
    ``iterations=1000``), one line each under their table label; None when a
    spec is bad (unknown agent or keyword: the run reports it)."""
    from solvers.registry import AgentSpecError, effective_spec, short_labels
    lines = ["agents (every parameter, defaults included):"]
    for lab, spec in zip(short_labels(agents), agents):
        try:
            lines.append(f"  {lab}: {effective_spec(spec)}")
        except AgentSpecError:
            return None
    return "\n".join(lines)




def main(argv=None) -> int:
    """``python -m experiments.tournament``: the registered runner experiment
    ``tournament`` (:mod:`experiments.studies.tournament`) with these flags as its
    configuration; results in ``<out>/tournament@<8 hex>/`` (resumable: the same
    command continues a stopped run); prints the summary table."""
    from . import runner
    from .config import ConfigError
    ap = argparse.ArgumentParser(prog="python -m experiments.tournament",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", nargs="+", required=True,
                    help="agent specs: a name with literal parameters, e.g. "
                         "'ismcts(iterations=500)' (python -m experiments agents lists them), "
                         "or any factory: 'mymodule:make_bot(depth=2)', "
                         "'path/to/bot.py:make_bot'")
    ap.add_argument("--game", default="{}", help='game parameters as JSON, e.g. \'{"players": 6}\'')
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rotations", type=int, default=None)
    ap.add_argument("--lineup", type=int, nargs="+", default=None)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes, each playing blocks of deals (the numbers do not "
                         "depend on it)")
    ap.add_argument("--deals-per-unit", type=int, default=10, metavar="N",
                    help="deals per unit of work (the numbers do not depend on it)")
    ap.add_argument("--move-time-limit", type=float, default=None, metavar="SECONDS",
                    help="stop the tournament when one agent call takes longer (deals then "
                         "run in worker processes)")
    ap.add_argument("--out", required=True,
                    help="results root: the run's folder is <out>/tournament@<8 hex> "
                         "(resumable)")
    ap.add_argument("--recompute-corrupt", action="store_true",
                    help="move damaged result files aside and recompute their deals")
    ap.add_argument("--reuse-stale", action="store_true",
                    help="reuse saved units made by other code (this package, an agent's "
                         "module, a checkpoint); without it they are recomputed")
    ap.add_argument("--fresh", action="store_true",
                    help="delete the files the runner wrote for this configuration (nothing "
                         "else in its folder) and play every deal")
    ap.add_argument("--records", metavar="FILE", default=None,
                    help="also write the game record (spiel_game.records, JSON Lines) of every "
                         "deal and seat assignment to FILE (a new file, or one that "
                         "tournaments wrote: other tournaments' lines are kept); the run and its "
                         "folder are the same with or without it")
    ap.add_argument("--pin", action="store_true",
                    help="pin this process (and its workers) to one core and the xinxin "
                         "drivers to another (not on a one-core machine)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.records is not None and Path(args.records).is_dir():
        ap.error(f"--records names a file to write, got the folder {args.records}")
    try:
        game = json.loads(args.game)
    except json.JSONDecodeError as e:
        ap.error(f"--game is not JSON: {e}")
    if not isinstance(game, dict):
        ap.error(f"--game must be a JSON object like '{{\"players\": 6}}', got {args.game}")
    bad = {k: v for k, v in game.items() if isinstance(v, bool) or not isinstance(v, (int, str))}
    if bad:
        ap.error(f"--game values are integers or strings, got {bad}")
    players = game.pop("players", spiel_game.PARAMETER_DEFAULTS["players"])
    overrides = {"agents": tuple(args.agents), "players": players,
                 "game": tuple(f"{k}={v}" for k, v in game.items()), "deals": args.deals,
                 "seed": args.seed, "rotations": args.rotations,
                 "lineup": tuple(args.lineup) if args.lineup else None,
                 "deals_per_unit": args.deals_per_unit,
                 "move_time_limit": args.move_time_limit}
    params = agent_parameters(args.agents)
    if params is not None:          # else the run names the bad spec
        print(params, flush=True)
    try:
        if args.records is not None:    # a file tournaments wrote, or a new one
            _other_records(Path(args.records), "")
        if args.pin:
            cores = pin_cores()
            if cores is not None:
                print(f"pinned: this process on core {cores[0]}, xinxin drivers on core "
                      f"{cores[1]}", flush=True)
        res = runner.run("tournament", overrides=overrides, out=args.out, workers=args.workers,
                         recompute_corrupt=args.recompute_corrupt, fresh=args.fresh,
                         reuse_stale=args.reuse_stale, progress=not args.no_progress,
                         verbose=False)
    except KeyboardInterrupt as e:
        print(str(e) or "interrupted; rerun the same command to resume", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)
    except (ConfigError, runner.RunError, TournamentError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(res.text.rstrip())
    print(f"written to {res.path}")
    if args.records is not None:
        dest = Path(args.records)
        try:
            games, missing = game_records(res)
            _replace_records(dest, None, (g.to_json() for g in games))
        except (runner.RunError, TournamentError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(f"{len(games)} game records written to {dest}"
              + (f"; {len(missing)} deals (first {missing[:5]}) were saved before game "
                 f"records were kept and have none" if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
