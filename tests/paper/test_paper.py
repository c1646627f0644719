"""The paper's figure and table scripts run on saved results (fixtures), and every
\\input and \\includegraphics of paper/main.tex then resolves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, paper_build

BUILD = paper_build()
paper_scripts, run_paper_scripts, references = (BUILD.paper_scripts, BUILD.run_paper_scripts,
                                                BUILD.references)

FIXTURES = ROOT / "tests" / "fixtures" / "results"
MAIN = (ROOT / "paper" / "main.tex").read_text()

#: Generated files main.tex includes whose experiments are still being built
#: (their inputs are guarded: \generatedfigure / \generatedtable print a
#: placeholder). Remove an entry when its experiment adds fixture results.
AWAITING = {
}


def copy_paper(dst: Path) -> Path:
    paper = dst / "paper"
    for sub in ("figures", "tables"):
        (paper / sub).mkdir(parents=True)
        for f in (ROOT / "paper" / sub).glob("*.py"):
            shutil.copy(f, paper / sub / f.name)
    shutil.copy(ROOT / "paper" / "main.tex", paper / "main.tex")
    shutil.copy(ROOT / "paper" / "refs.bib", paper / "refs.bib")
    shutil.copytree(ROOT / "paper" / "tools", paper / "tools",      # the scripts import it
                    ignore=shutil.ignore_patterns("__pycache__"))
    return paper


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    paper = copy_paper(tmp_path_factory.mktemp("paper"))
    scripts = [paper / s.relative_to(ROOT / "paper") for s in paper_scripts()]
    failed = run_paper_scripts(FIXTURES / "quick", scripts)
    assert not failed, f"scripts failed on the fixture results: {failed}"
    return paper


def test_every_input_and_graphic_of_main_tex_resolves(generated):
    refs = references(MAIN)
    assert {"tables/macros.tex", "tables/rules_stats.tex", "tables/performance.tex",
            "figures/rules_stats.pdf", "figures/passing_exploitability.pdf",
            "figures/passing_metagame.pdf", "figures/passing_exploitability_11.pdf",
            "figures/passing_metagame_11.pdf"} <= refs
    missing = sorted(r for r in refs if r not in AWAITING and not (generated / r).exists())
    assert not missing, f"main.tex includes files no script wrote: {missing}"
    for r in AWAITING:
        assert r in refs, f"{r} is no longer in main.tex: drop it from AWAITING"
    for name in ("rules_stats.pdf", "rules_stats.png"):
        assert (generated / "figures" / name).stat().st_size > 1000


def test_every_macro_is_defined_and_carries_a_number(generated):
    macros = (generated / "tables" / "macros.tex").read_text()
    names = re.findall(r"\\newcommand\{\\(\w+)\}", macros)
    assert len(names) == len(set(names)), "a macro defined twice"
    defined = set(names)
    local = set(re.findall(r"\\newcommand\{\\(\w+)\}", MAIN))
    used = set(re.findall(r"\\([A-Z]\w+)", MAIN)) - {"IfFileExists"}
    assert used <= defined | local, f"undefined macros: {sorted(used - defined - local)}"
    assert "??" not in macros, [ln for ln in macros.splitlines() if "??" in ln]
    assert "\\newcommand{\\RulesStatsHands}{300}" in macros
    assert "\\newcommand{\\DemoHands}{4}" in macros


def test_negative_numbers_in_table_rows_are_typeset_with_a_minus_sign(generated):
    """A ``...Rows`` macro (table body) never holds a hyphen for a minus sign."""
    macros = (generated / "tables" / "macros.tex").read_text()
    rows = re.findall(r"\\newcommand\{\\\w+Rows\}\{(.*?)\}  %", macros, re.S)
    assert rows, "no table-row macros"
    assert any("\\ensuremath{-}" in r for r in rows), "no negative number in any table row"
    hyphens = [ln for r in rows for ln in r.splitlines()
               if re.search(r"(?<![\w\\{}^-])-\.?\d", ln)]
    assert not hyphens, hyphens


def test_the_quick_pipeline_fills_every_number_and_every_box(generated):
    """What make reproduce builds from quick results (here the fixtures, benchmarks
    included): no generated .tex holds a ``??`` and main.tex shows no "missing:"
    placeholder (every \\generatedtable and \\generatedfigure has its file)."""
    question = {f.name: [ln for ln in f.read_text().splitlines() if "??" in ln]
                for f in (generated / "tables").glob("*.tex")}
    assert {"macros.tex", "rules_stats.tex", "performance.tex"} <= set(question)
    assert not any(question.values()), question
    boxes = sorted(r for r in references(MAIN) if not (generated / r).exists())
    assert not boxes, f"main.tex would show a placeholder for {boxes}"
    assert BUILD.missing_outputs(generated) == []           # what fails paper/tools/build.py


def test_the_shipped_paper_results_fill_every_number_and_every_box(tmp_path):
    """What make -C paper builds from paper/results/ (the paper profile)."""
    from experiments import _shipped as shipped
    paper = copy_paper(tmp_path)
    scripts = [paper / s.relative_to(ROOT / "paper") for s in paper_scripts()]
    assert not run_paper_scripts(shipped.SHIPPED, scripts)
    question = {f.name: [ln for ln in f.read_text().splitlines() if "??" in ln]
                for f in (paper / "tables").glob("*.tex")}
    assert {"macros.tex", "rules_stats.tex", "performance.tex"} <= set(question)
    assert not any(question.values()), question
    boxes = sorted(r for r in references(MAIN) if not (paper / r).exists())
    assert not boxes, f"main.tex would show a placeholder for {boxes}"
    assert BUILD.missing_outputs(paper) == []
    macros = (paper / "tables" / "macros.tex").read_text()
    assert "\\iftrue" not in macros
    assert "\\newif\\ifLadderEleven\\LadderEleventrue" in macros     # the paper ran 11 players


def test_the_performance_table_is_complete_with_one_ratio_direction(generated):
    table = (generated / "tables" / "performance.tex").read_text()
    body = [ln for ln in table.splitlines() if ln.endswith("\\\\") and " & " in ln]
    for figure in ("pyspiel API", "clone()", "compiled simulator", "information-state tensor",
                   "resampling hidden cards", "ISMCTS iterations", "CFR iteration",
                   "NashConv"):
        assert any(figure in ln.replace("\\", "") for ln in body), figure
    assert "times faster" in table and not re.search(r"\bratio\b", table)
    search = json.loads((FIXTURES / "quick" / "bench" / "search.json").read_text())["result"]
    ratio = search["speed"]["ratio_vs_openspiel_python"]
    assert any(ln.endswith(f"& {ratio:.0f} \\\\") or ln.endswith(f"& {ratio:.1f} \\\\")
               for ln in body if "Python" in ln and "ISMCTS" in ln)
    macros = (generated / "tables" / "macros.tex").read_text()
    assert re.search(r"\\newcommand\{\\BenchTools\}\{Python [0-9.]+, OpenSpiel [0-9.]+", macros)
    assert "\\BenchTools" in MAIN.split("label{tab:perf}")[0].rsplit("caption", 1)[1]


def test_missing_results_give_question_marks_that_the_build_lists(tmp_path):
    """No script fails on absent results; the build's check names every ``??``
    and every placeholder box (paper/tools/build.py fails on them by default)."""
    paper = copy_paper(tmp_path)
    scripts = [paper / s.relative_to(ROOT / "paper") for s in paper_scripts()]
    assert not run_paper_scripts(tmp_path / "no_results", scripts)
    macros = (paper / "tables" / "macros.tex").read_text()
    assert "\\newcommand{\\RulesStatsHands}{\\textbf{??}}" in macros
    assert not list((paper / "figures").glob("*.pdf"))
    gaps = BUILD.missing_outputs(paper)
    assert any("\\RulesStatsHands}" in g and g.startswith("tables/macros.tex") for g in gaps)
    assert "figures/rules_stats.pdf: main.tex includes it, no script wrote it" in gaps


def test_macro_formatters_and_missing_rows():
    """The paper's formatters (texmacros) and how a missing, a not-run
    and a flag macro read."""
    from texmacros import Macros, interval, names, pvalue, sci, seconds, signed, thousands
    assert signed(-0.001) == "0.00" and signed(-0.434) == "-0.43"
    assert interval(-0.004, 0.126) == "[0.00, 0.13]"
    assert sci(0.00127) == r"\ensuremath{1.3\times 10^{-3}}" and sci(0.0127) == "0.0127"
    assert sci(0) == "0" and sci(9.96e-5) == r"\ensuremath{1.0\times 10^{-4}}"
    assert pvalue(0.0113) == "0.011" and pvalue(3.2e-4) == r"\ensuremath{3\times 10^{-4}}"
    assert pvalue(0.0) == r"\ensuremath{<10^{-300}}"
    assert (seconds(352.0), seconds(3.74), seconds(0.0213)) == ("352", "3.7", "0.021")
    assert thousands(12376) == "12{,}376"
    assert names(["a_b", "c", "d"]) == r"\texttt{a\_b}, \texttt{c} and \texttt{d}"
    m = Macros()
    m.add("Rows", lambda: {}["missing"], str, "rows", rows=True)
    m.add("Ratio", lambda: 1 / 0, str, "a ratio")
    m.not_run("Eleven", "11 players")
    m.flag("Ran", lambda: {}["missing"], "a flag of missing results")
    m.flag("On", lambda: True, "a flag")
    assert m.lines == ["\\newcommand{\\Rows}{\\textbf{??} \\\\}  % rows",
                       "\\newcommand{\\Ratio}{\\textbf{??}}  % a ratio",
                       "\\newcommand{\\Eleven}{--}  % not run: 11 players",
                       "\\newif\\ifRan  % a flag of missing results",
                       "\\newif\\ifOn\\Ontrue  % a flag"]
    assert m.count == 3 and len(m.warnings) == 2 and m.warnings[0].startswith("\\Rows (rows)")


def test_rules_stats_table_matches_the_summary(generated):
    import pandas as pd
    table = (generated / "tables" / "rules_stats.tex").read_text()
    summary = pd.read_csv(FIXTURES / "quick" / "rules_stats" / "summary.csv")
    for _, r in summary.iterrows():
        line = next(ln for ln in table.splitlines() if ln.startswith(r.configuration + " &"))
        assert f"{r.seat_spread:.2f} $\\pm$ {r.ci95_max:.2f}" in line
        assert f"{r.void_tricks_per_hand:.3f}" in line


@pytest.mark.skipif(not (shutil.which("latexmk") or shutil.which("pdflatex")),
                    reason="no LaTeX here (apt-get install -y --no-install-recommends latexmk "
                           "texlive-latex-recommended texlive-fonts-recommended)")
def test_main_tex_builds(generated):
    cmd = (["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "main.tex"]
           if shutil.which("latexmk") else
           ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"])
    r = subprocess.run(cmd, cwd=generated, capture_output=True, text=True, errors="replace",
                       timeout=300)                 # TeX may print 8-bit font bytes
    assert r.returncode == 0, r.stdout[-3000:]
    assert (generated / "main.pdf").stat().st_size > 10000
    if cmd[0] == "latexmk":                   # it reruns until references settle
        log = (generated / "main.log").read_text(errors="replace")
        assert not re.search(r"(Reference|Citation) `[^']*' on page \d+ undefined", log)
        # the main text (up to its Conclusion) fits a venue's ten pages
        aux = (generated / "main.aux").read_text(errors="replace")
        found = re.search(r"\\newlabel\{sec:conclusion\}\{\{[^}]*\}\{(\d+)\}", aux)
        assert found, "main.tex has no \\label{sec:conclusion}"
        assert int(found.group(1)) <= 10, f"the Conclusion is on page {found.group(1)}"


def _font_subtypes(pdf: bytes) -> set[bytes]:
    """The ``/Subtype`` of every font dictionary of a PDF, read from its plain and
    its Flate-compressed streams (object streams included)."""
    import zlib
    parts = [pdf]
    for m in re.finditer(rb"stream\r?\n", pdf):
        end = pdf.find(b"endstream", m.end())
        try:
            parts.append(zlib.decompress(pdf[m.end():end]))
        except zlib.error:
            continue
    pat = rb"/Subtype\s*/(Type1C?|Type3|TrueType|Type0|CIDFontType[02]|MMType1)\b"
    return {f for p in parts for f in re.findall(pat, p)}


def test_the_font_reader_sees_a_compressed_type3_font():
    import zlib
    body = zlib.compress(b"<< /Type /Font /Subtype /Type3 /FontMatrix [1 0 0 1 0 0] >>")
    pdf = b"%PDF-1.5\n1 0 obj << /Length 9 >>\nstream\n" + body + b"\nendstream\nendobj\n"
    assert _font_subtypes(pdf) == {b"Type3"}


def test_the_release_pdf_has_no_type3_bitmap_fonts():
    """paper/cancellation-hearts.pdf (built from the shipped results): outline fonts
    only (Latin Modern in T1 and the figures' embedded fonts), no Type 3 bitmaps."""
    fonts = _font_subtypes((ROOT / "paper" / "cancellation-hearts.pdf").read_bytes())
    assert b"Type1" in fonts and b"Type3" not in fonts, fonts
