"""Fit the softened-heuristic opponent model of :mod:`solvers.beliefs._replay` to an agent.

The ``heuristic`` opponent model gives the heuristic player's card
probability ``1 - eps + eps / k`` and every other legal card ``eps / k``
(``k`` legal cards). How much the weights of inference should move depends on
how often the players being modelled really play the heuristic's card: the
maximum-likelihood ``eps`` for an agent is the one that maximises the summed
log-probability of that agent's own card plays. This script plays ``hands``
hands with the agent in every seat (chance seeded by ``seed``, the agents by
``seed`` and their seat), records for every card play with a choice whether it
is the heuristic's card and how many cards were legal, and reports the
agreement rate, the maximum-likelihood ``eps`` (bounded scalar maximisation on
[1e-6, 1]) and the mean log-likelihood per decision on a grid of ``eps``.

With ``--checkpoint CK`` it also scores the ``network`` opponent model (the
learned policy of ``CK``, :mod:`solvers.net`, seeing the mover's own
information state: ``(1 - eps) p(a) + eps / k``) on the same plays: its
maximum-likelihood ``eps``, mean log-likelihood and how often the agent played
the network's most probable card, beside the heuristic model's and the
uniform model's (``-log k``, no information). The difference from uniform is
the information per play each model finds in the agent's choices.

``python research/scripts/fit_epsilon.py [--agent SPEC] [--players 6]
[--hands 8] [--seed 0] [--checkpoint CK] [--out FILE] [--quick]`` prints a markdown table and
writes ``results/<profile>/bench/fit_epsilon.json``. It measures; it is not
part of ``make reproduce``. The README's inference runs used the fit of
``ismcts(time_limit=0.05, rollout='heuristic')`` at 6 players.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from experiments.bench import run_and_write

__all__ = ["FitConfig", "plays", "fit", "fit_network", "net_log_likelihood", "run", "table", "main"]

GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclasses.dataclass(frozen=True)
class FitConfig:
    agent: str = "ismcts(time_limit=0.05, rollout='heuristic')"
    players: int = 6
    hands: int = 8
    seed: int = 0
    checkpoint: str = ""          # a network checkpoint: also score the network model

    def __post_init__(self):
        if not isinstance(self.hands, int) or self.hands < 1:
            raise ValueError(f"hands must be an int >= 1, got {self.hands!r}")
        if not isinstance(self.players, int) or not 5 <= self.players <= 11:
            raise ValueError(f"players must be an int in 5..11, got {self.players!r}")


def plays(config: FitConfig, network: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(agrees, legal_counts)`` over every card play with a choice: whether the
    agent played the heuristic's card, and how many cards were legal (hands
    played by :func:`solvers.net._selfplay.play_hand`, which takes forced moves
    itself). With ``config.checkpoint``, ``network`` (a list) receives
    ``(p(played card), played card is the network's argmax)`` per play."""
    import spiel_game
    from solvers._base.heuristic import heuristic_policy
    from solvers.net._selfplay import play_hand
    from solvers._registry import make_agent
    from spiel_game import _engine as E
    game = spiel_game.load(players=config.players)
    chance = np.random.default_rng(config.seed)
    hrng = np.zeros(1, np.uint64)
    legal_buf = np.empty(E.K + 2, np.int32)
    agrees, counts = [], []
    ev = ng = None
    if config.checkpoint:
        from solvers.net._agents import evaluator_for
        from solvers.net._inference import net_eval
        ev = evaluator_for("fit_epsilon", config.checkpoint, game)
        ng = ev.game_arrays(game)
        probs = np.zeros(ev.layout.num_actions)
        value = np.zeros(ev.layout.max_players)
    for h in range(config.hands):
        bots = [make_agent(config.agent, game, q, config.seed * 1_000_003 + 100 * h + q)
                for q in range(config.players)]

        def decide(st, q, bots=bots):
            s = np.array(st.engine_state)
            act = bots[q].step(st)
            if s[E.S_PHASE] == E.PH_PLAY:
                legal = st.legal_actions()
                k = len(legal)
                legal_buf[:k] = legal
                h_act = heuristic_policy(np.asarray(st.engine_params), s, legal_buf, k, hrng)
                agrees.append(int(act) == int(h_act))
                counts.append(k)
                if ev is not None:
                    net_eval(ev.weights, ng, np.asarray(st.engine_params), s, q, probs, value)
                    network.append((float(probs[act]), int(np.argmax(probs)) == int(act)))
            return act
        play_hand(game, chance, decide)
    return np.array(agrees, bool), np.array(counts, np.int64)


def log_likelihood(eps: float, agrees: np.ndarray, counts: np.ndarray) -> float:
    """Mean log-probability of the plays under the model with ``eps``."""
    return float(np.mean(np.where(agrees, np.log(1.0 - eps + eps / counts),
                                  np.log(eps / counts))))


