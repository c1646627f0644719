"""The pre-registered xinxin sweep: one duplicate-deal tournament per cell.

``python research/xinxin_sweep/run.py [--declaration FILE] [--cells C ...] [--check]``
reads the declaration (the JSON block of ``paper/preregistration_xinxin.md``, or
of ``FILE``, e.g. the recalibrated sweep's
``paper/preregistration_xinxin_recalibrated.md``: cells,
agents, game, seeds, deals), pins this process to one core and the xinxin
drivers to another (``experiments.tournament.pin_cores``; not on a one-core
machine, which it says) and plays the cells in the declared order (smallest
budget first), each into ``research/xinxin_sweep/runs/<cell>/``
(``experiments.tournament.run_tournament``, one resumable unit per deal). A
finished cell is skipped; an interrupted one resumes where it stopped. Before a
cell's first deal in a process, our agent plays one game on every seat outside
the measurement (``experiments.studies.xinxin_sweep.warm_up``), so the
compilation of its kernels is not counted as its CPU time in the first deal.

**The declaration is frozen at the first unit.** The first run records the
SHA-256 of the preregistration file in ``research/xinxin_sweep/declaration.sha256``
(another declaration's in ``declaration-<file stem>.sha256``: :func:`frozen_for`);
a later run refuses to start if the file's hash differs (a changed
declaration needs a new sweep, not a continuation). ``--check`` only checks
this and prints the plan.

**Saved units survive a fresh checkout.** ``runs/`` is git-ignored (about
10 KB a deal); ``--archive`` packs each cell's folder into
``archive/<cell>.tar.xz`` (about 1 KB a deal, committed), also while a cell is
unfinished, and a finished cell is packed at once. A run restores a cell from
its archive when ``runs/<cell>/`` is missing, and resumes from there.

Saved units are reused across code changes elsewhere in the repository
(``reuse_stale``): the runner records the code version of every session in
each cell's ``run.json``. Progress lines go to stdout (``run.log`` when started
as documented in the README of this folder).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HERE = ROOT / "research" / "xinxin_sweep"
DECLARATION = ROOT / "paper" / "preregistration_xinxin.md"
FROZEN = HERE / "declaration.sha256"
RUNS = HERE / "runs"
ARCHIVE = HERE / "archive"


class DeclarationError(RuntimeError):
    """The declaration is missing, malformed, or changed after the first unit."""


def declaration(path: Path = DECLARATION) -> dict:
    """The JSON block (between ```json and ```) of the preregistration file."""
    text = path.read_text()
    blocks = re.findall(r"```json\n(.*?)\n```", text, re.S)
    if len(blocks) != 1:
        raise DeclarationError(f"{path}: expected exactly one ```json block, found "
                               f"{len(blocks)}")
    decl = json.loads(blocks[0])
    seeds = [c["seed"] for c in decl["cells"]]
    if len(set(seeds)) != len(seeds):
        raise DeclarationError(f"{path}: cell seeds repeat: {seeds}")
    return decl


def frozen_for(path: Path) -> Path:
    """Where the SHA-256 of the declaration ``path`` is frozen at its first unit
    (the study's rule, :func:`experiments.studies.xinxin_sweep.frozen_for`)."""
    from experiments.studies.xinxin_sweep import frozen_for as study_frozen_for
    return study_frozen_for(path, HERE)


def file_hash(path: Path = DECLARATION) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_frozen(path: Path = DECLARATION, frozen: Path = FROZEN, freeze: bool = True) -> str:
    """The declaration's hash; it must equal the one recorded at the first run
    (recorded now if there is none and ``freeze``)."""
    h = file_hash(path)
    if frozen.exists():
        was = frozen.read_text().split()[0]
        if was != h:
            raise DeclarationError(
                f"{path} changed after the sweep's first unit (recorded sha256 {was}, now "
                f"{h}): a confirmatory run does not continue under a changed declaration; "
                f"start a new sweep with a new declaration and fresh seeds")
    elif freeze:
        frozen.write_text(f"{h}  {path.relative_to(ROOT)}\n")
    return h


def cell_config(decl: dict, cell: dict):
    from experiments.tournament import TournamentConfig
    game = dict(decl["games"][cell["game"]])
    return TournamentConfig(agents=(cell["ours"], cell["xinxin"]), game=game,
                            deals=int(cell["deals"]), seed=int(cell["seed"]), workers=1)


def saved_deals(cell_dir: Path) -> int:
    return len(list((cell_dir / "shards").glob("unit-*.json")))


def archive(cell: str, runs: Path = RUNS, dest: Path = ARCHIVE) -> Path | None:
    """Pack ``runs/<cell>/`` (its saved units, run.json and tables; not the lock)
    into ``archive/<cell>.tar.xz`` (:func:`experiments.runner.pack_run`: byte
    for byte the same for the same files); None when there is nothing to pack."""
    from experiments.runner import pack_run
    return pack_run(runs / cell, dest)


def restore(cell: str, runs: Path = RUNS, src: Path = ARCHIVE) -> bool:
    """Unpack ``archive/<cell>.tar.xz`` into ``runs/`` when ``runs/<cell>/`` is
    missing (a fresh checkout); True when it did."""
    from experiments.runner import restore_run
    packed = src / f"{cell}.tar.xz"
    return packed.exists() and restore_run(packed, runs)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--declaration", type=Path, default=DECLARATION,
                    help="the preregistration file (default: the first sweep's, "
                         "paper/preregistration_xinxin.md)")
    ap.add_argument("--cells", nargs="+", help="only these cells (declared order kept)")
    ap.add_argument("--check", action="store_true",
                    help="check the declaration and print the plan; play nothing")
    ap.add_argument("--swap-cores", action="store_true",
                    help="this process on the second core and the drivers on the first (a "
                         "second runner beside one started the default way, on other cells)")
    ap.add_argument("--archive", action="store_true",
                    help="pack each cell's saved units into archive/<cell>.tar.xz; play nothing")
    args = ap.parse_args(argv)
    args.declaration = args.declaration.resolve()
    decl = declaration(args.declaration)
    names = [c["cell"] for c in decl["cells"]]
    if args.cells:
        unknown = sorted(set(args.cells) - set(names))
        if unknown:
            ap.error(f"unknown cells {unknown}; declared: {names}")
    h = check_frozen(args.declaration, frozen_for(args.declaration), freeze=not args.check)
    cells = [c for c in decl["cells"] if not args.cells or c["cell"] in args.cells]
    if args.archive:
        for c in cells:
            out = archive(c["cell"])
            if out is not None:
                print(f"{c['cell']}: {saved_deals(RUNS / c['cell'])} deals packed into "
                      f"{out.relative_to(ROOT)}", flush=True)
        return 0
    for c in cells:
        if restore(c["cell"]):
            print(f"{c['cell']}: restored from archive/{c['cell']}.tar.xz", flush=True)
    for c in cells:
        print(f"{c['cell']}: {saved_deals(RUNS / c['cell'])}/{c['deals']} deals saved; "
              f"{c['ours']} vs {c['xinxin']}, seed {c['seed']}", flush=True)
    if args.check:
        return 0
    from experiments.studies.xinxin_sweep import warm_up
    from experiments.tournament import TournamentInterrupted, pin_cores, run_tournament
    cores = pin_cores(swap=args.swap_cores)
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC start; commit "
          f"{_commit()}; declaration sha256 {h}; pinned {cores or 'no (one core)'}",
          flush=True)
    for c in cells:
        out = RUNS / c["cell"]
        if saved_deals(out) >= c["deals"] and (out / "summary.txt").exists():
            print(f"{c['cell']}: finished, skipped", flush=True)
            continue
        t0 = time.time()
        if warm_up(c["ours"], dict(decl["games"][c["game"]])):
            print(f"{time.strftime('%H:%M:%S', time.gmtime())} {c['cell']}: {c['ours']} "
                  f"warmed up in {time.time() - t0:.0f} s (one game, not measured)", flush=True)
            t0 = time.time()
        print(f"{time.strftime('%H:%M:%S', time.gmtime())} {c['cell']}: playing "
              f"({saved_deals(out)}/{c['deals']} saved)", flush=True)
        try:
            res = run_tournament(cell_config(decl, c), out, progress=False, reuse_stale=True)
        except TournamentInterrupted as e:
            print(f"{time.strftime('%H:%M:%S', time.gmtime())} {c['cell']}: stopped: {e}",
                  flush=True)
            return 128 + e.signum
        t = res.summary["timing"]
        print(f"{time.strftime('%H:%M:%S', time.gmtime())} {c['cell']}: done, "
              f"{res.summary['deals']} deals in {time.time() - t0:.0f} s; CPU ms per decision "
              f"ours {t[0]['cpu_ms_per_decision']:.1f}, xinxin "
              f"{t[1]['cpu_ms_per_decision']:.1f}", flush=True)
        archive(c["cell"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
