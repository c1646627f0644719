"""Reinforcement-learning environments of Cancellation Hearts (the ``pettingzoo`` extra).

* :class:`CancellationHeartsAEC` (``env(**params)``, ``raw_env``): PettingZoo's
  AEC API, every seat an agent ``player_i`` (:mod:`.pettingzoo_env`).
* :class:`CancellationHeartsEnv`: Gymnasium's API, one seat learns against
  registered agents (:mod:`.gymnasium_env`); registered as
  ``"CancellationHearts-v0"`` when this package is imported.

Both take every game parameter as a keyword (``spiel_game.PARAMETER_DEFAULTS``;
a bad one raises ``spiel_game.GameParameterError`` naming what is allowed),
sample the deal with ``numpy.random.default_rng`` seeded by ``reset(seed=)``,
and pay rewards when a hand is scored (a one-hand game: ``state.returns()`` at
the end).

They live in ``solvers`` (not ``spiel_game``) because the Gymnasium
environment's opponents are :func:`solvers._registry.make_agent` agents, and
``spiel_game`` never imports ``solvers``; and in a subpackage so that editing
them does not drop the numba caches of ``spiel_game`` or ``solvers`` (their
guards hash the top-level modules only).
"""

from __future__ import annotations

from spiel_game._extras import require

gymnasium = require("gymnasium", "pettingzoo", "experiments.envs")
require("pettingzoo", "pettingzoo", "experiments.envs")

from ._core import OBSERVATION_KINDS  # noqa: E402  (after the extra's check)
from ._gymnasium_env import ENV_ID, CancellationHeartsEnv  # noqa: E402
from ._pettingzoo_env import CancellationHeartsAEC, env, raw_env  # noqa: E402

__all__ = ["CancellationHeartsAEC", "CancellationHeartsEnv", "env", "raw_env", "ENV_ID",
           "OBSERVATION_KINDS"]

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="experiments.envs:CancellationHeartsEnv")
