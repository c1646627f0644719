"""Figure: the strength ladder random < heuristic < pimc < ismcts (and, with the
paper profile, ISMCTS strength against iterations), from the ladder's tables
results/<profile>/ladder/steps.csv and sweep.csv (``python -m experiments run ladder
--profile P``).

``python paper/figures/ismcts_strength.py [results_dir [out_dir]]`` writes
paper/figures/ismcts_strength.{pdf,png} (:mod:`experiments.figures`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Job, figure_main


def draw(results: Path) -> dict:
    steps = pd.read_csv(results / "ladder" / "steps.csv").to_dict("records")
    sweep = pd.read_csv(results / "ladder" / "sweep.csv").to_dict("records")
    fig, axes = plt.subplots(1, 2 if sweep else 1, figsize=(10 if sweep else 6, 3.2),
                             squeeze=False)
    ax = axes[0][0]
    def short(spec):                      # "pimc(worlds=32, rollouts=1)" -> "pimc"
        return spec.split("(")[0]

    labels = [f"{short(s['lower'])}\n\u2192 {short(s['higher'])}\n{s['players']} pl., "
              f"{s['deals']}" for s in steps]
    m = np.array([s["gain"] for s in steps])
    lo = np.array([s["gain_lo"] for s in steps])
    hi = np.array([s["gain_hi"] for s in steps])
    x = np.arange(len(steps))
    ax.bar(x, m, yerr=[m - lo, hi - m], capsize=3,
           color=["tab:green" if s["holds"] else "tab:gray" for s in steps])
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, labels, fontsize=6)
    ax.set_ylabel("zero-sum gain of the stronger agent\n(points/hand, 95% CI)", fontsize=8)
    if sweep:
        ax2 = axes[0][1]
        its = [p["iterations"] for p in sweep]
        g = np.array([p["gain"] for p in sweep])
        glo = np.array([p["gain_lo"] for p in sweep])
        ghi = np.array([p["gain_hi"] for p in sweep])
        ax2.errorbar(its, g, yerr=[g - glo, ghi - g], marker="o", capsize=3)
        ax2.set_xscale("log")
        ax2.set_xlabel("ISMCTS iterations per move")
        ax2.set_ylabel(f"zero-sum gain over {short(sweep[0]['lower'])}\n"
                       "(points/hand, 95% CI)", fontsize=8)
    return {"ismcts_strength": fig}


JOBS = [Job(("ladder/steps.csv", "ladder/sweep.csv"), draw)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
