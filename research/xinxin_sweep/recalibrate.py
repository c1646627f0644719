"""The recalibrated sweep's xinxin simulation counts, from match measurements.

``python research/xinxin_sweep/recalibrate.py`` prints, per recalibrated cell,
the two match measurements of xinxin's CPU ms per decision nearest the budget
(the first sweep's finished or interim cell, over all its saved deals, from
``cells.csv``; and the match-condition calibration, ``calibration_matches.json``
from ``calibrate.py --pairs``), the line through them, our CPU ms per decision
for that budget (the first sweep's cell at that budget, either passing mode)
and the simulation count S where the line meets it, rounded to two significant
digits: the rule of ``paper/preregistration_xinxin_recalibrated.md``.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: (cell of the recalibrated sweep, budget ms, variant)
CELLS = (("r2_b005_pass", 5, "pass"), ("r2_b080_pass", 80, "pass"),
         ("r2_b300_nopass", 300, "nopass"), ("r2_b300_pass", 300, "pass"),
         ("r2_b1000_nopass", 1000, "nopass"), ("r2_b1000_pass", 1000, "pass"))


def two_digits(x: float) -> int:
    e = 10 ** (int(math.floor(math.log10(x))) - 1)
    return int(round(x / e) * e)


def points(variant: str) -> list[tuple[float, float, str]]:
    """(simulations, xinxin CPU ms per decision, source) of every match measurement."""
    out = []
    for r in csv.DictReader(open(HERE / "cells.csv")):
        if r["cpu_ms_xinxin"] and (r["passing"] == "True") == (variant == "pass"):
            sims = int(r["xinxin"].split("simulations=")[1].split(",")[0])
            out.append((sims, float(r["cpu_ms_xinxin"]), f"{r['cell']} ({r['deals']} deals)"))
    cal = json.loads((HERE / "calibration_matches.json").read_text())
    for r in cal["rows"]:
        if r["variant"] == variant:
            out.append((r["simulations"], r["cpu_ms_xinxin"],
                        f"calibration ({cal['deals']} deals, seed {cal['seed']})"))
    return sorted(out)


def ours_ms(budget: int) -> float:
    rows = [r for r in csv.DictReader(open(HERE / "cells.csv"))
            if int(r["budget_ms"]) == budget and r["cpu_ms_ours"]]
    return sum(float(r["cpu_ms_ours"]) * int(r["deals"]) for r in rows) / \
        sum(int(r["deals"]) for r in rows)


def main() -> int:
    for cell, budget, variant in CELLS:
        target = ours_ms(budget)
        pts = points(variant)
        two = sorted(sorted(pts, key=lambda p: abs(p[1] - target))[:2])
        (s0, c0, a), (s1, c1, b) = two
        slope = (c1 - c0) / (s1 - s0)
        s = s0 + (target - c0) / slope
        print(f"{cell:16s} ours {target:7.1f} ms | {a}: {s0} sims {c0:.1f} ms; {b}: {s1} sims "
              f"{c1:.1f} ms | {slope * 1000:.2f} us/sim -> S = {s:,.0f} -> {two_digits(s):,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
