"""xinxin's thinking time per decision in the classic game (four xinxin seats).

``python research/scripts/xinxin_time_per_move.py SPEC GAMES [nopass]``: plays GAMES
games (deal ``g`` from ``numpy.random.default_rng(100 + g)``, seat ``p``'s
agent seed ``1000 g + p``) with the agent SPEC (e.g. ``xinxin``) on every
seat, times every decision that has more than one legal action (forced
moves are played without asking, as in our tournaments), checks xinxin's
points against ours at the end of each game, and prints the median, mean,
90th percentile and maximum seconds per decision for the passes, the plays
and all decisions. ``nopass``: the game without passing (``pass_count=0``).
"""

import sys
import time

import numpy as np

import spiel_game
from solvers._registry import make_agent

spec, n = sys.argv[1], int(sys.argv[2])
params = {"players": 4, "deck": "classic", "packs": 1, "moon": "both"}
if sys.argv[3:] == ["nopass"]:
    params["pass_count"] = 0
g = spiel_game.load(params)
times = {"pass": [], "play": []}
for game in range(n):
    rng = np.random.default_rng(100 + game)
    bots = [make_agent(spec, g, p, 1000 * game + p) for p in range(4)]
    s = g.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            o = s.chance_outcomes()
            s.apply_action(o[rng.integers(len(o))][0])
            continue
        legal = s.legal_actions()
        if len(legal) == 1:
            s.apply_action(legal[0])
            continue
        phase = "pass" if len(s.history()) < 64 and g.rules.pass_count else "play"
        t = time.perf_counter()
        a = bots[s.current_player()].step(s)
        times[phase].append(time.perf_counter() - t)
        s.apply_action(a)
    bots[0].check_points(s)
for k, v in list(times.items()) + [("all", times["pass"] + times["play"])]:
    if v:
        print(k, len(v), f"median {np.median(v):.3f} mean {np.mean(v):.3f} "
              f"p90 {np.percentile(v, 90):.3f} max {max(v):.3f}")
