"""Reading a finished run: :func:`load` verifies every file of its folder against
the hashes recorded when it was written; :func:`attachments` reads what units
saved beside their rows."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from .._base.config import config_to_dict
from .._base.registry import get
from ._errors import CorruptResultError, ResultsNotFoundError, UnverifiedResultError
from ._folders import _command, _root, resolve
from ._store import (_ASIDE, _JOURNAL, MAX_DOC_BYTES, MAX_TABLE_BYTES, _check_shard, _indices,
                    _parse_journal, _plain_name, _problem_lines, _read, _read_doc, _sha256,
                    _shard_path)

__all__ = ["RunResult", "load", "attachments"]


@dataclasses.dataclass
class RunResult:
    """A finished run: its tidy rows, summary tables and text, and metadata."""

    name: str
    profile: str
    path: Path
    config: Any
    rows: Any                       # pandas.DataFrame
    tables: dict[str, Any]          # name -> pandas.DataFrame
    text: str
    metadata: dict

    def __repr__(self) -> str:
        return (f"RunResult({self.name!r}, profile={self.profile!r}, path='{self.path}', "
                f"rows={len(self.rows)}, tables={sorted(self.tables)})")


def _changed_of(name: str, profile: str, run_dir: Path) -> dict:
    """The config fields of the run in ``run_dir`` that differ from the profile
    (best effort, for messages: ``{}`` when run.json or the registry cannot tell)."""
    doc, _, problem = _read_doc(run_dir / "run.json")
    if problem or not isinstance(doc.get("config"), dict):
        return {}
    try:
        base = config_to_dict(get(name).config(profile))
    except Exception:  # only a message depends on it
        return {}
    return {k: v for k, v in doc["config"].items() if base.get(k) != v}


def load(name: str, profile: str = "quick", out: str | Path | None = None, *,
         overrides: Mapping[str, Any] | None = None, config_file: str | Path | None = None,
         seed: int | None = None) -> RunResult:
    """The saved, verified results of a finished run; nothing is computed or written.

    ``load(name, profile)`` reads the profile's own results (``<root>/<name>``);
    with ``overrides``, ``config_file`` or ``seed`` (as given to :func:`run`)
    it reads that configuration's folder (``<root>/<name>@<8 hex>``; the
    registry is needed to build the config). ``name`` may also name a folder
    (``"demo@1a2b3c4d"``).

    Every file is checked against the hashes recorded when it was written:
    ``metadata.json`` and ``run.json`` against their own ``content_sha256``,
    ``shards.sha256`` and the tables against ``metadata.json``, every shard
    against ``shards.sha256``.

    Raises:
      ResultsNotFoundError: no finished run in that folder (a FileNotFoundError).
      CorruptResultError: a file is damaged, truncated or missing; the message
        names each one and the command that rebuilds or recomputes it.
      UnverifiedResultError: written before content hashes (a run records them).
    """
    import pandas as pd

    changed: dict = {}
    folder = name
    if overrides or config_file is not None or seed is not None:
        _, _, folder, changed = resolve(name, profile, overrides, config_file, seed)
    base = name.split("@")[0]
    root = _root(out, profile)
    run_dir = root / folder
    if "@" in folder and not changed:      # a folder named directly: its own config
        changed = _changed_of(base, profile, run_dir)
    command = _command(base, profile, out, changed)
    mpath = run_dir / "metadata.json"
    if not mpath.exists():
        if (run_dir / "run.json").exists():
            raise ResultsNotFoundError(
                f"the run in {run_dir} has not finished ({mpath.name} is missing): {command} "
                f"finishes it, or rebuilds {mpath.name} from the shards without recomputing "
                f"a unit")
        others = sorted(p.name for p in root.glob(f"{base}@*") if (p / "metadata.json").exists())
        hint = f"; finished runs of other configurations there: {', '.join(others)}" \
            if others and not changed else ""
        raise ResultsNotFoundError(f"no finished run in {run_dir}: {command}{hint}")

    rebuild = f"`{command}` rebuilds it from the verified shards (no unit is recomputed)"
    meta, sealed, problem = _read_doc(mpath)
    if problem:
        raise CorruptResultError(f"{mpath}: {problem}; {rebuild}", [(mpath, problem)])
    if not sealed:
        raise UnverifiedResultError(
            f"{run_dir} was written by an older runner without content hashes, so it cannot "
            f"be verified: `{command}` records them (no unit is recomputed)")
    problems: list[tuple[Path, str]] = []
    recompute: list[tuple[Path, str]] = []
    rpath = run_dir / "run.json"
    doc, _, problem = _read_doc(rpath)
    if problem:
        problems.append((rpath, problem))
    elif doc.get("fingerprint") != meta.get("fingerprint"):
        problems.append((rpath, "its fingerprint differs from metadata.json's: another run "
                                "started in this folder and did not finish"))
    digests = dict(meta.get("sha256") or {})
    jpath = run_dir / _JOURNAL
    recorded: dict[str, str] = {}
    jdata, jproblem = _read(jpath, MAX_DOC_BYTES)
    if jproblem or jdata is None:
        problems.append((jpath, jproblem or "missing (deleted)"))
    if jdata is not None:
        if _sha256(jdata) != digests.get(_JOURNAL):
            problems.append((jpath, "content hash mismatch with metadata.json (edited or "
                                    "corrupted)"))
        recorded, jproblems, note = _parse_journal(jpath, jdata)
        problems += jproblems
        if note:
            problems.append((jpath, "its last line is incomplete (truncated)"))
    for i in _indices(meta):
        shard, _, problem = _check_shard(run_dir, i, recorded, parse=False)
        if shard is None:
            recompute.append((_shard_path(run_dir, i), problem or "missing (deleted)"))
    contents: dict[str, bytes] = {}
    for fname, digest in digests.items():
        if fname == _JOURNAL:
            continue
        if not _plain_name(fname):
            problems.append((run_dir, f"metadata.json lists {fname!r}, not a file name of "
                                      f"this folder (edited)"))
            continue
        data, problem = _read(run_dir / fname, MAX_TABLE_BYTES)
        if problem or data is None:
            problems.append((run_dir / fname, problem or "missing (deleted)"))
            continue
        if _sha256(data) != digest:
            problems.append((run_dir / fname, "content hash mismatch with metadata.json "
                                              "(edited or truncated)"))
        contents[fname] = data
    if problems or recompute:
        fixes = []
        if recompute:
            cmd = _command(base, profile, out, changed, '--recompute-corrupt')
            fixes.append(f"`{cmd}` moves the damaged shards to "
                         f"{run_dir / _ASIDE}/ and recomputes them and the missing ones")
        if problems:
            fixes.append(f"`{command}` rebuilds the derived files from the verified shards "
                         f"(no unit is recomputed)")
        allp = recompute + problems
        raise CorruptResultError(
            f"{run_dir}: {len(allp)} damaged or missing file(s):\n{_problem_lines(allp)}\n"
            f"Nothing was changed; " + "; ".join(fixes), allp)

    def frame(fname):
        data = contents[fname]
        return pd.read_csv(io.BytesIO(data)) if len(data) > 1 else pd.DataFrame()

    rows = frame("rows.csv") if "rows.csv" in contents else pd.DataFrame()
    tables = {f[:-4]: frame(f) for f in meta.get("files", [])
              if f.endswith(".csv") and f != "rows.csv"}
    text = contents["summary.txt"].decode("utf-8") if "summary.txt" in contents else ""
    return RunResult(base, profile, run_dir, meta.get("config"), rows, tables, text, meta)


def attachments(result: RunResult, key: str) -> list[tuple[int, Any]]:
    """``[(unit index, value)]``: the attachment ``key`` of every unit of a loaded
    run (:func:`load`) that has one (:class:`experiments._base.registry.UnitOutput`), in
    unit order. Each shard is checked against the hash recorded when it was
    written; units saved without that attachment (e.g. by an older version of the
    experiment) are left out, so compare the indices with the run's units.

    Raises :class:`CorruptResultError` naming a damaged shard (``load`` checks the
    rest of the folder)."""
    run_dir = Path(result.path)
    jpath = run_dir / _JOURNAL
    jdata, jproblem = _read(jpath, MAX_DOC_BYTES)
    if jproblem or jdata is None:
        raise CorruptResultError(f"{jpath}: {jproblem or 'missing (deleted)'}; load() names "
                                 f"what rebuilds it", [(jpath, jproblem or "missing")])
    recorded, problems, _ = _parse_journal(jpath, jdata)
    out: list[tuple[int, Any]] = []
    for i in _indices(result.metadata):
        shard, _, problem = _check_shard(run_dir, i, recorded)
        if shard is None:
            problems.append((_shard_path(run_dir, i), problem or "missing (deleted)"))
        elif key in (shard.get("attachments") or {}):
            out.append((i, shard["attachments"][key]))
    if problems:
        raise CorruptResultError(f"{run_dir}: damaged shard(s):\n{_problem_lines(problems)}\n"
                                 f"the run's own command with --recompute-corrupt recomputes "
                                 f"them", problems)
    return out
