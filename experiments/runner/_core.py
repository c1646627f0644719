"""The run: :func:`run` resolves a registered experiment's configuration and
folder, :func:`run_experiment` runs any experiment into a folder: it checks the
saved shards, reuses the verified ones made by the same code, runs the rest on a
backend, saves each shard with its hash first, and writes the rows, the
summary's tables and the metadata."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import signal
import socket
import sys
import time
import warnings
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from .._base.config import check_output_dir, config_to_dict, fingerprint
from .._base.metadata import git_commit, metadata
from .._base.registry import Experiment, Summary, Unit
from ._declaration import RECORD as _DECLARATION, check_declaration, declared
from ._backends import (BACKENDS, _backend_stream, _bootstrapping_worker, _call_limit,
                       _stop_on_signals, _unguarded_main_script, check_ray_address,
                       check_workers)
from ._errors import CorruptResultError, RunError, RunInterrupted, _Stop
from ._fingerprint import _differing, code_fingerprint
from ._folders import (_TMP_FILE, _command, _exclusive, _move_aside, _prepare, _root,
                      _run_root_set, resolve)
from ._progress import _UnitBar
from ._results import RunResult
from ._store import (_ASIDE, _JOURNAL, FORMAT, MAX_DOC_BYTES, _active_names, _atomic_frame,
                    _atomic_write, _check_shard, _dumps, _have_pyarrow, _journal_text,
                    _owning, _parse_journal, _problem_lines, _read, _sealed, _sha256,
                    _shard_name, _shard_path)

__all__ = ["run", "run_experiment"]


def _manifest(exp: Experiment, profile: str, config, units: list[Unit],
              identity: str | None = None) -> dict:
    cfg = config_to_dict(config)
    params = [u.params for u in units]
    return {"format": FORMAT, "experiment": exp.name, "profile": profile, "config": cfg,
            "units": len(units),
            "fingerprint": identity or fingerprint({"config": cfg, "units": params})}


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """How one run goes, as :func:`run_experiment`'s keywords of the same names
    give it: the profile it is recorded under, the backend and its workers, what
    becomes of saved units (``fresh``, ``recompute_corrupt``, ``reuse_stale``),
    what is shown, the call or command that resumes it (``command``, for
    messages: ``(name, profile, out, changed)`` of :func:`run` or a text) and
    the declaration file the run is held to (``declaration``,
    :mod:`~experiments.runner._declaration`; None: none)."""

    profile: str = "quick"
    backend: str = "local"
    address: str | None = None
    workers: int | None = None
    fresh: bool = False
    recompute_corrupt: bool = False
    reuse_stale: bool = False
    progress: bool = True
    verbose: bool = True
    command: tuple | str | None = None
    declaration: str | Path | None = None


def run(name: str, *, profile: str = "quick", overrides: Mapping[str, Any] | None = None,
        config_file: str | Path | None = None, seed: int | None = None,
        backend: str = "local", address: str | None = None, workers: int | None = None,
        out: str | Path | None = None, fresh: bool = False, recompute_corrupt: bool = False,
        reuse_stale: bool = False, progress: bool = True, verbose: bool = True,
        declaration: str | Path | None = None) -> RunResult:
    """Run experiment ``name`` (resuming finished units) and write its results.

    The configuration is checked (keys, types, the experiment's own checks)
    before anything is written. Results go to ``out/<name>`` for the profile's
    own configuration and to ``out/<name>@<8 hex>`` for any other
    (:mod:`experiments.runner`).

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
      declaration: a file that declares the run (a pre-registration): its
        SHA-256 is recorded at the run's first unit (``declaration.json`` in the
        folder, ``run.json`` and ``metadata.json``), and every later call
        refuses, before computing anything, if the file changed; a folder
        started without a declaration is not continued with one, nor the other
        way round (:mod:`~experiments.runner._declaration`).

    Raises:
      RunInterrupted: on SIGINT/SIGTERM (the workers are stopped, finished
        shards kept: the same call resumes).
      RunError: among others, a declaration that changed since the first unit.
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
                          command=(exp.name, profile, out, changed), declaration=declaration)


def run_experiment(exp: Experiment, config, run_dir: str | Path, *,
                   units: list[Unit] | None = None, identity: str | None = None,
                   profile: str = "quick", backend: str = "local",
                   address: str | None = None, workers: int | None = None,
                   fresh: bool = False, recompute_corrupt: bool = False,
                   reuse_stale: bool = False, progress: bool = True, verbose: bool = True,
                   command: tuple | str | None = None,
                   declaration: str | Path | None = None) -> RunResult:
    """:func:`run` for an experiment object (registered or not) and an explicit
    results folder ``run_dir`` (the folder itself, not its parent): the same
    files, checks, resume, signals and backends. ``units`` (default
    ``exp.units(config)``) may have any distinct indices; ``identity`` (default:
    a hash of the config and the unit list) is what a saved folder must match to
    be resumed, so a caller whose unit list may grow (more deals of the same
    tournament) passes a hash of what the rows depend on, and every saved shard
    is then checked against its own unit (params and seed). ``command``: the
    call or command that resumes, for messages. ``declaration``: as for
    :func:`run`."""
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
    if declaration is not None:
        declared(declaration)                   # a missing file: refused before the lock
    opts = RunOptions(profile=profile, backend=backend, address=address, workers=workers,
                      fresh=fresh, recompute_corrupt=recompute_corrupt, reuse_stale=reuse_stale,
                      progress=progress, verbose=verbose, command=command,
                      declaration=declaration)
    with _exclusive(run_dir), _run_root_set(run_dir.parent):
        return _run_locked(exp, config, units, run_dir, manifest, opts)


