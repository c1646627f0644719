"""The package layers hold and no module imports itself in a circle.

* ``lint-imports`` checks the import contracts of ``pyproject.toml``
  (``[tool.importlinter]``): experiments > solvers > spiel_game, the RL
  environments and the play app independent of each other and of the studies,
  the rules and the engine below the pyspiel adapter.
* import-linter cannot see cycles inside one layer, so the module graph of
  the three packages (grimp, lazy imports inside functions included) is
  searched for strongly connected components: there must be none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("spiel_game", "solvers", "experiments")
#: Import cycles tolerated for now: none.
PENDING: set[frozenset[str]] = set()


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_the_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    cmd = [str(lint)] if lint.exists() else [
        sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                              "sys.exit(lint_imports_command())"]
    r = subprocess.run(cmd + ["--no-cache"], cwd=ROOT, env=_env(), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0 and "0 broken" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]
    assert "layers: experiments > solvers > spiel_game KEPT" in r.stdout


def _cycles(graph) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path, monkeypatch):
    pkg = tmp_path / "planted_cycle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("from . import a\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _cycles(grimp.build_graph("planted_cycle_pkg", cache_dir=None))
    assert found == [frozenset({"planted_cycle_pkg.a", "planted_cycle_pkg.b",
                                "planted_cycle_pkg.c"})]


def test_no_module_imports_itself_in_a_circle(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert len(graph.modules) > 90
    cycles = [sorted(c) for c in _cycles(graph) if c not in PENDING]
    assert cycles == [], f"import cycles: {cycles}"
