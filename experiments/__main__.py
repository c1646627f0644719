"""Command line: ``python -m experiments reproduce [--profile quick|paper]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import demo


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
        return 0
    out = Path(args.out or Path("results") / args.profile)
    res = demo.run(demo.PROFILES[args.profile], out)
    print(demo.summary(res))
    print(f"results written to {out / 'demo.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
