"""Figure: the xinxin sweep, our ISMCTS against xinxin at equal CPU time per decision
(the pre-registered sweep, ``paper/preregistration_xinxin.md``), from
results/<profile>/xinxin_sweep/cells.csv (``python -m experiments run xinxin_sweep``;
the shipped paper/results/xinxin_sweep/ is made from the sweep's saved units by
``python -m experiments.studies.xinxin_sweep --ship``).

x: our measured CPU ms per decision (log scale); y: xinxin's points per hand
minus ours (> 0: ours ahead) with its 95% interval; one series per passing mode.
A finished cell is a filled marker, an unfinished one a hollow marker labelled
``interim`` with its deals so far; a square marks a cell whose CPU ratio
(xinxin / ours) is outside the declared [0.8, 1.25]; the title says where the
numbers come from and how many cells are finished, interim or not started
(:func:`experiments.studies.xinxin_sweep.origin`). When the run had no xinxin
(its table marks every cell ``xinxin not installed``), the shipped
paper-profile results are drawn and the title says so
(:func:`experiments.studies.xinxin_sweep.figure_table`).

``python paper/figures/xinxin_sweep.py [results_dir [out_dir]]`` writes
paper/figures/xinxin_sweep.{pdf,png} (:mod:`experiments._figures`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from experiments._figures import COLORS, COLUMN_WIDTH, Job, figure_main, legend_outside
from experiments.studies.xinxin_sweep import EQUAL_CPU, figure_table, origin

#: Series: passing mode (the table's ``passing``) -> label and colour.
MODES = {"False": ("no passing", COLORS[0]), "True": ("3-card pass", COLORS[1])}


def _num(row: dict, key: str) -> float | None:
    v = row.get(key)
    return float(v) if v not in (None, "") else None


def draw(results: Path) -> dict:
    try:
        rows, _, _ = figure_table(results)
        where = origin(results)
    except (FileNotFoundError, ValueError) as err:   # the paper's contract: warn, no figure
        print(f"warning: {err}; no xinxin sweep figure written")
        return {}
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.2), layout="constrained")
    unequal = interim = False
    for mode, (label, colour) in MODES.items():
        cells = sorted((r for r in rows if r["passing"] == mode and _num(r, "lo") is not None),
                       key=lambda r: _num(r, "cpu_ms_ours") or float(r["budget_ms"]))
        if not cells:
            continue
        x = [_num(r, "cpu_ms_ours") or float(r["budget_ms"]) for r in cells]
        y = [_num(r, "mean") for r in cells]
        ax.plot(x, y, "-", color=colour, lw=0.8, label=label)
        for xi, yi, r in zip(x, y, cells):
            finished = r["finished"] == "True"
            ratio = _num(r, "cpu_ratio")
            square = ratio is not None and not EQUAL_CPU[0] <= ratio <= EQUAL_CPU[1]
            unequal |= square
            eb = ax.errorbar([xi], [yi], yerr=[[yi - _num(r, "lo")], [_num(r, "hi") - yi]],
                             fmt="s" if square else "o", color=colour, capsize=2,
                             mfc=colour if finished else "white", mec=colour, ms=4.5, lw=1.0)
            if not finished:
                interim = True
                eb[2][0].set_linestyle("--")
                ax.annotate(f"interim\n{r['deals']}/{r['declared_deals']}", (xi, _num(r, "hi")),
                            xytext=(0, 5), textcoords="offset points", ha="center",
                            va="bottom", fontsize=8, color=colour)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("our CPU ms per decision (log scale)")
    ax.set_ylabel("xinxin's minus our points per hand\n(95% CI; > 0: ours ahead)")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi + 0.12 * (hi - lo))               # room for the interim labels
    proxies = [Line2D([], [], marker="o", ls="", color="k", label="finished")]
    if interim:
        proxies.append(Line2D([], [], marker="o", ls="", color="k", mfc="white",
                              label="interim (deals so far)"))
    if unequal:
        proxies.append(Line2D([], [], marker="s", ls="", color="k", mfc="white",
                              label=f"CPU ratio outside [{EQUAL_CPU[0]}, {EQUAL_CPU[1]}]"))
    for p in proxies:
        ax.add_line(p)
    legend_outside(fig, [ax], ncols=2)
    ax.set_title("\n".join(textwrap.wrap(f"From {where}.", 52)), loc="left")
    return {"xinxin_sweep": fig}


JOBS = [Job(("xinxin_sweep/cells.csv",), draw,
            hint="python -m experiments run xinxin_sweep; the shipped results: "
                 "python -m experiments.studies.xinxin_sweep --ship")]


def main(argv=None) -> int:
    return figure_main(__file__, JOBS, argv)


if __name__ == "__main__":
    raise SystemExit(main())
