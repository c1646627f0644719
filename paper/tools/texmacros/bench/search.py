"""The paper's numbers from the saved results of the benchmark
:mod:`experiments.bench.search` (``BENCH/search.json``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's speed numbers from ``bench/search.json`` (:mod:`texmacros`)."""
    from texmacros import fixed, pvalue, read_json, signed, thousands
    search = lambda: read_json(bench / "search.json")["result"]["speed"]   # noqa: E731
    m.add("IsmctsItersPerSecond", lambda: search()["iterations_per_second"]["ours"],
          lambda x: thousands(round(float(x))), "ISMCTS iterations/s, 6 players mid-hand")
    m.add("IsmctsRatioPython", lambda: search()["ratio_vs_openspiel_python"], fixed(0),
          "ours / OpenSpiel Python ISMCTSBot on our game")
    m.add("IsmctsRatioCpp", lambda: search()["ratio_vs_openspiel_cpp_hearts"], fixed(2),
          "ours / OpenSpiel C++ ISMCTSBot on C++ hearts")
    strength = lambda: read_json(bench / "search.json")["result"]["strength"]   # noqa: E731
    diff = lambda: strength()["payoff_ours_minus_openspiel"]                  # noqa: E731
    m.flag("IsmctsStrength", lambda: strength()["deals"] > 0,
           "the equal-iteration strength comparison with OpenSpiel's ISMCTSBot ran")
    m.add("IsmctsStrengthIterations", lambda: strength()["iterations"], thousands,
          "iterations per move of both ISMCTS implementations")
    m.add("IsmctsStrengthDeals", lambda: strength()["deals"], thousands, "duplicate deals")
    m.add("IsmctsStrengthSeatings", lambda: strength()["seat_assignments"], str,
          "seatings per deal")
    m.add("IsmctsStrengthGain", lambda: diff()["mean"], signed,
          "zero-sum payoff, ours minus OpenSpiel's, points per hand")
    m.add("IsmctsStrengthHalf", lambda: (diff()["hi"] - diff()["lo"]) / 2, fixed(2),
          "its 95% half-width")
    m.add("IsmctsStrengthP", lambda: diff()["p_value"], pvalue, "paired t-test p-value")
