"""What an agent's results depend on besides this package (its module, the modules it
imports, checkpoint files, the shipped model it loads): part of every saved unit's
fingerprint, so a result is never silently stale."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from spiel_game._provenance import file_sha256

from .. import runner

__all__ = ["agent_sources", "ZOO_AGENTS", "MAX_IMPORTED_FILES"]


ZOO_AGENTS = ("network", "ismcts_net", "ismcts_bias")
#: The most files of imported modules one agent's fingerprint hashes.
MAX_IMPORTED_FILES = 2000


def _shared_roots() -> tuple[str, ...]:
    """Folders whose modules are not hashed as an agent's imports: the standard
    library, site-packages (installed packages) and this package's own
    packages (hashed whole as ``package code``)."""
    import site
    import sysconfig
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= set(getattr(site, "getsitepackages", lambda: [])())
    roots.add(getattr(site, "getusersitepackages", lambda: None)())
    roots |= set(runner.package_dirs())
    return tuple(os.path.join(os.path.realpath(r), "") for r in roots if r)


def _local_file(path, roots: tuple[str, ...]) -> str | None:
    """``path`` (real) if it is a Python source file outside ``roots``."""
    if not isinstance(path, str) or not path.endswith(".py"):
        return None
    real = os.path.realpath(path)
    if real.startswith(roots) or not os.path.isfile(real):
        return None
    return real


def _imported_files(module, roots: tuple[str, ...]) -> tuple[list[str], bool]:
    """``(files, complete)``: the source files of the modules that ``module``
    imports, directly or through each other, that lie outside ``roots`` (the
    user's own helper modules). A module is followed through its globals (an
    imported module, or the module of an imported function or class) and
    through the ``import`` statements of its source (those inside functions
    too), each resolved without running code. ``complete`` is False when
    :data:`MAX_IMPORTED_FILES` stopped the search."""
    import ast
    import importlib.util
    from spiel_game._safe_io import RefusedFile, read_text

    start = _local_file(getattr(module, "__file__", None), roots)
    if start is None:
        return [], True
    seen = {start}
    queue = [(start, getattr(module, "__name__", ""), module)]
    found: list[str] = []

    def visit(name: str, mod=None) -> None:
        mod = mod if mod is not None else sys.modules.get(name)
        f = getattr(mod, "__file__", None) if mod is not None else None
        if f is None and mod is None and name and "." not in name:
            try:                        # not imported yet (an import inside a function)
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError, AttributeError):
                spec = None
            f = getattr(spec, "origin", None)
        f = _local_file(f, roots)
        if f is not None and f not in seen:
            seen.add(f)
            found.append(f)
            queue.append((f, name, mod))

    while queue:
        if len(found) > MAX_IMPORTED_FILES:
            return sorted(found[:MAX_IMPORTED_FILES]), False
        path, name, mod = queue.pop()
        if mod is not None:
            for v in list(vars(mod).values()):
                if inspect.ismodule(v):
                    visit(v.__name__, v)
                else:
                    try:
                        owner = getattr(v, "__module__", None) if (
                            inspect.isfunction(v) or inspect.isclass(v)) else None
                    except Exception:   # an object whose attributes raise
                        owner = None
                    if isinstance(owner, str):
                        visit(owner)
        try:
            tree = ast.parse(read_text(path, 16 << 20, "module source"))
        except (OSError, RefusedFile, SyntaxError, ValueError, RecursionError):
            continue
        package = getattr(mod, "__package__", None) or name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    visit(a.name)
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                try:
                    base = importlib.util.resolve_name(base, package) if node.level else base
                except (ImportError, ValueError):
                    continue
                visit(base)
                for a in node.names:
                    visit(f"{base}.{a.name}")
    return sorted(found), True


def _zoo_factories() -> dict:
    """The factories of :data:`ZOO_AGENTS` (their modules imported on first use)."""
    from solvers import _registry as reg
    return {n: reg.factory(n) for n in ZOO_AGENTS}


def _model_sources(f, sp_name: str, params: Mapping, known: Callable) -> dict[str, str]:
    """``{"model <name>": sha256}`` of the shipped model an agent of the zoo
    (:data:`ZOO_AGENTS`) loads: its ``checkpoint`` given as a model's name, or
    left out (the default model). The file is checked against the manifest's
    SHA-256 (:func:`solvers.net.zoo.model_path`), so a model rebuilt in place
    (file and manifest) is another model."""
    if sp_name not in ZOO_AGENTS and not (
            getattr(f, "__module__", "").startswith("solvers.")
            and any(inspect.unwrap(z) is f for z in known().values())):
        return {}
    ck = params.get("checkpoint")
    from solvers.net import zoo
    try:
        if ck is None:
            name = zoo.DEFAULT_MODEL
        elif isinstance(ck, str) and not zoo.is_path(ck) and ck in zoo.models():
            name = ck
        else:
            return {}                   # a path: hashed as a checkpoint file
        zoo.model_path(name)            # the file matches the manifest, or refused
        return {f"model {name}": zoo.models()[name].sha256}
    except Exception:                   # refused with a clear error when the agent is built
        return {}


def agent_sources(agents: Sequence[str], factories: Mapping[str, Callable] | None = None
                  ) -> dict[str, str]:
    """What the agents' results depend on besides this package, as
    ``{label: sha256}``:

    - ``"agent module <file>"``: the source file of the module that defines each
      agent's factory (``inspect.getsourcefile``: built-in, registered, plug-in
      or file-defined agents alike);
    - ``"imported module <file>"``: the source file of every module that the
      agent's module imports, directly or through each other, outside the
      standard library, site-packages and this package (hashed whole as
      ``package code``): a file bot's helper modules (:func:`_imported_files`);
    - ``"checkpoint <file>"``: every agent parameter naming an existing file;
    - ``"model <name>"``: the SHA-256 of the shipped model a network agent
      loads (by name, or the default model), checked against the file.

    Not tracked: modules imported by a name computed at run time
    (``importlib.import_module(variable)``), files that an agent opens by a
    path it builds itself, and installed packages other than this one. Specs
    that cannot be resolved contribute nothing (they are refused elsewhere)."""
    from solvers import _registry as reg
    out: dict[str, str] = {}
    roots = None
    for label in dict.fromkeys(agents):
        params: dict = {}
        sp_name = ""
        if factories and label in factories:
            f = factories[label]
        else:
            try:
                sp = reg.parse_spec(label)
            except Exception:           # refused with a clear error by check_agents
                continue
            params, sp_name = sp.kwargs, sp.name
            if ":" in sp.name:              # module:factory or path/to/bot.py:factory
                try:
                    f = reg.factory(sp.name)
                except Exception:           # refused with a clear error by check_agents
                    f = None
            else:
                try:
                    f = reg.factory(sp.name)    # imports this agent's module only
                except Exception:           # refused with a clear error by check_agents
                    f = None
        if f is not None:
            f = inspect.unwrap(getattr(f, "func", f))
            if not (inspect.isfunction(f) or inspect.isclass(f) or inspect.ismethod(f)):
                f = type(f)                 # a callable object: its class's module
            try:
                src = inspect.getsourcefile(f)
            except TypeError:
                src = None
            if src and os.path.isfile(src):
                out[f"agent module {src}"] = file_sha256(src)
            roots = _shared_roots() if roots is None else roots
            files, complete = _imported_files(sys.modules.get(getattr(f, "__module__", None)
                                                              or ""), roots)
            for path in files:
                out[f"imported module {path}"] = file_sha256(path)
            if not complete:
                out["imported modules"] = (f"more than {MAX_IMPORTED_FILES} files; the first "
                                           f"{MAX_IMPORTED_FILES} are tracked")
            out.update(_model_sources(f, sp_name, params, _zoo_factories))
        for v in params.values():
            if isinstance(v, str) and v and os.path.isfile(v):
                out[f"checkpoint {os.path.abspath(v)}"] = file_sha256(v)
    return out
