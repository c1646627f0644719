"""The files of a results folder: atomic writes listed in ``.runner-files``, sealed
JSON documents (``run.json``, ``metadata.json``), the shard hashes of
``shards.sha256`` and the checked reading of every file (bounded sizes, regular
files only)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from .._base.config import fingerprint
from .._base.registry import Unit
from spiel_game._safe_io import RefusedFile, read_bytes as _safe_read
from ._errors import RunError

__all__ = ["MAX_DOC_BYTES", "MAX_SHARD_BYTES", "MAX_TABLE_BYTES"]


FORMAT = 2                      # run.json/metadata.json layout with content hashes
_JOURNAL = "shards.sha256"
_ASIDE = "corrupt"
_OWNED = ".runner-files"          # every file this runner wrote in the folder (--fresh)
#: The most bytes the runner reads from one file of a results folder: ``run.json``,
#: ``metadata.json``, ``shards.sha256`` and the list of written files
#: (:data:`MAX_DOC_BYTES`), one shard (:data:`MAX_SHARD_BYTES`), one table or
#: ``summary.txt`` (:data:`MAX_TABLE_BYTES`). A longer file, or one that is not a
#: regular file (a FIFO, a device, a folder), is reported as damaged, unread.
MAX_DOC_BYTES = 64 << 20
MAX_SHARD_BYTES = 512 << 20
MAX_TABLE_BYTES = 1 << 30
_SEAL = "content_sha256"
_JOURNAL_LINE = re.compile(rb"([0-9a-f]{64})  (shards/unit-[0-9]{6}\.json)")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tmp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _read(path: Path, limit: int) -> tuple[bytes | None, str | None]:
    """``(bytes, None)`` of a results file, ``(None, None)`` when it does not exist,
    ``(None, what is wrong)`` when it is not a regular file or is longer than
    ``limit`` (nothing is read then: a FIFO never blocks, ``/dev/zero`` never
    fills memory) or cannot be read."""
    try:
        return _safe_read(path, limit, "results file"), None
    except FileNotFoundError:
        return None, None
    except RefusedFile as err:
        return None, f"{err.problem} (not written by this runner)"
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err})"


# The files this runner wrote in a results folder, one relative name a line in
# .runner-files, appended (and flushed) before the file is written: --fresh
# deletes these and nothing else (a user's notes and folders stay).
_ACTIVE: _Owned | None = None


class _Owned:
    """The list of files the runner wrote in ``run_dir`` (``.runner-files``)."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.names = set(_owned_names(run_dir))

    def claim(self, path: Path) -> None:
        try:
            rel = path.relative_to(self.run_dir).as_posix()
        except ValueError:
            return
        if rel in self.names or rel == _OWNED:
            return
        fd = _open_append(self.run_dir / _OWNED)
        try:
            os.write(fd, f"{rel}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        self.names.add(rel)


def _open_append(path: Path) -> int:
    """A descriptor appending to the runner's own file ``path`` (created if
    missing): never through a symbolic link, never blocking on a FIFO; anything
    but a regular file there is a :class:`RunError`."""
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as err:
        raise RunError(f"cannot write {path}: {err.strerror or err} (the runner writes a "
                       f"regular file there, never through a link)") from None
    import stat as _stat
    if not _stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RunError(f"cannot write {path}: it is not a regular file")
    return fd


def _owned_names(run_dir: Path) -> list[str]:
    """The relative names listed in ``run_dir/.runner-files`` (lines that are not
    plain relative names inside the folder are ignored, and so is a list that is
    a symbolic link: the runner writes it only as a regular file)."""
    if (run_dir / _OWNED).is_symlink():
        return []
    data, _ = _read(run_dir / _OWNED, MAX_DOC_BYTES)
    out = []
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        parts = line.split("/")
        if line and not line.startswith("/") and "\x00" not in line and \
                all(p not in ("", ".", "..") for p in parts):
            out.append(line)
    return out


def _claim(path: Path) -> None:
    if _ACTIVE is not None:
        _ACTIVE.claim(path)


@contextlib.contextmanager
def _owning(run_dir: Path):
    """While in the block, every file written in ``run_dir`` is listed in its
    ``.runner-files`` first; the list is forgotten when the run ends."""
    global _ACTIVE
    _ACTIVE = _Owned(run_dir)
    try:
        yield
    finally:
        _ACTIVE = None


def _active_names() -> set[str]:
    """The files listed in the running folder's ``.runner-files`` (none outside a run)."""
    return _ACTIVE.names if _ACTIVE is not None else set()


def _prune_owned(run_dir: Path) -> None:
    """Rewrite ``run_dir/.runner-files`` to list only the files still there (after
    ``--fresh`` deleted the others)."""
    kept = {r for r in _owned_names(run_dir) if os.path.lexists(run_dir / r)}
    if _ACTIVE is not None:
        _ACTIVE.names = set(kept)
    _atomic_write(run_dir / _OWNED, "".join(f"{r}\n" for r in sorted(kept)))


def _atomic_write(path: Path, data: str | bytes) -> str:
    """Write ``data`` to ``path`` atomically; return its SHA-256."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    _claim(path)
    tmp = _tmp_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:                 # an interrupt or a full disk: no half file
        tmp.unlink(missing_ok=True)
        raise
    return _sha256(data)


def _atomic_frame(df, path: Path, kind: str) -> str:
    """Write a DataFrame atomically as csv or parquet; return the file's SHA-256."""
    _claim(path)
    tmp = _tmp_path(path)
    try:
        if kind == "csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        digest = _sha256(tmp.read_bytes())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return digest


def _json_default(x):
    item = getattr(x, "item", None)
    if callable(item):
        return item()
    tolist = getattr(x, "tolist", None)
    if callable(tolist):
        return tolist()
    if isinstance(x, (set, frozenset, tuple)):
        return list(x)
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON-serializable: {type(x).__name__}")


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, default=_json_default)


