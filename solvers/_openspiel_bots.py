"""OpenSpiel's own bots as agents: ``openspiel_ismcts`` and ``openspiel_uniform``.

Each wraps a bot of ``open_spiel.python`` unchanged but for its seeding
(OpenSpiel's ``RandomState`` gets :func:`solvers._registry.openspiel_seed` of
the agent's seed) and the one fix ``openspiel_uniform`` states.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ._base.bots import check_choice, check_game, check_int, check_real, check_seed
from ._registry import openspiel_seed

__all__ = ["openspiel_ismcts", "openspiel_uniform"]


def openspiel_ismcts(game, player, seed=0, *, iterations: int = 1000, uct_c: float = 0.4,
                      final_policy: str = "max_visit_count", max_world_samples: int = -1,
                      n_rollouts: int = 1):
    """OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``)
    with ``RandomRolloutEvaluator(n_rollouts)``, seeded (its resampler through
    ``set_resampler``; OpenSpiel's ``RandomState`` by :func:`openspiel_seed`).
    ``uct_c`` is on the same scale as ours (rewards scaled to [0, 1]): the bot
    gets ``uct_c * (max_utility - min_utility)`` because it works on raw
    returns. Ranges (checked when built): ``iterations`` an int in [2, 10**9]
    (OpenSpiel's first simulation only expands the root, so one simulation
    leaves no visited action and its final policy fails),
    ``uct_c`` a finite number in [0, 10**6], ``max_world_samples`` -1
    (unlimited) or an int in [1, 10**6], ``n_rollouts`` an int in [1, 10**6]."""
    from open_spiel.python.algorithms import ismcts, mcts
    a = "openspiel_ismcts"
    check_game(game, player, a)
    seed = check_seed(seed, a)
    iterations = check_int(a, "iterations", iterations, 2, 10**9)
    uct_c = check_real(a, "uct_c", uct_c, 0.0, 1e6)
    max_world_samples = check_int(a, "max_world_samples", max_world_samples, 1, 10**6,
                                  also=(-1,))
    n_rollouts = check_int(a, "n_rollouts", n_rollouts, 1, 10**6)
    fp = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
          "normalized_visit_count": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
          "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE}
    final_policy = check_choice(a, "final_policy", final_policy, tuple(fp))
    rs = np.random.RandomState(openspiel_seed(seed))
    ev = mcts.RandomRolloutEvaluator(n_rollouts, rs)
    span = game.max_utility() - game.min_utility()
    bot = ismcts.ISMCTSBot(game, ev, uct_c * span, iterations,
                           max_world_samples=max_world_samples, random_state=rs,
                           final_policy_type=fp[final_policy])
    # Its default resampler uses an unseeded sampler: seed it through OpenSpiel's hook.
    gen = np.random.default_rng(seed)
    bot.set_resampler(lambda state, p: state.resample_from_infostate(p, gen))
    return bot


def openspiel_uniform(game, player, seed=0):
    """OpenSpiel's ``PolicyBot`` over ``policy.UniformRandomPolicy(game)``, its
    ``RandomState`` seeded by :func:`openspiel_seed`. One fix: OpenSpiel's
    ``PolicyBot.step_with_policy`` tests ``if not any(action_list)``, so a
    lone legal action 0 (the card ``2C``, e.g. when its holder must lead it)
    is taken for "no action" and it returns ``INVALID_ACTION``; ours tests
    for an empty list."""
    from open_spiel.python import policy
    from open_spiel.python.bots.policy import PolicyBot

    class UniformPolicyBot(PolicyBot):
        def step_with_policy(self, state):
            probs = self._policy.action_probabilities(state, self._player_id)
            if not probs:
                return [], pyspiel.INVALID_ACTION
            action = self._rng.choice(list(probs.keys()), p=list(probs.values()))
            return list(probs.items()), int(action)

    a = "openspiel_uniform"
    player = check_game(game, player, a)
    rs = np.random.RandomState(openspiel_seed(check_seed(seed, a)))
    return UniformPolicyBot(player, rs, policy.UniformRandomPolicy(game))
