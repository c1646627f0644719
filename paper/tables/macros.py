"""Macros for main.tex, from saved results: writes paper/tables/macros.tex.

``python paper/tables/macros.py [RESULTS_DIR] [--bench DIR]``

``RESULTS_DIR`` is ``results/<profile>`` (default ``results/quick``);
benchmarks are read from ``--bench`` (default ``RESULTS_DIR/bench``).
Every number the text quotes is a macro written from the saved results of
the study or the benchmark that computes it (``paper/tools/texmacros/``, one
module per study or benchmark; :data:`texmacros.SOURCES` lists them), the
body rows of the results tables too (``\\LadderRows``, ``\\CfrRows``, ...); a
macro whose result is missing expands to a bold ``??`` and the script prints
a warning (it still exits 0: ``paper/tools/build.py`` decides whether a
missing number fails the build). Shipped results (``paper/results/``) are
first checked against their ``SHA256SUMS``; a damaged file stops the script
(exit 2) with its name.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # texmacros

from experiments import _shipped as shipped
from texmacros import collect

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="paper/tables/macros.py")
    ap.add_argument("results", nargs="?", default="results/quick")
    ap.add_argument("--bench", default=None, help="benchmark results (default RESULTS/bench)")
    args = ap.parse_args(argv)
    results = Path(args.results)
    bench = Path(args.bench) if args.bench else results / "bench"
    if shipped.is_shipped(results):           # paper/results: every file against SHA256SUMS
        try:
            shipped.verify(results)
        except shipped.ShippedResultsError as err:
            print(f"error: {err}")
            return 2
    m = collect(results, bench)
    out = HERE / "macros.tex"
    out.write_text(m.tex(f"{results} and {bench}"))
    for w in m.warnings:
        print(f"warning: missing result, macro prints ??: {w}")
    print(f"wrote {out} ({m.count} macros, {len(m.warnings)} missing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
