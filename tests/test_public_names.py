"""The notebooks and the research scripts use only public names.

The public API is the ``__all__`` of each documented package (the toctree
entries of ``docs/api.md``) and the submodules those ``__all__`` list
(``spiel_game.cards``). Read statically (``ast``, nothing is imported):

* a notebook imports from our packages only the names of a documented
  package's ``__all__`` (or of a public submodule's ``__all__``), and reaches
  no other attribute of such a module;
* no notebook imports or reaches an underscore name of our packages:
  ``from m import _x``, ``import pkg._mod`` (an internal module), ``module._seed``;
* no research script imports or reaches an underscore name of our packages (or
  of a research module next to it) other than an internal module:
  ``import spiel_game._engine as E`` is allowed (a research script may use the
  internals, as the package code does), ``from m import _x`` and ``E._seed`` are not;
* a research script imports ``from M import x`` only with ``x`` in ``M.__all__``
  when ``M`` (one of ours) defines ``__all__`` (a submodule ``x`` of a package
  ``M`` is an import of the module, not of a name), and reaches ``M.x`` only
  for such names.

``research/xinxin_sweep/`` and ``research/confirmatory/`` are not checked here.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("spiel_game", "solvers", "experiments")
#: Research folders with their own owners and rules (not checked).
EXCLUDED = ("research/xinxin_sweep/", "research/confirmatory/")


# ------------------------------------------------------------------ the modules, statically
def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The source of module ``name`` under ``root`` (a module or a package), or None."""
    base = root.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


@functools.cache
def _all_of(path: Path) -> tuple[str, ...] | None:
    tree = ast.parse(path.read_text(), str(path))
    names = None
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                   else [])
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value)
            names = (list(names or ()) + list(value) if isinstance(node, ast.AugAssign)
                     else list(value))
    return None if names is None else tuple(names)


def module_all(name: str, root: Path = ROOT) -> tuple[str, ...] | None:
    """The ``__all__`` of module ``name`` (a literal list), None when it defines none."""
    path = module_file(name, root)
    return None if path is None else _all_of(path)


def documented_packages(root: Path = ROOT) -> list[str]:
    """The packages of ``docs/api.md``'s toctrees (``api/_generated/<package>``),
    without the page of internal modules."""
    text = (root / "docs" / "api.md").read_text()
    found = []
    for block in re.findall(r"```\{toctree\}(.*?)```", text, re.S):
        found += re.findall(r"^api/_generated/([\w.]+)\s*$", block, re.M)
    return [p for p in found if p != "modules"]


@functools.cache
def _imported_names(path: Path) -> frozenset[str]:
    """The names a package's ``__init__`` binds by ``from .module import name``
    (a function ``best_response`` of :mod:`solvers.cfr`, not its submodule)."""
    return frozenset(a.asname or a.name for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, ast.ImportFrom) and node.module for a in node.names)


