"""Cost of an inference-weighted world against one plain determinization.

For the player to move in a game played by the heuristic player (6 and 11
players, default rules, so the passing scheme's rule applies: 4 and 2 cards),
at several points of the hand (``--played``: cards played so far), medians
over ``--repeats`` interleaved repeats of ``--number`` draws, all inside one
compiled loop (no Python call per draw), in CPU time (``time.process_time``):

* ``plain``: one determinization (:func:`spiel_game._determinize.determinize`, what
  an ISMCTS iteration or a PIMC world costs to draw today);
* ``weighted``: one candidate world weighted: determinization,
  :func:`solvers.beliefs._replay.complete_world` and
  :func:`solvers.beliefs._replay.world_log_likelihood` (for each model);
* ``sir(M)``: one SIR draw with ``M`` candidates (``--worlds``), what a
  weighted ISMCTS iteration or PIMC world costs to draw;
* the mean effective sample size of those SIR draws (``M`` when every
  weight is equal, 1 when one candidate takes all).

``python -m experiments.bench.inference [--quick] [--players 6 11]
[--played 10 40 80] [--repeats 5] [--number 300] [--worlds 8]
[--checkpoint CK] [--out FILE]`` (``--checkpoint``: also the ``network``
opponent model of that network checkpoint)
prints a markdown table and writes ``results/<profile>/bench/inference.json``.
(How good the sampled worlds are, rather than what they cost, is a study:
``research/scripts/belief_quality.py``.) It measures; it is not part of
``make reproduce`` (not in ``BENCHES``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

import spiel_game
from spiel_game import _engine as E
from spiel_game._rng import make_rng_state
from solvers._base.heuristic import heuristic_policy
from solvers.beliefs._likelihood import belief_log_likelihood, complete_world
from solvers.beliefs._replay import MODELS, make_belief, sir_world
from spiel_game._determinize import Determinizer, determinize

from .._base.metadata import metadata, write_result
from . import default_out

__all__ = ["heuristic_state", "run", "table"]


@njit(cache=True)
def _plain_loop(p, root, s, rng, det, number):
    for _ in range(number):
        s[:] = root
        if not determinize(p, s, rng, det):
            return False
    return True


@njit(cache=True)
def _weighted_loop(p, root, s, rng, det, bel, number):
    acc = 0.0
    for _ in range(number):
        s[:] = root
        if not determinize(p, s, rng, det):
            return -1.0
        complete_world(p, s, bel.me, rng, bel.seats, bel.cards, bel.tmp)
        acc += belief_log_likelihood(p, s, bel.me, bel, rng)
    return acc


@njit(cache=True)
def _sir_loop(p, root, s, rng, det, bel, number):
    for _ in range(number):
        if not sir_world(p, root, s, rng, det, bel):
            return False
    return True


def heuristic_state(game, seed: int, n_played: int):
    """The player to move once ``n_played`` cards are played, every seat playing
    the heuristic (chance by its probabilities, seeded)."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    hrng = np.zeros(1, np.uint64)
    while True:
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))]))
            continue
        s = st.engine_state
        legal = np.array(st.legal_actions(), np.int32)
        if s[E.S_PHASE] == E.PH_PLAY and s[E.S_NPLAYED] >= n_played and len(legal) > 1:
            return st
        st.apply_action(int(heuristic_policy(st.engine_params, np.array(s), legal, len(legal),
                                             hrng)))


def _jobs(P, root, s, rng, rec, bels, number):
    """The timed loops of one state: name -> a call running ``number`` draws."""
    jobs = {"plain": lambda: _plain_loop(P, root, s, rng, rec, number)}
    for m, b in bels.items():
        jobs[f"weighted_{m}"] = (lambda b=b: _weighted_loop(P, root, s, rng, rec, b, number))
        jobs[f"sir_{m}"] = (lambda b=b: _sir_loop(P, root, s, rng, rec, b, number))
    return jobs


def _time(f, number):
    """CPU seconds per draw of ``f`` (process time: the machine may be shared,
    and the loops are single-threaded)."""
    t0 = time.process_time()
    f()
    return (time.process_time() - t0) / number


