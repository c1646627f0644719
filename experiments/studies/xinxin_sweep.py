"""The pre-registered xinxin sweep: our ISMCTS against xinxin at equal CPU time.

The project's external strength curve. The design is declared in the JSON block
of ``paper/preregistration_xinxin.md`` (ten cells: five CPU budgets per
decision, without and with the 3-card pass; our agent's and xinxin's specs,
the seed and the number of duplicate deals of each cell) and is read from there
at run time (:func:`declaration`), after checking the file's SHA-256 against
the one frozen at the sweep's first unit
(``research/xinxin_sweep/declaration.sha256``): one source for the design, and
a changed declaration is refused (:class:`DeclarationError`).

A runner experiment (``python -m experiments run xinxin_sweep --profile
quick|paper``; results in ``results/<profile>/xinxin_sweep/``):

* **paper** profile: exactly the declared design (every cell, its declared
  seed and deals). The confirmatory sweep itself is played by
  ``research/xinxin_sweep/run.py`` (one resumable tournament per cell); the
  shipped results (``paper/results/xinxin_sweep/``) are made from its saved
  units by :func:`ship` (``python -m experiments.studies.xinxin_sweep --ship
  research/xinxin_sweep``), interim while cells are unfinished.
* **quick** profile: the declared cells of the two smallest budgets (5 and
  20 ms), both passing modes, :data:`QUICK_DEALS` deals each (the first deals
  of those cells), seconds per deal.

Each unit is a block of ``deals_per_unit`` deals of one cell, a duplicate-deal
tournament (:mod:`experiments.tournament`: our agent on seats 0 and 2, xinxin
on 1 and 3, then swapped); deal ``d`` of a cell depends only on (the cell's
seed, ``d``). CPU time per decision is measured as declared
(:func:`experiments.tournament.cpu_now`: the deciding thread's CPU time plus
the xinxin driver's process CPU time), with this process pinned to one core
and the xinxin drivers to another while a unit plays
(:func:`experiments.tournament.pin_cores`, undone after the unit; nothing is
pinned on a one-core machine).

**Without xinxin.** xinxin's driver is built separately (``make xinxin``,
:mod:`solvers.xinxin`). Where it is not installed, a quick-profile unit plays
nothing and records one row ``kind == "skipped"`` with the reason, so ``make
reproduce`` does not fail; the summary then marks every cell ``xinxin not
installed``, and the paper's figure and macros are drawn from the shipped
paper-profile results instead, saying so (:func:`figure_table`). The paper
profile refuses to start without xinxin (a :class:`ConfigError` naming the
build command). The driver's SHA-256 (or ``not installed``) is part of the code
every unit records, so units saved without xinxin are played again once it
is installed.

Rows: those of :func:`experiments.tournament.deal_rows` with the cell name
first (``kind == "seat"``: points per hand of the agent on each seat and seat
assignment; ``kind == "agent"``: each agent's wall-clock ``seconds``, CPU
``cpu_seconds`` and ``decisions`` in the deal; agent 0 is ours, 1 xinxin), plus
``reason`` on ``skipped`` rows.

Table ``cells`` (:func:`cells_table`; the same statistics as
``research/xinxin_sweep/summarize.py``, which calls this module), one row per
cell: ``deals`` played of ``declared_deals``, ``finished``; ``mean``:
xinxin's mean points per hand minus ours over deals (> 0: ours is better; per
deal, each agent's mean over the seats it held), its 95% Student-t interval
``lo``, ``hi`` and two-sided one-sample t-test ``p``; ``holm_p``: Holm's
adjustment over the cells of the table (a cell with fewer than two deals
counts with p = 1) and ``holm_lo``, ``holm_hi``: the t-interval at the level
Holm's procedure gives the cell; ``cpu_ms_ours``, ``cpu_ms_xinxin`` and
``cpu_ratio`` (xinxin / ours), ``equal_cpu`` (the ratio within
:data:`EQUAL_CPU`), the wall-clock ``wall_ms_ours``, ``wall_ms_xinxin``; and
``status``: ``finished``, ``interim`` (some deals), ``not started`` or
``xinxin not installed``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

from .._base.config import ConfigError, check_unit_count
from .._base.registry import Summary, Unit, register
from ..tournament import TournamentConfig, agent_sources, deal_records, deal_rows, play_block

__all__ = ["XinxinSweepConfig", "PROFILES", "QUICK_BUDGETS_MS", "QUICK_DEALS", "DECLARATION",
           "FROZEN", "EQUAL_CPU", "COLUMNS", "TABLE_COLUMNS", "DeclarationError",
           "declaration", "declared", "cells", "xinxin_status", "units", "run_unit",
           "summarize", "difference_stats", "cell_stats", "holm", "cells_table",
           "saved_rows", "ship_table", "ship", "shipped_cells", "figure_table", "origin",
           "main"]

#: The checkout this module belongs to (the declaration and the sweep live there).
ROOT = Path(__file__).resolve().parents[2]
#: The pre-registration whose JSON block declares the sweep.
DECLARATION = ROOT / "paper" / "preregistration_xinxin.md"
#: Its SHA-256, frozen by the sweep's runner at the first unit.
FROZEN = ROOT / "research" / "xinxin_sweep" / "declaration.sha256"
#: The sweep's own folder (saved units: ``runs/<cell>/`` or ``archive/<cell>.tar.xz``).
SWEEP = ROOT / "research" / "xinxin_sweep"
#: A cell's CPU ratio (xinxin / ours) counts as equal CPU time within these bounds.
EQUAL_CPU = (0.8, 1.25)
#: The quick profile: the declared cells of these budgets, this many deals each.
QUICK_BUDGETS_MS = (5, 20)
QUICK_DEALS = 3
#: The columns of ``research/xinxin_sweep/cells.csv`` (``summarize.py``).
COLUMNS = ("cell", "budget_ms", "passing", "deals", "declared_deals", "finished", "mean", "lo",
           "hi", "p", "holm_p", "holm_lo", "holm_hi", "cpu_ms_ours", "cpu_ms_xinxin",
           "cpu_ratio", "wall_ms_ours", "wall_ms_xinxin", "seed", "ours", "xinxin")
#: The columns of this study's table ``cells`` (and of the shipped ``cells.csv``).
TABLE_COLUMNS = COLUMNS[:16] + ("equal_cpu",) + COLUMNS[16:] + ("status",)
#: Statuses of a cell in the table.
FINISHED, INTERIM, NOT_STARTED, ABSENT = ("finished", "interim", "not started",
                                          "xinxin not installed")


class DeclarationError(ConfigError):
    """The declaration is missing, malformed, or changed after the sweep's first unit."""


