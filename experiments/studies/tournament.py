"""A duplicate-deal tournament between any agents, as a runner experiment.

The tool behind ``python -m experiments.tournament`` (a thin front end of this
experiment), not a study of the paper: ``make reproduce`` does not run it.
``python -m experiments run tournament --set 'agents=["heuristic",
"ismcts(iterations=500)"]' --set deals=100 --workers 2`` (results in
``results/quick/tournament@<8 hex>/``). The format and the statistics are those
of :mod:`experiments.tournament`: every deal is played once per seat
assignment (the rotations of ``lineup``, default agent ``i % k`` on seat ``i``,
or ``rotations`` evenly spaced ones), deal ``d`` depends only on ``(seed, d)``.

Configuration: ``agents`` (registry specs, :mod:`solvers._registry`),
``players`` and the other game parameters as ``"key=value"`` strings in
``game`` (e.g. ``("max_hands=3", "deal=whole")``; a value is read as the type
of the parameter's default, :data:`spiel_game.PARAMETER_DEFAULTS`), ``deals``,
``seed``, ``rotations``, ``lineup``, ``move_time_limit`` (seconds per agent
call; the deals then run in a watched worker process, and an agent over the
limit stops the run with an error naming it) and ``deals_per_unit``. The game,
the lineup and every agent spec are checked (each agent built once) when the
units are listed, before the runner writes anything.

The units are blocks of ``deals_per_unit`` deals; the rows do not depend on the
split, the number of workers or the backend. Rows
(:func:`experiments.tournament.deal_rows`, plus ``spec``, the agent's spec):
``kind == "seat"``, one per (deal, seat assignment, seat), with the ``agent``
index on that seat and its ``points`` per hand over the assignment's
``hands``; ``kind == "agent"``, one per (deal, agent), with its thinking
``seconds`` and ``decisions``.

Tables: ``agents`` (per agent: ``points_per_hand`` and the zero-sum ``payoff``
per hand with their 95% intervals over deals, thinking seconds, decisions and
``ms_per_decision``) and ``pairs`` (per pair ``a < b``: the paired difference
``a - b`` of payoff and of points per hand with its 95% interval and paired
t-test p-value); the text is :func:`experiments.tournament.summary_table`.

Game records: every unit also keeps the game record (:mod:`spiel_game.records`)
of each deal and seat assignment beside its rows (a runner attachment, not a
configuration field, so the run's folder name does not change);
:func:`experiments.tournament.game_records` reads them back from a loaded run and
``python -m experiments.tournament ... --records FILE`` writes them to a JSON
Lines file.
"""

from __future__ import annotations

from typing import ClassVar

import dataclasses

import spiel_game
from spiel_game._rules import unknown_parameters_message

from .._base.config import ConfigError, check_unit_count
from .._base.registry import Summary, Unit, UnitOutput, register
from ..tournament import (AGENT_COLUMNS, PAIR_COLUMNS, TournamentConfig, TournamentError,
                          _load_game, agent_sources, check_agents, deal_records, deal_rows,
                          game_records, play_block, seat_assignments, summary_table,
                          summary_tables)
from ..tournament import summarize as tournament_summary

__all__ = ["TournamentStudyConfig", "PROFILES", "game_params", "tournament_config", "check",
           "units", "run_unit", "summarize", "game_records", "AGENT_COLUMNS", "PAIR_COLUMNS"]


