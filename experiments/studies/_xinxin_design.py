"""The xinxin sweep's design and statistics (internal to :mod:`.xinxin_sweep`).

The declared design read from a pre-registration file and checked against the
SHA-256 its runner froze (:func:`declaration`, :func:`frozen_for`), the
sweep's constants (where the declarations and saved units live, the equal-CPU
band, the table columns and cell statuses), the declared statistic of a cell
(:func:`cell_stats`, :func:`difference_stats`), the cells a later declaration
stops (:func:`stops`), Holm's adjustment over a
declaration's cells (:func:`holm`), the cells table (:func:`cells_table`) and
the rule of the equal-CPU strength curve (:func:`curve_rows`). The study
module :mod:`experiments.studies.xinxin_sweep` re-exports every public name
here; import them from there.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._base.config import ConfigError

__all__ = ["ROOT", "DECLARATION", "FROZEN", "SWEEP", "RECALIBRATED", "STOPPED_CELLS", "THIRD",
           "Later", "LATER", "stops", "EQUAL_CPU",
           "QUICK_BUDGETS_MS", "QUICK_DEALS", "COLUMNS", "TABLE_COLUMNS", "FINISHED",
           "INTERIM", "NOT_STARTED", "ABSENT", "STOPPED", "CURVE_COLUMNS", "NO_CELL",
           "DeclarationError", "frozen_for", "declaration", "difference_stats",
           "cell_stats", "holm", "cells_table", "text", "curve_rows"]

#: The checkout this module belongs to (the declaration and the sweep live there).
ROOT = Path(__file__).resolve().parents[2]
#: The pre-registration whose JSON block declares the sweep.
DECLARATION = ROOT / "paper" / "preregistration_xinxin.md"
#: Its SHA-256, frozen by the sweep's runner at the first unit.
FROZEN = ROOT / "research" / "xinxin_sweep" / "declaration.sha256"
#: The sweep's own folder (saved units: ``runs/<cell>/`` or ``archive/<cell>.tar.xz``).
SWEEP = ROOT / "research" / "xinxin_sweep"
#: The second declaration: the recalibrated sweep (six cells, Holm over its own six).
RECALIBRATED = ROOT / "paper" / "preregistration_xinxin_recalibrated.md"
#: The first sweep's cells the second declaration stops (their interim CPU ratios
#: showed they would not be equal-CPU); reported ``stopped``, counted with p = 1 in
#: the first sweep's Holm family.
STOPPED_CELLS = ("b300_nopass", "b300_pass", "b1000_nopass", "b1000_pass")
#: The third declaration: the passing cells at 300 ms and 1 s again, recalibrated
#: from the second sweep's own deals (Holm over its own two cells). The second
#: declaration's cells it stops are listed in its JSON block (``stops``, :func:`stops`).
THIRD = ROOT / "paper" / "preregistration_xinxin_third.md"


class Later(NamedTuple):
    """A declaration after the first: ``key`` (its name in ``metadata.json``,
    :func:`~experiments.studies.xinxin_sweep.figure_tables` and the curve's
    ``sweep`` column), ``path`` (its file), ``table`` (its shipped CSV),
    ``prefix`` (of its paper macros, ``\\XinxinSweep<prefix>...``) and
    ``title`` (in words, for the paper and the figure)."""
    key: str
    path: Path
    table: str
    prefix: str
    title: str


#: The later declarations, in order; a later one's cell replaces an earlier one's
#: on the curve (:func:`curve_rows`). Shipping, the paper's macros and the figure
#: all read this tuple: a further declaration is one more entry here.
LATER = (Later("recalibrated", RECALIBRATED, "recalibrated.csv", "Recal", "recalibrated sweep"),
         Later("third", THIRD, "third.csv", "Third", "third sweep"))

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
#: The status of a first-sweep cell stopped by the second declaration.
STOPPED = "stopped"
#: The columns of the equal-CPU strength curve (the shipped ``curve.csv``,
#: :func:`curve_rows`): one row per budget and passing mode.
CURVE_COLUMNS = ("budget_ms", "passing", "sweep", "cell", "status", "deals", "declared_deals",
                 "mean", "lo", "hi", "p", "holm_p", "holm_lo", "holm_hi", "cpu_ms_ours",
                 "cpu_ms_xinxin", "cpu_ratio", "equal_cpu")
#: The status of a curve row without an equal-CPU cell (:func:`curve_rows`).
NO_CELL = "no equal-CPU cell"


class DeclarationError(ConfigError):
    """The declaration is missing, malformed, or changed after the sweep's first unit."""


# ------------------------------------------------------------------ the declaration
def frozen_for(path: Path, sweep: Path = SWEEP) -> Path:
    """Where the sweep's runner froze the SHA-256 of the declaration ``path`` in the
    sweep folder ``sweep`` (as ``research/xinxin_sweep/run.py`` does):
    ``declaration.sha256`` for the first declaration (:data:`DECLARATION`),
    ``declaration-<file stem>.sha256`` for another."""
    if Path(path).name == DECLARATION.name:
        return Path(sweep) / "declaration.sha256"
    return Path(sweep) / f"declaration-{Path(path).stem}.sha256"


