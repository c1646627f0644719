"""Run a registered experiment: units on a process pool or Ray, resumable shards, tidy tables.

``run("rules_stats", profile="quick", overrides={"hands": 2000})`` (or
``python -m experiments run rules_stats --set hands=2000``) writes one folder
per configuration::

    results/<profile>/<name>/            the profile's own configuration (what
                                         ``make reproduce`` runs, the paper reads)
    results/<profile>/<name>@<8 hex>/    any other configuration (overrides, a
                                         TOML file, another seed): the first 8
                                         hex digits of the config's SHA-256
        run.json            what is being computed: config, units, fingerprint, sessions
        shards/unit-000012.json   one finished unit: its params, seed and rows
        shards.sha256       the SHA-256 of every shard (``sha256sum -c`` format)
        rows.csv            every unit's rows, in unit order (rows.parquet with pyarrow)
        <table>.csv         the summary's tables (e.g. summary.csv)
        summary.txt         the summary's text
        metadata.json       config, seed, package versions, git commit, start/end,
                            machine, and the SHA-256 of every file above
        corrupt/            damaged files moved aside by ``recompute_corrupt=True``

``--out DIR`` (``out=``) replaces ``results/<profile>``; the folder name
inside follows the same rule. The folder is a function of the configuration
alone, so a run with overrides never touches the profile's results (which the
paper is built from), and :func:`load` with the same arguments finds the same
folder (``load(name, profile, overrides=...)``; ``load("demo@1a2b3c4d")``
names a folder directly).

Loss-free and resumable: only this process writes files, each atomically
(temporary file + ``os.replace``), and a shard's hash is appended to
``shards.sha256`` (flushed to disk) before the shard is written, so a run
killed at any moment leaves only complete shards with recorded hashes (a torn
last line of ``shards.sha256`` belongs to a shard that was not written). A
restarted run verifies every shard against its hash and skips the verified
ones: it ends with exactly the rows of an uninterrupted run. SIGINT (Ctrl-C)
and SIGTERM stop the worker processes at once and raise
:class:`RunInterrupted` ("interrupted; N of M units done; rerun the same
command to resume"); the command line prints that line, not a traceback.

Integrity: ``run.json`` and ``metadata.json`` carry the SHA-256 of their own
content (``content_sha256``); ``metadata.json`` records the hash of
``shards.sha256``, of ``rows.csv`` and of every table. :func:`load` verifies
the whole chain and, like a resumed run, reports each damaged, truncated or
missing file by name (:class:`CorruptResultError`), never a bare
``JSONDecodeError`` and never a silently wrong table. A resumed run refuses to
use a damaged shard: ``recompute_corrupt=True`` (``--recompute-corrupt``)
moves it to ``corrupt/`` and recomputes it; nothing is ever deleted silently.
The derived files (rows, tables, text, metadata) are rebuilt from the verified
shards by every run that finds all units done, without recomputing a unit.
Folders written before these hashes existed are adopted by the next run (the
shards are checked against the unit list and their hashes recorded; a note
says so); :func:`load` asks for that run first.

Never silently stale: every shard records the code that made it
(``code``: :func:`code_fingerprint`: the SHA-256 of this package's sources,
:func:`package_code_hash`, and the experiment's ``sources``: for tournaments
the module files of user agents and of the modules they import, checkpoint
files and shipped models, :func:`experiments.tournament.agent_sources`). A
run that finds saved units prints ``N of M units reused (same code), K
recomputed`` (stderr) and recomputes a unit made by other code, naming the
part that differs (``package code``, ``agent module X``, ``imported module
Z``, ``checkpoint Y``, ``model M``); ``reuse_stale=True``
(``--reuse-stale``) keeps such units, ``fresh=True`` (``--fresh``) recomputes
everything. Shards saved before code was recorded count as made by other code.

A results folder belongs to one configuration and unit list: when the
experiment's code changes its profile or units, the profile folder is refused
unless ``fresh=True`` (``--fresh``), which deletes that folder's old results
(only that folder's, and in it only the files the runner wrote: each is listed
in ``.runner-files`` before it is written; a user's notes and sub-folders
stay). ``--fresh`` never works through a symbolic link: a run folder that is a
link is refused, and a link (or a FIFO) where the runner's file or folder was
is moved to ``corrupt/``, not followed and not deleted.

Every file of a results folder is read only if it is a regular file of
bounded size (:data:`MAX_DOC_BYTES`, :data:`MAX_SHARD_BYTES`,
:data:`MAX_TABLE_BYTES`; :mod:`spiel_game.safe_io`): a FIFO or a link to
``/dev/zero`` in a results folder is named as damaged at once, unread.

Backends: ``local`` (``workers`` processes, spawned; ``workers=1`` runs in this
process) and ``ray`` (tasks on a Ray cluster: ``address=None`` starts a local
instance, ``"auto"`` or ``"HOST:PORT"`` joins a running one; an instance
already initialised by the caller is used as it is). Joining a cluster, the
runner ships the checkout's packages with the job (:func:`ray_runtime_env`;
``CH_RAY_SHIP_CODE=0`` turns it off), so nodes that never saw the checkout run
the driver's code; each shard records the Ray node it ran on. Spawned workers import
the main script again, so a script that calls :func:`run` at its top level
without ``if __name__ == "__main__":`` is detected and run in this process
(``workers=1``, with a warning) instead of running the script once per
worker. Worker processes ignore SIGINT/SIGTERM (the driver stops them) and
die with the driver on Linux. Rows do not depend on the backend or the number
of workers. One run per results folder at a time (a lock file next to it).
An experiment registered with a ``call_time_limit`` runs its units in worker
processes (at least one) that report every call that may hang
(:func:`call_watch`); the driver stops the run with :class:`RunError` when one
stays open longer than the limit (the tournament's per-move time limit).

:func:`run_experiment` runs an experiment object (registered or not) into an
explicit folder (what :func:`experiments.tournament.run_tournament` uses) and
:func:`execute` runs units on the same backends without writing anything.
"""

from __future__ import annotations

import ast
import concurrent.futures as cf
import contextlib
import dataclasses
import datetime as dt
import fcntl
import hashlib
import io
import json
import multiprocessing
import os
import re
import shlex
import signal
import socket
import sys
import threading
import time
import warnings
from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import Any

from .config import ConfigError, check_output_dir, config_to_dict, fingerprint, load_config_file
from .metadata import git_commit, metadata
from .registry import Experiment, Summary, Unit, UnitOutput, get
from spiel_game.safe_io import RefusedFile, read_bytes as _safe_read

__all__ = ["run", "load", "resolve", "RunResult", "RunError", "RunInterrupted",
           "CorruptResultError", "UnverifiedResultError", "ResultsNotFoundError",
           "results_root", "unit_threads", "ray_runtime_env", "package_dirs", "RAY_PACKAGES",
           "BACKENDS", "attachments", "run_root", "unit_progress", "run_experiment",
           "execute", "call_watch", "CallWatch", "package_code_hash", "code_fingerprint"]

BACKENDS = ("local", "ray")
FORMAT = 2                      # run.json/metadata.json layout with content hashes
_UNIT_THREADS: int | None = None
_LOCK = ".runner.lock"
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
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_KILL_WAIT_S = 3.0


class RunError(RuntimeError):
    """A run cannot start or finish (config clash with existing results, failed unit)."""


