"""The paper's numbers of the xinxin sweeps (:mod:`experiments.studies.xinxin_sweep`,
``RESULTS/xinxin_sweep/``: ``cells.csv`` of the first declaration, and in the
shipped results ``recalibrated.csv`` of the second, ``third.csv`` of the third
and ``curve.csv``; the shipped
paper-profile tables when the run had no xinxin): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

from experiments.studies.xinxin_sweep import EQUAL_CPU, LATER, figure_tables, origin


def _ahead(r: dict, sign: int) -> bool:
    """A finished cell whose Holm-adjusted p (in its own declaration's family) is
    below 0.05 with the difference of ``sign`` (+1: ours ahead, -1: xinxin)."""
    return (r["status"] == "finished" and r.get("holm_p") not in (None, "")
            and float(r["holm_p"]) < 0.05 and sign * float(r["mean"]) > 0)


def paper_macros(m, results: Path, bench: Path) -> None:
    """The first declaration: ``\\XinxinSweepSource`` (where the figure's and these
    numbers come from, in words), ``\\XinxinSweepCells`` (cells in its table),
    ``\\XinxinSweepFinished`` (cells with every declared deal),
    ``\\XinxinSweepStopped`` (cells the second declaration stopped),
    ``\\XinxinSweepDeals`` (deals played, all cells), ``\\XinxinSweepUnequal``
    (cells with deals whose CPU ratio is outside [0.8, 1.25]) with their smallest
    and largest ratio ``\\XinxinSweepUnequalRatioLo``, ``...Hi``, and ``\\XinxinSweepRows``
    (table body, one row per cell: budget ms with a star when the cell is on the
    equal-CPU curve, passing, deals played/declared, CPU ms per decision
    ours/xinxin, their ratio with a dagger outside [0.8, 1.25], xinxin's minus
    our points per hand, its 95% interval, Holm's p in its family, status).

    The second (recalibrated) declaration, under ``\\ifXinxinSweepRecal`` (its
    table is in the results; a run of the study plays only the first):
    ``\\XinxinSweepRecalCells``, ``\\XinxinSweepRecalFinished``,
    ``\\XinxinSweepRecalInterim``, ``\\XinxinSweepRecalStopped`` (cells the third
    declaration stopped), ``\\XinxinSweepRecalDeals``,
    ``\\XinxinSweepRecalDeclaredDeals`` and ``\\XinxinSweepRecalRows`` (as
    ``\\XinxinSweepRows``; without its table, one row saying so). The third
    declaration alike, ``\\XinxinSweepThird...`` under ``\\ifXinxinSweepThird``:
    each entry of :data:`experiments.studies.xinxin_sweep.LATER` under its prefix.

    The equal-CPU curve (:func:`experiments.studies.xinxin_sweep.curve_rows`):
    ``\\XinxinSweepCurveCells`` (budget and passing modes), ``\\XinxinSweepCurveFinished``,
    ``\\XinxinSweepCurveInterim``, ``\\XinxinSweepCurveNotStarted``,
    ``\\XinxinSweepCurveAhead`` and ``\\XinxinSweepCurveBehind`` (finished curve
    cells where Holm's procedure in the cell's own family rejects with ours,
    resp. xinxin, ahead)."""
    from texmacros import interval, pvalue, signed, tex_text, thousands

    def tables() -> dict:
        return figure_tables(results)

    def rows() -> list[dict]:
        return tables()["first"]

    def curve() -> list[dict]:
        return tables()["curve"]

    def on_curve() -> set[str]:
        return {r["cell"] for r in curve() if r.get("sweep")}

    m.add("XinxinSweepSource", lambda: origin(results), tex_text,
          "where the xinxin sweep's figure and numbers come from")
    m.add("XinxinSweepCells", lambda: len(rows()), str, "xinxin sweep: cells in the table")
    m.add("XinxinSweepFinished", lambda: sum(r["status"] == "finished" for r in rows()), str,
          "xinxin sweep: cells with every declared deal played")
    m.add("XinxinSweepStopped", lambda: sum(r["status"] == "stopped" for r in rows()), str,
          "xinxin sweep: first-sweep cells stopped by the second declaration")
    m.add("XinxinSweepDeals", lambda: sum(int(r["deals"]) for r in rows()), thousands,
          "xinxin sweep: deals played over all cells")

    def unequal() -> list[float]:
        ratios = [float(r["cpu_ratio"]) for r in rows() if r["cpu_ratio"] not in (None, "")]
        return sorted(x for x in ratios if not EQUAL_CPU[0] <= x <= EQUAL_CPU[1])
    m.add("XinxinSweepUnequal", lambda: len(unequal()), str,
          "xinxin sweep: first-sweep cells with deals whose CPU ratio is outside the band")
    def ratio(x) -> str:                # no such cell (a quick run): --
        return "--" if x is None else f"{x:.2f}"
    m.add("XinxinSweepUnequalRatioLo", lambda: (unequal() or [None])[0], ratio,
          "xinxin sweep: the smallest such CPU ratio (xinxin / ours)")
    m.add("XinxinSweepUnequalRatioHi", lambda: (unequal() or [None])[-1], ratio,
          "xinxin sweep: the largest such CPU ratio (xinxin / ours)")

    def line(r: dict) -> str:
        passing = "3-card" if r["passing"] in (True, "True") else "none"
        deals = f"{thousands(r['deals'])}/{thousands(r['declared_deals'])}"
        budget = str(r["budget_ms"]) + (r"$^\ast$" if r["cell"] in on_curve() else "")
        if not r["lo"]:
            return " & ".join([budget, passing, deals, "--", "--", "--", "--", "--",
                               tex_text(r["status"])])
        ratio = float(r["cpu_ratio"])
        mark = "" if EQUAL_CPU[0] <= ratio <= EQUAL_CPU[1] else r"$^\dagger$"
        holm = "--" if r["status"] == "stopped" or not r["holm_p"] else pvalue(r["holm_p"])
        return " & ".join([budget, passing, deals,
                           f"{float(r['cpu_ms_ours']):.1f}/{float(r['cpu_ms_xinxin']):.1f}",
                           f"{ratio:.2f}{mark}", signed(r["mean"]),
                           interval(r["lo"], r["hi"]), holm, tex_text(r["status"])])
    m.add_rows("XinxinSweepRows", rows, line, "table rows of the xinxin sweep")

    def later(d) -> list[dict]:
        out = tables()[d.key]
        if out is None:
            raise FileNotFoundError(f"no {d.table} beside the first sweep's cells.csv")
        return out

    def have(d) -> bool:
        try:
            return tables()[d.key] is not None
        except (FileNotFoundError, ValueError):
            return False
    for d in LATER:                     # \XinxinSweep<prefix>... of each later declaration
        prefix, title = d.prefix, f"xinxin {d.title}"
        ran = have(d)
        m.flag(f"XinxinSweep{prefix}", lambda ran=ran: ran, f"the {title}'s table exists")
        for name, test in (("Finished", lambda r: r["status"] == "finished"),
                           ("Interim", lambda r: r["status"] == "interim"),
                           ("Stopped", lambda r: r["status"] == "stopped")):
            m.add_if(ran, f"XinxinSweep{prefix}{name}",
                     lambda d=d, test=test: sum(bool(test(r)) for r in later(d)), str,
                     f"{title}: {name.lower()} cells")
        for name, getter, fmt, what in (
                ("Cells", lambda d=d: len(later(d)), str, "cells"),
                ("Deals", lambda d=d: sum(int(r["deals"]) for r in later(d)), thousands,
                 "deals played over all cells"),
                ("DeclaredDeals",
                 lambda d=d: sum(int(r["declared_deals"]) for r in later(d)),
                 thousands, "deals declared over all cells")):
            m.add_if(ran, f"XinxinSweep{prefix}{name}", getter, fmt, f"{title}: {what}")
        if ran:
            m.add_rows(f"XinxinSweep{prefix}Rows", lambda d=d: later(d), line,
                       f"table rows of the {title}")
        else:
            m.add(f"XinxinSweep{prefix}Rows",
                  lambda: r"\multicolumn{9}{l}{not in these results (a run of the study plays "
                          r"the first declaration's cells only)} \\", str,
                  f"table rows of the {title} (not in these results)")

    def count(test) -> int:
        return sum(bool(test(r)) for r in curve())
    m.add("XinxinSweepCurveCells", lambda: len(curve()), str,
          "xinxin equal-CPU curve: budget and passing modes")
    m.add("XinxinSweepCurveFinished", lambda: count(lambda r: r["status"] == "finished"), str,
          "xinxin equal-CPU curve: finished cells")
    m.add("XinxinSweepCurveInterim", lambda: count(lambda r: r["status"] == "interim"), str,
          "xinxin equal-CPU curve: interim cells")
    m.add("XinxinSweepCurveNotStarted",
          lambda: count(lambda r: r["status"] not in ("finished", "interim")), str,
          "xinxin equal-CPU curve: cells without deals (or without an equal-CPU cell)")
    m.add("XinxinSweepCurveAhead", lambda: count(lambda r: _ahead(r, +1)), str,
          "xinxin equal-CPU curve: finished cells with ours ahead (Holm, own family)")
    m.add("XinxinSweepCurveBehind", lambda: count(lambda r: _ahead(r, -1)), str,
          "xinxin equal-CPU curve: finished cells with xinxin ahead (Holm, own family)")
