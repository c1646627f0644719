"""Macros for the results sections of main.tex: writes paper/tables/results_macros.tex.

``python paper/tables/results_macros.py [RESULTS_DIR]``

``RESULTS_DIR`` is ``results/<profile>`` (default ``results/quick``). Reads
only saved results: the runner's folders ``ladder/`` (``steps.csv``,
``sweep.csv``), ``cfr_convergence/``, ``passing_exact/``,
``passing_metagame/`` and ``passing_metagame_11/`` (``rows.csv``,
``summary.csv``, ``metadata.json``; ``python -m experiments run NAME``).
It complements ``macros.py`` (rules statistics, benchmarks, study designs)
with the numbers the text discusses: every ladder step and sweep budget with
its 95% interval and p-value, the CFR variants' NashConv and time, the
passing meta-games' equilibria and exploitabilities with their intervals, the
exact exploitabilities on reduced deals, and the tool versions.

Names are per study and generic across profiles: ``\\LadderSixPimcIsmctsGain``
(with ``Lo``, ``Hi``, ``P``), ``\\SweepMaxGain``, ``\\CfrThreeFinalPcfrPlus``,
``\\MetaElevenNashTop``, ``\\ExactTwoMost``. ``...Rows`` macros expand to the
body rows of a table (whatever steps, budgets or conventions the results
hold), and ``\\ifLadderEleven`` is true when the ladder ran at eleven players.
A macro whose result is missing expands to a bold ``??`` and the script prints
a warning; it still exits 0, so the paper builds from whatever exists.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path
from collections.abc import Callable

HERE = Path(__file__).resolve().parent
MISSING = r"\textbf{??}"
WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
         9: "Nine", 10: "Ten", 11: "Eleven"}
#: The ladder's rungs by the name before the parenthesis, as they appear in macro names.
RUNG_WORDS = {"random": "Random", "heuristic": "Heuristic", "pimc": "Pimc", "ismcts": "Ismcts"}
#: The ladder steps the text discusses (lower rung, higher rung).
LADDER_STEPS = (("random", "heuristic"), ("heuristic", "pimc"), ("pimc", "ismcts"))
#: CFR variants by their name in the results, as they appear in macro names.
SOLVER_WORDS = {"CFR": "Cfr", "CFR+": "CfrPlus", "LCFR": "Lcfr", "DCFR": "Dcfr",
                "PCFR+": "PcfrPlus"}
#: Versions quoted in the text, by their key in metadata.json.
TOOLS = (("python", "Python"), ("open_spiel", "OpenSpiel"), ("numpy", "NumPy"),
         ("numba", "Numba"), ("scipy", "SciPy"), ("pandas", "pandas"),
         ("matplotlib", "Matplotlib"))
ERRORS = (OSError, KeyError, ValueError, IndexError, TypeError, StopIteration,
          ZeroDivisionError, json.JSONDecodeError)


# ------------------------------------------------------------------ formatting
def thousands(x) -> str:
    """``20000`` -> ``20{,}000``."""
    return f"{int(x):,}".replace(",", "{,}")


def fixed(digits: int) -> Callable[[float], str]:
    return lambda x: f"{float(x):.{digits}f}"


def signed(x: float, digits: int = 2) -> str:
    """A gain: ``-0.43``, ``0.00`` (never ``-0.00``)."""
    s = f"{float(x):.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def sci(x: float, digits: int = 1) -> str:
    """``0.00127`` -> ``\\ensuremath{1.3\\times 10^{-3}}``; plain below 3 orders."""
    x = float(x)
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    if -2 <= exp <= 2:
        return f"{x:.{max(0, digits + 1 - exp)}f}" if exp < 0 else f"{x:.{digits + 1}g}"
    mant = x / 10 ** exp
    if round(mant, digits) >= 10:
        mant, exp = mant / 10, exp + 1
    return rf"\ensuremath{{{mant:.{digits}f}\times 10^{{{exp}}}}}"


def seconds(x: float) -> str:
    """``352.0`` -> ``352``, ``3.7`` -> ``3.7``, ``0.0213`` -> ``0.021``."""
    x = float(x)
    if x >= 10:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.1f}"
    return f"{x:.2g}"


def pvalue(p: float) -> str:
    """``0.011``; ``\\ensuremath{3\\times 10^{-4}}`` below 0.001."""
    p = float(p)
    if p >= 0.001:
        return f"{p:.3f}"
    if p <= 0:
        return r"\ensuremath{<10^{-300}}"
    exp = math.floor(math.log10(p))
    mant = round(p / 10 ** exp)
    if mant >= 10:
        mant, exp = 1, exp + 1
    return rf"\ensuremath{{{mant}\times 10^{{{exp}}}}}"


def mass(x: float) -> str:
    """A probability mass: ``0.00`` (never ``-0.00``), ``1.00``."""
    return signed(x, 2)


def interval(lo: float, hi: float, digits: int = 2) -> str:
    return f"[{signed(lo, digits)}, {signed(hi, digits)}]"


def tex_text(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"),
                 ("#", r"\#"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        s = s.replace(a, b)
    return s


def tt(s: str) -> str:
    return rf"\texttt{{{tex_text(s)}}}"


def names(xs) -> str:
    """``a``, ``a and b``, ``a, b and c`` in typewriter."""
    xs = [tt(x) for x in xs]
    if not xs:
        raise ValueError("no names")
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def rung(spec: str) -> str:
    """``"pimc(worlds=32, rollouts=1)"`` -> ``"pimc"``."""
    return spec.split("(")[0].strip()


# ------------------------------------------------------------------ reading
def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Macros:
    """Collects ``\\newcommand`` definitions; a failing getter gives ``??``."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.warnings: list[str] = []

    def add(self, name: str, getter: Callable[[], object], fmt: Callable = str,
            what: str = "", rows: bool = False) -> None:
        """``rows``: the value is table rows, so a missing one is a row too."""
        try:
            value = fmt(getter())
        except ERRORS as err:
            value = MISSING + (r" \\" if rows else "")
            self.warnings.append(f"\\{name} ({what or 'no description'}): {err!r}")
        self.count += 1
        self.lines.append(f"\\newcommand{{\\{name}}}{{{value}}}" + (f"  % {what}" if what else ""))

    def not_run(self, name: str, what: str) -> None:
        """A macro of a configuration the results did not run (only used under its
        ``\\if`` flag, so never printed): ``--``, not a ``??``."""
        self.count += 1
        self.lines.append(f"\\newcommand{{\\{name}}}{{--}}  % not run: {what}")

    def flag(self, name: str, getter: Callable[[], bool], what: str) -> None:
        """``\\newif\\if<name>``, true when ``getter()`` is (false when it fails)."""
        try:
            on = bool(getter())
        except ERRORS:
            on = False
        self.lines.append(f"\\newif\\if{name}" + (f"\\{name}true" if on else "") + f"  % {what}")

    def tex(self, sources: str) -> str:
        head = ["% generated by paper/tables/results_macros.py; do not edit",
                f"% sources: {sources}"]
        return "\n".join(head + self.lines) + "\n"


