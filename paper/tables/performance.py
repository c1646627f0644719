"""Table: speed against OpenSpiel (and rejection sampling), from the benchmark results.

``python paper/tables/performance.py [RESULTS_DIR] [--bench DIR]`` reads the
benchmarks' JSON files from ``--bench`` (default ``RESULTS_DIR/bench``; written
by ``python -m experiments.bench.NAME``, ``--quick`` for the quick profile) and
writes ``paper/tables/performance.tex``: one row group per benchmark, in the
order engine, simulator, observer, resampling, ISMCTS, CFR, NashConv.

Every ratio reads the same way: how many times faster ours is than the anchor
beside it (the anchor's time over ours, or our iterations per second over the
anchor's; below 1 means slower), as the benchmark reports it (the median of
per-repeat ratios where it records one). The tool versions and the machine go in the
caption through ``\\BenchTools`` (:mod:`texmacros.bench.engine`). A missing
benchmark leaves out its rows with a warning; with none at all, no table is
written (exit 0).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # texmacros

from texmacros import sci_bound

HERE = Path(__file__).resolve().parent
#: The benchmarks the table reads, in row order.
BENCHES = ("engine", "sim", "observers", "resample", "search", "cfr")
YEAR = 3.15e7                                           # seconds


def _us(x: float) -> str:
    return f"{x:.2f}~\\textmu s" if x < 100 else f"{x:,.0f}~\\textmu s".replace(",", "{,}")


def _ns(x: float) -> str:
    return f"{x:,.0f}~ns".replace(",", "{,}")


def _s(x: float) -> str:
    """Seconds in the unit that reads best (``ms`` below a second, ``\\textmu s`` below 1 ms)."""
    if x >= 1:
        return f"{x:.1f}~s"
    if x >= 1e-3:
        return f"{x * 1e3:.2f}~ms"
    return _us(x * 1e6)


def _rate(x: float) -> str:
    return f"{x:,.0f}/s".replace(",", "{,}")


def faster(x: float) -> str:
    """A ratio "ours is ``x`` times faster": ``2.54``, ``31.6``, ``100``; ``0.64``."""
    x = float(x)
    if x >= 100:
        return f"{x:,.0f}".replace(",", "{,}")
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _tt(s: str) -> str:
    return "\\texttt{" + s.replace("_", "\\_") + "}"


def rows(bench: dict) -> list[tuple[str, str, str, str, str]]:
    """``(figure, ours, anchor, anchor's figure, times faster)`` for every benchmark
    present in ``bench`` (``{name: its JSON}``)."""
    out = []
    if "engine" in bench:
        e = bench["engine"]["result"]
        m = e["median_us"]
        out += [("pyspiel API: random play, per action (chance included)", _us(m["action_ours"]),
                 "OpenSpiel " + _tt("python_tic_tac_toe") + ", same loop", _us(m["action_ttt"]),
                 faster(1 / e["action_cost_ratio_vs_python_tic_tac_toe"])),
                (_tt("clone()") + ", 6 players mid-hand", _us(m["clone_ours"]),
                 _tt("python_tic_tac_toe") + " mid-game", _us(m["clone_ttt"]),
                 faster(1 / e["clone_cost_ratio_vs_python_tic_tac_toe"]))]
    if "sim" in bench:
        s = bench["sim"]["result"]
        ns = s["ns_per_action"]
        out += [("compiled simulator, per action, one core", _ns(ns["simulator_1_core"]),
                 "C++ " + _tt("hearts") + ", " + _tt("evaluate_bots") + " loop",
                 _ns(ns["cpp_hearts_evaluate_bots"]),
                 faster(s["speedup_vs_cpp_hearts"])),                 # median of ratios
                ("compiled simulator, per action, one core", _ns(ns["simulator_1_core"]),
                 "our pyspiel API path", _ns(ns["pyspiel_python_path"]),
                 faster(s["simulator_vs_pyspiel_path"]))]
    if "observers" in bench:
        o = bench["observers"]["result"]
        m = o["median_us"]
        out += [("information-state tensor, mid-hand (" + _tt("set_from") + ")",
                 _us(m["observer"]), "C++ " + _tt("hearts") + " tensor from Python",
                 _us(m["cpp_hearts"]), faster(o["speedup_observer_vs_cpp"]))]
    if "resample" in bench:
        r = bench["resample"]["result"]
        sm = r["small_deck_rejection"]
        out += [("resampling hidden cards, 3 players, 12 cards", _us(sm["resample_median_us"]),
                 "rejection sampling, per accepted sample",
                 _us(sm["rejection_us_per_accepted_sample"]),
                 faster(sm["ratio_rejection_over_resample"])),
                ("resampling hidden cards, 6 players mid-hand",
                 _us(r["six_players_mid_hand"]["median_us_to_move"]),
                 "rejection sampling (acceptance $\\le "
                 + sci_bound(r["six_players_rejection"]["acceptance_upper_bound"], "up")
                 + "$)",
                 "$\\ge " + sci_bound(r["six_players_rejection"]
                                       ["estimated_seconds_per_accepted_sample_at_least"]
                                       / YEAR, "down")
                 + "$ years", "infeasible")]
    if "search" in bench:
        sp = bench["search"]["result"]["speed"]
        ips = sp["iterations_per_second"]
        n = f"{sp['iterations_per_move']:,}".replace(",", "{,}")
        out += [(f"ISMCTS iterations, 6 players mid-hand ({n} per move)", _rate(ips["ours"]),
                 "OpenSpiel Python " + _tt("ISMCTSBot") + ", same state",
                 _rate(ips["openspiel_python"]), faster(sp["ratio_vs_openspiel_python"])),
                ("ISMCTS iterations (as above)", _rate(ips["ours"]),
                 "OpenSpiel C++ " + _tt("ISMCTSBot") + ", C++ " + _tt("hearts")
                 + " (4 players) mid-hand",
                 _rate(ips["openspiel_cpp_hearts"]), faster(sp["ratio_vs_openspiel_cpp_hearts"]))]
    if "cfr" in bench:
        c = bench["cfr"]["result"]
        preset = bench["cfr"]["metadata"]["config"].get("small", "small")
        it, lc, nc = (c["cfr_small_vs_pyspiel"], c["cfr_leduc_vs_pyspiel_cpp"],
                      c["nash_conv_small_vs_openspiel"])
        h = f"{it['histories']:,}".replace(",", "{,}")
        out += [(f"CFR iteration, {_tt(preset)} ({h} histories)", _s(it["ours_s"]),
                 _tt("pyspiel.CFRSolver") + ", same game", _s(it["theirs_s"]),
                 faster(it["speedup"])),
                ("CFR iteration, " + _tt("leduc_poker"), _s(lc["ours_s"]),
                 _tt("pyspiel.CFRSolver") + ", C++ leduc", _s(lc["theirs_s"]),
                 faster(lc["speedup"])),
                (f"NashConv, {_tt(preset)} ("
                 + ("same value" if nc["abs_difference"] < 1e-12
                    else f"values differ by ${_sci(nc['abs_difference'])}$")
                 + ")",
                 _s(nc["ours_s"]), "OpenSpiel Python " + _tt("nash_conv"),
                 _s(nc["theirs_s"]), faster(nc["speedup"]))]
    return out


def _sci(x: float) -> str:
    """``1.5e-05`` -> ``1.5\\times 10^{-5}`` (math mode; two significant digits,
    rounded to nearest: for a value, not a bound; bounds use :func:`sci_bound`)."""
    mant, exp = f"{float(x):.1e}".split("e")
    return f"{mant}\\times 10^{{{int(exp)}}}"


def make_table(bench: dict) -> str:
    lines = ["% generated by paper/tables/performance.py from "
             + ", ".join(f"{n}.json" for n in bench) + "; do not edit",
             "\\begin{tabular}{p{4.6cm}rp{3.6cm}rr}", "\\toprule",
             "figure & ours & anchor & anchor & times faster \\\\",
             " & & & & than the anchor \\\\", "\\midrule"]
    lines += [" & ".join(r) + " \\\\" for r in rows(bench)]
    lines += ["\\bottomrule", "\\end{tabular}"]
    lines += [f"% {n}: commit {b['metadata'].get('git_commit')}, "
              f"machine {b['metadata'].get('machine')}" for n, b in bench.items()]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="paper/tables/performance.py")
    ap.add_argument("results", nargs="?", default="results/quick")
    ap.add_argument("--bench", default=None, help="benchmark results (default RESULTS/bench)")
    args = ap.parse_args(argv)
    folder = Path(args.bench) if args.bench else Path(args.results) / "bench"
    bench = {n: json.loads((folder / f"{n}.json").read_text())
             for n in BENCHES if (folder / f"{n}.json").exists()}
    missing = [n for n in BENCHES if n not in bench]
    if missing:
        print(f"warning: {', '.join(str(folder / f'{n}.json') for n in missing)} not found "
              f"(python -m experiments.bench.NAME [--quick]); their rows are left out")
    if not bench:
        print("warning: no benchmark results; no table written")
        return 0
    out = HERE / "performance.tex"
    out.write_text(make_table(bench))
    print(f"wrote {out} ({len(bench)} benchmarks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