class CorruptResultError(RunError):
    """Saved results that fail verification: every damaged file is named in the message
    (and in :attr:`problems`, ``(path, what is wrong)`` pairs)."""

    def __init__(self, message: str, problems=()):
        super().__init__(message)
        self.problems = list(problems)


class UnverifiedResultError(RunError):
    """Results written by an older runner, without content hashes: a run of the same
    configuration records them (no unit is recomputed)."""


class ResultsNotFoundError(RunError, FileNotFoundError):
    """No finished run in the folder :func:`load` was asked for."""


class RunInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped a run; finished shards are kept, rerun to resume."""

    def __init__(self, message: str, signum: int, done: int, total: int, path: Path):
        super().__init__(message)
        self.signum, self.done, self.total, self.path = signum, done, total, path

    def __str__(self) -> str:
        return self.args[0]


class _Stop(KeyboardInterrupt):
    """Raised in the main thread by the SIGINT/SIGTERM handler of a run."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def unit_threads() -> int | None:
    """Threads a unit may use (for numba kernels): None means all local cores."""
    return _UNIT_THREADS


# Progress within a unit: the unit reports the fraction of its work done through
# unit_progress(); in the driver's process it goes straight to the progress bar
# (_PROGRESS_SINK), from a local worker process through a queue (_PROGRESS_QUEUE).
_PROGRESS_SINK = None               # driver: callable(unit index, fraction)
_PROGRESS_QUEUE = None              # local worker: multiprocessing queue to the driver
_CURRENT_UNIT: int | None = None
_LAST_SENT = [-1.0, 0.0]            # (fraction, time) last sent from this process
_SEND_EVERY_S = 0.2


def unit_progress(done: float, total: float = 1.0) -> None:
    """Report that the running unit has done ``done`` of its ``total`` work (deals,
    hands, iterations), so that the run's progress bar moves within a unit, not
    only when one finishes: a run of one long unit no longer sits at 0%. Cheap
    and optional (a no-op outside a runner unit, on Ray, or without a bar);
    reports are thinned to a few per second."""
    if _CURRENT_UNIT is None or (_PROGRESS_SINK is None and _PROGRESS_QUEUE is None):
        return
    frac = min(max(float(done) / float(total), 0.0), 1.0) if total else 0.0
    now = time.monotonic()
    if frac <= _LAST_SENT[0] or (frac < 1.0 and now - _LAST_SENT[1] < _SEND_EVERY_S):
        return
    _LAST_SENT[:] = [frac, now]
    if _PROGRESS_SINK is not None:
        _PROGRESS_SINK(_CURRENT_UNIT, frac)
    else:
        with contextlib.suppress(Exception):          # progress must never fail a unit
            _PROGRESS_QUEUE.put_nowait((_CURRENT_UNIT, frac))


class _UnitBar:
    """The run's tqdm bar in units, moved by whole finished units and by the
    fractions that running units report (:func:`unit_progress`)."""

    def __init__(self, bar):
        self.bar = bar
        self.partial: dict[int, float] = {}
        self.done: set[int] = set()
        self.lock = threading.Lock()

    def report(self, index: int, frac: float) -> None:
        with self.lock:
            old = self.partial.get(index, 0.0)
            if index not in self.done and frac > old:     # late reports are ignored
                self.partial[index] = frac
                self.bar.update(frac - old)

    def finished(self, index: int) -> None:
        with self.lock:
            self.bar.update(1.0 - self.partial.pop(index, 0.0))
            self.done.add(index)

    def pump(self, q, stop: threading.Event) -> None:
        """Move reports from the workers' queue to the bar until ``stop``."""
        import queue as _queue
        while not stop.is_set():
            try:
                index, frac = q.get(timeout=0.1)
            except (_queue.Empty, EOFError, OSError, ValueError):
                continue
            self.report(index, frac)


def results_root() -> Path:
    """``$CH_RESULTS``, else ``results/`` of the current working folder, as an
    absolute path (read when called: a run resolves it before it starts, so its
    worker processes and its messages name the same folder). Never a folder of
    the installed package."""
    env = os.environ.get("CH_RESULTS")
    return Path(env).absolute() if env else Path.cwd() / "results"


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


# ------------------------------------------------------------------ files
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


# ------------------------------------------------------------------ execution
def _rows_of(out) -> list[dict]:
    if out is None:
        return []
    if hasattr(out, "to_dict"):           # a DataFrame
        return out.to_dict("records")
    rows = list(out)
    for r in rows:
        if not isinstance(r, Mapping):
            raise TypeError(f"a unit must return dicts (rows), got {type(r).__name__}")
    return [dict(r) for r in rows]


def _execute(unit_fn, config, unit: Unit, threads: int | None = None) -> dict:
    """Run one unit (in any process): its rows, JSON-normalised, and timing."""
    global _UNIT_THREADS, _CURRENT_UNIT
    _UNIT_THREADS = threads
    _CURRENT_UNIT = unit.index
    _LAST_SENT[:] = [-1.0, 0.0]
    t0 = time.perf_counter()
    try:
        out = unit_fn(config, unit)
    finally:
        _CURRENT_UNIT = None
        if _WATCH is not None:
            _WATCH.end()
    extra = None
    if isinstance(out, UnitOutput):
        out, extra = out.rows, dict(out.attachments)
    rows = json.loads(json.dumps(_rows_of(out), default=_json_default))
    res = {"rows": rows, "elapsed_s": time.perf_counter() - t0, "host": socket.gethostname()}
    if extra:
        res["attachments"] = json.loads(json.dumps(extra, default=_json_default))
    return res


# ------------------------------------------------------------------ the call watch
_LABEL = 1024                   # bytes of a call's description in shared memory
_WATCH: CallWatch | None = None


class CallWatch:
    """A worker process's report of the call its unit is in, read by the driver.

    With a call time limit (:func:`experiments.registry.register`'s
    ``call_time_limit``) the local backend runs the units in worker processes
    and gives each a watch (:func:`call_watch`); the unit brackets every call
    that might hang (an agent's move) with :meth:`begin` and :meth:`end`. The
    driver checks every worker every 0.05 s; a call open for longer than the
    limit stops the run: the workers are killed and :class:`RunError` carries the
    call's description (finished units stay saved)."""

    __slots__ = ("_nums", "_text", "_base", "_off")

    def __init__(self, nums, text, slot: int):
        self._nums, self._text = nums, text
        self._base, self._off = 3 * slot, _LABEL * slot

    def begin(self, what: bytes) -> None:
        """A call starts. ``what`` (UTF-8, at most 1024 bytes kept) is the error
        message if it does not return in time; ``{limit}`` in it stands for the
        limit in seconds."""
        n = min(len(what), _LABEL)
        self._text[self._off:self._off + n] = what[:n]
        b, a = self._base, self._nums
        a[b + 2] = n
        a[b] += 1
        a[b + 1] = 1

    def end(self) -> None:
        """The call returned."""
        self._nums[self._base + 1] = 0


def call_watch() -> CallWatch | None:
    """This worker's :class:`CallWatch` while a run with a call time limit runs its
    unit here; None otherwise (no limit, or a unit run in the driver)."""
    return _WATCH


