"""The code of the documentation: the pages of ``docs/`` and ``README.md``.

A page's runnable code is, in document order, its ```` ```python ```` blocks and
the Python files it shows with ``{literalinclude}``. Two kinds of block are not
run by :func:`page_script`:

* blocks that run or load a registered experiment (``experiments.run("NAME"``
  or ``experiments.load(...)``): they need the quick profile's results, so
  ``tests/experiments/test_notebooks.py`` runs them after a quick ``make reproduce``
  (:func:`experiment_blocks`);
* blocks whose first line is an opt-out marker with its reason,
  ``# not run by the tests: <reason>`` (:data:`OPT_OUT`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: A block that calls the experiment runner (run after the reproduce instead).
CALL = re.compile(r"""experiments\.(?:run|load)\(\s*["']([A-Za-z0-9_]+)["']""")
#: The opt-out marker: the block's first line, with a reason after the colon.
OPT_OUT = re.compile(r"#\s*not run by the tests:(.*)")
_FENCE = re.compile(r"^```(\{literalinclude\}\s+(\S+)|python)[ \t]*\n(.*?)^```[ \t]*$",
                    re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One piece of a page's code: a fenced block (``code``) or an included
    Python file (``include``, the path of the file)."""

    page: Path
    code: str = ""
    include: Path | None = None

    @property
    def opt_out(self) -> re.Match | None:
        first = self.code.lstrip("\n").split("\n", 1)[0]
        return OPT_OUT.fullmatch(first.strip())

    @property
    def calls_experiments(self) -> bool:
        return self.include is None and bool(CALL.search(self.code))


def pages() -> list[Path]:
    """README.md and every Markdown page of the site: the pages that the
    toctrees of ``docs/index.md`` list (Sphinx, run with ``-W``, fails on a
    page that no toctree lists)."""
    index = DOCS / "index.md"
    listed = []
    for tree in re.findall(r"^```\{toctree\}\n(.*?)^```", index.read_text(), re.S | re.M):
        listed += [line.strip() for line in tree.splitlines()
                   if line.strip() and not line.startswith(":")]
    return [ROOT / "README.md", index] + [DOCS / f"{name}.md" for name in listed
                                          if (DOCS / f"{name}.md").is_file()]


def blocks(page: Path) -> list[Block]:
    """The page's Python code in document order."""
    out = []
    for m in _FENCE.finditer(page.read_text()):
        if m.group(2):
            target = (page.parent / m.group(2)).resolve()
            if target.suffix == ".py":
                out.append(Block(page, include=target))
        else:
            out.append(Block(page, code=m.group(3)))
    return out


def experiment_blocks() -> list[str]:
    """Every block of every page that runs or loads an experiment."""
    return [b.code for p in pages() for b in blocks(p) if b.calls_experiments]


def page_script(page: Path) -> str:
    """The page's code as one script: its blocks in order (an included file is
    run with :func:`runpy.run_path` under a name other than ``__main__``, so a
    server it would start under ``__main__`` is only built)."""
    parts = []
    for b in blocks(page):
        if b.include is not None:
            parts.append(f"import runpy\nrunpy.run_path({str(b.include)!r}, "
                         f"run_name='docs_example')\n")
        elif not b.opt_out and not b.calls_experiments:
            parts.append(b.code)
    return "\n".join(parts)
