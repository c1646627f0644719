"""Command line: ``python -m experiments reproduce [--profile quick|paper]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import demo, rules_stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments")
    sub = ap.add_subparsers(dest="cmd", required=True)
    rep = sub.add_parser("reproduce", help="run the main job (the paper pipeline, quick profile by default)")
    rep.add_argument("--profile", choices=sorted(demo.PROFILES), default="quick")
    rep.add_argument("--out", default=None, help="results folder (default results/<profile>)")
    sub.add_parser("list", help="list experiments")
    args = ap.parse_args(argv)
    if args.cmd == "list":
        print("demo: play and score random hands with 6 and 11 players")
        print("rules_stats: random-play rules statistics for every player count and scheme")
        return 0
    out = Path(args.out or Path("results") / args.profile)
    res = demo.run(demo.PROFILES[args.profile], out)
    print(demo.summary(res))
    rules_stats.run(rules_stats.PROFILES[args.profile], out)
    print(f"rules statistics: {out / 'rules_stats.json'}")
    import runpy
    import sys as _sys
    root = Path(__file__).resolve().parent.parent
    for script in [root / "paper" / "tables" / "rules_stats.py"]:
        _sys.argv = [str(script), str(out)]
        runpy.run_path(str(script), run_name="__main__")
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