class _Watchdog:
    """The driver's side: shared memory of every worker's open call, checked against
    ``limit`` seconds by sequence number (no clocks are compared across processes)."""

    def __init__(self, ctx, workers: int, limit: float):
        self.limit = limit
        self.nums = ctx.RawArray("q", 3 * workers)
        self.text = ctx.RawArray("c", _LABEL * workers)
        self.slots = ctx.Value("i", 0)
        self.seen = [(-1, 0.0)] * workers

    def check(self) -> None:
        """Raise :class:`RunError` when a call has been open longer than the limit."""
        now = time.monotonic()
        a = self.nums
        for i in range(len(self.seen)):
            b = 3 * i
            if not a[b + 1]:
                continue
            seq = a[b]
            if self.seen[i][0] != seq:
                self.seen[i] = (seq, now)
            elif now - self.seen[i][1] > self.limit:
                what = bytes(self.text[_LABEL * i:_LABEL * i + a[b + 2]])
                if a[b] == seq and a[b + 1]:
                    text = what.decode("utf-8", "replace").replace("{limit}",
                                                                   f"{self.limit:g}")
                    raise RunError(text)


def _worker_init(parent: int, progress=None, watchdog: _Watchdog | None = None) -> None:
    """Pool workers leave SIGINT/SIGTERM to the driver (which stops them) and, on
    Linux, die with it (a driver killed with SIGKILL leaves no orphans); ``progress``
    is the queue of :func:`unit_progress` reports (None: no bar). With a watchdog,
    each takes a slot of its shared memory (:func:`call_watch`)."""
    global _PROGRESS_QUEUE, _WATCH
    _PROGRESS_QUEUE = progress
    if watchdog is not None:
        with watchdog.slots.get_lock():
            slot = watchdog.slots.value
            watchdog.slots.value += 1
        _WATCH = CallWatch(watchdog.nums, watchdog.text, slot)
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):   # PR_SET_PDEATHSIG = 1
            pass
        if os.getppid() != parent:          # the driver died before prctl
            os._exit(1)
    if hasattr(signal, "pthread_sigmask"):  # blocked while this process was spawned
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


@contextlib.contextmanager
def _signals_blocked():
    """Block SIGINT/SIGTERM (spawned children inherit the mask, so a Ctrl-C during
    their start-up waits until :func:`_worker_init` ignores it)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop_processes(procs) -> None:
    """SIGKILL the workers (they hold nothing: only the driver writes) and reap them."""
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()
    deadline = time.monotonic() + _KILL_WAIT_S
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))


def _local_backend(unit_fn, config, todo, workers, limit: float | None = None,
                   bar: _UnitBar | None = None) -> Iterator[tuple[Unit, dict]]:
    """Run ``todo`` in this process (``workers <= 1`` and no ``limit``) or in
    ``workers`` spawned processes; with ``limit``, a call a unit reports
    (:class:`CallWatch`) that stays open longer stops the run. ``bar`` gets the
    units' progress reports (:func:`unit_progress`)."""
    global _PROGRESS_SINK
    if workers <= 1 and limit is None:
        _PROGRESS_SINK = bar.report if bar is not None else None
        try:
            for u in todo:
                yield u, _execute(unit_fn, config, u, None)
        finally:
            _PROGRESS_SINK = None
        return
    if not todo:
        return
    workers = max(1, workers)
    threads = max(1, (os.cpu_count() or 1) // workers)
    ctx = multiprocessing.get_context("spawn")
    watchdog = _Watchdog(ctx, workers, limit) if limit is not None else None
    reports = ctx.Queue() if bar is not None else None
    stop = threading.Event()
    if reports is not None:
        threading.Thread(target=bar.pump, args=(reports, stop), daemon=True,
                         name="unit-progress").start()
    pool = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                  initargs=(os.getpid(), reports, watchdog))
    finished = False
    try:
        with _signals_blocked():          # the workers are spawned by submit()
            futs = {pool.submit(_execute, unit_fn, config, u, threads): u for u in todo}
        pending = set(futs)
        while pending:
            ready, pending = cf.wait(pending, timeout=None if watchdog is None else 0.05,
                                     return_when=cf.FIRST_COMPLETED)
            for f in ready:
                try:
                    res = f.result()
                except cf.process.BrokenProcessPool as err:
                    raise RunError(
                        "a worker process died (killed, out of memory, or a script that "
                        "calls experiments.run outside `if __name__ == '__main__':` - local "
                        "workers are spawned and import the main script again)") from err
                yield futs[f], res
            if watchdog is not None:
                watchdog.check()
        finished = True
    finally:
        stop.set()
        if not finished:                  # interrupted, a unit failed, or the caller stopped
            _stop_processes(list((getattr(pool, "_processes", None) or {}).values()))
        pool.shutdown(wait=finished, cancel_futures=True)
        if reports is not None:
            reports.close()
            reports.cancel_join_thread()


#: The packages a Ray worker needs from this checkout (shipped to cluster nodes).
RAY_PACKAGES = ("spiel_game", "solvers", "experiments")
#: Not shipped: caches (numba's compiled kernels are rebuilt on each node) and results.
RAY_EXCLUDES = ("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.sources.sha256")


def package_dirs() -> list[str]:
    """The folders of the packages :data:`RAY_PACKAGES`, where they are imported
    from (a source checkout or site-packages)."""
    import importlib
    return [str(Path(importlib.import_module(name).__file__).parent) for name in RAY_PACKAGES]


def ray_runtime_env() -> dict:
    """The Ray ``runtime_env`` that ships this checkout's code to cluster nodes.

    ``py_modules`` uploads the packages :data:`RAY_PACKAGES` of the driver's
    checkout (about 1.3 MB without caches) to the cluster once per code version;
    every worker imports them first, so nodes that never saw the checkout run
    exactly the driver's code (they still need the dependencies: Python, ray,
    open_spiel, numba, numpy, scipy, pandas at the driver's versions). numba's
    caches are not shipped: each node compiles the kernels on first use, into the
    ``__pycache__`` folders of its unpacked copy (or ``NUMBA_CACHE_DIR``), and its
    later workers load them from there."""
    return {"py_modules": package_dirs(),
            "excludes": list(RAY_EXCLUDES)}


def _ship_code() -> bool:
    """Whether a run that joins a Ray cluster ships this checkout's code
    (``CH_RAY_SHIP_CODE``: ``1``, the default, or ``0``)."""
    value = os.environ.get("CH_RAY_SHIP_CODE", "1").strip()
    if value not in ("0", "1"):
        raise RunError(f"CH_RAY_SHIP_CODE={value!r}: allowed values are 1 (ship this "
                       f"checkout's code to the Ray cluster, the default) and 0 (the nodes "
                       f"import their installed copy)")
    return value == "1"


def _execute_ray(unit_fn, config, unit: Unit, threads: int | None = None) -> dict:
    """:func:`_execute` in a Ray task, plus the Ray node id it ran on (``node``)."""
    import ray
    res = _execute(unit_fn, config, unit, threads)
    res["node"] = ray.get_runtime_context().get_node_id()
    return res


