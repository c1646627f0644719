"""The backends that run units: this process, spawned local worker processes
(with the call watchdog) or Ray tasks; the checks of ``--workers`` and
``--address`` before a run starts, the handling of SIGINT/SIGTERM while a run
holds its folder, and the guard against a script that calls the runner at its
top level."""

from __future__ import annotations

import ast
import concurrent.futures as cf
import contextlib
import json
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import Any

from .._base.config import ConfigError
from .._base.registry import Experiment, Unit, UnitOutput
from ._errors import RunError, _Stop
from ._progress import _UnitBar, _reporting_to, _send_to, _unit_running
from ._store import _json_default
from ._watch import _Watchdog, call_watch

__all__ = ["BACKENDS", "RAY_PACKAGES", "RAY_CONNECT_SECONDS", "execute", "package_dirs",
           "ray_runtime_env", "check_workers", "check_ray_address"]

BACKENDS = ("local", "ray")
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_KILL_WAIT_S = 3.0


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
    with _unit_running(unit.index, threads):
        t0 = time.perf_counter()
        try:
            out = unit_fn(config, unit)
        finally:
            watch = call_watch()
            if watch is not None:
                watch.end()
    extra = None
    if isinstance(out, UnitOutput):
        out, extra = out.rows, dict(out.attachments)
    rows = json.loads(json.dumps(_rows_of(out), default=_json_default))
    res = {"rows": rows, "elapsed_s": time.perf_counter() - t0, "host": socket.gethostname()}
    if extra:
        res["attachments"] = json.loads(json.dumps(extra, default=_json_default))
    return res


def _worker_init(parent: int, progress=None, watchdog: _Watchdog | None = None) -> None:
    """Pool workers leave SIGINT/SIGTERM to the driver (which stops them) and, on
    Linux, die with it (a driver killed with SIGKILL leaves no orphans); ``progress``
    is the queue of :func:`unit_progress` reports (None: no bar). With a watchdog,
    each takes a slot of its shared memory (:func:`call_watch`)."""
    _send_to(progress)
    if watchdog is not None:
        watchdog.attach()
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
    if workers <= 1 and limit is None:
        with _reporting_to(bar.report if bar is not None else None):
            for u in todo:
                yield u, _execute(unit_fn, config, u, None)
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
        from spiel_game._extras import install_hint
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
        from spiel_game._extras import install_hint
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
