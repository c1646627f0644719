"""Monte Carlo CFR on pyspiel states, for games too large to extract as a tree.

Two samplers (Lanctot, Waugh, Zinkevich and Bowling 2009, "Monte Carlo
Sampling for Regret Minimization in Extensive Games"), one iteration = one
traversal per player, as in OpenSpiel's ``external_sampling_mccfr`` and
``outcome_sampling_mccfr``:

* :class:`ExternalSamplingMCCFR`: chance and the other players sampled, every
  action of the updating player explored; the average strategy is
  accumulated at the other players' nodes ("simple" averaging): on the
  traversal of player ``p``, *every* other player's visited nodes add their
  current strategy. With two players this is OpenSpiel's
  ``AverageType.SIMPLE``. With more than two it is not: OpenSpiel adds only
  at the nodes of player ``(p + 1) mod n`` on ``p``'s traversal (each player
  averaged once per iteration, here ``n - 1`` times), and neither matches
  the exact average for ``n > 2``: a node is visited with the sampling
  probability of the third players' actions too, so iterations are weighted
  by their reach (OpenSpiel's ``AverageType.FULL``, a separate exact pass,
  has no counterpart here).
* :class:`OutcomeSamplingMCCFR`: one path per traversal; the updating player
  samples from ``epsilon``-uniform exploration mixed with its current
  strategy, regrets and average are importance-weighted.

Tables are keyed by ``information_state_string``: each holds the legal
actions, cumulative regrets and the average-strategy numerator
(``float64[k]`` each). All randomness comes from the ``seed`` given
(a ``numpy.random.Generator`` is made from it); nothing reads a global RNG.
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

__all__ = ["ExternalSamplingMCCFR", "OutcomeSamplingMCCFR", "MCCFRPolicy"]


class _InfoSet:
    __slots__ = ("actions", "regret", "avg")

    def __init__(self, actions):
        self.actions = list(actions)
        k = len(self.actions)
        self.regret = np.zeros(k)
        self.avg = np.zeros(k)

    def policy(self) -> np.ndarray:
        """Regret matching of the cumulative regrets (uniform if none positive)."""
        pos = np.maximum(self.regret, 0.0)
        total = pos.sum()
        if total > 0:
            return pos / total
        return np.full(len(self.actions), 1.0 / len(self.actions))


class _MCCFRBase:
    name = "MCCFR"

    def __init__(self, game: pyspiel.Game, *, seed: int | np.random.Generator = 0):
        if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError("MCCFR needs a sequential game")
        self.game = game
        self.rng = np.random.default_rng(seed)
        self.tables: dict[str, _InfoSet] = {}
        self.iteration = 0
        self.seconds = 0.0
        self.nodes_touched = 0

    def _table(self, state, player) -> _InfoSet:
        key = state.information_state_string(player)
        node = self.tables.get(key)
        if node is None:
            node = self.tables[key] = _InfoSet(state.legal_actions())
        return node

    def _sample(self, probs) -> int:
        return int(self.rng.choice(len(probs), p=probs))

    def iterate(self, iterations: int = 1):
        """Run ``iterations`` more iterations (one traversal per player each)."""
        t0 = time.perf_counter()
        for _ in range(iterations):
            self.iteration += 1
            for p in range(self.game.num_players()):
                self._traverse_root(p)
        self.seconds += time.perf_counter() - t0
        return self

    def average_policy_dict(self) -> dict[str, dict[int, float]]:
        """``{information_state_string: {action: probability}}`` of the average
        strategy over the information sets visited so far."""
        out = {}
        for key, node in self.tables.items():
            total = node.avg.sum()
            k = len(node.actions)
            probs = node.avg / total if total > 0 else np.full(k, 1.0 / k)
            out[key] = dict(zip(node.actions, probs.tolist()))
        return out

    def average_policy(self) -> MCCFRPolicy:
        """The average strategy as an OpenSpiel ``Policy`` (uniform where unvisited)."""
        return MCCFRPolicy(self.game, self.average_policy_dict())


class ExternalSamplingMCCFR(_MCCFRBase):
    """External-sampling MCCFR ("simple" averaging at every other player's
    sampled nodes; with more than two players this differs from OpenSpiel's
    ``SIMPLE`` averaging, see the module docstring).

    Args:
      game: a sequential pyspiel game with perfect recall.
      seed: seed (or Generator) of every sample drawn.
    """

    name = "ES-MCCFR"

    def _traverse_root(self, p):
        self._traverse(self.game.new_initial_state(), p)

    def _traverse(self, state, p) -> float:
        self.nodes_touched += 1
        if state.is_terminal():
            return state.returns()[p]
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(outcomes[self._sample(np.asarray(probs))])
            return self._traverse(state, p)
        cur = state.current_player()
        node = self._table(state, cur)
        sigma = node.policy()
        if cur != p:
            node.avg += sigma
            state.apply_action(node.actions[self._sample(sigma)])
            return self._traverse(state, p)
        values = np.array([self._traverse(state.child(a), p) for a in node.actions])
        v = float(sigma @ values)
        node.regret += values - v
        return v


class OutcomeSamplingMCCFR(_MCCFRBase):
    """Outcome-sampling MCCFR with epsilon-on-policy exploration.

    Args:
      game: a sequential pyspiel game with perfect recall.
      seed: seed (or Generator) of every sample drawn.
      epsilon: weight of the uniform distribution in the updating player's
        sampling policy (default 0.6, as in Lanctot et al. 2009 and OpenSpiel).
    """

    name = "OS-MCCFR"

    def __init__(self, game, *, seed=0, epsilon: float = 0.6):
        super().__init__(game, seed=seed)
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon}")
        self.epsilon = float(epsilon)

    def _traverse_root(self, p):
        self._episode(self.game.new_initial_state(), p, 1.0, 1.0, 1.0)

    def _episode(self, state, p, my_reach, opp_reach, sample_reach) -> float:
        """Value estimate for ``p`` of ``state``, importance weighted by the
        caller's ``1 / sample_reach`` where it is used."""
        self.nodes_touched += 1
        if state.is_terminal():
            return state.returns()[p]
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            i = self._sample(np.asarray(probs))
            state.apply_action(outcomes[i])
            return self._episode(state, p, my_reach, probs[i] * opp_reach,
                                 probs[i] * sample_reach)
        cur = state.current_player()
        node = self._table(state, cur)
        sigma = node.policy()
        k = len(node.actions)
        if cur == p:
            sample = self.epsilon / k + (1.0 - self.epsilon) * sigma
        else:
            sample = sigma
        i = self._sample(sample)
        state.apply_action(node.actions[i])
        if cur == p:
            child = self._episode(state, p, my_reach * sigma[i], opp_reach,
                                  sample_reach * sample[i])
        else:
            child = self._episode(state, p, my_reach, opp_reach * sigma[i],
                                  sample_reach * sample[i])
        values = np.zeros(k)
        values[i] = child / sample[i]
        v = float(sigma @ values)
        if cur == p:
            w = opp_reach / sample_reach
            node.regret += (values - v) * w
            node.avg += my_reach * sigma / sample_reach
        return v


class MCCFRPolicy(os_policy.Policy):
    """An OpenSpiel ``Policy`` from ``{information_state_string: {action: prob}}``;
    uniform at information states not in the table."""

    def __init__(self, game, table: dict[str, dict[int, float]]):
        super().__init__(game, list(range(game.num_players())))
        self.table = table

    def action_probabilities(self, state, player_id=None):
        p = state.current_player() if player_id is None else player_id
        probs = self.table.get(state.information_state_string(p))
        if probs is not None:
            return dict(probs)
        legal = state.legal_actions(p)
        return {a: 1.0 / len(legal) for a in legal}
