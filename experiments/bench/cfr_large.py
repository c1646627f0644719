"""The largest exact solve: build one big reduced deal's
flat tree, run a CFR variant on it, and compute its exact NashConv at
checkpoints, with the time and the peak memory of every step.

Default game: the preset ``xlarge3`` (three players, two copies of the K and
A of three suits, one card passed, the moon shooter's choice; 73,269,900
histories, 8.1e7 +- 0.7e7 by
:func:`experiments.bench.cfr_scale.estimate_histories`). Before it:
``large3`` (``medium3+pass_count=1``, 52,732,526 histories).
Measured and written (JSON, with the config, seed, versions and commit):

* the tree: histories, information sets, sequences, build seconds, the
  process's peak resident memory after the build (``ru_maxrss``) and the
  tree's own bytes;
* the solver: its work arrays' bytes, wall seconds per iteration (median of
  the checkpoints' segments), the threads it ran on;
* at each checkpoint: the iteration, the solve's cumulative seconds, exact
  NashConv of the average policy (:func:`solvers.cfr.nash_conv`) and the
  seconds it took, and the peak resident memory so far;
* ``next``: the next size of the same family, the game with one more card
  passed: Knuth's estimate of its histories (``next_probes`` probes, with its
  standard error) and the memory it would need at this run's peak bytes per
  history (None when ``next_probes`` is 0 or no more cards can be passed).

Resumable: with ``--state DIR`` the solver's tables (regret, policy, average
numerator, iteration) are saved at every checkpoint and a rerun with the same
arguments continues from the last one; rows already measured are kept.
Heavy (tens of minutes, several GiB): never part of ``make test`` or
``make reproduce``; ``--quick`` runs the same steps on ``small3`` in seconds
(what the tests run)::

    python -m experiments.bench.cfr_large [--game xlarge3]
        [--solver CFR+] [--checkpoints 10 25 50 100 200] [--threads 2]
        [--state DIR] [--out FILE] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import time
from pathlib import Path

import numpy as np

from . import run_and_write

__all__ = ["LargeSolveConfig", "QUICK", "run", "table", "main"]


@dataclasses.dataclass(frozen=True)
class LargeSolveConfig:
    game: str = "xlarge3"
    solver: str = "CFR+"
    checkpoints: tuple[int, ...] = (10, 25, 50, 100, 200)
    threads: int = 2
    seed: int = 0          # seeds the next-size estimate's probes; nothing else is random
    next_probes: int = 2000

    def __post_init__(self):
        cps = self.checkpoints
        if not cps or any(not isinstance(c, int) or c < 1 for c in cps) or \
                list(cps) != sorted(set(cps)):
            raise ValueError(f"checkpoints must be increasing positive ints, got {cps!r}")
        if not isinstance(self.threads, int) or self.threads < 1:
            raise ValueError(f"threads must be a positive int, got {self.threads!r}")
        if not isinstance(self.next_probes, int) or self.next_probes == 1 or \
                self.next_probes < 0:
            raise ValueError(f"next_probes must be 0 or an int >= 2, got {self.next_probes!r}")


QUICK = LargeSolveConfig(game="small3", checkpoints=(5, 10, 20), threads=2, next_probes=200)

_TABLES = ("regret", "policy", "avg_numerator")


def _peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30   # KiB on Linux


def _save(solver, state: Path, rows: list[dict]) -> None:
    tmp = state / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    for name in _TABLES:
        np.save(tmp / f"{name}.npy", getattr(solver, name))
    (tmp / "progress.json").write_text(json.dumps(
        {"iteration": solver.iteration, "seconds": solver.seconds, "rows": rows}))
    for f in tmp.iterdir():                     # each file replaced whole
        os.replace(f, state / f.name)


def _restore(solver, state: Path) -> list[dict]:
    p = state / "progress.json"
    if not p.exists():
        return []
    prog = json.loads(p.read_text())
    for name in _TABLES:
        arr = np.load(state / f"{name}.npy")
        if arr.shape != getattr(solver, name).shape:
            raise ValueError(f"{state}: saved {name} has shape {arr.shape}, this tree "
                             f"{getattr(solver, name).shape}: a different game; use another "
                             f"--state")
        getattr(solver, name)[:] = arr
    solver.iteration = int(prog["iteration"])
    solver.seconds = float(prog["seconds"])
    return list(prog["rows"])


def next_size(game: str, probes: int, seed: int, bytes_per_history: float) -> dict | None:
    """The game ``game`` (a preset or ``preset+key=value,...``) with one more card
    passed: its spec, Knuth's estimate of its histories with the standard error
    and the GiB it would take at ``bytes_per_history``; None when ``probes`` is 0,
    ``game`` is not one of our presets (a pyspiel game such as ``leduc_poker``) or
    the rules allow no more cards passed."""
    import spiel_game

    from .cfr_scale import estimate_histories, parse_game
    if probes == 0 or game.partition("+")[0] not in spiel_game.PRESETS:
        return None
    params = parse_game(game)
    pc = spiel_game.load(params).rules.pass_count + 1
    name, _, rest = game.partition("+")
    items = [i for i in rest.split(",") if i and not i.startswith("pass_count=")]
    spec = f"{name}+" + ",".join(items + [f"pass_count={pc}"])
    try:
        nxt = spiel_game.load(parse_game(spec))
    except ValueError:                      # more cards than the rules allow
        return None
    t0 = time.perf_counter()
    mean, se = estimate_histories(nxt, probes, seed)
    return {"game": spec, "histories": mean, "histories_se": se, "probes": probes,
            "gib": mean * bytes_per_history / 2**30, "estimate_s": time.perf_counter() - t0}


def run(config: LargeSolveConfig, state: str | None = None) -> dict:
    from solvers.cfr import build_tree, make_solver, nash_conv
    from solvers.cfr._solvers import SOLVERS

    from .cfr_scale import load_game
    if config.solver not in SOLVERS:
        raise ValueError(f"unknown solver {config.solver!r}; known: {sorted(SOLVERS)}")
    game = load_game(config.game)
    t0 = time.perf_counter()
    tree = build_tree(game)
    build_s = time.perf_counter() - t0
    tree_row = {"game": config.game, "histories": tree.num_nodes,
                "infosets": tree.num_infosets, "sequences": tree.num_sequences,
                "players": tree.num_players, "build_s": build_s,
                "peak_gib_after_build": _peak_gib(), "tree_gib": tree.nbytes / 2**30}
    print(json.dumps(tree_row), flush=True)
    solver = make_solver(config.solver, tree, threads=config.threads)
    if solver._extra_tables and state:
        raise ValueError(f"--state saves {_TABLES}: {config.solver} keeps more tables; "
                         f"use CFR or CFR+")
    sdir = Path(state) if state else None
    rows = _restore(solver, sdir) if sdir else []
    for cp in config.checkpoints:
        if cp <= solver.iteration:
            continue
        before = (solver.iteration, solver.seconds)
        solver.iterate(cp - solver.iteration)
        per_it = (solver.seconds - before[1]) / (solver.iteration - before[0])
        t1 = time.perf_counter()
        nc = nash_conv(tree, solver.average_policy(), return_details=True)
        row = {"iteration": solver.iteration, "solve_s": solver.seconds,
               "s_per_iteration": per_it, "nash_conv": float(nc.nash_conv),
               "br_gains": [float(g) for g in nc.player_improvements],
               "nash_conv_s": time.perf_counter() - t1,
               "peak_gib": _peak_gib()}
        rows.append(row)
        print(json.dumps(row), flush=True)
        if sdir:
            _save(solver, sdir, rows)
    peak = _peak_gib()
    return {**tree_row, "solver": config.solver, "threads": solver.threads,
            "solver_gib": solver.nbytes() / 2**30, "checkpoints": rows,
            "s_per_iteration": statistics.median(r["s_per_iteration"] for r in rows),
            "peak_gib": peak,
            "next": next_size(config.game, config.next_probes, config.seed,
                              peak * 2**30 / tree.num_nodes)}


def table(res: dict) -> str:
    lines = [f"`{res['game']}`: {res['histories']:,} histories, {res['infosets']:,} information "
             f"sets; built in {res['build_s']:.0f} s (peak {res['peak_gib_after_build']:.1f} GiB, "
             f"tree {res['tree_gib']:.1f} GiB); {res['solver']} on {res['threads']} threads, "
             f"{res['solver_gib']:.1f} GiB of tables, {res['s_per_iteration']:.2f} s per "
             f"iteration; peak {res['peak_gib']:.1f} GiB.", "",
             "| iteration | solve s | NashConv | NashConv s | peak GiB |", "|---|---|---|---|---|"]
    for r in res["checkpoints"]:
        lines.append(f"| {r['iteration']} | {r['solve_s']:.0f} | {r['nash_conv']:.4g} | "
                     f"{r['nash_conv_s']:.0f} | {r['peak_gib']:.1f} |")
    nxt = res.get("next")
    if nxt:
        lines += ["", f"Next size, `{nxt['game']}`: about {nxt['histories']:.2e} +- "
                      f"{nxt['histories_se']:.1e} histories (Knuth, {nxt['probes']} probes), "
                      f"{nxt['gib']:.0f} GiB at this run's peak bytes per history."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.cfr_large")
    ap.add_argument("--quick", action="store_true", help="small3, seconds")
    ap.add_argument("--game", default=None, help="preset or preset+key=value,...")
    ap.add_argument("--solver", default=None)
    ap.add_argument("--checkpoints", type=int, nargs="+", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--state", default=None, help="folder of the resumable solver state")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/cfr_large.json, results/quick/bench with --quick)")
    args = ap.parse_args(argv)
    config = QUICK if args.quick else LargeSolveConfig()
    changes = {k: v for k, v in (("game", args.game), ("solver", args.solver),
                                 ("threads", args.threads)) if v is not None}
    if args.checkpoints is not None:
        changes["checkpoints"] = tuple(args.checkpoints)
    try:
        config = dataclasses.replace(config, **changes)
    except ValueError as e:
        ap.error(str(e))
    return run_and_write("cfr_large", args.quick, args.out, lambda: run(config, args.state),
                         table, config, config.seed)


if __name__ == "__main__":
    raise SystemExit(main())
