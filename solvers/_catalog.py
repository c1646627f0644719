"""The agent catalog: every way to name an agent, through one resolver.

:func:`resolve` turns whatever names an agent into its factory
``factory(game, player, seed, **params) -> pyspiel.Bot`` (the contract is in
:mod:`solvers._registry`), checking the spec's keywords against the factory's
signature. The ways, in the order a name is looked up:

* **a callable**: the factory itself (``make_agent(my_factory, game, 0)``);
* ``TARGET:ATTRIBUTE``: a factory or ``pyspiel.Bot`` subclass in an
  importable module (``"mypkg.bots:make_bot"``) or a Python file
  (``"path/to/bot.py:make_bot"``), imported on use;
* **a name**: the built-in agents, then those registered in this process
  (:func:`register`), then the plug-ins of other packages. The built-ins are
  the entry points of this package in the group :data:`ENTRY_POINT_GROUP`
  (``pyproject.toml``: the one list of them; ``python -m experiments
  agents`` shows them); the plug-ins are the entry points other installed
  packages declare in that group.

The entry points are read once per process, when a name is first looked up
(:func:`register`, :func:`unregister` and :func:`refresh` make the next lookup
read them again), and an agent's module is imported only when that agent is
looked up: building ``random`` does not import the search or the networks.
:func:`factories` looks every agent up (for listings).

The spec's keywords are checked against the factory's signature. A factory
whose ``belief`` parameter takes a :class:`solvers.beliefs.BeliefModel`
(``ismcts``, ``pimc``) gets the model of the spec's one ``belief`` value,
``belief='heuristic(pool=64, mcmc=2)'`` (:func:`solvers.beliefs.from_spec`).

A plug-in that fails to load (its import raises anything, ``SystemExit``
included, or it names no callable, or its name cannot be written in a spec)
is skipped with a ``RuntimeWarning`` naming the entry point and its package,
once per process; the built-in agents and the other plug-ins still load.
Only ``KeyboardInterrupt`` propagates. Built-in names take precedence over
registered ones and over plug-ins.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from spiel_game._checks import shorten

from ._base.specs import AgentSpec, AgentSpecError, is_file_target, parse_spec

if TYPE_CHECKING:
    import pyspiel

__all__ = ["ENTRY_POINT_GROUP", "DISTRIBUTION", "Resolved", "resolve", "factory", "factories",
           "register", "unregister", "refresh", "source", "factory_parameters",
           "factory_name", "takes_belief_model"]

#: The entry-point group of the agents (this package's and the plug-ins').
ENTRY_POINT_GROUP = "cancellation_hearts.agents"
#: The distribution whose entry points in :data:`ENTRY_POINT_GROUP` are the built-in agents.
DISTRIBUTION = "cancellation-hearts"

Factory = Callable[..., "pyspiel.Bot"]


@dataclasses.dataclass
class _Entry:
    """A catalog name: where it comes from (``"built-in"``, ``"registered"``,
    ``"plug-in (package P)"``), its entry point, and its factory once loaded."""

    source: str
    point: importlib.metadata.EntryPoint | None = None
    factory: Factory | None = None


_CATALOG: dict[str, _Entry] | None = None       # None: read the entry points at next lookup
_REGISTERED: dict[str, Factory] = {}
_FAILED: dict[tuple[str, str], str] = {}        # plug-ins skipped (warned once per process)


def _normalized(dist_name: str) -> str:
    return re.sub(r"[-_.]+", "-", dist_name).lower()


def _skip(key: tuple[str, str], why: str) -> None:
    if key not in _FAILED:
        _FAILED[key] = why
        warnings.warn(why, RuntimeWarning, stacklevel=5)


def _builtin_points() -> list:
    """This package's entry points in :data:`ENTRY_POINT_GROUP`: the built-in agents."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        _skip(("", DISTRIBUTION), f"the built-in agents are the entry points of the package "
                                  f"{DISTRIBUTION!r}, which is not installed in this "
                                  f"environment: install it (pip install -e .)")
        return []
    return [ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]


def _plugin_points() -> list:
    """The other installed packages' entry points in :data:`ENTRY_POINT_GROUP`."""
    try:
        eps = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except KeyboardInterrupt:
        raise
    except BaseException as e:          # broken package metadata
        _skip(("", ""), f"agent plug-ins of the entry-point group {ENTRY_POINT_GROUP!r} "
                        f"could not be listed ({type(e).__name__}: {e}); using the built-in "
                        f"agents only")
        return []
    ours = _normalized(DISTRIBUTION)
    return [ep for ep in eps
            if _normalized(getattr(getattr(ep, "dist", None), "name", None) or "") != ours]