def _ray_backend(unit_fn, config, todo, workers, address) -> Iterator[tuple[Unit, dict]]:
    if not todo:
        return
    try:
        import ray
    except ImportError:
        from spiel_game.extras import install_hint
        raise RunError(f"the ray backend needs ray, which is not installed (extra "
                       f"'distributed'): {install_hint('distributed')}") from None
    owned = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"logging_level": "WARNING"}
        if address:
            # A cluster: its other nodes may not have this checkout (or have another
            # commit), so the driver ships its code with the job (CH_RAY_SHIP_CODE=0:
            # the nodes import their own installed copy).
            kwargs["address"] = address
            if _ship_code():
                kwargs["runtime_env"] = ray_runtime_env()
        else:
            kwargs["include_dashboard"] = False
            if workers:
                kwargs["num_cpus"] = workers
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as err:
            text = " ".join(str(err).split())[:300]
            raise RunError(f"ray could not start or join the cluster"
                           f"{f' at {address}' if address else ''}: {text}") from None
        owned = True
    remote = ray.remote(num_cpus=1)(_execute_ray)
    limit = workers or len(todo)
    queue = list(todo)
    inflight: dict = {}
    try:
        while queue or inflight:
            while queue and len(inflight) < limit:
                u = queue.pop(0)
                inflight[remote.remote(unit_fn, config, u, 1)] = u
            ready, _ = ray.wait(list(inflight), num_returns=1)
            for ref in ready:
                u = inflight.pop(ref)
                yield u, ray.get(ref)
    finally:
        for ref in inflight:
            ray.cancel(ref, force=True)
        if owned:
            ray.shutdown()


# ------------------------------------------------------------------ signals, spawn safety
@contextlib.contextmanager
def _stop_on_signals():
    """While a run holds its folder, SIGINT and SIGTERM raise :class:`_Stop` in the
    main thread (once: a second signal during the clean-up is ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    state = {"signum": None}

    def handler(signum, frame):
        if state["signum"] is None:
            state["signum"] = signum
            raise _Stop(signum)

    old = {}
    try:
        for sig in _STOP_SIGNALS:
            old[sig] = signal.signal(sig, handler)
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h if h is not None else signal.SIG_DFL)


def _bootstrapping_worker() -> bool:
    """True in a spawned worker that is importing the main script (before its task)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _unguarded_main_script() -> str | None:
    """The main script when :func:`run` is called from its top-level code outside
    ``if __name__ == "__main__":`` (spawned workers would run that code again)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not os.path.isfile(path):
        return None                        # an interactive session, -c, Jupyter
    frame = sys._getframe(1)
    top = None
    while frame is not None:
        if frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            top = frame
        frame = frame.f_back
    if top is None:
        return None
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    line = top.f_lineno
    for node in tree.body:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            guarded = isinstance(node, ast.If) and any(
                isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(node.test))
            return None if guarded else str(path)
    return None


# ------------------------------------------------------------------ code fingerprints
_PACKAGE_HASH: str | None = None


def package_code_hash() -> str:
    """SHA-256 of the Python sources of :data:`RAY_PACKAGES` as this process
    imports them (every ``.py`` file's path and content), computed once per
    process (a few milliseconds)."""
    global _PACKAGE_HASH
    if _PACKAGE_HASH is None:
        import importlib.util
        h = hashlib.sha256()
        for pkg in RAY_PACKAGES:
            spec = importlib.util.find_spec(pkg)
            for where in (spec.submodule_search_locations or []) if spec else []:
                base = Path(where)
                for f in sorted(base.rglob("*.py")):
                    if "__pycache__" in f.parts:
                        continue
                    h.update(f"{pkg}/{f.relative_to(base).as_posix()}\n".encode())
                    h.update(hashlib.sha256(f.read_bytes()).digest())
        _PACKAGE_HASH = h.hexdigest()
    return _PACKAGE_HASH


def code_fingerprint(exp: Experiment, config) -> dict[str, str]:
    """What made a unit's results besides its config: ``{"package code": sha256}``
    (:func:`package_code_hash`) and the experiment's own ``sources``
    (:func:`experiments.registry.register`: agent modules, checkpoints)."""
    out = {"package code": package_code_hash()}
    if exp.sources_fn is not None:
        out.update({str(k): str(v) for k, v in dict(exp.sources_fn(config)).items()})
    return out


def _differing(old, new: Mapping[str, str]) -> list[str]:
    """The parts (labels) in which the code that made a shard differs from ``new``."""
    if not isinstance(old, Mapping):
        return ["code not recorded (saved before code fingerprints)"]
    return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


# ------------------------------------------------------------------ folders
def resolve(name: str, profile: str = "quick", overrides: Mapping[str, Any] | None = None,
            config_file: str | Path | None = None, seed: int | None = None):
    """``(experiment, config, folder, changed)`` of a run: the checked config, its
    results folder name (``name`` for the profile's own config, else
    ``name@<8 hex>``) and ``{key: value}`` of the fields that differ from the
    profile. Nothing is written."""
    exp = get(name)
    ov: dict[str, Any] = {}
    if config_file is not None:
        ov.update(load_config_file(config_file, exp.config_cls))
    ov.update(overrides or {})
    if seed is not None:
        ov["seed"] = seed
    config = exp.config(profile, ov)
    cfg, base = config_to_dict(config), config_to_dict(exp.config(profile))
    changed = {k: v for k, v in cfg.items() if base.get(k) != v}
    folder = exp.name if not changed else f"{exp.name}@{fingerprint(cfg)[:8]}"
    return exp, config, folder, changed


def _root(out, profile: str) -> Path:
    if isinstance(out, str) and not out.strip():
        raise ConfigError("the results folder (--out, out=) is an empty name; give a folder, "
                          "e.g. --out results/mine (or leave it out: results/<profile>)")
    return Path(out).absolute() if out is not None else results_root() / profile


def check_workers(workers) -> int | None:
    """``workers`` (``--workers``) if it is None or an int of at least 1, else
    :class:`ConfigError` saying what is allowed."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers {workers!r} (workers=): allowed values are 1 or more "
                          f"(1: in this process; left out: every core, or every unit on Ray)")
    return workers


#: Seconds an unreachable Ray address (``--address``) may take before the run is
#: refused (:func:`check_ray_address`); ``$CH_RAY_CONNECT_SECONDS`` changes it.
RAY_CONNECT_SECONDS = 30.0
_RAY_REACHED: set[str] = set()


def _ray_connect_seconds() -> float:
    text = os.environ.get("CH_RAY_CONNECT_SECONDS")
    if text is None:
        return RAY_CONNECT_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise ConfigError(f"CH_RAY_CONNECT_SECONDS={text!r}: allowed values are seconds in "
                          f"(0, 3600]")
    return value


_RAY_PROBE = """import sys, ray
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
ray.shutdown()
"""