# ------------------------------------------------------------------ ladder
def _ladder_table(path: Path) -> list[dict]:
    """The rows of the ladder's ``steps.csv`` or ``sweep.csv`` (``python -m experiments
    run ladder``), each with its gain and timing gathered as the macros read them."""
    out = []
    for r in _csv(path):
        s = {"players": int(r["players"]), "lower": r["lower"], "higher": r["higher"],
             "deals": int(r["deals"]), "seat_assignments": int(r["seat_assignments"]),
             "holds": r["holds"] == "True",
             "payoff_gain_of_higher": {"mean": float(r["gain"]), "lo": float(r["gain_lo"]),
                                       "hi": float(r["gain_hi"]),
                                       "p_value": float(r["p_value"])},
             "timing": [{"agent": r[role], "seconds": float(r[f"{role}_seconds"]),
                         "decisions": int(r[f"{role}_decisions"]),
                         "ms_per_decision": float(r[f"{role}_ms_per_decision"] or "nan")}
                        for role in ("lower", "higher")]}
        if "iterations" in r:
            s["iterations"] = int(r["iterations"])
        out.append(s)
    return out


def add_ladder(m: Macros, results: Path) -> None:
    folder = results / "ladder"
    config = lambda: _json(folder / "metadata.json")["config"]        # noqa: E731
    steps = lambda: _ladder_table(folder / "steps.csv")               # noqa: E731
    sweep = lambda: sorted(_ladder_table(folder / "sweep.csv"),       # noqa: E731
                           key=lambda s: s["iterations"])

    def step(n: int, lower: str, higher: str) -> dict:
        return next(s for s in steps() if s["players"] == n and rung(s["lower"]) == lower
                    and rung(s["higher"]) == higher)

    def ms(n: int, agent: str) -> float:
        """Mean time per decision of ``agent`` over every ladder step at ``n`` players."""
        t = [t for s in steps() if s["players"] == n for t in s["timing"]
             if rung(t["agent"]) == agent]
        return 1e3 * sum(x["seconds"] for x in t) / sum(x["decisions"] for x in t)

    def absent(n: int) -> bool:
        """The ladder's results exist and did not run at ``n`` players (the quick
        profile runs 6 only; main.tex quotes 11 under ``\\ifLadderEleven``)."""
        try:
            return n not in {s["players"] for s in steps()}
        except ERRORS:
            return False                                  # missing results: ??

    for n in (6, 11):
        w = WORDS[n]
        add = m.add if not absent(n) else (
            lambda name, getter, fmt=str, what="", n=n: m.not_run(name, f"{n} players"))
        for lower, higher in LADDER_STEPS:
            name = f"Ladder{w}{RUNG_WORDS[lower]}{RUNG_WORDS[higher]}"
            g = lambda n=n, lo=lower, hi=higher: step(n, lo, hi)["payoff_gain_of_higher"]  # noqa: E731
            what = f"{n} players, {lower} -> {higher}: zero-sum gain of {higher}"
            add(f"{name}Gain", lambda g=g: g()["mean"], signed, what + ", points per hand")
            add(f"{name}Lo", lambda g=g: g()["lo"], signed, "95% low")
            add(f"{name}Hi", lambda g=g: g()["hi"], signed, "95% high")
            add(f"{name}P", lambda g=g: g()["p_value"], pvalue, "paired t-test p-value")
        for agent in ("pimc", "ismcts"):
            add(f"Ladder{w}{RUNG_WORDS[agent]}Ms", lambda n=n, a=agent: ms(n, a), fixed(1),
                f"ms per decision of {agent}, {n} players, over the ladder's games")
    m.flag("LadderEleven", lambda: any(s["players"] == 11 for s in steps()),
           "the ladder ran at 11 players")
    m.add("LadderSeatingsSix", lambda: step(6, "random", "heuristic")["seat_assignments"], str,
          "seatings per deal at 6 players")
    m.add("LadderRungPimc", lambda: next(r for r in config()["rungs"] if rung(r) == "pimc"), tt,
          "the PIMC rung")
    m.add("LadderRungIsmcts", lambda: next(r for r in config()["rungs"] if rung(r) == "ismcts"),
          tt, "the ISMCTS rung")

    def ladder_rows() -> str:
        out = []
        for s in steps():
            g = s["payoff_gain_of_higher"]
            out.append(f"{s['players']} & {tt(rung(s['lower']))} $\\to$ {tt(rung(s['higher']))} & "
                       f"{s['deals']} $\\times$ {s['seat_assignments']} & {signed(g['mean'])} & "
                       f"{interval(g['lo'], g['hi'])} & {pvalue(g['p_value'])} \\\\")
        if not out:
            raise ValueError("no ladder steps")
        return "\n".join(out)
    m.add("LadderRows", ladder_rows, str, "table rows: every ladder step", rows=True)

    # the ISMCTS budget sweep
    gain = lambda s: s["payoff_gain_of_higher"]                       # noqa: E731
    for key, pick in (("Min", lambda: sweep()[0]), ("Max", lambda: sweep()[-1])):
        m.add(f"Sweep{key}Gain", lambda p=pick: gain(p())["mean"], signed,
              f"{key.lower()} budget: zero-sum gain over the opponent")
        m.add(f"Sweep{key}Lo", lambda p=pick: gain(p())["lo"], signed, "95% low")
        m.add(f"Sweep{key}Hi", lambda p=pick: gain(p())["hi"], signed, "95% high")
        m.add(f"Sweep{key}P", lambda p=pick: gain(p())["p_value"], pvalue, "p-value")

    def overlap() -> int:
        """The smallest budget from which on every budget's 95% interval
        overlaps the largest budget's."""
        top = gain(sweep()[-1])
        ok = [gain(s)["hi"] >= top["lo"] and gain(s)["lo"] <= top["hi"] for s in sweep()]
        i = len(ok) - 1
        while i > 0 and ok[i - 1]:
            i -= 1
        return sweep()[i]["iterations"]
    m.add("SweepOverlapIterations", overlap, thousands,
          "smallest budget from which on every 95% interval overlaps the largest budget's")
    m.add("SweepFirstSignificant",
          lambda: next(s["iterations"] for s in sweep() if gain(s)["lo"] > 0), thousands,
          "smallest budget whose 95% interval lies above 0")
    ms_move = lambda s: next(                                          # noqa: E731
        t for t in s["timing"] if rung(t["agent"]) == "ismcts")["ms_per_decision"]
    m.add("SweepMaxMsPerMove", lambda: ms_move(sweep()[-1]), fixed(0),
          "ISMCTS ms per decision at the largest budget (shared machine)")
    m.add("SweepMaxItersPerSecond",
          lambda: thousands(round(sweep()[-1]["iterations"] / ms_move(sweep()[-1]) * 1e3, -2)), str,
          "ISMCTS iterations per second of decision time at the largest budget")
    m.add("SweepSeatings", lambda: sweep()[0]["seat_assignments"], str, "seatings per deal")

    def sweep_rows() -> str:
        out = []
        for s in sweep():
            g = gain(s)
            t = next(t for t in s["timing"] if rung(t["agent"]) == "ismcts")
            out.append(f"{thousands(s['iterations'])} & {signed(g['mean'])} & "
                       f"{interval(g['lo'], g['hi'])} & {pvalue(g['p_value'])} & "
                       f"{t['ms_per_decision']:.1f} \\\\")
        if not out:
            raise ValueError("no sweep budgets")
        return "\n".join(out)
    m.add("SweepRows", sweep_rows, str, "table rows: every ISMCTS budget of the sweep", rows=True)


