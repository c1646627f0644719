"""The agent interface and the baseline agents.

**The plug-in interface.** An agent is a :class:`pyspiel.Bot` playing one
seat of one game. Anything built on ``pyspiel.Bot`` plays in our tournaments
(OpenSpiel's own bots included), and every agent here plays in OpenSpiel's
``pyspiel.evaluate_bots``. :class:`Agent` is a convenient base class: a
subclass implements one method,

    _policy_and_action(state) -> (policy, action)

where ``policy`` is a list of ``(action, probability)`` over the legal actions
and ``action`` the one chosen; :class:`Agent` provides ``step``,
``step_with_policy``, ``get_policy``, ``provides_policy`` and the no-op
``restart``/``restart_at``/``inform_action`` that ``evaluate_bots`` calls.
Agents are built by a *factory* ``factory(game, player, seed, **params)``
(see :mod:`solvers.registry`); all randomness comes from ``seed``.

An agent is called only at its own decision nodes: the passing phase (one
card per decision), trick play, and the moon choice of ``moon="choose"``.

Agents here:

* :class:`RandomBot` (``random``): uniform over the legal actions.
* :class:`HeuristicBot` (``heuristic``): the rule-based player
  :func:`spiel_game.policies.heuristic_policy`, the same compiled function the
  batch simulator and the search rollouts use, so its logic lives in one
  place. In words: it passes the most dangerous cards (a Black Maria, then
  the A/K of spades, then high hearts, then other high cards); following
  suit it ducks under the card currently winning, counting cancellation (a
  card whose twin is already in the trick cannot win, and playing the twin
  of the winning card cancels it); void in the suit led it dumps a Black
  Maria, then its highest heart, then A/K of spades while a Black Maria is
  out; it leads low in safe suits, or plays the Aardvark (leads its Black
  Maria when the twin is still out and it holds no higher spade); it takes
  the moon by subtracting.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from spiel_game import engine as E
from spiel_game.policies import heuristic_policy, make_rng_state, rand_below

__all__ = ["Agent", "RandomBot", "HeuristicBot"]


class Agent(pyspiel.Bot):
    """Base class of our agents: a seeded ``pyspiel.Bot`` for one seat.

    Subclasses implement ``_policy_and_action(state)``. ``game`` is the
    pyspiel game, ``player`` the seat, ``seed`` the only source of randomness.
    """

    def __init__(self, game, player: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = int(player)
        self.seed = int(seed)

    # The methods pyspiel.evaluate_bots and our tournaments call.
    def step(self, state) -> int:
        return int(self.step_with_policy(state)[1])

    def step_with_policy(self, state):
        if state.is_chance_node() or state.is_terminal():
            return [], pyspiel.INVALID_ACTION
        policy, action = self._policy_and_action(state)
        return policy, int(action)

    def get_policy(self, state):
        return self.step_with_policy(state)[0]

    def provides_policy(self) -> bool:
        return True

    def restart(self) -> None:
        pass

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def _policy_and_action(self, state):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(player={self.player}, seed={self.seed})"


class RandomBot(Agent):
    """Uniform over the legal actions (a splitmix64 stream seeded by ``seed``)."""

    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(game, player, seed)
        self._rng = make_rng_state(np.uint64(self.seed), 0)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal], legal[rand_below(self._rng, len(legal))]


class HeuristicBot(Agent):
    """The compiled rule-based player :func:`spiel_game.policies.heuristic_policy`
    (documented in this module's docstring); deterministic."""

    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(game, player, seed)
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        self._legal = np.empty(E.K + 2, np.int32)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        P = state.engine_params
        s = np.array(state.engine_state)
        k = E.legal_into(P, s, self._legal)
        a = int(heuristic_policy(P, s, self._legal, k, self._rng))
        return [(b, 1.0 if b == a else 0.0) for b in legal], a
