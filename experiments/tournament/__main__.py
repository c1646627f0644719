"""``python -m experiments.tournament``: :func:`experiments.tournament.cli.main`."""

from .cli import main

if __name__ == "__main__":          # spawned worker processes import this module again
    raise SystemExit(main())
