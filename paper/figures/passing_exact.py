"""Figure: exact exploitability of passing conventions on reduced deals
(reads results/<profile>/passing_exact/rows.csv from the runner).

``python paper/figures/passing_exact.py [results_dir [out_dir]]`` writes
paper/figures/passing_exact.{pdf,png} (:mod:`experiments._figures`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments._figures import COLORS, TEXT_WIDTH, Job, figure_main, legend_outside


def draw(results: Path) -> dict:
    """One panel per reduced deal: each convention's exact exploitability as a
    point on a stem (a zero stays visible), deviating in passing and play; a
    hollow marker shows passing only where it differs visibly (by more than
    1% of the panel's range), since the two usually coincide."""
    rows = pd.read_csv(results / "passing_exact" / "rows.csv")
    conv = rows[rows.kind == "convention"]
    deals = list(dict.fromkeys(conv.deal))
    fig, axes = plt.subplots(1, len(deals), figsize=(TEXT_WIDTH, 2.6), squeeze=False,
                             layout="constrained")
    for ax, deal in zip(axes[0], deals):
        d = conv[conv.deal == deal]
        x = np.arange(len(d))
        both = d.gain_pass_play.to_numpy(float)
        only = d.gain_pass_only.to_numpy(float)
        ax.vlines(x, 0, both, color=COLORS[0], lw=1.5)
        ax.plot(x, both, "o", color=COLORS[0], label="best response in passing and play")
        span = max(float(np.nanmax(np.abs(both))), 1e-12)
        differ = np.abs(both - only) > 0.01 * span
        if differ.any():
            ax.plot(x[differ], only[differ], "s", mfc="none", color=COLORS[1],
                    label="in passing only")
        ax.set_xticks(x, d.convention, rotation=45, ha="right")
        ax.set_title(f"{deal} ({int(d.players.iloc[0])} players)")
        ax.set_ylabel("exact gain (points/hand)")
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xlim(-0.6, len(d) - 0.4)
    legend_outside(fig, axes[0], ncols=2)          # below the panels: off the data
    return {"passing_exact": fig}


JOBS = [Job(("passing_exact/rows.csv",), draw)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
