"""Run a registered experiment: units on a process pool or Ray, resumable shards, tidy tables.

``run("rules_stats", profile="quick", overrides={"hands": 2000})`` (or
``python -m experiments run rules_stats --set hands=2000``) writes::

    results/<profile>/<name>/
        run.json            what is being computed: config, units, fingerprint, sessions
        shards/unit-000012.json   one finished unit: its params, seed and rows
        rows.csv            every unit's rows, in unit order (rows.parquet with pyarrow)
        <table>.csv         the summary's tables (e.g. summary.csv)
        summary.txt         the summary's text
        metadata.json       config, seed, package versions, git commit, start/end, machine

Loss-free and resumable: only this process writes files, each atomically
(temporary file + ``os.replace``); a restarted run skips the units whose shard
exists, so a run killed at any moment and restarted ends with exactly the
rows of an uninterrupted one. A run directory belongs to one configuration:
starting a different configuration there is refused unless ``fresh=True``
(``--fresh``), which deletes the old results.

Backends: ``local`` (``workers`` processes, spawned, so a script calling
:func:`run` with ``workers > 1`` needs the usual ``if __name__ == "__main__":``
guard; ``workers=1`` runs in this process) and ``ray`` (tasks on a Ray
cluster: ``address=None`` starts a local instance, ``"auto"`` or
``"HOST:PORT"`` joins a running one; an instance already initialised by the
caller is used as it is). Rows do not depend on the backend or the number of
workers. One run per results folder at a time (a lock file next to it).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import datetime as dt
import fcntl
import json
import multiprocessing
import os
import shutil
import socket
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterator, Mapping

from .config import config_to_dict, fingerprint, load_toml
from .metadata import metadata
from .registry import Experiment, Summary, Unit, get

__all__ = ["run", "load", "RunResult", "RunError", "results_root", "unit_threads",
           "BACKENDS"]

BACKENDS = ("local", "ray")
_ROOT = Path(__file__).resolve().parent.parent
_UNIT_THREADS: int | None = None
_LOCK = ".runner.lock"


class RunError(RuntimeError):
    """A run cannot start or finish (config clash with existing results, failed unit)."""


def unit_threads() -> int | None:
    """Threads a unit may use (for numba kernels): None means all local cores."""
    return _UNIT_THREADS


def results_root() -> Path:
    """``$CH_RESULTS``, else ``results/`` of the source checkout, else ``./results``."""
    env = os.environ.get("CH_RESULTS")
    if env:
        return Path(env)
    if (_ROOT / "pyproject.toml").exists():
        return _ROOT / "results"
    return Path("results")


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
def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _atomic_frame(df, path: Path, kind: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if kind == "csv":
        df.to_csv(tmp, index=False)
    else:
        df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


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


def _shard_path(run_dir: Path, index: int) -> Path:
    return run_dir / "shards" / f"unit-{index:06d}.json"


def _have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


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
    global _UNIT_THREADS
    _UNIT_THREADS = threads
    t0 = time.perf_counter()
    rows = _rows_of(unit_fn(config, unit))
    rows = json.loads(json.dumps(rows, default=_json_default))
    return {"rows": rows, "elapsed_s": time.perf_counter() - t0, "host": socket.gethostname()}


def _local_backend(exp, config, todo, workers) -> Iterator[tuple[Unit, dict]]:
    if workers <= 1:
        for u in todo:
            yield u, _execute(exp.unit_fn, config, u, None)
        return
    threads = max(1, (os.cpu_count() or 1) // workers)
    pool = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        futs = {pool.submit(_execute, exp.unit_fn, config, u, threads): u for u in todo}
        for f in cf.as_completed(futs):
            try:
                res = f.result()
            except cf.process.BrokenProcessPool as err:
                raise RunError(
                    "a worker process died (killed, out of memory, or a script that calls "
                    "experiments.run outside `if __name__ == '__main__':` - local workers "
                    "are spawned and import the main script again)") from err
            yield futs[f], res
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _ray_backend(exp, config, todo, workers, address) -> Iterator[tuple[Unit, dict]]:
    if not todo:
        return
    try:
        import ray
    except ImportError:
        raise RunError("the ray backend needs ray: pip install -e '.[distributed]'") from None
    owned = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"logging_level": "WARNING"}
        if address:
            kwargs["address"] = address
        else:
            kwargs["include_dashboard"] = False
            if workers:
                kwargs["num_cpus"] = workers
        ray.init(**kwargs)
        owned = True
    remote = ray.remote(num_cpus=1)(_execute)
    limit = workers or len(todo)
    queue = list(todo)
    inflight: dict = {}
    try:
        while queue or inflight:
            while queue and len(inflight) < limit:
                u = queue.pop(0)
                inflight[remote.remote(exp.unit_fn, config, u, 1)] = u
            ready, _ = ray.wait(list(inflight), num_returns=1)
            for ref in ready:
                u = inflight.pop(ref)
                yield u, ray.get(ref)
    finally:
        for ref in inflight:
            ray.cancel(ref, force=True)
        if owned:
            ray.shutdown()


# ------------------------------------------------------------------ the run
def _manifest(exp: Experiment, profile: str, config, units: list[Unit]) -> dict:
    cfg = config_to_dict(config)
    params = [u.params for u in units]
    return {"experiment": exp.name, "profile": profile, "config": cfg,
            "units": len(units), "fingerprint": fingerprint({"config": cfg, "units": params})}


def _prepare(run_dir: Path, manifest: dict, fresh: bool) -> dict:
    """Check (or reset) ``run_dir`` for this manifest; return the stored sessions."""
    mpath = run_dir / "run.json"
    shards = run_dir / "shards"
    if fresh:
        for f in run_dir.iterdir():       # everything but the lock this run holds
            if f.name != _LOCK:
                shutil.rmtree(f) if f.is_dir() else f.unlink()
    if mpath.exists() or shards.exists():
        old = json.loads(mpath.read_text()) if mpath.exists() else {}
        if old.get("fingerprint") != manifest["fingerprint"]:
            diff = {k: (old.get("config", {}).get(k), v)
                    for k, v in manifest["config"].items()
                    if old.get("config", {}).get(k) != v}
            raise RunError(
                f"{run_dir} holds results of another configuration or unit list "
                f"(changed config keys, old -> new: {diff or 'none: the units changed'}); "
                f"rerun with --fresh (fresh=True) to delete them, or choose --out")
        return old
    return {}


def _load_shard(run_dir: Path, u: Unit) -> dict | None:
    path = _shard_path(run_dir, u.index)
    if not path.exists():
        return None
    shard = json.loads(path.read_text())
    if shard.get("params") != json.loads(json.dumps(u.params, default=_json_default)) \
            or shard.get("seed") != u.seed:
        raise RunError(f"{path} does not belong to this run (unit {u.index} differs); "
                       f"rerun with --fresh")
    return shard


def run(name: str, *, profile: str = "quick", overrides: Mapping[str, Any] | None = None,
        config_file: str | Path | None = None, seed: int | None = None,
        backend: str = "local", address: str | None = None, workers: int | None = None,
        out: str | Path | None = None, fresh: bool = False, progress: bool = True,
        verbose: bool = True) -> RunResult:
    """Run experiment ``name`` (resuming finished units) and write its results.

    Args:
      name: a registered experiment (``python -m experiments list``).
      profile: ``quick`` or ``paper`` (the experiment's base configuration).
      overrides: config fields to change; strings are converted to the field type.
      config_file: a TOML file of config fields, applied before ``overrides``.
      seed: the config seed (same as ``overrides={"seed": seed}``).
      backend: ``local`` or ``ray``.
      address: Ray cluster address (``auto``, ``HOST:PORT``); None starts a local one.
      workers: local processes (default: all cores; 1 runs in this process) or
        the most Ray tasks in flight (default: all units).
      out: results folder holding one folder per experiment (default
        :func:`results_root` ``/ profile``).
      fresh: delete existing results of this experiment in ``out`` first.
      progress: show a progress bar (tqdm; works in terminals and Jupyter).
      verbose: print the summary at the end.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")
    exp = get(name)
    ov: dict[str, Any] = {}
    if config_file is not None:
        ov.update(load_toml(config_file))
    ov.update(overrides or {})
    if seed is not None:
        ov["seed"] = seed
    config = exp.config(profile, ov)
    units = exp.units(config)
    run_dir = Path(out) if out is not None else results_root() / profile
    run_dir = run_dir / exp.name
    manifest = _manifest(exp, profile, config, units)
    with _exclusive(run_dir):
        return _run_locked(exp, profile, config, units, run_dir, manifest, fresh, backend,
                           address, workers, progress, verbose)


@contextlib.contextmanager
def _exclusive(run_dir: Path):
    """One run per results folder at a time (released when the process dies)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    lock = run_dir / _LOCK
    with open(lock, "a") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RunError(f"another run is writing {run_dir} (lock {lock})") from None
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _run_locked(exp, profile, config, units, run_dir, manifest, fresh, backend, address,
                workers, progress, verbose) -> RunResult:
    import pandas as pd
    with warnings.catch_warnings():   # Jupyter without ipywidgets: a text bar is fine
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm

    old = _prepare(run_dir, manifest, fresh)
    (run_dir / "shards").mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.timezone.utc)
    sessions = list(old.get("sessions", []))
    sessions.append({"started": now.isoformat(), "backend": backend,
                     "workers": workers, "address": address})
    manifest["started"] = old.get("started", now.isoformat())
    manifest["sessions"] = sessions
    _atomic_write(run_dir / "run.json", _dumps(manifest))
    for stale in [*run_dir.glob(".*.tmp"), *(run_dir / "shards").glob(".*.tmp")]:
        stale.unlink(missing_ok=True)     # left by a killed run

    done = {u.index for u in units if _load_shard(run_dir, u) is not None}
    todo = [u for u in units if u.index not in done]
    if workers is None:
        workers = (os.cpu_count() or 1) if backend == "local" else 0
    if backend == "local":
        workers = max(1, min(int(workers), len(todo) or 1))
        stream = _local_backend(exp, config, todo, workers)
    else:
        stream = _ray_backend(exp, config, todo, int(workers), address)

    t0 = time.perf_counter()
    bar = tqdm(total=len(units), initial=len(done), desc=exp.name, unit="unit",
               disable=not progress or not todo, file=sys.stderr)
    try:
        for u, res in stream:
            shard = {"index": u.index, "seed": u.seed, "params": u.params, **res}
            _atomic_write(_shard_path(run_dir, u.index), _dumps(shard))
            bar.update(1)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0

    # Every unit is done: assemble, in unit order, from the shards alone.
    rows: list[dict] = []
    for u in units:
        rows.extend(_load_shard(run_dir, u)["rows"])
    table = pd.DataFrame.from_records(rows)
    written = _write_frame(table, run_dir / "rows")
    summary = _summarize(exp, config, table)
    tables = {k: (v if isinstance(v, pd.DataFrame) else pd.DataFrame(v))
              for k, v in summary.tables.items()}
    for tname, df in tables.items():
        if tname == "rows":
            raise RunError(f"{exp.name}: a summary table may not be called 'rows'")
        written += _write_frame(df, run_dir / tname)
    if summary.text:
        _atomic_write(run_dir / "summary.txt", summary.text.rstrip() + "\n")
        written.append("summary.txt")
    for f in [*run_dir.glob("*.csv"), *run_dir.glob("*.parquet"), run_dir / "summary.txt"]:
        if f.exists() and f.name not in written:
            f.unlink()                    # left by an earlier session (e.g. without pyarrow now)
    meta = metadata(config, config.seed,
                    dt.datetime.fromisoformat(manifest["started"]))
    meta.update({"experiment": exp.name, "profile": profile, "backend": backend,
                 "address": address, "workers": workers, "units": len(units),
                 "units_run_this_session": len(todo), "seconds_this_session": round(elapsed, 3),
                 "sessions": len(sessions), "fingerprint": manifest["fingerprint"],
                 "rows": len(table), "files": written,
                 "host": socket.gethostname()})
    _atomic_write(run_dir / "metadata.json", _dumps(meta))
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


def _write_frame(df, stem: Path) -> list[str]:
    _atomic_frame(df, stem.with_suffix(".csv"), "csv")
    out = [stem.name + ".csv"]
    if _have_pyarrow():
        try:
            _atomic_frame(df, stem.with_suffix(".parquet"), "parquet")
            out.append(stem.name + ".parquet")
        except (ValueError, TypeError, ImportError) as err:   # e.g. mixed-type columns
            print(f"warning: {stem.name}.parquet not written: {err}", file=sys.stderr)
    return out


def load(name: str, profile: str = "quick", out: str | Path | None = None) -> RunResult:
    """The saved results of a finished run (no computation, no registry needed)."""
    import pandas as pd

    run_dir = (Path(out) if out is not None else results_root() / profile) / name
    mpath = run_dir / "metadata.json"
    if not mpath.exists():
        raise FileNotFoundError(f"no finished run in {run_dir}: python -m experiments run "
                                f"{name} --profile {profile}")
    meta = json.loads(mpath.read_text())
    rows = pd.read_csv(run_dir / "rows.csv") if (run_dir / "rows.csv").stat().st_size > 1 \
        else pd.DataFrame()
    tables = {}
    for f in meta.get("files", []):
        if f.endswith(".csv") and f != "rows.csv":
            tables[f[:-4]] = pd.read_csv(run_dir / f)
    text = (run_dir / "summary.txt").read_text() if (run_dir / "summary.txt").exists() else ""
    return RunResult(name, profile, run_dir, meta.get("config"), rows, tables, text, meta)