# ------------------------------------------------------------------ CFR
def add_cfr(m: Macros, results: Path) -> None:
    folder = results / "cfr_convergence"
    cfg = lambda: _json(folder / "metadata.json")["config"]           # noqa: E731

    def runs() -> dict:
        """``{players: {"deal", "histories", "infosets", "runs": {solver: [rows]}}}``."""
        out: dict = {}
        for r in _csv(folder / "rows.csv"):
            d = out.setdefault(int(r["players"]), {"deal": r["deal"], "histories": r["histories"],
                                                   "infosets": r["infosets"], "runs": {}})
            if d["deal"] == r["deal"]:
                d["runs"].setdefault(r["solver"], []).append(r)
        for d in out.values():
            for rows in d["runs"].values():
                rows.sort(key=lambda r: int(r["iteration"]))
        return out

    m.add("CfrIterations", lambda: cfg()["iterations"], thousands, "iterations per solver")
    m.add("CfrCheckpoints", lambda: cfg()["checkpoints"], str, "log-spaced checkpoints")
    m.add("CfrSolverCount", lambda: len(cfg()["solvers"]), str, "CFR variants compared")
    for n in (2, 3):
        w = WORDS[n]
        deal = lambda n=n: runs()[n]                                   # noqa: E731
        final = lambda s, n=n: float(deal(n)["runs"][s][-1]["nash_conv"])    # noqa: E731
        secs = lambda s, n=n: float(deal(n)["runs"][s][-1]["seconds"])       # noqa: E731
        order = lambda n=n: sorted(deal(n)["runs"], key=lambda s: final(s, n))  # noqa: E731
        m.add(f"Cfr{w}Deal", lambda d=deal: d()["deal"], tt, f"the {n}-player deal")
        m.add(f"Cfr{w}Histories", lambda d=deal: d()["histories"], thousands, "histories")
        m.add(f"Cfr{w}Infosets", lambda d=deal: d()["infosets"], thousands, "information sets")
        m.add(f"Cfr{w}Initial", lambda d=deal: float(d()["runs"]["CFR"][0]["nash_conv"]), sci,
              "NashConv after one CFR iteration")
        for solver, sw in SOLVER_WORDS.items():
            m.add(f"Cfr{w}Final{sw}", lambda s=solver, f=final: f(s), sci,
                  f"NashConv of {solver}'s average strategy after the last iteration")
            m.add(f"Cfr{w}Seconds{sw}", lambda s=solver, f=secs: f(s), seconds,
                  f"{solver}: solver seconds for all iterations")
        m.add(f"Cfr{w}Order", lambda o=order: " $<$ ".join(tex_text(x) for x in o()), str,
              "solvers by final NashConv, smallest first")
        m.add(f"Cfr{w}Best", lambda o=order: o()[0], tex_text, "smallest final NashConv")
        m.add(f"Cfr{w}BestFinal", lambda o=order, f=final: f(o()[0]), sci, "its NashConv")
        m.add(f"Cfr{w}Worst", lambda o=order: o()[-1], tex_text, "largest final NashConv")
        m.add(f"Cfr{w}WorstFinal", lambda o=order, f=final: f(o()[-1]), sci, "its NashConv")
        m.add(f"Cfr{w}SecondsSpread",
              lambda n=n, sc=secs: (max(sc(x) for x in deal(n)["runs"]) /
                                    min(sc(x) for x in deal(n)["runs"])), fixed(1),
              "slowest / fastest variant in solver seconds for the same iterations")
        m.add(f"Cfr{w}BestFactor", lambda o=order, f=final: f("CFR") / f(o()[0]),
              lambda x: thousands(round(x)), "CFR's final NashConv / the best one's")

        def reach(n=n, o=order, f=final) -> dict:
            """The first checkpoint where the best solver is at or below CFR's final NashConv."""
            target = f("CFR")
            return next(r for r in deal(n)["runs"][o()[0]] if float(r["nash_conv"]) <= target)
        m.add(f"Cfr{w}BestReachIterations", lambda r=reach: r()["iteration"], thousands,
              "iterations the best solver needs to match CFR's final NashConv")
        m.add(f"Cfr{w}BestReachSeconds", lambda r=reach: float(r()["seconds"]), seconds,
              "its solver seconds then")
        m.add(f"Cfr{w}BestMaxGain",
              lambda o=order, n=n: max(float(deal(n)["runs"][o()[0]][-1][f"improvement_{p}"])
                                       for p in range(n)), sci,
              "the best solver's largest single-player best-response gain at the end")

    def cfr_rows() -> str:
        out = []
        for n, d in sorted(runs().items()):
            for s, rows in sorted(d["runs"].items(), key=lambda kv: float(kv[1][-1]["nash_conv"])):
                out.append(f"{tt(d['deal'])} & {n} & {tex_text(s)} & "
                           f"{sci(rows[-1]['nash_conv'])} & {seconds(rows[-1]['seconds'])} \\\\")
        if not out:
            raise ValueError("no CFR runs")
        return "\n".join(out)
    m.add("CfrRows", cfr_rows, str, "table rows: final NashConv and time of every solver",
          rows=True)


