"""Interim results of the xinxin cells from their finished runner shards.

``python research/scripts/xinxin_interim.py [RUNS] [--json FILE]`` (RUNS defaults to
``research/xinxin/runs``) reads every finished unit of every cell (the
runner's ``shards/unit-*.json``, each checked against ``shards.sha256``),
also while a run is still going or after it was stopped, and prints per cell:
the deals finished, our agent's mean zero-sum payoff per hand minus
xinxin's (a paired difference over deals, 95% Student-t interval, p-value)
and the same for points per hand, and both agents' mean thinking time per
decision. The statistics are those of ``experiments.tournament`` (per deal:
each agent's mean over the seats it held in both seat assignments; the
zero-sum payoff of a seat is the mean of the other seats' points minus its
own). A finished cell also has the runner's own summary (``summary.txt``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import scipy.stats

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments._base.stats import mean_ci  # noqa: E402

#: The declared cells: the heuristic, ISMCTS at the time set before the runs
#: (``ismcts_*``), and ISMCTS at xinxin's time on the idle machine (``eq_*``;
#: ``eq_pass48`` reset the time of ``eq_pass`` from its measured times).
CELLS = ("heuristic_nopass", "heuristic_pass", "ismcts_nopass", "ismcts_pass", "eq_nopass",
         "eq_pass", "eq_pass48")


def verified_shards(run_dir: Path) -> list[dict]:
    """The saved units of a tournament folder whose SHA-256 the runner recorded in
    ``shards.sha256`` (the others are named on stderr and skipped)."""
    journal = run_dir / "shards.sha256"
    known = {}
    if journal.exists():
        for line in journal.read_text().splitlines():
            parts = line.split("  ")
            if len(parts) == 2:
                known[parts[1]] = parts[0]
    out = []
    for path in sorted((run_dir / "shards").glob("unit-*.json")):
        data = path.read_bytes()
        rel = f"shards/{path.name}"
        if known.get(rel) != hashlib.sha256(data).hexdigest():
            print(f"  skipping {path}: not in shards.sha256 or its hash differs", file=sys.stderr)
            continue
        out.append(json.loads(data))
    return out


def cell_stats(run_dir: Path) -> dict | None:
    """Per-deal statistics of one cell's run folder (``.../tournament@<hex>``)."""
    shards = verified_shards(run_dir)
    seats = defaultdict(list)                  # (deal, assignment) -> [(seat, agent, points)]
    secs, decs, specs = np.zeros(2), np.zeros(2), {}
    compute = sum(float(shard.get("elapsed_s", 0.0)) for shard in shards)
    for shard in shards:
        for r in shard["rows"]:
            if r["kind"] == "seat":
                seats[(r["deal"], r["assignment"])].append(
                    (r["seat"], r["agent"], r["points"]))
                specs[r["agent"]] = r["spec"]
            elif r["kind"] == "agent":
                secs[r["agent"]] += r["seconds"]
                decs[r["agent"]] += r["decisions"]
    deals = sorted({d for d, _ in seats})
    if not deals:
        return None
    pts = np.zeros((len(deals), 2))
    pay = np.zeros((len(deals), 2))
    for i, d in enumerate(deals):
        cnt = np.zeros(2)
        for (dd, _a), rows in seats.items():
            if dd != d:
                continue
            rows = sorted(rows)
            p = np.array([x[2] for x in rows], np.float64)
            payoff = (p.sum() - p) / (len(p) - 1) - p
            for (_seat, agent, _), pq, yq in zip(rows, p, payoff):
                pts[i, agent] += pq
                pay[i, agent] += yq
                cnt[agent] += 1
        pts[i] /= cnt
        pay[i] /= cnt

    def paired(x):
        out = mean_ci(x)
        out["p_value"] = float(scipy.stats.ttest_1samp(x, 0.0).pvalue) if len(x) > 1 else None
        return out

    return {"run": str(run_dir), "deals": len(deals), "ours": specs.get(0),
            "opponent": specs.get(1),
            "payoff_ours_minus_xinxin": paired(pay[:, 0] - pay[:, 1]),
            "points_ours_minus_xinxin": paired(pts[:, 0] - pts[:, 1]),
            "points_per_hand": {"ours": mean_ci(pts[:, 0]), "xinxin": mean_ci(pts[:, 1])},
            "ms_per_decision": {"ours": 1e3 * secs[0] / max(decs[0], 1),
                                "xinxin": 1e3 * secs[1] / max(decs[1], 1)},
            "compute_s": compute, "git_commits": _session_commits(run_dir),
            "finished": (run_dir / "summary.txt").exists()}


def _session_commits(run_dir: Path) -> list[str]:
    """The commits of the code of every session of a run (its ``run.json``)."""
    try:
        sessions = json.loads((run_dir / "run.json").read_text()).get("sessions", [])
    except (OSError, ValueError):
        return []
    return sorted({s.get("git_commit") or "unknown" for s in sessions})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="?", default=str(ROOT / "research" / "xinxin" / "runs"))
    ap.add_argument("--json", help="also write the statistics to this file")
    args = ap.parse_args(argv)
    results = {}
    for cell in CELLS:
        dirs = sorted(Path(args.runs, cell).glob("tournament@*"))
        stats = cell_stats(dirs[-1]) if dirs else None
        results[cell] = stats
        if stats is None:
            print(f"{cell:17s} no finished deals")
            continue
        d, q = stats["payoff_ours_minus_xinxin"], stats["points_ours_minus_xinxin"]
        ms = stats["ms_per_decision"]
        print(f"{cell:17s} {stats['deals']:3d} deals  payoff ours-xinxin {d['mean']:+.2f} "
              f"[{d['lo']:+.2f}, {d['hi']:+.2f}] p={d['p_value']:.3g}  points ours-xinxin "
              f"{q['mean']:+.2f} [{q['lo']:+.2f}, {q['hi']:+.2f}]  ms/decision ours "
              f"{ms['ours']:.0f} xinxin {ms['xinxin']:.0f}"
              f"{'  (finished)' if stats['finished'] else ''}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
