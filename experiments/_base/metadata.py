"""Result files of the experiments: ``{"metadata": ..., "result": ...}`` JSON.

The provenance written next to every result (config, seed, package versions,
git commit) comes from :mod:`spiel_game._provenance`; this module writes the
files and gives the experiments that provenance under one import.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from spiel_game._provenance import git_commit, metadata, package_versions

__all__ = ["metadata", "write_result", "git_commit", "package_versions"]


def write_result(path: str | Path, result: dict, meta: dict) -> Path:
    """Write ``{"metadata": meta, "result": result}`` atomically as JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps({"metadata": meta, "result": result}, indent=2, default=str))
    os.replace(tmp, path)
    return path
