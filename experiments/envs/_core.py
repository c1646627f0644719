"""What the PettingZoo and Gymnasium environments share.

* :func:`make_game`: the game from keyword parameters (every parameter of
  ``spiel_game.PARAMETER_DEFAULTS``), bad ones raising
  ``spiel_game.GameParameterError`` naming what is allowed.
* :class:`TensorView`: the observation tensor of one kind
  (``"information_state"`` or ``"observation"``), its Box space with bounds
  from the rules, and a fresh ``float32`` copy for a seat.
* :func:`sample_chance`: plays chance nodes (the deal) with a numpy Generator.
* :func:`score_utility`: each seat's utility if the game ended with the scores
  it has now; rewards are its differences, so they arrive at the end of each
  hand and add up to ``state.returns()``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyspiel
from gymnasium import spaces

import spiel_game
from spiel_game import _engine as E
from spiel_game.observers import tensor_layout
from spiel_game._rules import RuleSet

__all__ = ["OBSERVATION_KINDS", "make_game", "TensorView", "sample_chance", "score_utility",
           "action_mask", "checked_action", "describe_illegal"]

#: The observation tensors an environment can serve: name -> observer type.
OBSERVATION_KINDS = {
    "information_state": pyspiel.IIGObservationType(perfect_recall=True),
    "observation": pyspiel.IIGObservationType(perfect_recall=False),
}


def make_game(params: Mapping) -> pyspiel.Game:
    """``python_cancellation_hearts`` with ``params`` (the rest default).

    Raises ``spiel_game.GameParameterError`` (a ``ValueError``) naming an unknown
    parameter or a bad value and what is allowed."""
    return spiel_game.load(dict(params))


def _check_kind(observation: str) -> str:
    if not isinstance(observation, str) or observation not in OBSERVATION_KINDS:
        raise ValueError(f"observation={observation!r} is not a tensor kind; allowed: "
                         f"{sorted(OBSERVATION_KINDS)}")
    return observation


class TensorView:
    """One observation tensor kind of one game: the Box space and the tensors.

    Bounds: every piece is a one-hot, thermometer or fraction in [0, 1] except
    ``points`` (points taken / penalty points in the deck; negative cards such
    as ``jack_of_diamonds`` go below 0) and ``scores`` (match score / target,
    bounded by the rules' utility range)."""

    def __init__(self, game, observation: str = "information_state"):
        self.kind = _check_kind(observation)
        obs_type = OBSERVATION_KINDS[self.kind]
        self._observer = game.make_py_observer(obs_type)
        size = int(self._observer.tensor.size)
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        rules: RuleSet = game.rules
        for name, off, shape in tensor_layout(game, obs_type):
            k = int(np.prod(shape, dtype=np.int64))
            if name == "points":
                low[off:off + k] = min(0, rules.bonus_points) / max(rules.penalty_points, 1)
            elif name == "scores":
                as_points = RuleSet.from_params({**dict(rules.params), "utility": "points"})
                umin, umax = as_points.utility_range()        # = (-max score, -min score)
                target = max(rules.target_score, 1)
                low[off:off + k] = min(0.0, -umax) / target
                high[off:off + k] = max(1.0, -umin) / target
        self.size = size
        self.low, self.high = low, high

    def space(self) -> spaces.Box:
        """A new Box of this tensor (a new object each call: spaces are seeded per agent)."""
        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    def tensor(self, state, player: int) -> np.ndarray:
        """A fresh ``float32`` copy of ``player``'s tensor of ``state``."""
        self._observer.set_from(state, player)
        return np.array(self._observer.tensor, np.float32, copy=True)


def sample_chance(state, rng: np.random.Generator) -> None:
    """Apply chance outcomes drawn with ``rng`` until ``state`` is not a chance node."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        probs = np.fromiter((p for _, p in outcomes), np.float64, len(outcomes))
        i = int(rng.choice(len(outcomes), p=probs / probs.sum()))
        state.apply_action(int(outcomes[i][0]))


def score_utility(state) -> np.ndarray:
    """Each seat's utility as if the game ended with the current scores (the
    ``utility`` parameter's formula over ``scores``, the sum of the hands scored
    so far). At a terminal state it equals ``state.returns()``."""
    s, P = state.engine_state, state.engine_params
    scores = np.asarray(E.scores(P, s), np.float64)
    if state.rules.utility == "points":
        return -scores
    n = len(scores)
    return (scores.sum() - scores) / (n - 1) - scores


def action_mask(state, player: int, num_actions: int) -> np.ndarray:
    """``int8[num_actions]``: 1 for ``player``'s legal actions (all 0 off turn)."""
    mask = np.zeros(num_actions, np.int8)
    if not state.is_terminal() and state.current_player() == player:
        mask[state.legal_actions()] = 1
    return mask


def checked_action(state, action, who: str) -> int | None:
    """``action`` as an int if it is legal in ``state``, else None. Raises
    ``TypeError`` for something that is not an integer (bools included)."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise TypeError(f"{who}: an action is an integer (a card id 0..52, or 53/54 for "
                        f"the moon choice), got {action!r} of type {type(action).__name__}")
    a = int(action)
    return a if a in state.legal_actions() else None


def describe_illegal(state, action: int, who: str) -> str:
    """The message for an illegal ``action``: what it is and the legal actions."""
    name = state.action_to_string(state.current_player(), action) if 0 <= action <= 54 \
        else str(action)
    legal = [f"{a} ({state.action_to_string(state.current_player(), a)})"
             for a in state.legal_actions()]
    return f"{who}: action {action} ({name}) is not legal now; legal: {', '.join(legal)}"
