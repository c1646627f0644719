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

__all__ = ["BUILTIN_AGENTS", "BUILTIN_NEEDS"]

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

#: What a built-in agent needs beyond a plain install before it plays (every other
#: one plays as installed, the networks from the shipped models): ``python -m
#: experiments agents`` prints it under the agent.
BUILTIN_NEEDS: dict[str, str] = {
    "dqn": ("a checkpoint from your own training run (none ships): python -m "
            "solvers.openspiel_rl train --algorithm dqn --out dqn.pt, then "
            "dqn(checkpoint='dqn.pt'); the extra 'torch'"),
    "nfsp": ("a checkpoint from your own training run (none ships): python -m "
             "solvers.openspiel_rl train --algorithm nfsp --out nfsp.pt, then "
             "nfsp(checkpoint='nfsp.pt'); the extra 'torch'"),
    "xinxin": ("the xinxin driver program (GPL, not shipped), built once in a source "
               "checkout: make xinxin XINXIN_SRC=/path/to/hearts (docs/xinxin.md), or named "
               "with $XINXIN_BINARY or binary=...; plays the classic game only"),
}
