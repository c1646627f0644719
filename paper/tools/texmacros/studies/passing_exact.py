"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.passing_exact` (``RESULTS/passing_exact/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``passing_exact/`` (:mod:`texmacros`): the
    least and most exploitable conventions on each reduced deal, the equilibrium's
    support, and the table rows."""
    from texmacros import (
        WORDS,
        fixed,
        mass,
        names,
        read_csv,
        read_json,
        sci,
        tex_text,
        thousands,
        tt,
    )
    folder = results / "passing_exact"
    cfg = lambda: read_json(folder / "metadata.json")["config"]      # noqa: E731

    def deals() -> dict:
        """``{players: {"deal", "conv": {convention: row}}}`` from the convention rows."""
        out: dict = {}
        for r in read_csv(folder / "rows.csv"):
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
    gain = lambda r: float(r["gain_pass_play"])                        # noqa: E731
    for n in (2, 3):
        w = WORDS[n]
        conv = lambda n=n: deals()[n]["conv"]                          # noqa: E731
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