class _Tally:
    """Units with a verified shard, for the message of an interrupted run."""

    def __init__(self, total: int):
        self.done, self.total = 0, total


def _run_locked(exp: Experiment, config, units: list[Unit], run_dir: Path, manifest: dict,
                opts: RunOptions) -> RunResult:
    """:func:`_run_steps` with the folder's written files listed, SIGINT/SIGTERM
    turned into :class:`RunInterrupted` and a full or read-only disk into a
    :class:`RunError` that says how many units are saved."""
    tally = _Tally(len(units))
    with _owning(run_dir), _stop_on_signals():
        try:
            return _run_steps(exp, config, units, run_dir, manifest, opts, tally)
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


def _run_steps(exp: Experiment, config, units: list[Unit], run_dir: Path, manifest: dict,
               opts: RunOptions, tally: _Tally) -> RunResult:
    """The run in its locked folder: check the folder, verify the saved shards,
    run the units still to do (each shard's hash saved first), then write the
    rows, the summary and the metadata from the verified shards alone."""
    import pandas as pd
    with warnings.catch_warnings():   # Jupyter without ipywidgets: a text bar is fine
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm

    command, backend, address = opts.command, opts.backend, opts.address
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    again = (_command(*command, '--recompute-corrupt') if isinstance(command, tuple)
             else f"{command} with recompute_corrupt=True")
    remedy = (f"rerun with --recompute-corrupt (recompute_corrupt=True) to move the damaged "
              f"files to {run_dir / _ASIDE}/ and recompute them: {again}")
    notes: list[str] = []
    old, legacy = _prepare(run_dir, manifest, opts.fresh, opts.recompute_corrupt, remedy, stamp,
                           notes)
    # The declaration, checked before any shard is read or any unit computed.
    started = bool(old) or any((run_dir / "shards").glob("unit-*.json"))
    decl = check_declaration(run_dir, old, started,
                             None if opts.declaration is None else declared(opts.declaration))
    if decl is not None:
        manifest["declaration"] = decl
        if not (run_dir / _DECLARATION).exists():
            _atomic_write(run_dir / _DECLARATION, _sealed(decl))
    shards_dir = run_dir / "shards"
    shards_dir.mkdir(parents=True, exist_ok=True)
    for leftover in [*run_dir.glob(".*.tmp"), *shards_dir.glob(".*.tmp")]:
        if _TMP_FILE.fullmatch(leftover.name) and leftover.is_file() \
                and not leftover.is_symlink():
            leftover.unlink(missing_ok=True)  # left by a killed run

    done, made_by, recorded = _verify_saved(run_dir, units, legacy, opts.recompute_corrupt,
                                            remedy, stamp, notes)
    code = code_fingerprint(exp, config)
    done = _reusable(run_dir, units, done, made_by, code, opts.reuse_stale)

    now = dt.datetime.now(dt.UTC)
    sessions = list(old.get("sessions", []))
    sessions.append({"started": now.isoformat(), "backend": backend,
                     "workers": opts.workers, "address": address, "git_commit": git_commit(),
                     "units_to_run": len(units) - len(done)})
    manifest["started"] = old.get("started", now.isoformat())
    manifest["sessions"] = sessions
    _atomic_write(run_dir / "run.json", _sealed(manifest))

    todo = [u for u in units if u.index not in done]
    tally.done = len(done)
    workers = opts.workers
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
               disable=not opts.progress or not todo, file=sys.stderr,
               bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} units [{elapsed}<{remaining}]")
    ubar = _UnitBar(bar) if opts.progress and todo else None
    stream = _backend_stream(exp, config, todo, backend, address, workers, ubar)

    jpath = run_dir / _JOURNAL
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
    owned = _active_names()
    for f in [*run_dir.glob("*.csv"), *run_dir.glob("*.parquet"), run_dir / "summary.txt"]:
        if f.name in owned and f.name not in written and f.is_file() and not f.is_symlink():
            f.unlink()                    # left by an earlier session (e.g. without pyarrow now)
    meta = metadata(config, config.seed,
                    dt.datetime.fromisoformat(manifest["started"]))
    meta.update({"format": FORMAT, "experiment": exp.name, "profile": opts.profile,
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
    if decl is not None:
        meta["declaration"] = decl
    indices = [u.index for u in units]
    if indices != list(range(len(units))):
        meta["unit_indices"] = indices
    _atomic_write(run_dir / "metadata.json", _sealed(meta))
    if opts.verbose:
        print(f"{exp.name} ({opts.profile}): {len(units)} units ({len(done)} already done), "
              f"{len(table)} rows -> {run_dir}")
        if summary.text:
            print(summary.text.rstrip())
    return RunResult(exp.name, opts.profile, run_dir, config, table, tables, summary.text, meta)


def _verify_saved(run_dir: Path, units: list[Unit], legacy: bool, recompute: bool,
                  remedy: str, stamp: str, notes: list[str]):
    """Verify every finished shard against its recorded hash before using any:
    ``(done, made_by, recorded)``: the indices of the verified units, the code
    that made each (its ``code`` record) and ``{shard name: sha256}`` as
    ``shards.sha256`` is rewritten. A damaged shard stops the run
    (:class:`CorruptResultError`) unless ``recompute`` moves it aside; ``notes``
    are printed."""
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
    return done, made_by, recorded


def _reusable(run_dir: Path, units: list[Unit], done: set[int], made_by: Mapping[int, Any],
              code: Mapping[str, str], reuse_stale: bool) -> set[int]:
    """The verified units ``done`` that are reused: saved units made by other code
    than ``code`` are recomputed unless ``reuse_stale``; one line on stderr says
    how many were reused and why the others are recomputed."""
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
    return done


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
