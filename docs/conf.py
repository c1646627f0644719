"""Sphinx configuration of the documentation site (``make docs``; the tests build
it with warnings as errors: tests/test_docs.py).

The API reference is generated at every build: :func:`write_api_pages` walks the
packages ``spiel_game``, ``solvers`` and ``experiments`` and writes one page per
public module (no component starting with ``_``) into ``api/_generated/``
(git-ignored, rewritten from scratch each build), so a module that is added,
moved or removed needs no edit here.
"""

from __future__ import annotations

import os
import pkgutil
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

#: The packages whose public modules get an API page.
PACKAGES = ("spiel_game", "solvers", "experiments")

project = "Cancellation Hearts"
author = "the Cancellation Hearts authors"
copyright = "the Cancellation Hearts authors; Apache-2.0"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon",
              "sphinx.ext.viewcode", "sphinx.ext.mathjax"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# RULES.md is shown through rules.md (an include).
exclude_patterns = ["_build", "RULES.md"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = "Cancellation Hearts"
html_static_path: list[str] = []

autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
    # A package's __all__ re-exports objects documented on their own module's
    # page; documenting each object once avoids duplicate descriptions.
    "ignore-module-all": True,
}
autodoc_member_order = "bysource"
# A method without a docstring of its own would otherwise show its base class's
# (OpenSpiel's Policy, Bot, ...), whose reStructuredText is not ours to fix.
autodoc_inherit_docstrings = False
autodoc_typehints = "description"
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = True


def is_public(name: str) -> bool:
    """Whether the module ``name`` (under :data:`PACKAGES`) gets an API page: no
    name component starts with ``_``, except a command line ``__main__`` that
    runs only under ``if __name__ == "__main__"`` (its docstring is the usage;
    one that runs when imported cannot be documented)."""
    parts = name.split(".")
    if any(p.startswith("_") for p in parts[:-1]):
        return False
    if parts[-1] == "__main__":
        source = (ROOT.joinpath(*parts[:-1]) / "__main__.py").read_text()
        return "if __name__ == \"__main__\":" in source
    return not parts[-1].startswith("_")


def public_modules() -> list[str]:
    """Every public module of :data:`PACKAGES` (:func:`is_public`), sorted."""
    names = list(PACKAGES)
    for pkg in PACKAGES:
        for info in pkgutil.walk_packages([str(ROOT / pkg)], prefix=pkg + "."):
            if is_public(info.name):
                names.append(info.name)
    return sorted(set(names))


def write_api_pages() -> None:
    """Write ``api/_generated/<module>.rst`` for every public module (``api.md``
    lists them with a glob per package)."""
    out = DOCS / "api" / "_generated"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    mods = public_modules()
    for m in mods:
        title = f"``{m}``"
        (out / f"{m}.rst").write_text(
            f"{title}\n{'=' * len(title)}\n\n.. automodule:: {m}\n")


write_api_pages()
