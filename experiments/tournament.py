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

**Reproducible and resumable.** Deal ``d`` depends only on ``(seed, d)``: its
chance outcomes and every agent's seed are drawn from
``numpy.random.SeedSequence([seed, d, ...])``, so results do not depend on the
number of worker processes (``multiprocessing``, spawned) or on the order in
which deals finish (agents with a time budget are the exception). Finished
deals are appended to ``<out>/deals.jsonl`` (one JSON line each, written
with SIGINT/SIGTERM held back, flushed and fsynced); a killed tournament
restarted with the same configuration skips them. The summary goes to
``<out>/tournament.json`` with the configuration, seed, package versions and
git commit (:mod:`experiments.metadata`).

**The record file is checked before it is used.** ``deals.jsonl`` starts
with a header line (format, configuration, its fingerprint); every deal
line carries ``sha256``, the SHA-256 of the configuration's fingerprint and
the record's canonical JSON, and must match the configuration (deal index,
seat assignments, one points row of ``players`` numbers and a whole number
of hands per assignment, timings per agent). A line that is not JSON, fails
its checksum (an edited number), repeats a deal, or is out of place is a
*bad line*: the tournament stops before playing, naming the file, the line
number and what is wrong, and changes nothing. ``repair=True``
moves every bad line, verbatim, with its line number and
problem, to ``<out>/deals.jsonl.bad`` (one JSON object per line: ``line``,
``problem``, ``text``), keeps every valid record and replays the missing
deals, so the results equal those of an undamaged run. An incomplete last
line (no newline: a writer killed mid-line) is the normal crash case: it is
dropped with a note and its deal replayed. The checksum detects accidental
damage and hand edits, not a deliberate forgery (anyone can recompute it).
Files written before checksums (a header without ``format``) are read with
the structural checks only. ``<out>/deals.jsonl.lock`` keeps a second
process from writing the same folder at the same time.

**Bad input is refused before anything is written.** The game parameters,
the seat lineup and every agent spec are checked (each agent is built once
on a throwaway seat) before ``out`` is created or touched.

**Per-move time limit.** With ``move_time_limit`` (seconds)
deals run in worker processes (at least one, also with ``workers=1``) that
report every agent call (building, ``restart``, ``step``, ``inform_action``)
to the main process; a call that has not returned after the limit (measured
by the main process, 0.05 s resolution) stops the tournament: the workers are
killed and a :class:`TournamentError` names the agent, the seat, the deal,
the seat assignment and the limit. Finished deals stay saved.

**Stopping.** SIGINT (Ctrl-C) or SIGTERM stops the workers (killed at once;
they ignore SIGINT themselves and exit when the main process disappears)
and raises :class:`TournamentInterrupted` (a ``KeyboardInterrupt``) saying
how many deals are saved. Rerunning resumes.

**Runner units and the command line.** A runner experiment plays blocks of
deals in memory (:func:`play_block`) and keeps them as tidy rows
(:func:`deal_rows`, inverted by :func:`deal_records`): the registered
experiment ``tournament`` (:mod:`experiments.studies.tournament`) and the
ladder. ``python -m experiments.tournament --agents heuristic
"ismcts(iterations=500)" --game '{"players": 6}' --deals 100 --workers 2 --out
results/tournaments/x`` is a front end of ``tournament``: it runs it through
:func:`experiments.runner.run` (results, resumable, in
``results/tournaments/x/tournament@<8 hex>/``: ``rows.csv``, ``agents.csv``,
``pairs.csv``, ``summary.txt``, ``metadata.json``) and prints the summary
table; ``--move-time-limit SECONDS`` sets ``move_time_limit``,
``--recompute-corrupt`` is the runner's (damaged shards are moved aside and
recomputed; the record file ``deals.jsonl`` and its ``repair`` belong to
:func:`run_tournament` with an output folder). Ctrl-C or SIGTERM prints one
line (how many units are saved) and exits with 128 + the signal number; the
same command resumes.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _dt
import hashlib
import json
import math
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel
import scipy.stats

import spiel_game
from spiel_game import engine as E

from .config import ConfigError, check_output_dir, check_seed, config_from_dict
from .metadata import metadata, write_result
from .runner import _signals_blocked as _runner_signals_blocked
from .runner import unit_progress
from .stats import mean_ci