def check_ray_address(address: str | None) -> None:
    """Refuse a Ray cluster address (``--address HOST:PORT``, ``ray://HOST:PORT``,
    ``auto``) that cannot be joined within :data:`RAY_CONNECT_SECONDS`, before any
    file is written: a TCP connection first (no ray needed), then joining the
    cluster in a child process (ray's own start-up retries for a minute and
    ignores Ctrl-C; the child is killed at the limit or on Ctrl-C). One
    :class:`RunError` line; an address joined once in this process is not
    checked again, and neither is anything when this process is already
    connected to Ray or ``address`` is None (a local Ray is started)."""
    if not address or address in _RAY_REACHED:
        return
    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        return
    limit = _ray_connect_seconds()
    t0 = time.monotonic()
    hint = (f"check the address, or leave --address out to start a local Ray "
            f"(waited at most {limit:g} s, CH_RAY_CONNECT_SECONDS)")
    if address != "auto":
        host, _, port = address.split("://", 1)[-1].rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise RunError(f"--address {address!r}: not HOST:PORT (or ray://HOST:PORT, "
                           f"auto)")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=limit).close()
        except (OSError, UnicodeError) as err:
            what = "timed out" if isinstance(err, TimeoutError) else (
                getattr(err, "strerror", None) or str(err) or type(err).__name__)
            raise RunError(f"the Ray cluster at {address} cannot be reached ({what}); "
                           f"{hint}") from None
    import importlib.util
    if importlib.util.find_spec("ray") is None:
        from spiel_game.extras import install_hint
        raise RunError(f"the ray backend needs ray, which is not installed (extra "
                       f"'distributed'): {install_hint('distributed')}")
    import subprocess
    left = max(1.0, limit - (time.monotonic() - t0))
    env = {**os.environ, "RAY_BACKEND_LOG_LEVEL": "error"}
    try:
        done = subprocess.run([sys.executable, "-c", _RAY_PROBE, address], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=left)
    except subprocess.TimeoutExpired:
        raise RunError(f"the Ray cluster at {address} did not answer; {hint}") from None
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.decode("utf-8", "replace").splitlines()
                 if ln.strip()]
        last = lines[-1][:300] if lines else f"exit status {done.returncode}"
        raise RunError(f"the Ray cluster at {address} cannot be joined ({last}); {hint}")
    _RAY_REACHED.add(address)


def _cli_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        return ",".join(_cli_value(x) for x in v)
    return str(v)


def _command(name: str, profile: str, out, changed: Mapping[str, Any], *extra: str) -> str:
    """The command line that runs (or resumes) this configuration."""
    parts = ["python -m experiments run", shlex.quote(name)]
    if profile != "quick":
        parts += ["--profile", shlex.quote(profile)]
    if out is not None:
        parts += ["--out", shlex.quote(str(out))]
    parts += list(extra)
    if changed:
        parts += ["--set"] + [shlex.quote(f"{k}={_cli_value(v)}") for k, v in changed.items()]
    return " ".join(parts)


# ------------------------------------------------------------------ the run
def _manifest(exp: Experiment, profile: str, config, units: list[Unit],
              identity: str | None = None) -> dict:
    cfg = config_to_dict(config)
    params = [u.params for u in units]
    return {"format": FORMAT, "experiment": exp.name, "profile": profile, "config": cfg,
            "units": len(units),
            "fingerprint": identity or fingerprint({"config": cfg, "units": params})}


def _move_aside(run_dir: Path, path: Path, stamp: str) -> Path:
    """Move a damaged file into ``run_dir/corrupt/`` (kept, never deleted)."""
    aside = run_dir / _ASIDE
    aside.mkdir(exist_ok=True)
    dest = aside / f"{path.name}.{stamp}"
    _claim(dest)
    os.replace(path, dest)
    return dest


# What the runner names its files (a folder written before .runner-files existed)
_RUNNER_FILE = re.compile(r"run\.json|metadata\.json|shards\.sha256|summary\.txt|"
                          r"rows\.(csv|parquet)|shards/unit-[0-9]{6}\.json|"
                          r"corrupt/[^/]+\.[0-9]{8}T[0-9]{6}\.[0-9]{6}Z")
_TMP_FILE = re.compile(r"\..+\.[0-9]+\.tmp")


def _is_dir_no_link(path: Path) -> bool:
    import stat as _stat
    try:
        return _stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _runner_files(run_dir: Path) -> list[str]:
    """The relative names of the files the runner wrote in ``run_dir``: those in
    ``.runner-files``, those named as the runner names its files, and the tables
    a readable ``metadata.json`` lists; symbolic links to folders are not entered."""
    names = set(_owned_names(run_dir))
    for sub in ("", "shards", _ASIDE):
        where = run_dir / sub if sub else run_dir
        if sub and not _is_dir_no_link(where):
            continue
        try:
            entries = [e.name for e in os.scandir(where)]
        except OSError:
            continue
        names.update(f"{sub}/{e}" if sub else e for e in entries
                     if _RUNNER_FILE.fullmatch(f"{sub}/{e}" if sub else e))
    meta, _, problem = _read_doc(run_dir / "metadata.json")
    if not problem and isinstance(meta, dict) and isinstance(meta.get("files"), list):
        names.update(f for f in meta["files"] if _plain_name(f))
    return sorted(names)


def _clear(run_dir: Path, stamp: str, notes: list[str]) -> None:
    """``--fresh``: delete the files this runner wrote in ``run_dir``
    (:func:`_runner_files`) and nothing else. A user's notes and folders stay;
    nothing is followed through a symbolic link: a link (or a FIFO, a folder)
    where the runner's file was is moved to ``corrupt/``, not deleted."""
    import stat as _stat
    removed, moved = 0, []
    for sub in (_ASIDE, "shards"):         # the runner's folders must be real folders
        if os.path.lexists(run_dir / sub) and not _is_dir_no_link(run_dir / sub):
            dest = run_dir / f"{sub}.{stamp}"
            os.replace(run_dir / sub, dest)
            moved.append((run_dir / sub, dest))
    names = _runner_files(run_dir)
    # the moved-aside files first, so that what is moved there now stays
    for rel in sorted(names, key=lambda r: not r.startswith(_ASIDE + "/")):
        path = run_dir / rel
        if not all(_is_dir_no_link(run_dir.joinpath(*rel.split("/")[:i]))
                   for i in range(1, rel.count("/") + 1)):
            continue                       # under a link or not there: not entered
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as err:
            raise RunError(f"--fresh: cannot inspect {path}: {err.strerror or err} ({removed} "
                           f"of the runner's files deleted so far)") from None
        try:
            if _stat.S_ISREG(st.st_mode):
                path.unlink()
                removed += 1
            elif not rel.startswith(_ASIDE + "/"):
                moved.append((path, _move_aside(run_dir, path, stamp)))
        except OSError as err:
            raise RunError(f"--fresh: cannot delete {path}: {err.strerror or err} ({removed} "
                           f"of the runner's files deleted so far)") from None
    for sub in ("shards", _ASIDE):
        if _is_dir_no_link(run_dir / sub):
            with contextlib.suppress(OSError):     # only when empty
                (run_dir / sub).rmdir()
    kept = {r for r in _owned_names(run_dir) if os.path.lexists(run_dir / r)}
    if _ACTIVE is not None:
        _ACTIVE.names = set(kept)
    _atomic_write(run_dir / _OWNED, "".join(f"{r}\n" for r in sorted(kept)))
    notes.append(f"{run_dir}: --fresh deleted the {removed} file(s) this runner wrote there; "
                 f"anything else in the folder is kept")
    for path, dest in moved:
        notes.append(f"{path} was {_kind(path, dest)}, not a file this runner wrote; moved to "
                     f"{dest} (not followed, not deleted)")


def _kind(path: Path, dest: Path) -> str:
    from spiel_game.safe_io import kind
    try:
        return kind(os.lstat(dest).st_mode)
    except OSError:
        return "not a regular file"


