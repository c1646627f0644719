"""Command-line flags shared by ``python -m experiments`` and ``python -m
experiments.tournament``."""

from __future__ import annotations

import argparse

__all__ = ["add_rerun_args"]


def add_rerun_args(p: argparse.ArgumentParser, recompute_help: str) -> None:
    """Add the flags that say what a rerun does with saved results the runner cannot
    reuse as they are: ``--recompute-corrupt`` (damaged ones; ``recompute_help``
    says what happens to them) and ``--reuse-stale`` (those made by other code)."""
    p.add_argument("--recompute-corrupt", action="store_true", help=recompute_help)
    p.add_argument("--reuse-stale", action="store_true",
                   help="reuse saved units made by other code (this package, an agent's "
                        "module, a checkpoint); without it they are recomputed")