__all__ = ["TournamentConfig", "TournamentError", "TournamentInterrupted", "TournamentResult",
           "seat_assignments", "run_tournament", "play_deal", "check_agents", "read_records",
           "paired_test", "summarize", "summary_table", "deal_rows", "deal_records",
           "play_block", "ROW_COLUMNS", "agent_parameters"]

SHARD = "deals.jsonl"
BAD = "deals.jsonl.bad"
LOCK = "deals.jsonl.lock"
RESULT = "tournament.json"
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
        for name, lo in (("deals", 0), ("seed", None), ("workers", 1), ("first_deal", 0)):
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


# What a worker's agent is doing, for the move time limit (see _Watch).
_BUILD, _RESTART, _STEP, _INFORM = range(4)
_CALLS = {_BUILD: "building the agent", _RESTART: "restart()", _STEP: "step() (its move)",
          _INFORM: "inform_action()"}
_SLOT = 6                       # seq, busy, deal, assignment, seat, call


class _Watch:
    """A worker's window on shared memory: which agent call is running. The main
    process times each call by the sequence number (no clocks are compared)."""

    __slots__ = ("a", "b", "deal", "assignment")

    def __init__(self, arr, slot: int):
        self.a, self.b = arr, slot * _SLOT
        self.deal = self.assignment = -1

    def begin(self, seat: int, call: int) -> None:
        a, b = self.a, self.b
        a[b + 2] = self.deal
        a[b + 3] = self.assignment
        a[b + 4] = seat
        a[b + 5] = call
        a[b] += 1
        a[b + 1] = 1

    def end(self) -> None:
        self.a[self.b + 1] = 0


def play_game(game, bots: Sequence, chance: _Chance, watch: _Watch | None = None,
              keep: list | None = None):
    """Play one game; returns (points per seat per hand, hands, seconds per seat,
    decisions per seat). ``watch`` (worker processes): reports every agent call.
    ``keep`` (a list): gets the final state and the thinking seconds of every action
    (None for chance and forced moves) appended, for a game record."""
    n = game.num_players()
    st = game.new_initial_state()
    for q, b in enumerate(bots):
        if watch is not None:
            watch.begin(q, _RESTART)
        b.restart()
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
                t0 = time.perf_counter()
                if watch is not None:
                    watch.begin(player, _STEP)
                a = bots[player].step(st)
                if watch is not None:
                    watch.end()
                took = time.perf_counter() - t0
                secs[player] += took
                decisions[player] += 1
                if a not in legal:
                    raise TournamentError(
                        f"{type(bots[player]).__name__} on seat {player} chose illegal action "
                        f"{a} (legal: {legal}) in state {st.serialize()!r}")
            for q, b in enumerate(bots):
                if q != player:
                    if watch is not None:
                        watch.begin(q, _INFORM)
                    b.inform_action(st, player, a)
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


def check_agents(agents: Sequence[str], game, factories: Mapping[str, Callable] | None = None,
                 assignment: Sequence[int] | None = None) -> None:
    """Build every agent once (seed 0, on the first seat it holds in ``assignment``,
    else seat 0) and throw it away: a bad spec (unknown agent, unknown keyword, bad
    value) raises :class:`TournamentError` naming the agent before anything runs.
    ``game``: a loaded game or its parameters."""
    from solvers.registry import AgentSpecError
    if not hasattr(game, "num_players"):
        game = _load_game(game)
    for label in dict.fromkeys(agents):
        seat = list(assignment).index(agents.index(label)) if assignment else 0
        try:
            _make(label, game, seat, 0, factories)
        except AgentSpecError as e:
            raise TournamentError(f"bad agent spec: {e}" if repr(label) in str(e)
                                  else f"bad agent spec {label!r}: {e}") from None
        except Exception as e:                  # a plug-in factory's own error
            raise TournamentError(f"agent {label!r} could not be built (seat {seat}): "
                                  f"{type(e).__name__}: {e}") from e


def _load_game(params: Mapping[str, Any]):
    try:
        return spiel_game.load(dict(params))
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise TournamentError(f"bad game parameters {dict(params)}: {e}") from None


