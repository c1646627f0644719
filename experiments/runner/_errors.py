"""The runner's errors: a run that cannot start or finish, saved results that fail
verification or are not there, and a run stopped by a signal."""

from __future__ import annotations

from pathlib import Path

__all__ = ["RunError", "CorruptResultError", "UnverifiedResultError", "ResultsNotFoundError",
           "RunInterrupted"]


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