def _package(ep) -> str:
    return getattr(getattr(ep, "dist", None), "name", None) or "an unknown package"


def _scan() -> dict[str, _Entry]:
    """Every agent name -> its :class:`_Entry`, from the entry points (nothing imported):
    plug-ins, overridden by registered agents, overridden by the built-ins."""
    out: dict[str, _Entry] = {}
    for ep in _plugin_points():
        key = (ep.name, ep.value)
        where = f"agent plug-in {ep.name!r} = {ep.value!r} (package {_package(ep)})"
        if key in _FAILED:
            continue
        problem = _name_problem(ep.name)
        if problem:
            _skip(key, f"{where} skipped: its name cannot be used in an agent spec: {problem}")
            continue
        if ep.name in out and out[ep.name].point.value != ep.value:
            first = out[ep.name].point
            warnings.warn(f"agent plug-in name {ep.name!r} is declared twice (agent plug-in "
                          f"{first.name!r} = {first.value!r} (package {_package(first)}) and "
                          f"{where}); using the latter", RuntimeWarning, stacklevel=4)
        out[ep.name] = _Entry(f"plug-in (package {_package(ep)})", ep)
    for name, f in _REGISTERED.items():
        out[name] = _Entry("registered", factory=f)
    for ep in _builtin_points():
        other = out.get(ep.name)
        if other is not None and other.point is not None and other.point.value != ep.value:
            warnings.warn(f"agent plug-in {ep.name!r} is shadowed by the built-in agent of that "
                          f"name", RuntimeWarning, stacklevel=4)
        out[ep.name] = _Entry("built-in", ep)
    return dict(sorted(out.items()))


def _catalog() -> dict[str, _Entry]:
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = _scan()
    return _CATALOG


def refresh() -> None:
    """Read the entry points again at the next lookup (e.g. after installing a
    plug-in package into a running process)."""
    global _CATALOG
    _CATALOG = None


def _load(name: str, entry: _Entry) -> Factory | None:
    """The factory of ``entry``, imported on first use; None (with a warning, and
    the name dropped) for a plug-in that fails to load."""
    if entry.factory is not None:
        return entry.factory
    ep = entry.point
    if entry.source == "built-in":
        try:
            entry.factory = ep.load()
        except (ImportError, AttributeError) as e:  # a bug, or metadata older than the code
            raise RuntimeError(f"the built-in agent {ep.name!r} = {ep.value!r} cannot be "
                               f"loaded ({type(e).__name__}: {e}); if the code changed since "
                               f"the package was installed, reinstall it (pip install -e .) so "
                               f"that its entry points follow pyproject.toml") from e
        return entry.factory
    key = (ep.name, ep.value)
    where = f"agent plug-in {ep.name!r} = {ep.value!r} (package {_package(ep)})"
    try:
        f = ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as e:          # SystemExit included: a plug-in must not end the run
        f, why = None, f"{where} skipped: importing it raised {type(e).__name__}: {e}"
    else:
        why = (None if callable(f) else f"{where} skipped: it names a {type(f).__name__}, not "
               f"a callable factory(game, player, seed, **params)")
    if why:
        _skip(key, why)
        _catalog().pop(name, None)
        return None
    entry.factory = f
    return f


def factories() -> dict[str, Factory]:
    """Every known agent name -> factory: built-ins, registered, plug-ins (sorted by
    name). This imports every agent's module; :func:`resolve` imports only the one
    it looks up."""
    out = {}
    for name, entry in list(_catalog().items()):
        f = _load(name, entry)
        if f is not None:
            out[name] = f
    return out


def source(name: str) -> str:
    """Where agent ``name`` comes from: ``"built-in"``, ``"registered"``,
    ``"plug-in (package P)"``, ``"module"`` or ``"file"`` (``TARGET:attribute``)."""
    if ":" in name:
        return "file" if is_file_target(name.rpartition(":")[0]) else "module"
    entry = _catalog().get(name)
    return entry.source if entry else "plug-in (package unknown)"


def _name_problem(name) -> str | None:
    """Why ``name`` cannot name an agent in a spec (None if it can)."""
    if not isinstance(name, str):
        return f"an agent name is a string, got {type(name).__name__}"
    try:
        sp = parse_spec(name)
    except AgentSpecError as e:
        return str(e)
    if sp.params or sp.name != name.strip() or name != name.strip() or ":" in name:
        return (f"{name!r} is not a plain (optionally dotted) identifier such as "
                f"'my_agent' or 'pkg.agent'")
    return None


