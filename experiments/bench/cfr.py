"""Speed and memory figures of the CFR family, measured side by side in one run.

* CFR iteration time on ``small`` (our flat-tree CFR against
  ``pyspiel.CFRSolver`` on the same ``python_cancellation_hearts`` game;
  goal: at least 30x faster);
* CFR iteration time on ``leduc_poker`` (our CFR on the tree of OpenSpiel's C++
  leduc against ``pyspiel.CFRSolver`` on C++ leduc; goal: at least 3x);
* NashConv on ``small`` (ours against
  ``open_spiel.python.algorithms.exploitability.nash_conv``; goal: at least
  30x, same value);
* memory: bytes per information set (tree + solver arrays) for every preset,
  and the peak resident memory of building ``medium`` and iterating on it in a
  fresh process (goal: within 4 GiB);
* how tree extraction, CFR iteration and NashConv times grow with the number
  of histories, from ``micro`` to ``medium``.

Interleaved repeats, medians of per-repeat ratios (machines here are shared).
Prints markdown tables and writes the result as JSON::

    python -m experiments.bench.cfr [--quick] [--repeats 3] [--out FILE]
        [--no-medium] [--tiny-reference N]

(``results/paper/bench/cfr.json``; ``--quick``: smaller presets, seconds,
``results/quick/bench/``.)

``--tiny-reference N`` instead prints pyspiel.CFRSolver's NashConv (by
pyspiel.nash_conv) after iterations 1..N on ``tiny``: the constants of
``tests/solvers/test_cfr_solvers.py`` (about 1 min per iteration and 7 min per NashConv).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import statistics
import subprocess
import sys
import time

import pyspiel
from open_spiel.python.algorithms import exploitability

import spiel_game
from solvers.cfr._best_response import nash_conv
from solvers.cfr._policy import to_tabular_policy
from solvers.cfr._solvers import CFR, SOLVERS, make_solver
from solvers.cfr._tree import build_tree

from . import run_and_write

__all__ = ["BenchCFRConfig", "run", "tables", "tiny_reference"]

GIB = 2 ** 30


@dataclasses.dataclass(frozen=True)
class BenchCFRConfig:
    """What the benchmark measures (defaults: the figures the README and paper quote)."""

    seed: int = 0                   # nothing is random; kept for provenance
    repeats: int = 3                # interleaved repeats of each side-by-side timing
    small: str = "small"            # the preset of the pyspiel comparisons
    scaling: tuple[str, ...] = ("micro", "micro3", "micro4", "micro_pass", "small",
                                "small3", "tiny", "medium3")
    medium: bool = True             # build medium in a child process (memory, timings)


def _clock(fn, number: int = 1) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def _side_by_side(ours, theirs, repeats: int, n_ours: int, n_theirs: int) -> dict:
    """Seconds per call of each (medians) and the median of per-repeat ratios."""
    a, b = [], []
    for _ in range(repeats):
        b.append(_clock(theirs, n_theirs))
        a.append(_clock(ours, n_ours))
    return {"ours_s": statistics.median(a), "theirs_s": statistics.median(b),
            "speedup": statistics.median(y / x for x, y in zip(a, b)),
            "ours_all_s": a, "theirs_all_s": b}


def cfr_iteration_vs_pyspiel(game, repeats: int, n_theirs: int = 1) -> dict:
    """Our CFR iteration against pyspiel.CFRSolver's on ``game``."""
    t0 = time.perf_counter()
    tree = build_tree(game)
    build_s = time.perf_counter() - t0
    ours = CFR(tree).iterate(1)                     # compiled, warm
    t0 = time.perf_counter()
    theirs = pyspiel.CFRSolver(game)
    init_s = time.perf_counter() - t0
    theirs.evaluate_and_update_policy()
    once = _clock(ours.iterate)
    n_ours = max(1, int(0.5 / max(once, 1e-6)))
    res = _side_by_side(lambda: ours.iterate(1), theirs.evaluate_and_update_policy,
                        repeats, n_ours, n_theirs)
    res.update(histories=tree.num_nodes, infosets=tree.num_infosets,
               ours_build_s=build_s, theirs_init_s=init_s)
    return res


