"""The README's main command as a newcomer runs it, then what they run next, in
that order: the whole quick ``make reproduce`` (every experiment and benchmark,
every figure and table script, the PDF) in a copy of the checkout's Makefile
and paper sources, then the Python snippets of the README and the docs pages
that call ``experiments`` (each pasted into a script; ``docs_snippets``), then
every notebook top to bottom, on the results the reproduce wrote (computed
once). None of them may disturb the profile's results (the paper's inputs).
The notebooks are stored without outputs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, paper_build
from docs_snippets import CALL, experiment_blocks

nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[dev]' (nbformat)")
nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[dev]' (nbclient)")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def readme_snippets() -> list[str]:
    """The ```python blocks of the README and the docs pages that run or load
    experiments (the other blocks run in tests/test_docs.py)."""
    return experiment_blocks()


def used_experiments() -> list[str]:
    """Every experiment the README snippets and the notebooks run or load."""
    text = "".join(readme_snippets()) + "".join(p.read_text() for p in NOTEBOOKS)
    return sorted(set(CALL.findall(text.replace('\\"', '"'))))


def profile_results(quick) -> dict[str, bytes]:
    """The files the paper is built from: every profile folder's shards and tables."""
    return {p.relative_to(quick).as_posix(): p.read_bytes()
            for name in used_experiments() for p in sorted((quick / name).rglob("*"))
            if p.is_file() and (p.parent.name == "shards" or p.suffix in (".csv", ".txt"))}


def make_reproduce_tree(dst: Path) -> Path:
    """What ``make reproduce`` reads besides the installed packages, copied from
    the checkout: the Makefile, the files its environment stamp depends on, and
    the paper's sources and tooling (not its generated files, not the shipped
    results). The packages are imported from the checkout itself (``PYTHONPATH``),
    so their compiled kernels are not compiled again."""
    tracked = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True)
    names = (tracked.stdout.split() if tracked.returncode == 0 else
             [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()])
    wanted = [n for n in names
              if n in ("Makefile", "pyproject.toml", "requirements.lock")
              or (n.startswith("paper/") and not n.startswith("paper/results/")
                  and n != "paper/cancellation-hearts.pdf" and "__pycache__" not in n)]
    for n in wanted:
        (dst / n).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / n, dst / n)
    return dst


@pytest.fixture(scope="module")
def make_reproduce(tmp_path_factory):
    """``make reproduce`` (quick profile) run as the README says, in a copy of the
    checkout (:func:`make_reproduce_tree`), with this test's Python as the
    environment's (``-o`` the stamp: the environment is the one running the
    tests). Returns the copy, the completed process and its output."""
    tree = make_reproduce_tree(tmp_path_factory.mktemp("checkout"))
    env = {k: v for k, v in os.environ.items() if k not in ("CH_RESULTS", "CH_PROFILE")}
    env.update(PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    r = subprocess.run(["make", "-o", ".venv/.installed", "reproduce", f"PY={sys.executable}"],
                       cwd=tree, env=env, capture_output=True, text=True, errors="replace",
                       timeout=2400)
    output = r.stdout + r.stderr
    (tree / "make_reproduce.log").write_text(output)
    return tree, r, output


@pytest.fixture(scope="module")
def reproduced(make_reproduce):
    """``CH_RESULTS`` as ``make reproduce`` leaves it (``<root>/quick/<name>/``),
    plus the quick profile of the experiments the README and the notebooks use
    that ``make reproduce`` does not run, and the results they read, as bytes."""
    from experiments import runner
    from experiments._base import registry
    tree, _, _ = make_reproduce
    root = tree / "results"
    for name in used_experiments():          # those make reproduce does not run
        if not registry.experiments()[name].reproduce:
            runner.run(name, profile="quick", out=root / "quick", workers=1, progress=False,
                       verbose=False)
    return root, profile_results(root / "quick")


def test_make_reproduce_runs_every_step_and_builds_the_paper(make_reproduce):
    """The README's main command, end to end: exit status 0, every experiment of
    the profile has its results, every figure and table script ran, no number is
    missing (``??``), no included file is missing, and the PDF is built."""
    from experiments._base import registry
    tree, r, output = make_reproduce
    assert r.returncode == 0, f"make reproduce failed (exit {r.returncode}):\n{output[-6000:]}"
    assert "FAILED" not in output, output[-6000:]
    quick = tree / "results" / "quick"
    for name, exp in registry.experiments().items():
        if exp.reproduce:
            assert any((quick / name).rglob("*.csv")), f"{name}: no results in {quick / name}"
    paper = tree / "paper"
    assert paper_build().missing_outputs(paper) == []     # no ??, every \\input and graphic
    tables = {t.name for t in (paper / "tables").glob("*.tex")}
    assert {"macros.tex", "performance.tex", "rules_stats.tex"} <= tables
    if shutil.which("latexmk") or os.environ.get("CI"):
        pdf = paper / "main.pdf"
        assert pdf.is_file() and pdf.read_bytes().startswith(b"%PDF"), "no paper/main.pdf"
        assert pdf.stat().st_mtime > (tree / "Makefile").stat().st_mtime   # built by this run


@pytest.fixture(scope="module")
def readme_ran(reproduced, tmp_path_factory):
    """Each README snippet pasted into a script and run, after the reproduce."""
    root, before = reproduced
    env = {**os.environ, "CH_RESULTS": str(root),
           "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    runs = []
    for i, code in enumerate(readme_snippets()):
        script = tmp_path_factory.mktemp("snippet") / f"readme_snippet_{i}.py"
        script.write_text(code)
        runs.append((code, subprocess.run([sys.executable, str(script)], cwd=script.parent,
                                          env=env, capture_output=True, text=True,
                                          timeout=600)))
    return runs


def test_the_notebooks_exist():
    names = [p.name for p in NOTEBOOKS]
    assert "01_play_and_inspect_a_hand.ipynb" in names
    listed = (ROOT / "notebooks" / "README.md").read_text()
    for name in names:
        assert name in listed, f"{name} is not described in notebooks/README.md"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_are_stripped_in_git(path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} has a count"
    assert "widgets" not in nb.get("metadata", {}), f"{path.name} stores widget state"


def test_readme_snippets_run_after_a_quick_reproduce(reproduced, readme_ran):
    root, before = reproduced
    assert readme_ran, "no README snippet calls experiments.run/load"
    assert {"demo", "passing_metagame", "rules_stats"} <= set(used_experiments())
    for code, r in readme_ran:
        assert r.returncode == 0, f"README snippet failed:\n{code}\n{r.stderr[-3000:]}"
    assert profile_results(root / "quick") == before, "a README snippet changed the " \
                                                      "profile's results"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom_after_the_reproduce_and_the_readme(path, reproduced, readme_ran,
                                                               monkeypatch):
    from experiments import runner
    root, before = reproduced
    monkeypatch.setenv("CH_PROFILE", "quick")
    monkeypatch.setenv("CH_RESULTS", str(root))       # the reproduced results, not results/
    monkeypatch.delenv("MPLBACKEND", raising=False)    # the inline backend
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()          # raises CellExecutionError, naming the cell, on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    kinds = {k for o in outputs for k in o.get("data", {})}
    assert "text/html" in kinds, "nothing was rendered"
    if "plt." in "".join(c.source for c in nb.cells):
        assert "image/png" in kinds, "a figure was drawn but not shown"
    assert profile_results(root / "quick") == before, f"{path.name} changed the profile's " \
                                                      f"results"
    for name in used_experiments():                    # still whole and verified
        runner.load(name, "quick", out=root / "quick")
