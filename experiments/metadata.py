"""Provenance written next to every result: config, seed, versions, git commit."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import importlib.metadata
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["metadata", "write_result", "git_commit"]

_PACKAGES = ("open_spiel", "numpy", "scipy", "numba", "pandas", "matplotlib", "ray")


def git_commit() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10)
        commit = out.stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def metadata(config: Any, seed: int | None, started: _dt.datetime | None = None) -> dict:
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


def write_result(path: str | Path, result: dict, meta: dict) -> Path:
    """Write ``{"metadata": meta, "result": result}`` atomically as JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps({"metadata": meta, "result": result}, indent=2, default=str))
    os.replace(tmp, path)
    return path
