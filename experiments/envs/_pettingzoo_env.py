"""Cancellation Hearts as a PettingZoo AEC environment (every seat an agent).

``env(**params)`` (wrapped in PettingZoo's order-enforcing wrapper) or
``raw_env(**params)``; ``params`` are any game parameters
(``spiel_game.PARAMETER_DEFAULTS``) plus

* ``observation``: ``"information_state"`` (default, perfect recall) or
  ``"observation"`` (the Markov summary); the tensor of
  ``spiel_game.observers`` for the agent's seat;
* ``render_mode``: None or ``"ansi"`` (``render()`` returns ``str(state)``,
  the full table: every hand, trick and score).

Agents are ``"player_0" .. "player_{n-1}"`` (seat ``i``). An observation is
``{"observation": float32 tensor, "action_mask": int8[num_distinct_actions]}``
(all zeros when the agent is not to move). Actions are the game's: card ids
0..52, and 53/54 (``moon:subtract``/``moon:add``) with ``moon="choose"``.
Passing is one card per step, seats in the game's order (from the dealer's
left); nobody's observation shows how far the others have got.

Rewards: an agent's reward is the change of its utility (the ``utility``
parameter applied to the scores) when a hand is scored, so a one-hand game
pays ``state.returns()`` at the end, and a match pays each hand's part, the
rewards of a match adding up to its returns. Chance (the deal) is sampled by
the environment with ``numpy.random.default_rng(seed)`` from ``reset(seed=)``;
the same seed and actions give the same game. ``env.unwrapped.game`` and
``.state`` are the pyspiel game and state (``.params``: every parameter's
value). An illegal action raises
``spiel_game.IllegalActionError`` naming the legal ones (PettingZoo's
``TerminateIllegalWrapper`` turns it into a penalty instead, if wanted).
"""

from __future__ import annotations

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from spiel_game import IllegalActionError

from ._core import (TensorView, action_mask, checked_action, describe_illegal, make_game,
                   sample_chance, score_utility)

__all__ = ["CancellationHeartsAEC", "raw_env", "env"]

RENDER_MODES = ("ansi",)


class CancellationHeartsAEC(AECEnv):
    """The PettingZoo AEC environment of one game (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cancellation_hearts_v0",
                "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, observation: str = "information_state",
                 **params):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, "
                             f"{', '.join(repr(m) for m in RENDER_MODES)}")
        self.render_mode = render_mode
        self.game = make_game(params)
        self.params = dict(self.game.get_parameters())
        self._view = TensorView(self.game, observation)
        self.observation_kind = self._view.kind
        n = self.game.num_players()
        self._num_actions = self.game.num_distinct_actions()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict({"observation": self._view.space(),
                            "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions)
                              for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.state = None

    def __str__(self) -> str:
        return "cancellation_hearts_v0"

    def _agent_seat(self, agent: str) -> int:
        if agent not in self._seat:
            raise KeyError(f"no agent {agent!r}; agents are {self.possible_agents}")
        return self._seat[agent]

    def observation_space(self, agent: str) -> spaces.Dict:
        """The Dict space of ``agent``'s observations (the same object each call)."""
        return self.observation_spaces[self.possible_agents[self._agent_seat(agent)]]

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(num_distinct_actions)`` for ``agent`` (the same object each call)."""
        return self.action_spaces[self.possible_agents[self._agent_seat(agent)]]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``seed``: restarts the environment's Generator
        (None keeps drawing from the current one; the first reset without a seed
        takes fresh entropy). ``options`` is accepted and ignored."""
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self.state = self.game.new_initial_state()
        sample_chance(self.state, self._rng)
        self._utility = score_utility(self.state)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s tensor and action mask (fresh arrays)."""
        seat = self._agent_seat(agent)
        return {"observation": self._view.tensor(self.state, seat),
                "action_mask": action_mask(self.state, seat, self._num_actions)}

    def step(self, action) -> None:
        """The selected agent plays ``action`` (None once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = checked_action(self.state, action, agent)
        if a is None:
            raise IllegalActionError(describe_illegal(self.state, int(action), agent))
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(a)
        sample_chance(self.state, self._rng)
        if self.state.is_terminal():
            now = np.asarray(self.state.returns(), np.float64)
        else:
            now = score_utility(self.state)
        self.rewards = {ag: float(now[i] - self._utility[i])
                        for i, ag in enumerate(self.possible_agents) if ag in self.agents}
        self._utility = now
        if self.state.is_terminal():
            self.terminations = {ag: True for ag in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``"ansi"``: the table as text (``str(state)``); None without a render mode."""
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; create the environment "
                        "with render_mode='ansi'")
            return None
        if self.state is None:
            return "(no game yet: call reset())"
        return str(self.state)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs) -> CancellationHeartsAEC:
    """The unwrapped AEC environment (see :class:`CancellationHeartsAEC`)."""
    return CancellationHeartsAEC(**kwargs)


def env(**kwargs):
    """The AEC environment in PettingZoo's ``OrderEnforcingWrapper`` (errors for
    ``step`` before ``reset`` and the like)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
