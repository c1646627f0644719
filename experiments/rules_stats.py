"""Rules statistics for the paper (issue 4): random play, every player count and scheme.

For each configuration: mean points per seat with a 95% confidence interval
(seat bias), void tricks per hand and the share of hands with one, moon
frequency, the Aardvark's success rate (a led Black Maria cancelled by its
twin), and how often set-aside cards reach the last trick. Runs on the
compiled simulator; ``python -m experiments.rules_stats --profile quick|paper``
writes ``results/<profile>/rules_stats.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import math
from pathlib import Path

import numpy as np

from spiel_game.rules import RuleSet
from spiel_game.simulator import simulate

from .metadata import metadata, write_result

__all__ = ["RulesStatsConfig", "PROFILES", "run", "configurations"]


@dataclasses.dataclass(frozen=True)
class RulesStatsConfig:
    hands: int = 20_000
    seed: int = 20261129
    policy: str = "uniform"
    workers: int | None = None


PROFILES = {"quick": RulesStatsConfig(hands=20_000), "paper": RulesStatsConfig(hands=1_000_000)}


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


def run(config: RulesStatsConfig, out_dir: Path) -> dict:
    started = dt.datetime.now(dt.timezone.utc)
    rows = []
    for i, (name, params) in enumerate(configurations()):
        res = simulate(params, config.hands, config.policy, seed=config.seed + i,
                       workers=config.workers)
        rows.append(summarize(name, params, res))
    result = {"rows": rows}
    write_result(out_dir / "rules_stats.json", result, metadata(config, config.seed, started))
    return result


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
