"""Seat 0 of a six-player hand against five heuristic players, through Gymnasium."""
import gymnasium as gym
import numpy as np
import experiments.envs  # noqa: F401  (registers "CancellationHearts-v0")

env = gym.make("CancellationHearts-v0", opponents="heuristic", seat=0, players=6)
obs, info = env.reset(seed=0)
rng, done, total = np.random.default_rng(0), False, 0.0
while not done:                                       # a random legal card each turn
    action = int(rng.choice(np.flatnonzero(info["action_mask"])))
    obs, reward, terminated, truncated, info = env.step(action)
    total, done = total + reward, terminated or truncated
print("seat 0's return against five heuristic players:", total)
