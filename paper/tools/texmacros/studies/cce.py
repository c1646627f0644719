"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.cce` (``RESULTS/cce/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

import math
from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``cce/`` (:mod:`texmacros`): the run's size,
    the ranges over deals and solvers of the final CCE gap (uniform and
    solver-weighted empirical play, CFR-Jr), of the regret bound and of NashConv of
    the average, the gap's decay rate, a check that every certified checkpoint is
    under its bound, and the table rows."""
    from texmacros import names, read_csv, read_json, sci, tex_text, thousands, tt
    folder = results / "cce"
    cfg = lambda: read_json(folder / "metadata.json")["config"]      # noqa: E731

    def runs() -> dict:
        """``{(deal, solver, updates, weighting, play): [rows by iteration]}``, in file order."""
        out: dict = {}
        for r in read_csv(folder / "rows.csv"):
            key = (r["deal"], r["solver"], r["updates"], r["weighting"], r["play"])
            out.setdefault(key, []).append(r)
        for rows in out.values():
            rows.sort(key=lambda r: int(r["iteration"]))
        return out

    def large() -> set:
        """The run's large deals (fewer iterations, simultaneous updates only)."""
        return set(cfg().get("large_deals", ()))

    def finals(column: str, *, solver=None, updates="simultaneous", weighting="uniform",
               play="iterate", on_large: bool = False) -> list[float]:
        """``column`` at the last checkpoint of every run that matches (None: any),
        on the large deals with ``on_large``, else on the others."""
        big = large()
        vals = [float(rows[-1][column]) for (d, s, u, w, p), rows in runs().items()
                if (solver is None or s == solver) and (updates is None or u == updates)
                and w == weighting and p == play and (d in big) == on_large]
        if not vals:
            raise ValueError(f"no {solver or 'any'} run with {updates} updates, {weighting} "
                             f"weighting, {play} play")
        return vals

    def slopes() -> list[float]:
        """Least-squares slope of log(CCE gap) on log(iteration) over the checkpoints in
        the last decade of the run, per simultaneous-update run with uniform weights."""
        out = []
        for (_d, _s, u, w, p), rows in runs().items():
            if (u, w, p) != ("simultaneous", "uniform", "iterate"):
                continue
            last = int(rows[-1]["iteration"])
            pts = [(math.log(int(r["iteration"])), math.log(float(r["cce_gap"])))
                   for r in rows if int(r["iteration"]) * 10 >= last and float(r["cce_gap"]) > 0]
            if len(pts) >= 2:
                mx = sum(x for x, _ in pts) / len(pts)
                my = sum(y for _, y in pts) / len(pts)
                out.append(sum((x - mx) * (y - my) for x, y in pts) /
                           sum((x - mx) ** 2 for x, _ in pts))
        if not out:
            raise ValueError("no run with two checkpoints in its last decade")
        return out

    def certified() -> int:
        """Checkpoints whose CCE gap has a regret bound; raises if one exceeds it."""
        n = 0
        for key, rows in runs().items():
            for r in rows:
                if r["regret_bound"] in ("", "nan"):
                    continue
                if float(r["cce_gap"]) > float(r["regret_bound"]) + 1e-9:
                    raise ValueError(f"CCE gap above its regret bound: {key} at {r['iteration']}")
                n += 1
        if not n:
            raise ValueError("no certified checkpoint")
        return n

    m.add("CceIterations", lambda: cfg()["iterations"], thousands, "iterations per run")
    m.add("CceCheckpoints", lambda: cfg()["checkpoints"], str, "log-spaced checkpoints")
    m.add("CceDeals", lambda: [d for d in dict.fromkeys(k[0] for k in runs()) if d not in large()],
          names, "the deals (large ones apart)")
    m.add("CceSolvers", lambda: " and ".join(tex_text(s) for s in cfg()["solvers"]), str,
          "the solvers")
    m.add("CceRuns", lambda: len(runs()), str, "runs (deal, solver, updates, weighting, play)")
    try:
        alternating = bool(finals("cce_gap", updates="alternating"))
    except (OSError, KeyError, ValueError):
        alternating = False
    m.flag("CceAlternating", lambda: alternating, "the run has alternating updates")
    for name, col, kw, what in (
            ("CceGap", "cce_gap", {}, "CCE gap, simultaneous updates, uniform play"),
            ("CceBound", "regret_bound", {}, "regret bound of the CCE gap, simultaneous updates"),
            ("CceSolverGap", "cce_gap", {"solver": "CFR+", "weighting": "solver"},
             "CCE gap of CFR+'s linearly weighted play, simultaneous updates"),
            ("CceAltGap", "cce_gap", {"updates": "alternating"},
             "CCE gap, alternating updates, uniform play"),
            ("CceJrGap", "cce_gap", {"play": "sampled"}, "CCE gap of CFR-Jr's sampled plans"),
            ("CceNashConvCfr", "nash_conv_avg", {"solver": "CFR", "updates": None},
             "NashConv of CFR's average strategy"),
            ("CceNashConvCfrPlus", "nash_conv_avg", {"solver": "CFR+", "updates": None},
             "NashConv of CFR+'s average strategy")):
        if kw.get("updates") == "alternating" and not alternating:
            m.not_run(f"{name}Lo", what)
            m.not_run(f"{name}Hi", what)
            continue
        m.add(f"{name}Lo", lambda c=col, kw=kw: min(finals(c, **kw)), sci,
              f"smallest final {what}")
        m.add(f"{name}Hi", lambda c=col, kw=kw: max(finals(c, **kw)), sci,
              f"largest final {what}")
    try:
        big = [d for d in dict.fromkeys(k[0] for k in runs()) if d in large()]
    except (OSError, KeyError, ValueError):
        big = []
    m.flag("CceLarge", lambda: bool(big), "the run has a large deal")
    for name, get, fmt, what in (
            ("CceLargeDeal", lambda: big, names, "the large deal(s)"),
            ("CceLargeHistories",
             lambda: max(int(rows[-1]["histories"]) for k, rows in runs().items() if k[0] in big),
             thousands, "histories of the (largest) large deal"),
            ("CceLargeIterations", lambda: cfg()["large_iterations"], thousands,
             "iterations on the large deals"),
            ("CceLargeGapLo", lambda: min(finals("cce_gap", on_large=True)), sci,
             "smallest final CCE gap on a large deal, uniform play"),
            ("CceLargeGapHi", lambda: max(finals("cce_gap", on_large=True)), sci,
             "largest such gap"),
            ("CceLargeBoundHi", lambda: max(finals("regret_bound", on_large=True)), sci,
             "largest final regret bound on a large deal"),
            ("CceLargeSolverGap",
             lambda: max(finals("cce_gap", solver="CFR+", weighting="solver", on_large=True)),
             sci, "final CCE gap of CFR+'s linearly weighted play on a large deal (largest)"),
            ("CceLargeNashConvCfr",
             lambda: max(finals("nash_conv_avg", solver="CFR", on_large=True)), sci,
             "final NashConv of CFR's average on a large deal (largest)"),
            ("CceLargeNashConvCfrPlus",
             lambda: max(finals("nash_conv_avg", solver="CFR+", on_large=True)), sci,
             "final NashConv of CFR+'s average on a large deal (largest)")):
        m.add_if(big, name, get, fmt, what)
    m.add("CceSlopeLo", lambda: min(slopes()), lambda x: f"{x:.2f}".replace("-", "$-$"),
          "steepest log-log slope of the CCE gap between iterations T/10 and T")
    m.add("CceSlopeHi", lambda: max(slopes()), lambda x: f"{x:.2f}".replace("-", "$-$"),
          "flattest such slope")
    m.add("CceCertified", certified, thousands,
          "checkpoints whose CCE gap was checked against its regret bound (all under it)")

    def table() -> list:
        """One item per (deal, solver, updates) of the iterates' play."""
        rs = runs()
        items = []
        for (d, s, u, w, p), rows in rs.items():
            if (w, p) != ("uniform", "iterate"):
                continue
            sw = rs.get((d, s, u, "solver", "iterate"))
            jr = rs.get((d, s, u, "uniform", "sampled"))
            items.append((d, s, u, rows[-1], sw[-1] if sw else None, jr[-1] if jr else None))
        items.sort(key=lambda it: ([k[0] for k in rs].index(it[0]), it[1], it[2] != "simultaneous"))
        return items

    first: set = set()

    def line(it) -> str:
        """A table row; the first of each deal comes after a line naming the deal."""
        d, s, u, r, sw, jr = it
        head = ""
        if d not in first:
            first.add(d)
            its = (f", {thousands(int(r['iteration']))} iterations" if d in large() else "")
            head = (rf"\multicolumn{{7}}{{l}}{{{tt(d)}: {thousands(int(r['histories']))} "
                    rf"histories{its}}} \\" + "\n")
        bound = r["regret_bound"]
        cells = [tex_text(s), u[:6] + ".",
                 sci(r["nash_conv_avg"]), sci(r["cce_gap"]),
                 sci(bound) if bound not in ("", "nan") else "--",
                 sci(sw["cce_gap"]) if sw else ("= unif." if s == "CFR" else "--"),
                 sci(jr["cce_gap"]) if jr else "--"]
        return head + r"\quad " + " & ".join(cells)
    m.add_rows("CceRows", table, line,
               "table rows: NashConv of the average, CCE gaps and regret bound of every run")
