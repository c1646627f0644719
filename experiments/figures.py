"""The skeleton every figure script of ``paper/figures/`` shares.

A figure script is its drawing functions and one call::

    def draw(results: Path) -> dict[str, Figure]:      # reads saved results only
        rows = pd.read_csv(results / "rules_stats" / "summary.csv")
        ...
        return {"rules_stats": fig}                      # file name -> figure

    if __name__ == "__main__":
        raise SystemExit(figure_main(__file__, [Job(("rules_stats/summary.csv",), draw)]))

:func:`figure_main` takes the command line ``[RESULTS_DIR [OUT_DIR]]``
(default ``results/quick`` and the script's folder), and for each
:class:`Job` checks that the files it reads exist: when one is missing it
prints a warning naming it and the command that makes it, draws nothing and
goes on (exit status 0: the paper shows a placeholder). Otherwise it saves
every figure the job draws as ``OUT_DIR/<name>.pdf`` and ``.png``
(:func:`save`: 150 dpi, tight bounding box, no creation date in the PDF so
that equal results give equal files).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")                   # files only, no display

__all__ = ["Job", "figure_main", "save", "DEFAULT_RESULTS"]

#: The results folder a script reads when given none.
DEFAULT_RESULTS = Path("results/quick")


@dataclasses.dataclass(frozen=True)
class Job:
    """Figures drawn from some saved results.

    ``reads``: paths relative to the results folder that must exist;
    ``draw(results) -> {name: matplotlib Figure}``; ``hint``: the command that
    writes the results (default ``python -m experiments run <first folder>``)."""

    reads: Sequence[str]
    draw: Callable[[Path], Mapping[str, object]]
    hint: str | None = None

    def command(self) -> str:
        return self.hint or f"python -m experiments run {Path(self.reads[0]).parts[0]}"


def save(fig, out_dir: Path, name: str) -> list[Path]:
    """Write ``fig`` as ``out_dir/name.pdf`` and ``.png`` and close it."""
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("pdf", "png"):
        path = out_dir / f"{name}.{ext}"
        fig.savefig(path, dpi=150, bbox_inches="tight",
                    metadata={"CreationDate": None} if ext == "pdf" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def figure_main(script: str | Path, jobs: Sequence[Job], argv: Sequence[str] | None = None) -> int:
    """Run a figure script's jobs on ``argv = [RESULTS_DIR [OUT_DIR]]`` (default:
    ``sys.argv[1:]``); always returns 0 unless a drawing raises."""
    argv = sys.argv[1:] if argv is None else list(argv)
    results = Path(argv[0]) if argv else DEFAULT_RESULTS
    out_dir = Path(argv[1]) if len(argv) > 1 else Path(script).resolve().parent
    for job in jobs:
        missing = [p for p in job.reads if not (results / p).exists()]
        if missing:                     # the paper's contract: warn, write nothing, exit 0
            print(f"warning: {', '.join(str(results / p) for p in missing)} not found "
                  f"({job.command()}); no figure written")
            continue
        for name, fig in job.draw(results).items():
            print(f"wrote {save(fig, out_dir, name)[0]}")
    return 0
