"""The strength ladder: random < heuristic < pimc < ismcts, by duplicate deals.

Each adjacent pair of rungs plays a head-to-head duplicate tournament
(:mod:`experiments.tournament`: agents alternate around the table, every
rotation of the lineup, so each plays every seat with the same cards; at 11
players an evenly spaced subset of the rotations). A step holds when the
higher rung's mean zero-sum payoff per hand exceeds the lower one's with a
paired t-test p-value below ``alpha``. Optionally, ISMCTS strength against its
iteration budget (``sweep``): ``ismcts(iterations=I)`` against
``sweep_opponent``, the data of the paper's figure.

``python -m experiments.studies.ladder --profile quick`` (about two minutes on two
cores) or ``--profile paper``; writes ``results/<profile>/ladder.json`` (with
config, seed, versions and git commit) and one resumable tournament folder
per step under ``results/<profile>/ladder/``. Every rung and sweep spec is
built once before anything is written; ``move_time_limit`` (seconds, e.g.
``--set move_time_limit=60``) stops a step whose agent hangs;
``--repair`` repairs damaged step record files (see
:mod:`experiments.tournament`). Ctrl-C or SIGTERM stops it with one line
saying what is saved; rerunning resumes.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import signal
import sys
from pathlib import Path

from ..config import ConfigError, make_config, parse_assignments
from ..metadata import metadata, write_result
from ..tournament import (TournamentConfig, TournamentError, _load_game, _sigterm_raises,
                         check_agents, run_tournament)

__all__ = ["LadderConfig", "PROFILES", "check", "run", "table"]


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
    move_time_limit: float | None = None


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
          progress: bool, repair: bool = False) -> dict:
    rot = dict(config.rotations).get(n)
    tc = TournamentConfig(agents=(lo, hi), game={"players": n}, deals=deals,
                          seed=config.seed + n, rotations=rot, workers=config.workers,
                          move_time_limit=config.move_time_limit)
    res = run_tournament(tc, out, progress=progress, repair=repair)
    pair = res.summary["pairs"][0]
    d = pair["payoff_difference"]            # lo - hi
    gain = {"mean": -d["mean"], "lo": -d["hi"], "hi": -d["lo"], "p_value": d["p_value"]}
    return {"players": n, "lower": lo, "higher": hi, "deals": res.summary["deals"],
            "seat_assignments": len(res.summary["assignments"]),
            "payoff_gain_of_higher": gain,
            "holds": bool(gain["mean"] > 0 and gain["p_value"] < config.alpha),
            "agents": res.summary["agents"], "timing": res.summary["timing"]}


def _sweep_spec(config: LadderConfig, iterations: int) -> str:
    return f"ismcts(iterations={iterations}, rollout={config.sweep_rollout!r})"


def check(config: LadderConfig) -> None:
    """Every step's tournament config and every agent, built once: a bad rung or sweep
    spec raises :class:`TournamentError` before anything is written."""
    if not isinstance(config.rungs, tuple) or len(config.rungs) < 2:
        raise TournamentError(f"a ladder needs at least two rungs, got {config.rungs!r}")
    for n in config.players:
        TournamentConfig(agents=config.rungs[:2], game={"players": n}, deals=config.deals,
                         seed=config.seed + n, rotations=dict(config.rotations).get(n),
                         workers=config.workers, move_time_limit=config.move_time_limit)
        check_agents(config.rungs, _load_game({"players": n}))
    if config.sweep:
        sweep = (config.sweep_opponent,) + tuple(_sweep_spec(config, it) for it in config.sweep)
        TournamentConfig(agents=sweep[:2], game={"players": config.sweep_players},
                         deals=config.sweep_deals, workers=config.workers,
                         move_time_limit=config.move_time_limit)
        check_agents(sweep, _load_game({"players": config.sweep_players}))


def run(config: LadderConfig, out_dir: Path, progress: bool = True,
        repair: bool = False) -> dict:
    started = _dt.datetime.now(_dt.UTC)
    check(config)
    steps = []
    for n in config.players:
        for i in range(len(config.rungs) - 1):
            lo, hi = config.rungs[i], config.rungs[i + 1]
            steps.append(_step(config, n, lo, hi, config.deals,
                               out_dir / "ladder" / f"n{n}_step{i}", progress, repair))
    sweep = []
    for it in config.sweep:
        spec = _sweep_spec(config, it)
        r = _step(config, config.sweep_players, config.sweep_opponent, spec, config.sweep_deals,
                  out_dir / "ladder" / f"sweep_{it}", progress, repair)
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
    ap = argparse.ArgumentParser(prog="python -m experiments.studies.ladder")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--set", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                    help="override settings, e.g. --set deals=10 sweep=100,300")
    ap.add_argument("--out", default=None, help="results folder (default results/<profile>)")
    ap.add_argument("--repair", action="store_true",
                    help="repair damaged step record files (deals.jsonl)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out or Path("results") / args.profile)
    try:
        config = make_config(LadderConfig, PROFILES[args.profile], parse_assignments(args.set))
    except ConfigError as e:
        ap.error(f"bad ladder settings: {e}")
    with _sigterm_raises():
        try:
            res = run(config, out, progress=not args.no_progress, repair=args.repair)
        except KeyboardInterrupt as e:
            print(str(e) or "interrupted; rerun the same command to resume", file=sys.stderr)
            return 128 + getattr(e, "signum", signal.SIGINT)
        except TournamentError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    print(table(res))
    print(f"written to {out / 'ladder.json'}")
    return 0


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``ladder.json`` (:mod:`experiments.macros`)."""
    from ..macros import fixed, read_json, tex_text, thousands
    lad = lambda: read_json(results / "ladder.json")                 # noqa: E731
    steps = lambda: lad()["result"]["steps"]                         # noqa: E731
    sweep = lambda: lad()["result"]["sweep"]                         # noqa: E731
    m.add("LadderSteps", lambda: len(steps()), str, "adjacent steps of the ladder")
    m.add("LadderHolds", lambda: sum(s["holds"] for s in steps()), str,
          "steps significant at the ladder's alpha")
    m.add("LadderAlpha", lambda: lad()["metadata"]["config"]["alpha"], str,
          "significance level of a ladder step")
    m.add("LadderDeals", lambda: lad()["metadata"]["config"]["deals"], thousands,
          "duplicate deals per ladder step")
    m.add("LadderPlayers",
          lambda: " and ".join(str(n) for n in lad()["metadata"]["config"]["players"]), str,
          "player counts of the ladder")
    m.add("SweepMinIterations", lambda: min(p["iterations"] for p in sweep()), thousands,
          "smallest ISMCTS budget of the sweep")
    m.add("SweepMaxIterations", lambda: max(p["iterations"] for p in sweep()), thousands,
          "largest ISMCTS budget of the sweep")
    m.add("SweepDeals", lambda: lad()["metadata"]["config"]["sweep_deals"], thousands,
          "duplicate deals per sweep budget")
    m.add("SweepOpponent", lambda: lad()["metadata"]["config"]["sweep_opponent"], tex_text,
          "the sweep's opponent")
    best = lambda: max(sweep(), key=lambda p: p["payoff_gain_of_higher"]["mean"])  # noqa: E731
    m.add("SweepBestIterations", lambda: best()["iterations"], thousands,
          "budget with the largest gain over the opponent")
    m.add("SweepBestGain", lambda: best()["payoff_gain_of_higher"]["mean"], fixed(2),
          "its zero-sum gain, points per hand")
    m.add("SweepBestLo", lambda: best()["payoff_gain_of_higher"]["lo"], fixed(2), "95% low")
    m.add("SweepBestHi", lambda: best()["payoff_gain_of_higher"]["hi"], fixed(2), "95% high")


if __name__ == "__main__":
    raise SystemExit(main())
