"""Pack the confirmatory runs' saved units into committed archives, and restore them.

``python research/confirmatory/archive.py pack`` writes, for every run folder
under ``research/confirmatory/runs/`` (git-ignored), ``archive/<folder>.tar.xz``
(committed): its shards, ``shards.sha256``, ``run.json``, ``declaration.json``,
``.runner-files`` and, once the run is finished, its rows, tables and
``metadata.json`` (not the lock, not temporary files). The archive is byte for
byte the same for the same files (sorted names, zero times and owners), so an
unchanged run gives no git change.

``python research/confirmatory/archive.py restore`` unpacks each archive whose
run folder is missing (a fresh checkout), so that the runner resumes from the
saved units (it verifies each against ``shards.sha256`` and the declaration
against ``declaration.json``). A folder that exists is left alone.

``status`` prints the saved units of each folder. ``run.sh`` packs after each
run and restores before; the README of this folder has the restart command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from experiments.runner import pack_run, restore_run

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
ARCHIVE = HERE / "archive"

def saved_units(folder: Path) -> int:
    return len(list((folder / "shards").glob("unit-*.json")))


def total_units(folder: Path) -> int | None:
    try:
        return int(json.loads((folder / "run.json").read_text())["units"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pack(folder: Path, dest: Path = ARCHIVE) -> Path:
    """``dest/<folder name>.tar.xz`` of ``folder``
    (:func:`experiments.runner.pack_run`: written atomically, byte for byte the
    same for the same files, without the lock or temporary files)."""
    return pack_run(folder, dest)


def restore(packed: Path, runs: Path = RUNS) -> bool:
    """Unpack ``packed`` into ``runs`` when its folder is missing; True when it did
    (:func:`experiments.runner.restore_run`)."""
    return restore_run(packed, runs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("pack", "restore", "status"))
    args = ap.parse_args(argv)
    if args.action == "restore":
        for packed in sorted(ARCHIVE.glob("*.tar.xz")):
            if restore(packed):
                print(f"{packed.name}: restored into runs/ ({saved_units(RUNS / packed.name[:-7])} "
                      f"units)", flush=True)
            else:
                print(f"{packed.name}: runs/{packed.name[:-7]} exists; left alone", flush=True)
        return 0
    folders = sorted(p for p in RUNS.glob("*") if p.is_dir()) if RUNS.is_dir() else []
    for f in folders:
        line = f"{f.name}: {saved_units(f)}/{total_units(f) or '?'} units saved"
        if args.action == "pack":
            line += f", packed into {pack(f).relative_to(HERE.parents[1])}"
        print(line, flush=True)
    if not folders:
        print("no run folders under research/confirmatory/runs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