# ------------------------------------------------------------------ passing meta-games
def add_metagame(m: Macros, results: Path) -> None:
    for n, folder_name in ((6, "passing_metagame"), (11, "passing_metagame_11")):
        w = WORDS[n]
        folder = results / folder_name
        cfg = lambda f=folder: _json(f / "metadata.json")["config"]    # noqa: E731

        def conv(f=folder) -> dict:
            return {r["convention"]: r for r in _csv(f / "rows.csv") if r["kind"] == "convention"}

        def br(f=folder) -> dict:
            return {r["convention"]: r for r in _csv(f / "rows.csv") if r["kind"] == "rollout_br"}

        k = lambda c=cfg: len(c()["conventions"])                      # noqa: E731
        profiles = lambda c=cfg, k=k: math.comb(c()["players"] + k() - 1, k() - 1)  # noqa: E731
        m.add(f"Meta{w}Conventions", k, str, f"conventions, {n} players")
        m.add(f"Meta{w}Profiles", profiles, thousands, "profiles up to symmetry")
        m.add(f"Meta{w}Deals", lambda c=cfg: c()["deals"], thousands,
              "duplicate deals per profile and rotation")
        m.add(f"Meta{w}Hands", lambda c=cfg, p=profiles: p() * c()["players"] * c()["deals"],
              thousands, "simulated hands")
        m.add(f"Meta{w}Bootstrap", lambda c=cfg: c()["bootstrap"], thousands,
              "bootstrap replicates")
        m.add(f"Meta{w}RolloutDeals", lambda c=cfg: c()["br_deals"], thousands,
              "deals of the rollout best-response passer")
        m.add(f"Meta{w}RolloutSamples", lambda c=cfg: c()["br_samples"], str,
              "sampled worlds per candidate card")

        top = lambda key, c=conv: max(c().values(), key=lambda r: float(r[key]))   # noqa: E731
        for key, word in (("nash", "Nash"), ("alpharank", "Alpha")):
            t = lambda key=key, top=top: top(key)                          # noqa: E731
            m.add(f"Meta{w}{word}Top", lambda t=t: t()["convention"], tt,
                  f"largest {key} mass")
            m.add(f"Meta{w}{word}TopMass", lambda t=t, key=key: float(t()[key]), fixed(2),
                  "its mass")
            m.add(f"Meta{w}{word}TopLo", lambda t=t, key=key: float(t()[f"{key}_lo"]), fixed(4),
                  "bootstrap 95% low")
            m.add(f"Meta{w}{word}TopHi", lambda t=t, key=key: float(t()[f"{key}_hi"]), fixed(4),
                  "bootstrap 95% high")
        m.add(f"Meta{w}NashTopRegret", lambda t=top: float(t("nash")["regret"]), sci,
              "regret of the replicator equilibrium")
        nt = lambda t=top: t("nash")["convention"]                      # noqa: E731
        m.add(f"Meta{w}NashTopRollout", lambda b=br, nt=nt: float(b()[nt()]["mean"]), signed,
              "rollout passer's gain against the equilibrium convention")
        m.add(f"Meta{w}NashTopRolloutLo", lambda b=br, nt=nt: float(b()[nt()]["lo"]), signed,
              "95% low")
        m.add(f"Meta{w}NashTopRolloutHi", lambda b=br, nt=nt: float(b()[nt()]["hi"]), signed,
              "95% high")

        for key, src, word in (("library", conv, "Library"), ("rollout", br, "Rollout")):
            col = "library_gain" if key == "library" else "mean"
            lo = "library_lo" if key == "library" else "lo"
            hi = "library_hi" if key == "library" else "hi"
            for ext, pick in (("Max", max), ("Min", min)):
                r = (lambda s=src, col=col, pick=pick:                        # noqa: E731
                     pick(s().values(), key=lambda r: float(r[col])))
                name = f"Meta{w}{word}{ext}"
                m.add(name, lambda r=r: r()["convention"], tt,
                      f"{'most' if ext == 'Max' else 'least'} exploitable by the {key} deviation")
                m.add(f"{name}Gain", lambda r=r, col=col: float(r()[col]), signed,
                      "its gain, points per hand")
                m.add(f"{name}Lo", lambda r=r, c=lo: float(r()[c]), signed, "95% low")
                m.add(f"{name}Hi", lambda r=r, c=hi: float(r()[c]), signed, "95% high")

        def edge(c=conv, b=br) -> tuple[dict, dict]:
            """The convention where the rollout passer's estimate most exceeds the library's."""
            cv, bv = c(), b()
            name = max(cv, key=lambda x: float(bv[x]["mean"]) - float(cv[x]["library_gain"]))
            return cv[name], bv[name]
        m.add(f"Meta{w}RolloutEdge", lambda e=edge: e()[0]["convention"], tt,
              "largest rollout gain minus library gain")
        m.add(f"Meta{w}RolloutEdgeGain", lambda e=edge: float(e()[1]["mean"]), signed,
              "its rollout gain")
        m.add(f"Meta{w}RolloutEdgeLo", lambda e=edge: float(e()[1]["lo"]), signed, "95% low")
        m.add(f"Meta{w}RolloutEdgeHi", lambda e=edge: float(e()[1]["hi"]), signed, "95% high")
        m.add(f"Meta{w}RolloutEdgeLibrary", lambda e=edge: float(e()[0]["library_gain"]), signed,
              "its library gain")
        m.add(f"Meta{w}RolloutEdgeLibraryLo", lambda e=edge: float(e()[0]["library_lo"]), signed,
              "95% low")
        m.add(f"Meta{w}RolloutEdgeLibraryHi", lambda e=edge: float(e()[0]["library_hi"]), signed,
              "95% high")
        m.add(f"Meta{w}RolloutBelowZero",
              lambda b=br: sum(float(r["mean"]) < 0 for r in b().values()), str,
              "conventions against which the rollout passer's mean gain is negative")

        m.add(f"Meta{w}RolloutBelowZeroSignificant",
              lambda b=br: sum(float(r["hi"]) < 0 for r in b().values()), str,
              "conventions against which the rollout passer's whole 95% interval is below 0")

        def rows(c=conv, b=br) -> str:
            cv, bv = c(), b()
            out = []
            for name, r in cv.items():
                out.append(f"{tt(name)} & {signed(r['library_gain'])} "
                           f"{interval(r['library_lo'], r['library_hi'])} & "
                           f"{signed(bv[name]['mean'])} "
                           f"{interval(bv[name]['lo'], bv[name]['hi'])} & "
                           f"{mass(r['nash'])} & {mass(r['alpharank'])} \\\\")
            if not out:
                raise ValueError("no conventions")
            return "\n".join(out)
        m.add(f"Meta{w}Rows", rows, str, f"table rows: every convention, {n} players", rows=True)