def play_deal(config: TournamentConfig, deal: int, game=None,
              factories: Mapping[str, Callable] | None = None,
              watch: _Watch | None = None, games: bool = False,
              on_game: Callable[[int, int], None] | None = None) -> dict:
    """Every seat assignment of deal ``deal``; the record written to the shard. With
    ``games``, the dict also has ``"games"``: one game record
    (:mod:`spiel_game.records`, as a JSON object) per seat assignment. ``on_game(i,
    m)`` (optional) is called after the ``i``-th of the ``m`` seat assignments
    (progress)."""
    game = game or spiel_game.load(config.game_params)
    n, k = game.num_players(), len(config.agents)
    assigns = seat_assignments(n, k, config.lineup, config.rotations)
    points, hands = [], []
    secs, decs = np.zeros(k), np.zeros(k, np.int64)
    if watch is not None:
        watch.deal = deal
    kept: list = [] if games else None
    for ai, assign in enumerate(assigns):
        bots = []
        for q in range(n):
            if watch is not None:
                watch.assignment = ai
                watch.begin(q, _BUILD)
            bots.append(_make(config.agents[assign[q]], game, q,
                              _seed(config.seed, deal, 2, ai, q), factories))
        pts, h, sc, dc = play_game(game, bots, _Chance(game, config.seed, deal), watch, kept)
        points.append(pts)
        hands.append(h)
        for q in range(n):
            secs[assign[q]] += sc[q]
            decs[assign[q]] += dc[q]
        if on_game is not None:
            on_game(ai + 1, len(assigns))
    out = {"deal": deal, "assignments": [list(a) for a in assigns], "points": points,
           "hands": hands, "timing": {"seconds": secs.tolist(), "decisions": decs.tolist()}}
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
    timing = [{"agent": a, "seconds": float(s), "decisions": int(d),
               "ms_per_decision": float(1e3 * s / d) if d else None}
              for a, s, d in zip(config.agents, secs, decs)]
    return {"deals": len(records),
            "assignments": records[0]["assignments"] if records else [],
            "agents": agents, "pairs": pairs, "timing": timing}


# ------------------------------------------------------------------ tidy rows (runner units)
#: The columns of :func:`deal_rows` (after the caller's key columns).
ROW_COLUMNS = ("kind", "deal", "assignment", "seat", "agent", "points", "hands", "seconds",
               "decisions")


def deal_rows(records: Sequence[dict], **key) -> list[dict]:
    """The tidy rows of deal records (:func:`play_deal`), ``key`` columns first:
    ``kind == "seat"``, one per (deal, seat assignment, seat): the ``agent`` index on
    that seat and its ``points`` per hand over the ``hands`` of that assignment;
    ``kind == "agent"``, one per (deal, agent): its thinking ``seconds`` and
    ``decisions`` over the deal's seat assignments. The columns a kind does not use
    hold -1 (integers) or None. :func:`deal_records` is the inverse."""
    rows = []
    for r in records:
        for ai, (assign, points, hands) in enumerate(zip(r["assignments"], r["points"],
                                                         r["hands"])):
            for q, (a, p) in enumerate(zip(assign, points)):
                rows.append({**key, "kind": "seat", "deal": r["deal"], "assignment": ai,
                             "seat": q, "agent": a, "points": p, "hands": hands,
                             "seconds": None, "decisions": -1})
        for a, (s, d) in enumerate(zip(r["timing"]["seconds"], r["timing"]["decisions"])):
            rows.append({**key, "kind": "agent", "deal": r["deal"], "assignment": -1,
                         "seat": -1, "agent": a, "points": None, "hands": -1, "seconds": s,
                         "decisions": d})
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
    return [recs[d] for d in sorted(recs)]


