"""Figures: exploitability of passing conventions, the meta-game heat map and
alpha-Rank masses, for 6 and for 11 players.

``python paper/figures/passing_conventions.py [results_dir [out_dir]]`` reads
the runner's ``results_dir/passing_metagame/`` and writes
paper/figures/passing_exploitability.{pdf,png} and passing_metagame.{pdf,png};
from ``passing_metagame_11/`` it writes passing_exploitability_11 and
passing_metagame_11 (:mod:`experiments._figures`). A missing result gives a
warning and no figure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from experiments._figures import TEXT_WIDTH, Job, figure_main, legend_outside


def _from_rows(folder: Path) -> tuple[dict, dict]:
    """The runner's tidy rows (results/<profile>/passing_metagame/rows.csv) as
    one dictionary (conventions, gains with intervals, one-vs-population
    matrix, alpha-Rank and Nash masses) and the run's metadata."""
    import pandas as pd
    rows = pd.read_csv(folder / "rows.csv", low_memory=False)
    meta = json.loads((folder / "metadata.json").read_text())
    conv_rows = rows[rows.kind == "convention"]
    conv = list(conv_rows.convention)
    br = rows[rows.kind == "rollout_br"].set_index("convention")
    ovp = rows[rows.kind == "one_vs_population"]
    res = {
        "conventions": conv,
        "players": meta["config"]["players"],
        "play": meta["config"]["play"],
        "library_best_response_gain": {
            r.convention: {"mean": r.library_gain, "ci95": [r.library_lo, r.library_hi]}
            for r in conv_rows.itertuples()},
        "rollout_best_response_gain": {
            c: {"mean": br.loc[c, "mean"], "ci95": [br.loc[c, "lo"], br.loc[c, "hi"]]}
            for c in conv},
        "one_vs_population": [[float(ovp[(ovp.convention == a) & (ovp.others == b)].payoff.iloc[0])
                               for b in conv] for a in conv],
        "alpharank": {"masses": dict(zip(conv, conv_rows.alpharank)),
                      "ci95": {r.convention: [r.alpharank_lo, r.alpharank_hi]
                               for r in conv_rows.itertuples()}},
        "replicator_nash": {"mixture": dict(zip(conv, conv_rows.nash)),
                            "ci95": {r.convention: [r.nash_lo, r.nash_hi]
                                     for r in conv_rows.itertuples()}},
    }
    return res, meta


def _design(res: dict, meta: dict) -> str:
    """'P profiles x n rotations x D deals' of the meta-game."""
    k, n, d = len(res["conventions"]), res["players"], meta["config"]["deals"]
    profiles = math.comb(n + k - 1, k - 1)
    return f"{profiles:,} profiles x {n} rotations x {d:,} duplicate deals"


def _interval(ax, x, lo, hi, capsize=3) -> None:
    """Draw the intervals [lo, hi] as they are (a percentile bootstrap interval
    of a maximum need not contain the estimate, so not as +- around the bar)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    ax.errorbar(x, (lo + hi) / 2, yerr=(hi - lo) / 2, fmt="none", ecolor="k", elinewidth=1,
                capsize=capsize)


def figures(res: dict, meta: dict, suffix: str) -> dict:
    """passing_exploitability<suffix> and passing_metagame<suffix>."""
    conv = res["conventions"]
    x = np.arange(len(conv))

    fig, ax = plt.subplots(figsize=(TEXT_WIDTH, 2.6), layout="constrained")
    for off, key, label in ((-0.2, "library_best_response_gain", "best convention in the library"),
                            (0.2, "rollout_best_response_gain", "rollout best-response passer")):
        m = np.array([res[key][c]["mean"] for c in conv])
        lo = np.array([res[key][c]["ci95"][0] for c in conv])
        hi = np.array([res[key][c]["ci95"][1] for c in conv])
        ax.bar(x + off, m, 0.4, label=label)
        ax.plot(x + off, m, "_", color="k", ms=8)     # the mean, visible when it is zero
        _interval(ax, x + off, lo, hi)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, conv, rotation=20)
    ax.set_ylabel("gain of one deviator\n(points/hand)")
    br_deals = meta["config"].get("br_deals", "?")
    ax.set_title(f"{res['players']} players, {res['play']} play; {_design(res, meta)}; "
                 f"rollout passer on {br_deals} deals")
    legend_outside(fig, [ax], ncols=2)                  # below the axes: off the data
    out = {f"passing_exploitability{suffix}": fig}

    # The masses of the equilibrium and alpha-Rank are in the paper's table (they
    # can sit on one convention, a panel of one bar); the figure shows the payoffs.
    a = np.array(res["one_vs_population"])
    fig, ax1 = plt.subplots(figsize=(TEXT_WIDTH * 0.62, 3.0), layout="constrained")
    im = ax1.imshow(a, cmap="viridis")
    ax1.set_xticks(x, conv, rotation=45, ha="right")
    ax1.set_yticks(x, conv)
    ax1.set_xlabel("the other seats' convention")
    ax1.set_ylabel("one seat's convention")
    fig.colorbar(im, ax=ax1, label="payoff (minus points)")
    ax1.set_title(f"{res['players']} players")
    out[f"passing_metagame{suffix}"] = fig
    return out


def _job(name: str, suffix: str) -> Job:
    return Job((f"{name}/rows.csv", f"{name}/metadata.json"),
               lambda results: figures(*_from_rows(results / name), suffix))


JOBS = [_job("passing_metagame", ""), _job("passing_metagame_11", "_11")]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
