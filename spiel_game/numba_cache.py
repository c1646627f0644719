"""Keeping numba's on-disk cache honest.

numba's ``cache=True`` notices edits to a function's own file but not to the
functions it calls (or inlines) from other modules, so after an engine change a
cached kernel could run the old rules. :func:`guard` drops a folder's cached
kernels whenever any of the given sources changed since they were written.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from collections.abc import Iterable

__all__ = ["guard", "engine_sources"]


def engine_sources() -> list[Path]:
    """The source files of the rules engine package (``spiel_game``)."""
    return sorted(Path(__file__).resolve().parent.glob("*.py"))


def guard(cache_dir: Path, sources: Iterable[Path], prefix: str = "") -> None:
    """Delete ``cache_dir/<prefix>*.nbi|.nbc`` if ``sources`` changed since last time."""
    digest = hashlib.sha256()
    for f in sources:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    stamp = cache_dir / f"{prefix or 'numba'}.sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        cache_dir.mkdir(exist_ok=True)
        for f in list(cache_dir.glob(f"{prefix}*.nbi")) + list(cache_dir.glob(f"{prefix}*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass
