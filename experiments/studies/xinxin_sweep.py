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
``status``: ``finished``, ``interim`` (some deals), ``not started``,
``xinxin not installed`` or, in the shipped table only, ``stopped``.

**The second declaration.** Six of the first sweep's cells were not played at
equal CPU (xinxin used 0.61-0.69 of our CPU time), so a second declaration,
``paper/preregistration_xinxin_recalibrated.md`` (:data:`RECALIBRATED`),
re-runs those six budget and passing modes with recalibrated xinxin
simulations and fresh seeds (Holm over its own six cells) and stops the first
sweep's four unfinished cells (:data:`STOPPED_CELLS`). Its cells are played by
the same runner (``run.py --declaration ...``, frozen SHA-256 in
``declaration-preregistration_xinxin_recalibrated.sha256``) and shipped by
:func:`ship` beside the first sweep's (``recalibrated.csv``), with the
equal-CPU strength curve both declare (``curve.csv``, :func:`curve_rows`).

**The third declaration.** In the second sweep the 300 ms cell with passing
ran at 0.74 of our CPU time, so a third declaration,
``paper/preregistration_xinxin_third.md`` (:data:`THIRD`), stops it and the
1 s cell with passing (its JSON block's ``stops``, :func:`stops`) and plays
both again with xinxin recalibrated from that cell's deals (Holm over its own
two cells); shipped as ``third.csv``, and its cells take their budget's place
on the curve. The later declarations are listed once, in :data:`LATER`
(key, file, shipped table, macro prefix, title): shipping, the paper's macros
and the figure read it, so a further declaration is one more entry there. The
runner experiment plays only the first declaration's cells.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np

from .._base.config import ConfigError, check_unit_count
from .._base.registry import Summary, Unit, register
from ..tournament import TournamentConfig, agent_sources, deal_rows, play_block
from ._xinxin_design import (ROOT, DECLARATION, FROZEN, SWEEP, RECALIBRATED, STOPPED_CELLS,
                             THIRD, Later, LATER, stops, EQUAL_CPU, QUICK_BUDGETS_MS,
                             QUICK_DEALS, COLUMNS,
                             TABLE_COLUMNS, FINISHED, INTERIM, NOT_STARTED, ABSENT, STOPPED,
                             CURVE_COLUMNS, NO_CELL, DeclarationError, frozen_for,
                             declaration, difference_stats, cell_stats, holm, cells_table,
                             text, _csv, _true, curve_rows)  # noqa: F401 (re-exported)

__all__ = ["XinxinSweepConfig", "PROFILES", "QUICK_BUDGETS_MS", "QUICK_DEALS", "DECLARATION",
           "FROZEN", "EQUAL_CPU", "COLUMNS", "TABLE_COLUMNS", "DeclarationError",
           "declaration", "declared", "cells", "xinxin_status", "units", "run_unit",
           "summarize", "difference_stats", "cell_stats", "holm", "cells_table",
           "saved_rows", "ship_table", "ship", "shipped_cells", "figure_table", "origin",
           "RECALIBRATED", "STOPPED_CELLS", "THIRD", "Later", "LATER", "stops", "CURVE_COLUMNS",
           "frozen_for", "curve_rows",
           "figure_tables", "main", "warm_up", "NO_CELL", "STOPPED", "FINISHED", "INTERIM",
           "NOT_STARTED", "ABSENT"]

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


def warm_up(spec: str, params: dict) -> bool:
    """One game of our agent ``spec`` on every seat, outside the measurement, once
    per process, agent (whatever its budget) and game: it compiles the search's
    kernels (every phase of the game: passing, play, scoring), so that the first
    deal's CPU time per decision is the search's, not the compiler's. Returns
    whether it played (False: this agent and game were warmed up before)."""
    key = json.dumps([spec.split("(")[0], params], sort_keys=True)   # same kernels per agent
    if key in _WARM:
        return False
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
    return True