def fit(agrees: np.ndarray, counts: np.ndarray) -> float:
    """The maximum-likelihood ``eps`` in [1e-6, 1] (the log-likelihood is concave
    in ``eps``: a bounded scalar maximisation finds it)."""
    if len(agrees) == 0:
        raise ValueError("no card play with a choice was recorded; play more hands")
    return _max_likelihood_eps(lambda e: log_likelihood(e, agrees, counts))


def _max_likelihood_eps(mean_ll) -> float:
    """The ``eps`` in [1e-6, 1] maximising ``mean_ll(eps)`` (concave: a bounded
    scalar maximisation finds it)."""
    from scipy.optimize import minimize_scalar
    res = minimize_scalar(lambda e: -mean_ll(e), bounds=(1e-6, 1.0), method="bounded",
                          options={"xatol": 1e-6})
    return float(res.x)


def net_log_likelihood(eps: float, p: np.ndarray, counts: np.ndarray) -> float:
    """Mean log-probability of the plays under the network model with ``eps``
    (``p``: the network's probability of each card played)."""
    return float(np.mean(np.log((1.0 - eps) * p + eps / counts)))


def fit_network(p: np.ndarray, counts: np.ndarray) -> float:
    """The maximum-likelihood ``eps`` in [1e-6, 1] of the network model."""
    return _max_likelihood_eps(lambda e: net_log_likelihood(e, p, counts))


def run(config: FitConfig) -> dict:
    network: list = []
    agrees, counts = plays(config, network)
    eps = fit(agrees, counts)
    out = {"agent": config.agent, "players": config.players, "hands": config.hands,
           "decisions": int(len(agrees)), "agreement": float(agrees.mean()),
           "mean_legal": float(counts.mean()), "epsilon": eps,
           "log_likelihood": log_likelihood(eps, agrees, counts),
           "uniform_log_likelihood": float(np.mean(-np.log(counts))),
           "grid": [{"epsilon": e, "log_likelihood": log_likelihood(e, agrees, counts)}
                    for e in GRID]}
    if config.checkpoint:
        import hashlib
        from pathlib import Path
        p = np.array([x[0] for x in network])
        top = np.array([x[1] for x in network], bool)
        neps = fit_network(p, counts)
        out["network"] = {"checkpoint": config.checkpoint,
                          "sha256": hashlib.sha256(Path(config.checkpoint).read_bytes())
                          .hexdigest(),
                          "agreement": float(top.mean()), "epsilon": neps,
                          "log_likelihood": net_log_likelihood(neps, p, counts),
                          "grid": [{"epsilon": e, "log_likelihood":
                                    net_log_likelihood(e, p, counts)} for e in GRID]}
    return out


def table(res: dict) -> str:
    lines = [f"`{res['agent']}` at {res['players']} players, {res['hands']} hands: "
             f"{res['decisions']} card plays with a choice (mean {res['mean_legal']:.2f} legal), "
             f"the heuristic's card in {100 * res['agreement']:.1f}%; maximum-likelihood "
             f"epsilon {res['epsilon']:.3f} (mean log-likelihood {res['log_likelihood']:.4f}).",
             "", "| epsilon | mean log-likelihood |", "|---|---|"]
    lines += [f"| {g['epsilon']:g} | {g['log_likelihood']:.4f} |" for g in res["grid"]]
    net = res.get("network")
    if net:
        u = res["uniform_log_likelihood"]
        lines += ["", "| opponent model | agent plays its top card | maximum-likelihood epsilon "
                  "| mean log-likelihood per play | above uniform (nats per play) |",
                  "|---|---|---|---|---|",
                  f"| uniform (-log k) | | | {u:.4f} | 0 |",
                  f"| heuristic | {100 * res['agreement']:.1f}% | {res['epsilon']:.3f} | "
                  f"{res['log_likelihood']:.4f} | {res['log_likelihood'] - u:+.4f} |",
                  f"| network | {100 * net['agreement']:.1f}% | {net['epsilon']:.3f} | "
                  f"{net['log_likelihood']:.4f} | {net['log_likelihood'] - u:+.4f} |"]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python research/scripts/fit_epsilon.py")
    ap.add_argument("--quick", action="store_true", help="two hands of a 100-iteration ISMCTS")
    ap.add_argument("--agent", default=None)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--checkpoint", default=None,
                    help="a network checkpoint: also score the network opponent model")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    config = (FitConfig(agent="ismcts(iterations=100, rollout='heuristic')", hands=2)
              if args.quick else FitConfig())
    changes = {k: v for k, v in vars(args).items()
               if k in ("agent", "players", "hands", "seed", "checkpoint") and v is not None}
    try:
        config = dataclasses.replace(config, **changes)
    except ValueError as e:
        ap.error(str(e))
    return run_and_write("fit_epsilon", args.quick, args.out, lambda: run(config), table,
                         config, config.seed)


if __name__ == "__main__":
    raise SystemExit(main())
