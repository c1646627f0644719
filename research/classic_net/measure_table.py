"""Collect measure.sh's tournaments into ``measurements.csv`` (beside this file).

``python research/classic_net/measure_table.py [FOLDER [CSV]]`` (default
``runs/measure`` and ``measurements.csv`` beside this file; name another CSV for
another measurement so the first table is kept): one row per tournament: the
variant (``pass``/``nopass``), the match, the finished deals (each played in both
seatings), the zero-sum payoff difference a - b with its 95% interval and paired
p-value (> 0: a is better; the unit of the model zoo's strength entries), the
points-per-hand difference b - a (> 0: a takes fewer points) and each agent's
measured milliseconds per decision (wall clock, one worker, on a shared machine;
the searches themselves are limited by CPU time).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(folder: Path) -> list[dict]:
    out = []
    for run in sorted(folder.glob("*/tournament@*")):
        name = run.parent.name
        variant, _, match = name.partition("_")
        with (run / "pairs.csv").open() as fh:
            pair = next(csv.DictReader(fh))
        with (run / "agents.csv").open() as fh:
            agents = list(csv.DictReader(fh))
        def f(k: str, pair: dict = pair) -> float:
            return float(pair[k] or "nan")   # one deal: no interval
        out.append({
            "variant": variant, "match": match, "deals": agents[0]["deals"],
            "a": pair["a_spec"], "b": pair["b_spec"],
            "payoff_a_minus_b": round(f("payoff_difference"), 3),
            "payoff_lo": round(f("payoff_lo"), 3), "payoff_hi": round(f("payoff_hi"), 3),
            "p": f"{f('payoff_p_value'):.2g}",
            "points_b_minus_a": round(-f("points_difference"), 3),
            "points_lo": round(-f("points_hi"), 3), "points_hi": round(-f("points_lo"), 3),
            "ms_per_decision_a": round(float(agents[0]["ms_per_decision"]), 1),
            "ms_per_decision_b": round(float(agents[1]["ms_per_decision"]), 1)})
    return out


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "runs" / "measure"
    table = rows(folder)
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "measurements.csv"
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    for r in table:
        print(f"{r['variant']:<7} {r['match']:<22} {r['deals']:>4} deals  payoff a-b "
              f"{r['payoff_a_minus_b']:+.2f} [{r['payoff_lo']:+.2f}, {r['payoff_hi']:+.2f}] "
              f"p={r['p']}  points b-a {r['points_b_minus_a']:+.2f}  ms {r['ms_per_decision_a']}"
              f"/{r['ms_per_decision_b']}")
    print(out)


if __name__ == "__main__":
    main()
