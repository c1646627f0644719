"""Playing: the chance outcomes and agent seeds of a deal, one game, one deal (every
seat assignment), a block of deals (a runner unit), and the time agents take."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

import spiel_game
from spiel_game import _engine as E

from .. import runner
from ._agents import (_BUILD, _CALLS, _INFORM, _RESTART, _STEP, _AgentFailed, _agent_failure,
                     _interrupts_marked, _labels, _make, _resolved)
from ._config import TournamentConfig, TournamentError, _deal_range, seat_assignments

__all__ = ["play_game", "play_deal", "play_block", "cpu_now", "pin_cores"]


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


def cpu_now(bot) -> float:
    """CPU seconds so far of this thread (:func:`time.thread_time`) plus those of
    ``bot``'s helper processes (``bot.cpu_seconds()`` when the agent has it: the
    xinxin driver's). The difference around a ``step`` is the agent's CPU time for
    that move."""
    extra = getattr(bot, "cpu_seconds", None)
    return time.thread_time() + (float(extra()) if callable(extra) else 0.0)


def pin_cores(swap: bool = False) -> tuple[int, int] | None:
    """Pin this process (and the workers it starts later) to one core and let the
    xinxin drivers started later run on another (:data:`solvers.xinxin.CORE_ENV`):
    returns ``(ours, driver's)``, or None (nothing pinned, a note on stderr) when
    fewer than two cores are available to this process. ``swap``: the second of
    the available cores for this process and the first for the drivers (a second
    tournament beside one pinned the default way uses the idle halves of both
    cores: each side waits while the other decides)."""
    from solvers.xinxin import CORE_ENV
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print(f"note: only {len(cores)} core(s) available: the tournament is not pinned",
              file=sys.stderr)
        return None
    ours, theirs = (cores[1], cores[0]) if swap else (cores[0], cores[1])
    os.sched_setaffinity(0, {ours})
    os.environ[CORE_ENV] = str(theirs)
    return ours, theirs


def play_game(game, bots: Sequence, chance: _Chance, watch: runner.CallWatch | None = None,
              keep: list | None = None, labels: Sequence | None = None,
              cpu: list | None = None):
    """Play one game; returns (points per seat per hand, hands, seconds per seat,
    decisions per seat). ``cpu`` (a list of one number per seat): each seat's CPU
    seconds of its decisions are added to it (:func:`cpu_now`). ``watch`` (a watched
    worker, :func:`experiments.runner.call_watch`) gets every agent call reported,
    described by ``labels[seat][call]`` (:func:`~.agents._labels`).
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
        import solvers._registry  # noqa: F401  (the import is not the agent's build time)
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


def play_block(config: TournamentConfig, where: str, games: bool = False):
    """The deal records of ``config`` (a block of deals:
    :attr:`~.config.TournamentConfig.first_deal`), played in this process for a unit
    of a runner experiment (every agent call reported to the runner's call watch
    when the run has a time limit:
    :func:`experiments.runner.call_watch`); with ``games``, the pair ``(deal
    records, game records)``. A :class:`~.config.TournamentError` becomes a
    :class:`experiments.runner.RunError` starting with ``where``; SIGINT and
    SIGTERM are the runner's (its handler's exception passes through)."""
    watch = runner.call_watch()
    try:
        game = _game_of(config)
        recs, kept = [], []
        deals = _deal_range(config)
        for i, d in enumerate(deals):
            def step(a, m, i=i):
                runner.unit_progress(i + a / m, len(deals))
            rec = play_deal(config, d, game, None, watch=watch, games=games, where=where,
                            on_game=step)
            kept += rec.pop("games", None) or []
            recs.append(rec)
    except TournamentError as err:
        raise runner.RunError(f"{where}: {err}") from None
    return (recs, kept) if games else recs


_GAMES: dict[str, Any] = {}


def _game_of(config: TournamentConfig):
    """The loaded game of ``config`` (cached per process: units of one tournament)."""
    key = json.dumps(sorted(config.game), default=str)
    if key not in _GAMES:
        _GAMES[key] = spiel_game.load(config.game_params)
    return _GAMES[key]
