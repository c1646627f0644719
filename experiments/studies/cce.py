"""The CCE gap of CFR's empirical play next to NashConv, on 3-player deals.

With three or more players NashConv of CFR's average strategy need not go to
zero; what CFR (a no-external-regret learner) guarantees is that the
empirical distribution of play -- the mixture over iterations of the product
profiles of the current iterates -- approaches a coarse correlated
equilibrium. For each deal, solver, update scheme and weighting of the
empirical distribution, this study runs the solver and records at log-spaced
checkpoints (:func:`solvers.cfr._cce.run_cce`): NashConv of the average
strategy and of the current iterate, the CCE gap of the empirical play (the
largest player's gap, their sum and each player's), and the regret bound
that certifies the gap where it applies (CFR and CFR+ with simultaneous
updates and uniform weights). With ``cfr_jr`` also CFR-Jr's empirical play:
one joint pure plan drawn from each iterate (Celli et al. 2019).

A runner experiment (``python -m experiments run cce``), part of ``make
reproduce`` (the quick profile: two small deals, 200 iterations, seconds) and
of the paper (Section "What CFR converges to with three players": the
figure script ``paper/figures/cce.py`` and the paper's macros of ``cce/``). One unit
per (deal, solver, updates, weighting, play); rows in
``results/<profile>/cce/rows.csv``. A deal is a preset of
:data:`spiel_game.PRESETS` or a pyspiel game string such as
``kuhn_poker(players=3)``. Deterministic but for CFR-Jr's draws, which use
each unit's seed (from ``seed``).
"""

from __future__ import annotations

import dataclasses
import functools

import pyspiel

import spiel_game
from solvers.cfr._cce import UPDATES, WEIGHTINGS, run_cce
from solvers.cfr._solvers import SOLVERS
from solvers.cfr._tree import build_tree

from .._base.config import ConfigError, check_names
from .._base.registry import Unit, register

__all__ = ["CCEConfig", "PROFILES", "load_deal", "units", "run_unit", "summarize"]


def load_deal(deal: str) -> pyspiel.Game:
    """A preset of :data:`spiel_game.PRESETS` by name, else a pyspiel game string."""
    if deal in spiel_game.PRESETS:
        return spiel_game.load(deal)
    try:
        return pyspiel.load_game(deal)
    except Exception as err:        # pyspiel raises its own error types
        raise ConfigError(f"unknown deal {deal!r}: neither a preset ({sorted(spiel_game.PRESETS)}) "
                         f"nor a pyspiel game string ({err})") from None


@dataclasses.dataclass(frozen=True)
class CCEConfig:
    """One CCE-gap study: which deals, solvers, update schemes, weightings, how long.

    ``weightings``: ``"uniform"`` (every iterate weight 1) and/or ``"solver"``
    (the solver's averaging weights, e.g. ``t`` for CFR+); the ``"solver"``
    weighting of CFR (weight 1) is the uniform one and is not run twice.
    ``cfr_jr``: also, per deal and solver, the empirical distribution of joint
    pure plans drawn from the iterates (CFR-Jr; simultaneous updates, uniform
    weights, seeded by the unit). ``large_deals``: deals too large for that grid,
    run after the others with simultaneous updates only, no CFR-Jr and
    ``large_iterations`` iterations (the certified runs and their weightings)."""

    seed: int = 0
    deals: tuple[str, ...] = ("kuhn_poker(players=3)", "micro3")
    solvers: tuple[str, ...] = ("CFR", "CFR+")
    updates: tuple[str, ...] = ("simultaneous",)
    weightings: tuple[str, ...] = WEIGHTINGS
    iterations: int = 200
    checkpoints: int = 8                                # log-spaced, the last included
    cfr_jr: bool = True
    large_deals: tuple[str, ...] = ()
    large_iterations: int = 200

    def __post_init__(self):
        for d in self.deals + self.large_deals:
            load_deal(d)
        both = sorted(set(self.deals) & set(self.large_deals))
        if both:
            raise ConfigError(f"deals and large_deals overlap: {both}; a deal is one or the other")
        if self.large_iterations < 1:
            raise ValueError(f"large_iterations must be >= 1, got {self.large_iterations}")
        check_names("solver", self.solvers, list(SOLVERS))
        check_names("updates", self.updates, list(UPDATES))
        check_names("weighting", self.weightings, list(WEIGHTINGS))
        if self.iterations < 1 or self.checkpoints < 1:
            raise ValueError("iterations and checkpoints must be >= 1")


#: The paper's run: three 3-player deals, both update schemes, 1000 iterations,
#: and medium3 (1.5M histories) for 200 iterations with simultaneous updates
#: (1000 would take about an hour per unit on a loaded 2-core machine).
_PAPER = {"deals": ("kuhn_poker(players=3)", "micro3", "small3"), "updates": UPDATES,
          "iterations": 1000, "checkpoints": 20, "large_deals": ("medium3",),
          "large_iterations": 200}
PROFILES = {"quick": CCEConfig(), "paper": CCEConfig(**_PAPER)}


@functools.lru_cache(maxsize=2)
def _tree(deal: str):
    return build_tree(load_deal(deal))


def units(config: CCEConfig) -> list[dict]:
    """One unit per (deal, solver, updates, weighting) of the iterates' play
    (CFR's ``"solver"`` weighting is its uniform one and is left out), plus
    one CFR-Jr unit per (deal, solver) with ``cfr_jr``; then, per large deal
    and solver, the simultaneous-update units of each weighting."""
    out = []
    for d in config.deals + config.large_deals:
        large = d in config.large_deals
        for s in config.solvers:
            ws = [w for w in config.weightings
                  if not (w == "solver" and s == "CFR" and "uniform" in config.weightings)]
            ups = ("simultaneous",) if large else config.updates
            out += [{"deal": d, "solver": s, "updates": u, "weighting": w, "play": "iterate"}
                    for u in ups for w in ws]
            if config.cfr_jr and not large:
                out.append({"deal": d, "solver": s, "updates": "simultaneous",
                            "weighting": "uniform", "play": "sampled"})
    return out


def run_unit(config: CCEConfig, unit: Unit) -> list[dict]:
    """The rows of :func:`solvers.cfr._cce.run_cce` for one unit (``iterations``,
    or ``large_iterations`` on a large deal), with ``deal`` and ``infosets``
    added (CFR-Jr draws with the unit's seed)."""
    p = unit.params
    tree = _tree(p["deal"])
    iterations = config.large_iterations if p["deal"] in config.large_deals else config.iterations
    rows = run_cce(tree, p["solver"], iterations, config.checkpoints,
                   updates=p["updates"], weighting=p["weighting"], play=p["play"],
                   seed=unit.seed if p["play"] == "sampled" else None)
    for r in rows:
        r["deal"] = p["deal"]
        r["infosets"] = tree.num_infosets
    return rows


def summarize(config: CCEConfig, rows):
    """The last checkpoint of every unit."""
    keys = ["deal", "solver", "updates", "weighting", "play"]
    last = rows.sort_values("iteration").groupby(keys, sort=False).tail(1)
    cols = keys + ["players", "histories", "iteration", "nash_conv_avg", "nash_conv_current",
                   "cce_gap", "cce_gap_sum", "regret_bound", "solver_seconds", "cce_seconds"]
    return last[cols].sort_values(keys).reset_index(drop=True)


register("cce", CCEConfig, units, run_unit, summarize,
         profiles={"quick": {}, "paper": _PAPER},
         description="CCE gap of CFR's empirical play vs NashConv on 3-player deals")
