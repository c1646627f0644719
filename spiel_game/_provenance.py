"""Provenance: which code and packages produced a result or a checkpoint.

One home for the source checkout's commit (:func:`git_commit`), the versions
of this package and of the packages a result depends on
(:func:`package_versions`) and the provenance record written next to every
result (:func:`metadata`). The
experiments (:mod:`experiments._base.metadata`, the runner) and the trainers of
:mod:`solvers` (networks, card-location models, OpenSpiel's RL agents) use
these, so a result and a checkpoint say the same thing about the same tree.

**Dirty trees.** ``git_commit()`` is ``<sha>+dirty`` when the work tree
differs from ``HEAD`` in a way that can change results: a tracked file
modified, staged or deleted, *or an untracked file that git does not ignore*
(a new module or script that an experiment may import or run). Files that
``.gitignore`` lists (``results/``, caches, the virtual environment) do not
count, so writing results never makes the tree dirty.

**Installed from a wheel.** There is no commit then: ``git_commit()`` is
``None`` (also when git is missing, or when the installed copy sits inside some
other git repository, e.g. a virtual environment in a project folder: only a
checkout that tracks this very module counts), and the record's
``package_version`` (the installed distribution's version) says which code ran.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from ._extras import DISTRIBUTION

__all__ = ["file_sha256", "git_commit", "package_version", "package_versions", "metadata",
           "PACKAGES", "DISTRIBUTION"]

#: The packages whose versions :func:`package_versions` records (those installed).
PACKAGES = (DISTRIBUTION, "open_spiel", "numpy", "scipy", "numba", "pandas", "matplotlib",
            "ray")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          timeout=10, check=True).stdout.strip()


def _checkout_of_this_package() -> Path | None:
    """The top folder of the git checkout that tracks this module, or ``None``
    (installed from a wheel, no git, or an untracked copy inside another repository)."""
    here = Path(__file__).resolve()
    try:
        top = Path(_git(here.parent, "rev-parse", "--show-toplevel"))
        _git(top, "ls-files", "--error-unmatch", str(here.relative_to(top.resolve())))
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return top


def git_commit(root: str | Path | None = None) -> str | None:
    """The commit checked out at ``root`` (default: the source checkout this
    package is imported from), with ``+dirty`` when the tree has uncommitted
    changes that can change results (see the module docstring: tracked changes
    and untracked, not ignored, files); ``None`` outside a git checkout (an
    installed wheel) or without git."""
    root = Path(root) if root is not None else _checkout_of_this_package()
    if root is None:
        return None
    try:
        head = _git(root, "rev-parse", "HEAD")
        dirty = _git(root, "status", "--porcelain", "--untracked-files=normal")
    except (OSError, subprocess.SubprocessError):
        return None
    if not head:
        return None
    return head + ("+dirty" if dirty else "")


def package_version() -> str | None:
    """The installed version of this project (its distribution metadata), or ``None``
    when it runs from a folder that was never installed."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """``{"python": version, package: version, ...}`` for the installed ones of
    ``packages`` (from their distribution metadata; missing ones left out)."""
    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def metadata(config: Any, seed: int | None, started: _dt.datetime | None = None) -> dict:
    """The provenance record of a result: ``config`` (a dataclass is turned
    into a dict), ``seed``, this package's version, the versions of its
    dependencies, the git commit (``None`` for an installed wheel), start and
    finish times (UTC, ISO 8601) and the machine (platform, CPU count)."""
    if dataclasses.is_dataclass(config):
        config = dataclasses.asdict(config)
    return {
        "config": config,
        "seed": seed,
        "package_version": package_version(),
        "versions": package_versions(),
        "git_commit": git_commit(),
        "started": (started or _dt.datetime.now(_dt.UTC)).isoformat(),
        "finished": _dt.datetime.now(_dt.UTC).isoformat(),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
    }


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes (hex), read in blocks."""
    import hashlib

    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
