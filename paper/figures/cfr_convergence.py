"""Figure: NashConv of the CFR variants against iterations and against wall time.

``python paper/figures/cfr_convergence.py [RESULTS_DIR [OUT_DIR]]`` reads
``RESULTS_DIR/cfr_convergence.json`` (``python -m experiments.cfr_convergence``)
or, when absent, ``RESULTS_DIR/cfr_convergence/rows.csv`` (``python -m
experiments run cfr_convergence``); default ``results/quick``. Writes
``cfr_convergence.pdf`` and ``.png`` to OUT_DIR (default: next to this
script). Missing results: a warning, no figure, exit 0.

One row of panels per deal: (left) NashConv of the average strategy against
iterations, (right) against the solver's cumulative time; log-log axes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
STYLE = {"CFR": dict(color="tab:gray", ls="--"), "CFR+": dict(color="tab:blue"),
         "LCFR": dict(color="tab:green"), "DCFR": dict(color="tab:red"),
         "PCFR+": dict(color="tab:purple")}


def load(results: Path) -> dict | None:
    """``{deal: {"players", "histories", "runs": {solver: [row, ...]}}}`` or None."""
    path = results / "cfr_convergence.json"
    if path.exists():
        return json.loads(path.read_text())["result"]["deals"]
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
    fig, axes = plt.subplots(len(deals), 2, figsize=(8, 2.9 * len(deals)), squeeze=False)
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
            ax.title.set_fontsize(9)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    results = Path(argv[0]) if argv else Path("results/quick")
    out_dir = Path(argv[1]) if len(argv) > 1 else HERE
    deals = load(results)
    if not deals:
        print(f"warning: {results}/cfr_convergence.json (python -m experiments.cfr_convergence) "
              f"and {results}/cfr_convergence/rows.csv not found; no figure written")
        return 0
    fig = draw(deals)
    out_dir.mkdir(parents=True, exist_ok=True)
    for ext in ("pdf", "png"):
        out = out_dir / f"cfr_convergence.{ext}"
        fig.savefig(out, dpi=150, metadata={"CreationDate": None} if ext == "pdf" else None)
        print(f"wrote {out}")
    plt.close(fig)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
