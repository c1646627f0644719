"""The strength ladder: random < heuristic < pimc < ismcts, by duplicate deals.

Each adjacent pair of rungs plays a head-to-head duplicate tournament
(:mod:`experiments.tournament`: agents alternate around the table, every
rotation of the lineup, so each plays every seat with the same cards; at 11
players an evenly spaced subset of the rotations). A step holds when the
higher rung's mean zero-sum payoff per hand exceeds the lower one's with a
paired t-test p-value below ``alpha``. Optionally, ISMCTS strength against its
iteration budget (``sweep``): ``ismcts(iterations=I)`` against
``sweep_opponent``, the data of the paper's figure.

``python -m experiments.ladder --profile quick`` (about two minutes on two
cores) or ``--profile paper``; writes ``results/<profile>/ladder.json`` (with
config, seed, versions and git commit) and one resumable tournament folder
per step under ``results/<profile>/ladder/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
from pathlib import Path

from .metadata import metadata, write_result
from .tournament import TournamentConfig, run_tournament

__all__ = ["LadderConfig", "PROFILES", "run", "table"]


@dataclasses.dataclass(frozen=True)
class LadderConfig:
    """Rungs from weakest to strongest; ``rotations``: per player count, None = all."""

    players: tuple[int, ...] = (6,)
    rungs: tuple[str, ...] = ("random", "heuristic", "pimc(worlds=32, rollouts=1)",
                              "ismcts(iterations=1000, rollout='heuristic')")
    deals: int = 40
    rotations: tuple[tuple[int, int], ...] = ((11, 4),)
    alpha: float = 0.05
    sweep: tuple[int, ...] = ()
    sweep_players: int = 6
    sweep_opponent: str = "heuristic"
    sweep_rollout: str = "heuristic"
    sweep_deals: int = 40
    seed: int = 20261129
    workers: int = 2

    @classmethod
    def from_dict(cls, d) -> "LadderConfig":
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(d) - set(names))
        if unknown:
            raise ValueError(f"unknown ladder setting(s) {unknown}; allowed: {names}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


PROFILES = {
    # The paper's rungs and budgets on fewer deals (about 80 s on two idle cores);
    # its power is lower: the paper profile is the one that establishes the ladder.
    # The quick sweep (two small budgets, 6 deals) only exercises the pipeline.
    "quick": LadderConfig(deals=40, sweep=(100, 300), sweep_deals=6),
    # The sweep at 50 deals x 2 seatings per budget: about 45 minutes on two
    # shared cores, dominated by the 10,000-iteration budget.
    "paper": LadderConfig(players=(6, 11), deals=200,
                          sweep=(100, 300, 1000, 3000, 10000), sweep_deals=50),
}


def _step(config: LadderConfig, n: int, lo: str, hi: str, deals: int, out: Path,
          progress: bool) -> dict:
    rot = dict(config.rotations).get(n)
    tc = TournamentConfig(agents=(lo, hi), game={"players": n}, deals=deals,
                          seed=config.seed + n, rotations=rot, workers=config.workers)
    res = run_tournament(tc, out, progress=progress)
    pair = res.summary["pairs"][0]
    d = pair["payoff_difference"]            # lo - hi
    gain = {"mean": -d["mean"], "lo": -d["hi"], "hi": -d["lo"], "p_value": d["p_value"]}
    return {"players": n, "lower": lo, "higher": hi, "deals": res.summary["deals"],
            "seat_assignments": len(res.summary["assignments"]),
            "payoff_gain_of_higher": gain,
            "holds": bool(gain["mean"] > 0 and gain["p_value"] < config.alpha),
            "agents": res.summary["agents"], "timing": res.summary["timing"]}


def run(config: LadderConfig, out_dir: Path, progress: bool = True) -> dict:
    started = _dt.datetime.now(_dt.timezone.utc)
    steps = []
    for n in config.players:
        for i in range(len(config.rungs) - 1):
            lo, hi = config.rungs[i], config.rungs[i + 1]
            steps.append(_step(config, n, lo, hi, config.deals,
                               out_dir / "ladder" / f"n{n}_step{i}", progress))
    sweep = []
    for it in config.sweep:
        spec = f"ismcts(iterations={it}, rollout={config.sweep_rollout!r})"
        r = _step(config, config.sweep_players, config.sweep_opponent, spec, config.sweep_deals,
                  out_dir / "ladder" / f"sweep_{it}", progress)
        sweep.append({"iterations": it, **r})
    result = {"steps": steps, "sweep": sweep,
              "ladder_holds": {str(n): all(s["holds"] for s in steps if s["players"] == n)
                               for n in config.players}}
    write_result(out_dir / "ladder.json", result, metadata(config, config.seed, started))
    return result


def table(result: dict) -> str:
    lines = ["| players | lower | higher | deals x seats | payoff gain of higher (95% CI) "
             "| p | holds |", "|---|---|---|---|---|---|---|"]
    for s in result["steps"] + result["sweep"]:
        g = s["payoff_gain_of_higher"]
        lines.append(f"| {s['players']} | {s['lower']} | {s['higher']} | {s['deals']} x "
                     f"{s['seat_assignments']} | {g['mean']:.2f} [{g['lo']:.2f}, {g['hi']:.2f}] "
                     f"| {g['p_value']:.2g} | {'yes' if s['holds'] else 'no'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.ladder")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--set", default="{}", help='overrides as JSON, e.g. \'{"deals": 10}\'')
    ap.add_argument("--out", default=None, help="results folder (default results/<profile>)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    base = dataclasses.asdict(PROFILES[args.profile])
    base.update(json.loads(args.set))
    config = LadderConfig.from_dict(base)
    out = Path(args.out or Path("results") / args.profile)
    res = run(config, out, progress=not args.no_progress)
    print(table(res))
    print(f"written to {out / 'ladder.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
