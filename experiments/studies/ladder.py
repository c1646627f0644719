"""The strength ladder: random < heuristic < pimc < ismcts, by duplicate deals.

Each adjacent pair of rungs plays a head-to-head duplicate tournament
(:mod:`experiments.tournament`: agents alternate around the table, every
rotation of the lineup, so each plays every seat with the same cards; at 11
players an evenly spaced subset of the rotations). A step holds when the
higher rung's mean zero-sum payoff per hand exceeds the lower one's with a
paired t-test p-value below ``alpha``. Optionally, ISMCTS strength against its
iteration budget (``sweep``): ``ismcts(iterations=I)`` against
``sweep_opponent``, the data of the paper's figure.

A runner experiment (``python -m experiments run ladder --profile quick|paper``;
results in ``results/<profile>/ladder/``). The units are blocks of
``deals_per_unit`` deals of one step (``n6_step0`` ... for the rungs at each
player count, ``sweep_<iterations>`` for the budgets); a step's tournament is
seeded ``seed + players`` and deal ``d`` depends only on that seed and ``d``
(:func:`experiments.tournament.play_deal`), so the rows do not depend on the
split, the number of workers or the backend. Every rung and sweep spec is
built once (:func:`check`) when the units are listed, before anything is
written; ``move_time_limit`` (seconds, e.g. ``--set move_time_limit=60``)
stops a unit whose agent hangs, with an error naming the agent, step and deal.

Rows (tidy, enough to recompute every statistic; ``iterations`` is -1 for a
rung step): ``kind == "seat"``, one per (step, deal, seat assignment, seat):
the ``agent`` on that seat (0 the lower rung, 1 the higher) and its ``points``
per hand over the ``hands`` of that assignment; ``kind == "agent"``, one per
(step, deal, agent): its thinking ``seconds`` and ``decisions`` over the
deal's seat assignments (the columns a kind does not use hold -1 or nothing).
``origin`` says where a row comes from: ``run`` (played by this run) or
``records <commit>`` (a deal record of an earlier tournament run at that
commit, imported by :func:`import_tournament_records`; its seconds were
measured there).

Tables: ``steps`` (players, lower, higher, deals, seat_assignments, the
higher rung's zero-sum gain ``gain`` with its 95% interval ``gain_lo`` and
``gain_hi``, the paired t-test ``p_value``, ``holds``, and each agent's
seconds, decisions and ms per decision) and ``sweep`` (``iterations`` and the
same columns); the text is the markdown table.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import socket
from pathlib import Path

from .._base.config import ConfigError, config_to_dict, fingerprint
from .._base.registry import Summary, Unit, register
from ..tournament import (TournamentConfig, TournamentError, _load_game, agent_sources,
                          check_agents, deal_records, deal_rows, play_block, read_records)
from ..tournament import summarize as tournament_summary

__all__ = ["LadderConfig", "PROFILES", "check", "units", "run_unit", "summarize",
           "records_to_rows", "step_config", "import_tournament_records", "table",
           "STEP_COLUMNS"]


@dataclasses.dataclass(frozen=True)
class LadderConfig:
    """Rungs from weakest to strongest; ``rotations``: per player count, None = all."""

    players: tuple[int, ...] = (6,)
    rungs: tuple[str, ...] = ("random", "heuristic", "pimc(worlds=32, rollouts=1)",
                              "ismcts(iterations=1000, rollout='heuristic')")
    deals: int = 40
    rotations: tuple[tuple[int, int], ...] = ((11, 4),)
    alpha: float = 0.05
    sweep: tuple[int, ...] = ()
    sweep_players: int = 6
    sweep_opponent: str = "heuristic"
    sweep_rollout: str = "heuristic"
    sweep_deals: int = 40
    seed: int = 20261129
    deals_per_unit: int = 10     # deals per unit of work (does not change the numbers)
    move_time_limit: float | None = None

    def __post_init__(self):
        for name in ("deals", "sweep_deals", "deals_per_unit"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


PROFILES = {
    # A first look: the paper's rungs and budgets on 10 deals (x 2 seatings; about
    # 35 s of CPU once numba's kernels are compiled, 70 s from a fresh clone); its
    # power is low: the paper profile is the one that establishes the ladder. The
    # quick sweep (two small budgets, 6 deals) only exercises the pipeline.
    "quick": LadderConfig(deals=10, sweep=(100, 300), sweep_deals=6),
    # The sweep at 50 deals x 2 seatings per budget: about 45 minutes on two
    # shared cores, dominated by the 10,000-iteration budget.
    "paper": LadderConfig(players=(6, 11), deals=200,
                          sweep=(100, 300, 1000, 3000, 10000), sweep_deals=50),
}


def _sweep_spec(config: LadderConfig, iterations: int) -> str:
    return f"ismcts(iterations={iterations}, rollout={config.sweep_rollout!r})"


def _steps(config: LadderConfig) -> list[dict]:
    """Every step: its label (the folder name of the tournament records of earlier
    versions), player count, agents, sweep budget (None for a rung step) and deals."""
    out = []
    for n in config.players:
        for i in range(len(config.rungs) - 1):
            out.append({"step": f"n{n}_step{i}", "players": n, "lower": config.rungs[i],
                        "higher": config.rungs[i + 1], "iterations": None,
                        "deals": config.deals})
    for it in config.sweep:
        out.append({"step": f"sweep_{it}", "players": config.sweep_players,
                    "lower": config.sweep_opponent, "higher": _sweep_spec(config, it),
                    "iterations": it, "deals": config.sweep_deals})
    return out


def step_config(config: LadderConfig, step: dict, first_deal: int = 0,
                deals: int | None = None) -> TournamentConfig:
    """The tournament of a step (``step``: a unit's params or an entry of the steps):
    deals ``first_deal .. first_deal + deals - 1`` (default: all of the step's)."""
    n = step["players"]
    return TournamentConfig(agents=(step["lower"], step["higher"]), game={"players": n},
                            deals=step["deals"] if deals is None else deals,
                            seed=config.seed + n, rotations=dict(config.rotations).get(n),
                            move_time_limit=config.move_time_limit, first_deal=first_deal)


def check(config: LadderConfig) -> None:
    """Every step's tournament config and every agent, built once: a bad rung or sweep
    spec raises :class:`TournamentError` before anything is written."""
    if not isinstance(config.rungs, tuple) or len(config.rungs) < 2:
        raise TournamentError(f"a ladder needs at least two rungs, got {config.rungs!r}")
    for n in config.players:
        TournamentConfig(agents=config.rungs[:2], game={"players": n}, deals=config.deals,
                         seed=config.seed + n, rotations=dict(config.rotations).get(n),
                         move_time_limit=config.move_time_limit)
        check_agents(config.rungs, _load_game({"players": n}),
                     time_limit=config.move_time_limit)
    if config.sweep:
        sweep = (config.sweep_opponent,) + tuple(_sweep_spec(config, it) for it in config.sweep)
        TournamentConfig(agents=sweep[:2], game={"players": config.sweep_players},
                         deals=config.sweep_deals, move_time_limit=config.move_time_limit)
        check_agents(sweep, _load_game({"players": config.sweep_players}),
                     time_limit=config.move_time_limit)


# ------------------------------------------------------------------ runner experiment
def units(config: LadderConfig) -> list[dict]:
    """One unit per block of ``deals_per_unit`` deals of each step (after :func:`check`:
    a bad spec raises :class:`ConfigError` here, before the runner writes anything)."""
    try:
        check(config)
    except TournamentError as err:
        raise ConfigError(f"ladder: {err}") from None
    out = []
    for s in _steps(config):
        for first in range(0, s["deals"], config.deals_per_unit):
            out.append({**{k: v for k, v in s.items() if k != "deals"}, "first_deal": first,
                        "deals": min(config.deals_per_unit, s["deals"] - first)})
    return out


def records_to_rows(step: dict, records: list[dict], origin: str) -> list[dict]:
    """The tidy rows (module docstring) of a step's deal records: the step's key
    columns and ``origin``, then :func:`experiments.tournament.deal_rows`."""
    it = step["iterations"]
    return deal_rows(records, step=step["step"], players=step["players"], lower=step["lower"],
                     higher=step["higher"], iterations=-1 if it is None else it, origin=origin)


def run_unit(config: LadderConfig, unit: Unit) -> list[dict]:
    """Play one block of a step's deals (in a worker process that watches every agent
    call when ``move_time_limit`` is set; :func:`experiments.tournament.play_block`)."""
    u = unit.params
    last = u["first_deal"] + u["deals"] - 1
    where = (f"ladder step {u['step']} ({u['lower']} vs {u['higher']}, {u['players']} "
             f"players), deals {u['first_deal']}..{last}")
    records = play_block(step_config(config, u, u["first_deal"], u["deals"]), where)
    return records_to_rows(u, records, "run")


#: The columns of the ``steps`` table (``sweep``: ``iterations`` and these).
STEP_COLUMNS = ("step", "players", "lower", "higher", "deals", "seat_assignments", "gain",
                "gain_lo", "gain_hi", "p_value", "holds", "lower_seconds", "lower_decisions",
                "lower_ms_per_decision", "higher_seconds", "higher_decisions",
                "higher_ms_per_decision")


def _step_row(config: LadderConfig, step: dict, records: list[dict]) -> dict:
    """A step's statistics, as the tournament computes them."""
    summary = tournament_summary(step_config(config, step, deals=len(records)), records)
    d = summary["pairs"][0]["payoff_difference"]             # lower - higher
    row = {k: step[k] for k in ("step", "players", "lower", "higher")}
    row.update(deals=summary["deals"], seat_assignments=len(summary["assignments"]),
               gain=-d["mean"], gain_lo=-d["hi"], gain_hi=-d["lo"], p_value=d["p_value"],
               holds=bool(-d["mean"] > 0 and d["p_value"] < config.alpha))
    for role, t in zip(("lower", "higher"), summary["timing"]):
        row[f"{role}_seconds"] = t["seconds"]
        row[f"{role}_decisions"] = t["decisions"]
        row[f"{role}_ms_per_decision"] = t["ms_per_decision"]
    return row


def summarize(config: LadderConfig, rows) -> Summary:
    """The tables ``steps`` and ``sweep`` and the markdown table (module docstring)."""
    import pandas as pd

    steps, sweep, origins = [], [], {}
    for s in _steps(config):
        group = rows[rows["step"] == s["step"]]
        if group.empty:
            continue
        records = deal_records(group)
        row = _step_row(config, s, records)
        for o, g in group[group["kind"] == "agent"].groupby("origin"):
            origins[o] = origins.get(o, 0) + g["deal"].nunique()
        if s["iterations"] is None:
            steps.append(row)
        else:
            sweep.append({"iterations": s["iterations"], **row})
    tables = {"steps": pd.DataFrame(steps, columns=list(STEP_COLUMNS)),
              "sweep": pd.DataFrame(sweep, columns=["iterations", *STEP_COLUMNS])}
    text = table(tables["steps"], tables["sweep"])
    holds = {n: all(r["holds"] for r in steps if r["players"] == n) for n in config.players}
    text += "\n\n" + "; ".join(f"ladder holds at {n} players: {'yes' if h else 'no'}"
                                for n, h in holds.items())
    if set(origins) != {"run"}:
        text += "\n\nwhere the deals come from: " + "; ".join(
            f"{k} deal(s): {'played by this run' if o == 'run' else o}"
            for o, k in sorted(origins.items()))
        text += ("\n(rows with origin 'records <commit>' are the deal records of a tournament "
                 "run at that commit, imported with ladder.import_tournament_records; their "
                 "seconds were measured there)")
    return Summary(tables=tables, text=text)


def table(steps, sweep) -> str:
    """A markdown table of the steps and sweep budgets (DataFrames of :func:`summarize`)."""
    lines = ["| players | lower | higher | deals x seats | payoff gain of higher (95% CI) "
             "| p | holds |", "|---|---|---|---|---|---|---|"]
    for frame in (steps, sweep):
        for s in frame.to_dict("records"):
            lines.append(f"| {s['players']} | {s['lower']} | {s['higher']} | {s['deals']} x "
                         f"{s['seat_assignments']} | {s['gain']:.2f} [{s['gain_lo']:.2f}, "
                         f"{s['gain_hi']:.2f}] | {s['p_value']:.2g} | "
                         f"{'yes' if s['holds'] else 'no'} |")
    return "\n".join(lines)


register("ladder", LadderConfig, units, run_unit, summarize,
         profiles={"quick": PROFILES["quick"], "paper": PROFILES["paper"]},
         description="strength ladder random < heuristic < pimc < ismcts, and ISMCTS "
                     "against its iteration budget, by duplicate deals",
         call_time_limit=lambda c: c.move_time_limit,
         sources=lambda c: agent_sources(
             [*c.rungs, c.sweep_opponent, *(_sweep_spec(c, it) for it in c.sweep)]))


# ------------------------------------------------------------------ importing records
def _origin(folder: Path) -> str:
    """``records <commit>`` of a tournament folder (its ``tournament.json`` metadata)."""
    from spiel_game._safe_io import read_text

    from ..runner import MAX_DOC_BYTES
    try:      # a regular file of bounded size only (a FIFO is refused, not waited on)
        commit = json.loads(read_text(folder / "tournament.json", MAX_DOC_BYTES,
                                      "tournament file"))["metadata"]["git_commit"]
    except (OSError, KeyError, TypeError, ValueError):
        commit = None
    if not commit:
        return "records (commit unknown)"
    return f"records {commit[:7]}{'+dirty' if commit.endswith('+dirty') else ''}"


def import_tournament_records(old: str | Path, out: str | Path, profile: str = "paper",
                              overrides=None, *, progress: bool = False):
    """Turn the tournament folders of an earlier ladder run (``old/<step>/deals.jsonl``,
    ``step`` as in the units: ``n6_step0``, ``sweep_100``, ...) into the runner
    folder of the same configuration under ``out``, without playing a deal.

    Each step's records are read with the tournament's own checks
    (:func:`experiments.tournament.read_records`: header, the step's config
    fingerprint, checksums) and must hold every deal of the step; they become the
    units' rows (origin ``records <commit>``, the commit of the step's
    ``tournament.json``). The shards are written as a run before content hashes
    would have left them, and :func:`experiments.runner.run` then adopts them
    (records their hashes, writes the tables and ``metadata.json``): a normal,
    verifiable runner folder. Refuses a target folder that already exists.
    Returns the :class:`experiments.runner.RunResult`."""
    from .. import runner

    old, out = Path(old), Path(out)
    exp, config, folder, _ = runner.resolve("ladder", profile, overrides)
    units_ = exp.units(config)
    run_dir = out / folder
    if run_dir.exists():
        raise runner.RunError(f"{run_dir} exists; import into a new folder")
    shards = []
    by_step: dict[str, list] = {}
    for u in units_:
        by_step.setdefault(u.params["step"], []).append(u)
    for step, us in by_step.items():
        p = us[0].params
        total = sum(u.params["deals"] for u in us)
        try:
            records = read_records(old / step, step_config(config, p, deals=total))
        except TournamentError as err:
            raise runner.RunError(f"step {step}: {err}") from None
        origin = _origin(old / step)
        for u in us:
            first = u.params["first_deal"]
            block = records[first:first + u.params["deals"]]
            rows = records_to_rows(u.params, block, origin)
            shards.append({"index": u.index, "seed": u.seed, "params": u.params,
                           "rows": json.loads(json.dumps(rows)),
                           "elapsed_s": sum(sum(r["timing"]["seconds"]) for r in block),
                           "host": socket.gethostname(), "imported_from": str(old / step)})
    tmp = run_dir.with_name(run_dir.name + ".importing")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "shards").mkdir(parents=True)
    for sh in shards:
        (tmp / "shards" / f"unit-{sh['index']:06d}.json").write_text(json.dumps(sh, indent=1))
    cfg = config_to_dict(config)
    manifest = {"experiment": exp.name, "profile": profile, "config": cfg,
                "units": len(units_),
                "fingerprint": fingerprint({"config": cfg, "units": [u.params for u in units_]})}
    (tmp / "run.json").write_text(json.dumps(manifest, indent=1))
    tmp.rename(run_dir)
    # The code that played the records is not known: they are kept as made by other
    # code (a later run recomputes them unless --reuse-stale).
    return runner.run("ladder", profile=profile, overrides=overrides, out=out, workers=1,
                      reuse_stale=True, progress=progress, verbose=False)
