"""Write the xinxin comparison in the form the paper reads, for shipping.

``python research/scripts/xinxin_paper.py INTERIM_JSON OUT`` reads the cells
of ``research/scripts/xinxin_interim.py --json`` and writes
``OUT/xinxin/gains.csv`` (the columns of :data:`experiments._external.COLUMNS`:
our agent with its passing condition, xinxin's spec, players, deals, seatings,
our zero-sum payoff minus xinxin's with its 95% interval and p-value, and
both agents' mean thinking time per decision in ms) and
``OUT/xinxin/metadata.json`` (profile ``paper``, the commit, the machine, the
cells' runs and deal counts). Then ``python -m experiments ship --src OUT
--only xinxin`` adds it to ``paper/results/``.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments._external import COLUMNS, OPTIONAL  # noqa: E402
from spiel_game._provenance import git_commit, package_versions  # noqa: E402

PASSING = {"nopass": "no passing", "pass": "3-card pass"}
XINXIN = "xinxin(simulations=10000, worlds=30)"


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cells = json.loads(Path(args[0]).read_text())
    out = Path(args[1]) / "xinxin"
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, cell in cells.items():
        if cell is None:                # a cell with no finished deal yet
            continue
        g = cell["payoff_ours_minus_xinxin"]
        passing = "nopass" if "nopass" in name else "pass"
        rows.append({"agent": f"{cell['ours']}, {PASSING[passing]}",
                     "opponent": XINXIN, "players": 4, "deals": cell["deals"],
                     "seatings": 2, "gain": f"{g['mean']:.6f}", "gain_lo": f"{g['lo']:.6f}",
                     "gain_hi": f"{g['hi']:.6f}", "p_value": f"{g['p_value']:.6g}",
                     "ms_ours": f"{cell['ms_per_decision']['ours']:.1f}",
                     "ms_xinxin": f"{cell['ms_per_decision']['xinxin']:.1f}", "cell": name})
    with open(out / "gains.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[*COLUMNS, *OPTIONAL])
        w.writeheader()
        w.writerows(rows)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    meta = {"experiment": "xinxin", "profile": "paper", "git_commit": git_commit(),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "started": None,
            "finished": now, "rows": len(rows), "versions": package_versions(),
            "note": ("cells with fewer than 300 deals are interim; research/xinxin/"
                     if any(c and c["deals"] < 300 for c in cells.values())
                     else "every cell finished its 300 deals; research/xinxin/"),
            # the runs' own sessions: the code commits that computed the cells
            # (experiments._provenance counts them) and the units' computing time
            "seconds_this_session": sum(v.get("compute_s", 0.0) for v in cells.values() if v),
            "cells": {k: {"run": v["run"], "deals": v["deals"], "ours": v["ours"],
                          "sessions": [{"git_commit": c} for c in v.get("git_commits", [])]}
                      for k, v in cells.items() if v}}
    (out / "metadata.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out / 'gains.csv'} ({len(rows)} comparisons)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