def play_block(config: TournamentConfig, where: str, games: bool = False):
    """The deal records of ``config`` (a block of deals: :attr:`TournamentConfig.first_deal`),
    played without a record file, for a unit of a runner experiment (in a watched
    worker process when ``move_time_limit`` is set); with ``games``, the pair
    ``(deal records, game records)`` (:attr:`TournamentResult.games`). A :class:`TournamentError`
    becomes a :class:`experiments.runner.RunError` starting with ``where``; SIGINT or
    SIGTERM, which the runner's handler raises in its own process, goes back to the
    runner as that handler's exception (its message says how many units are saved)."""
    from . import runner
    try:
        res = run_tournament(config, None, progress=False, keep_games=games)
        return (res.records, res.games) if games else res.records
    except TournamentError as err:
        raise runner.RunError(f"{where}: {err}") from None
    except TournamentInterrupted as err:
        raise runner._Stop(err.signum) from None


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


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _digest(obj: dict, salt: str) -> str:
    """SHA-256 of ``salt`` (a record: the tournament's fingerprint) and ``obj``'s
    canonical JSON (``sha256`` itself left out)."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    return hashlib.sha256((salt + "\n" + _canonical(body)).encode()).hexdigest()


def _header(config: TournamentConfig) -> dict:
    h = json.loads(json.dumps({"format": FORMAT, "fingerprint": config.fingerprint(),
                               "config": config.to_dict()}, default=str))
    h["sha256"] = _digest(h, "")
    return h


def _record_line(rec: dict, fingerprint: str) -> bytes:
    return (json.dumps({**rec, "sha256": _digest(rec, fingerprint)}) + "\n").encode()


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
    if (not isinstance(tm, dict) or set(tm) != {"seconds", "decisions"}
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
    raw = path.read_bytes()
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
            + f"\nrerun with run_tournament(..., repair=True) to move the bad lines "
            f"to {path.with_name(BAD)} (verbatim, with their line numbers) and play their deals "
            f"again; valid records are kept")


def _fsync_write(path: Path, data: bytes, mode: str = "wb") -> None:
    with open(path, mode) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _open_shard(path: Path, config: TournamentConfig, assigns, n: int, repair: bool,
                note: Callable[[str], None]) -> dict[int, dict]:
    """Check ``path``; fix it where that loses nothing (or ``repair``); the valid records."""
    sc = _scan_shard(path, config, assigns, n)
    fp = config.fingerprint()
    if sc.foreign is not None:
        if sc.other_lines or sc.problems:
            raise TournamentError(
                f"{path} holds deals of another tournament (its config: "
                f"{sc.foreign.get('config')}); use another --out folder or delete it")
        note(f"{path} held only the header of another tournament (no deals); replaced")
    elif sc.problems and not repair:
        raise TournamentError(_problem_report(path, sc.problems))
    if sc.tail_note:
        note(sc.tail_note)
    upgrade = sc.legacy and repair
    if sc.problems or sc.foreign is not None or upgrade:
        moved = [(ln, what, line) for ln, what, line in sc.problems if line is not None]
        if moved:
            stamp = _dt.datetime.now(_dt.UTC).isoformat()
            _fsync_write(path.with_name(BAD), b"".join(
                (json.dumps({"file": str(path), "line": ln, "problem": what, "moved": stamp,
                             "text": line.decode("utf-8", "surrogateescape")}) + "\n").encode()
                for ln, what, line in moved), "ab")
        tmp = path.with_name(SHARD + ".tmp")
        _fsync_write(tmp, (json.dumps(_header(config)) + "\n").encode() + b"".join(
            _record_line(sc.records[d], fp) for d in sc.records))
        os.replace(tmp, path)
        if sc.problems or upgrade:
            note(f"repaired {path}: {len(moved)} bad line(s) moved to {path.with_name(BAD)}, "
                 f"{len(sc.records)} valid record(s) kept"
                 + (" (checksums added)" if upgrade else ""))
    elif not sc.header_ok:          # new, empty, blank or only a torn line: no valid line
        _fsync_write(path, (json.dumps(_header(config)) + "\n").encode())
    elif sc.tail_start is not None:
        with open(path, "r+b") as f:
            f.truncate(sc.tail_start)
            os.fsync(f.fileno())
    elif sc.tail_kept:
        _fsync_write(path, b"\n", "ab")
    if sc.legacy and not upgrade:
        note(f"{path} was written before record checksums: its {len(sc.records)} record(s) "
             f"are checked for structure only (repair=True adds checksums)")
    return sc.records


def _deal_range(config: TournamentConfig) -> range:
    return range(config.first_deal, config.first_deal + config.deals)


def read_records(out: str | Path, config: TournamentConfig) -> list[dict]:
    """The deal records of ``config`` saved in ``out/deals.jsonl`` (in deal order, the
    deals of :attr:`TournamentConfig.first_deal` ... only), read with every check a
    resumed tournament makes (header, fingerprint, checksums, structure); changes
    nothing. Raises :class:`TournamentError` when the file is missing, belongs to
    another tournament, has a bad or incomplete line, or lacks one of the deals."""
    path = Path(out) / SHARD
    if not path.is_file():
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


class _FolderLock:
    """An exclusive ``flock`` on ``<out>/deals.jsonl.lock`` (where ``fcntl`` exists)."""

    def __init__(self, out: Path):
        self.f = None
        try:
            import fcntl
        except ImportError:                     # not POSIX: no lock
            return
        self.f = open(out / LOCK, "a")
        try:
            fcntl.flock(self.f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.f.close()
            self.f = None
            raise TournamentError(f"another process is running a tournament in {out} (it "
                                  f"holds {out / LOCK}); wait for it or use another --out "
                                  f"folder") from None

    def release(self):
        if self.f is not None:
            self.f.close()                      # closing drops the lock
            self.f = None


# ------------------------------------------------------------------ signals and workers
_SIGNALS = {signal.SIGINT, signal.SIGTERM}
# Hold SIGINT/SIGTERM back (delivered on exit): a record line is written whole,
# and spawned children start with them held. The runner's helper, shared.
_signals_held = _runner_signals_blocked


def _raise_interrupted(signum, frame):
    raise TournamentInterrupted(signal.Signals(signum).name, signum)


@contextlib.contextmanager
def _sigterm_raises():
    """SIGTERM raises TournamentInterrupted (like Ctrl-C) while the tournament runs,
    unless the program installed its own handler."""
    install = (threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    if install:
        signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        if install:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _exit_with_parent(parent: int) -> None:
    while True:
        time.sleep(0.25)
        if os.getppid() != parent:
            os._exit(3)


def _pack_error(e: BaseException) -> tuple:
    tb = traceback.format_exc()
    try:
        blob = pickle.dumps(e)
        pickle.loads(blob)
        return ("pickle", blob, tb)
    except Exception:
        return ("text", f"{type(e).__name__}: {e}", tb)


def _unpack_error(payload: tuple, deal) -> BaseException:
    kind, body, tb = payload
    e = pickle.loads(body) if kind == "pickle" else TournamentError(body)
    e.add_note(f"raised in a tournament worker process (deal {deal}):\n{tb}")
    return e


def _worker_main(config_dict, factories, tasks, results, slots, slot: int, parent: int,
                 games: bool = False):
    """A worker process: plays the deals it takes from ``tasks`` until ``None``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)       # the main process decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    watch = _Watch(slots, slot)
    deal = None
    try:
        config = TournamentConfig.from_dict(config_dict)
        game = spiel_game.load(config.game_params)
        while (deal := tasks.get()) is not None:
            results.put(("ok", deal, play_deal(config, deal, game, factories, watch, games)))
    except Exception as e:
        results.put(("error", deal, _pack_error(e)))