def declaration(path: Path = DECLARATION, frozen: Path = FROZEN,
                unfrozen_ok: bool = False) -> tuple[dict, str]:
    """``(design, sha256)``: the JSON code block (the one ``json`` fence) of the
    pre-registration ``path`` and the file's SHA-256, which must equal the one
    recorded in ``frozen`` at the sweep's first unit. Raises
    :class:`DeclarationError` when either file is missing (``unfrozen_ok``: a
    missing ``frozen`` is accepted, for a sweep whose runner has not started;
    the caller checks that nothing was saved), the block is not exactly one
    valid JSON object with ``games`` and ``cells``, a cell names an undeclared
    game or cell seeds repeat, or the hash differs."""
    path, frozen = Path(path), Path(frozen)
    if not path.is_file():
        raise DeclarationError(
            f"xinxin_sweep: the declaration {path} is not there; the sweep's design is read "
            f"from paper/{path.name} of a source checkout")
    if not frozen.is_file() and not unfrozen_ok:
        raise DeclarationError(
            f"xinxin_sweep: no frozen SHA-256 of the declaration at {frozen} (written by "
            f"research/xinxin_sweep/run.py at the sweep's first unit)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    was = (frozen.read_text().split() or [""])[0] if frozen.is_file() else digest
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


def stops(design: dict, earlier: Path) -> tuple[str, ...]:
    """The cells of the earlier declaration ``earlier`` that the declared design
    ``design`` stops: its JSON block's ``stops``, keyed by the earlier file's
    path from the checkout (``paper/<name>``); none when it names none. Raises
    :class:`DeclarationError` when ``stops`` is not such a mapping."""
    table = design.get("stops", {})
    key = f"paper/{Path(earlier).name}"
    if not isinstance(table, dict) or not all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in table.values()):
        raise DeclarationError(f"xinxin_sweep: the declaration's 'stops' must map an earlier "
                               f"declaration's path (e.g. {key!r}) to a list of its cells, "
                               f"got {table!r}")
    return tuple(table.get(key, ()))


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
    from ..tournament import deal_records, per_deal_agent_values
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


def cells_table(chosen: list[dict], stats: dict[str, dict], absent=(), stopped=()
                ) -> list[dict]:
    """One row (:data:`TABLE_COLUMNS`) per cell of ``chosen`` (declared cells, in
    order) from its :func:`cell_stats`; Holm over these cells, a cell without a
    p-value counting with p = 1; ``absent``: cells that xinxin's absence kept
    from being played; ``stopped``: unfinished cells a later declaration stopped
    (status ``stopped``, their interim numbers kept, counted with p = 1 in the
    Holm family: ``holm_p`` 1, no Holm interval)."""
    import scipy.stats
    stopped = {c["cell"] for c in chosen if c["cell"] in set(stopped)
               and stats[c["cell"]]["deals"] < int(c["deals"])}
    adj, level = holm({c["cell"]: 1.0 if c["cell"] in stopped else stats[c["cell"]].get("p", 1.0)
                       for c in chosen})
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
        if c["cell"] in stopped:
            row.update(holm_p=adj[c["cell"]])
        elif "p" in s:
            q = scipy.stats.t.ppf(1 - level[c["cell"]] / 2, s["deals"] - 1)
            row.update(holm_p=adj[c["cell"]], holm_lo=s["mean"] - q * s["se"],
                       holm_hi=s["mean"] + q * s["se"])
        ratio = row["cpu_ratio"]
        row["equal_cpu"] = None if ratio is None else bool(EQUAL_CPU[0] <= ratio <= EQUAL_CPU[1])
        row["status"] = (ABSENT if c["cell"] in absent and not s["deals"] else
                         STOPPED if c["cell"] in stopped else
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


def _true(value) -> bool:
    """A table's boolean, from a :func:`cells_table` row or a CSV row (``"True"``)."""
    return value is True or value == "True"


def curve_rows(first: list[dict], *later: list[dict]) -> list[dict]:
    """The equal-CPU strength curve: one row (:data:`CURVE_COLUMNS`) per budget and
    passing mode declared by any sweep, by budget, no passing first, from the
    cells table of the first declaration (``first``) and those of the later ones
    (``later``, in the order of :data:`LATER`, fewer allowed; :func:`cells_table`
    rows or the rows of their CSV files).

    The rule is the one the later declarations give
    (``paper/preregistration_xinxin_recalibrated.md``,
    ``paper/preregistration_xinxin_third.md``): the cell of the latest
    declaration that declares one of that budget and passing mode (``sweep`` its
    :attr:`Later.key`, whatever its status; its ``equal_cpu`` says whether it
    ended inside :data:`EQUAL_CPU`); else the first sweep's cell when it is
    finished with its CPU ratio inside :data:`EQUAL_CPU` (``sweep`` ``first``);
    else no point (``sweep`` empty, ``status`` :data:`NO_CELL`): a first-sweep
    cell outside the band, or unfinished, is never part of the curve, nor is a
    cell a later declaration replaced."""
    if len(later) > len(LATER):
        raise ValueError(f"{len(later)} later cells tables, but only {len(LATER)} later "
                         f"declarations ({', '.join(d.key for d in LATER)})")

    def key(r):
        return int(r["budget_ms"]), _true(r["passing"])
    by_first = {key(r): r for r in first}
    by_later = [(d.key, {key(r): r for r in rows}) for d, rows in zip(LATER, later)]
    out = []
    for k in sorted(set(by_first).union(*(b for _, b in by_later))):
        r1 = by_first.get(k)
        src, sweep = next(((b[k], name) for name, b in reversed(by_later) if k in b),
                          (None, None))
        if src is None:
            if r1 is not None and r1["status"] == FINISHED and _true(r1["equal_cpu"]):
                src, sweep = r1, "first"
            else:
                src, sweep = {"status": NO_CELL, "cell": ""}, ""
        row = {c: src.get(c) for c in CURVE_COLUMNS}
        row.update(budget_ms=k[0], passing=k[1], sweep=sweep)
        out.append(row)
    return out
