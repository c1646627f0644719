"""paper/tools/build.py: the exit status says whether the paper is complete.

A stand-in paper folder (a script that succeeds, one that fails, a main.tex
that includes a table) shows each reason the build fails, and that
``--allow-missing`` turns only the missing numbers and files into warnings.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, paper_build

BUILD = paper_build()


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))


@pytest.fixture
def paper(tmp_path, monkeypatch):
    """A paper folder with one table script that writes ``tables/numbers.tex``
    (a ``??`` when ``RESULTS/value.txt`` is absent) and a main.tex that includes
    it and a figure no script draws when ``RESULTS/figure`` is absent."""
    paper = tmp_path / "paper"
    _script(paper / "tables" / "numbers.py", """
        import sys
        from pathlib import Path
        results = Path(sys.argv[1])
        value = (results / "value.txt").read_text().strip() \\
            if (results / "value.txt").exists() else r"\\textbf{??}"
        (Path(__file__).parent / "numbers.tex").write_text(
            "\\\\newcommand{\\\\Value}{" + value + "}\\n")
        """)
    _script(paper / "figures" / "plot.py", """
        import sys
        from pathlib import Path
        if (Path(sys.argv[1]) / "figure").exists():
            (Path(__file__).parent / "plot.pdf").write_bytes(b"%PDF")
        """)
    (paper / "main.tex").write_text("\\input{tables/numbers.tex}\n"
                                    "\\generatedfigure{plot}\n")
    (paper / "tables" / "stale.tex").write_text("old\n")       # cleaned before the scripts
    monkeypatch.setattr(BUILD, "PAPER", paper)
    return paper


def test_complete_results_build_with_status_zero(paper, tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "value.txt").write_text("42")
    (results / "figure").mkdir()
    assert BUILD.main([str(results), "--no-build"]) == 0
    assert (paper / "tables" / "numbers.tex").read_text() == "\\newcommand{\\Value}{42}\n"
    assert not (paper / "tables" / "stale.tex").exists()
    assert "paper figures and tables" in capsys.readouterr().out     # the timing table


def test_a_missing_number_or_figure_fails_unless_allowed(paper, tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    assert BUILD.main([str(results), "--no-build"]) == 1
    err = capsys.readouterr().err
    assert "error: missing: tables/numbers.tex: \\newcommand{\\Value}{\\textbf{??}}" in err
    assert "error: missing: figures/plot.pdf: main.tex includes it, no script wrote it" in err
    assert "FAILED: 2 missing numbers or files" in err
    assert BUILD.main([str(results), "--no-build", "--allow-missing"]) == 0
    assert "warning: missing: figures/plot.pdf" in capsys.readouterr().err


def test_a_failing_script_fails_the_build_even_when_missing_is_allowed(paper, tmp_path,
                                                                       capsys):
    _script(paper / "figures" / "broken.py", """
        raise ValueError("the legend covers data")
        """)
    results = tmp_path / "results"
    results.mkdir()
    assert BUILD.main([str(results), "--no-build", "--allow-missing"]) == 1
    captured = capsys.readouterr()
    assert "FAILED: script " in captured.err and "broken.py" in captured.err


def test_absent_results_stop_before_any_script(paper, tmp_path, capsys):
    assert BUILD.main([str(tmp_path / "nowhere"), "--no-build"]) == 2
    assert "no results folder" in capsys.readouterr().err
    assert (paper / "tables" / "stale.tex").exists()              # nothing was touched


def test_the_script_runs_from_any_folder(tmp_path):
    """``python paper/tools/build.py RESULTS`` from another working folder: its
    imports resolve (paper/tools on sys.path) and absent results are refused."""
    r = subprocess.run([sys.executable, str(ROOT / "paper" / "tools" / "build.py"),
                        "nowhere", "--no-build"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"no results folder {tmp_path / 'nowhere'}" in r.stderr
