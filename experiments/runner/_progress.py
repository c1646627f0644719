"""Progress of a run: the threads a unit may use, the fraction of its work a unit
reports (:func:`unit_progress`), and the driver's progress bar in units."""

from __future__ import annotations

import contextlib
import threading
import time

__all__ = ["unit_threads", "unit_progress"]

_UNIT_THREADS: int | None = None


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


@contextlib.contextmanager
def _unit_running(index: int, threads: int | None):
    """Unit ``index`` runs in this process with ``threads`` threads
    (:func:`unit_threads`) while in the block; its reports are sent from here."""
    global _UNIT_THREADS, _CURRENT_UNIT
    _UNIT_THREADS = threads
    _CURRENT_UNIT = index
    _LAST_SENT[:] = [-1.0, 0.0]
    try:
        yield
    finally:
        _CURRENT_UNIT = None


@contextlib.contextmanager
def _reporting_to(sink):
    """The driver runs units itself: their reports go to ``sink(unit index,
    fraction)`` (None: nowhere) while in the block."""
    global _PROGRESS_SINK
    _PROGRESS_SINK = sink
    try:
        yield
    finally:
        _PROGRESS_SINK = None


def _send_to(queue) -> None:
    """A local worker process sends its units' reports to the driver's ``queue``
    (None: no bar)."""
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue


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
