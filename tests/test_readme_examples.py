"""The README's code examples are the files in ``examples/`` that the tests run
(test_envs, test_tournament_records, test_play): each file, without its module
docstring, is one ``python`` code block of the README, character for character."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The README examples and the test file that executes each.
EXAMPLES = {"pettingzoo_example.py": "test_envs.py", "gymnasium_example.py": "test_envs.py",
            "records_example.py": "test_tournament_records.py",
            "play_app_example.py": "test_play.py"}


def _blocks(text: str) -> list[str]:
    return [b.rstrip("\n") for b in re.findall(r"```python\n(.*?)```", text, re.S)]


def _body(path: Path) -> str:
    """The file without its module docstring."""
    text = path.read_text()
    doc = ast.parse(text).body[0]
    if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
        text = "\n".join(text.splitlines()[doc.end_lineno:])
    return text.strip("\n")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_readme_shows_the_example_file_that_a_test_runs(name):
    assert _body(ROOT / "examples" / name) in _blocks((ROOT / "README.md").read_text()), (
        f"README.md has no python block equal to examples/{name}: copy the file (without "
        f"its docstring) into the README")
    assert f'"{name}"' in (ROOT / "tests" / EXAMPLES[name]).read_text()


def test_a_changed_example_is_caught(tmp_path):
    """The check compares whole blocks: one changed character is a mismatch."""
    name = "gymnasium_example.py"
    changed = (ROOT / "examples" / name).read_text().replace("seat=0", "seat=1")
    (tmp_path / name).write_text(changed)
    assert _body(tmp_path / name) not in _blocks((ROOT / "README.md").read_text())
