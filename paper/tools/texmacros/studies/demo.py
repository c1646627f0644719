"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.demo` (``RESULTS/demo/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``demo/`` (:mod:`texmacros`)."""
    from texmacros import read_json, thousands
    m.add("DemoHands", lambda: read_json(results / "demo" / "metadata.json")["config"]["hands"],
          thousands, "random hands per player count in the demo")