def _run_workers(config: TournamentConfig, todo: list[int], nworkers: int, assigns,
                 factories, finished: Callable[[dict], None], games: bool = False) -> None:
    """Play ``todo`` in ``nworkers`` spawned processes, enforcing the move time limit;
    every worker is gone when this returns or raises."""
    ctx = multiprocessing.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    slots = ctx.RawArray("q", nworkers * _SLOT)
    for d in todo:
        tasks.put(d)
    for _ in range(nworkers):
        tasks.put(None)
    procs = []
    limit = config.move_time_limit
    try:
        with _signals_held():                  # children start with the signals held
            for i in range(nworkers):
                p = ctx.Process(target=_worker_main, name=f"tournament-worker-{i}", daemon=True,
                                args=(config.to_dict(), factories, tasks, results, slots, i,
                                      os.getpid(), games))
                p.start()
                procs.append(p)
        remaining = set(todo)
        seen = [(-1, 0.0)] * nworkers
        while remaining:
            try:
                msg = results.get(timeout=0.05)
            except queue.Empty:
                msg = None
            if msg is not None:
                kind, deal, payload = msg
                if kind == "error":
                    raise _unpack_error(payload, deal)
                if deal in remaining:
                    remaining.discard(deal)
                    finished(payload)
            now = time.monotonic()
            for i, p in enumerate(procs):
                b = i * _SLOT
                if limit is not None and slots[b + 1]:
                    seq = slots[b]
                    if seen[i][0] != seq:
                        seen[i] = (seq, now)
                    elif now - seen[i][1] > limit:
                        deal, ai, seat, call = (slots[b + 2], slots[b + 3], slots[b + 4],
                                                slots[b + 5])
                        if slots[b] == seq and slots[b + 1]:
                            agent = config.agents[assigns[ai][seat]]
                            raise TournamentError(
                                f"agent {agent!r} on seat {seat} did not return from "
                                f"{_CALLS.get(call, call)} within the move time limit of "
                                f"{limit:g} s (deal {deal}, seat assignment {ai}); the tournament "
                                f"was stopped")
                if msg is None and p.exitcode is not None and p.exitcode != 0:
                    raise TournamentError(
                        f"tournament worker {p.name} (pid {p.pid}) stopped with exit code "
                        f"{p.exitcode} while playing deal {slots[b + 2]}; the tournament was "
                        f"stopped")
            if msg is None and remaining and all(p.exitcode is not None for p in procs):
                raise TournamentError(f"every tournament worker has stopped with deals "
                                      f"{sorted(remaining)[:10]} unplayed")
    finally:
        with _signals_held():
            for p in procs:
                if p.exitcode is None:
                    p.kill()
            for p in procs:
                p.join(10)
            for q in (tasks, results):
                q.cancel_join_thread()
                q.close()


