"""The paper's numbers of the xinxin sweep (:mod:`experiments.studies.xinxin_sweep`,
``RESULTS/xinxin_sweep/cells.csv``; the shipped paper-profile table when the run
had no xinxin): :func:`paper_macros` (:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

from experiments.studies.xinxin_sweep import figure_table, origin


def paper_macros(m, results: Path, bench: Path) -> None:
    """``\\XinxinSweepSource`` (where the figure's and these numbers come from, in
    words), ``\\XinxinSweepCells`` (cells in the table), ``\\XinxinSweepFinished``
    (cells with every declared deal), ``\\XinxinSweepDeals`` (deals played, all
    cells) and ``\\XinxinSweepRows`` (table body, one row per cell: budget ms,
    passing, deals played/declared, CPU ms per decision ours/xinxin, their ratio
    with a dagger outside [0.8, 1.25], xinxin's minus our points per hand, its
    95% interval, Holm's p, status)."""
    from texmacros import interval, pvalue, signed, tex_text, thousands

    def rows() -> list[dict]:
        return figure_table(results)[0]

    m.add("XinxinSweepSource", lambda: origin(results), tex_text,
          "where the xinxin sweep's figure and numbers come from")
    m.add("XinxinSweepCells", lambda: len(rows()), str, "xinxin sweep: cells in the table")
    m.add("XinxinSweepFinished", lambda: sum(r["status"] == "finished" for r in rows()), str,
          "xinxin sweep: cells with every declared deal played")
    m.add("XinxinSweepDeals", lambda: sum(int(r["deals"]) for r in rows()), thousands,
          "xinxin sweep: deals played over all cells")

    def line(r: dict) -> str:
        passing = "3-card" if r["passing"] == "True" else "none"
        deals = f"{thousands(r['deals'])}/{thousands(r['declared_deals'])}"
        if not r["lo"]:
            return " & ".join([r["budget_ms"], passing, deals, "--", "--", "--", "--", "--",
                               tex_text(r["status"])])
        ratio = float(r["cpu_ratio"])
        mark = "" if r["equal_cpu"] == "True" else r"$^\dagger$"
        return " & ".join([r["budget_ms"], passing, deals,
                           f"{float(r['cpu_ms_ours']):.1f}/{float(r['cpu_ms_xinxin']):.1f}",
                           f"{ratio:.2f}{mark}", signed(r["mean"]),
                           interval(r["lo"], r["hi"]), pvalue(r["holm_p"]),
                           tex_text(r["status"])])
    m.add_rows("XinxinSweepRows", rows, line, "table rows of the xinxin sweep")
