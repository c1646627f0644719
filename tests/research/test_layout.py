"""The research scripts stay outside the product: no module of the packages, the
paper's scripts, the notebooks or the examples imports one of them."""

from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "research" / "scripts"


def _imports(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def _sources():
    for folder in ("spiel_game", "solvers", "experiments", "paper", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, path.read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        yield path, "\n".join(ln for ln in code.splitlines()
                              if not ln.lstrip().startswith(("%", "!")))


def test_the_scripts_are_found():
    names = {p.stem for p in SCRIPTS.glob("*.py")}
    assert {"net_strength", "field_pair", "card_location"} <= names


def test_no_package_paper_script_notebook_or_example_imports_a_research_script():
    scripts = {p.stem for p in SCRIPTS.glob("*.py")} | {"research"}
    bad = {str(path.relative_to(ROOT)): sorted(_imports(src) & scripts)
           for path, src in _sources() if _imports(src) & scripts}
    assert not bad, f"research scripts imported outside research/ and tests/research: {bad}"


def test_the_check_finds_an_import():
    assert _imports("import net_strength\nfrom field_pair import main\n") == {
        "net_strength", "field_pair"}