def nash_conv_vs_openspiel(game, repeats: int, iterations: int = 20) -> dict:
    """Our NashConv against OpenSpiel's python ``exploitability.nash_conv`` of
    the same policy (CFR's average after ``iterations``)."""
    tree = build_tree(game)
    profile = CFR(tree).iterate(iterations).average_policy()
    t0 = time.perf_counter()
    tab = to_tabular_policy(tree, profile)
    tab_s = time.perf_counter() - t0
    values = {}

    def ours():
        values["ours"] = nash_conv(tree, profile)

    def theirs():
        values["theirs"] = exploitability.nash_conv(game, tab)

    ours()
    res = _side_by_side(ours, theirs, repeats, 5, 1)
    res.update(nash_conv_ours=values["ours"], nash_conv_theirs=values["theirs"],
               abs_difference=abs(values["ours"] - values["theirs"]),
               tabular_policy_s=tab_s, iterations=iterations)
    return res


def scaling_row(name: str, iterations: int = 5) -> dict:
    """Sizes, memory and times of one preset (every variant's iteration time)."""
    game = spiel_game.load(name)
    t0 = time.perf_counter()
    tree = build_tree(game)
    build_s = time.perf_counter() - t0
    row = {"preset": name, "players": game.num_players(), "histories": tree.num_nodes,
           "decision_nodes": tree.num_decision_nodes, "infosets": tree.num_infosets,
           "sequences": tree.num_sequences, "build_s": build_s, "tree_bytes": tree.nbytes}
    for v in SOLVERS:
        s = make_solver(v, tree).iterate(1)
        row[f"iteration_s[{v}]"] = _clock(lambda s=s: s.iterate(1), iterations)
        if v == "CFR":
            row["solver_bytes"] = s.nbytes()
            t0 = time.perf_counter()
            nash_conv(tree, s.average_policy())
            row["nash_conv_s"] = time.perf_counter() - t0
    row["iteration_s"] = row["iteration_s[CFR]"]
    row["ns_per_history_iteration"] = 1e9 * row["iteration_s"] / tree.num_nodes
    row["bytes_per_infoset"] = (row["tree_bytes"] + row["solver_bytes"]) / tree.num_infosets
    return row