def run_unit(config: XinxinSweepConfig, unit: Unit) -> list[dict]:
    """Play one block of deals of one cell (pinned, CPU time measured, after a
    :func:`warm_up` of our agent); without xinxin, one ``skipped`` row with the
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
        warm_up(cell["ours"], cell["params"])
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


def ship_table(sweep: Path = SWEEP, declaration_path: Path | None = None, stopped=(),
               unfrozen_ok: bool = False) -> tuple[list[dict], dict]:
    """The cells table of every declared cell from the sweep's saved units
    (:func:`saved_rows`) and the provenance of each cell (deals, where read from,
    the sessions that played it, from its ``run.json``). The declaration is
    ``declaration_path`` (default :data:`DECLARATION`), checked against its
    frozen SHA-256 in ``sweep`` (:func:`frozen_for`); Holm over its own cells;
    ``stopped``: its cells a later declaration stopped (:func:`cells_table`).
    ``unfrozen_ok``: without a frozen SHA-256 the sweep has not started, and any
    saved unit of its cells is refused (:class:`DeclarationError`)."""
    sweep = Path(sweep)
    path = Path(declaration_path or DECLARATION)
    frozen = frozen_for(path, sweep)
    design, _ = declaration(path, frozen, unfrozen_ok=unfrozen_ok)
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
        if not frozen.is_file() and stats[c["cell"]]["deals"]:
            raise DeclarationError(
                f"xinxin_sweep: {c['cell']} has saved deals ({prov[c['cell']]['read_from']}) "
                f"but {frozen} is missing: the runner freezes the declaration's SHA-256 at "
                f"its first unit, so these deals are not checked against {path.name}")
    return cells_table(chosen, stats, stopped=stopped), prov


def ship(sweep: Path = SWEEP, dst: Path | None = None) -> Path:
    """Write the shipped results ``dst/xinxin_sweep/`` (default: the checkout's
    ``paper/results``) from the saved units of every declared sweep:

    * ``cells.csv``: the first declaration's cells (:data:`TABLE_COLUMNS`;
      interim cells marked by ``status``; the cells the second declaration
      stops, :data:`STOPPED_CELLS`, ``stopped`` with their interim numbers and
      counted with p = 1 in its Holm family of ten);
    * ``recalibrated.csv``: the second declaration's cells (:data:`RECALIBRATED`,
      checked against its frozen SHA-256; Holm over its own cells; the cells the
      third declaration stops, :func:`stops`, ``stopped`` and counted with
      p = 1), every cell ``not started`` while it has no saved units (before its
      runner froze the hash too);
    * ``third.csv``: the third declaration's cells (:data:`THIRD`), alike;
    * ``curve.csv``: the equal-CPU strength curve (:func:`curve_rows`);
    * ``metadata.json``: the first design as ``config`` and its SHA-256, every
      declaration (file, SHA-256, whether it is frozen, design, cells,
      provenance of each cell), commit, package versions, machine, when.

    Added with :func:`experiments._shipped.add`, so ``SHA256SUMS``,
    ``shipped.json`` and ``README.md`` follow and every other shipped file
    stays byte for byte. Returns the written folder."""
    import datetime as dt
    import tempfile

    from spiel_game._provenance import metadata as provenance

    from .. import _shipped as shipped
    dst = Path(dst) if dst is not None else ROOT / shipped.SHIPPED
    sweep = Path(sweep)
    design, digest = declaration(DECLARATION, frozen_for(DECLARATION, sweep))
    read = [(d, *declaration(d.path, frozen_for(d.path, sweep), unfrozen_ok=True))
            for d in LATER]
    later = []          # (Later, design, sha256, table, provenance)
    for i, (d, design_, sha) in enumerate(read):
        stopped = [c for _, after, _ in read[i + 1:] for c in stops(after, d.path)]
        table_, prov_ = ship_table(sweep, d.path, stopped=stopped, unfrozen_ok=True)
        later.append((d, design_, sha, table_, prov_))
    table, prov = ship_table(sweep, stopped=STOPPED_CELLS)
    curve = curve_rows(table, *[t for *_, t, _ in later])
    starts = [s["started"] for p in (prov, *[pr for *_, pr in later]) for c in p.values()
              for s in c["sessions"] if s.get("started")]

    def about(path, sha, design_, table_, prov_, file_, holm_note):
        return {"declaration": os.path.relpath(path, ROOT), "declaration_sha256": sha,
                "frozen": frozen_for(path, sweep).is_file(), "config": design_,
                "holm_family": holm_note, "cells_file": file_,
                "interim": not all(r["finished"] for r in table_),
                "finished_cells": sum(bool(r["finished"]) for r in table_),
                "stopped_cells": [r["cell"] for r in table_ if r["status"] == STOPPED],
                "cells": prov_}

    meta = provenance(design, None)
    meta.update(experiment="xinxin_sweep", profile="paper",
                declaration=os.path.relpath(DECLARATION, ROOT), declaration_sha256=digest,
                started=min(starts) if starts else None,
                finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                rows=len(table), interim=not all(r["finished"] for r in table),
                finished_cells=sum(bool(r["finished"]) for r in table),
                source=(f"{os.path.relpath(sweep, ROOT)}: the saved units of "
                        f"research/xinxin_sweep/run.py (runs/<cell>/, else "
                        f"archive/<cell>.tar.xz) of every declaration, summarized by "
                        f"experiments.studies.xinxin_sweep.ship"), cells=prov,
                stopped_cells=[r["cell"] for r in table if r["status"] == STOPPED],
                declarations={
                    "first": about(DECLARATION, digest, design, table, prov, "cells.csv",
                                   f"the {len(table)} cells of the first declaration "
                                   f"(stopped cells and cells with fewer than two deals "
                                   f"count with p = 1; interim while cells are unfinished)"),
                    **{d.key: about(d.path, sha, design_, table_, prov_, d.table,
                                    f"the {len(table_)} cells of the {d.key} declaration "
                                    f"(stopped cells and cells with fewer than two deals "
                                    f"count with p = 1; interim while cells are unfinished)")
                       for d, design_, sha, table_, prov_ in later}},
                curve=("curve.csv: per budget and passing mode the cell of the latest "
                       f"declaration that has one ({', '.join(d.key for d in LATER[::-1])}), "
                       "else the first sweep's cell when it finished with its CPU ratio "
                       f"inside {list(EQUAL_CPU)}, else none "
                       "(experiments.studies.xinxin_sweep.curve_rows)"))
    with tempfile.TemporaryDirectory(prefix="xinxin_sweep-ship-") as tmp:
        out = Path(tmp) / "xinxin_sweep"
        out.mkdir()
        (out / "cells.csv").write_text(_csv(table), newline="")
        for d, _, _, table_, _ in later:
            (out / d.table).write_text(_csv(table_), newline="")
        (out / "curve.csv").write_text(_csv(curve, CURVE_COLUMNS), newline="")
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


def figure_tables(results: Path) -> dict:
    """Everything the paper draws of the sweeps for ``results``: ``first`` and
    ``source``, ``file`` (:func:`figure_table`); for each later declaration
    (:data:`LATER`), under its ``key``: the rows of its table beside that file
    (the shipped results), else None (a run of this study plays only the first
    declaration's cells); ``curve``: the rows of ``curve.csv`` beside it, else
    :func:`curve_rows` of those tables (for a quick run: its cells finished at
    equal CPU)."""
    import csv
    rows, source, f = figure_table(results)

    def read(name):
        g = f.parent / name
        if not g.is_file():
            return None
        with open(g, newline="") as fh:
            return list(csv.DictReader(fh))
    later = {d.key: read(d.table) for d in LATER}
    curve = read("curve.csv")
    if curve is None:
        curve = curve_rows(rows, *[t or [] for t in later.values()])
    return {"first": rows, **later, "curve": curve, "source": source, "file": f}


def origin(results: Path) -> str:
    """Where :func:`figure_table` of ``results`` comes from, as plain text for the
    figure and the caption: the shipped paper-profile results (when this run had
    no xinxin), the paper-profile results (with how many cells are finished),
    or the quick profile's run (its deals per cell)."""
    rows, source, f = figure_table(results)
    count = {k: sum(r["status"] == k for r in rows)
             for k in (FINISHED, INTERIM, STOPPED, NOT_STARTED)}
    progress = ", ".join([f"first sweep: {count[FINISHED]} of {len(rows)} cells finished"]
                         + [f"{count[k]} {k}" for k in (INTERIM, STOPPED, NOT_STARTED)
                            if count[k]])
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
    print("first declaration:")
    print(text(_read_back(out / "cells.csv")), end="")
    for d in LATER:
        print(f"{d.key} declaration:")
        print(text(_read_back(out / d.table)), end="")
    print(f"shipped {out} (cells.csv, {', '.join(d.table for d in LATER)}, curve.csv, "
          f"metadata.json; "
          f"SHA256SUMS, shipped.json and README.md of {out.parent} updated)")
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