def public_modules(root: Path = ROOT) -> set[str]:
    """The documented packages and the submodules their ``__all__`` list."""
    docs = documented_packages(root)
    mods = set(docs)
    for pkg in docs:
        for x in module_all(pkg, root) or ():
            if (module_file(f"{pkg}.{x}", root) is not None
                    and x not in _imported_names(module_file(pkg, root))):
                mods.add(f"{pkg}.{x}")
    return mods


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# ------------------------------------------------------------------ the checker
class _Checker(ast.NodeVisitor):
    def __init__(self, where: str, notebook: bool, root: Path, local: tuple[Path, ...]):
        self.where, self.notebook, self.root, self.local = where, notebook, root, local
        self.public = public_modules(root) if notebook else set()
        self.bound: dict[str, str] = {}       # a name -> the module of ours it is bound to
        self.problems: list[str] = []

    def local_file(self, module: str) -> Path | None:
        """The file of ``module`` in one of the local folders (a research module)."""
        for folder in self.local:
            if (path := module_file(module, folder)) is not None:
                return path
        return None

    def ours(self, module: str) -> bool:
        return module.split(".")[0] in OURS or self.local_file(module) is not None

    def is_module(self, module: str) -> bool:
        if module.split(".")[0] in OURS:
            return module_file(module, self.root) is not None
        return self.local_file(module) is not None

    def all_of(self, module: str):
        if module.split(".")[0] in OURS:
            return module_all(module, self.root)
        path = self.local_file(module)
        return None if path is None else _all_of(path)

    def say(self, node, text: str) -> None:
        self.problems.append(f"{self.where}:{getattr(node, 'lineno', '?')}: {text}")

    def allowed_names(self, module: str) -> set[str]:
        """What a notebook may take from public module ``module``."""
        names = set(self.all_of(module) or ())
        names |= {m.rpartition(".")[2] for m in self.public if m.rpartition(".")[0] == module}
        return names

    # a name of module ``module``, reached by an import or an attribute
    def check_name(self, node, module: str, name: str, how: str) -> None:
        if private(name) and (self.notebook or not self.is_module(f"{module}.{name}")):
            self.say(node, f"{how} the private name {name!r} of {module} (underscore names "
                           f"are internal to their module; use a public name)")
            return
        if self.notebook:
            if module not in self.public:
                self.say(node, f"{how} {name!r} of the internal module {module} (a notebook "
                               f"imports only from the documented packages of docs/api.md "
                               f"and the submodules their __all__ list)")
            elif name not in self.allowed_names(module):
                self.say(node, f"{how} {name!r}, which is not in {module}.__all__ (a notebook "
                               f"uses only the names of a documented package's __all__)")
            return
        if self.is_module(f"{module}.{name}"):
            return                             # a submodule: an import of the module
        names = self.all_of(module)
        if names is not None and name not in names:
            self.say(node, f"{how} {name!r}, which is not in {module}.__all__ (import only "
                           f"the names of a module's __all__, or widen it)")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self.ours(alias.name):
                continue
            parts = alias.name.split(".")
            for i, part in enumerate(parts[1:], 1):
                self.check_name(node, ".".join(parts[:i]), part, "imports")
            if alias.asname:
                self.bound[alias.asname] = alias.name
            else:
                self.bound[parts[0]] = parts[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.say(node, f"a relative import (from {'.' * node.level}{module}); import our "
                           f"modules by their full names")
            return
        if not self.ours(module):
            return
        parts = module.split(".")
        before = len(self.problems)
        for i, part in enumerate(parts[1:], 1):
            if private(part):
                self.check_name(node, ".".join(parts[:i]), part, "imports from")
        if len(self.problems) > before:
            return                             # one problem: the module is private
        for alias in node.names:
            if alias.name == "*":
                self.say(node, f"'from {module} import *' (name what is imported)")
                continue
            self.check_name(node, module, alias.name, "imports")
            if self.is_module(f"{module}.{alias.name}"):
                self.bound[alias.asname or alias.name] = f"{module}.{alias.name}"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id in self.bound:
            module = self.bound[base.id]
            for attr in reversed(chain):
                before = len(self.problems)
                self.check_name(node, module, attr, "reaches")
                if len(self.problems) > before or not self.is_module(f"{module}.{attr}"):
                    break                      # one problem per chain
                module = f"{module}.{attr}"
            return                             # the whole chain is checked
        self.generic_visit(node)


def check_source(source: str, where: str = "<source>", *, notebook: bool = False,
                 root: Path = ROOT, local: Path | tuple[Path, ...] = ()) -> list[str]:
    """The problems of one script's (or one notebook's code's) use of our names:
    ``'where:line: what is wrong'``. ``local``: the folders whose modules count
    as ours (a research script importing its neighbour)."""
    local = (local,) if isinstance(local, Path) else tuple(local)
    checker = _Checker(where, notebook, root, local)
    checker.visit(ast.parse(source, where))
    return checker.problems


def notebook_source(path: Path) -> str:
    """The code cells of a notebook, one after the other (IPython magics and shell
    lines blanked, so that line numbers stay those of the cell's text)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    lines = []
    for i, cell in enumerate(cells):
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines.append(f"# cell {i}")
        lines += ["" if line.lstrip().startswith(("%", "!")) else line
                  for line in src.splitlines()]
    return "\n".join(lines) + "\n"


def check_notebook(path: Path, root: Path = ROOT) -> list[str]:
    """A notebook's problems, each at ``notebook:cell N line M`` (N counts the code
    cells from 0)."""
    source = notebook_source(path)
    where = {}                                  # a line of ``source`` -> (cell, line in it)
    cell = start = 0
    for number, line in enumerate(source.splitlines(), 1):
        if (m := re.fullmatch(r"# cell (\d+)", line)):
            cell, start = int(m.group(1)), number
        where[number] = (cell, number - start)
    name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    out = []
    for problem in check_source(source, name, notebook=True, root=root):
        line, text = problem[len(name) + 1:].split(":", 1)
        c, n = where[int(line)]
        out.append(f"{name}: code cell {c} line {n}:{text}")
    return out


def research_scripts(root: Path = ROOT) -> list[Path]:
    return [p for p in sorted((root / "research").rglob("*.py"))
            if not p.relative_to(root).as_posix().startswith(EXCLUDED)]


def check_script(path: Path, root: Path = ROOT) -> list[str]:
    """A research script; its neighbours and ``research/scripts`` (which other
    scripts put on ``sys.path``) count as ours."""
    return check_source(path.read_text(), path.relative_to(root).as_posix(), root=root,
                        local=(path.parent, root / "research" / "scripts"))


# ------------------------------------------------------------------ the tests
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_documented_packages_are_read_from_the_docs():
    docs = documented_packages()
    assert {"spiel_game", "solvers", "solvers.cfr", "solvers.beliefs", "experiments",
            "experiments.runner", "experiments.tournament", "experiments.envs",
            "experiments.play"} == set(docs)
    for pkg in docs:
        assert module_all(pkg), f"{pkg} defines no __all__"
    assert {"spiel_game.cards", "spiel_game.observers"} <= public_modules()
    assert "solvers.cfr.best_response" not in public_modules()     # a function of __all__


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_use_only_the_documented_api(path):
    problems = check_notebook(path)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", research_scripts(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_research_scripts_use_only_public_names(path):
    problems = check_script(path)
    assert not problems, "\n".join(problems)


def test_the_checker_fails_on_what_it_forbids(tmp_path):
    """Planted sources: every kind of violation is found, the allowed forms are not."""
    notebook = check_source(
        "import spiel_game\n"
        "from solvers._base.passing import CONVENTIONS\n"     # an internal module
        "from spiel_game._scenarios import state_from_hands\n"
        "from spiel_game import _engine\n"                    # an internal module
        "from solvers import make_agent, registry\n"          # registry: not in __all__
        "x = spiel_game._rng\n"                               # an internal module
        "from solvers.cfr import build_tree\n"                # fine
        "from spiel_game.cards import string_to_card\n"       # fine: a public submodule
        "from experiments import runner\n"                    # fine: a documented package
        "spiel_game.cards.string_to_card('QS')\n", notebook=True)
    assert len(notebook) == 5, "\n".join(notebook)
    for line in (2, 3, 4, 5, 6):
        assert any(p.startswith(f"<source>:{line}:") for p in notebook), line

    script = tmp_path / "planted.py"
    (tmp_path / "neighbour.py").write_text("__all__ = ['shown']\ndef shown(): pass\n"
                                           "def hidden(): pass\ndef _secret(): pass\n")
    script.write_text(
        "import spiel_game._rng as R\n"                       # fine: an internal module
        "from experiments.tournament import _load_game\n"     # (b) an imported private name
        "from spiel_game import _engine as E\n"               # fine: an internal module
        "seed = R._mix\n"                                     # (b) a reached private name
        "from spiel_game._determinize import Determinizer, deal\n"  # (c) deal: not in __all__
        "E.hand\n"                                            # fine: engine has no __all__
        "import neighbour\n"
        "neighbour._secret()\n"                               # (b) in a research module
        "from neighbour import hidden, shown\n"               # (c) hidden
        "from solvers import _numba_cache_guard\n"            # (b)
        "from spiel_game._rng import _mix\n"                  # (b) in an internal module
        "import spiel_game._no_such_module\n")                # (b) not a module: a name
    problems = check_source(script.read_text(), "planted.py", local=tmp_path)
    lines = sorted(int(p.split(":")[1]) for p in problems)
    assert lines == [2, 4, 5, 8, 9, 10, 11, 12], "\n".join(problems)
    assert "not in spiel_game._determinize.__all__" in "\n".join(problems)
    assert check_source("import numpy as np\nnp._x\nfrom os import _exit\n") == []


def test_a_planted_notebook_is_reported_by_cell(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {},
              "source": ["# from spiel_game import engine"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["%matplotlib inline\n", "import spiel_game\n",
                         "from spiel_game.cards import QS\n"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["x = 1\n", "from spiel_game._determinize import Determinizer\n",
                         "spiel_game._engine.K\n"]}]
    path = tmp_path / "planted.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    problems = check_notebook(path)
    assert [p.split(":")[1] for p in problems] == [" code cell 1 line 2", " code cell 1 line 3"], \
        problems
    assert "'_determinize' of spiel_game" in problems[0] and "'_engine'" in problems[1]
