"""Running a tournament through :mod:`experiments.runner`: :func:`run_tournament`
and its :class:`TournamentResult`."""

from __future__ import annotations

import dataclasses
import functools
import signal
import sys
from pathlib import Path
from collections.abc import Callable, Mapping

from .. import runner
from .._base.config import ConfigError, check_output_dir
from .._base.registry import Experiment, Summary, Unit, UnitOutput, unit_seed
from ._agents import check_agents
from ._config import (SHARD, TournamentConfig, TournamentError, TournamentInterrupted, _deal_range,
                     _load_game, seat_assignments)
from ._play import _game_of, pin_cores, play_deal
from ._record_file import _other_records, _write_records
from ._rows import deal_records, deal_rows
from ._sources import agent_sources
from ._stats import summarize, summary_table, summary_tables

__all__ = ["TournamentResult", "run_tournament"]


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
        reproduce=False, module=__package__,
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
    xinxin drivers to another (:func:`~.play.pin_cores`; it stays pinned afterwards;
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
