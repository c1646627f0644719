"""Five seats of Cancellation Hearts as PettingZoo agents, each playing a random legal card."""
import numpy as np
from solvers.envs import env as make_env

env = make_env(players=5, observation="observation")  # any game parameter as a keyword
env.reset(seed=0)                                        # the seed fixes the deal
rng = np.random.default_rng(0)
totals = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    totals[agent] += reward                              # paid when the hand is scored
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if terminated or truncated else int(rng.choice(legal)))
print(totals)                                            # minus each seat's points
