"""The benchmarks: ``python -m experiments.bench.<name>`` (engine, sim, observers,
resample, search, cfr), each printing a markdown table and writing
``results/<profile>/bench/<name>.json``: the full measurement (the paper's
figures) writes ``results/paper/bench/``; ``--quick`` measures the same
quantities with small sizes in seconds (what ``make reproduce`` runs, so that
the quick paper has every number) and writes ``results/quick/bench/``.
``--out`` replaces the file. They measure; they define nothing that a test or a
notebook imports.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BENCHES", "default_out", "run_and_write"]

#: Every benchmark module, in the order ``python -m experiments reproduce`` runs them.
BENCHES = ("engine", "observers", "resample", "sim", "search", "cfr")


def default_out(name: str, quick: bool) -> Path:
    """``results/quick/bench/NAME.json`` with ``--quick``, else ``results/paper/bench/NAME.json``
    (under ``$CH_RESULTS`` instead of ``results`` when it is set)."""
    from ..runner import results_root
    return results_root() / ("quick" if quick else "paper") / "bench" / f"{name}.json"


def run_and_write(name: str, quick: bool, out: str | None, run, table, config, seed: int) -> int:
    """A benchmark's last step: call ``run()``, print ``table(result)``, write the
    result with its metadata (``config``, ``seed``, the start time) to ``out``
    (default :func:`default_out`) and say where. Returns 0, the exit status."""
    import datetime as dt

    from .._base.metadata import metadata, write_result
    out = str(default_out(name, quick)) if out is None else out
    started = dt.datetime.now(dt.UTC)
    res = run()
    print(table(res))
    write_result(out, res, metadata(config, seed, started))
    print(f"written to {out}")
    return 0
