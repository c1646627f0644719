"""Where each saved result of the paper comes from: commit, dirty tree, machine, wall time.

:func:`records` reads every study's ``metadata.json`` (``RESULTS/<study>/``)
and every benchmark's ``metadata`` (``BENCH/<name>.json``), and for results
assembled from earlier runs (a benchmark that packs tournaments run
elsewhere) also counts the commits those runs name (every ``git_commit`` key
inside the result). The paper's tools (outside the installed package) write
the table of these records and the title page's summary of them.

A commit ending in ``+dirty`` was recorded from a working tree with
uncommitted changes: the code that ran is that commit plus changes that the
commit alone does not reproduce; the table says so for every such result.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

__all__ = ["Record", "records", "wall_time"]


@dataclasses.dataclass(frozen=True)
class Record:
    """One result: ``name`` (folder or ``bench/<file>``), ``commit`` (40 hex, no
    suffix), ``dirty``, ``machine`` (platform and cores), ``wall`` (text),
    ``inner`` (commits named by the runs a result packs: ``(commit, dirty)``)."""

    name: str
    commit: str
    dirty: bool
    machine: str
    wall: str
    inner: tuple = ()


def _split(commit: str | None) -> tuple[str, bool]:
    commit = commit or "unknown"
    return commit.removesuffix("+dirty"), commit.endswith("+dirty")


def _machine(meta: dict) -> str:
    m = meta.get("machine") or {}
    platform = str(m.get("platform", "unknown")).split("-with-")[0]
    return f"{platform}, {m.get('cpus', '?')} cores"


def wall_time(meta: dict) -> str:
    """The run's wall time as text: the seconds a single-session study recorded,
    the last session's of a resumed one, else ``finished - started`` when
    over a second; ``not recorded`` for a result assembled without timing."""
    secs, sessions = meta.get("seconds_this_session"), meta.get("sessions", 1)
    if meta.get("units_run_this_session") == 0:     # assembled from saved units only
        return "not recorded"
    if secs is not None:
        text = _duration(float(secs))
        return text if sessions == 1 else f"{text} (last of {sessions} sessions)"
    try:
        span = (datetime.fromisoformat(meta["finished"])
                - datetime.fromisoformat(meta["started"])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return "not recorded"
    return _duration(span) if span > 1 else "not recorded"


def _duration(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.0f} min"
    return f"{s:.0f} s"


def _inner_commits(result) -> set:
    """Every ``git_commit`` value nested in ``result`` (the runs a benchmark packs)."""
    found, stack = set(), [result]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "git_commit" and isinstance(v, str):
                    found.add(_split(v))
                else:
                    stack.append(v)
        elif isinstance(x, list):
            stack.extend(x)
    return found


def records(results: Path, bench: Path | None = None) -> list[Record]:
    """Every study folder of ``results`` with a ``metadata.json`` and every
    ``bench/*.json`` with a ``metadata`` entry, in name order; ``inner`` holds
    the other commits a file names (the runs a study or benchmark packs)."""
    results = Path(results)
    bench = Path(bench) if bench is not None else results / "bench"
    out = []
    from spiel_game._safe_io import read_text

    from .runner import MAX_DOC_BYTES
    for meta_path in sorted(results.glob("*/metadata.json")):
        meta = json.loads(read_text(meta_path, MAX_DOC_BYTES, "results file"))
        commit, dirty = _split(meta.get("git_commit"))
        inner = tuple(sorted(_inner_commits({k: v for k, v in meta.items() if k != "git_commit"})
                             - {(commit, dirty)}))
        out.append(Record(meta_path.parent.name, commit, dirty, _machine(meta), wall_time(meta),
                          inner))
    for path in sorted(bench.glob("*.json")):
        data = json.loads(read_text(path, MAX_DOC_BYTES, "benchmark file"))
        if not isinstance(data, dict) or "metadata" not in data:
            continue
        meta = data["metadata"]
        commit, dirty = _split(meta.get("git_commit"))
        inner = tuple(sorted(_inner_commits(data.get("result")) - {(commit, dirty)}))
        out.append(Record(f"bench/{path.stem}", commit, dirty, _machine(meta),
                          wall_time(meta), inner))
    return out
