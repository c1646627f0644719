"""Sphinx configuration of the documentation site (``make docs``; the tests build
it with warnings as errors: tests/test_docs.py).

The API reference is generated at every build into ``api/_generated/``
(git-ignored, rewritten from scratch each build) by :func:`write_api_pages`:

* one page per package of :data:`API_PACKAGES`, documenting exactly the names
  of that package's ``__init__`` ``__all__`` (the stable, public surface);
* one page ``modules`` with the modules and objects outside that surface that
  the guide pages cite (``{mod}`...```, ``{func}`...```, ...), so that every
  cross-reference resolves; its heading says they are internal.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

#: The packages whose ``__all__`` is the documented API, in the order the data
#: flows: the game, then the solvers, then the experiments.
API_PACKAGES = ("spiel_game", "solvers", "solvers.cfr", "solvers.beliefs", "experiments",
                "experiments.runner", "experiments.tournament", "experiments.envs",
                "experiments.play")

#: The title of the page of internal modules the guide pages cite.
MODULES_TITLE = "Internal modules cited by the guide (not the stable API)"

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
    "undoc-members": False,
    "show-inheritance": True,
}
autodoc_member_order = "bysource"
# A method without a docstring of its own would otherwise show its base class's
# (OpenSpiel's Policy, Bot, ...), whose reStructuredText is not ours to fix.
autodoc_inherit_docstrings = False
autodoc_typehints = "description"
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = True


#: A Python cross-reference of a Markdown page: ``{func}`~a.b``` or ``{func}`text <a.b>```.
_ROLE = re.compile(r"\{(?:py:)?(mod|func|class|data|meth|attr|exc|obj)\}`([^`]+)`")


def _target(text: str) -> str:
    """The object a role's text names (``~``, ``()`` and a link text removed)."""
    m = re.search(r"<([^>]+)>\s*$", text)
    return (m.group(1) if m else text).strip().lstrip("~").removesuffix("()")


def _is_module(name: str) -> bool:
    """Whether ``name`` is an importable module."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def cited() -> dict[str, set[str]]:
    """``{module: names}``: what the guide pages (``docs/*.md``) cite outside
    :data:`API_PACKAGES`' ``__all__`` (names: the module's top-level objects;
    empty when only the module is cited)."""
    out: dict[str, set[str]] = {}
    for page in sorted(DOCS.glob("*.md")):
        for role, text in _ROLE.findall(page.read_text()):
            parts = _target(text).split(".")
            if role != "mod" and any(_documented(".".join(parts[:i]), parts[i])
                                     for i in range(1, len(parts))):
                continue  # a documented name (``solvers.cfr.best_response``, a function)
            cut = next((i for i in range(len(parts), 0, -1)
                        if _is_module(".".join(parts[:i]))), 0)
            if not cut:
                continue  # not ours (e.g. a standard library name): left to Sphinx
            module, rest = ".".join(parts[:cut]), parts[cut:]
            if module in API_PACKAGES and (not rest or rest[0] in public_names(module)):
                continue
            out.setdefault(module, set()).update(rest[:1])
    return out


def _documented(package: str, name: str) -> bool:
    """Whether ``package.name`` is documented on a package's page (an object of
    its ``__all__``; a submodule named there is documented on the modules page)."""
    return (package in API_PACKAGES and name in public_names(package)
            and not inspect.ismodule(getattr(importlib.import_module(package), name)))


def public_names(package: str) -> list[str]:
    """The ``__all__`` of ``package``: its documented names."""
    return list(importlib.import_module(package).__all__)


def _directive(full: str, obj: object) -> str:
    """The autodoc directive for the object ``obj`` named ``full`` (a module is
    a link to its entry on the modules page)."""
    if inspect.ismodule(obj):
        return f"``{full}``: the module :mod:`{obj.__name__}`.\n"
    if inspect.isclass(obj):
        kind = "exception" if issubclass(obj, BaseException) else "class"
        return f".. auto{kind}:: {full}\n   :members:\n"
    if callable(obj):
        return f".. autofunction:: {full}\n"
    package, _, name = full.rpartition(".")
    module, doc = _data_doc(package, name, obj)
    text = "".join(f"   {line}\n" if line else "\n" for line in doc)
    return (f".. py:data:: {name}\n   :module: {package}\n\n{text}\n"
            f"   (Defined in ``{module}``.)\n")


def _data_doc(package: str, name: str, obj: object) -> tuple[str, list[str]]:
    """The module that defines the constant ``package.name`` (re-exported by the
    package) and its ``#:`` doc comment there."""
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer
    for module in sorted(m for m in sys.modules if m.startswith(package + ".")) + [package]:
        if getattr(sys.modules[module], name, None) is not obj:
            continue
        try:
            doc = ModuleAnalyzer.for_module(module).find_attr_docs().get(("", name))
        except PycodeError:  # a module without source: no doc comment
            doc = None
        if doc:
            while doc and not doc[-1].strip():
                doc = doc[:-1]
            return module, [line.rstrip() for line in doc]
    return next((m for m in sorted(sys.modules) if m.startswith(package + ".")
                 and getattr(sys.modules[m], name, None) is obj), package), [f"``{obj!r}``"]


def write_api_pages() -> None:
    """Write ``api/_generated/<package>.rst`` for every package of
    :data:`API_PACKAGES` and ``api/_generated/modules.rst`` (``api.md`` lists
    them)."""
    out = DOCS / "api" / "_generated"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    internal = cited()
    for pkg in API_PACKAGES:
        title = f"``{pkg}``"
        body = [f"{title}\n{'=' * len(title)}\n", f".. automodule:: {pkg}\n"]
        for name in public_names(pkg):
            obj = getattr(importlib.import_module(pkg), name)
            if inspect.ismodule(obj):
                internal.setdefault(obj.__name__, set())
            body.append(_directive(f"{pkg}.{name}", obj))
        (out / f"{pkg}.rst").write_text("\n".join(body))
    lines = [MODULES_TITLE, "=" * len(MODULES_TITLE), "",
             "These modules and names are cited by the guide pages. They are internal:",
             "they may move or change without notice; import the packages' documented",
             "names instead.", ""]
    for module in sorted(internal):
        title = f"``{module}``"
        lines += [title, "-" * len(title), "", f".. automodule:: {module}"]
        if internal[module]:
            lines.append(f"   :members: {', '.join(sorted(internal[module]))}")
        lines.append("")
    (out / "modules.rst").write_text("\n".join(lines))


write_api_pages()
