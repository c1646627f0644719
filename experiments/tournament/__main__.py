"""``python -m experiments.tournament``: :func:`experiments.tournament._cli.main`."""

from ._cli import main

if __name__ == "__main__":          # spawned worker processes import this module again
    raise SystemExit(main())
