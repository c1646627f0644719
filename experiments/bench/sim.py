"""Benchmark suite: the compiled simulator against its anchors, side by side::

    | figure | anchor |
    |---|---|
    | random-play actions/s, one core | OpenSpiel C++ ``hearts`` in a C++ loop (``evaluate_bots``) |
    | our pyspiel path | our compiled simulator |
    | scaling 5 -> 11 players | cost per action |
    | two cores vs one | |
    | memory per game in flight | |
    | equivalence | every simulated game replayed through pyspiel |
    | checked actions (``checked=True``) | unchecked (``checked=False``), same policy |

Actions are counted the same way on both sides: every applied action of a
game, chance included (``len(state.history())``). Medians of interleaved
repeats. ``python -m experiments.bench.sim [--quick] [--checked-only] [--out FILE]`` (writes
``results/paper/bench/sim.json``; ``--quick``: ``results/quick/bench/``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyspiel
from numba import njit

import solvers._base.passing  # noqa: F401  (registers "heuristic" and "pass:*" simulator policies)
import spiel_game
from spiel_game import _engine as E
from spiel_game._playout import play_random
from spiel_game._rng import rand_below
from spiel_game._simulator import bytes_per_game_in_flight, simulate, state_checksum

from .engine import per_action_seconds
from .._base.metadata import metadata, write_result
from . import default_out


def cpp_hearts_seconds_per_action(n_games: int, seed: int) -> float:
    game = pyspiel.load_game("hearts")
    bots = [pyspiel.make_uniform_random_bot(i, seed + i) for i in range(4)]
    # Actions per game, measured on replays of the same kind of random games.
    lengths = []
    rng = np.random.default_rng(seed)
    for _ in range(50):
        lengths.append(len(play_random(game, rng).history()))
    t0 = time.perf_counter()
    for i in range(n_games):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
    return (time.perf_counter() - t0) / (n_games * float(np.mean(lengths)))


def sim_seconds_per_action(params, n_games, seed, workers=1) -> float:
    t0 = time.perf_counter()
    res = simulate(params, n_games, "uniform", seed=seed, workers=workers)
    return (time.perf_counter() - t0) / float(res.stat("actions").sum())


@njit
def listed_uniform(p, s, legal, k, rng):
    """A user policy: uniform over the listed legal actions."""
    return legal[rand_below(rng, k)]


CHECK_POLICIES = {"uniform": "uniform", "heuristic": "heuristic",
                  "user listed_uniform": listed_uniform}


def checked_overhead(n_games: int, repeats: int, seed: int) -> dict:
    """ns per action (chance included), one core, every action checked vs none,
    interleaved repeats; medians and the median ratio per policy."""
    for pol in CHECK_POLICIES.values():          # load or compile kernels
        for checked in (True, False):
            simulate({}, 20, pol, seed=seed, workers=1, checked=checked)
    out = {}
    for name, pol in CHECK_POLICIES.items():
        t = {True: [], False: []}
        for r in range(repeats):
            for checked in (False, True):
                t0 = time.perf_counter()
                res = simulate({}, n_games, pol, seed=seed + r, workers=1, checked=checked)
                t[checked].append((time.perf_counter() - t0) / float(res.stat("actions").sum()))
        out[name] = {"checked_ns": statistics.median(t[True]) * 1e9,
                     "unchecked_ns": statistics.median(t[False]) * 1e9,
                     "ratio": statistics.median([c / u for c, u in zip(t[True], t[False])])}
    return out


def compile_times() -> dict:
    """Cold compile (empty numba cache) and warm start, in fresh processes."""
    code = ("import time; t=time.perf_counter(); import spiel_game._simulator as S; "
            "S.simulate({}, 10, workers=1); print(time.perf_counter()-t)")
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        out = {}
        for key in ("cold_s", "warm_s"):
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True, check=True)
            out[key] = float(r.stdout.strip().splitlines()[-1])
    return out


def equivalence(n_games: int, seed: int) -> dict:
    """Replay simulated games through pyspiel; compare points and final states."""
    configs = ([{"players": n} for n in range(5, 12)]
               + [{"deck": "kitty", "players": n} for n in range(5, 12)]
               + [{"players": 11, "packs": 3}, spiel_game.preset("classic")])
    per = max(1, n_games // len(configs))
    checked = mismatches = 0
    for i, params in enumerate(configs):
        game = pyspiel.load_game(spiel_game.GAME_NAME, params)
        res = simulate(params, per, "uniform", seed=seed + i, record=True)
        for h in range(per):
            st = game.new_initial_state()
            for a in res.trace[h]:
                if a < 0:
                    break
                st.apply_action(int(a))
            s = np.asarray(st.engine_state)
            P = st.engine_params
            same = (st.is_terminal()
                    and E.scores(P, s).tolist()
                    == res.points[h].tolist()
                    and state_checksum(s) == res.stat("state_checksum")[h])
            checked += 1
            mismatches += not same
    return {"games": checked, "configs": len(configs), "mismatches": mismatches}


def run(repeats: int, n_sim: int, n_cpp: int, n_equiv: int, seed: int,
        compile_time: bool = True) -> dict:
    """Every figure of the table; ``compile_time=False`` skips the cold compile
    (minutes, in a fresh process with an empty cache; ``--quick`` skips it)."""
    ours = pyspiel.load_game(spiel_game.GAME_NAME)
    simulate({}, 10, workers=1)                     # load or compile kernels
    simulate({}, 10, workers=2)
    per_action_seconds(ours, 2, seed)
    cpp, sim1, sim2, py = [], [], [], []
    for r in range(repeats):
        cpp.append(cpp_hearts_seconds_per_action(n_cpp, seed + r))
        sim1.append(sim_seconds_per_action({}, n_sim, seed + r, workers=1))
        sim2.append(sim_seconds_per_action({}, 2 * n_sim, seed + r, workers=2))
        py.append(per_action_seconds(ours, 5, seed + r))
    scaling = {}
    for n in range(5, 12):
        sim_seconds_per_action({"players": n}, 50, seed, workers=1)
        t = [sim_seconds_per_action({"players": n}, n_sim, seed + r, workers=1)
             for r in range(repeats)]
        res = simulate({"players": n}, 200, seed=seed, workers=1)
        apg = float(res.stat("actions").mean())
        scaling[n] = {"ns_per_action": statistics.median(t) * 1e9, "actions_per_hand": apg,
                      "us_per_hand": statistics.median(t) * apg * 1e6}
    med = statistics.median
    return {
        "ns_per_action": {"cpp_hearts_evaluate_bots": med(cpp) * 1e9,
                          "simulator_1_core": med(sim1) * 1e9,
                          "simulator_2_cores": med(sim2) * 1e9,
                          "pyspiel_python_path": med(py) * 1e9},
        "speedup_vs_cpp_hearts": med([c / s for c, s in zip(cpp, sim1)]),
        "simulator_vs_pyspiel_path": med([p / s for p, s in zip(py, sim1)]),
        "two_cores_vs_one": med([a / b for a, b in zip(sim1, sim2)]),
        "scaling": scaling,
        "bytes_per_game_in_flight": {n: bytes_per_game_in_flight({"players": n})
                                     for n in (5, 6, 11)},
        "compile": compile_times() if compile_time else None,
        "equivalence": equivalence(n_equiv, seed),
        "checked_overhead": checked_overhead(n_sim, repeats, seed),
        "repeats": repeats,
    }


def table(res: dict) -> str:
    ns = res["ns_per_action"]
    sc = res["scaling"]
    lines = [
        "| figure | ours | anchor | ratio (median) | goal |",
        "|---|---|---|---|---|",
        f"| random play, one core, ns per action | {ns['simulator_1_core']:.1f} | C++ `hearts` "
        f"`evaluate_bots` {ns['cpp_hearts_evaluate_bots']:.1f} | "
        f"{res['speedup_vs_cpp_hearts']:.2f}x | >= 5x |",
        f"| same, our pyspiel path vs simulator | {ns['simulator_1_core']:.1f} | pyspiel path "
        f"{ns['pyspiel_python_path']:.0f} | {res['simulator_vs_pyspiel_path']:.0f}x | >= 50x |",
        f"| two cores vs one | {ns['simulator_2_cores']:.1f} | {ns['simulator_1_core']:.1f} | "
        f"{res['two_cores_vs_one']:.2f}x | >= 1.8x |",
        "| scaling 5 -> 11 players, ns per action | "
        + ", ".join(f"{n}: {v['ns_per_action']:.0f}" for n, v in sc.items())
        + f" | | {sc[11]['ns_per_action'] / sc[5]['ns_per_action']:.2f} (11 vs 5) | cost per hand "
        "grows no faster than actions (ratio <= ~1) |",
        "| memory per game in flight | " + ", ".join(
            f"{n} players: {b} B" for n, b in res["bytes_per_game_in_flight"].items())
        + " | | | stated |",
        (f"| compile time (cold / cached) | {res['compile']['cold_s']:.1f} s / "
         f"{res['compile']['warm_s']:.1f} s | | | cached |" if res.get("compile") else
         "| compile time (cold / cached) | not measured (--quick) | | | cached |"),
        f"| equivalence with the pyspiel game | {res['equivalence']['games']} games, "
        f"{res['equivalence']['configs']} configs, {res['equivalence']['mismatches']} mismatches "
        "| | | 0 |",
    ] + [
        f"| checked actions, {name}, ns per action | {v['checked_ns']:.1f} | unchecked "
        f"{v['unchecked_ns']:.1f} | {v['ratio']:.2f}x | stated |"
        for name, v in res.get("checked_overhead", {}).items()
    ]
    return "\n".join(lines)


def table_checked(res: dict) -> list[str]:
    return ["| policy | checked ns/action | unchecked ns/action | ratio (median) |",
            "|---|---|---|---|"] + [
        f"| {name} | {v['checked_ns']:.1f} | {v['unchecked_ns']:.1f} | {v['ratio']:.3f} |"
        for name, v in res["checked_overhead"].items()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.sim")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes (seconds), into results/quick/bench")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/sim.json, results/quick/bench with --quick)")
    ap.add_argument("--checked-only", action="store_true",
                    help="only the checked/unchecked overhead (prints, writes nothing)")
    args = ap.parse_args(argv)
    if args.checked_only:
        n, reps = (2000, 3) if args.quick else (20000, 5)
        res = {"checked_overhead": checked_overhead(n, reps, args.seed)}
        print("\n".join(table_checked(res)))
        return 0
    if args.quick:
        cfg = dict(repeats=3, n_sim=2000, n_cpp=500, n_equiv=300, compile_time=False)
    else:
        cfg = dict(repeats=5, n_sim=20000, n_cpp=4000, n_equiv=100000)
    if args.out is None:
        args.out = str(default_out("sim", args.quick))
    res = run(seed=args.seed, **cfg)
    print(table(res))
    write_result(args.out, res, metadata({**cfg, **vars(args)}, args.seed))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
