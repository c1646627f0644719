"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.rules_stats` (``RESULTS/rules_stats/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

import math
from pathlib import Path

#: Player counts as words, for macro names (``VoidTricksBalancedSix``).
NUMBER_WORDS = {5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten",
                11: "Eleven"}


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``rules_stats/`` (:mod:`texmacros`)."""
    from texmacros import fixed, read_csv, read_json, tex_text, thousands
    rs_dir = results / "rules_stats"
    rs = lambda: read_csv(rs_dir / "summary.csv")                   # noqa: E731
    rs_meta = lambda: read_json(rs_dir / "metadata.json")           # noqa: E731

    def row(name):
        return next(r for r in rs() if r["configuration"] == name)

    def finite(rows, key):
        return [r for r in rows if not math.isnan(float(r[key]))]

    m.add("RulesStatsProfile", lambda: rs_meta()["profile"], tex_text, "results profile")
    m.add("RulesStatsHands", lambda: rs_meta()["config"]["hands"], thousands,
          "random hands per configuration")
    m.add("RulesStatsConfigurations", lambda: len(rs()), str, "configurations")
    m.add("RulesStatsSeed", lambda: rs_meta()["seed"], str, "seed")
    m.add("RulesStatsCommit", lambda: (rs_meta()["git_commit"] or "not recorded")[:12],
          tex_text, "git commit")
    best = lambda: max(rs(), key=lambda r: float(r["seat_spread"]))   # noqa: E731
    m.add("MaxSeatSpread", lambda: best()["seat_spread"], fixed(2),
          "largest spread of mean points between seats")
    m.add("MaxSeatSpreadCI", lambda: best()["ci95_max"], fixed(2),
          "its 95% half-width (largest over seats)")
    m.add("MaxSeatSpreadConfig", lambda: best()["configuration"], tex_text,
          "the configuration with the largest seat spread")
    aard = lambda: finite(rs(), "aardvark_success_rate")               # noqa: E731
    lo = lambda: min(aard(), key=lambda r: float(r["aardvark_success_rate"]))   # noqa: E731
    hi = lambda: max(aard(), key=lambda r: float(r["aardvark_success_rate"]))   # noqa: E731
    m.add("AardvarkMin", lambda: lo()["aardvark_success_rate"], fixed(3),
          "lowest Aardvark success rate")
    m.add("AardvarkMinConfig", lambda: lo()["configuration"], tex_text, "where")
    m.add("AardvarkMax", lambda: hi()["aardvark_success_rate"], fixed(3),
          "highest Aardvark success rate")
    m.add("AardvarkMaxConfig", lambda: hi()["configuration"], tex_text, "where")
    for n, word in NUMBER_WORDS.items():
        m.add(f"VoidTricksBalanced{word}",
              lambda n=n: row(f"balanced {n}")["void_tricks_per_hand"], fixed(3),
              f"void tricks per hand, balanced deck, {n} players")
        m.add(f"AardvarkBalanced{word}",
              lambda n=n: row(f"balanced {n}")["aardvark_success_rate"], fixed(3),
              f"Aardvark success rate, balanced deck, {n} players")
    m.add("MoonsPerTenThousandMax",
          lambda: 1e4 * max(float(r["moon_frequency"]) for r in rs()), fixed(1),
          "most moons per 10^4 random hands over the configurations")
