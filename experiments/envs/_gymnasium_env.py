"""Cancellation Hearts as a Gymnasium environment: one seat learns, agents play the rest.

``CancellationHeartsEnv(opponents="heuristic", seat=0, **params)`` or
``gymnasium.make("CancellationHearts-v0", ...)`` (registered when
``experiments.envs`` is imported). Arguments:

* ``opponents``: one agent for every other seat, or a list with one per other
  seat in seat order (the learner's seat left out). An agent is anything
  :func:`solvers._registry.make_agent` takes: a spec string (``"heuristic"``,
  ``"random"``, ``"ismcts(iterations=200)"``, a plug-in's name) or a factory
  ``f(game, player, seed, **params) -> pyspiel.Bot``. Opponents are built again
  at every ``reset`` with seeds drawn from the environment's Generator; as in
  the tournaments they are asked only when they have a choice, and are told
  every action (``inform_action``).
* ``seat``: the learner's seat, 0..players-1.
* ``observation``: ``"information_state"`` (default) or ``"observation"``.
* ``illegal_action``: ``"penalty"`` (default): an illegal action ends the
  episode at once (``terminated``), with reward ``illegal_reward`` (default
  ``game.min_utility()``, the worst return the rules allow) and
  ``info["illegal_action"] = True``; ``"raise"``: ``IllegalActionError``
  naming the legal actions. Maskable learners never meet either: the mask is
  in ``info["action_mask"]`` and ``env.action_masks()``.
* ``render_mode``: None or ``"ansi"``; the game parameters as keywords.

Observations are the learner's ``float32`` tensor (a Box); actions are
``Discrete(num_distinct_actions)``. The reward is the change of the learner's
utility when a hand is scored: the learner's return at the end of a one-hand
game, each hand's part in a match (adding up to the return). ``env.game``
and ``env.state`` are the pyspiel game and state (``env.params``: every
parameter's value).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from spiel_game import IllegalActionError

from solvers._registry import AgentSpec, factories, make_agent, parse_spec
from ._core import (TensorView, action_mask, checked_action, describe_illegal, make_game,
                   sample_chance, score_utility)

__all__ = ["CancellationHeartsEnv", "ENV_ID"]

#: The id registered with Gymnasium.
ENV_ID = "CancellationHearts-v0"

_ILLEGAL = ("penalty", "raise")


class CancellationHeartsEnv(gymnasium.Env):
    """One learner against registered agents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, opponents="heuristic", seat: int = 0,
                 observation: str = "information_state", illegal_action: str = "penalty",
                 illegal_reward: float | None = None, render_mode: str | None = None,
                 **params):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, "
                             "'ansi'")
        if illegal_action not in _ILLEGAL:
            raise ValueError(f"illegal_action={illegal_action!r}; allowed: {list(_ILLEGAL)}")
        self.render_mode = render_mode
        self.game = make_game(params)
        self.params = dict(self.game.get_parameters())
        n = self.game.num_players()
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) \
                or not 0 <= seat < n:
            raise ValueError(f"seat={seat!r} is not a seat of this {n}-player game; "
                             f"allowed: 0..{n - 1}")
        self.seat = int(seat)
        self._others = [q for q in range(n) if q != self.seat]
        if isinstance(opponents, str) or callable(opponents) or not isinstance(
                opponents, Sequence):
            specs = [opponents] * (n - 1)
        else:
            specs = list(opponents)
            if len(specs) != n - 1:
                raise ValueError(f"opponents: {len(specs)} given for the {n - 1} other seats "
                                 f"{self._others}; give one spec for all, or one per seat")
        self.opponent_specs = specs
        # Build them once now, so that a bad spec fails here (AgentSpecError), and
        # keep their factories: looking a name up lists the plug-ins every time.
        known, resolved = None, {}
        self._factories = []
        for q, spec in zip(self._others, specs):
            key = str(spec) if isinstance(spec, str | AgentSpec) else id(spec)
            if key not in resolved:
                make_agent(spec, self.game, q, 0)
                if isinstance(spec, str | AgentSpec):
                    known = factories() if known is None else known
                    sp = parse_spec(spec)
                    resolved[key] = functools.partial(known[sp.name], **sp.kwargs)
                else:
                    resolved[key] = spec
            self._factories.append(resolved[key])
        self.illegal_action = illegal_action
        self.illegal_reward = float(self.game.min_utility() if illegal_reward is None
                                    else illegal_reward)
        self._view = TensorView(self.game, observation)
        self.observation_kind = self._view.kind
        self._num_actions = self.game.num_distinct_actions()
        self.observation_space = self._view.space()
        self.action_space = spaces.Discrete(self._num_actions)
        self.state = None
        self._bots: dict[int, object] = {}
        self._done = True

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game and play until the learner is to move. ``seed``
        restarts the Generator that deals and seeds the opponents."""
        super().reset(seed=seed)
        rng = self.np_random
        self._bots = {q: make_agent(f, self.game, q, int(rng.integers(0, 2**62)))
                      for q, f in zip(self._others, self._factories)}
        for b in self._bots.values():
            b.restart()
        self.state = self.game.new_initial_state()
        self._utility = score_utility(self.state)
        self._advance()
        if self.state.is_terminal():
            raise RuntimeError("the game ended before the learner's first decision")
        self._done = False
        return self._obs(), self._info()

    def step(self, action):
        """The learner plays ``action``; the others play until its next turn."""
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset() first")
        a = checked_action(self.state, action, f"seat {self.seat}")
        if a is None:
            msg = describe_illegal(self.state, int(action), f"seat {self.seat}")
            if self.illegal_action == "raise":
                raise IllegalActionError(msg)
            self._done = True
            info = self._info()
            info.update(illegal_action=True, message=msg)
            return self._obs(), self.illegal_reward, True, False, info
        self._apply(a)
        self._advance()
        if self.state.is_terminal():
            now = np.asarray(self.state.returns(), np.float64)
        else:
            now = score_utility(self.state)
        reward = float(now[self.seat] - self._utility[self.seat])
        self._utility = now
        self._done = self.state.is_terminal()
        return self._obs(), reward, self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """``int8[num_distinct_actions]``: the learner's legal actions now."""
        return action_mask(self.state, self.seat, self._num_actions)

    def render(self) -> str | None:
        """``"ansi"``: the table as text (``str(state)``); None without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; create the "
                                  "environment with render_mode='ansi'")
            return None
        if self.state is None:
            return "(no game yet: call reset())"
        return str(self.state)

    # ------------------------------------------------------------------ play
    def _apply(self, a: int) -> None:
        player = self.state.current_player()
        for q, b in self._bots.items():
            if q != player:
                b.inform_action(self.state, player, a)
        self.state.apply_action(a)

    def _advance(self) -> None:
        """Chance and the opponents move until the learner's turn or the end."""
        st = self.state
        while not st.is_terminal():
            if st.is_chance_node():
                sample_chance(st, self.np_random)
                continue
            player = st.current_player()
            if player == self.seat:
                return
            legal = st.legal_actions()
            a = legal[0] if len(legal) == 1 else int(self._bots[player].step(st))
            if a not in legal:
                raise RuntimeError(f"the opponent on seat {player} "
                                   f"({self.opponent_specs[self._others.index(player)]!r}) "
                                   f"chose illegal action {a}; legal: {legal}")
            self._apply(a)

    def _obs(self) -> np.ndarray:
        return self._view.tensor(self.state, self.seat)

    def _info(self) -> dict:
        return {"action_mask": self.action_masks()}
