"""NashConv of every CFR variant against iterations and wall time on reduced deals.

For each deal (by default a 2-player and a 3-player preset) and each solver of
:data:`solvers.cfr.solvers.SOLVERS`, iterate and record at log-spaced
checkpoints the NashConv of the average strategy, each player's improvement
and the solver's cumulative time (evaluation excluded). Writes
``results/<profile>/cfr_convergence.json`` (config, seed, versions and git
commit next to the numbers); ``paper/figures/cfr_convergence.py`` draws it::

    python -m experiments.cfr_convergence [--profile quick|paper] [--out DIR]
        [--deals small,small3] [--solvers CFR,PCFR+] [--iterations N] [--checkpoints K]

It is also a runner experiment (``python -m experiments run cfr_convergence``,
and so part of ``make reproduce``): one unit per (deal, solver), rows in
``results/<profile>/cfr_convergence/rows.csv``, which the figure reads when
the JSON file is absent.

The computation is deterministic (no sampling); ``seed`` is recorded only.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import functools
import time
from pathlib import Path

import numpy as np

import spiel_game
from solvers.cfr.best_response import nash_conv
from solvers.cfr.solvers import SOLVERS, make_solver
from solvers.cfr.tree import build_tree

from .config import check_names
from .metadata import metadata, write_result
from .registry import register

__all__ = ["CFRConvergenceConfig", "PROFILES", "checkpoints", "run", "units", "run_unit",
           "summarize", "summary_text"]


@dataclasses.dataclass(frozen=True)
class CFRConvergenceConfig:
    """One convergence study: which deals, which solvers, how long."""

    seed: int = 0
    deals: tuple[str, ...] = ("small", "small3")       # presets: 2 and 3 players
    solvers: tuple[str, ...] = tuple(SOLVERS)
    iterations: int = 200
    checkpoints: int = 25                               # log-spaced, the last included

    def __post_init__(self):
        check_names("preset", self.deals, sorted(spiel_game.PRESETS))
        check_names("solver", self.solvers, list(SOLVERS))
        if self.iterations < 1 or self.checkpoints < 1:
            raise ValueError("iterations and checkpoints must be >= 1")


_PAPER = {"deals": ("small", "medium3"), "iterations": 1000, "checkpoints": 40}
PROFILES = {"quick": CFRConvergenceConfig(), "paper": CFRConvergenceConfig(**_PAPER)}


def checkpoints(iterations: int, count: int) -> list[int]:
    """About ``count`` log-spaced iteration numbers in 1..iterations, the last included."""
    pts = np.unique(np.round(np.geomspace(1, iterations, count)).astype(int))
    return [int(x) for x in pts]


@functools.lru_cache(maxsize=2)
def _tree(deal: str):
    return build_tree(spiel_game.load(deal))


def units(config: CFRConvergenceConfig) -> list[dict]:
    """One unit per (deal, solver)."""
    return [{"deal": d, "solver": s} for d in config.deals for s in config.solvers]


def run_unit(config: CFRConvergenceConfig, unit) -> list[dict]:
    """Rows ``deal, solver, players, histories, infosets, iteration, nash_conv,
    seconds, improvement_<p>`` at each checkpoint of one (deal, solver)."""
    params = unit.params if hasattr(unit, "params") else unit
    deal, name = params["deal"], params["solver"]
    tree = _tree(deal)
    make_solver(name, tree).iterate(1)        # load the compiled kernels before timing
    solver = make_solver(name, tree)
    rows = []
    for it in checkpoints(config.iterations, config.checkpoints):
        solver.iterate(it - solver.iteration)
        nc = nash_conv(tree, solver.average_policy(), return_details=True)
        row = {"deal": deal, "solver": name, "players": tree.num_players,
               "histories": tree.num_nodes, "infosets": tree.num_infosets,
               "iteration": it, "nash_conv": nc.nash_conv, "seconds": solver.seconds}
        row.update({f"improvement_{p}": float(v) for p, v in enumerate(nc.player_improvements)})
        rows.append(row)
    return rows


def run(config: CFRConvergenceConfig) -> dict:
    """``{"deals": {preset: {players, histories, infosets, build_s, game,
    "runs": {solver: [{iteration, nash_conv, player_improvements, seconds}]}}}}``."""
    out = {"deals": {}}
    for deal in config.deals:
        t0 = time.perf_counter()
        tree = _tree(deal)
        entry = {"players": tree.num_players, "histories": tree.num_nodes,
                 "infosets": tree.num_infosets, "build_s": time.perf_counter() - t0,
                 "game": str(tree.game), "runs": {}}
        for name in config.solvers:
            entry["runs"][name] = [
                {"iteration": r["iteration"], "nash_conv": r["nash_conv"],
                 "seconds": r["seconds"],
                 "player_improvements": [r[f"improvement_{p}"] for p in range(tree.num_players)]}
                for r in run_unit(config, {"deal": deal, "solver": name})]
        out["deals"][deal] = entry
    return out


def summarize(config: CFRConvergenceConfig, rows):
    """The last checkpoint of every (deal, solver)."""
    last = rows.sort_values("iteration").groupby(["deal", "solver"], sort=False).tail(1)
    return last[["deal", "solver", "players", "histories", "iteration", "nash_conv",
                 "seconds"]].reset_index(drop=True)


def summary_text(result: dict) -> str:
    lines = []
    for deal, entry in result["deals"].items():
        last = {k: v[-1] for k, v in entry["runs"].items()}
        it = next(iter(last.values()))["iteration"]
        lines.append(f"{deal} ({entry['players']} players, {entry['histories']:,} histories): "
                     f"NashConv after {it} iterations: " + ", ".join(
                         f"{k} {r['nash_conv']:.2e} ({r['seconds']:.1f} s)"
                         for k, r in last.items()))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.cfr_convergence")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--out", default=None, help="results folder (default results/<profile>)")
    ap.add_argument("--deals", default=None, help="comma-separated presets")
    ap.add_argument("--solvers", default=None, help="comma-separated solver names")
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--checkpoints", type=int, default=None)
    args = ap.parse_args(argv)
    changes = {}
    if args.deals:
        changes["deals"] = tuple(args.deals.split(","))
    if args.solvers:
        changes["solvers"] = tuple(args.solvers.split(","))
    for key in ("iterations", "checkpoints"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    config = dataclasses.replace(PROFILES[args.profile], **changes)
    started = dt.datetime.now(dt.timezone.utc)
    result = run(config)
    meta = metadata(config, config.seed, started)
    meta["profile"] = args.profile
    path = write_result(Path(args.out or Path("results") / args.profile) / "cfr_convergence.json",
                        result, meta)
    print(summary_text(result))
    print(f"written to {path}")
    return 0


register("cfr_convergence", CFRConvergenceConfig, units, run_unit, summarize,
         profiles={"quick": {}, "paper": _PAPER},
         description="NashConv of CFR, CFR+, LCFR, DCFR, PCFR+ vs iterations and time")


if __name__ == "__main__":
    raise SystemExit(main())
