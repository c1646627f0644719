"""Figure: the strength ladder random < heuristic < pimc < ismcts (and, with the
paper profile, ISMCTS strength against iterations), from the ladder's tables
results/<profile>/ladder/steps.csv and sweep.csv (``python -m experiments run ladder
--profile P``).

``python paper/figures/ismcts_strength.py [results_dir [out_dir]]`` writes
paper/figures/ismcts_strength.{pdf,png} (:mod:`experiments._figures`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments._figures import COLORS, TEXT_WIDTH, Job, figure_main


#: Short agent names for the bar labels.
SHORT = {"random": "random", "heuristic": "heur.", "pimc": "PIMC", "ismcts": "ISMCTS"}


def draw(results: Path) -> dict:
    steps = pd.read_csv(results / "ladder" / "steps.csv").to_dict("records")
    sweep = pd.read_csv(results / "ladder" / "sweep.csv").to_dict("records")
    fig, axes = plt.subplots(1, 2 if sweep else 1, figsize=(TEXT_WIDTH, 2.5), squeeze=False,
                             layout="constrained",
                             gridspec_kw={"width_ratios": [3, 2]} if sweep else None)
    ax = axes[0][0]

    def short(spec):                      # "pimc(worlds=32, rollouts=1)" -> "PIMC"
        name = spec.split("(")[0]
        return SHORT.get(name, name)

    counts = sorted({int(s["players"]) for s in steps})
    colour = {n: COLORS[i % len(COLORS)] for i, n in enumerate(counts)}
    labels = [f"{short(s['lower'])}\n\u2192{short(s['higher'])}\n{s['deals']}" for s in steps]
    m = np.array([s["gain"] for s in steps])
    lo = np.array([s["gain_lo"] for s in steps])
    hi = np.array([s["gain_hi"] for s in steps])
    x = np.arange(len(steps))
    holds = [str(s["holds"]) == "True" for s in steps]
    ax.bar(x, m, yerr=[m - lo, hi - m], capsize=2,
           color=[colour[int(s["players"])] for s in steps],
           hatch=["" if h else "///" for h in holds], edgecolor="k", linewidth=0.4)
    for n in counts:
        ax.bar([np.nan], [np.nan], color=colour[n], label=f"{n} players")
    if not all(holds):
        ax.bar([np.nan], [np.nan], color="w", hatch="///", edgecolor="k", label="not significant")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3)  # off the bars
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, labels)
    ax.set_ylabel("gain of the stronger agent\n(points/hand, 95% CI)")
    if sweep:
        ax2 = axes[0][1]
        its = [p["iterations"] for p in sweep]
        g = np.array([p["gain"] for p in sweep])
        glo = np.array([p["gain_lo"] for p in sweep])
        ghi = np.array([p["gain_hi"] for p in sweep])
        ax2.errorbar(its, g, yerr=[g - glo, ghi - g], marker="o", capsize=2, color=COLORS[2])
        ax2.axhline(0, color="k", lw=0.6)
        ax2.set_xscale("log")
        ax2.set_xlabel("ISMCTS iterations per move")
        ax2.set_ylabel(f"gain over {short(sweep[0]['lower'])}\n(points/hand, 95% CI)")
    return {"ismcts_strength": fig}


JOBS = [Job(("ladder/steps.csv", "ladder/sweep.csv"), draw)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
