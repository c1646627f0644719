"""The confirmatory passing runs: exploiting a passing convention with the card
play fixed (everyone plays the compiled heuristic player).

A runner experiment, ``confirmatory_passing``, registered when this module is
imported (``CH_EXPERIMENT_MODULES=research.confirmatory.passing``; the
commands are in this folder's README). Its ``paper`` profile is the design
declared in ``paper/preregistration_confirmatory.md``; ``quick`` is a smoke
run of the same code (a few deals), not a result.

Two kinds of unit, both about passing only (the play is ``play`` for every
seat and every variant; only the passes differ):

* ``rollout_br`` (one per target convention and block of ``block_deals``
  deals; ``br_blocks[i]`` blocks for ``targets[i]``): :func:`solvers._metagame.rollout_pass_gain` on the 6-player game,
  seat 0 choosing each passed card by ``br_samples`` sampled worlds against
  everyone else passing by the target; block ``b`` plays the deals of the
  simulator's stream ``seed + b`` (so blocks are independent, and every target
  sees the same deals: duplicate deals across targets). Per deal: the points
  per hand seat 0 saves against passing by the target itself on the same deal
  (points per hand, no conversion; positive = the passer gains).
* ``library`` (one unit): deals ``0 .. library_deals - 1`` of stream
  ``library_seed``; for each ``deviation`` of the convention library, one seat
  passes by the deviation and the others by ``library_target``, the
  arrangement played in all ``players`` rotations (the meta-game's design,
  :mod:`experiments.studies.passing_metagame`); per deal, the deviation's
  payoff minus ``library_target``'s in the all-``library_target`` profile,
  payoffs as the meta-game defines them (minus the mean points per hand of the
  seats using the convention): points per hand saved by the deviating seat.

Tables: ``tests`` (one row per (kind, target, deviation): deals, mean, 95%
t interval, sd, two-sided one-sample t-test p-value); the Holm correction
runs over the whole declared family, both runs together (the declaration).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from experiments._base.registry import Summary, Unit, register, table_text
from solvers._base.passing import CONVENTIONS

__all__ = ["ConfirmatoryPassingConfig", "PROFILES", "units", "run_unit", "summarize",
           "library_gains"]


@dataclasses.dataclass(frozen=True)
class ConfirmatoryPassingConfig:
    """The declared design (the defaults are the ``paper`` profile)."""

    players: int = 6
    targets: tuple[str, ...] = ("expert", "dump_points", "void_short")
    br_blocks: tuple[int, ...] = (24, 18, 18)
    block_deals: int = 25
    br_samples: int = 32
    library_target: str = "expert"
    library_deviations: tuple[str, ...] = tuple(c for c in CONVENTIONS if c != "expert")
    library_deals: int = 3000
    library_seed: int = 7342400
    play: str = "heuristic"
    seed: int = 7342300

    def __post_init__(self):
        for name in ("block_deals", "br_samples", "library_deals"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if len(self.br_blocks) != len(self.targets) or min(self.br_blocks, default=1) < 1:
            raise ValueError(f"br_blocks needs one count >= 1 per target ({len(self.targets)}), "
                             f"got {self.br_blocks}")
        for c in (*self.targets, self.library_target, *self.library_deviations):
            if c not in CONVENTIONS:
                raise ValueError(f"unknown convention {c!r}; allowed: {', '.join(CONVENTIONS)}")


PROFILES = {
    "quick": ConfirmatoryPassingConfig(targets=("expert",), br_blocks=(1,), block_deals=2,
                                       br_samples=4, library_deals=20, library_seed=2, seed=1),
    "paper": ConfirmatoryPassingConfig(),
}


def units(config: ConfirmatoryPassingConfig) -> list[dict]:
    """The library unit first, then the rollout best-response blocks, target by
    target (the declared order)."""
    out = [{"kind": "library"}]
    for t, blocks in zip(config.targets, config.br_blocks):
        out += [{"kind": "rollout_br", "target": t, "block": b} for b in range(blocks)]
    return out


def library_gains(config: ConfirmatoryPassingConfig) -> dict[str, np.ndarray]:
    """``{deviation: float64[library_deals]}``: per deal, the payoff of one seat
    passing by the deviation among ``players - 1`` passing by the target (mean
    over the rotations) minus the target's payoff when everyone passes by it."""
    from spiel_game._rules import RuleSet
    from spiel_game._simulator import simulate

    n, target = config.players, config.library_target
    rules = RuleSet.from_params({"players": n})

    def sim(order):
        pols = [f"pass:{c}+{config.play}" for c in order]
        return simulate(rules, config.library_deals, pols, seed=config.library_seed,
                        workers=1).points.astype(np.float64)

    base = -sim([target] * n).mean(axis=1)
    out = {}
    for dev in config.library_deviations:
        seats = [dev] + [target] * (n - 1)
        acc = np.zeros(config.library_deals)
        for rot in range(n):
            order = seats[rot:] + seats[:rot]
            acc -= sim(order)[:, order.index(dev)]
        out[dev] = acc / n - base
    return out


def run_unit(config: ConfirmatoryPassingConfig, unit: Unit) -> list[dict]:
    """Rows, one per deal: ``kind``, ``target``, ``deviation`` (the library's
    deviating convention, or ``rollout_br``), ``block``, ``deal`` and ``gain``
    (points per hand saved by the deviating seat)."""
    u = unit.params
    if u["kind"] == "library":
        return [{"kind": "library", "target": config.library_target, "deviation": dev,
                 "block": -1, "deal": d, "gain": float(g)}
                for dev, gains in library_gains(config).items() for d, g in enumerate(gains)]
    from solvers._metagame import rollout_pass_gain
    g = rollout_pass_gain(config.players, u["target"], deals=config.block_deals,
                          samples=config.br_samples, play=config.play,
                          seed=config.seed + u["block"], workers=1)
    return [{"kind": "rollout_br", "target": u["target"], "deviation": "rollout_br",
             "block": u["block"], "deal": d, "gain": float(x)} for d, x in enumerate(g)]


def summarize(config: ConfirmatoryPassingConfig, rows) -> Summary:
    """One test per (kind, target, deviation): the per-deal gains' mean, 95%
    t interval, sd and two-sided one-sample t-test p-value."""
    import pandas as pd

    from experiments.tournament import paired_test

    out = []
    for (kind, target, dev), g in rows.groupby(["kind", "target", "deviation"], sort=False):
        t = paired_test(g["gain"].to_numpy(), np.zeros(len(g)))
        out.append({"kind": kind, "target": target, "deviation": dev, "deals": t["n"],
                    "gain": t["mean"], "gain_lo": t["lo"], "gain_hi": t["hi"], "sd": t["sd"],
                    "half_width": (t["hi"] - t["lo"]) / 2, "p_value": t["p_value"]})
    table = pd.DataFrame(out)
    return Summary(tables={"tests": table},
                   text=table_text(table.set_index(["kind", "target", "deviation"]), 3))


register("confirmatory_passing", ConfirmatoryPassingConfig, units, run_unit, summarize,
         profiles={k: dataclasses.asdict(v) for k, v in PROFILES.items()},
         description="the declared passing-only tests (rollout best response and library "
                     "deviation, heuristic play for everyone)", reproduce=False)