def _sealed(doc: dict) -> str:
    """``doc`` as JSON text carrying the SHA-256 of its own content (``content_sha256``)."""
    body = json.loads(_dumps({k: v for k, v in doc.items() if k != _SEAL}))
    return _dumps({**body, _SEAL: fingerprint(body)})


def _parse_json(path: Path, data: bytes) -> tuple[Any, str | None]:
    """``(value, None)`` or ``(None, what is wrong)`` for the bytes of a JSON file."""
    try:
        return json.loads(data.decode("utf-8")), None
    except UnicodeDecodeError as err:
        return None, f"not UTF-8 text (byte {err.start}): corrupted"
    except RecursionError:
        return None, "nested too deeply to be a file this runner wrote: edited or corrupted"
    except json.JSONDecodeError as err:
        what = "empty" if not data.strip() else \
            f"not valid JSON ({err.msg}; line {err.lineno}, column {err.colno})"
        return None, f"{what}: truncated or edited"


def _read_doc(path: Path) -> tuple[dict | None, bool, str | None]:
    """A sealed JSON document (run.json, metadata.json): ``(doc, sealed, problem)``.

    ``sealed`` is False for a document written before content hashes (no
    ``content_sha256`` and no ``format``); ``problem`` names what is wrong."""
    data, problem = _read(path, MAX_DOC_BYTES)
    if problem:
        return None, False, problem
    if data is None:
        return None, False, "missing"
    doc, problem = _parse_json(path, data)
    if problem:
        return None, False, problem
    if not isinstance(doc, dict):
        return None, False, f"not a JSON object (a {type(doc).__name__}): edited"
    seal = doc.pop(_SEAL, None)
    if seal is None:
        if "format" in doc:
            return None, False, f"no {_SEAL} recorded: edited"
        return doc, False, None
    if seal != fingerprint(doc):
        return None, False, "content hash mismatch (edited or corrupted)"
    return doc, True, None


