"""Figure: exact exploitability of passing conventions on reduced deals
(reads results/<profile>/passing_exact/rows.csv from the runner).

``python paper/figures/passing_exact.py [results_dir [out_dir]]`` writes
paper/figures/passing_exact.{pdf,png} (:mod:`experiments.figures`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Job, figure_main


def draw(results: Path) -> dict:
    rows = pd.read_csv(results / "passing_exact" / "rows.csv")
    conv = rows[rows.kind == "convention"]
    deals = list(dict.fromkeys(conv.deal))
    fig, axes = plt.subplots(1, len(deals), figsize=(4.5 * len(deals), 3.2), squeeze=False)
    for ax, deal in zip(axes[0], deals):
        d = conv[conv.deal == deal]
        x = np.arange(len(d))
        ax.bar(x - 0.2, d.gain_pass_only, 0.4, label="best response in passing")
        ax.bar(x + 0.2, d.gain_pass_play, 0.4, label="in passing and play")
        ax.set_xticks(x, d.convention, rotation=45, ha="right", fontsize=7)
        ax.set_title(f"{deal} ({int(d.players.iloc[0])} players)", fontsize=9)
        ax.set_ylabel("exact gain (points/hand)")
        ax.axhline(0, color="k", lw=0.6)
    axes[0][0].legend(fontsize=7)
    return {"passing_exact": fig}


JOBS = [Job(("passing_exact/rows.csv",), draw)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
