"""Speed figures of the engine and the pyspiel adapter, measured side by side in one process.

* cost per action of random play through the pyspiel API (``legal_actions`` +
  ``apply_action``, chance included) against OpenSpiel's own
  ``python_tic_tac_toe`` driven the same way (goal: ratio <= 0.5);
* ``clone()`` of a mid-hand 6-player state against ``clone()`` of a mid-game
  ``python_tic_tac_toe`` state (goal: ratio <= 1).

Interleaved repeats, medians and ratios (machines here are shared and noisy).
``python -m experiments.bench.engine [--quick] [--repeats R] [--out FILE]`` (writes
``results/paper/bench/engine.json``; ``--quick``: 2 repeats, ``results/quick/bench/``)
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyspiel

import spiel_game
from spiel_game import _engine as E
from spiel_game._playout import play_random

from .._base.metadata import metadata, write_result
from . import default_out


def per_action_seconds(game, n_games: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(n_games):
        st = game.new_initial_state()
        while not st.is_terminal():
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
            actions += 1
    return (time.perf_counter() - t0) / actions


def seconds_per_call(fn, number: int) -> float:
    """Mean wall time of ``fn()`` over ``number`` calls."""
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def clone_seconds(state, number: int) -> float:
    return seconds_per_call(state.clone, number)


def mid_hand_state(game, seed: int):
    """A decision with half of the hand's cards played (random play)."""
    target = game.rules.players * game.rules.hand_size // 2
    return play_random(game, seed, until=lambda st: not (
        st.is_chance_node() or st.engine_state[E.S_NPLAYED] < target))


def run(repeats: int = 7, seed: int = 0) -> dict:
    # Registers python_tic_tac_toe only when the benchmark runs: importing this
    # module registers no game.
    from open_spiel.python.games import tic_tac_toe  # noqa: F401
    ours = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    ttt = pyspiel.load_game("python_tic_tac_toe")
    per_action_seconds(ours, 2, seed)          # compile / warm up
    per_action_seconds(ttt, 20, seed)
    t_st = ttt.new_initial_state()
    for a in (4, 0, 8, 2):
        t_st.apply_action(a)
    o_st = mid_hand_state(ours, seed)
    rows = {"action_ours": [], "action_ttt": [], "clone_ours": [], "clone_ttt": []}
    for r in range(repeats):
        rows["action_ours"].append(per_action_seconds(ours, 20, seed + r))
        rows["action_ttt"].append(per_action_seconds(ttt, 400, seed + r))
        rows["clone_ours"].append(clone_seconds(o_st, 20000))
        rows["clone_ttt"].append(clone_seconds(t_st, 20000))
    med = {k: statistics.median(v) for k, v in rows.items()}
    ratios_a = [a / b for a, b in zip(rows["action_ours"], rows["action_ttt"])]
    ratios_c = [a / b for a, b in zip(rows["clone_ours"], rows["clone_ttt"])]
    return {
        "median_us": {k: v * 1e6 for k, v in med.items()},
        "action_cost_ratio_vs_python_tic_tac_toe": statistics.median(ratios_a),
        "clone_cost_ratio_vs_python_tic_tac_toe": statistics.median(ratios_c),
        "repeats": repeats,
        "goals": {"action_cost_ratio": "<= 0.5", "clone_cost_ratio": "<= 1.0"},
    }


def table(res: dict) -> str:
    m = res["median_us"]
    return "\n".join([
        "| figure | ours | anchor (python_tic_tac_toe) | ratio (median) | goal |",
        "|---|---|---|---|---|",
        f"| random play, cost per action | {m['action_ours']:.2f} us | {m['action_ttt']:.2f} us "
        f"| {res['action_cost_ratio_vs_python_tic_tac_toe']:.2f} | <= 0.5 |",
        f"| clone(), mid-hand 6 players vs mid-game | {m['clone_ours']:.2f} us | "
        f"{m['clone_ttt']:.2f} us | {res['clone_cost_ratio_vs_python_tic_tac_toe']:.2f} | <= 1.0 |",
    ])


#: Interleaved repeats of the full measurement and of ``--quick``.
REPEATS, QUICK_REPEATS = 7, 2


def bench_cli(prog: str, run_fn, table_fn, name: str, argv=None) -> int:
    """The command line shared by the benchmarks: ``--quick --repeats --seed --out``;
    prints the table and writes the result with its metadata (by default to
    :func:`experiments.bench.default_out`)."""
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--quick", action="store_true",
                    help=f"{QUICK_REPEATS} repeats (seconds), into results/quick/bench")
    ap.add_argument("--repeats", type=int, default=None, help=f"default {REPEATS}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/NAME.json, results/quick/bench with --quick)")
    args = ap.parse_args(argv)
    if args.repeats is None:
        args.repeats = QUICK_REPEATS if args.quick else REPEATS
    if args.out is None:
        args.out = str(default_out(name, args.quick))
    res = run_fn(args.repeats, seed=args.seed)
    print(table_fn(res))
    write_result(args.out, res, metadata(vars(args), args.seed))
    print(f"written to {args.out}")
    return 0


def main(argv=None) -> int:
    return bench_cli("python -m experiments.bench.engine", run, table, "engine", argv)


if __name__ == "__main__":
    raise SystemExit(main())
