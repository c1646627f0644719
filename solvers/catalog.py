"""The built-in agents: one catalog of ``"module:attr"`` factories.

:mod:`solvers.registry` resolves these names on use, and ``pyproject.toml``
declares the same entries in the entry-point group
``cancellation_hearts.agents`` (``tests/test_registry.py`` keeps the two
equal), so the built-ins and third-party plug-ins load the same way. Each
value names a factory ``factory(game, player, seed, **params) -> pyspiel.Bot``
(see the factory contract in :mod:`solvers.registry`); nothing is imported
here.
"""

from __future__ import annotations

__all__ = ["BUILTIN_AGENTS"]

#: Built-in agent name -> ``"module:attr"`` of its factory.
BUILTIN_AGENTS: dict[str, str] = {
    "random": "solvers.bots:RandomBot",
    "heuristic": "solvers.bots:HeuristicBot",
    "pimc": "solvers.pimc:PIMCBot",
    "ismcts": "solvers.ismcts:ismcts_agent",
    "openspiel_ismcts": "solvers.registry:openspiel_ismcts",
    "openspiel_uniform": "solvers.registry:openspiel_uniform",
    "dqn": "solvers.openspiel_rl:dqn_agent",
    "nfsp": "solvers.openspiel_rl:nfsp_agent",
    "network": "solvers.registry:network",
    "ismcts_net": "solvers.registry:ismcts_net",
    "ismcts_bias": "solvers.registry:ismcts_bias",
    "convention": "solvers.abr:convention_agent",
    "abr": "solvers.abr:ABRBot",
    "xinxin": "solvers.xinxin:XinxinBot",
}
