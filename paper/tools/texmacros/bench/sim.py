"""The paper's numbers from the saved results of the benchmark
:mod:`experiments.bench.sim` (``BENCH/sim.json``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``bench/sim.json`` (:mod:`texmacros`)."""
    from texmacros import fixed, read_json, thousands
    sim = lambda: read_json(bench / "sim.json")["result"]              # noqa: E731
    m.add("SimNsPerAction", lambda: sim()["ns_per_action"]["simulator_1_core"], fixed(0),
          "ns per action, compiled simulator, one core, 6 players")
    m.add("CppHeartsNsPerAction", lambda: sim()["ns_per_action"]["cpp_hearts_evaluate_bots"],
          fixed(0), "ns per action, OpenSpiel C++ hearts, evaluate_bots")
    m.add("SimSpeedupCppHearts", lambda: sim()["speedup_vs_cpp_hearts"], fixed(1),
          "C++ hearts time per action / simulator time per action")
    m.add("SimSpeedupPyspiel", lambda: sim()["simulator_vs_pyspiel_path"], fixed(0),
          "pyspiel path time per action / simulator time per action")
    m.add("SimUsPerHandFive", lambda: sim()["scaling"]["5"]["us_per_hand"], fixed(1),
          "us per random hand, 5 players")
    m.add("SimUsPerHandEleven", lambda: sim()["scaling"]["11"]["us_per_hand"], fixed(1),
          "us per random hand, 11 players")
    m.add("SimEquivalenceGames", lambda: sim()["equivalence"]["games"], thousands,
          "simulated games replayed through pyspiel")
    m.add("SimEquivalenceConfigs", lambda: sim()["equivalence"]["configs"], str,
          "rule configurations of the replay check")
    m.add("SimEquivalenceMismatches", lambda: sim()["equivalence"]["mismatches"], str,
          "replays that disagreed")
