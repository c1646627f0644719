"""Figure: seat bias and the Aardvark's success by player count (random play).

``python paper/figures/rules_stats.py [RESULTS_DIR]`` reads
``RESULTS_DIR/rules_stats/summary.csv`` and ``seats.csv`` (written by
``python -m experiments run rules_stats``; default ``results/quick``) and writes
``paper/figures/rules_stats.pdf`` and ``.png`` (:mod:`experiments._figures`).
Missing results: a warning, no figure, exit 0.

(a) spread of the mean points between the best and worst seat, with the
largest 95% half-width of a seat mean; (b) mean points by seat for the
balanced deck with 6 and 11 players, 95% intervals; (c) share of led Black
Marias cancelled by their twin, with a binomial 95% interval
(:func:`experiments._base.stats.proportion_half_width`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from experiments._figures import TEXT_WIDTH, Job, figure_main
from experiments._base.stats import proportion_half_width

STYLE = {"balanced": dict(color="tab:blue", marker="o"),
         "kitty": dict(color="tab:orange", marker="s")}


def draw(summary: pd.DataFrame, seats: pd.DataFrame):
    fig, axes = plt.subplots(1, 3, figsize=(TEXT_WIDTH, 3.6), layout="constrained")
    two = summary[summary.packs == 2]
    for deck, g in two.groupby("deck", sort=False):
        axes[0].errorbar(g.players, g.seat_spread, yerr=g.ci95_max, capsize=2, label=deck,
                         **STYLE.get(deck, {}))
        attempts = g.aardvark_attempts_per_hand * g.hands
        p = g.aardvark_success_rate
        axes[2].errorbar(g.players, p, yerr=proportion_half_width(p, attempts), capsize=2,
                         label=deck, **STYLE.get(deck, {}))
    three = summary[summary.packs == 3]
    if len(three):
        axes[0].errorbar(three.players, three.seat_spread, yerr=three.ci95_max, fmt="^",
                         color="tab:green", capsize=2, label="balanced, 3 packs")
        attempts = three.aardvark_attempts_per_hand * three.hands
        p = three.aardvark_success_rate
        axes[2].errorbar(three.players, p, yerr=proportion_half_width(p, attempts),
                         fmt="^", color="tab:green", capsize=2, label="balanced, 3 packs")
    axes[0].set(xlabel="players", ylabel="best - worst seat (points)", title="(a) seat spread")
    axes[2].set(xlabel="players", ylabel="success rate", title="(c) Aardvark success")
    for name, color in (("balanced 6", "#D55E00"), ("balanced 11", "#CC79A7")):
        g = seats[seats.configuration == name]
        if len(g):
            axes[1].errorbar(g.seat, g.mean_points - g.mean_points.mean(), yerr=g.ci95,
                             fmt="o", capsize=2, color=color, label=name)
    axes[1].axhline(0, color="k", lw=0.6)
    axes[1].set(xlabel="seat (0 = left of the dealer)", ylabel="mean points - table mean",
                title="(b) points by seat")
    for ax in axes:
        ax.grid(alpha=0.3)
    # Legends below the panels, off the data: (a) and (c) share theirs.
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), title="seats of")
    hands = int(summary.hands.iloc[0])
    fig.suptitle(f"Random play, {hands:,} hands per configuration")
    return fig


def draw_results(results: Path) -> dict:
    src = results / "rules_stats"
    return {"rules_stats": draw(pd.read_csv(src / "summary.csv"), pd.read_csv(src / "seats.csv"))}


JOBS = [Job(("rules_stats/summary.csv", "rules_stats/seats.csv"), draw_results)]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
