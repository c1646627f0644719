"""Provenance: which code and packages produced a result or a checkpoint.

One home for the source checkout's commit (:func:`git_commit`), the versions
of the packages a result depends on (:func:`package_versions`) and the
provenance record written next to every result (:func:`metadata`). The
experiments (:mod:`experiments.metadata`, the runner) and the trainers of
:mod:`solvers` (networks, card-location models, OpenSpiel's RL agents) use
these, so a result and a checkpoint say the same thing about the same tree.

**Dirty trees.** ``git_commit()`` is ``<sha>+dirty`` when the work tree
differs from ``HEAD`` in a way that can change results: a tracked file
modified, staged or deleted, *or an untracked file that git does not ignore*
(a new module or script that an experiment may import or run). Files that
``.gitignore`` lists (``results/``, caches, the virtual environment) do not
count, so writing results never makes the tree dirty.
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

__all__ = ["file_sha256", "git_commit", "package_versions", "metadata", "PACKAGES"]

#: The packages whose versions :func:`package_versions` records (those installed).
PACKAGES = ("open_spiel", "numpy", "scipy", "numba", "pandas", "matplotlib", "ray")

_ROOT = Path(__file__).resolve().parent.parent


def git_commit(root: str | Path | None = None) -> str:
    """The commit checked out at ``root`` (default: this source tree), with
    ``+dirty`` when the tree has uncommitted changes that can change results
    (see the module docstring: tracked changes and untracked, not ignored,
    files), or ``"unknown"`` outside a git checkout or without git."""
    root = Path(root) if root is not None else _ROOT
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=normal"], capture_output=True, text=True,
                               timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = head.stdout.strip() or "unknown"
    return commit + ("+dirty" if dirty else "")


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
    into a dict), ``seed``, package versions, git commit, start and finish
    times (UTC, ISO 8601) and the machine (platform, CPU count)."""
    if dataclasses.is_dataclass(config):
        config = dataclasses.asdict(config)
    return {
        "config": config,
        "seed": seed,
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
