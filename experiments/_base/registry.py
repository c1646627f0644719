"""The plug-in interface of the experiment runner.

An experiment is four things, registered under a name at import time of its
module (``experiments/studies/<module>.py``)::

    from experiments import register, Unit, Summary

    @dataclasses.dataclass(frozen=True)
    class RoundRobinConfig:             # typed, closed, carries its seed
        seed: int = 0
        games: int = 100
        bots: tuple[str, ...] = ("random", "pimc")

    def units(config) -> list[dict]:    # the work, split deterministically
        return [{"a": a, "b": b} for a in config.bots for b in config.bots]

    def run_unit(config, unit: Unit) -> list[dict]:   # one unit's tidy rows
        rng = unit.rng()                 # seeded from (config.seed, unit.index)
        return [{"a": unit.params["a"], "b": unit.params["b"], "game": g, ...}
                for g in range(config.games)]

    def summarize(config, rows: pandas.DataFrame) -> Summary:   # optional
        return Summary(tables={"summary": rows.groupby(["a", "b"]).mean()}, text="...")

    register("round_robin", RoundRobinConfig, units, run_unit, summarize,
             profiles={"quick": {"games": 20}, "paper": {"games": 5000}},
             description="round-robin of the bots")

Rules:

* ``units(config)`` returns JSON-serializable dicts, the same list for the same
  config. The runner numbers them and gives each a seed derived from the
  config seed and its index (:attr:`Unit.seed`, :meth:`Unit.rng`). A unit whose
  answer must not depend on how the work is split should draw its random
  streams from the work itself instead (e.g. ``simulate(seed=..., first_hand=...)``).
* ``run_unit(config, unit)`` is a module-level function (it is pickled by
  reference to worker processes and Ray workers) returning a list of flat
  dicts or a DataFrame (or a :class:`UnitOutput`: rows plus attachments kept
  beside them); its rows must be deterministic given ``(config, unit)``. It
  may use :func:`experiments.runner.unit_threads` threads, and may report how
  far it is with :func:`experiments.runner.unit_progress` ``(done, total)``
  so that the progress bar moves before the unit finishes.
* ``summarize(config, rows)`` (optional) returns a :class:`Summary`, a
  DataFrame (the table ``summary``) or a string.
* Figure and table scripts (``paper/figures/*.py``, ``paper/tables/*.py``) read
  ``results/<profile>/<name>/rows.csv`` and ``<table>.csv`` (see the runner).

The runner finds experiments by importing every module of the
``experiments.studies`` package whose source calls ``register(``; modules
elsewhere register by being imported (or are named in
``CH_EXPERIMENT_MODULES``, comma-separated).
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import importlib
import os
import pkgutil
import sys
import traceback
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .config import MAX_UNITS, ConfigError, check_config_class, make_config

__all__ = ["register", "get", "experiments", "Experiment", "Unit", "UnitOutput", "Summary",
           "table_text", "discovery_errors", "unit_seed", "UnknownExperimentError"]

_REGISTRY: dict[str, Experiment] = {}
_ERRORS: dict[str, str] = {}
_DISCOVERED = False
_PACKAGE = __package__.rsplit(".", 1)[0]   # experiments
_STUDIES = "studies"                # the package whose modules register the studies


class UnknownExperimentError(KeyError):
    """No experiment, or no profile, by that name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def unit_seed(seed: int, index: int) -> int:
    """The seed of unit ``index`` of a run seeded ``seed`` (a 63-bit int)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(index),))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


@dataclasses.dataclass(frozen=True)
class Unit:
    """One piece of work: its position, its seed and its parameters."""

    index: int
    seed: int
    params: Mapping[str, Any]

    def rng(self) -> np.random.Generator:
        """A numpy Generator seeded with :attr:`seed`."""
        return np.random.default_rng(self.seed)


@dataclasses.dataclass(frozen=True)
class UnitOutput:
    """What ``run_unit`` may return instead of bare rows: the unit's tidy ``rows``
    and ``attachments``, JSON-serializable values kept with the unit's shard but
    not in the tables (e.g. the full game records of a tournament's deals).
    Attachments are saved and verified with the shard and read back in unit order
    by :func:`experiments.runner.attachments`; they never change the rows."""

    rows: Any
    attachments: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Summary:
    """What ``summarize`` returns: named tables (written as ``<name>.csv``) and text."""

    tables: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    text: str = ""


def table_text(table, digits: int) -> str:
    """A summary table as text (``Summary.text``), its floats rounded to ``digits``
    decimals and a negative zero shown as ``0.0``."""
    t = table.round(digits)
    cols = t.select_dtypes("float").columns
    t[cols] = t[cols] + 0.0
    return t.to_string()


@dataclasses.dataclass(frozen=True)
class Experiment:
    name: str
    config_cls: type
    units_fn: Callable[[Any], list]
    unit_fn: Callable[[Any, Unit], Any]
    summary_fn: Callable[[Any, Any], Any] | None
    profiles: Mapping[str, Any]
    description: str
    reproduce: bool
    module: str
    call_time_limit_fn: Callable[[Any], float | None] | None = None
    sources_fn: Callable[[Any], Mapping[str, str]] | None = None

    def config(self, profile: str = "quick", overrides: Mapping[str, Any] | None = None):
        """The profile's configuration with ``overrides`` applied (types converted)."""
        if profile not in self.profiles:
            close = difflib.get_close_matches(str(profile), list(self.profiles), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownExperimentError(f"experiment {self.name!r} has no profile "
                                         f"{profile!r}{hint}; profiles: {sorted(self.profiles)}")
        base = self.profiles[profile]
        if isinstance(base, Mapping):
            base = make_config(self.config_cls, None, base)
        return make_config(self.config_cls, base, overrides)

    def units(self, config) -> list[Unit]:
        """The units of ``config`` (at most :data:`experiments._base.config.MAX_UNITS`;
        a units function may yield them, so a larger count is refused after
        ``MAX_UNITS + 1`` of them)."""
        params = list(itertools.islice(self.units_fn(config), MAX_UNITS + 1))
        if len(params) > MAX_UNITS:
            raise ConfigError(f"{self.name}: its config asks for more than {MAX_UNITS:,} units "
                              f"of work; a run has at most {MAX_UNITS:,} (make the chunks "
                              f"larger)")
        for p in params:
            if not isinstance(p, Mapping):
                raise TypeError(f"{self.name}: units() must return dicts, got {type(p).__name__}")
        return [Unit(i, unit_seed(config.seed, i), dict(p)) for i, p in enumerate(params)]


def register(name: str, config_cls: type, units_fn: Callable, unit_fn: Callable,
             summary_fn: Callable | None = None, *, profiles: Mapping[str, Any] | None = None,
             description: str = "", reproduce: bool = True,
             call_time_limit: Callable[[Any], float | None] | None = None,
             sources: Callable[[Any], Mapping[str, str]] | None = None) -> Experiment:
    """Register an experiment (see the module docstring).

    Args:
      name: what ``python -m experiments run NAME`` and the results folder use.
      config_cls: a frozen dataclass with a ``seed: int`` field.
      units_fn: ``units(config) -> list[dict]``.
      unit_fn: ``run_unit(config, unit) -> list[dict] | DataFrame``.
      summary_fn: optional ``summarize(config, rows) -> Summary | DataFrame | str``.
      profiles: ``{"quick": ..., "paper": ...}``, each a config instance or a
        dict of overrides of the defaults; a missing one means the defaults.
      description: one line for ``python -m experiments list``.
      reproduce: whether ``make reproduce`` runs it.
      call_time_limit: optional ``f(config) -> seconds | None``: the longest a
        call the units report (:func:`experiments.runner.call_watch`) may take
        before the local backend stops the run; the units then run in worker
        processes (at least one).
      sources: optional ``f(config) -> {label: sha256}``: the code and files the
        results depend on besides this package (e.g. ``"agent module
        /path/bot.py"``, ``"checkpoint /path/net.pt"``); a saved unit made with
        other contents is recomputed (:func:`experiments.runner.run`).
    """
    check_config_class(config_cls)
    profiles = dict(profiles or {})
    for prof in ("quick", "paper"):
        profiles.setdefault(prof, {})
    exp = Experiment(name, config_cls, units_fn, unit_fn, summary_fn, profiles,
                     description or (config_cls.__doc__ or "").strip().split("\n")[0],
                     reproduce, getattr(unit_fn, "__module__", "?"), call_time_limit, sources)
    for prof in profiles:
        exp.config(prof)                  # validate every profile now
    old = _REGISTRY.get(name)
    if old is not None and old.module != exp.module:
        if exp.module == "__main__":      # `python -m experiments.studies.x` next to the import
            return old
        if old.module != "__main__":
            raise ValueError(f"experiment {name!r} is registered twice: by {old.module} "
                             f"and by {exp.module}")
    _REGISTRY[name] = exp
    return exp


def _candidates() -> list[tuple[str, str | None]]:
    """``(module, source)`` of the modules that may register experiments: those of
    :mod:`experiments.studies` whose source calls ``register(`` (source None:
    named in ``CH_EXPERIMENT_MODULES``)."""
    here = Path(__file__).resolve().parent.parent / _STUDIES
    out = []
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("_"):
            continue
        src = here / f"{info.name}.py"
        text = src.read_text(encoding="utf-8") if src.exists() else "register("
        if "register(" in text:
            out.append((f"{_PACKAGE}.{_STUDIES}.{info.name}", text))
    out += [(m.strip(), None) for m in os.environ.get("CH_EXPERIMENT_MODULES", "").split(",")
            if m.strip()]
    return out


def _import(mod: str) -> None:
    if mod in _ERRORS or mod in sys.modules:
        return
    try:
        importlib.import_module(mod)
    except Exception:  # one broken module must not hide the others
        _ERRORS[mod] = traceback.format_exc()
        print(f"warning: could not import experiment module {mod}: "
              f"{sys.exc_info()[1]!r}", file=sys.stderr)


def _discover(name: str | None = None) -> None:
    """Import the experiment modules: first those naming ``name``, else all."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    cands = _candidates()
    if name is not None:
        for mod, text in cands:
            if text is None or f'"{name}"' in text or f"'{name}'" in text:
                _import(mod)
        if name in _REGISTRY:
            return
    _DISCOVERED = True
    for mod, _ in cands:
        _import(mod)


def experiments() -> dict[str, Experiment]:
    """Every registered experiment, by name (sorted)."""
    _discover()
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> Experiment:
    if name in _REGISTRY:
        return _REGISTRY[name]
    _discover(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        _discover()
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        msg = f"no experiment {name!r}{hint}; registered: {sorted(_REGISTRY)}"
        if _ERRORS:
            msg += f"; modules that failed to import: {sorted(_ERRORS)}"
        raise UnknownExperimentError(msg) from None


def discovery_errors() -> dict[str, str]:
    """``{module: traceback}`` of experiment modules that failed to import."""
    _discover()
    return dict(_ERRORS)