def add_metagame_ratio(m: Macros, results: Path) -> None:
    def largest(folder: str) -> float:
        return max(float(r["library_gain"]) for r in _csv(results / folder / "rows.csv")
                   if r["kind"] == "convention")
    m.add("MetaElevenOverSix",
          lambda: largest("passing_metagame_11") / largest("passing_metagame"), fixed(2),
          "largest library gain at 11 players / at 6 players")


# ------------------------------------------------------------------ exact passing
def add_exact(m: Macros, results: Path) -> None:
    folder = results / "passing_exact"
    cfg = lambda: _json(folder / "metadata.json")["config"]           # noqa: E731

    def deals() -> dict:
        """``{players: {"deal", "conv": {convention: row}}}`` from the convention rows."""
        out: dict = {}
        for r in _csv(folder / "rows.csv"):
            if r["kind"] != "convention":
                continue
            d = out.setdefault(int(r["players"]), {"deal": r["deal"], "conv": {}})
            if d["deal"] == r["deal"]:
                d["conv"][r["convention"]] = r
        return out

    m.add("ExactSolver", lambda: cfg()["solver"], tex_text, "CFR variant solving the play")
    m.add("ExactIterations", lambda: cfg()["iterations"], thousands, "its iterations")
    m.add("ExactTremble", lambda: cfg()["tremble"], lambda x: f"{float(x):g}",
          "pass tremble while solving the play")
    m.add("ExactConventions", lambda: len(cfg()["conventions"]), str, "conventions")
    for n in (2, 3):
        w = WORDS[n]
        conv = lambda n=n: deals()[n]["conv"]                          # noqa: E731
        gain = lambda r: float(r["gain_pass_play"])                    # noqa: E731
        m.add(f"Exact{w}Deal", lambda n=n: deals()[n]["deal"], tt, f"the {n}-player deal")

        def least(c=conv) -> list:
            lo = min(gain(r) for r in c().values())
            return [k for k, r in c().items() if gain(r) <= lo + 1e-6]
        m.add(f"Exact{w}Least", least, names, "least exploitable convention(s)")
        m.add(f"Exact{w}LeastGain", lambda c=conv: min(gain(r) for r in c().values()), fixed(2),
              "its exact gain (passing and play)")

        def most(c=conv) -> list:
            hi = max(gain(r) for r in c().values())
            return [k for k, r in c().items() if gain(r) >= hi - 1e-6]
        m.add(f"Exact{w}Most", most, names, "most exploitable convention(s)")
        m.add(f"Exact{w}MostGain", lambda c=conv: max(gain(r) for r in c().values()), fixed(2),
              "its exact gain (passing and play)")

        def nash(c=conv) -> list:
            return [k for k, r in c().items() if float(r["nash"]) >= 0.01]
        m.add(f"Exact{w}Nash", nash, names, "support of the meta-game equilibrium (mass >= 0.01)")
        m.add(f"Exact{w}NashMass", lambda c=conv: max(float(r["nash"]) for r in c().values()),
              fixed(2), "largest equilibrium mass")
        m.add(f"Exact{w}MaxPlayExtra",
              lambda c=conv: max(abs(float(r["gain_pass_play"]) - float(r["gain_pass_only"]))
                                 for r in c().values()), sci,
              "largest |gain in passing and play - gain in passing only|")
        m.add(f"Exact{w}MaxPlayNashConv",
              lambda c=conv: max(float(r["play_nash_conv"]) for r in c().values()), sci,
              "largest NashConv of a solved play phase")

    def rows() -> str:
        d = deals()
        ns = sorted(d)
        out = []
        for name in d[ns[0]]["conv"]:
            cells = [tt(name)]
            for n in ns:
                r = d[n]["conv"][name]
                cells += [f"{float(r['gain_pass_only']):.2f}", f"{float(r['gain_pass_play']):.2f}",
                          mass(r["nash"])]
            out.append(" & ".join(cells) + " \\\\")
        return "\n".join(out)
    m.add("ExactRows", rows, str, "table rows: exact gains and equilibrium mass per convention",
          rows=True)


