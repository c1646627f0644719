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

__all__ = ["guard", "engine_sources", "cache_locations", "NOT_KERNEL_SOURCES"]


#: Modules of ``spiel_game`` that hold no compiled kernel and that no kernel
#: calls: editing them keeps the cached kernels (game records, provenance, file reading).
NOT_KERNEL_SOURCES = ("records.py", "_provenance.py", "_safe_io.py")


def engine_sources() -> list[Path]:
    """The source files of the rules engine package (``spiel_game``) that
    compiled kernels may depend on (every module but :data:`NOT_KERNEL_SOURCES`)."""
    return sorted(f for f in Path(__file__).resolve().parent.glob("*.py")
                  if f.name not in NOT_KERNEL_SOURCES)


def cache_locations(cache_dir: Path) -> list[Path]:
    """Where numba keeps the cached kernels of the modules whose ``__pycache__`` is
    ``cache_dir``: that folder, and, when ``NUMBA_CACHE_DIR`` is set, numba's folder
    for the same sources inside it (numba's own locator computes its name)."""
    out = [Path(cache_dir)]
    from numba.core import config
    if config.CACHE_DIR:
        from numba.core.caching import UserProvidedCacheLocator
        sub = UserProvidedCacheLocator.get_suitable_cache_subpath(
            str(Path(cache_dir).parent / "module.py"))
        out.append(Path(config.CACHE_DIR) / sub)
    return out


def guard(cache_dir: Path, sources: Iterable[Path], prefix: str = "") -> None:
    """Delete ``<prefix>*.nbi|.nbc`` in every location of :func:`cache_locations`
    (``cache_dir``, and numba's folder under ``NUMBA_CACHE_DIR`` when it is set) if
    ``sources`` changed since that location's kernels were written."""
    digest = hashlib.sha256()
    for f in sources:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    for where in cache_locations(cache_dir):
        _guard_one(where, digest.hexdigest(), prefix)


def _guard_one(cache_dir: Path, digest: str, prefix: str) -> None:
    stamp = cache_dir / f"{prefix or 'numba'}.sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        cache_dir.mkdir(parents=True, exist_ok=True)
        for f in list(cache_dir.glob(f"{prefix}*.nbi")) + list(cache_dir.glob(f"{prefix}*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
