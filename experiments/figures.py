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

**Print size.** The paper includes every figure unscaled, so a figure is drawn
at the width it is printed: :data:`COLUMN_WIDTH` (one column of the
two-column main text) or :data:`TEXT_WIDTH` (both columns, or the
single-column appendix), in inches. :func:`figure_main` sets the paper's
style (:data:`STYLE`: every font :data:`MIN_FONT_PT` points or larger) before
drawing, and :func:`save` refuses a figure whose saved width exceeds
:data:`TEXT_WIDTH` or that holds visible text smaller than
:data:`MIN_FONT_PT` (ValueError naming the text), so what the PDF prints is
what was checked.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")                   # files only, no display

__all__ = ["Job", "figure_main", "save", "DEFAULT_RESULTS", "COLUMN_WIDTH", "TEXT_WIDTH",
           "MIN_FONT_PT", "STYLE", "apply_style", "check_print_size", "COLORS"]

#: The results folder a script reads when given none.
DEFAULT_RESULTS = Path("results/quick")

#: Printed widths in inches: one column of the main text's two (84 mm), and the
#: text width (174 mm: A4 with 18 mm margins, as paper/main.tex sets them).
COLUMN_WIDTH = 3.3
TEXT_WIDTH = 6.85
#: The smallest font size, in points at print size.
MIN_FONT_PT = 8.0
#: Distinct colours (the colour-blind-safe Okabe-Ito palette), in order of use.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
          "#000000")
#: The paper's matplotlib style: fonts of at least MIN_FONT_PT, thin lines, distinct colours.
STYLE = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 8,
         "ytick.labelsize": 8, "legend.fontsize": 8, "figure.titlesize": 9,
         "legend.title_fontsize": 8, "lines.linewidth": 1.2, "lines.markersize": 4,
         "axes.linewidth": 0.6, "legend.frameon": False, "savefig.pad_inches": 0.02,
         "figure.figsize": (COLUMN_WIDTH, 2.4)}


def apply_style() -> None:
    """Set :data:`STYLE` and the :data:`COLORS` cycle in matplotlib's rcParams."""
    from cycler import cycler

    matplotlib.rcParams.update(STYLE)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(COLORS))


def check_print_size(fig, name: str = "figure") -> None:
    """Raise ValueError when ``fig`` is wider than :data:`TEXT_WIDTH` inches or shows
    text smaller than :data:`MIN_FONT_PT` points (the paper prints it unscaled)."""
    from matplotlib.text import Text

    width = fig.get_size_inches()[0]
    if width > TEXT_WIDTH + 1e-6:
        raise ValueError(f"{name}: {width:.2f} in wide; the paper prints at most "
                         f"{TEXT_WIDTH} in (TEXT_WIDTH)")
    small = sorted({(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text)
                    if t.get_visible() and t.get_text().strip()
                    and t.get_fontsize() < MIN_FONT_PT - 1e-6})
    if small:
        raise ValueError(f"{name}: text below {MIN_FONT_PT} pt at print size: {small[:5]}")


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

    check_print_size(fig, name)
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
    apply_style()
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
