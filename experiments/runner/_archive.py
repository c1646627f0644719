"""Move a run folder between machines: pack its saved units into one
``.tar.xz`` and restore it elsewhere, so that the run resumes there.

:func:`pack_run` writes ``<dest>/<folder name>.tar.xz`` with every file of
the folder (shards, ``shards.sha256``, ``run.json``, tables, metadata) except
the folder lock and temporary files, byte for byte the same for the same files
(sorted names, zero times and owners), so that an unchanged run gives an
unchanged archive (nothing new to commit). :func:`restore_run` unpacks such an
archive into a results root when the run's folder is not there; the runner
then verifies each shard against ``shards.sha256`` on resume, as for any
folder.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

__all__ = ["pack_run", "restore_run"]

#: Files of a run folder that an archive leaves out: the folder lock and
#: temporary files that a writer had not renamed yet.
SKIP_NAMES = (".runner.lock",)
SKIP_SUFFIXES = (".tmp",)
SUFFIX = ".tar.xz"


def pack_run(folder, dest) -> Path | None:
    """``dest/<folder name>.tar.xz`` of the run folder ``folder`` (written
    atomically; ``dest`` is made if needed); None when ``folder`` is not a
    directory."""
    folder, dest = Path(folder), Path(dest)
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and not p.is_symlink() and p.name not in SKIP_NAMES
                   and not p.name.endswith(SKIP_SUFFIXES))
    dest.mkdir(parents=True, exist_ok=True)
    tmp = dest / f".{folder.name}{SUFFIX}.{os.getpid()}.tmp"
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        for p in files:
            data = p.read_bytes()
            info = tarfile.TarInfo(f"{folder.name}/{p.relative_to(folder).as_posix()}")
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    out = dest / f"{folder.name}{SUFFIX}"
    tmp.replace(out)
    return out


def restore_run(packed, root) -> bool:
    """Unpack the archive ``packed`` (``<name>.tar.xz`` from :func:`pack_run`)
    into ``root/<name>/`` when that folder does not exist; True when it did.
    A ``ValueError`` names an archive that is not one folder's files."""
    packed, root = Path(packed), Path(root)
    if not packed.name.endswith(SUFFIX):
        raise ValueError(f"{packed}: not a run archive (allowed: a <folder>{SUFFIX} "
                         f"written by pack_run)")
    name = packed.name[:-len(SUFFIX)]
    if (root / name).exists():
        return False
    root.mkdir(parents=True, exist_ok=True)
    with tarfile.open(packed, "r:xz") as tar:
        names = tar.getnames()
        if any(not n.startswith(f"{name}/") or ".." in Path(n).parts for n in names):
            raise ValueError(f"{packed}: holds files outside {name}/ (allowed: one run "
                             f"folder's files, as pack_run writes them)")
        tar.extractall(root, filter="data")
    return True