def _prepare(run_dir: Path, manifest: dict, fresh: bool, recompute: bool, remedy: str,
             stamp: str, notes: list[str]) -> tuple[dict, bool]:
    """Check (or reset) ``run_dir`` for this manifest: ``(old run.json, legacy)``."""
    mpath = run_dir / "run.json"
    shards = run_dir / "shards"
    if fresh:
        _clear(run_dir, stamp, notes)
    has_shards = shards.exists() and any(shards.glob("unit-*.json"))
    if not mpath.exists() and not has_shards:
        return {}, False
    old, sealed, problem = _read_doc(mpath)
    if problem == "missing":
        problem = "missing although shards exist (deleted)"
    if problem:
        if not recompute:
            raise CorruptResultError(
                f"{mpath}: {problem}. Nothing was changed; {remedy}", [(mpath, problem)])
        if mpath.exists():
            notes.append(f"{mpath}: {problem}; moved to "
                         f"{_move_aside(run_dir, mpath, stamp)} and written again")
        return {}, False
    if old.get("fingerprint") != manifest["fingerprint"]:
        oc = old.get("config", {})
        diff = {k: (oc.get(k), v) for k, v in manifest["config"].items() if oc.get(k) != v}
        raise RunError(
            f"{run_dir} holds results of another configuration or unit list (changed config "
            f"keys, old -> new: {diff or 'none: the units changed'}): the experiment's code "
            f"or profile changed since they were computed; rerun with --fresh (fresh=True) "
            f"to delete this folder's results and start again, or choose --out")
    return old, not sealed


def run(name: str, *, profile: str = "quick", overrides: Mapping[str, Any] | None = None,
        config_file: str | Path | None = None, seed: int | None = None,
        backend: str = "local", address: str | None = None, workers: int | None = None,
        out: str | Path | None = None, fresh: bool = False, recompute_corrupt: bool = False,
        reuse_stale: bool = False, progress: bool = True, verbose: bool = True) -> RunResult:
    """Run experiment ``name`` (resuming finished units) and write its results.

    The configuration is checked (keys, types, the experiment's own checks)
    before anything is written. Results go to ``out/<name>`` for the profile's
    own configuration and to ``out/<name>@<8 hex>`` for any other (module
    docstring).

    Args:
      name: a registered experiment (``python -m experiments list``).
      profile: ``quick`` or ``paper`` (the experiment's base configuration).
      overrides: config fields to change; strings are converted to the field type.
      config_file: a TOML file of config fields, applied before ``overrides``.
      seed: the config seed (same as ``overrides={"seed": seed}``).
      backend: ``local`` or ``ray``.
      address: Ray cluster address (``auto``, ``HOST:PORT``; the code is shipped, see
        :func:`ray_runtime_env`); None starts a local one.
      workers: local processes (default: all cores; 1 runs in this process) or
        the most Ray tasks in flight (default: all units).
      out: results folder holding one folder per experiment and configuration
        (default :func:`results_root` ``/ profile``).
      fresh: delete the files the runner wrote in this configuration's folder
        first (every unit is computed again; nothing else in the folder is
        touched, and a folder that is a symbolic link is refused).
      recompute_corrupt: move damaged files (a shard whose hash does not match,
        a truncated run.json) to ``corrupt/`` and recompute them; without it a
        damaged shard stops the run with :class:`CorruptResultError`.
      reuse_stale: reuse saved units made by other code (another version of
        this package, of an agent's module, of a checkpoint); without it they are
        recomputed. Every run that finds saved units says how many it reused and
        why it recomputed the others (stderr).
      progress: show a progress bar (tqdm; works in terminals and Jupyter).
      verbose: print the summary at the end.

    Raises:
      RunInterrupted: on SIGINT/SIGTERM (the workers are stopped, finished
        shards kept: the same call resumes).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")
    if _bootstrapping_worker():
        print("error: a spawned worker process imported a script that calls "
              "experiments.run at its top level; put the call under "
              "`if __name__ == '__main__':`", file=sys.stderr, flush=True)
        raise SystemExit(1)
    exp, config, folder, changed = resolve(name, profile, overrides, config_file, seed)
    return run_experiment(exp, config, _root(out, profile) / folder, profile=profile,
                          backend=backend, address=address, workers=workers, fresh=fresh,
                          recompute_corrupt=recompute_corrupt, reuse_stale=reuse_stale,
                          progress=progress, verbose=verbose,
                          command=(exp.name, profile, out, changed))


def run_experiment(exp: Experiment, config, run_dir: str | Path, *,
                   units: list[Unit] | None = None, identity: str | None = None,
                   profile: str = "quick", backend: str = "local",
                   address: str | None = None, workers: int | None = None,
                   fresh: bool = False, recompute_corrupt: bool = False,
                   reuse_stale: bool = False, progress: bool = True, verbose: bool = True,
                   command: tuple | str | None = None) -> RunResult:
    """:func:`run` for an experiment object (registered or not) and an explicit
    results folder ``run_dir`` (the folder itself, not its parent): the same
    files, checks, resume, signals and backends. ``units`` (default
    ``exp.units(config)``) may have any distinct indices; ``identity`` (default:
    a hash of the config and the unit list) is what a saved folder must match to
    be resumed, so a caller whose unit list may grow (more deals of the same
    tournament) passes a hash of what the rows depend on, and every saved shard
    is then checked against its own unit (params and seed). ``command``: the
    call or command that resumes, for messages."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")
    check_workers(workers)
    run_dir = Path(run_dir)
    check_output_dir(run_dir)                           # before anything is written
    if backend == "ray":
        check_ray_address(address)
    units = exp.units(config) if units is None else list(units)
    if len({u.index for u in units}) != len(units):
        raise RunError(f"{exp.name}: the unit indices are not distinct")
    manifest = _manifest(exp, profile, config, units, identity)
    if fresh and run_dir.is_symlink():
        raise RunError(f"{run_dir} is a symbolic link (to {os.readlink(run_dir)}); --fresh "
                       f"(fresh=True) deletes results only in a real folder, never through a "
                       f"link: give the folder it names with --out, or remove the link")
    if command is None:
        command = f"the same call of {exp.name}"
    with _exclusive(run_dir), _run_root_set(run_dir.parent):
        return _run_locked(exp, profile, config, units, run_dir, manifest, fresh, backend,
                           address, workers, progress, verbose, recompute_corrupt, command,
                           reuse_stale)


def execute(exp: Experiment, config, units: list[Unit] | None = None, *,
            backend: str = "local", address: str | None = None,
            workers: int | None = 1) -> Iterator[tuple[Unit, dict]]:
    """Run units without a results folder: yields ``(unit, result)`` as they finish
    (``result["rows"]``, ``result.get("attachments")``), on the same backends as
    :func:`run` (the call time limit included). Nothing is written; SIGINT and
    SIGTERM reach the caller as ``KeyboardInterrupt`` (the workers are stopped)."""
    units = exp.units(config) if units is None else list(units)
    if backend == "local" and (int(workers or 1) > 1 or _call_limit(exp, config) is not None):
        script = _unguarded_main_script()
        if script is not None:
            raise RunError(f"{exp.name} is run at the top level of {script} without `if "
                           f"__name__ == \"__main__\":`; its worker processes are spawned "
                           f"and would run that script again: put the call under the guard")
    yield from _backend_stream(exp, config, units, backend, address, workers)


def _call_limit(exp: Experiment, config) -> float | None:
    lim = exp.call_time_limit_fn(config) if exp.call_time_limit_fn is not None else None
    return None if lim is None else float(lim)


