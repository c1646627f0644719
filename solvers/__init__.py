"""Agents (solvers that play) for Cancellation Hearts, and the plug-in registry.

``make_agent("ismcts(iterations=2000)", game, player, seed)`` builds any
registered agent as a ``pyspiel.Bot`` (see :mod:`solvers.registry`); the
agents live in :mod:`solvers.bots` (``random``, ``heuristic``),
:mod:`solvers.pimc` and :mod:`solvers.ismcts`. Names are imported lazily, so
``import solvers.<submodule>`` stays cheap.
"""

import hashlib as _hashlib
from pathlib import Path as _Path

__all__ = ["Agent", "RandomBot", "HeuristicBot", "PIMCBot", "ISMCTSBot", "Determinizer",
           "AgentSpec", "AgentSpecError", "ENTRY_POINT_GROUP", "parse_spec", "make_agent",
           "register", "factories", "describe"]

_WHERE = {"Agent": "bots", "RandomBot": "bots", "HeuristicBot": "bots", "PIMCBot": "pimc",
          "ISMCTSBot": "ismcts", "Determinizer": "ismcts", "AgentSpec": "registry",
          "AgentSpecError": "registry", "ENTRY_POINT_GROUP": "registry",
          "parse_spec": "registry", "make_agent": "registry", "register": "registry",
          "factories": "registry", "describe": "registry"}


def _numba_cache_guard() -> None:
    """numba's on-disk cache does not notice edits to *called* functions in other
    modules (the engine kernels inlined in the search): drop this folder's cached
    kernels when a source of ``spiel_game`` or of these modules changed."""
    here = _Path(__file__).resolve().parent
    digest = _hashlib.sha256()
    for f in sorted(here.glob("*.py")) + sorted((here.parent / "spiel_game").glob("*.py")):
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    stamp = here / "__pycache__" / "numba_sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        stamp.parent.mkdir(exist_ok=True)
        for f in list(stamp.parent.glob("*.nbi")) + list(stamp.parent.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass


_numba_cache_guard()


def __getattr__(name):
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'solvers' has no attribute {name!r}")
