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
:data:`TEXT_WIDTH`, that holds visible text smaller than :data:`MIN_FONT_PT`
(superscripts and subscripts of math text included: they print at 70% of
their font size), or whose legend covers data (:func:`check_legends`): a
ValueError naming the text or the legend, so what the PDF prints is what was
checked. Log axes get plain-text tick labels (``0.01``, ``1e-5``: :func:`plain_log_ticks`)
instead of matplotlib's ``10^{-2}``, whose exponents print below the minimum.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

from spiel_game._extras import require

matplotlib = require("matplotlib", "paper", "the paper's figures (experiments._figures)")
matplotlib.use("Agg")                   # files only, no display

__all__ = ["Job", "figure_main", "save", "DEFAULT_RESULTS", "COLUMN_WIDTH", "TEXT_WIDTH",
           "MIN_FONT_PT", "STYLE", "apply_style", "check_print_size", "check_legends",
           "plain_log_ticks", "legend_outside", "COLORS"]

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
         "figure.figsize": (COLUMN_WIDTH, 2.4),
         # embed whole (Type 42) outline fonts, not matplotlib's default Type 3
         "pdf.fonttype": 42, "ps.fonttype": 42}


def legend_outside(fig, axes, *, ncols: int | None = None, title: str | None = None):
    """One legend for ``fig`` below its panels, outside every axes, with the
    labelled artists of ``axes`` (each label once, in order of appearance).

    A legend placed there cannot cover data whatever the data are, so
    :func:`check_legends` holds by construction; the figure must use
    ``layout="constrained"`` (matplotlib makes room for an ``outside`` legend).
    Returns the legend, or None when no artist is labelled."""
    handles: dict = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    if not handles:
        return None
    return fig.legend(list(handles.values()), list(handles.keys()), loc="outside lower center",
                      ncols=ncols or min(len(handles), 3), title=title)


def apply_style() -> None:
    """Set :data:`STYLE` and the :data:`COLORS` cycle in matplotlib's rcParams."""
    from cycler import cycler

    matplotlib.rcParams.update(STYLE)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(COLORS))


#: Math text prints superscripts and subscripts at this fraction of the font size
#: (matplotlib's mathtext shrink factor).
SCRIPT_SHRINK = 0.7


def _printed_size(text) -> float:
    """The smallest size, in points, at which a Text artist prints its characters."""
    size = text.get_fontsize()
    s = text.get_text()
    math = s.split("$")[1::2] if s.count("$") >= 2 else []
    if any("^" in m or "_" in m for m in math):
        size *= SCRIPT_SHRINK
    return size


def check_print_size(fig, name: str = "figure") -> None:
    """Raise ValueError when ``fig`` is wider than :data:`TEXT_WIDTH` inches or shows
    text (tick labels included) smaller than :data:`MIN_FONT_PT` points at print
    size (the paper prints it unscaled)."""
    from matplotlib.text import Text

    width = fig.get_size_inches()[0]
    if width > TEXT_WIDTH + 1e-6:
        raise ValueError(f"{name}: {width:.2f} in wide; the paper prints at most "
                         f"{TEXT_WIDTH} in (TEXT_WIDTH)")
    fig.canvas.draw()                   # tick labels get their text when drawn
    small = sorted({(t.get_text(), round(_printed_size(t), 2)) for t in fig.findobj(Text)
                    if t.get_visible() and t.get_text().strip()
                    and _printed_size(t) < MIN_FONT_PT - 1e-6})
    if small:
        raise ValueError(f"{name}: text below {MIN_FONT_PT} pt at print size: {small[:5]}")


def check_legends(fig, name: str = "figure") -> None:
    """Raise ValueError when two legends overlap, or a legend drawn inside an
    axes covers its data: a line, marker, error bar, bar or shaded band of
    that axes drawn in data coordinates (reference lines such as ``axhline``
    may pass under a legend)."""
    from matplotlib.collections import Collection

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    boxes = [lg.get_window_extent(renderer) for lg in legends
             if lg is not None and lg.get_visible()]
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            if boxes[a].overlaps(boxes[b]):
                raise ValueError(f"{name}: two legends overlap; give each its own place")
    for i, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        if not box.overlaps(ax.get_window_extent(renderer)):
            continue                    # placed outside the axes
        covered = []
        for line in ax.lines:
            if not line.get_visible() or line.get_transform() != ax.transData:
                continue
            path = line.get_transform().transform_path(line.get_path())
            if line.get_linestyle() in ("None", "", " ", "none"):
                hit = any(box.contains(x, y) for x, y in path.vertices)
            else:
                hit = path.intersects_bbox(box, filled=False)
            if hit:
                covered.append(line.get_label())
        for artist in [*ax.collections, *ax.patches]:
            if not artist.get_visible():
                continue
            if isinstance(artist, Collection):
                t = artist.get_transform()
                paths = [t.transform_path(p) for p in artist.get_paths()]
            else:
                paths = [artist.get_transform().transform_path(artist.get_path())]
            if any(p.intersects_bbox(box, filled=True) for p in paths):
                label = artist.get_label()
                covered.append(type(artist).__name__ if label.startswith("_") else label)
        if covered:
            title = ax.get_title() or f"axes {i}"
            raise ValueError(f"{name}: the legend of {title!r} covers data "
                             f"({', '.join(sorted(set(covered)))[:200]}); place it where "
                             f"no data is drawn, e.g. outside the axes")


def plain_log_ticks(fig) -> None:
    """Give every log axis of ``fig`` plain-text tick labels at the full font
    size (``0.001``, ``10``, ``1e-5``, ``1e6``) instead of ``10^{n}`` math text."""
    from matplotlib.ticker import LogFormatter, LogFormatterSciNotation

    class PlainLogFormatter(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            if x == 0:
                return "0"
            if 1e-4 <= abs(x) < 1e5:
                return f"{x:g}"
            mantissa, exponent = f"{x:.0e}".split("e")
            return f"{mantissa}e{int(exponent)}"

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            if isinstance(axis.get_major_formatter(), LogFormatterSciNotation):
                axis.set_major_formatter(PlainLogFormatter(axis._scale.base))
            minor = axis.get_minor_formatter()
            if isinstance(minor, LogFormatterSciNotation):
                axis.set_minor_formatter(PlainLogFormatter(axis._scale.base,
                                                           labelOnlyBase=minor.labelOnlyBase))


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
    """Write ``fig`` as ``out_dir/name.pdf`` and ``.png`` and close it, after
    :func:`plain_log_ticks`, :func:`check_print_size` and :func:`check_legends`."""
    import matplotlib.pyplot as plt

    plain_log_ticks(fig)
    check_print_size(fig, name)
    check_legends(fig, name)
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
