"""Figure: NashConv of the CFR variants against iterations and against wall time.

``python paper/figures/cfr_convergence.py [RESULTS_DIR [OUT_DIR]]`` reads
``RESULTS_DIR/cfr_convergence/rows.csv`` (``python -m experiments run
cfr_convergence``); default ``results/quick``. Writes
``cfr_convergence.pdf`` and ``.png`` to OUT_DIR (default: next to this
script; :mod:`experiments._figures`). Missing results: a warning, no figure,
exit 0.

One row of panels per deal: (left) NashConv of the average strategy against
iterations, (right) against the solver's cumulative time; log-log axes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from experiments._figures import TEXT_WIDTH, Job, figure_main, legend_outside

STYLE = {"CFR": dict(color="tab:gray", ls="--"), "CFR+": dict(color="tab:blue"),
         "LCFR": dict(color="tab:green"), "DCFR": dict(color="tab:red"),
         "PCFR+": dict(color="tab:purple")}


def load(results: Path) -> dict | None:
    """``{deal: {"players", "histories", "runs": {solver: [row, ...]}}}`` or None."""
    csv = results / "cfr_convergence" / "rows.csv"
    if not csv.exists():
        return None
    import pandas as pd
    deals = {}
    for (deal, solver), g in pd.read_csv(csv).groupby(["deal", "solver"], sort=False):
        entry = deals.setdefault(deal, {"players": int(g.players.iloc[0]),
                                        "histories": int(g.histories.iloc[0]), "runs": {}})
        entry["runs"][solver] = g.sort_values("iteration")[
            ["iteration", "nash_conv", "seconds"]].to_dict("records")
    return deals


def draw(deals: dict):
    fig, axes = plt.subplots(len(deals), 2, figsize=(TEXT_WIDTH, 2.9 * len(deals)), squeeze=False,
                             layout="constrained")
    for row, (deal, entry) in zip(axes, deals.items()):
        for solver, runs in entry["runs"].items():
            its = [r["iteration"] for r in runs]
            secs = [r["seconds"] for r in runs]
            nc = [max(r["nash_conv"], 1e-16) for r in runs]
            row[0].plot(its, nc, label=solver, **STYLE.get(solver, {}))
            row[1].plot(secs, nc, label=solver, **STYLE.get(solver, {}))
        title = f"{deal}: {entry['players']} players, {entry['histories']:,} histories"
        row[0].set(xscale="log", yscale="log", xlabel="iterations", ylabel="NashConv",
                   title=title)
        row[1].set(xscale="log", yscale="log", xlabel="solver time (s)", ylabel="NashConv",
                   title=title)
        for ax in row:
            ax.grid(alpha=0.3, which="both", lw=0.4)
    legend_outside(fig, axes.ravel())              # below the panels: off the data
    return fig


JOBS = [Job(("cfr_convergence/rows.csv",),
            lambda results: {"cfr_convergence": draw(load(results))})]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
