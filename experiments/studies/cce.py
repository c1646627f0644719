"""The CCE gap of CFR's empirical play next to NashConv, on 3-player deals.

With three or more players NashConv of CFR's average strategy need not go to
zero; what CFR (a no-external-regret learner) guarantees is that the
empirical distribution of play -- the mixture over iterations of the product
profiles of the current iterates -- approaches a coarse correlated
equilibrium. For each deal, solver, update scheme and weighting of the
empirical distribution, this study runs the solver and records at log-spaced
checkpoints (:func:`solvers.cfr.cce.run_cce`): NashConv of the average
strategy and of the current iterate, the CCE gap of the empirical play (the
largest player's gap, their sum and each player's), and the regret bound
that certifies the gap where it applies (CFR and CFR+ with simultaneous
updates and uniform weights). With ``cfr_jr`` also CFR-Jr's empirical play:
one joint pure plan drawn from each iterate (Celli et al. 2019).

A runner experiment (``python -m experiments run cce``), part of ``make
reproduce`` (the quick profile: two small deals, 200 iterations, seconds) and
of the paper (Section "What CFR converges to with three players": the
figure script ``paper/figures/cce.py`` and :func:`paper_macros`). One unit
per (deal, solver, updates, weighting, play); rows in
``results/<profile>/cce/rows.csv``. A deal is a preset of
:data:`spiel_game.PRESETS` or a pyspiel game string such as
``kuhn_poker(players=3)``. Deterministic but for CFR-Jr's draws, which use
each unit's seed (from ``seed``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path

import pyspiel

import spiel_game
from solvers.cfr.cce import UPDATES, WEIGHTINGS, run_cce
from solvers.cfr.solvers import SOLVERS
from solvers.cfr.tree import build_tree

from ..config import ConfigError, check_names
from ..registry import Unit, register

__all__ = ["CCEConfig", "PROFILES", "load_deal", "units", "run_unit", "summarize",
           "paper_macros"]


def load_deal(deal: str) -> pyspiel.Game:
    """A preset of :data:`spiel_game.PRESETS` by name, else a pyspiel game string."""
    if deal in spiel_game.PRESETS:
        return spiel_game.load(deal)
    try:
        return pyspiel.load_game(deal)
    except Exception as err:        # pyspiel raises its own error types
        raise ConfigError(f"unknown deal {deal!r}: neither a preset ({sorted(spiel_game.PRESETS)}) "
                         f"nor a pyspiel game string ({err})") from None


@dataclasses.dataclass(frozen=True)
class CCEConfig:
    """One CCE-gap study: which deals, solvers, update schemes, weightings, how long.

    ``weightings``: ``"uniform"`` (every iterate weight 1) and/or ``"solver"``
    (the solver's averaging weights, e.g. ``t`` for CFR+); the ``"solver"``
    weighting of CFR (weight 1) is the uniform one and is not run twice.
    ``cfr_jr``: also, per deal and solver, the empirical distribution of joint
    pure plans drawn from the iterates (CFR-Jr; simultaneous updates, uniform
    weights, seeded by the unit). ``large_deals``: deals too large for that grid,
    run after the others with simultaneous updates only, no CFR-Jr and
    ``large_iterations`` iterations (the certified runs and their weightings)."""

    seed: int = 0
    deals: tuple[str, ...] = ("kuhn_poker(players=3)", "micro3")
    solvers: tuple[str, ...] = ("CFR", "CFR+")
    updates: tuple[str, ...] = ("simultaneous",)
    weightings: tuple[str, ...] = WEIGHTINGS
    iterations: int = 200
    checkpoints: int = 8                                # log-spaced, the last included
    cfr_jr: bool = True
    large_deals: tuple[str, ...] = ()
    large_iterations: int = 200

    def __post_init__(self):
        for d in self.deals + self.large_deals:
            load_deal(d)
        both = sorted(set(self.deals) & set(self.large_deals))
        if both:
            raise ConfigError(f"deals and large_deals overlap: {both}; a deal is one or the other")
        if self.large_iterations < 1:
            raise ValueError(f"large_iterations must be >= 1, got {self.large_iterations}")
        check_names("solver", self.solvers, list(SOLVERS))
        check_names("updates", self.updates, list(UPDATES))
        check_names("weighting", self.weightings, list(WEIGHTINGS))
        if self.iterations < 1 or self.checkpoints < 1:
            raise ValueError("iterations and checkpoints must be >= 1")


#: The paper's run: three 3-player deals, both update schemes, 1000 iterations,
#: and medium3 (1.5M histories) for 200 iterations with simultaneous updates
#: (1000 would take about an hour per unit on a loaded 2-core machine).
_PAPER = {"deals": ("kuhn_poker(players=3)", "micro3", "small3"), "updates": UPDATES,
          "iterations": 1000, "checkpoints": 20, "large_deals": ("medium3",),
          "large_iterations": 200}
PROFILES = {"quick": CCEConfig(), "paper": CCEConfig(**_PAPER)}


@functools.lru_cache(maxsize=2)
def _tree(deal: str):
    return build_tree(load_deal(deal))


def units(config: CCEConfig) -> list[dict]:
    """One unit per (deal, solver, updates, weighting) of the iterates' play
    (CFR's ``"solver"`` weighting is its uniform one and is left out), plus
    one CFR-Jr unit per (deal, solver) with ``cfr_jr``; then, per large deal
    and solver, the simultaneous-update units of each weighting."""
    out = []
    for d in config.deals + config.large_deals:
        large = d in config.large_deals
        for s in config.solvers:
            ws = [w for w in config.weightings
                  if not (w == "solver" and s == "CFR" and "uniform" in config.weightings)]
            ups = ("simultaneous",) if large else config.updates
            out += [{"deal": d, "solver": s, "updates": u, "weighting": w, "play": "iterate"}
                    for u in ups for w in ws]
            if config.cfr_jr and not large:
                out.append({"deal": d, "solver": s, "updates": "simultaneous",
                            "weighting": "uniform", "play": "sampled"})
    return out


def run_unit(config: CCEConfig, unit: Unit) -> list[dict]:
    """The rows of :func:`solvers.cfr.cce.run_cce` for one unit (``iterations``,
    or ``large_iterations`` on a large deal), with ``deal`` and ``infosets``
    added (CFR-Jr draws with the unit's seed)."""
    p = unit.params
    tree = _tree(p["deal"])
    iterations = config.large_iterations if p["deal"] in config.large_deals else config.iterations
    rows = run_cce(tree, p["solver"], iterations, config.checkpoints,
                   updates=p["updates"], weighting=p["weighting"], play=p["play"],
                   seed=unit.seed if p["play"] == "sampled" else None)
    for r in rows:
        r["deal"] = p["deal"]
        r["infosets"] = tree.num_infosets
    return rows


def summarize(config: CCEConfig, rows):
    """The last checkpoint of every unit."""
    keys = ["deal", "solver", "updates", "weighting", "play"]
    last = rows.sort_values("iteration").groupby(keys, sort=False).tail(1)
    cols = keys + ["players", "histories", "iteration", "nash_conv_avg", "nash_conv_current",
                   "cce_gap", "cce_gap_sum", "regret_bound", "solver_seconds", "cce_seconds"]
    return last[cols].sort_values(keys).reset_index(drop=True)


register("cce", CCEConfig, units, run_unit, summarize,
         profiles={"quick": {}, "paper": _PAPER},
         description="CCE gap of CFR's empirical play vs NashConv on 3-player deals")


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``cce/`` (:mod:`experiments.macros`): the run's size,
    the ranges over deals and solvers of the final CCE gap (uniform and
    solver-weighted empirical play, CFR-Jr), of the regret bound and of NashConv of
    the average, the gap's decay rate, a check that every certified checkpoint is
    under its bound, and the table rows."""
    from ..macros import names, read_csv, read_json, sci, tex_text, thousands, tt
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