def _medium_child() -> dict:
    """In a fresh process: build ``medium``, run CFR, value it; peak memory."""
    row = scaling_row("medium", iterations=2)
    row["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return row


def run(config: BenchCFRConfig) -> dict:
    small = spiel_game.load(config.small)
    leduc = pyspiel.load_game("leduc_poker")
    res = {
        "cfr_small_vs_pyspiel": cfr_iteration_vs_pyspiel(small, config.repeats),
        "cfr_leduc_vs_pyspiel_cpp": cfr_iteration_vs_pyspiel(leduc, config.repeats,
                                                             n_theirs=20),
        "nash_conv_small_vs_openspiel": nash_conv_vs_openspiel(small, config.repeats),
        "scaling": [scaling_row(name) for name in config.scaling],
        "goals": {"cfr_small_vs_pyspiel": ">= 30x", "cfr_leduc_vs_pyspiel_cpp": ">= 3x",
                  "nash_conv_small_vs_openspiel": ">= 30x, same value",
                  "medium_peak_rss": "<= 4 GiB"},
    }
    if config.medium:
        out = subprocess.run([sys.executable, "-m", "experiments.bench.cfr", "--medium-child"],
                             capture_output=True, text=True, check=True)
        res["scaling"].append(json.loads(out.stdout.strip().splitlines()[-1]))
    return res


def tables(res: dict) -> str:
    c, le, n = (res["cfr_small_vs_pyspiel"], res["cfr_leduc_vs_pyspiel_cpp"],
               res["nash_conv_small_vs_openspiel"])
    lines = [
        "| figure | ours | anchor | speedup (median) | goal |",
        "|---|---|---|---|---|",
        f"| CFR iteration, `small` ({c['histories']:,} histories) | {c['ours_s'] * 1e3:.2f} ms "
        f"| {c['theirs_s'] * 1e3:.0f} ms (`pyspiel.CFRSolver`, same python game) "
        f"| {c['speedup']:.0f}x | >= 30x |",
        f"| CFR iteration, `leduc_poker` | {le['ours_s'] * 1e3:.3f} ms "
        f"| {le['theirs_s'] * 1e3:.2f} ms (`pyspiel.CFRSolver`, C++ leduc) "
        f"| {le['speedup']:.0f}x | >= 3x |",
        f"| NashConv, `small` | {n['ours_s'] * 1e3:.1f} ms "
        f"| {n['theirs_s']:.1f} s (`exploitability.nash_conv`) | {n['speedup']:.0f}x "
        f"| >= 30x, same value (difference {n['abs_difference']:.1e}) |",
        "",
        f"Tree extraction: `small` {c['ours_build_s']:.2f} s (pyspiel.CFRSolver set-up "
        f"{c['theirs_init_s']:.1f} s); TabularPolicy of `small` {n['tabular_policy_s']:.1f} s.",
        "",
        "| preset | players | histories | infosets | build | CFR iteration | ns / history "
        "| NashConv | bytes / infoset | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(res["scaling"], key=lambda r: r["histories"]):
        peak = f"{r['peak_rss_bytes'] / GIB:.2f} GiB" if "peak_rss_bytes" in r else ""
        lines.append(
            f"| `{r['preset']}` | {r['players']} | {r['histories']:,} | {r['infosets']:,} "
            f"| {r['build_s']:.2f} s | {r['iteration_s'] * 1e3:.2f} ms "
            f"| {r['ns_per_history_iteration']:.0f} | {r['nash_conv_s'] * 1e3:.0f} ms "
            f"| {r['bytes_per_infoset']:.0f} | {peak} |")
    lines += ["", "| preset | " + " | ".join(SOLVERS) + " |",
              "|---|" + "---|" * len(SOLVERS)]
    for r in sorted(res["scaling"], key=lambda r: r["histories"]):
        lines.append(f"| `{r['preset']}` | " + " | ".join(
            f"{r[f'iteration_s[{v}]'] * 1e3:.2f} ms" for v in SOLVERS) + " |")
    return "\n".join(lines)


def tiny_reference(iterations: int) -> list[float]:
    """pyspiel.CFRSolver's NashConv on ``tiny`` after iterations 1..N (slow)."""
    game = spiel_game.load("tiny")
    solver = pyspiel.CFRSolver(game)
    out = []
    for i in range(iterations):
        solver.evaluate_and_update_policy()
        out.append(pyspiel.nash_conv(game, solver.average_policy()))
        print(f"iteration {i + 1}: {out[-1]!r}", flush=True)
    return out


#: The ``--quick`` run, the same measurements on smaller presets (seconds): the pyspiel
#: comparisons on ``micro3``, the scaling rows of ``micro`` and ``micro3``, no
#: ``medium``, one repeat.
QUICK = BenchCFRConfig(repeats=1, small="micro3", scaling=("micro", "micro3"), medium=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.cfr")
    ap.add_argument("--quick", action="store_true",
                    help="seconds: micro3 instead of small, no medium, 1 repeat; into "
                         "results/quick/bench")
    ap.add_argument("--repeats", type=int, default=None,
                    help=f"default {BenchCFRConfig.repeats} (quick: {QUICK.repeats})")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/cfr.json, results/quick/bench with --quick)")
    ap.add_argument("--no-medium", action="store_true", help="skip the medium preset")
    ap.add_argument("--tiny-reference", type=int, default=0, metavar="N")
    ap.add_argument("--medium-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.medium_child:
        print(json.dumps(_medium_child()))
        return 0
    if args.tiny_reference:
        print(tiny_reference(args.tiny_reference))
        return 0
    config = QUICK if args.quick else BenchCFRConfig()
    config = dataclasses.replace(
        config, repeats=config.repeats if args.repeats is None else args.repeats,
        medium=config.medium and not args.no_medium)
    return run_and_write("cfr", args.quick, args.out, lambda: run(config), tables, config,
                         config.seed)


if __name__ == "__main__":
    raise SystemExit(main())