# ------------------------------------------------------------------ the declaration
def declaration(path: Path = DECLARATION, frozen: Path = FROZEN) -> tuple[dict, str]:
    """``(design, sha256)``: the JSON code block (the one ``json`` fence) of the
    pre-registration ``path`` and the file's SHA-256, which must equal the one
    recorded in ``frozen`` at the sweep's first unit. Raises
    :class:`DeclarationError` when either file is missing, the block is not
    exactly one valid JSON object with ``games`` and ``cells``, a cell names an
    undeclared game or cell seeds repeat, or the hash differs."""
    path, frozen = Path(path), Path(frozen)
    if not path.is_file():
        raise DeclarationError(
            f"xinxin_sweep: the declaration {path} is not there; the sweep's design is read "
            f"from paper/preregistration_xinxin.md of a source checkout")
    if not frozen.is_file():
        raise DeclarationError(
            f"xinxin_sweep: no frozen SHA-256 of the declaration at {frozen} (written by "
            f"research/xinxin_sweep/run.py at the sweep's first unit)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    was = (frozen.read_text().split() or [""])[0]
    if was != digest:
        raise DeclarationError(
            f"xinxin_sweep: {path} changed after the sweep's first unit (SHA-256 recorded in "
            f"{frozen}: {was}, now {digest}); the declared design is only read unchanged: "
            f"a new design needs a new declaration and fresh seeds")
    blocks = re.findall(r"```json\n(.*?)\n```", path.read_text(), re.S)
    if len(blocks) != 1:
        raise DeclarationError(f"xinxin_sweep: {path}: expected exactly one ```json block, "
                               f"found {len(blocks)}")
    try:
        design = json.loads(blocks[0])
        games, cells_ = design["games"], design["cells"]
        seeds = [int(c["seed"]) for c in cells_]
        for c in cells_:
            if c["game"] not in games:
                raise DeclarationError(f"xinxin_sweep: {path}: cell {c['cell']} plays the "
                                       f"undeclared game {c['game']!r}; declared: "
                                       f"{sorted(games)}")
            int(c["budget_ms"]), int(c["deals"]), str(c["ours"]), str(c["xinxin"])
    except (ValueError, KeyError, TypeError) as err:
        raise DeclarationError(f"xinxin_sweep: {path}: the JSON block is not a sweep "
                               f"declaration ({err!r}); it needs games and cells (cell, "
                               f"budget_ms, game, seed, deals, ours, xinxin)") from None
    if len(set(seeds)) != len(seeds):
        raise DeclarationError(f"xinxin_sweep: {path}: cell seeds repeat: {seeds}")
    return design, digest


# ------------------------------------------------------------------ configuration
@dataclasses.dataclass(frozen=True)
class XinxinSweepConfig:
    """The declared cells to play (``budgets_ms``: those budgets, empty: every
    declared one; ``games``: ``nopass``/``pass``), ``deals`` per cell (0: each
    cell's declared count, else the first ``deals`` of each), ``seed`` added to
    every declared cell seed (0: the declared seeds), ``deals_per_unit`` and
    ``pin`` (pin this process and the xinxin drivers to a core each)."""

    budgets_ms: tuple[int, ...] = ()
    games: tuple[str, ...] = ("nopass", "pass")
    deals: int = 0
    seed: int = 0
    deals_per_unit: int = 1
    pin: bool = True

    def __post_init__(self):
        if self.deals < 0:
            raise ValueError(f"deals must be >= 0 (0: as declared), got {self.deals}")
        if self.deals_per_unit < 1:
            raise ValueError(f"deals_per_unit must be >= 1, got {self.deals_per_unit}")
        if not self.games:
            raise ValueError("games must name at least one declared game (nopass, pass)")
        if self.deals:
            check_unit_count(-(-self.deals // self.deals_per_unit) * 10,
                             f"deals={self.deals}, deals_per_unit={self.deals_per_unit}")

    @property
    def declared(self) -> bool:
        """Whether this is exactly the declared design (the paper profile)."""
        return not self.budgets_ms and set(self.games) == {"nopass", "pass"} \
            and self.deals == 0 and self.seed == 0


PROFILES = {
    # the two smallest declared budgets, both passing modes, 3 deals each: seconds a deal
    "quick": XinxinSweepConfig(budgets_ms=QUICK_BUDGETS_MS, deals=QUICK_DEALS),
    # exactly the declared design
    "paper": XinxinSweepConfig(),
}


def declared() -> dict:
    """The declared design (:func:`declaration` of :data:`DECLARATION`)."""
    return declaration()[0]


def cells(config: XinxinSweepConfig, design: dict | None = None) -> list[dict]:
    """The cells ``config`` plays, in the declared order: each declared cell (its
    ``game`` resolved to the game's parameters under ``params``) with ``deals``
    and ``seed`` as the config gives them. Raises :class:`ConfigError` for a
    budget or game the declaration does not have."""
    design = declared() if design is None else design
    have_b = sorted({int(c["budget_ms"]) for c in design["cells"]})
    have_g = sorted(design["games"])
    bad_b = sorted(set(config.budgets_ms) - set(have_b))
    bad_g = sorted(set(config.games) - set(have_g))
    if bad_b or bad_g:
        raise ConfigError(f"xinxin_sweep: budgets_ms {bad_b} / games {bad_g} are not declared; "
                          f"declared budgets_ms: {have_b}, games: {have_g}")
    out = []
    for c in design["cells"]:
        if config.budgets_ms and int(c["budget_ms"]) not in config.budgets_ms:
            continue
        if c["game"] not in config.games:
            continue
        deals = int(c["deals"]) if not config.deals else min(config.deals, int(c["deals"]))
        out.append({**c, "deals": deals, "seed": int(c["seed"]) + int(config.seed),
                    "params": dict(design["games"][c["game"]])})
    return out


def xinxin_status() -> str:
    """The xinxin driver the agent would start: its SHA-256, or ``not installed``."""
    from solvers.xinxin import XinxinNotBuilt, find_binary
    try:
        argv = find_binary()
    except XinxinNotBuilt:
        return "not installed"
    from spiel_game._provenance import file_sha256
    return file_sha256(argv[0])


def _absent_reason() -> str | None:
    """Why xinxin cannot play here (its build command), or None when it can."""
    from solvers.xinxin import XinxinNotBuilt, find_binary
    try:
        find_binary()
    except XinxinNotBuilt as err:
        return str(err)
    return None


def _sources(config: XinxinSweepConfig) -> dict[str, str]:
    """The agents' module files and the xinxin driver (its SHA-256 or ``not
    installed``): a unit saved without xinxin is played again once it is built."""
    try:
        specs = [s for c in cells(config) for s in (c["ours"], c["xinxin"])]
    except ConfigError:
        specs = []
    return {**agent_sources(specs), "xinxin driver": xinxin_status()}


# ------------------------------------------------------------------ runner experiment
def units(config: XinxinSweepConfig) -> list[dict]:
    """One unit per block of ``deals_per_unit`` deals of each cell (the same list
    with or without xinxin). The paper profile refuses to start without xinxin."""
    chosen = cells(config)
    if config.declared:
        reason = _absent_reason()
        if reason is not None:
            raise ConfigError(f"xinxin_sweep: the paper profile plays the declared sweep "
                              f"against xinxin, which is not installed here ({reason}); its "
                              f"shipped results are paper/results/xinxin_sweep/")
    return [{"cell": c["cell"], "first_deal": first,
             "deals": min(config.deals_per_unit, c["deals"] - first)}
            for c in chosen for first in range(0, c["deals"], config.deals_per_unit)]


@contextlib.contextmanager
def _pinned(on: bool):
    """:func:`experiments.tournament.pin_cores` for the duration, then this thread's
    affinity and the drivers' core setting as they were."""
    from solvers.xinxin import CORE_ENV
    from ..tournament import pin_cores
    if not on or not hasattr(os, "sched_setaffinity"):
        yield None
        return
    before, env = os.sched_getaffinity(0), os.environ.get(CORE_ENV)
    try:
        yield pin_cores()
    finally:
        os.sched_setaffinity(0, before)
        if env is None:
            os.environ.pop(CORE_ENV, None)
        else:
            os.environ[CORE_ENV] = env


_WARM: set[str] = set()


def _warm_up(spec: str, params: dict) -> None:
    """One game of our agent ``spec`` on every seat, outside the measurement, once
    per process, agent (whatever its budget) and game: it compiles the search's
    kernels (every phase of the game: passing, play, scoring), so that the first
    deal's CPU time per decision is the search's, not the compiler's."""
    key = json.dumps([spec.split("(")[0], params], sort_keys=True)   # same kernels per agent
    if key in _WARM:
        return
    import spiel_game
    from solvers._registry import make_agent
    game = spiel_game.load(params)
    state = game.new_initial_state()
    bots = [make_agent(spec, game, q, q) for q in range(game.num_players())]
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            acts = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(acts[rng.integers(len(acts))]))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    _WARM.add(key)


def run_unit(config: XinxinSweepConfig, unit: Unit) -> list[dict]:
    """Play one block of deals of one cell (pinned, CPU time measured, after a
    :func:`_warm_up` of our agent); without xinxin, one ``skipped`` row with the
    reason."""
    cell = next(c for c in cells(config) if c["cell"] == unit.params["cell"])
    first, deals = unit.params["first_deal"], unit.params["deals"]
    reason = _absent_reason()
    if reason is not None:
        return [{"cell": cell["cell"], "kind": "skipped", "deal": first, "reason": reason}]
    tc = TournamentConfig(agents=(cell["ours"], cell["xinxin"]), game=cell["params"],
                          deals=deals, seed=cell["seed"], first_deal=first)
    where = f"xinxin_sweep cell {cell['cell']}, deals {first}..{first + deals - 1}"
    with _pinned(config.pin):
        _warm_up(cell["ours"], cell["params"])
        recs = play_block(tc, where)
    return deal_rows(recs, cell=cell["cell"])


def summarize(config: XinxinSweepConfig, rows) -> Summary:
    """The table ``cells`` (:func:`cells_table`) and its text."""
    import pandas as pd
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    chosen = cells(config)
    stats, absent = {}, set()
    for c in chosen:
        mine = [r for r in records if r.get("cell") == c["cell"]]
        if any(r.get("kind") == "skipped" for r in mine):
            absent.add(c["cell"])
        stats[c["cell"]] = cell_stats([r for r in mine if r.get("kind") in ("seat", "agent")])
    table = cells_table(chosen, stats, absent=absent)
    df = pd.DataFrame(table, columns=list(TABLE_COLUMNS))
    return Summary(tables={"cells": df}, text=text(table))


# ------------------------------------------------------------------ statistics
def difference_stats(d) -> dict:
    """The declared statistic of per-deal differences ``d`` (xinxin's points per
    hand minus ours): ``deals``, ``mean``, and from two deals on its standard
    error ``se``, 95% Student-t interval ``lo``, ``hi`` and two-sided one-sample
    t-test ``p`` against 0."""
    import scipy.stats

    from .._base.stats import mean_ci
    d = np.asarray(d, np.float64)
    n = len(d)
    if n == 0:
        return {"deals": 0}
    ci = mean_ci(d)
    out = {"deals": n, "mean": ci["mean"]}
    if n >= 2:
        out.update(lo=ci["lo"], hi=ci["hi"], se=ci["sd"] / np.sqrt(n),
                   p=float(scipy.stats.ttest_1samp(d, 0.0).pvalue))
    return out


def cell_stats(rows) -> dict:
    """The statistics of one cell from its tournament rows (agent 0 ours, 1 xinxin;
    :func:`experiments.tournament.deal_rows`): :func:`difference_stats` of the
    per-deal differences (also under ``d``), and each side's wall-clock and, when
    every deal recorded it, CPU ms per decision and their ratio xinxin / ours."""
    from ..tournament import per_deal_agent_values
    recs = deal_records(rows)
    if not recs:
        return {"deals": 0}
    pts = np.array([per_deal_agent_values(r, 2)[0] for r in recs])
    d = pts[:, 1] - pts[:, 0]                   # xinxin minus ours, per deal
    out = {**difference_stats(d), "d": d}
    secs = np.sum([r["timing"]["seconds"] for r in recs], axis=0)
    decs = np.sum([r["timing"]["decisions"] for r in recs], axis=0)
    out.update(wall_ms_ours=1e3 * secs[0] / decs[0], wall_ms_xinxin=1e3 * secs[1] / decs[1])
    if all("cpu_seconds" in r["timing"] for r in recs):
        cpu = np.sum([r["timing"]["cpu_seconds"] for r in recs], axis=0)
        out.update(cpu_ms_ours=1e3 * cpu[0] / decs[0], cpu_ms_xinxin=1e3 * cpu[1] / decs[1],
                   cpu_ratio=cpu[1] / decs[1] / (cpu[0] / decs[0]))
    return out


def holm(pvalues: dict[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """Holm's adjusted p-values and each hypothesis's step-down level
    ``0.05 / (m - rank)`` (rank from 0 by p, ties in the given order)."""
    from .._base.stats import holm as holm_adjusted
    names = list(pvalues)
    adjusted = holm_adjusted([pvalues[k] for k in names])
    order = sorted(names, key=pvalues.get)
    level = {name: 0.05 / (len(order) - rank) for rank, name in enumerate(order)}
    return dict(zip(names, adjusted)), level


def cells_table(chosen: list[dict], stats: dict[str, dict], absent=()) -> list[dict]:
    """One row (:data:`TABLE_COLUMNS`) per cell of ``chosen`` (declared cells, in
    order) from its :func:`cell_stats`; Holm over these cells, a cell without a
    p-value counting with p = 1; ``absent``: cells that xinxin's absence kept
    from being played."""
    import scipy.stats
    adj, level = holm({c["cell"]: stats[c["cell"]].get("p", 1.0) for c in chosen})
    table = []
    for c in chosen:
        s = stats[c["cell"]]
        finished = s["deals"] >= int(c["deals"])
        row = {"cell": c["cell"], "budget_ms": c["budget_ms"], "passing": c["game"] == "pass",
               "deals": s["deals"], "declared_deals": c["deals"], "finished": finished,
               "seed": c["seed"], "ours": c["ours"], "xinxin": c["xinxin"]}
        for k in ("mean", "lo", "hi", "p", "cpu_ms_ours", "cpu_ms_xinxin", "cpu_ratio",
                  "wall_ms_ours", "wall_ms_xinxin"):
            row[k] = s.get(k)
        if "p" in s:
            q = scipy.stats.t.ppf(1 - level[c["cell"]] / 2, s["deals"] - 1)
            row.update(holm_p=adj[c["cell"]], holm_lo=s["mean"] - q * s["se"],
                       holm_hi=s["mean"] + q * s["se"])
        ratio = row["cpu_ratio"]
        row["equal_cpu"] = None if ratio is None else bool(EQUAL_CPU[0] <= ratio <= EQUAL_CPU[1])
        row["status"] = (ABSENT if c["cell"] in absent and not s["deals"] else
                         FINISHED if finished else INTERIM if s["deals"] else NOT_STARTED)
        table.append({k: row.get(k) for k in TABLE_COLUMNS})
    return table


def text(table: list[dict]) -> str:
    """One line per cell: deals, the difference with its interval and p, Holm's p,
    both sides' CPU ms per decision and the cell's status."""
    lines = []
    for row in table:
        head = f"{row['cell']:14s} {row['deals']:4d}/{row['declared_deals']} deals"
        if row["mean"] is None:
            lines.append(f"{head}  {row['status']}")
            continue
        ci = (f" [{row['lo']:+.2f}, {row['hi']:+.2f}] p={row['p']:.3g} Holm p="
              f"{row['holm_p']:.3g}" if row["lo"] is not None else "")
        cpu = (f"; CPU ms ours {row['cpu_ms_ours']:.1f} xinxin {row['cpu_ms_xinxin']:.1f} "
               f"(ratio {row['cpu_ratio']:.2f}{'' if row['equal_cpu'] else ', not equal CPU'})"
               if row["cpu_ms_ours"] is not None else "")
        lines.append(f"{head}  xinxin - ours {row['mean']:+.2f}{ci}{cpu}; {row['status']}")
    return "\n".join(lines) + "\n"


def _csv(table: list[dict], columns=TABLE_COLUMNS) -> str:
    """The table as CSV, floats with 4 significant digits (as ``cells.csv``)."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\r\n")
    w.writeheader()
    for row in table:
        w.writerow({k: (f"{row[k]:.4g}" if isinstance(row[k], float) else row[k])
                    for k in columns})
    return buf.getvalue()


# ------------------------------------------------------------------ shipping the sweep
def _journal(text_: str) -> dict[str, str]:
    known = {}
    for line in text_.splitlines():
        parts = line.split("  ")
        if len(parts) == 2:
            known[parts[1]] = parts[0]
    return known


def saved_rows(sweep: Path, cell: str) -> tuple[list[dict], dict | None, str]:
    """``(rows, run.json, where)`` of one cell's saved units in the sweep folder
    ``sweep``: from ``runs/<cell>/`` when it exists (also while the sweep runs),
    else from ``archive/<cell>.tar.xz`` (read in memory; nothing is unpacked);
    only units whose SHA-256 the runner recorded in ``shards.sha256`` (the others
    are named on stderr and skipped). No saved units: ``([], None, "none")``."""
    run_dir = Path(sweep) / "runs" / cell
    packed = Path(sweep) / "archive" / f"{cell}.tar.xz"
    files: dict[str, bytes] = {}
    if run_dir.is_dir():
        where = str(run_dir)
        for name in ("shards.sha256", "run.json"):
            if (run_dir / name).is_file():
                files[name] = (run_dir / name).read_bytes()
        for p in sorted((run_dir / "shards").glob("unit-*.json")):
            files[f"shards/{p.name}"] = p.read_bytes()
    elif packed.is_file():
        import tarfile
        where = str(packed)
        with tarfile.open(packed, "r:xz") as tar:
            for m in tar.getmembers():
                name = m.name.split("/", 1)[1] if m.name.startswith(f"{cell}/") else None
                if m.isfile() and name and (name in ("shards.sha256", "run.json") or (
                        name.startswith("shards/unit-") and name.endswith(".json"))):
                    files[name] = tar.extractfile(m).read()
    else:
        return [], None, "none"
    known = _journal(files.get("shards.sha256", b"").decode())
    rows = []
    for name in sorted(n for n in files if n.startswith("shards/")):
        if known.get(name) != hashlib.sha256(files[name]).hexdigest():
            print(f"  skipping {where}/{name}: not in shards.sha256 or its hash differs",
                  file=sys.stderr)
            continue
        rows += json.loads(files[name])["rows"]
    run = json.loads(files["run.json"]) if "run.json" in files else None
    return rows, run, where


def ship_table(sweep: Path = SWEEP, declaration_path: Path | None = None
               ) -> tuple[list[dict], dict]:
    """The cells table of every declared cell from the sweep's saved units
    (:func:`saved_rows`) and the provenance of each cell (deals, where read from,
    the sessions that played it, from its ``run.json``). The declaration is
    ``declaration_path`` (default :data:`DECLARATION`), checked against
    ``sweep/declaration.sha256``."""
    sweep = Path(sweep)
    design, _ = declaration(declaration_path or DECLARATION, sweep / "declaration.sha256")
    chosen = cells(PROFILES["paper"], design)
    stats, prov = {}, {}
    for c in chosen:
        rows, run, where = saved_rows(sweep, c["cell"])
        stats[c["cell"]] = cell_stats(rows)
        prov[c["cell"]] = {
            "deals": stats[c["cell"]]["deals"], "declared_deals": c["deals"],
            "read_from": os.path.relpath(where, ROOT) if where != "none" else "none",
            "sessions": [{k: s.get(k) for k in ("started", "git_commit")}
                         for s in (run or {}).get("sessions", [])]}
    return cells_table(chosen, stats), prov


def ship(sweep: Path = SWEEP, dst: Path | None = None) -> Path:
    """Write the shipped results ``dst/xinxin_sweep/`` (default: the checkout's
    ``paper/results``) from the sweep's saved units: ``cells.csv``
    (:data:`TABLE_COLUMNS`; interim cells marked by ``status``) and
    ``metadata.json`` (the declared design as ``config``, the declaration's
    SHA-256, commit, package versions, machine, when, each cell's provenance).
    Added with :func:`experiments._shipped.add`, so ``SHA256SUMS``,
    ``shipped.json`` and ``README.md`` follow and every other shipped file
    stays byte for byte. Returns the written folder."""
    import datetime as dt
    import tempfile

    from spiel_game._provenance import metadata as provenance

    from .. import _shipped as shipped
    dst = Path(dst) if dst is not None else ROOT / shipped.SHIPPED
    sweep = Path(sweep)
    design, digest = declaration(DECLARATION, sweep / "declaration.sha256")
    table, prov = ship_table(sweep)
    starts = [s["started"] for p in prov.values() for s in p["sessions"] if s.get("started")]
    meta = provenance(design, None)
    meta.update(experiment="xinxin_sweep", profile="paper",
                declaration=os.path.relpath(DECLARATION, ROOT), declaration_sha256=digest,
                started=min(starts) if starts else None,
                finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                rows=len(table), interim=not all(r["finished"] for r in table),
                finished_cells=sum(bool(r["finished"]) for r in table),
                source=(f"{os.path.relpath(sweep, ROOT)}: the saved units of "
                        f"research/xinxin_sweep/run.py (runs/<cell>/, else "
                        f"archive/<cell>.tar.xz), summarized by "
                        f"experiments.studies.xinxin_sweep.ship"), cells=prov)
    with tempfile.TemporaryDirectory(prefix="xinxin_sweep-ship-") as tmp:
        out = Path(tmp) / "xinxin_sweep"
        out.mkdir()
        (out / "cells.csv").write_text(_csv(table), newline="")
        (out / "metadata.json").write_text(json.dumps(meta, indent=1, default=str) + "\n")
        shipped.add(Path(tmp), ["xinxin_sweep"], dst)
    return dst / "xinxin_sweep"


# ------------------------------------------------------------------ what the paper draws
def shipped_cells(candidates=None) -> Path | None:
    """The shipped ``xinxin_sweep/cells.csv``: under ``paper/results`` of the working
    folder (:data:`experiments._shipped.SHIPPED`), else of this module's checkout;
    None when neither has it."""
    from .. import _shipped as shipped
    for base in candidates or (shipped.SHIPPED, ROOT / shipped.SHIPPED):
        f = Path(base) / "xinxin_sweep" / "cells.csv"
        if f.is_file():
            return f
    return None


def figure_table(results: Path) -> tuple[list[dict], str, Path]:
    """``(rows, source, file)``: the cells table the paper draws for ``results``
    and where it comes from. ``source`` is ``"results"`` (the table of
    ``results/xinxin_sweep/cells.csv``, a run of this study or the shipped
    results) or ``"shipped"`` (that run recorded that xinxin is not installed,
    so the shipped paper-profile table, :func:`shipped_cells`, is drawn). Raises
    ``FileNotFoundError`` when the results lack the table (or xinxin was absent
    and no shipped table is found) and ``ValueError`` when no cell has deals."""
    import csv
    f = Path(results) / "xinxin_sweep" / "cells.csv"
    with open(f, newline="") as fh:
        rows = list(csv.DictReader(fh))
    source = "results"
    if rows and all(r.get("status") == ABSENT for r in rows):
        shipped_f = shipped_cells()
        if shipped_f is None:
            raise FileNotFoundError(f"{f}: xinxin was not installed for this run, and no "
                                    f"shipped paper/results/xinxin_sweep/cells.csv was found")
        f, source = shipped_f, "shipped"
        with open(f, newline="") as fh:
            rows = list(csv.DictReader(fh))
    if not any(int(r["deals"]) for r in rows):
        raise ValueError(f"{f}: no cell has deals")
    return rows, source, f


def origin(results: Path) -> str:
    """Where :func:`figure_table` of ``results`` comes from, as plain text for the
    figure and the caption: the shipped paper-profile results (when this run had
    no xinxin), the paper-profile results (with how many cells are finished),
    or the quick profile's run (its deals per cell)."""
    rows, source, f = figure_table(results)
    count = {k: sum(r["status"] == k for r in rows) for k in (FINISHED, INTERIM, NOT_STARTED)}
    progress = ", ".join([f"{count[FINISHED]} of {len(rows)} cells finished"]
                         + [f"{count[k]} {k}" for k in (INTERIM, NOT_STARTED) if count[k]])
    if source == "shipped":
        return (f"the shipped paper-profile results ({progress}); xinxin was not installed "
                f"for this run")
    try:
        profile = json.loads((f.parent / "metadata.json").read_text()).get("profile")
    except (OSError, ValueError):
        profile = None
    if profile == "paper":
        return f"the paper-profile results ({progress})"
    deals = sorted({int(r["declared_deals"]) for r in rows})
    return (f"a {profile or 'non-paper'}-profile run ({'/'.join(map(str, deals))} deals per "
            f"cell: a smoke test, not the declared sweep)")


# ------------------------------------------------------------------ command line
def main(argv=None) -> int:
    """``python -m experiments.studies.xinxin_sweep --ship [SWEEP] [--dst DIR]``."""
    import argparse
    ap = argparse.ArgumentParser(
        prog="python -m experiments.studies.xinxin_sweep",
        description="Ship the xinxin sweep's current results (interim while cells are "
                    "unfinished) into paper/results/xinxin_sweep/ from its saved units.")
    ap.add_argument("--ship", nargs="?", const=str(SWEEP), metavar="SWEEP", required=True,
                    help=f"the sweep's folder (default {os.path.relpath(SWEEP)})")
    ap.add_argument("--dst", default=None,
                    help="the shipped results folder (default: paper/results of this checkout)")
    args = ap.parse_args(argv)
    try:
        out = ship(Path(args.ship), None if args.dst is None else Path(args.dst))
    except (ConfigError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(text(_read_back(out / "cells.csv")), end="")
    print(f"shipped {out} (cells.csv, metadata.json; SHA256SUMS, shipped.json and README.md "
          f"of {out.parent} updated)")
    return 0


def _read_back(f: Path) -> list[dict]:
    import csv
    with open(f, newline="") as fh:
        rows = list(csv.DictReader(fh))
    num = ("mean", "lo", "hi", "p", "holm_p", "cpu_ms_ours", "cpu_ms_xinxin", "cpu_ratio")
    for r in rows:
        r["deals"], r["declared_deals"] = int(r["deals"]), int(r["declared_deals"])
        for k in num:
            r[k] = float(r[k]) if r[k] else None
        r["equal_cpu"] = r["equal_cpu"] == "True"
    return rows


register("xinxin_sweep", XinxinSweepConfig, units, run_unit, summarize, profiles=PROFILES,
         description="the pre-registered sweep: ISMCTS against xinxin at equal CPU time "
                     "(paper/preregistration_xinxin.md)",
         sources=_sources)


if __name__ == "__main__":
    raise SystemExit(main())