# ------------------------------------------------------------------ provenance
def add_versions(m: Macros, results: Path) -> None:
    def meta() -> dict:
        for name in ("rules_stats", "passing_metagame", "cfr_convergence", "passing_exact", "demo"):
            path = results / name / "metadata.json"
            if path.exists():
                return _json(path)
        return _json(results / "ladder" / "metadata.json")
    m.add("ToolVersions",
          lambda: ", ".join(f"{label} {meta()['versions'][key]}" for key, label in TOOLS
                            if key in meta()["versions"]), tex_text,
          "tool versions recorded with the results")
    m.add("MachineCpus", lambda: meta()["machine"]["cpus"], str, "CPU cores of the machine")


def collect(results: Path) -> Macros:
    m = Macros()
    add_ladder(m, results)
    add_cfr(m, results)
    add_metagame(m, results)
    add_metagame_ratio(m, results)
    add_exact(m, results)
    add_versions(m, results)
    return m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="paper/tables/results_macros.py")
    ap.add_argument("results", nargs="?", default="results/quick")
    args = ap.parse_args(argv)
    results = Path(args.results)
    m = collect(results)
    out = HERE / "results_macros.tex"
    out.write_text(m.tex(str(results)))
    for w in m.warnings:
        print(f"warning: missing result, macro prints ??: {w}")
    print(f"wrote {out} ({m.count} macros, {len(m.warnings)} missing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
