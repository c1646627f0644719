"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.passing_metagame` (``RESULTS/passing_metagame/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

import math
from pathlib import Path


def _eleven(results: Path) -> dict:
    """The 11-player run's summary as ``{"config", "conventions", "library",
    "rollout", "nash", "alpharank"}`` with ``(mean, lo, hi)`` for the gains."""
    from texmacros import read_csv, read_json
    folder = results / "passing_metagame_11"
    cfg = read_json(folder / "metadata.json")["config"]
    rows = read_csv(folder / "summary.csv")
    f = lambda r, *keys: tuple(float(r[k]) for k in keys)       # noqa: E731
    return {"config": cfg, "conventions": [r["convention"] for r in rows],
            "library": {r["convention"]: f(r, "library_gain", "library_lo", "library_hi")
                        for r in rows},
            "rollout": {r["convention"]: f(r, "rollout_gain", "rollout_lo", "rollout_hi")
                        for r in rows},
            "nash": {r["convention"]: float(r["nash"]) for r in rows},
            "alpharank": {r["convention"]: float(r["alpharank"]) for r in rows}}


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``passing_metagame/`` and ``passing_metagame_11/``
    (:mod:`texmacros`)."""
    from texmacros import (
        WORDS,
        fixed,
        interval,
        mass,
        read_csv,
        read_json,
        sci,
        signed,
        spread,
        tex_text,
        thousands,
        tt,
    )
    m.add("PassingSixDeals",
          lambda: read_json(results / "passing_metagame" / "metadata.json")["config"]["deals"],
          thousands, "duplicate deals per profile and rotation, 6-player meta-game")
    p11 = lambda: _eleven(results)                                  # noqa: E731
    top = lambda key: max(p11()[key].items(), key=lambda kv: kv[1])   # noqa: E731
    k11 = lambda: len(p11()["conventions"])                         # noqa: E731
    m.add("PassingElevenConventions", k11, str, "conventions in the 11-player meta-game")
    m.add("PassingElevenProfiles", lambda: math.comb(10 + k11(), k11() - 1), thousands,
          "profiles up to symmetry, 11 seats")
    m.add("PassingElevenDeals", lambda: p11()["config"]["deals"], thousands,
          "duplicate deals per profile and rotation")
    m.add("PassingElevenHands",
          lambda: math.comb(10 + k11(), k11() - 1) * 11 * p11()["config"]["deals"], thousands,
          "hands simulated for the 11-player meta-game")
    m.add("PassingElevenBootstrap", lambda: p11()["config"]["bootstrap"], thousands,
          "bootstrap replicates over deals")
    m.add("PassingElevenRolloutDeals", lambda: p11()["config"]["br_deals"], thousands,
          "deals of the rollout best-response passer")
    m.add("PassingElevenRolloutSamples", lambda: p11()["config"]["br_samples"], str,
          "sampled worlds per candidate pass")
    m.add("PassingElevenNashTop", lambda: top("nash")[0], tex_text,
          "largest mass of the replicator equilibrium")
    m.add("PassingElevenNashTopMass", lambda: top("nash")[1], fixed(2), "its mass")
    m.add("PassingElevenAlphaTop", lambda: top("alpharank")[0], tex_text,
          "largest alpha-Rank mass")
    m.add("PassingElevenAlphaTopMass", lambda: top("alpharank")[1], fixed(2), "its mass")
    lib = lambda: max(p11()["library"].items(), key=lambda kv: kv[1][0])    # noqa: E731
    m.add("PassingElevenLibraryMax", lambda: lib()[0], tex_text,
          "most exploitable convention by the best library deviation")
    m.add("PassingElevenLibraryMaxGain", lambda: lib()[1][0], fixed(2), "its gain, points/hand")
    m.add("PassingElevenLibraryMaxLo", lambda: lib()[1][1], fixed(2), "95% bootstrap low")
    m.add("PassingElevenLibraryMaxHi", lambda: lib()[1][2], fixed(2), "95% bootstrap high")
    ro = lambda: max(p11()["rollout"].items(), key=lambda kv: kv[1][0])     # noqa: E731
    m.add("PassingElevenRolloutMax", lambda: ro()[0], tex_text,
          "largest gain of the rollout best-response passer")
    m.add("PassingElevenRolloutMaxGain", lambda: ro()[1][0], fixed(2), "its gain, points/hand")
    m.add("PassingElevenRolloutMaxLo", lambda: ro()[1][1], fixed(2), "95% low")
    m.add("PassingElevenRolloutMaxHi", lambda: ro()[1][2], fixed(2), "95% high")

    # every convention of both meta-games, with its intervals, and the table rows
    for n, folder_name in ((6, "passing_metagame"), (11, "passing_metagame_11")):
        w = WORDS[n]
        folder = results / folder_name
        cfg = lambda f=folder: read_json(f / "metadata.json")["config"]    # noqa: E731

        def conv(f=folder) -> dict:
            return {r["convention"]: r for r in read_csv(f / "rows.csv")
                    if r["kind"] == "convention"}

        def br(f=folder) -> dict:
            return {r["convention"]: r for r in read_csv(f / "rows.csv")
                    if r["kind"] == "rollout_br"}

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

        leader = lambda key, c=conv: max(c().values(), key=lambda row: float(row[key]))  # noqa: E731
        for key, word in (("nash", "Nash"), ("alpharank", "Alpha")):
            t = lambda key=key, ld=leader: ld(key)                          # noqa: E731
            m.add(f"Meta{w}{word}Top", lambda t=t: t()["convention"], tt,
                  f"largest {key} mass")
            m.add(f"Meta{w}{word}TopMass", lambda t=t, key=key: float(t()[key]), fixed(2),
                  "its mass")
            m.add(f"Meta{w}{word}TopLo", lambda t=t, key=key: float(t()[f"{key}_lo"]), fixed(4),
                  "bootstrap 95% low")
            m.add(f"Meta{w}{word}TopHi", lambda t=t, key=key: float(t()[f"{key}_hi"]), fixed(4),
                  "bootstrap 95% high")
            m.add(f"Meta{w}{word}TopSpread",
                  lambda t=t, key=key, c=cfg: spread(float(t()[f"{key}_lo"]),
                                                     float(t()[f"{key}_hi"]),
                                                     c()["bootstrap"], "bootstrap replicates",
                                                     fixed(2)),
                  str, "its bootstrap 95% interval, or what every replicate gave")
        m.add(f"Meta{w}NashTopRegret", lambda ld=leader: float(ld("nash")["regret"]), sci,
              "regret of the replicator equilibrium")
        nt = lambda ld=leader: ld("nash")["convention"]                      # noqa: E731
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
                     pick(s().values(), key=lambda row: float(row[col])))
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
              lambda b=br: sum(float(r["hi"]) < 0 for r in b().values()),
              lambda k: "none" if int(k) == 0 else str(k),
              "conventions against which the rollout passer's whole 95% interval is below 0")

        def items(c=conv, b=br) -> list:
            bv = c(), b()
            return [(name, r, bv[1][name]) for name, r in bv[0].items()]

        def row(item, c=cfg) -> str:
            name, r, b = item
            lib = interval(r['library_lo'], r['library_hi'])
            if signed(r['library_lo']) == signed(r['library_hi']):
                lib = f"(all {thousands(c()['bootstrap'])})"
            return (f"{tt(name)} & {signed(r['library_gain'])} "
                    f"{lib} & {signed(b['mean'])} "
                    f"{interval(b['lo'], b['hi'])} & {mass(r['nash'])} & {mass(r['alpharank'])}")
        m.add_rows(f"Meta{w}Rows", items, row, f"table rows: every convention, {n} players")

    # the 11-player meta-game against the 6-player one
    def largest(folder: str) -> float:
        return max(float(r["library_gain"]) for r in read_csv(results / folder / "rows.csv")
                   if r["kind"] == "convention")
    m.add("MetaElevenOverSix",
          lambda: largest("passing_metagame_11") / largest("passing_metagame"), fixed(2),
          "largest library gain at 11 players / at 6 players")
