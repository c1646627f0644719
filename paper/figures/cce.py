"""Figure: the CCE gap of CFR's empirical play next to NashConv, against iterations.

``python -m experiments.cce_figure [RESULTS_DIR [OUT_DIR]]`` reads
``RESULTS_DIR/cce/rows.csv`` (``python -m experiments run cce``); default
``results/quick``. Writes ``cce.pdf`` and ``.png`` to OUT_DIR (default
``results/figures``, :data:`DEFAULT_OUT`) through
:func:`experiments.figures.figure_main`. Missing results: a warning, no
figure, exit 0. It lives outside ``paper/figures/`` on purpose: the study is
not part of ``make reproduce`` or the paper (moving this file there, with the
study's ``reproduce=True``, would add both).

One row of panels per deal: (left) simultaneous updates, uniform empirical
play: NashConv of the average strategy (dashed), of the current iterate
(dotted), the CCE gap ``max_i gap_i`` (solid) and its regret bound
(dash-dot), one colour per solver; (right) the CCE gap of every
(solver, updates, weighting) run, and of CFR-Jr's sampled plans (thick,
faint). Log-log axes; values below :data:`FLOOR` (a current iterate with
NashConv 0, a negative gap) are drawn at it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt

from experiments.figures import DEFAULT_RESULTS, Job, figure_main

#: Where the figure goes when no OUT_DIR is given.
DEFAULT_OUT = Path("results/figures")
COLOURS = {"CFR": "tab:gray", "CFR+": "tab:blue", "LCFR": "tab:green", "DCFR": "tab:red",
           "PCFR+": "tab:purple"}
DASHES = {("simultaneous", "uniform"): "-", ("alternating", "uniform"): "--",
          ("simultaneous", "solver"): ":", ("alternating", "solver"): "-."}


def load(results: Path):
    """The rows of ``results/cce/rows.csv`` as a DataFrame."""
    import pandas as pd
    return pd.read_csv(results / "cce" / "rows.csv")


#: Values below this (zero, or negative gaps) are drawn at it on the log axes.
FLOOR = 1e-7


def _floor(xs):
    return [max(float(x), FLOOR) for x in xs]


def draw(results: Path) -> dict:
    rows = load(results)
    deals = list(dict.fromkeys(rows.deal))
    fig, axes = plt.subplots(len(deals), 2, figsize=(9, 3.0 * len(deals)), squeeze=False)
    for (left, right), deal in zip(axes, deals):
        d = rows[rows.deal == deal]
        head = f"{deal}: {int(d.players.iloc[0])} players, {int(d.histories.iloc[0]):,} histories"
        if "play" not in d:
            d = d.assign(play="iterate")
        for (solver, updates, weighting, play), g in d.groupby(
                ["solver", "updates", "weighting", "play"], sort=False):
            g = g.sort_values("iteration")
            c = COLOURS.get(solver, "black")
            if play == "sampled":              # CFR-Jr
                right.plot(g.iteration, _floor(g.cce_gap), "-", color=c, lw=2.2, alpha=0.35,
                           label=f"{solver}-Jr (sampled plans)")
                continue
            if (updates, weighting) == ("simultaneous", "uniform"):
                left.plot(g.iteration, _floor(g.nash_conv_avg), "--", color=c,
                          label=f"{solver}: NashConv(average)")
                left.plot(g.iteration, _floor(g.nash_conv_current), ":", color=c, lw=0.9,
                          label=f"{solver}: NashConv(current)")
                left.plot(g.iteration, _floor(g.cce_gap), "-", color=c,
                          label=f"{solver}: CCE gap")
                if g.regret_bound.notna().any():
                    left.plot(g.iteration, _floor(g.regret_bound), "-.", color=c, lw=0.8,
                              label=f"{solver}: regret bound")
            right.plot(g.iteration, _floor(g.cce_gap), DASHES.get((updates, weighting), "-"),
                       color=c, label=f"{solver}, {updates}, {weighting}")
        left.set(title=f"{head}\nsimultaneous updates, uniform play", ylabel="gap")
        right.set(title=f"{head}\nCCE gap of the empirical play")
        for ax in (left, right):
            ax.set(xscale="log", yscale="log", xlabel="iterations")
            ax.grid(alpha=0.3, which="both", lw=0.4)
            ax.title.set_fontsize(8)
    axes[0][0].legend(fontsize=6)
    axes[0][1].legend(fontsize=6)
    fig.tight_layout()
    return {"cce": fig}


JOBS = [Job(("cce/rows.csv",), draw)]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) < 2:
        argv = [argv[0] if argv else str(DEFAULT_RESULTS), str(DEFAULT_OUT)]
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
