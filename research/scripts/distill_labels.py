"""How noisy are the distillation labels? Agreement between teacher, heuristic and a network.

On the decisions (more than one legal action) of ``--hands`` hands in which the
heuristic player plays every seat (chance from ``numpy.random.default_rng(--seed)``),
at ``--players`` players:

* the teacher ``ismcts(iterations=--iterations, rollout='heuristic')`` searches
  each state twice with different seeds: the share of states where the two most
  visited actions agree (how reproducible a one-hot teacher label is), and the
  mean entropy of the first search's visit distribution against ``log(#legal)``;
* the share where the teacher's most visited action is the heuristic's move;
* with ``--checkpoint``: the share where the raw network's argmax is the
  heuristic's move (behaviour-cloning fidelity) and where it is the teacher's.

``python research/scripts/distill_labels.py [--checkpoint PATH] [--iterations 300]
[--hands 4] [--players 6] [--seed 12345]``; prints the shares.
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel

import spiel_game


def measure(players: int, iterations: int, hands: int, seed: int,
            checkpoint: str | None = None) -> dict:
    """The agreement shares (module docstring) as a dict."""
    from solvers._base.bots import HeuristicBot
    from solvers._ismcts import ISMCTSBot
    from solvers.net._selfplay import play_hand
    g = pyspiel.load_game(spiel_game.GAME_NAME, {"players": players})
    rng = np.random.default_rng(seed)
    heur = [HeuristicBot(g, q, q) for q in range(players)]
    net = None
    if checkpoint:
        from solvers.net._agents import NetworkBot
        net = [NetworkBot(g, q, q, checkpoint=checkpoint) for q in range(players)]
    t1 = [ISMCTSBot(g, q, 1000 + q, iterations=iterations, rollout="heuristic")
          for q in range(players)]
    t2 = [ISMCTSBot(g, q, 2000 + q, iterations=iterations, rollout="heuristic")
          for q in range(players)]
    c = {"n": 0, "tt": 0, "th": 0, "nh": 0, "nt": 0}
    ent, logk = [], []

    def decide(st, p):
        a1, v1, _ = t1[p].search(st)
        a2, v2, _ = t2[p].search(st)
        b1, b2 = int(a1[np.argmax(v1)]), int(a2[np.argmax(v2)])
        ah = int(heur[p].step(st))
        pv = v1[v1 > 0] / v1.sum()
        ent.append(float(-(pv * np.log(pv)).sum()))
        logk.append(float(np.log(len(st.legal_actions()))))
        c["n"] += 1
        c["tt"] += b1 == b2
        c["th"] += b1 == ah
        if net is not None:
            an = int(net[p].step(st))
            c["nh"] += an == ah
            c["nt"] += an == b1
        return ah

    for _ in range(hands):
        play_hand(g, rng, decide)
    n = c["n"]
    out = {"players": players, "iterations": iterations, "hands": hands, "states": n,
           "teacher_vs_teacher": c["tt"] / n, "teacher_vs_heuristic": c["th"] / n,
           "visit_entropy": float(np.mean(ent)), "log_legal": float(np.mean(logk))}
    if net is not None:
        out.update(net_vs_heuristic=c["nh"] / n, net_vs_teacher=c["nt"] / n)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--seed", type=int, default=12345)
    a = ap.parse_args(argv)
    if a.iterations < 1 or a.hands < 1:
        ap.error(f"--iterations and --hands must be >= 1, got {a.iterations}, {a.hands}")
    r = measure(a.players, a.iterations, a.hands, a.seed, a.checkpoint)
    for k, v in r.items():
        print(f"{k:>20}: {v:.3f}" if isinstance(v, float) else f"{k:>20}: {v}")


if __name__ == "__main__":
    main()
