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
import io
import os
import json
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
ARCHIVE = HERE / "archive"
SKIP_SUFFIXES = (".tmp",)
SKIP_NAMES = (".runner.lock",)


def _files(src: Path) -> list[Path]:
    return sorted(p for p in src.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.name not in SKIP_NAMES
                  and not p.name.endswith(SKIP_SUFFIXES))


def saved_units(folder: Path) -> int:
    return len(list((folder / "shards").glob("unit-*.json")))


def total_units(folder: Path) -> int | None:
    try:
        return int(json.loads((folder / "run.json").read_text())["units"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pack(folder: Path, dest: Path = ARCHIVE) -> Path:
    """``dest/<folder name>.tar.xz`` of ``folder`` (written atomically)."""
    dest.mkdir(parents=True, exist_ok=True)
    tmp = dest / f".{folder.name}.tar.xz.{os.getpid()}.tmp"
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        for p in _files(folder):
            data = p.read_bytes()
            info = tarfile.TarInfo(f"{folder.name}/{p.relative_to(folder).as_posix()}")
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    out = dest / f"{folder.name}.tar.xz"
    tmp.replace(out)
    return out


def restore(packed: Path, runs: Path = RUNS) -> bool:
    """Unpack ``packed`` into ``runs`` when its folder is missing; True when it did."""
    name = packed.name[:-len(".tar.xz")]
    if (runs / name).exists():
        return False
    runs.mkdir(parents=True, exist_ok=True)
    with tarfile.open(packed, "r:xz") as tar:
        names = tar.getnames()
        if any(not n.startswith(f"{name}/") or ".." in Path(n).parts for n in names):
            raise ValueError(f"{packed}: holds files outside {name}/")
        tar.extractall(runs, filter="data")
    return True


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
