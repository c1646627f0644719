"""Agents (solvers that play) for Cancellation Hearts, and the plug-in registry.

``make_agent("ismcts(iterations=2000)", game, player, seed)`` builds any
registered agent as a ``pyspiel.Bot`` (see :mod:`solvers._registry`); the
agents live in :mod:`solvers._base.bots` (``random``, ``heuristic``),
:mod:`solvers._pimc` and :mod:`solvers._ismcts`. The named card-passing
conventions of the passing studies and of the ``convention`` agent
(:data:`CONVENTIONS`, described in :mod:`solvers._base.passing`) choose a
pass with :func:`choose_pass`. Names are
imported lazily, so ``import solvers.<submodule>`` stays cheap.
"""

from pathlib import Path as _Path

__all__ = ["Agent", "RandomBot", "HeuristicBot", "PIMCBot", "ISMCTSBot",
           "AgentSpec", "AgentSpecError", "AgentFactoryError", "AgentParameterError",
           "ENTRY_POINT_GROUP", "parse_spec", "make_agent", "register", "factories", "describe",
           "openspiel_seed", "CONVENTIONS", "choose_pass"]

_WHERE = {"Agent": "_base.bots", "RandomBot": "_base.bots", "HeuristicBot": "_base.bots",
          "PIMCBot": "_pimc",
          "ISMCTSBot": "_ismcts", "AgentSpec": "_registry",
          "AgentSpecError": "_registry", "AgentFactoryError": "_registry",
          "AgentParameterError": "_base.bots", "openspiel_seed": "_registry",
          "ENTRY_POINT_GROUP": "_registry",
          "parse_spec": "_registry", "make_agent": "_registry", "register": "_registry",
          "factories": "_registry", "describe": "_registry",
          "CONVENTIONS": "_base.passing", "choose_pass": "_base.passing"}


def _numba_cache_guard() -> None:
    """The search kernels inline the engine's: drop this folder's cached kernels
    when a source of ``spiel_game``, of these modules, of ``solvers/_base``,
    ``solvers/beliefs`` or ``solvers/net`` changed (the same for the caches of
    ``solvers/_base`` and ``solvers/beliefs``)."""
    from spiel_game._numba_cache import engine_sources, guard
    here = _Path(__file__).resolve().parent
    # solvers/beliefs/_replay.py inlines the network's forward pass (solvers/net/), and
    # the search inlines the beliefs' kernels.
    sources = (sorted(here.glob("*.py")) + sorted((here / "_base").glob("*.py"))
               + sorted((here / "beliefs").glob("*.py"))
               + sorted((here / "net").glob("*.py")) + engine_sources())
    for folder in (here, here / "_base", here / "beliefs"):
        guard(folder / "__pycache__", sources)


_numba_cache_guard()


def __getattr__(name):
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'solvers' has no attribute {name!r}")
