"""The xinxin sweep's cells, from their saved units (also while the sweep runs).

``python research/xinxin_sweep/summarize.py [--out FILE]`` reads every saved
unit of every declared cell (``runs/<cell>/shards/unit-*.json``, each checked
against the runner's ``shards.sha256``) and writes ``cells.csv`` (default
``research/xinxin_sweep/cells.csv``; with ``--declaration FILE`` another
sweep's cells into ``cells-<FILE stem>.csv``), one row per declared cell:

* ``deals`` saved (of ``declared_deals``), ``finished``;
* ``mean``: the declared statistic, xinxin's mean points per hand minus ours
  (> 0: ours is better), over deals (each deal: each agent's mean over the
  seats it held in both seat assignments), its 95% Student-t interval ``lo``,
  ``hi`` and two-sided one-sample t-test ``p``;
* ``holm_p``: Holm's step-down adjustment over the declaration's cells (a cell
  with fewer than two deals counts with p = 1, as the declaration says for
  unfinished cells; final only when every cell is finished; for the first
  declaration the four cells the second declaration stopped,
  ``STOPPED_CELLS``, count with p = 1 and get ``holm_p`` 1 and no Holm
  interval), and ``holm_lo``,
  ``holm_hi``: the t-interval at the level Holm's procedure gives the cell
  (``1 - 0.05 / (m - rank + 1)``, rank by p);
* ``cpu_ms_ours``, ``cpu_ms_xinxin``: CPU ms per decision (thread time, plus the
  xinxin driver's process time), ``cpu_ratio`` xinxin / ours, and the wall-clock
  ``wall_ms_ours``, ``wall_ms_xinxin``.

Cells without saved deals have empty statistics. Interim numbers are labelled by
their ``deals`` and ``finished`` columns.

The statistics are those of the study ``experiments/studies/xinxin_sweep.py``
(:func:`cell_stats`, :func:`holm`, :func:`cells_table`), which also writes the
shipped copy for the paper from the same saved units: ``python -m
experiments.studies.xinxin_sweep --ship research/xinxin_sweep`` (refreshes
``paper/results/xinxin_sweep/``: this table plus ``equal_cpu`` and ``status``).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from research.scripts.xinxin_interim import verified_shards  # noqa: E402
from research.xinxin_sweep.run import DECLARATION, RUNS, declaration  # noqa: E402
# the statistics are the study's (one implementation for this table, the shipped
# results and the paper): experiments/studies/xinxin_sweep.py
from experiments.studies.xinxin_sweep import (COLUMNS, cell_stats, cells_table,  # noqa: E402,F401
                                              holm)
from experiments.studies.xinxin_sweep import RECALIBRATED, STOPPED_CELLS  # noqa: E402


def verified_rows(cell_dir: Path) -> list[dict]:
    """The rows of the cell's saved units whose SHA-256 the runner recorded."""
    return [row for unit in verified_shards(cell_dir) for row in unit["rows"]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--declaration", type=Path, default=DECLARATION,
                    help="the preregistration file (default: the first sweep's)")
    ap.add_argument("--out", default=None,
                    help="default: cells.csv, or cells-<declaration stem>.csv for another "
                         "declaration")
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = str(RUNS.parent / ("cells.csv" if args.declaration.resolve()
                                      == DECLARATION.resolve()
                                      else f"cells-{args.declaration.stem}.csv"))
    decl = declaration(args.declaration)
    stats = {c["cell"]: cell_stats(verified_rows(RUNS / c["cell"])) for c in decl["cells"]}
    first = args.declaration.resolve() == DECLARATION.resolve()
    stopped = STOPPED_CELLS if first and RECALIBRATED.is_file() else ()
    table = cells_table(decl["cells"], stats, stopped=stopped)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for row in table:
            w.writerow({k: (f"{row[k]:.4g}" if isinstance(row[k], float) else row[k])
                        for k in COLUMNS})
    for row in table:
        if row["mean"] is None:
            print(f"{row['cell']:14s}   0/{row['declared_deals']} deals")
            continue
        ci = (f"[{row['lo']:+.2f}, {row['hi']:+.2f}] p={row['p']:.3g} Holm p="
              f"{row['holm_p']:.3g}" if row["lo"] is not None else "")
        cpu = (f" CPU ms ours {row['cpu_ms_ours']:.1f} xinxin {row['cpu_ms_xinxin']:.1f}"
               if row["cpu_ms_ours"] is not None else "")
        print(f"{row['cell']:14s} {row['deals']:4d}/{row['declared_deals']} deals  xinxin - "
              f"ours {row['mean']:+.2f} {ci}{cpu}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
