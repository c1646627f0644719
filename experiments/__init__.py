"""Experiments: registered units of work, run locally or on Ray, with resumable results.

From Python or a notebook::

    import experiments
    experiments.list_experiments()                      # {name: description}
    res = experiments.run("rules_stats", profile="quick", overrides={"hands": 2000})
    res.rows, res.tables["summary"], res.metadata       # pandas tables, provenance
    experiments.load("rules_stats", profile="quick")    # the profile's saved results
    experiments.load("rules_stats", overrides={"hands": 2000})   # that run's, verified

A script that runs with several local workers (the default) puts the call
under ``if __name__ == "__main__":`` (workers are spawned and import the
script again); without the guard the runner warns and uses one process.

The command line is ``python -m experiments`` (``experiments/__main__.py`` parses
and dispatches; :mod:`.reproduce` runs a profile, ships and checks results);
the plug-in interface is ``register``, ``Unit`` and ``Summary``, re-exported
here from :mod:`experiments._base.registry`.

Layout by role: infrastructure here (:mod:`experiments.runner`, a folder of
modules, one role each; :mod:`experiments._base` with the registry, typed
configs, provenance metadata and the statistics that every folder uses;
:mod:`experiments._figures` for the paper's figure scripts,
:mod:`experiments.tournament` for duplicate-deal matches, also a folder); every study in
:mod:`experiments.studies`; the benchmarks in :mod:`experiments.bench`
(``python -m experiments.bench.engine``).
Algorithms live in :mod:`solvers`, never here.
"""

from __future__ import annotations

__all__ = ["run", "load", "list_experiments", "register", "Unit", "UnitOutput", "Summary"]


def run(name: str, **kwargs):
    """:func:`experiments.runner.run`: run (or resume) one experiment."""
    from .runner import run as _run
    return _run(name, **kwargs)


def load(name: str, profile: str = "quick", out=None, **kwargs):
    """:func:`experiments.runner.load`: the saved, verified results of a finished run
    (``overrides=``, ``config_file=``, ``seed=`` find the folder of that configuration)."""
    from .runner import load as _load
    return _load(name, profile, out, **kwargs)


def list_experiments() -> dict[str, str]:
    """``{name: description}`` of every registered experiment."""
    from ._base.registry import experiments
    return {k: v.description for k, v in experiments().items()}


def register(*args, **kwargs):
    """:func:`experiments._base.registry.register`."""
    from ._base.registry import register as _register
    return _register(*args, **kwargs)


def __getattr__(name):
    """``Unit``, ``UnitOutput`` and ``Summary`` of :mod:`experiments._base.registry`
    (imported on first use)."""
    if name in ("Unit", "UnitOutput", "Summary"):
        from ._base import registry
        return getattr(registry, name)
    raise AttributeError(f"module 'experiments' has no attribute {name!r}")