# ------------------------------------------------------------------ running
def run_tournament(config: TournamentConfig, out: str | Path | None = None, *,
                   factories: Mapping[str, Callable] | None = None,
                   progress: bool = True, repair: bool = False,
                   records: str | Path | None = None,
                   keep_games: bool = False) -> TournamentResult:
    """Play (or resume) the tournament; write ``out/deals.jsonl`` and ``out/tournament.json``.

    ``records`` (a file path): also append every game played (one per deal and
    seat assignment) as a game record (:mod:`spiel_game.records`, JSON Lines) to
    that file; the results are the same with or without it. A deal's records are
    written before its line in ``deals.jsonl``; on resume, records of this
    tournament (same fingerprint) whose deal is not saved are dropped from the
    file (they are played again), so each saved deal has its records once.
    ``keep_games``: also return the game records of the deals played in this call
    (JSON objects, deal then seat-assignment order) in ``TournamentResult.games``.

    ``factories`` maps agent labels of ``config.agents`` to factories
    ``f(game, player, seed) -> pyspiel.Bot`` (OpenSpiel's bots, for example);
    with worker processes (``workers > 1`` or a ``move_time_limit``) they must
    be picklable (module-level functions). Everything is checked (game,
    lineup, every agent built once) before ``out`` is created or touched. A
    damaged ``deals.jsonl`` raises :class:`TournamentError` naming each bad
    line unless ``repair`` (see the module docstring). Notes (a dropped
    incomplete line, a repair) go to stderr and ``TournamentResult.notes``.
    """
    started = _dt.datetime.now(_dt.UTC)
    if not isinstance(config, TournamentConfig):
        raise TournamentError(f"config must be a TournamentConfig, got {type(config).__name__}")
    game = _load_game(config.game_params)
    n = game.num_players()
    assigns = seat_assignments(n, len(config.agents), config.lineup, config.rotations)
    check_agents(config.agents, game, factories, assigns[0])
    notes: list[str] = []

    def note(msg):
        notes.append(msg)
        print(f"note: {msg}", file=sys.stderr, flush=True)

    path, lock = None, None
    done: dict[int, dict] = {}
    bar = None
    records = None if records is None else Path(records)
    want_games = records is not None or keep_games
    kept_games: dict[int, list] = {}
    try:
        if out is not None:
            try:
                out = check_output_dir(out)
            except ConfigError as err:
                raise TournamentError(str(err)) from None
            out.mkdir(parents=True, exist_ok=True)
            lock = _FolderLock(out)
            path = out / SHARD
            done = _open_shard(path, config, assigns, n, repair, note)
        todo = [d for d in _deal_range(config) if d not in done]
        saved_before = len(done)
        fp = config.fingerprint()
        if records is not None:
            _prepare_records(records, fp, set(done), note)
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=config.deals, initial=config.deals - len(todo), unit="deal",
                       desc=" vs ".join(config.agents)[:60], file=sys.stderr)

        def finished(rec):
            games = rec.pop("games", None)
            if keep_games:
                kept_games[rec["deal"]] = games
            if records is not None:
                with _signals_held():
                    _fsync_write(records, "".join(json.dumps(g) + "\n" for g in games).encode(),
                                 "ab")
            done[rec["deal"]] = rec
            if path is not None:
                with _signals_held():
                    _fsync_write(path, _record_line(rec, fp), "ab")
            if bar is not None:
                bar.update(1)
            unit_progress(len(done) - saved_before, len(todo))     # inside a runner unit

        try:
            with _sigterm_raises():
                workers = min(config.workers, len(todo))
                if config.move_time_limit is not None and todo:
                    _run_workers(config, todo, max(1, workers), assigns, factories, finished,
                                 want_games)
                elif workers <= 1:
                    for i, d in enumerate(todo):
                        def step(a, m, i=i):
                            unit_progress(i + a / m, len(todo))
                        finished(play_deal(config, d, game, factories, games=want_games,
                                           on_game=step))
                else:
                    _run_workers(config, todo, workers, assigns, factories, finished,
                                 want_games)
        except KeyboardInterrupt as e:
            signum = getattr(e, "signum", signal.SIGINT)
            saved = sum(1 for d in done if d in _deal_range(config))
            where = (f"{saved} of {config.deals} deals are saved in {path}; rerun the same "
                     f"command to resume" if path is not None else
                     f"{saved} of {config.deals} deals were played (no output folder: "
                     f"nothing is saved)")
            raise TournamentInterrupted(
                f"tournament stopped by {signal.Signals(signum).name}: {where}", signum) from None
    finally:
        if bar is not None:
            bar.close()
        if lock is not None:
            lock.release()
    records = [done[d] for d in sorted(done) if d in _deal_range(config)]
    summary = summarize(config, records)
    if out is not None:
        write_result(out / RESULT, summary, metadata(config.to_dict(), config.seed, started))
    games = [g for d in sorted(kept_games) for g in kept_games[d]] if keep_games else None
    return TournamentResult(config, records, summary, out, notes, games)


