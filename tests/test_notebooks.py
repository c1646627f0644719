"""Every notebook runs top to bottom (quick profile) and is stored without outputs."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT

nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[dev]' (nbformat)")
nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[dev]' (nbclient)")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom(path, tmp_path, monkeypatch):
    monkeypatch.setenv("CH_PROFILE", "quick")
    monkeypatch.setenv("CH_RESULTS", str(tmp_path / "results"))   # keep results/ untouched
    monkeypatch.delenv("MPLBACKEND", raising=False)                 # the inline backend
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
