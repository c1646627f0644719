"""The call watch: a worker process reports the call its unit is in (an agent's
move) through shared memory, and the driver's watchdog stops the run when one
stays open longer than the experiment's call time limit."""

from __future__ import annotations

import time

from ._errors import RunError

__all__ = ["CallWatch", "call_watch"]

_LABEL = 1024                   # bytes of a call's description in shared memory
_WATCH: CallWatch | None = None


class CallWatch:
    """A worker process's report of the call its unit is in, read by the driver.

    With a call time limit (:func:`experiments._base.registry.register`'s
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

    def attach(self) -> None:
        """In a worker process: take the next slot of the shared memory, the
        process's :func:`call_watch`."""
        global _WATCH
        with self.slots.get_lock():
            slot = self.slots.value
            self.slots.value += 1
        _WATCH = CallWatch(self.nums, self.text, slot)

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