def register(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Register ``factory(game, player, seed, **params)`` under ``name`` (this process only;
    packages use the ``cancellation_hearts.agents`` entry-point group)."""
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable, got {type(factory).__name__}")
    problem = _name_problem(name)
    if problem:
        raise AgentSpecError(f"cannot register agent {name!r}: {problem}")
    builtin = getattr(_catalog().get(name), "source", None) == "built-in"
    if not replace and (name in _REGISTERED or builtin):
        raise AgentSpecError(f"an agent named {name!r} exists; pass replace=True to replace it")
    _REGISTERED[name] = factory
    refresh()


def unregister(name: str) -> None:
    """Remove an agent registered in this process by :func:`register`; a
    ``KeyError`` naming it if none is."""
    if name not in _REGISTERED:
        raise KeyError(f"no agent {name!r} is registered in this process")
    del _REGISTERED[name]
    refresh()


# ---------------------------------------------------------------- the resolver
@dataclasses.dataclass(frozen=True)
class Resolved:
    """What :func:`resolve` found: the ``factory`` and the parsed ``spec`` whose
    keywords it is called with (None when the factory was given itself).
    ``arguments``: the keywords the factory is called with, the spec's with a
    ``belief`` value turned into its model (None: the spec's as they are)."""

    factory: Factory
    spec: AgentSpec | None = None
    arguments: dict | None = None

    @property
    def kwargs(self) -> dict:
        """The spec's keywords as written."""
        return self.spec.kwargs if self.spec is not None else {}

    @property
    def call_kwargs(self) -> dict:
        """The keywords the factory is called with (:attr:`arguments` or :attr:`kwargs`)."""
        return self.arguments if self.arguments is not None else self.kwargs


def takes_belief_model(factory) -> bool:
    """Whether ``factory`` has a ``belief`` parameter annotated as a
    :class:`solvers.beliefs.BeliefModel` (``ismcts``, ``pimc``): its spec's
    ``belief`` value is then a belief spec, ``belief='heuristic(pool=64)'``."""
    try:
        p = inspect.signature(factory).parameters.get("belief")
    except (TypeError, ValueError):
        return False
    return p is not None and "BeliefModel" in str(p.annotation)


def _refuse_flat_belief(sp: AgentSpec) -> None:
    """The former flat ``belief_*`` keywords refused, with the one form to write."""
    from .beliefs._models import flat_keywords_hint
    hint = flat_keywords_hint(sp.name, sp.kwargs)
    if hint:
        raise AgentSpecError(hint)


def _belief_arguments(sp: AgentSpec) -> dict | None:
    """The factory's keywords with the spec's ``belief`` value turned into its
    model (:func:`solvers.beliefs.from_spec`); None without one."""
    from .beliefs._models import from_spec
    from ._base.bots import AgentParameterError
    kw = sp.kwargs
    if "belief" not in kw:
        return None
    try:
        return {**kw, "belief": from_spec(sp.name, kw["belief"])}
    except AgentParameterError as e:
        raise AgentSpecError(f"agent spec {shorten(str(sp), head=True)}: {e}") from e


def resolve(spec: str | AgentSpec | Factory) -> Resolved:
    """The factory of ``spec`` (a spec string, an :class:`AgentSpec`, or a factory
    itself), looked up as the module docstring says; the spec's keywords are
    checked against the factory's signature, and a ``belief`` value of a factory
    that takes a belief model becomes that model (:func:`takes_belief_model`).
    :class:`AgentSpecError` (with a suggestion) for a malformed spec, an unknown
    agent or keyword, a wrong belief, or a module, file or attribute that is
    missing or not a factory."""
    if callable(spec) and not isinstance(spec, (str, AgentSpec)):
        return Resolved(spec)
    sp = parse_spec(spec)
    f = _lookup(sp.name)
    names, var = factory_parameters(f)
    belief = takes_belief_model(f)
    if belief:
        _refuse_flat_belief(sp)
    for k in sp.kwargs:
        if k not in names and not var:
            close = difflib.get_close_matches(k, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            allowed = ", ".join(names) if names else "none"
            raise AgentSpecError(f"agent {sp.name!r} has no parameter {k!r}{hint}; its "
                                 f"parameters: {allowed}")
    return Resolved(f, sp, _belief_arguments(sp) if belief else None)


def factory(name: str) -> Factory:
    """The factory of agent ``name`` (a catalog name, or ``TARGET:attribute`` for a
    module or file); :class:`AgentSpecError` saying what is wrong if there is none."""
    return resolve(AgentSpec(name)).factory


def _lookup(name: str) -> Factory:
    if ":" in name:
        return _external(name)
    entry = _catalog().get(name)
    f = _load(name, entry) if entry is not None else None
    if f is not None:
        return f
    fs = factories()
    close = difflib.get_close_matches(name, list(fs), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise AgentSpecError(f"unknown agent {shorten(name, head=True)}{hint}; known agents: "
                         f"{', '.join(fs)}; "
                         f"packages add agents through the entry-point group "
                         f"{ENTRY_POINT_GROUP!r}, and a spec may name any factory as "
                         f"'mymodule:make_bot' or 'path/to/bot.py:make_bot'")


def factory_parameters(factory) -> tuple[list[str], bool]:
    """(the keyword parameters a spec may set, whether it takes ``**kwargs``): the
    factory's parameters after the first three (``game, player, seed``)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return [], True
    names, var = [], False
    ps = list(sig.parameters.values())
    for i, p in enumerate(ps):
        if p.kind is p.VAR_KEYWORD:
            var = True
        elif i >= 3 and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return names, var


def factory_name(f) -> str:
    """The dotted name of a factory, for messages (``solvers._pimc.PIMCBot``)."""
    mod = getattr(f, "__module__", None)
    q = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return f"{mod}.{q}" if mod else q


# ---------------------------------------------------------------- factories by location
def _import_file(target: str, name: str):
    """The module of the Python file ``target``, imported once per process under a
    name unique to its resolved path."""
    shown = shorten(name, head=True)
    path = Path(target).expanduser()
    if not path.is_file():
        where = "" if path.is_absolute() else f" (relative to {os.getcwd()})"
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise AgentSpecError(f"agent spec {shown}: the file {target!r}{where} {what}; "
                             f"expected path/to/file.py:FACTORY")
    if path.suffix != ".py":
        raise AgentSpecError(f"agent spec {shown}: {target!r} is not a Python file "
                             f"(expected a name ending in .py)")
    resolved = path.resolve()
    stem = "".join(c if c.isalnum() else "_" for c in resolved.stem)
    modname = (f"_cancellation_hearts_agent_{stem}_"
               f"{hashlib.sha256(str(resolved).encode()).hexdigest()[:12]}")
    if modname in sys.modules:
        return sys.modules[modname]
    spec = importlib.util.spec_from_file_location(modname, resolved)
    if spec is None or spec.loader is None:
        raise AgentSpecError(f"agent spec {shown}: {target!r} cannot be imported as a "
                             f"Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    folder = str(resolved.parent)       # the file's folder, for its sibling imports only
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        del sys.modules[modname]
        raise
    except BaseException as e:          # SystemExit too: a user's file must not end the run
        del sys.modules[modname]
        raise AgentSpecError(f"agent spec {shown}: importing the file {target!r} "
                             f"raised {type(e).__name__}: {e}") from e
    finally:
        if sys.path and sys.path[0] == folder:
            del sys.path[0]
        elif folder in sys.path:
            sys.path.remove(folder)
    return module


def _import_module(target: str, name: str):
    shown = shorten(name, head=True)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name and (target == e.name or target.startswith(e.name + ".")):
            raise AgentSpecError(
                f"agent spec {shown}: no module named {e.name!r} (not installed and "
                f"not on sys.path); for a file write path/to/file.py:FACTORY") from None
        raise AgentSpecError(f"agent spec {shown}: importing module {target!r} raised "
                             f"{type(e).__name__}: {e}") from e
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        raise AgentSpecError(f"agent spec {shown}: importing module {target!r} raised "
                             f"{type(e).__name__}: {e}") from e


def _external(name: str) -> Factory:
    """The factory (or ``pyspiel.Bot`` subclass) named ``"TARGET:attribute"``."""
    shown = shorten(name, head=True)
    target, _, attr = name.rpartition(":")
    is_file = is_file_target(target)
    module = _import_file(target, name) if is_file else _import_module(target, name)
    where = f"the file {target!r}" if is_file else f"module {target!r}"
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = sorted(k for k, v in vars(obj).items()
                           if callable(v) and not k.startswith("_")
                           and getattr(v, "__module__", None) == module.__name__)
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise AgentSpecError(f"agent spec {shown}: {where} has no attribute "
                                 f"{part!r}{hint}; what it defines: "
                                 f"{', '.join(names) or 'no functions or classes'}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentSpecError(f"agent spec {shown}: {attr!r} of {where} is a "
                             f"{type(obj).__name__}, not a factory f(game, player, seed, "
                             f"**params) or a pyspiel.Bot subclass")
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):     # e.g. a pybind class: checked when called
        return obj
    try:
        sig.bind(None, None, None)
    except TypeError as e:
        raise AgentSpecError(f"agent spec {shown}: {attr}{sig} cannot be called as "
                             f"{attr}(game, player, seed, **params) ({e}); a factory takes "
                             f"the game, the seat and the seed first") from None
    return obj

