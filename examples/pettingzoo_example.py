"""Five seats of Cancellation Hearts as PettingZoo agents, each playing a random legal card."""
import numpy as np
from experiments.envs import env as make_env

env = make_env(players=5, observation="observation")  # every game parameter is a keyword
env.reset(seed=0)                                     # the seed fixes the deal
rng, totals = np.random.default_rng(0), dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():                        # each seat an agent, in turn
    obs, reward, terminated, truncated, info = env.last()
    totals[agent] += reward                           # paid when a hand is scored
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if terminated or truncated else int(rng.choice(legal)))
print(totals)                                         # minus each seat's points
