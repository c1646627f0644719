"""NashConv of every CFR variant against iterations and wall time on reduced deals.

For each deal (by default a 2-player and a 3-player preset) and each solver of
:data:`solvers.cfr._solvers.SOLVERS`, iterate and record at log-spaced
checkpoints the NashConv of the average strategy, each player's improvement
and the solver's cumulative time (evaluation excluded). A runner experiment
(``python -m experiments run cfr_convergence``, part of ``make reproduce``):
one unit per (deal, solver), rows in
``results/<profile>/cfr_convergence/rows.csv``, which
``paper/figures/cfr_convergence.py`` draws.

The computation is deterministic (no sampling); ``seed`` is recorded only.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

import spiel_game
from solvers.cfr._best_response import nash_conv
from solvers.cfr._solvers import SOLVERS, make_solver
from solvers.cfr._tree import build_tree

from .._base.config import check_names
from .._base.registry import Unit, register

__all__ = ["CFRConvergenceConfig", "PROFILES", "checkpoints", "units", "run_unit",
           "summarize"]


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


def run_unit(config: CFRConvergenceConfig, unit: Unit) -> list[dict]:
    """Rows ``deal, solver, players, histories, infosets, iteration, nash_conv,
    seconds, improvement_<p>`` at each checkpoint of one (deal, solver)."""
    deal, name = unit.params["deal"], unit.params["solver"]
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


def summarize(config: CFRConvergenceConfig, rows):
    """The last checkpoint of every (deal, solver)."""
    last = rows.sort_values("iteration").groupby(["deal", "solver"], sort=False).tail(1)
    return last[["deal", "solver", "players", "histories", "iteration", "nash_conv",
                 "seconds"]].reset_index(drop=True)


register("cfr_convergence", CFRConvergenceConfig, units, run_unit, summarize,
         profiles={"quick": {}, "paper": _PAPER},
         description="NashConv of CFR, CFR+, LCFR, DCFR, PCFR+ vs iterations and time")
