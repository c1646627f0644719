"""Figure: the CCE gap of CFR's empirical play next to NashConv, against iterations.

``python paper/figures/cce.py [RESULTS_DIR [OUT_DIR]]`` reads
``RESULTS_DIR/cce/rows.csv`` (``python -m experiments run cce``); default
``results/quick``. Writes ``cce.pdf`` and ``.png`` to OUT_DIR (default: next
to this script; :mod:`experiments._figures`). Missing results: a warning, no
figure, exit 0.

One row of panels per deal: (left) simultaneous updates, uniform empirical
play, one colour per solver: the CCE gap ``max_i gap_i`` (solid), its regret
bound (dashed) and NashConv of the average strategy (dotted); (right) the
CCE gap of every (solver, updates, weighting) run, and of CFR-Jr's sampled
plans (faint, with dots). CFR's lines are wider than CFR+'s, which are drawn
over them: where the two coincide, CFR's shows as a grey border. Log-log
axes; values below :data:`FLOOR` (a negative gap, a NashConv of 0) are drawn
at it.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from experiments._figures import TEXT_WIDTH, Job, figure_main

COLOURS = {"CFR": "tab:gray", "CFR+": "tab:blue", "LCFR": "tab:green", "DCFR": "tab:red",
           "PCFR+": "tab:purple"}
#: Line widths: CFR's lines wider, so that CFR+'s drawn over them leave them visible
#: where the two coincide (their uniform gaps do on some deals).
WIDTH = {"CFR": 3.2}
#: Line style of the right panels by (updates, weighting).
DASHES = {("simultaneous", "uniform"): "-", ("alternating", "uniform"): "--",
          ("simultaneous", "solver"): ":", ("alternating", "solver"): "-."}
#: Values below this (zero, or negative gaps) are drawn at it on the log axes.
FLOOR = 1e-7


def load(results: Path):
    """The rows of ``results/cce/rows.csv`` as a DataFrame."""
    import pandas as pd
    return pd.read_csv(results / "cce" / "rows.csv")


def _floor(xs):
    return [max(float(x), FLOOR) for x in xs]


def draw(results: Path) -> dict:
    """``{"cce": figure}`` from the rows of one run."""
    rows = load(results)
    deals = list(dict.fromkeys(rows.deal))
    fig, axes = plt.subplots(len(deals), 2, figsize=(TEXT_WIDTH, 1.95 * len(deals) + 1.2),
                             squeeze=False,
                             layout="constrained")
    for (left, right), deal in zip(axes, deals):
        d = rows[rows.deal == deal]
        head = f"{deal}: {int(d.players.iloc[0])} players, {int(d.histories.iloc[0]):,} histories"
        for (solver, updates, weighting, play), g in d.groupby(
                ["solver", "updates", "weighting", "play"], sort=False):
            g = g.sort_values("iteration")
            c = COLOURS.get(solver, "black")
            if play == "sampled":              # CFR-Jr
                right.plot(g.iteration, _floor(g.cce_gap), ".-", color=c, lw=1.0, ms=3,
                           alpha=0.5, label=f"{solver}-Jr (sampled plans)")
                continue
            if (updates, weighting) == ("simultaneous", "uniform"):
                left.plot(g.iteration, _floor(g.cce_gap), "-", color=c, lw=WIDTH.get(solver, 1.5),
                          label=f"{solver}: CCE gap")
                if g.regret_bound.notna().any():
                    left.plot(g.iteration, _floor(g.regret_bound), "--", color=c,
                              lw=WIDTH.get(solver, 1.5) * 0.6,
                              label=f"{solver}: regret bound")
                left.plot(g.iteration, _floor(g.nash_conv_avg), ":", color=c,
                          label=f"{solver}: NashConv(average)")
            right.plot(g.iteration, _floor(g.cce_gap), DASHES.get((updates, weighting), "-"),
                       color=c, lw=WIDTH.get(solver, 1.5),
                       label=f"{solver}, {updates}, {weighting}")
        left.set(title=f"{head}\nsimultaneous updates, uniform play", ylabel="points per hand")
        right.set(title=f"{head}\nCCE gap of the empirical play")
        for ax in (left, right):
            ax.set(xscale="log", yscale="log", xlabel="iterations")
            ax.grid(alpha=0.3, which="both", lw=0.4)
    # The legends go below the panels (left column's on the left, right column's
    # on the right): inside, they would cover the lines.
    for column in (0, 1):
        axes[-1][column].legend(*axes[0][column].get_legend_handles_labels(),
                                loc="upper center", bbox_to_anchor=(0.5, -0.3))
    return {"cce": fig}


JOBS = [Job(("cce/rows.csv",), draw)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
