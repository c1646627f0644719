"""Figure: the strength curve against xinxin at equal CPU time per decision, from
the pre-registered sweeps (``paper/preregistration_xinxin.md``, the
recalibrated ``paper/preregistration_xinxin_recalibrated.md`` and
``paper/preregistration_xinxin_third.md``), read from
results/<profile>/xinxin_sweep/ (the shipped paper/results/xinxin_sweep/:
``cells.csv``, ``recalibrated.csv``, ``third.csv``, ``curve.csv``, made from the sweeps'
saved units by ``python -m experiments.studies.xinxin_sweep --ship``; a run of
the study, ``python -m experiments run xinxin_sweep``, has only ``cells.csv``,
and its curve is the rule of :func:`experiments.studies.xinxin_sweep.curve_rows`
applied to it).

x: the declared CPU budget per decision (log scale); y: xinxin's points per
hand minus ours (> 0: ours ahead) with its 95% interval; one line per passing
mode through the curve's cells (:func:`~experiments.studies.xinxin_sweep.curve_rows`:
the first sweep's cells finished at equal CPU and the later declarations'
cells). A finished cell is a filled circle, an interim one a hollow circle with
a dashed interval labelled with its deals so far; a budget whose curve cell has
no deals yet is marked ``not started`` on the axis. The earlier sweeps' cells
outside the equal-CPU band (not part of the curve) are hollow grey squares. The
title says where the numbers come from
(:func:`experiments.studies.xinxin_sweep.origin`); when the run had no xinxin,
the shipped paper-profile results are drawn and the title says so.

``python paper/figures/xinxin_sweep.py [results_dir [out_dir]]`` writes
paper/figures/xinxin_sweep.{pdf,png} (:mod:`experiments._figures`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from experiments._figures import COLORS, COLUMN_WIDTH, Job, figure_main, legend_outside
from experiments.studies.xinxin_sweep import EQUAL_CPU, LATER, figure_tables, origin

#: Series: passing mode -> label, colour and a small horizontal offset (a factor
#: on the log axis) so that the two modes' intervals do not overlap.
MODES = {False: ("no passing", COLORS[0], 0.93), True: ("3-card pass", COLORS[1], 1.07)}
#: The earlier sweeps' not-equal-CPU cells, beside the curve's.
GREY = "0.55"


def _num(row: dict, key: str) -> float | None:
    v = row.get(key)
    return float(v) if v not in (None, "") else None


def _passing(row: dict) -> bool:
    return row["passing"] in (True, "True")


def draw(results: Path) -> dict:
    try:
        tables = figure_tables(results)
        where = origin(results)
    except (FileNotFoundError, ValueError) as err:   # the paper's contract: warn, no figure
        print(f"warning: {err}; no xinxin sweep figure written")
        return {}
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.6), layout="constrained")
    interim = unequal = False
    waiting = []
    for mode, (label, colour, shift) in MODES.items():
        rows = sorted((r for r in tables["curve"] if _passing(r) == mode),
                      key=lambda r: int(r["budget_ms"]))
        played = [r for r in rows if _num(r, "mean") is not None]
        waiting += [(int(r["budget_ms"]) * shift, colour) for r in rows
                    if r.get("sweep") and _num(r, "mean") is None]
        if not played:
            continue
        x = [int(r["budget_ms"]) * shift for r in played]
        y = [_num(r, "mean") for r in played]
        ax.plot(x, y, "-", color=colour, lw=0.8, label=label)
        for xi, yi, r in zip(x, y, played):
            finished = r["status"] == "finished"
            if _num(r, "lo") is None:                   # one deal: a point, no interval
                ax.plot([xi], [yi], "o", color=colour, mfc="white", ms=4.5)
            else:
                eb = ax.errorbar([xi], [yi], yerr=[[yi - _num(r, "lo")], [_num(r, "hi") - yi]],
                                 fmt="o", color=colour, capsize=2, ms=4.5, lw=1.0,
                                 mfc=colour if finished else "white", mec=colour)
                if not finished:
                    eb[2][0].set_linestyle("--")
            if not finished:
                interim = True
                top = _num(r, "hi") if _num(r, "hi") is not None else yi
                ax.annotate(f"{r['deals']}/{r['declared_deals']}", (xi, top), xytext=(0, 3),
                            textcoords="offset points", ha="center", va="bottom",
                            fontsize=8, color=colour)
    on_curve = {r["cell"] for r in tables["curve"] if r.get("sweep")}
    earlier = [r for t in ["first", *(d.key for d in LATER)] for r in tables[t] or []]
    for r in earlier:                                   # cells outside the band
        ratio = _num(r, "cpu_ratio")
        if (r["cell"] in on_curve or ratio is None or EQUAL_CPU[0] <= ratio <= EQUAL_CPU[1]
                or _num(r, "lo") is None):
            continue
        unequal = True
        xi, yi = int(r["budget_ms"]) * (1.22 if _passing(r) else 0.82), _num(r, "mean")
        ax.errorbar([xi], [yi], yerr=[[yi - _num(r, "lo")], [_num(r, "hi") - yi]], fmt="s",
                    color=GREY, mfc="white", mec=GREY, ms=4, lw=0.8, capsize=1.5)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xscale("log")
    budgets = sorted({int(r["budget_ms"]) for r in tables["curve"]})
    ax.set_xticks(budgets, [f"{b:,}" for b in budgets])
    ax.minorticks_off()
    ax.set_xlim(min(budgets) / 1.6, max(budgets) * 1.6)
    ax.set_xlabel("declared CPU budget per decision (ms, log)")
    ax.set_ylabel("xinxin's minus our points per hand\n(95% CI; > 0: ours ahead)")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi + 0.08 * (hi - lo))               # room for the deal counts
    for xi, colour in waiting:
        ax.plot([xi], [0], marker="x", ls="", color=colour, ms=4)
    proxies = [Line2D([], [], marker="o", ls="", color="k", label="finished")]
    if interim:
        proxies.append(Line2D([], [], marker="o", ls="--", color="k", mfc="white",
                              label="interim (deals)"))
    if waiting:
        proxies.append(Line2D([], [], marker="x", ls="", color="k", label="not started"))
    if unequal:
        proxies.append(Line2D([], [], marker="s", ls="", color=GREY, mfc="white",
                              label="earlier sweeps, not equal CPU"))
    for p in proxies:
        ax.add_line(p)
    legend_outside(fig, [ax], ncols=2)
    for d in LATER:
        later, name = tables[d.key], d.title
        if later is not None:
            done = sum(r["status"] == "finished" for r in later)
            played = sum(r["status"] == "interim" for r in later)
            stopped = sum(r["status"] == "stopped" for r in later)
            where += (f"; {name} {done} of {len(later)} finished"
                      + (f", {played} interim" if played else "")
                      + (f", {stopped} stopped" if stopped else ""))
    ax.set_title("\n".join(textwrap.wrap(f"From {where}.", 46)), loc="left")
    return {"xinxin_sweep": fig}


JOBS = [Job(("xinxin_sweep/cells.csv",), draw,
            hint="python -m experiments run xinxin_sweep; the shipped results: "
                 "python -m experiments.studies.xinxin_sweep --ship")]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