def _plain_name(name) -> bool:
    """True for a file name directly in a results folder (no folder part, not hidden)."""
    return (isinstance(name, str) and bool(name) and "/" not in name and "\\" not in name
            and not name.startswith(".") and "\x00" not in name)


def _shard_path(run_dir: Path, index: int) -> Path:
    return run_dir / "shards" / f"unit-{index:06d}.json"


def _shard_name(index: int) -> str:
    return f"shards/unit-{index:06d}.json"


def _have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


# ------------------------------------------------------------------ shard hashes
def _parse_journal(path: Path, data: bytes) -> tuple[dict[str, str], list[tuple[Path, str]],
                                                     str | None]:
    """``({shard name: sha256}, problems, note)`` from the bytes of ``shards.sha256``.

    The last record wins. A last line without its newline is the record of a
    shard that was never written (the hash is recorded first): it is ignored,
    with a note."""
    lines = data.split(b"\n")
    tail = lines.pop()
    recorded: dict[str, str] = {}
    problems = []
    for n, raw in enumerate(lines, 1):
        m = _JOURNAL_LINE.fullmatch(raw)
        if m is None:
            problems.append((path, f"line {n} is malformed (expected '<sha256>  "
                                   f"shards/unit-NNNNNN.json'): edited or corrupted"))
            continue
        recorded[m[2].decode()] = m[1].decode()
    note = (f"{path}: an incomplete last line (a shard that was never written) was ignored"
            if tail else None)
    return recorded, problems, note


def _journal_text(recorded: Mapping[str, str]) -> str:
    """The canonical ``shards.sha256``: one line per recorded unit, in unit order."""
    return "".join(f"{recorded[name]}  {name}\n" for name in sorted(recorded))


def _indices(meta: Mapping) -> list[int]:
    """The unit indices of a finished run (``unit_indices`` when they are not
    ``0 .. units - 1``)."""
    got = meta.get("unit_indices")
    return [int(i) for i in got] if got is not None else list(range(int(meta.get("units", 0))))


def _check_shard(run_dir: Path, index: int, recorded: Mapping[str, str],
                 unit: Unit | None = None, adopt: bool = False, parse: bool = True):
    """``(shard, data, problem)`` of unit ``index``: ``(None, None, None)`` when the
    shard file does not exist; ``problem`` says what is wrong with it.

    With ``adopt`` (a folder written before shard hashes) an unrecorded shard is
    accepted when it matches ``unit``. Without ``parse`` only the hash is checked
    (``shard`` is then ``True``)."""
    path = _shard_path(run_dir, index)
    data, problem = _read(path, MAX_SHARD_BYTES)
    if problem:
        return None, None, problem
    if data is None:
        return None, None, None
    rec = recorded.get(_shard_name(index))
    if rec is None and not adopt:
        return None, data, (f"no content hash recorded in {_JOURNAL} (not written by this "
                            f"runner, or its record was lost)")
    if rec is not None and _sha256(data) != rec:
        return None, data, (f"content hash mismatch with {_JOURNAL} (the shard or its "
                            f"recorded hash was edited or corrupted)")
    if not parse:
        return True, data, None
    shard, problem = _parse_json(path, data)
    if problem:
        return None, data, problem
    if not (isinstance(shard, dict) and shard.get("index") == index
            and isinstance(shard.get("rows"), list)
            and all(isinstance(r, dict) for r in shard["rows"])):
        return None, data, "not a shard of this unit (index, rows): edited"
    if unit is not None and (
            shard.get("params") != json.loads(json.dumps(unit.params, default=_json_default))
            or shard.get("seed") != unit.seed):
        return None, data, (f"belongs to another run (unit {index}'s params or seed "
                            f"differ)")
    return shard, data, None


def _problem_lines(problems) -> str:
    shown = [f"  {p}: {what}" for p, what in problems[:20]]
    if len(problems) > 20:
        shown.append(f"  ... and {len(problems) - 20} more")
    return "\n".join(shown)
