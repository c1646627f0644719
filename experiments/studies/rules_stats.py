"""Rules statistics for the paper: random play, every player count and scheme.

For each configuration: mean points per seat with a 95% confidence interval
(seat bias), void tricks per hand and the share of hands with one, moon
frequency, the Aardvark's success rate (a led Black Maria cancelled by its
twin), and how often set-aside cards reach the last trick. Runs on the
compiled simulator.

As a runner experiment (``python -m experiments run rules_stats``): one unit
per (configuration, chunk of ``chunk`` hands), each simulating hands
``first_hand .. first_hand + hands - 1`` of the configuration's stream
``seed + configuration index`` (:func:`spiel_game._simulator.simulate` with
``first_hand``), so the numbers do not depend on the split. Rows are integer
sufficient statistics per chunk (tidy: one row per configuration, chunk,
statistic and seat; ``seat = -1`` for whole-hand statistics); the summary
tables ``summary`` (one row per configuration) and ``seats`` (one row per
configuration and seat) are computed from their sums; the intervals are
:mod:`experiments._base.stats`'s Student t intervals.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import solvers._base.passing  # noqa: F401  (registers "heuristic" and "pass:*" simulator policies)
from spiel_game._rules import RuleSet
from spiel_game._simulator import BUILTIN_POLICIES, simulate

from .._base.registry import Summary, Unit, register
from .._base.config import check_unit_count
from .._base.stats import mean_ci_from_sums

__all__ = ["RulesStatsConfig", "PROFILES", "configurations", "units", "run_unit",
           "summarize_rows", "HAND_STATISTICS", "SEAT_STATISTICS"]


def configurations() -> list[tuple[str, dict]]:
    out = []
    for n in range(5, 12):
        out.append((f"balanced {n}", {"players": n}))
    out.append(("balanced 11, 3 packs", {"players": 11, "packs": 3}))
    for n in range(5, 12):
        out.append((f"kitty {n}", {"deck": "kitty", "players": n}))
    return out


@dataclasses.dataclass(frozen=True)
class RulesStatsConfig:
    """Random-play rules statistics for every player count and scheme."""

    hands: int = 20_000          # hands per configuration
    seed: int = 20261129         # configuration i plays stream seed + i
    policy: str = "uniform"      # a built-in simulator policy for every seat
    chunk: int = 5_000           # hands per unit of work (does not change the numbers)

    def __post_init__(self):
        if self.hands < 2:
            raise ValueError(f"hands must be >= 2 (for a confidence interval), got {self.hands}")
        if self.chunk < 1:
            raise ValueError(f"chunk must be >= 1, got {self.chunk}")
        check_unit_count(len(configurations()) * -(-self.hands // self.chunk),
                         f"hands={self.hands}, chunk={self.chunk}")
        if self.policy not in BUILTIN_POLICIES:
            raise ValueError(f"policy {self.policy!r} is not one of {sorted(BUILTIN_POLICIES)}")


PROFILES = {"quick": RulesStatsConfig(hands=20_000),
            "paper": RulesStatsConfig(hands=1_000_000, chunk=50_000)}


# ------------------------------------------------------------ runner experiment
#: Whole-hand statistics summed over a chunk (``seat = -1`` rows).
HAND_STATISTICS = ("void_tricks", "hands_with_a_void_trick", "moons", "cancelled_pairs",
                   "aardvark_attempts", "aardvark_successes", "pot_reaches_last_trick")
#: Per-seat statistics summed over a chunk.
SEAT_STATISTICS = ("points_sum", "points_sumsq")


def units(config: RulesStatsConfig) -> list[dict]:
    """One unit per (configuration, chunk of hands)."""
    out = []
    for i, (name, params) in enumerate(configurations()):
        for first in range(0, config.hands, config.chunk):
            out.append({"configuration": name, "configuration_index": i, "params": params,
                        "first_hand": first, "hands": min(config.chunk, config.hands - first)})
    return out


def run_unit(config: RulesStatsConfig, unit: Unit) -> list[dict]:
    """Simulate one chunk; integer sums of every statistic (tidy rows)."""
    from ..runner import unit_threads

    u = unit.params
    rules = RuleSet.from_params(u["params"])
    res = simulate(rules, u["hands"], config.policy, seed=config.seed + u["configuration_index"],
                   workers=unit_threads(), first_hand=u["first_hand"])
    pts = res.points.astype(np.int64)
    voids = res.stat("void_tricks").astype(np.int64)
    hand_values = {
        "void_tricks": int(voids.sum()),
        "hands_with_a_void_trick": int((voids > 0).sum()),
        "moons": int(res.stat("moons").astype(np.int64).sum()),
        "cancelled_pairs": int(res.stat("cancelled_pairs").astype(np.int64).sum()),
        "aardvark_attempts": int(res.stat("aardvark_attempts").astype(np.int64).sum()),
        "aardvark_successes": int(res.stat("aardvark_successes").astype(np.int64).sum()),
        "pot_reaches_last_trick": int((res.stat("pot_at_last_trick") > 0).sum()),
    }
    key = {"configuration": u["configuration"], "deck": rules.deck, "players": rules.players,
           "packs": rules.packs, "first_hand": u["first_hand"], "hands": u["hands"]}
    rows = [{**key, "statistic": k, "seat": -1, "value": v} for k, v in hand_values.items()]
    for q in range(rules.players):
        rows.append({**key, "statistic": "points_sum", "seat": q, "value": int(pts[:, q].sum())})
        rows.append({**key, "statistic": "points_sumsq", "seat": q,
                     "value": int((pts[:, q] ** 2).sum())})
    return rows


def summarize_rows(config: RulesStatsConfig, rows) -> Summary:
    """Per-configuration and per-seat tables from the chunk sums."""
    import pandas as pd

    keys = ["configuration", "deck", "players", "packs"]
    sums = rows.groupby(keys + ["statistic", "seat"], sort=False)["value"].sum()
    hands = (rows[rows.statistic == "void_tricks"].groupby(keys, sort=False)["hands"].sum())
    seat_rows, conf_rows, lines = [], [], []
    for key, n in hands.items():
        name, deck, players, packs = key
        h = {s: int(sums[key + (s, -1)]) for s in HAND_STATISTICS}
        means, cis = [], []
        for q in range(players):
            mean, ci = mean_ci_from_sums(int(sums[key + ("points_sum", q)]),
                                         int(sums[key + ("points_sumsq", q)]), int(n))
            means.append(mean)
            cis.append(ci)
            seat_rows.append({"configuration": name, "deck": deck, "players": players,
                              "packs": packs, "seat": q, "hands": int(n),
                              "mean_points": mean, "ci95": ci})
        tries = h["aardvark_attempts"]
        conf = {"configuration": name, "deck": deck, "players": players, "packs": packs,
                "rules": RuleSet.from_params(dict(zip(("deck", "players", "packs"),
                                                      (deck, players, packs)))).describe(),
                "hands": int(n),
                "seat_spread": max(means) - min(means), "ci95_max": max(cis),
                "mean_points_per_hand": sum(means),
                "void_tricks_per_hand": h["void_tricks"] / n,
                "hands_with_a_void_trick": h["hands_with_a_void_trick"] / n,
                "moon_frequency": h["moons"] / n,
                "cancelled_pairs_per_hand": h["cancelled_pairs"] / n,
                "aardvark_attempts_per_hand": tries / n,
                "aardvark_success_rate": h["aardvark_successes"] / tries if tries else float("nan"),
                "pot_reaches_last_trick": h["pot_reaches_last_trick"] / n}
        conf_rows.append(conf)
        lines.append(f"{name:>20}: spread {conf['seat_spread']:.2f} +- {conf['ci95_max']:.2f} "
                     f"pts, voids/hand {conf['void_tricks_per_hand']:.3f}, moons "
                     f"{conf['moon_frequency']:.5f}, Aardvark {conf['aardvark_success_rate']:.3f}, "
                     f"pot at last {conf['pot_reaches_last_trick']:.4f}")
    return Summary(tables={"summary": pd.DataFrame(conf_rows), "seats": pd.DataFrame(seat_rows)},
                   text="\n".join(lines))


register("rules_stats", RulesStatsConfig, units, run_unit, summarize_rows,
         profiles=PROFILES,
         description="random-play rules statistics (seat bias, voids, moons, Aardvark) "
                     "for every player count and scheme")
