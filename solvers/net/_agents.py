"""The network as agents: ``network`` (the raw policy) and the evaluator cache.

``network(checkpoint=..., policy='argmax')``: one network evaluation per
decision (:class:`solvers.net._inference.NetEvaluator`): ``argmax`` plays the
most probable legal action (ties at random), ``sample`` draws from the policy
(sharpened or flattened by ``temperature``). Illegal actions have probability
0 (masked before the softmax), so it never plays one.
``ismcts_net`` (the network-guided search) is :class:`solvers._ismcts_net.NetISMCTSBot`.
Both take the checkpoint's path, a shipped model's name, or nothing (the
shipped model made for the game, :func:`solvers.net.zoo.default_for`); a process loads each
checkpoint once (:func:`evaluator_for`, keyed by path, size and modification
time).
"""

from __future__ import annotations

import os

import numpy as np

from spiel_game._rng import make_rng_state, rand_below, rand_uniform

from .._base.bots import Agent, AgentParameterError, check_choice, check_real
from . import zoo
from ._checkpoint import CheckpointError
from ._features import GameFamilyError
from ._inference import NetEvaluator

__all__ = ["NetworkBot", "evaluator_for", "POLICIES"]

POLICIES = ("argmax", "sample")
_CACHE: dict[tuple, NetEvaluator] = {}


def evaluator_for(agent: str, checkpoint, game, keyword: str = "checkpoint") -> NetEvaluator:
    """The :class:`NetEvaluator` of ``checkpoint`` for ``game``; a missing, damaged
    or mismatched checkpoint is an :class:`AgentParameterError` naming the agent
    and the keyword that gave it (``keyword``). ``checkpoint``: a path, the name
    of a shipped model (:mod:`solvers.net.zoo`), or, for ``keyword='checkpoint'``,
    None: the shipped model made for ``game`` (:func:`solvers.net.zoo.default_for`)."""
    if checkpoint is not None or keyword == "checkpoint":
        try:
            checkpoint = zoo.resolve(zoo.default_for(game) if checkpoint is None
                                     else checkpoint)
        except (CheckpointError, KeyError) as err:
            raise AgentParameterError(f"{agent}: {keyword}={checkpoint!r}: "
                                      f"{err.args[0]}") from None
    if not isinstance(checkpoint, (str, os.PathLike)) or not str(checkpoint):
        raise AgentParameterError(f"{agent}: {keyword}={checkpoint!r}; allowed: the path of a "
                                  f"network checkpoint (.npz) or a shipped model's name "
                                  f"({', '.join(sorted(zoo.models()))}), e.g. {agent}("
                                  f"{keyword}='{zoo.DEFAULT_MODEL}')")
    path = os.path.abspath(str(checkpoint))
    try:
        st = os.stat(path)
        key = (path, st.st_size, st.st_mtime_ns)
    except OSError:
        key = (path,)
    try:
        ev = _CACHE.get(key)
        if ev is None:
            ev = NetEvaluator(path)
            _CACHE.clear() if len(_CACHE) > 16 else None
            _CACHE[key] = ev
        ev.game_arrays(game)
    except (CheckpointError, GameFamilyError) as err:
        raise AgentParameterError(f"{agent}: {keyword}={str(checkpoint)!r}: {err}") from None
    return ev


class NetworkBot(Agent):
    """The raw policy network, one evaluation per decision (module docstring); the
    built-in agent ``network``. ``checkpoint``: a path or a shipped model's name
    (None: the shipped model made for the game's rules and player count,
    :func:`solvers.net.zoo.default_for`).

    Args (keyword-only): ``checkpoint`` (path), ``policy`` (``argmax`` or
    ``sample``), ``temperature`` (for ``sample``: probabilities ** (1 / T),
    a number in [0.01, 100]).
    """

    def __init__(self, game, player: int, seed: int = 0, *, checkpoint: str | None = None,
                 policy: str = "argmax", temperature: float = 1.0):
        super().__init__(game, player, seed)
        a = "network"
        self.evaluator = evaluator_for(a, checkpoint, game)
        self.policy = check_choice(a, "policy", policy, POLICIES)
        self.temperature = check_real(a, "temperature", temperature, 0.01, 100.0)
        self._rng = make_rng_state(np.uint64(self.seed), 0)

    def action_probabilities(self, state) -> np.ndarray:
        """The network's policy at ``state`` (zero on illegal actions)."""
        probs, _ = self.evaluator.evaluate(self.game, np.asarray(state.engine_state),
                                           [state.current_player()])
        return probs[0]

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        pr = self.action_probabilities(state)
        ps = pr[legal]
        if self.policy == "sample":
            w = ps ** (1.0 / self.temperature)
            w = w / w.sum()
            u = rand_uniform(self._rng)
            i = min(int(np.searchsorted(np.cumsum(w), u, side="right")), len(w) - 1)
            return list(zip(legal, w.tolist())), legal[i]
        best = np.flatnonzero(ps == ps.max())
        return list(zip(legal, ps.tolist())), legal[int(best[rand_below(self._rng, len(best))])]
