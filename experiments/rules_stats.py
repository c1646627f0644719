"""Rules statistics for the paper (issue 4): random play, every player count and scheme.

For each configuration: mean points per seat with a 95% confidence interval
(seat bias), void tricks per hand and the share of hands with one, moon
frequency, the Aardvark's success rate (a led Black Maria cancelled by its
twin), and how often set-aside cards reach the last trick. Runs on the
compiled simulator.

As a runner experiment (``python -m experiments run rules_stats``): one unit
per (configuration, chunk of ``chunk`` hands), each simulating hands
``first_hand .. first_hand + hands - 1`` of the configuration's stream
``seed + configuration index`` (:func:`spiel_game.simulator.simulate` with
``first_hand``), so the numbers do not depend on the split. Rows are integer
sufficient statistics per chunk (tidy: one row per configuration, chunk,
statistic and seat; ``seat = -1`` for whole-hand statistics); the summary
tables ``summary`` (one row per configuration) and ``seats`` (one row per
configuration and seat) are computed from their sums.

The original one-shot form is kept: ``python -m experiments.rules_stats
--profile quick|paper`` writes ``results/<profile>/rules_stats.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import math
from pathlib import Path

import numpy as np

from spiel_game.rules import RuleSet
from spiel_game.simulator import BUILTIN_POLICIES, simulate

from .metadata import metadata, write_result
from .registry import Summary, Unit, register

__all__ = ["RulesStatsConfig", "PROFILES", "run", "configurations", "units", "run_unit",
           "summarize_rows", "HAND_STATISTICS", "SEAT_STATISTICS"]


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
        if self.policy not in BUILTIN_POLICIES:
            raise ValueError(f"policy {self.policy!r} is not one of {sorted(BUILTIN_POLICIES)}")


PROFILES = {"quick": RulesStatsConfig(hands=20_000),
            "paper": RulesStatsConfig(hands=1_000_000, chunk=50_000)}


def configurations() -> list[tuple[str, dict]]:
    out = []
    for n in range(5, 12):
        out.append((f"balanced {n}", {"players": n}))
    out.append(("balanced 11, 3 packs", {"players": 11, "packs": 3}))
    for n in range(5, 12):
        out.append((f"kitty {n}", {"deck": "kitty", "players": n}))
    return out


def _ci95(x: np.ndarray) -> tuple[float, float]:
    m = float(x.mean())
    half = 1.959964 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, half


def summarize(name: str, params: dict, res) -> dict:
    pts = res.points.astype(np.float64)
    seats = [_ci95(pts[:, q]) for q in range(pts.shape[1])]
    voids = res.stat("void_tricks")
    tries = int(res.stat("aardvark_attempts").sum())
    wins = int(res.stat("aardvark_successes").sum())
    return {
        "name": name,
        "params": params,
        "rules": RuleSet.from_params(params).describe(),
        "hands": int(len(pts)),
        "mean_points_per_seat": [m for m, _ in seats],
        "ci95_points_per_seat": [h for _, h in seats],
        "seat_spread": float(max(m for m, _ in seats) - min(m for m, _ in seats)),
        "void_tricks_per_hand": float(voids.mean()),
        "hands_with_a_void_trick": float((voids > 0).mean()),
        "moon_frequency": float(res.stat("moons").mean()),
        "cancelled_pairs_per_hand": float(res.stat("cancelled_pairs").mean()),
        "aardvark_attempts_per_hand": tries / len(pts),
        "aardvark_success_rate": wins / tries if tries else float("nan"),
        "pot_reaches_last_trick": float((res.stat("pot_at_last_trick") > 0).mean()),
    }


def run(config: RulesStatsConfig, out_dir: Path, workers: int | None = None) -> dict:
    """The one-shot form: every configuration in this process, one JSON file."""
    started = dt.datetime.now(dt.timezone.utc)
    rows = []
    for i, (name, params) in enumerate(configurations()):
        res = simulate(params, config.hands, config.policy, seed=config.seed + i,
                       workers=workers)
        rows.append(summarize(name, params, res))
    result = {"rows": rows}
    write_result(out_dir / "rules_stats.json", result, metadata(config, config.seed, started))
    return result


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
    from .runner import unit_threads

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
            s1 = int(sums[key + ("points_sum", q)])
            s2 = int(sums[key + ("points_sumsq", q)])
            mean = s1 / n
            var = max(0.0, (s2 - s1 * s1 / n) / (n - 1))
            ci = 1.959964 * math.sqrt(var / n)
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.rules_stats")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out or Path("results") / args.profile)
    res = run(PROFILES[args.profile], out)
    for r in res["rows"]:
        print(f"{r['name']:>22}: spread {r['seat_spread']:.2f} pts, voids/hand "
              f"{r['void_tricks_per_hand']:.3f}, moons {r['moon_frequency']:.5f}, Aardvark "
              f"{r['aardvark_success_rate']:.3f}, pot at last {r['pot_reaches_last_trick']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
