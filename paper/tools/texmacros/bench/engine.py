"""The paper's numbers from the saved results of the benchmark
:mod:`experiments.bench.engine` (``BENCH/engine.json``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

#: Versions quoted with the benchmarks, by their key in the metadata.
TOOLS = (("python", "Python"), ("open_spiel", "OpenSpiel"), ("numpy", "NumPy"),
         ("numba", "Numba"))


def tools(meta: dict) -> str:
    """``'Python 3.11.7, OpenSpiel 2.0.2, NumPy 2.4.6, Numba 0.68.1; 2 cores'``."""
    v = meta["versions"]
    return (", ".join(f"{label} {v[key]}" for key, label in TOOLS if key in v)
            + f"; {meta['machine']['cpus']} cores")


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``bench/engine.json`` (:mod:`texmacros`)."""
    from texmacros import fixed, read_json, tex_text
    engine = lambda: read_json(bench / "engine.json")["result"]        # noqa: E731
    m.add("EngineActionUs", lambda: engine()["median_us"]["action_ours"], fixed(2),
          "us per action, random play through pyspiel, ours")
    m.add("TicTacToeActionUs", lambda: engine()["median_us"]["action_ttt"], fixed(2),
          "us per action, python_tic_tac_toe")
    m.add("EngineActionRatio", lambda: engine()["action_cost_ratio_vs_python_tic_tac_toe"],
          fixed(2), "cost per action, ours / python_tic_tac_toe")
    m.add("BenchTools", lambda: tools(read_json(bench / "engine.json")["metadata"]), tex_text,
          "tool versions and cores of the benchmark machine (the performance table's caption)")
    m.add("EngineActionFaster", lambda: 1 / engine()["action_cost_ratio_vs_python_tic_tac_toe"],
          fixed(2), "random play through pyspiel: times faster than python_tic_tac_toe")
    m.add("EngineCloneFaster", lambda: 1 / engine()["clone_cost_ratio_vs_python_tic_tac_toe"],
          fixed(2), "clone(): times faster than python_tic_tac_toe's")
    m.add("EngineCloneUs", lambda: engine()["median_us"]["clone_ours"], fixed(2),
          "us per clone(), 6 players mid-hand")
    m.add("TicTacToeCloneUs", lambda: engine()["median_us"]["clone_ttt"], fixed(2),
          "us per clone(), python_tic_tac_toe mid-game")
    m.add("EngineCloneRatio", lambda: engine()["clone_cost_ratio_vs_python_tic_tac_toe"],
          fixed(2), "clone cost, ours / python_tic_tac_toe")
