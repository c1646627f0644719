"""Build the paper from saved results: figures, tables, macros, then ``paper/main.pdf``.

::

    python paper/tools/build.py RESULTS [--no-build] [--allow-missing]

``RESULTS`` is a results folder: ``results/<profile>`` (what ``python -m
experiments reproduce`` writes) or the shipped ``paper/results/``. The
build, from any working folder:

1. verifies the saved results the scripts read (shipped results against
   their ``SHA256SUMS``, :func:`experiments._shipped.verify`; a run's folders
   by their content hashes, :func:`experiments._reproduce.verify_results`);
   damaged results stop it here (exit 2), naming the files;
2. deletes the generated files (``paper/figures/*.pdf|png``,
   ``paper/tables/*.tex``: all git-ignored), so nothing stale survives;
3. runs every script of ``paper/figures/`` and ``paper/tables/`` as ``python
   SCRIPT RESULTS`` (each writes next to itself; ``paper/tables/macros.py``
   writes every number of the text, :mod:`texmacros`);
4. checks what they wrote: a ``??`` in a generated table (a number whose
   result is missing) or a figure or table that ``main.tex`` includes and no
   script wrote (a placeholder box) fails the build, unless
   ``--allow-missing`` (then each is a warning, for a paper built from
   partial results);
5. builds ``paper/main.pdf`` with ``latexmk`` (else ``pdflatex`` twice) unless
   ``--no-build``; without LaTeX it prints the command that installs it.
   A build from the shipped results is also copied to the committed
   ``paper/cancellation-hearts.pdf`` (no other build touches it), with
   ``SOURCE_DATE_EPOCH`` set to the time they were packed, so that the same
   bytes come out on every rebuild.

Each step prints its wall-clock and CPU seconds and a table of them ends the
output. The exit status is 0 when every step passed, 1 when a script failed,
a number or a file is missing, or LaTeX failed (all listed on one
``FAILED:`` line), 2 for damaged or absent results. ``make paper`` runs this
on ``results/$(PROFILE)``; ``make reproduce`` runs the experiments first.

A figure or table script takes the results folder as its one positional
argument, reads only saved results, writes its output next to itself
(``paper/figures/NAME.pdf`` and ``.png``, ``paper/tables/NAME.tex``) and, when
its results are missing, prints a warning and exits 0 (main.tex shows a
placeholder for an absent file, which step 4 reports).

This folder (``paper/tools/``) holds the paper's own tooling, outside the
installed packages: this build and the macro writers (:mod:`texmacros`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
PAPER = TOOLS.parent
ROOT = PAPER.parent
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

from experiments import _reproduce as reproduce, _shipped as shipped  # noqa: E402
from experiments._reproduce import StepTimer  # noqa: E402
from texmacros import MISSING  # noqa: E402

__all__ = ["LATEX_INSTALL", "RELEASE_PDF", "build_paper", "check_inputs", "clean_generated",
           "main", "missing_outputs", "paper_scripts", "references", "release_pdf",
           "run_paper_scripts", "source_date"]

LATEX_INSTALL = ("apt-get install -y --no-install-recommends latexmk "
                 "texlive-latex-recommended texlive-fonts-recommended lmodern")

#: The committed paper: ``paper/main.pdf`` built from the shipped paper-profile
#: results, copied here (``paper/main.pdf`` itself is whatever was built last).
RELEASE_PDF = PAPER / "cancellation-hearts.pdf"


def paper_scripts(paper: Path | None = None) -> list[Path]:
    """Every figure and table script (``paper/figures/*.py``, ``paper/tables/*.py``;
    ``paper`` default :data:`PAPER`)."""
    paper = paper or PAPER
    out = []
    for folder in ("figures", "tables"):
        out += sorted(p for p in (paper / folder).glob("*.py") if not p.name.startswith("_"))
    return out


def clean_generated(paper: Path | None = None) -> int:
    """Delete the generated figures and tables (``paper/figures/*.pdf|png``,
    ``paper/tables/*.tex``: all git-ignored), so that the paper shows only what
    the scripts make from the results at hand, never a stale file; how many."""
    paper = paper or PAPER
    n = 0
    for pattern in ("figures/*.pdf", "figures/*.png", "tables/*.tex"):
        for f in paper.glob(pattern):
            f.unlink()
            n += 1
    return n


def source_date(results: Path) -> dict[str, str]:
    """``SOURCE_DATE_EPOCH`` (and pdfTeX's ``FORCE_SOURCE_DATE``) for building from
    shipped results: the time they were packed, so that Matplotlib and pdfTeX write
    the same bytes on every rebuild; ``{}`` otherwise (or when the variable is set)."""
    if "SOURCE_DATE_EPOCH" in os.environ or not shipped.is_shipped(results):
        return {}
    packed = json.loads((results / "shipped.json").read_text())["packed"]
    return {"SOURCE_DATE_EPOCH": str(int(dt.datetime.fromisoformat(packed).timestamp())),
            "FORCE_SOURCE_DATE": "1"}


def run_paper_scripts(results: Path, scripts=None) -> list[str]:
    """Run each script (default :func:`paper_scripts`) as ``python SCRIPT RESULTS``
    from the repository root; the names of those that failed."""
    results = Path(results).resolve()
    failed = []
    env = {**os.environ, **source_date(results)}
    for script in scripts if scripts is not None else paper_scripts():
        rel = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
        print(f"--- {rel}", flush=True)
        rc = subprocess.run([sys.executable, str(script), str(results)], cwd=ROOT,
                            env=env).returncode
        if rc != 0:
            failed.append(str(rel))
    return failed


def references(tex: str) -> set[str]:
    """Every file ``tex`` (main.tex) reads: ``\\input``, ``\\includegraphics``,
    ``\\generatedtable`` and ``\\generatedfigure`` (relative to ``paper/``)."""
    body = "\n".join(line.split("%")[0] for line in tex.splitlines())
    refs = set(re.findall(r"\\input\{([^}#]+)\}", body))
    refs |= set(re.findall(r"\\includegraphics(?:\[[^\]]*\])?\{([^}#]+)\}", body))
    refs |= {f"tables/{x}.tex" for x in re.findall(r"\\generatedtable\{([^}#]+)\}", body)}
    refs |= {f"figures/{x}.pdf"
             for x in re.findall(r"\\generatedfigure(?:\[[^\]]*\])?\{([^}#]+)\}", body)}
    return refs


def missing_outputs(paper: Path | None = None) -> list[str]:
    """What the generated files of ``paper`` lack: every line of
    ``tables/*.tex`` that holds a missing number (``??``, :data:`texmacros.MISSING`),
    and every file ``main.tex`` includes that no script wrote (the paper would
    show a placeholder box); ``[]`` when the paper is complete."""
    paper = paper or PAPER
    out = []
    for f in sorted((paper / "tables").glob("*.tex")):
        for line in f.read_text().splitlines():
            if MISSING in line or "??" in line:
                out.append(f"tables/{f.name}: {line.strip()}")
    tex = (paper / "main.tex").read_text()
    out += [f"{r}: main.tex includes it, no script wrote it"
            for r in sorted(references(tex)) if not (paper / r).exists()]
    return out


def release_pdf(results: Path | None) -> Path | None:
    """:data:`RELEASE_PDF` when ``results`` are the shipped ones (the build is
    the committed paper), else None: a quick or private run never replaces it."""
    return RELEASE_PDF if results is not None and shipped.is_shipped(Path(results)) else None


def build_paper(results: Path | None = None) -> str:
    """Build ``paper/main.pdf`` (with :func:`source_date` of ``results``) and, from
    the shipped results, copy it to :data:`RELEASE_PDF`; returns 'built', 'failed'
    or 'no latex'."""
    env = {**os.environ, **(source_date(results) if results is not None else {})}
    if shutil.which("latexmk"):
        cmd = [["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "main.tex"]]
    elif shutil.which("pdflatex"):
        one = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"]
        cmd = [one, one]
    else:
        print("LaTeX is not installed, so paper/main.pdf was not built. Install it with\n"
              f"    {LATEX_INSTALL}\n(as root, Debian/Ubuntu; make latex does it) and run "
              "the build again.")
        return "no latex"
    for c in cmd:
        # TeX's output may hold bytes of 8-bit font encodings: read it leniently
        r = subprocess.run(c, cwd=PAPER, capture_output=True, text=True, errors="replace",
                           env=env)
        if r.returncode != 0:
            print(r.stdout[-3000:])
            print(f"building paper/main.pdf failed ({' '.join(c)}); see paper/main.log")
            return "failed"
    print(f"built {PAPER / 'main.pdf'} from {results}")
    dst = release_pdf(results)
    if dst is not None:
        shutil.copyfile(PAPER / "main.pdf", dst)
        print(f"copied to {dst} (the committed paper-profile PDF)")
    return "built"


def check_inputs(results: Path) -> bool:
    """Print what verifying ``results`` finds
    (:func:`experiments._reproduce.check_inputs`); False when they are absent or
    damaged."""
    if not results.is_dir():
        print(f"error: no results folder {results} (python -m experiments reproduce "
              f"--out {results} writes one)", file=sys.stderr)
        return False
    return reproduce.check_inputs(results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python paper/tools/build.py",
                                 description="Regenerate the paper's figures, tables and "
                                             "macros from saved results; build main.pdf.")
    ap.add_argument("results", help="results folder: results/<profile>, or paper/results "
                                    "(the shipped paper-profile results)")
    ap.add_argument("--no-build", action="store_true", help="do not build paper/main.pdf")
    ap.add_argument("--allow-missing", action="store_true",
                    help="a missing number (??) or figure is a warning, not a failure")
    args = ap.parse_args(argv)
    results = Path(args.results).resolve()
    timer = StepTimer()
    print(f"=== building the paper from {results}", flush=True)
    if not check_inputs(results):
        return 2
    clean_generated()
    with timer.step("paper figures and tables"):
        failed = [f"script {s}" for s in run_paper_scripts(results)]
    gaps = missing_outputs()
    for gap in gaps:
        print(f"{'warning' if args.allow_missing else 'error'}: missing: {gap}",
              file=sys.stderr)
    if gaps and not args.allow_missing:
        failed.append(f"{len(gaps)} missing numbers or files (--allow-missing accepts them)")
    if not args.no_build:
        with timer.step("paper/main.pdf (LaTeX)"):
            if build_paper(results) == "failed":
                failed.append("paper build")
    print(timer.report())
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
