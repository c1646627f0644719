"""``python -m experiments.tournament``: the command line of a tournament."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from collections.abc import Sequence

import spiel_game

from .. import runner
from .._cli import add_rerun_args
from .._base.config import ConfigError
from ._config import TournamentError
from ._play import pin_cores
from ._record_file import _other_records, _replace_records, game_records

__all__ = ["main", "agent_parameters"]


def agent_parameters(agents: Sequence[str]) -> str | None:
    """The agents with every parameter they are built with, defaults included
    (:func:`solvers._registry.effective_spec`: bare ``ismcts`` is
    ``iterations=1000``), one line each under their table label; None when a
    spec is bad (unknown agent or keyword: the run reports it)."""
    from solvers._registry import AgentSpecError, effective_spec, short_labels
    lines = ["agents (every parameter, defaults included):"]
    for lab, spec in zip(short_labels(agents), agents):
        try:
            lines.append(f"  {lab}: {effective_spec(spec)}")
        except AgentSpecError:
            return None
    return "\n".join(lines)




def main(argv=None) -> int:
    """``python -m experiments.tournament``: the registered runner experiment
    ``tournament`` (:mod:`experiments.studies.tournament`) with these flags as its
    configuration; results in ``<out>/tournament@<8 hex>/`` (resumable: the same
    command continues a stopped run); prints the summary table."""
    ap = argparse.ArgumentParser(prog="python -m experiments.tournament",
                                 description="Duplicate-deal tournaments between agents, with "
                                             "confidence intervals.")
    ap.add_argument("--agents", nargs="+", required=True,
                    help="agent specs: a name with literal parameters, e.g. "
                         "'ismcts(iterations=500)' (python -m experiments agents lists them), "
                         "or any factory: 'mymodule:make_bot(depth=2)', "
                         "'path/to/bot.py:make_bot'")
    ap.add_argument("--game", default="{}", help='game parameters as JSON, e.g. \'{"players": 6}\'')
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rotations", type=int, default=None)
    ap.add_argument("--lineup", type=int, nargs="+", default=None)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes, each playing blocks of deals (the numbers do not "
                         "depend on it)")
    ap.add_argument("--deals-per-unit", type=int, default=10, metavar="N",
                    help="deals per unit of work (the numbers do not depend on it)")
    ap.add_argument("--move-time-limit", type=float, default=None, metavar="SECONDS",
                    help="stop the tournament when one agent call takes longer (deals then "
                         "run in worker processes)")
    ap.add_argument("--out", required=True,
                    help="results root: the run's folder is <out>/tournament@<8 hex> "
                         "(resumable)")
    add_rerun_args(ap, "move damaged result files aside and recompute their deals")
    ap.add_argument("--fresh", action="store_true",
                    help="delete the files the runner wrote for this configuration (nothing "
                         "else in its folder) and play every deal")
    ap.add_argument("--records", metavar="FILE", default=None,
                    help="also write the game record (spiel_game.records, JSON Lines) of every "
                         "deal and seat assignment to FILE (a new file, or one that "
                         "tournaments wrote: other tournaments' lines are kept); the run and its "
                         "folder are the same with or without it")
    ap.add_argument("--pin", action="store_true",
                    help="pin this process (and its workers) to one core and the xinxin "
                         "drivers to another (not on a one-core machine)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.records is not None and Path(args.records).is_dir():
        ap.error(f"--records names a file to write, got the folder {args.records}")
    try:
        game = json.loads(args.game)
    except json.JSONDecodeError as e:
        ap.error(f"--game is not JSON: {e}")
    if not isinstance(game, dict):
        ap.error(f"--game must be a JSON object like '{{\"players\": 6}}', got {args.game}")
    bad = {k: v for k, v in game.items() if isinstance(v, bool) or not isinstance(v, (int, str))}
    if bad:
        ap.error(f"--game values are integers or strings, got {bad}")
    players = game.pop("players", spiel_game.PARAMETER_DEFAULTS["players"])
    overrides = {"agents": tuple(args.agents), "players": players,
                 "game": tuple(f"{k}={v}" for k, v in game.items()), "deals": args.deals,
                 "seed": args.seed, "rotations": args.rotations,
                 "lineup": tuple(args.lineup) if args.lineup else None,
                 "deals_per_unit": args.deals_per_unit,
                 "move_time_limit": args.move_time_limit}
    params = agent_parameters(args.agents)
    if params is not None:          # else the run names the bad spec
        print(params, flush=True)
    try:
        if args.records is not None:    # a file tournaments wrote, or a new one
            _other_records(Path(args.records), "")
        if args.pin:
            cores = pin_cores()
            if cores is not None:
                print(f"pinned: this process on core {cores[0]}, xinxin drivers on core "
                      f"{cores[1]}", flush=True)
        res = runner.run("tournament", overrides=overrides, out=args.out, workers=args.workers,
                         recompute_corrupt=args.recompute_corrupt, fresh=args.fresh,
                         reuse_stale=args.reuse_stale, progress=not args.no_progress,
                         verbose=False)
    except KeyboardInterrupt as e:
        print(str(e) or "interrupted; rerun the same command to resume", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)
    except (ConfigError, runner.RunError, TournamentError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(res.text.rstrip())
    print(f"written to {res.path}")
    if args.records is not None:
        dest = Path(args.records)
        try:
            games, missing = game_records(res)
            _replace_records(dest, None, (g.to_json() for g in games))
        except (runner.RunError, TournamentError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(f"{len(games)} game records written to {dest}"
              + (f"; {len(missing)} deals (first {missing[:5]}) were saved before game "
                 f"records were kept and have none" if missing else ""))
    return 0