def _prepare_records(path: Path, fingerprint: str, saved: set[int], note) -> None:
    """Before (re)starting: drop this tournament's records of deals that are not saved
    (a run killed between a deal's records and its line; the deal is played again),
    keeping every other line verbatim. A damaged record file raises TournamentError."""
    from spiel_game.records import RecordError, iter_records
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    text = path.read_text(encoding="utf-8", errors="replace")
    if text and not text.endswith("\n"):           # a writer killed mid-line
        _fsync_write(path, text[:text.rfind("\n") + 1].encode())
        note(f"dropped an incomplete last line of {path}")
    try:
        recs = list(iter_records(path))
    except RecordError as e:
        raise TournamentError(f"the game record file cannot be appended to: {e}") from None
    mine = [r.info.get("fingerprint") == fingerprint for r in recs]
    keep = [not m or r.info.get("deal") in saved for r, m in zip(recs, mine)]
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if not all(keep):
        dropped = sorted({r.info.get("deal") for r, k in zip(recs, keep) if not k})
        tmp = path.with_name(path.name + ".tmp")
        _fsync_write(tmp, "".join(ln + "\n" for ln, k in zip(lines, keep) if k).encode())
        os.replace(tmp, path)
        note(f"dropped the game records of unsaved deals {dropped[:10]} from {path} "
             f"(they are played again)")
    have = {r.info.get("deal") for r, m in zip(recs, mine) if m}
    missing = sorted(saved - have)
    if missing:
        note(f"{len(missing)} saved deals (first {missing[:5]}) were played without game "
             f"records; {path} holds only the deals played with records=")


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
             "better (95% CI) | ms per decision |",
             "|---|---|---|---|"]
    for lab, a, t in zip(labels, summary["agents"], summary["timing"]):
        ms = f"{t['ms_per_decision']:.2f}" if t["ms_per_decision"] is not None else "-"
        lines.append(f"| {lab} | {fmt(a['points_per_hand'])} | "
                     f"{fmt(a['zero_sum_payoff'])} | {ms} |")
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
    ap.add_argument("--records", metavar="FILE", default=None,
                    help="also write the game record (spiel_game.records, JSON Lines) of every "
                         "deal and seat assignment to FILE (replaced); the run and its "
                         "folder are the same with or without it")
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
        res = runner.run("tournament", overrides=overrides, out=args.out, workers=args.workers,
                         recompute_corrupt=args.recompute_corrupt,
                         progress=not args.no_progress, verbose=False)
    except KeyboardInterrupt as e:
        print(str(e) or "interrupted; rerun the same command to resume", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)
    except (ConfigError, runner.RunError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(res.text.rstrip())
    print(f"written to {res.path}")
    if args.records is not None:
        from spiel_game.records import append_records
        from .studies.tournament import game_records
        try:
            games, missing = game_records(res)
        except runner.RunError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        dest = Path(args.records)
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.unlink(missing_ok=True)
        append_records(games, tmp)
        os.replace(tmp, dest)
        print(f"{len(games)} game records written to {dest}"
              + (f"; {len(missing)} deals (first {missing[:5]}) were saved before game "
                 f"records were kept and have none" if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
