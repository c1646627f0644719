"""spiel_game._numba_cache: cached kernels are dropped when the sources they inline
change, in the package's ``__pycache__`` and, when ``NUMBA_CACHE_DIR`` is set,
in numba's own folder for the package under it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from spiel_game import _numba_cache as numba_cache

ROOT = Path(__file__).resolve().parents[2]


def _fake_kernels(where: Path, prefix: str) -> list[Path]:
    where.mkdir(parents=True, exist_ok=True)
    files = [where / f"{prefix}kernel-1.py311.nbi", where / f"{prefix}kernel-1.py311.1.nbc"]
    for f in files:
        f.write_bytes(b"cached")
    return files


def test_guard_drops_kernels_in_both_locations_when_a_source_changes(tmp_path, monkeypatch):
    from numba.core import config
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    src = pkg / "engine.py"
    src.write_text("X = 1\n")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba_cache"))
    places = numba_cache.cache_locations(pkg / "__pycache__")
    assert places[0] == pkg / "__pycache__" and len(places) == 2
    assert places[1].parent == tmp_path / "numba_cache"
    numba_cache.guard(pkg / "__pycache__", [src], prefix="mod")
    kept = [f for p in places for f in _fake_kernels(p, "mod")]
    other = _fake_kernels(places[1], "othermod")       # another module's kernels
    numba_cache.guard(pkg / "__pycache__", [src], prefix="mod")       # unchanged: kept
    assert all(f.exists() for f in kept + other)
    src.write_text("X = 2\n")
    numba_cache.guard(pkg / "__pycache__", [src], prefix="mod")       # changed: dropped
    assert not any(f.exists() for f in kept)
    assert all(f.exists() for f in other)
    monkeypatch.setattr(config, "CACHE_DIR", "")
    assert numba_cache.cache_locations(pkg / "__pycache__") == [pkg / "__pycache__"]


def test_the_second_location_is_where_numba_writes_under_numba_cache_dir(tmp_path):
    """A cache=True kernel compiled with NUMBA_CACHE_DIR lands in the folder that
    cache_locations names (numba's locator, not a copy of its rule)."""
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def twice(x):
            return 2 * x
    """))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from mypkg.kern import twice
        assert twice(21) == 42
        from pathlib import Path
        from spiel_game._numba_cache import cache_locations
        print(cache_locations(Path({str(pkg / "__pycache__")!r}))[1])
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "nc")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    where = Path(proc.stdout.strip().splitlines()[-1])
    assert [p.name.split("-")[0] for p in where.glob("*.nbi")] == ["kern.twice"]
    assert not (pkg / "__pycache__").exists() or not list((pkg / "__pycache__").glob("*.nbi"))


def test_every_package_with_cross_module_kernels_is_guarded():
    """spiel_game, solvers and solvers.cfr each keep a stamp of their sources in
    their __pycache__ after import (so a changed source drops their kernels)."""
    import hashlib

    import solvers.cfr  # noqa: F401  (runs the guard)
    here = ROOT / "solvers" / "cfr"
    digest = hashlib.sha256()
    for f in sorted(here.glob("*.py")):
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    stamp = here / "__pycache__" / "numba.sources.sha256"
    assert stamp.read_text() == digest.hexdigest()
    for pkg in ("spiel_game", "solvers"):
        assert (ROOT / pkg / "__pycache__" / "numba.sources.sha256").is_file(), pkg