def _backend_stream(exp, config, todo, backend, address, workers, bar=None):
    limit = _call_limit(exp, config)
    if backend == "local":
        return _local_backend(exp.unit_fn, config, todo, int(workers or 1), limit, bar)
    if limit is not None:
        raise RunError(f"{exp.name}: a call time limit needs the local backend (the ray "
                       f"backend cannot watch a worker's calls); run without it or locally")
    return _ray_backend(exp.unit_fn, config, todo, int(workers or 0), address)


@contextlib.contextmanager
def _run_root_set(root: Path):
    """``$CH_RUN_ROOT`` = ``root`` for the duration of a run (inherited by local
    worker processes); the previous value afterwards."""
    old = os.environ.get("CH_RUN_ROOT")
    os.environ["CH_RUN_ROOT"] = str(root.resolve())
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("CH_RUN_ROOT", None)
        else:
            os.environ["CH_RUN_ROOT"] = old


def run_root() -> Path:
    """The results folder of the run in progress (``out``, or :func:`results_root`
    ``/ profile``), for units that keep files beside the run (e.g. checkpoints);
    outside a run, :func:`results_root`. Local worker processes inherit it; Ray
    workers on other nodes do not (give such experiments an explicit folder)."""
    env = os.environ.get("CH_RUN_ROOT")
    return Path(env) if env else results_root()


@contextlib.contextmanager
def _exclusive(run_dir: Path):
    """One run per results folder at a time (released when the process dies)."""
    lock = run_dir / _LOCK
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"cannot write to {run_dir}: {err.strerror or err}") from None
    with os.fdopen(_open_append(lock), "ab") as f:   # a FIFO or a link there: refused
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RunError(f"another run is writing {run_dir} (lock {lock})") from None
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def _inactive():
    """Forget the active folder's list of written files when the run ends."""
    global _ACTIVE
    try:
        yield
    finally:
        _ACTIVE = None


class _Tally:
    """Units with a verified shard, for the message of an interrupted run."""

    def __init__(self, total: int):
        self.done, self.total = 0, total


def _run_locked(exp, profile, config, units, run_dir, manifest, fresh, backend, address,
                workers, progress, verbose, recompute, command, reuse_stale) -> RunResult:
    global _ACTIVE
    tally = _Tally(len(units))
    _ACTIVE = _Owned(run_dir)
    with _stop_on_signals(), _inactive():
        try:
            return _run_steps(exp, profile, config, units, run_dir, manifest, fresh, backend,
                              address, workers, progress, verbose, recompute, command, tally,
                              reuse_stale)
        except _Stop as stop:
            name = signal.Signals(stop.signum).name
            raise RunInterrupted(
                f"interrupted ({name}); {tally.done} of {tally.total} units done in {run_dir}; "
                f"rerun the same command to resume", stop.signum, tally.done, tally.total,
                run_dir) from None
        except OSError as err:      # a full disk, a folder made read-only mid-run
            if isinstance(err, RunError):
                raise
            import errno
            where = f" ({err.filename})" if err.filename else ""
            fix = {errno.ENOSPC: "free some space", errno.EDQUOT: "free some space",
                   errno.EROFS: "make the folder writable", errno.EACCES: "fix the permissions",
                   errno.EPERM: "fix the permissions"}.get(err.errno, "fix that")
            raise RunError(
                f"{exp.name}: {err.strerror or err}{where}; {tally.done} of {tally.total} "
                f"units are saved in {run_dir} and kept: {fix}, then rerun the same command "
                f"to resume") from None