def run(players=(6, 11), played=(10, 40, 80), repeats: int = 5, number: int = 300,
        worlds: int = 8, epsilon: float = 0.1, seed: int = 0, checkpoint: str = "") -> dict:
    """Per-draw seconds (medians over repeats) for each player count and point
    of the hand; see the module docstring. ``checkpoint``: also the ``network``
    model of that network checkpoint (it must cover every player count)."""
    from solvers.beliefs._replay import network_for
    models = ("random", "heuristic") + (("network",) if checkpoint else ())
    rows = []
    for n in players:
        game = spiel_game.load({"players": n})
        net = network_for("bench.inference", checkpoint, game, "--checkpoint") \
            if checkpoint else None
        for k in played:
            st = heuristic_state(game, seed, min(k, n * game.rules.hand_size - n))
            me = st.current_player()
            det = Determinizer(st, me)
            P, root = det.P, det.root
            s = np.empty_like(root)
            rng = make_rng_state(seed, 0)
            bels = {m: make_belief(P, me, m, worlds, epsilon, net if m == "network" else None)
                    for m in models}
            jobs = _jobs(P, root, s, rng, det.record, bels, number)
            for f in jobs.values():          # compile / warm up
                f()
            for b in bels.values():
                b.stats[:] = 0
            times = {name: [] for name in jobs}
            for _ in range(repeats):         # interleaved
                for name, f in jobs.items():
                    times[name].append(_time(f, number))
            med = {name: statistics.median(v) for name, v in times.items()}
            row = {"players": n, "played": int(st.engine_state[E.S_NPLAYED]),
                   "pass_count": int(P[E.P_PASS]), "worlds": worlds, "epsilon": epsilon,
                   **{f"{name}_us": v * 1e6 for name, v in med.items()}}
            for m, b in bels.items():
                row[f"weighted_{m}_ratio"] = med[f"weighted_{m}"] / med["plain"]
                row[f"sir_{m}_ratio"] = med[f"sir_{m}"] / med["plain"]
                row[f"ess_{m}"] = float(b.stats[1] / b.stats[0])
            rows.append(row)
    return {"config": {"players": list(players), "played": list(played), "repeats": repeats,
                       "number": number, "worlds": worlds, "epsilon": epsilon, "seed": seed,
                       "models": sorted(MODELS), "timed_models": list(models),
                       "checkpoint": checkpoint},
            "rows": rows}


def table(res: dict) -> str:
    """The markdown table of :func:`run`'s result."""
    m = res["config"]["worlds"]
    models = res["config"].get("timed_models", ["random", "heuristic"])
    names = " | ".join(models[1:])
    out = [f"| players | cards played | plain det. | weighted world: {models[0]} | {names} "
           f"| SIR(M={m}) draw: {models[0]} | {names} | ESS of M: {models[0]} | {names} |",
           "|---|---|---|" + "---|" * (3 * len(models))]
    for r in res["rows"]:
        out.append(
            f"| {r['players']} | {r['played']} | {r['plain_us']:.1f} us | "
            + " | ".join(f"{r[f'weighted_{x}_us']:.1f} us ({r[f'weighted_{x}_ratio']:.1f}x)"
                         for x in models) + " | "
            + " | ".join(f"{r[f'sir_{x}_us']:.0f} us ({r[f'sir_{x}_ratio']:.0f}x)"
                         for x in models) + " | "
            + " | ".join(f"{r[f'ess_{x}']:.2f}" for x in models) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.inference")
    ap.add_argument("--quick", action="store_true", help="small sizes, seconds")
    ap.add_argument("--players", type=int, nargs="+", default=[6, 11])
    ap.add_argument("--played", type=int, nargs="+", default=[10, 40, 80])
    ap.add_argument("--repeats", type=int, default=None, help="default 5 (quick: 2)")
    ap.add_argument("--number", type=int, default=None, help="draws per repeat, default 300 "
                    "(quick: 30)")
    ap.add_argument("--worlds", type=int, default=8, help="SIR candidates M (default 8)")
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", default="",
                    help="also time the network opponent model of this checkpoint")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/<profile>/bench/inference.json)")
    a = ap.parse_args(argv)
    repeats = a.repeats or (2 if a.quick else 5)
    number = a.number or (30 if a.quick else 300)
    res = run(tuple(a.players), tuple(a.played), repeats, number, a.worlds, a.epsilon, a.seed,
              a.checkpoint)
    print(table(res))
    out = a.out or default_out("inference", a.quick)
    write_result(out, res, metadata(res["config"], a.seed))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
