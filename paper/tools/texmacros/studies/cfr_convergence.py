"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.cfr_convergence` (``RESULTS/cfr_convergence/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``cfr_convergence/`` (:mod:`texmacros`): every
    variant's final NashConv and time on each deal, their order, and the table rows."""
    from texmacros import WORDS, fixed, read_csv, read_json, sci, seconds, tex_text, thousands, tt
    #: the variants by their name in the results, as they appear in macro names
    solver_words = {"CFR": "Cfr", "CFR+": "CfrPlus", "LCFR": "Lcfr", "DCFR": "Dcfr",
                    "PCFR+": "PcfrPlus"}
    folder = results / "cfr_convergence"
    cfg = lambda: read_json(folder / "metadata.json")["config"]      # noqa: E731

    def runs() -> dict:
        """``{players: {"deal", "histories", "infosets", "runs": {solver: [rows]}}}``."""
        out: dict = {}
        for r in read_csv(folder / "rows.csv"):
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
    def deal(n: int) -> dict:
        return runs()[n]

    def final(s: str, n: int) -> float:
        """NashConv of ``s``'s average strategy after the last iteration at ``n`` players."""
        return float(deal(n)["runs"][s][-1]["nash_conv"])

    def secs(s: str, n: int) -> float:
        """``s``'s solver seconds for all iterations at ``n`` players."""
        return float(deal(n)["runs"][s][-1]["seconds"])

    def order(n: int) -> list[str]:
        """The solvers by final NashConv at ``n`` players, smallest first."""
        return sorted(deal(n)["runs"], key=lambda s: final(s, n))

    def reach(n: int) -> dict:
        """The first checkpoint where the best solver is at or below CFR's final NashConv."""
        target = final("CFR", n)
        return next(r for r in deal(n)["runs"][order(n)[0]] if float(r["nash_conv"]) <= target)

    for n in (2, 3):
        w = WORDS[n]
        m.add(f"Cfr{w}Deal", lambda n=n: deal(n)["deal"], tt, f"the {n}-player deal")
        m.add(f"Cfr{w}Histories", lambda n=n: deal(n)["histories"], thousands, "histories")
        m.add(f"Cfr{w}Infosets", lambda n=n: deal(n)["infosets"], thousands, "information sets")
        m.add(f"Cfr{w}Initial", lambda n=n: float(deal(n)["runs"]["CFR"][0]["nash_conv"]), sci,
              "NashConv after one CFR iteration")
        for solver, sw in solver_words.items():
            m.add(f"Cfr{w}Final{sw}", lambda s=solver, n=n: final(s, n), sci,
                  f"NashConv of {solver}'s average strategy after the last iteration")
            m.add(f"Cfr{w}Seconds{sw}", lambda s=solver, n=n: secs(s, n), seconds,
                  f"{solver}: solver seconds for all iterations")
        m.add(f"Cfr{w}Order", lambda n=n: " $<$ ".join(tex_text(x) for x in order(n)), str,
              "solvers by final NashConv, smallest first")
        m.add(f"Cfr{w}Best", lambda n=n: order(n)[0], tex_text, "smallest final NashConv")
        m.add(f"Cfr{w}BestFinal", lambda n=n: final(order(n)[0], n), sci, "its NashConv")
        m.add(f"Cfr{w}Worst", lambda n=n: order(n)[-1], tex_text, "largest final NashConv")
        m.add(f"Cfr{w}WorstFinal", lambda n=n: final(order(n)[-1], n), sci, "its NashConv")
        m.add(f"Cfr{w}SecondsSpread",
              lambda n=n: (max(secs(x, n) for x in deal(n)["runs"]) /
                           min(secs(x, n) for x in deal(n)["runs"])), fixed(1),
              "slowest / fastest variant in solver seconds for the same iterations")
        m.add(f"Cfr{w}BestFactor", lambda n=n: final("CFR", n) / final(order(n)[0], n),
              lambda x: thousands(round(x)), "CFR's final NashConv / the best one's")
        m.add(f"Cfr{w}BestReachIterations", lambda n=n: reach(n)["iteration"], thousands,
              "iterations the best solver needs to match CFR's final NashConv")
        m.add(f"Cfr{w}BestReachSeconds", lambda n=n: float(reach(n)["seconds"]), seconds,
              "its solver seconds then")
        m.add(f"Cfr{w}BestMaxGain",
              lambda n=n: max(float(deal(n)["runs"][order(n)[0]][-1][f"improvement_{p}"])
                              for p in range(n)), sci,
              "the best solver's largest single-player best-response gain at the end")

    def cfr_items() -> list:
        return [(n, d["deal"], s, rows[-1]) for n, d in sorted(runs().items())
                for s, rows in sorted(d["runs"].items(),
                                      key=lambda kv: float(kv[1][-1]["nash_conv"]))]
    m.add_rows("CfrRows", cfr_items,
               lambda it: (f"{tt(it[1])} & {it[0]} & {tex_text(it[2])} & "
                           f"{sci(it[3]['nash_conv'])} & {seconds(it[3]['seconds'])}"),
               "table rows: final NashConv and time of every solver")