def _run_steps(exp, profile, config, units, run_dir, manifest, fresh, backend, address,
               workers, progress, verbose, recompute, command, tally,
               reuse_stale=False) -> RunResult:
    import pandas as pd
    with warnings.catch_warnings():   # Jupyter without ipywidgets: a text bar is fine
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm

    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    again = (_command(*command, '--recompute-corrupt') if isinstance(command, tuple)
             else f"{command} with recompute_corrupt=True")
    remedy = (f"rerun with --recompute-corrupt (recompute_corrupt=True) to move the damaged "
              f"files to {run_dir / _ASIDE}/ and recompute them: {again}")
    notes: list[str] = []
    old, legacy = _prepare(run_dir, manifest, fresh, recompute, remedy, stamp, notes)
    shards_dir = run_dir / "shards"
    shards_dir.mkdir(parents=True, exist_ok=True)
    for leftover in [*run_dir.glob(".*.tmp"), *shards_dir.glob(".*.tmp")]:
        if _TMP_FILE.fullmatch(leftover.name) and leftover.is_file() \
                and not leftover.is_symlink():
            leftover.unlink(missing_ok=True)  # left by a killed run

    # Verify every finished shard against its recorded hash before using any.
    jpath = run_dir / _JOURNAL
    recorded, problems, note = ({}, [], None)
    jdata, jproblem = _read(jpath, MAX_DOC_BYTES)
    if jproblem:
        problems.append((jpath, jproblem))
    elif jdata is not None:
        recorded, problems, note = _parse_journal(jpath, jdata)
    if note:
        notes.append(note)
    done: set[int] = set()
    bad: list[int] = []
    made_by: dict[int, Any] = {}
    adopted = 0
    for u in units:
        shard, sdata, problem = _check_shard(run_dir, u.index, recorded, u, adopt=legacy)
        if problem:
            problems.append((_shard_path(run_dir, u.index), problem))
            bad.append(u.index)
        elif shard is not None:
            done.add(u.index)
            made_by[u.index] = shard.get("code")
            if _shard_name(u.index) not in recorded:
                recorded[_shard_name(u.index)] = _sha256(sdata)
                adopted += 1
    if problems:
        if not recompute:
            raise CorruptResultError(
                f"{run_dir}: {len(problems)} damaged file(s) in the saved results:\n"
                f"{_problem_lines(problems)}\nNothing was changed; {remedy}", problems)
        for i in bad:
            dest = _move_aside(run_dir, _shard_path(run_dir, i), stamp)
            notes.append(f"{_shard_path(run_dir, i)}: moved to {dest}; recomputed")
        if jproblem:                      # not a regular file, or too long: moved, unread
            notes.append(f"{jpath}: {jproblem}; moved to {_move_aside(run_dir, jpath, stamp)}")
        elif jpath.exists() and any(p == jpath for p, _ in problems):
            (run_dir / _ASIDE).mkdir(exist_ok=True)
            _atomic_write(run_dir / _ASIDE / f"{jpath.name}.{stamp}", jdata)
            notes.append(f"{jpath}: malformed lines dropped (a copy is in {run_dir / _ASIDE}/)")
    if adopted:
        notes.append(f"{run_dir}: {adopted} shard(s) written by an older runner had no recorded "
                     f"hashes; recorded now (checked against the unit list only)")
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    mine = {_shard_name(u.index) for u in units}
    recorded = {k: v for k, v in recorded.items()          # other units' shards stay
                if k not in mine or int(k[-11:-5]) in done}
    _atomic_write(jpath, _journal_text(recorded))

    # Saved units made by other code are recomputed (unless reuse_stale).
    code = code_fingerprint(exp, config)
    stale: dict[int, list[str]] = {i: _differing(made_by[i], code) for i in sorted(done)
                                   if made_by[i] != code}
    if done:
        why = sorted({p for parts in stale.values() for p in parts})
        saved, fresh_n = len(done), len(units) - len(done)
        if stale and not reuse_stale:
            done -= set(stale)
            line = (f"{len(done)} of {len(units)} units reused (same code), {len(stale)} "
                    f"recomputed (made by other code: {'; '.join(why)} differ(s); "
                    f"--reuse-stale (reuse_stale=True) keeps them)")
        elif stale:
            line = (f"{saved} of {len(units)} units reused, {len(stale)} of them made by "
                    f"other code ({'; '.join(why)} differ(s)) and kept because of "
                    f"--reuse-stale, 0 recomputed")
        else:
            line = f"{saved} of {len(units)} units reused (same code), 0 recomputed"
        if fresh_n:
            line += f"; {fresh_n} not computed before"
        print(f"{run_dir}: {line}", file=sys.stderr, flush=True)

    now = dt.datetime.now(dt.UTC)
    sessions = list(old.get("sessions", []))
    sessions.append({"started": now.isoformat(), "backend": backend,
                     "workers": workers, "address": address, "git_commit": git_commit(),
                     "units_to_run": len(units) - len(done)})
    manifest["started"] = old.get("started", now.isoformat())
    manifest["sessions"] = sessions
    _atomic_write(run_dir / "run.json", _sealed(manifest))

    todo = [u for u in units if u.index not in done]
    tally.done = len(done)
    if workers is None:
        workers = (os.cpu_count() or 1) if backend == "local" else 0
    if backend == "local":
        workers = max(1, min(int(workers), len(todo) or 1))
        script = (_unguarded_main_script()
                  if workers > 1 or _call_limit(exp, config) is not None else None)
        if script is not None:
            warnings.warn(
                f"experiments.run is called at the top level of {script} without "
                f"`if __name__ == \"__main__\":`; spawned worker processes would run that "
                f"script again, so the units run in this process (workers=1). Put the call "
                f"under the guard to use {workers} workers.", RuntimeWarning, stacklevel=4)
            workers = 1
    t0 = time.perf_counter()
    # n is fractional while units report progress (unit_progress): shown to 0.1 unit
    bar = tqdm(total=len(units), initial=len(done), desc=exp.name, unit="unit",
               disable=not progress or not todo, file=sys.stderr,
               bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} units [{elapsed}<{remaining}]")
    ubar = _UnitBar(bar) if progress and todo else None
    stream = _backend_stream(exp, config, todo, backend, address, workers, ubar)

    try:
        with open(jpath, "ab") as journal:
            for u, res in stream:
                shard = {"index": u.index, "seed": u.seed, "params": u.params, "code": code,
                         **res}
                data = _dumps(shard).encode("utf-8")
                digest = _sha256(data)
                # The hash first (on disk), then the shard: a shard is never without it.
                journal.write(f"{digest}  {_shard_name(u.index)}\n".encode())
                journal.flush()
                os.fsync(journal.fileno())
                _atomic_write(_shard_path(run_dir, u.index), data)
                recorded[_shard_name(u.index)] = digest
                tally.done += 1
                if ubar is not None:
                    ubar.finished(u.index)
                else:
                    bar.update(1)
    finally:
        stream.close()        # stops the workers at once if the loop did not finish
        bar.close()
    elapsed = time.perf_counter() - t0

    # Every unit is done: assemble, in unit order, from the verified shards alone.
    rows: list[dict] = []
    problems = []
    for u in units:
        shard, _, problem = _check_shard(run_dir, u.index, recorded, u)
        if shard is None:
            problems.append((_shard_path(run_dir, u.index),
                             problem or "missing (deleted during the run)"))
        else:
            rows.extend(shard["rows"])
    if problems:
        raise CorruptResultError(f"{run_dir}: shards changed during the run:\n"
                                 f"{_problem_lines(problems)}\n{remedy}", problems)
    digests = {_JOURNAL: _atomic_write(jpath, _journal_text(recorded))}
    table = pd.DataFrame.from_records(rows)
    written, digests = _write_frame(table, run_dir / "rows", digests)
    summary = _summarize(exp, config, table)
    tables = {k: (v if isinstance(v, pd.DataFrame) else pd.DataFrame(v))
              for k, v in summary.tables.items()}
    for tname, df in tables.items():
        if tname == "rows":
            raise RunError(f"{exp.name}: a summary table may not be called 'rows'")
        more, digests = _write_frame(df, run_dir / tname, digests)
        written += more
    if summary.text:
        digests["summary.txt"] = _atomic_write(run_dir / "summary.txt",
                                               summary.text.rstrip() + "\n")
        written.append("summary.txt")
    owned = _ACTIVE.names if _ACTIVE is not None else set()
    for f in [*run_dir.glob("*.csv"), *run_dir.glob("*.parquet"), run_dir / "summary.txt"]:
        if f.name in owned and f.name not in written and f.is_file() and not f.is_symlink():
            f.unlink()                    # left by an earlier session (e.g. without pyarrow now)
    meta = metadata(config, config.seed,
                    dt.datetime.fromisoformat(manifest["started"]))
    meta.update({"format": FORMAT, "experiment": exp.name, "profile": profile,
                 "folder": run_dir.name, "backend": backend,
                 "address": address, "workers": workers, "units": len(units),
                 "units_run_this_session": len(todo), "seconds_this_session": round(elapsed, 3),
                 "code": code,
                 "sessions": len(sessions), "fingerprint": manifest["fingerprint"],
                 # git_commit above is the code that wrote this summary; the units
                 # were computed by the sessions that ran them, at these commits
                 "session_commits": [x.get("git_commit") for x in sessions
                                     if x.get("units_to_run", 1)],
                 "rows": len(table), "files": written, "sha256": digests,
                 "host": socket.gethostname()})
    indices = [u.index for u in units]
    if indices != list(range(len(units))):
        meta["unit_indices"] = indices
    _atomic_write(run_dir / "metadata.json", _sealed(meta))
    if verbose:
        print(f"{exp.name} ({profile}): {len(units)} units ({len(done)} already done), "
              f"{len(table)} rows -> {run_dir}")
        if summary.text:
            print(summary.text.rstrip())
    return RunResult(exp.name, profile, run_dir, config, table, tables, summary.text, meta)


def _summarize(exp: Experiment, config, table) -> Summary:
    if exp.summary_fn is None:
        return Summary()
    out = exp.summary_fn(config, table)
    if out is None:
        return Summary()
    if isinstance(out, Summary):
        return out
    if isinstance(out, str):
        return Summary(text=out)
    if hasattr(out, "to_csv"):
        return Summary(tables={"summary": out})
    raise TypeError(f"{exp.name}: summarize returned {type(out).__name__}; "
                    f"expected Summary, DataFrame, str or None")


def _write_frame(df, stem: Path, digests: dict) -> tuple[list[str], dict]:
    digests = dict(digests)
    name = stem.name + ".csv"
    digests[name] = _atomic_frame(df, stem.with_suffix(".csv"), "csv")
    out = [name]
    if _have_pyarrow():
        try:
            pname = stem.name + ".parquet"
            digests[pname] = _atomic_frame(df, stem.with_suffix(".parquet"), "parquet")
            out.append(pname)
        except (ValueError, TypeError, ImportError) as err:   # e.g. mixed-type columns
            print(f"warning: {stem.name}.parquet not written: {err}", file=sys.stderr)
    return out, digests


# ------------------------------------------------------------------ load
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
    run (:func:`load`) that has one (:class:`experiments.registry.UnitOutput`), in
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
