"""The paper's numbers from the saved results of the benchmark
:mod:`experiments.bench.resample` (``BENCH/resample.json``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``bench/resample.json`` (:mod:`texmacros`)."""
    from texmacros import fixed, read_json
    resample = lambda: read_json(bench / "resample.json")["result"]    # noqa: E731
    m.add("ResampleUs", lambda: resample()["six_players_mid_hand"]["median_us_to_move"],
          fixed(0), "us per resample_from_infostate, 6 players mid-hand")
