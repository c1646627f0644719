"""The xinxin sweep's cells, from their saved units (also while the sweep runs).

``python research/xinxin_sweep/summarize.py [--out FILE]`` reads every saved
unit of every declared cell (``runs/<cell>/shards/unit-*.json``, each checked
against the runner's ``shards.sha256``) and writes ``cells.csv`` (default
``research/xinxin_sweep/cells.csv``), one row per declared cell:

* ``deals`` saved (of ``declared_deals``), ``finished``;
* ``mean``: the declared statistic, xinxin's mean points per hand minus ours
  (> 0: ours is better), over deals (each deal: each agent's mean over the
  seats it held in both seat assignments), its 95% Student-t interval ``lo``,
  ``hi`` and two-sided one-sample t-test ``p``;
* ``holm_p``: Holm's step-down adjustment over the ten declared cells (a cell
  with fewer than two deals counts with p = 1, as the declaration says for
  unfinished cells; final only when every cell is finished), and ``holm_lo``,
  ``holm_hi``: the t-interval at the level Holm's procedure gives the cell
  (``1 - 0.05 / (m - rank + 1)``, rank by p);
* ``cpu_ms_ours``, ``cpu_ms_xinxin``: CPU ms per decision (thread time, plus the
  xinxin driver's process time), ``cpu_ratio`` xinxin / ours, and the wall-clock
  ``wall_ms_ours``, ``wall_ms_xinxin``.

Cells without saved deals have empty statistics. Interim numbers are labelled by
their ``deals`` and ``finished`` columns.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
import scipy.stats

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from research.scripts.xinxin_interim import verified_shards  # noqa: E402
from research.xinxin_sweep.run import RUNS, declaration  # noqa: E402

COLUMNS = ("cell", "budget_ms", "passing", "deals", "declared_deals", "finished", "mean", "lo",
           "hi", "p", "holm_p", "holm_lo", "holm_hi", "cpu_ms_ours", "cpu_ms_xinxin",
           "cpu_ratio", "wall_ms_ours", "wall_ms_xinxin", "seed", "ours", "xinxin")


def verified_rows(cell_dir: Path) -> list[dict]:
    """The rows of the cell's saved units whose SHA-256 the runner recorded."""
    return [row for unit in verified_shards(cell_dir) for row in unit["rows"]]


def cell_stats(rows: list[dict]) -> dict:
    from experiments.tournament import deal_records, per_deal_agent_values
    recs = deal_records(rows)
    if not recs:
        return {"deals": 0}
    pts = np.array([per_deal_agent_values(r, 2)[0] for r in recs])
    d = pts[:, 1] - pts[:, 0]                   # xinxin minus ours, per deal
    n = len(d)
    out = {"deals": n, "mean": float(d.mean()), "d": d}
    if n >= 2:
        se = d.std(ddof=1) / np.sqrt(n)
        q = scipy.stats.t.ppf(0.975, n - 1)
        out.update(lo=out["mean"] - q * se, hi=out["mean"] + q * se, se=se,
                   p=float(scipy.stats.ttest_1samp(d, 0.0).pvalue))
    secs = np.sum([r["timing"]["seconds"] for r in recs], axis=0)
    decs = np.sum([r["timing"]["decisions"] for r in recs], axis=0)
    out.update(wall_ms_ours=1e3 * secs[0] / decs[0], wall_ms_xinxin=1e3 * secs[1] / decs[1])
    if all("cpu_seconds" in r["timing"] for r in recs):
        cpu = np.sum([r["timing"]["cpu_seconds"] for r in recs], axis=0)
        out.update(cpu_ms_ours=1e3 * cpu[0] / decs[0], cpu_ms_xinxin=1e3 * cpu[1] / decs[1],
                   cpu_ratio=cpu[1] / decs[1] / (cpu[0] / decs[0]))
    return out


def holm(pvalues: dict[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """Holm's adjusted p-values and each hypothesis's step-down level alpha/(m-rank+1)."""
    order = sorted(pvalues, key=pvalues.get)
    m = len(order)
    adj, level, running = {}, {}, 0.0
    for rank, name in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[name]))
        adj[name] = running
        level[name] = 0.05 / (m - rank)
    return adj, level


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(RUNS.parent / "cells.csv"))
    args = ap.parse_args(argv)
    decl = declaration()
    stats = {c["cell"]: cell_stats(verified_rows(RUNS / c["cell"])) for c in decl["cells"]}
    adj, level = holm({k: s.get("p", 1.0) for k, s in stats.items()})
    table = []
    for c in decl["cells"]:
        s = stats[c["cell"]]
        row = {"cell": c["cell"], "budget_ms": c["budget_ms"], "passing": c["game"] == "pass",
               "deals": s["deals"], "declared_deals": c["deals"],
               "finished": s["deals"] >= c["deals"], "seed": c["seed"], "ours": c["ours"],
               "xinxin": c["xinxin"]}
        for k in ("mean", "lo", "hi", "p", "cpu_ms_ours", "cpu_ms_xinxin", "cpu_ratio",
                  "wall_ms_ours", "wall_ms_xinxin"):
            row[k] = s.get(k)
        if "p" in s:
            q = scipy.stats.t.ppf(1 - level[c["cell"]] / 2, s["deals"] - 1)
            row.update(holm_p=adj[c["cell"]], holm_lo=s["mean"] - q * s["se"],
                       holm_hi=s["mean"] + q * s["se"])
        table.append(row)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for row in table:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in row.items()})
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
