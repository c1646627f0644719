"""What a newcomer runs right after ``make reproduce``, in that order: the quick
profile of every experiment the documentation's snippets and the notebooks use,
then the Python snippets of the README and the docs pages that call
``experiments`` (each pasted into a script; ``docs_snippets``), then every
notebook top to bottom. None of them may disturb the profile's results (the
paper's inputs). The notebooks are stored without outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
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


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    """``CH_RESULTS`` as ``make reproduce`` leaves it: the quick profile of every
    experiment the README and the notebooks use, in ``<root>/quick/<name>/``."""
    from experiments import runner
    root = tmp_path_factory.mktemp("results")
    for name in used_experiments():
        runner.run(name, profile="quick", out=root / "quick", workers=1, progress=False,
                   verbose=False)
    return root, profile_results(root / "quick")


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