@dataclasses.dataclass(frozen=True)
class TournamentStudyConfig:
    """A duplicate-deal tournament: ``game`` holds the game parameters other than
    ``players`` as ``"key=value"``; ``rotations``: seat assignments (None: every
    distinct rotation); ``lineup``: agent index per seat before rotation."""

    agents: tuple[str, ...] = ("random", "heuristic")
    players: int = 6
    game: tuple[str, ...] = ()
    deals: int = 100
    seed: int = 0
    rotations: int | None = None
    lineup: tuple[int, ...] | None = None
    deals_per_unit: int = 10     # deals per unit of work (does not change the numbers)
    move_time_limit: float | None = None
    #: seeds are ``0 <= seed < 2**63``, as :class:`experiments.tournament.TournamentConfig`'s
    SEED_BITS: ClassVar[int] = 63

    def __post_init__(self):
        for name in ("deals", "deals_per_unit"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_unit_count(-(-self.deals // self.deals_per_unit),
                         f"deals={self.deals}, deals_per_unit={self.deals_per_unit}")


PROFILES = {
    # random against the heuristic, 6 players, 4 deals x 2 seatings: seconds.
    "quick": TournamentStudyConfig(deals=4),
    "paper": TournamentStudyConfig(),
}


def game_params(config: TournamentStudyConfig) -> dict:
    """The game parameters: ``players`` and the ``key=value`` entries of ``game``
    (values converted to the type of the parameter's default). Raises
    :class:`ConfigError` for an entry that is not ``key=value``, a repeated key,
    ``players`` in ``game``, an unknown parameter name (with the closest known
    one) or a non-integer value of an integer parameter."""
    params: dict = {}
    for item in config.game:
        key, sep, value = str(item).partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ConfigError(f"tournament: game entries are key=value, got {item!r}")
        if key == "players":
            raise ConfigError("tournament: set the number of players with the players field, "
                              "not in game")
        if key in params:
            raise ConfigError(f"tournament: game parameter {key!r} is given twice")
        if key not in spiel_game.PARAMETER_DEFAULTS:
            raise ConfigError("tournament: " + unknown_parameters_message(
                [key], spiel_game.PARAMETER_DEFAULTS))
        default = spiel_game.PARAMETER_DEFAULTS.get(key)
        if isinstance(default, int) and not isinstance(default, bool):
            try:
                value = int(value)
            except ValueError:
                raise ConfigError(f"tournament: game parameter {key} is an integer, "
                                  f"got {key}={value!r} (str)") from None
        params[key] = value
    params["players"] = config.players
    return params


def tournament_config(config: TournamentStudyConfig, first_deal: int = 0,
                      deals: int | None = None) -> TournamentConfig:
    """The :class:`TournamentConfig` of deals ``first_deal .. first_deal + deals - 1``
    (default: every deal of the tournament)."""
    return TournamentConfig(agents=config.agents, game=game_params(config),
                            deals=config.deals if deals is None else deals, seed=config.seed,
                            rotations=config.rotations, lineup=config.lineup,
                            move_time_limit=config.move_time_limit, first_deal=first_deal)


def check(config: TournamentStudyConfig) -> None:
    """The game, the lineup and every agent (built once): a problem raises
    :class:`ConfigError` (``tournament: ...``) before anything is written."""
    try:
        tc = tournament_config(config)
        game = _load_game(tc.game_params)
        assigns = seat_assignments(game.num_players(), len(tc.agents), tc.lineup,
                                   tc.rotations)
        check_agents(tc.agents, game, None, assigns[0], time_limit=tc.move_time_limit)
    except TournamentError as err:
        raise ConfigError(f"tournament: {err}") from None


# ------------------------------------------------------------------ runner experiment
def units(config: TournamentStudyConfig) -> list[dict]:
    """One unit per block of ``deals_per_unit`` deals (after :func:`check`)."""
    check(config)
    return [{"first_deal": first, "deals": min(config.deals_per_unit, config.deals - first)}
            for first in range(0, config.deals, config.deals_per_unit)]


def run_unit(config: TournamentStudyConfig, unit: Unit) -> UnitOutput:
    """Play one block of deals: its tidy rows (module docstring) and, as the
    attachment ``"games"``, the game record (:mod:`spiel_game.records`) of every
    deal and seat assignment (:func:`game_records` reads them back)."""
    first, deals = unit.params["first_deal"], unit.params["deals"]
    where = (f"tournament ({' vs '.join(config.agents)}, {config.players} players), "
             f"deals {first}..{first + deals - 1}")
    recs, games = play_block(tournament_config(config, first, deals), where, games=True)
    rows = deal_rows(recs)
    for r in rows:
        r["spec"] = config.agents[r["agent"]]
    return UnitOutput(rows, {"games": games})


def summarize(config: TournamentStudyConfig, rows) -> Summary:
    """The tables ``agents`` and ``pairs`` and the markdown table, from the rows alone
    (the statistics of :func:`experiments.tournament.summarize`)."""
    records = deal_records(rows)
    s = tournament_summary(tournament_config(config, deals=len(records)), records)
    agents, pairs = summary_tables(s)
    return Summary(tables={"agents": agents, "pairs": pairs}, text=summary_table(s))


register("tournament", TournamentStudyConfig, units, run_unit, summarize, profiles=PROFILES,
         description="duplicate-deal tournament between any agents (a tool, "
                     "python -m experiments.tournament)", reproduce=False,
         call_time_limit=lambda c: c.move_time_limit, sources=lambda c: agent_sources(c.agents))
