"""How good are the worlds an inference-weighted search samples? Two measurements.

``gap``: how far the sampler's candidate worlds fall below the true world in
likelihood when every seat plays the heuristic (:func:`proposal_gap`);
writes ``results/<profile>/bench/inference_gap.json``.

``calibration``: are a world pool's beliefs calibrated, for the pool designs
the agents use and a slow reference (:func:`calibration`); writes
``results/<profile>/bench/inference_calibration.json``, which the paper
quotes (``paper/results/bench/inference_calibration.json``, read by
:func:`texmacros.research.why_macros`).

    python research/scripts/belief_quality.py calibration [--players 6] [--number SEEDS]
        [--seed 0] [--epsilon 0.1] [--quick] [--out FILE]
    python research/scripts/belief_quality.py gap [--players 6 11] [--played 10 40 80]
        [--number CANDIDATES] [--mcmc STEPS] [--seed 0] [--quick] [--out FILE]

The states are heuristic self-play states
(:func:`experiments.bench.inference.heuristic_state`).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import spiel_game
from experiments.bench import default_out
from experiments.bench.inference import heuristic_state
from experiments._base.metadata import metadata, write_result
from spiel_game import _engine as E
from spiel_game._rng import make_rng_state

__all__ = ["CALIBRATION_DESIGNS", "calibration", "calibration_table", "gap_table", "main",
           "proposal_gap"]


def proposal_gap(players=(6, 11), played=(10, 40, 80), candidates: int = 300,
                 epsilon: float = 0.1, seeds=(0, 1, 2), rules: dict | None = None,
                 mcmc: int = 0) -> dict:
    """How far the sampler's candidate worlds are from the world that produced
    the observed plays, under the ``heuristic`` model, when every seat really
    plays the heuristic (so the model is exact up to its softening).

    For each player count, point of the hand and seed (a heuristic self-play
    state, :func:`heuristic_state`): the log-likelihood of the *true* world
    (the game's own engine state, seen by the player to move), and of
    ``candidates`` worlds from the constrained sampler (completed as the
    agents complete them): the best of them, their median, and how many
    reach the true world's value. A pool whose best candidate is far below
    the true world is the best of a few prior draws, not a sample of the
    posterior: weighting it cannot recover what the plays reveal. ``rules``:
    other game parameters (default: the default rules). ``mcmc`` > 0: the
    candidates then take that many Metropolis-Hastings steps
    (:func:`solvers.beliefs._mcmc.move_pool`) and the same numbers are reported
    after the moves (``moved_best``, ``moved_median``, ``accept``)."""
    from solvers.beliefs._mcmc import move_pool
    from solvers.beliefs._replay import WeightedDeterminizer
    rows = []
    for n in players:
        game = spiel_game.load({**(rules or {}), "players": n})
        for k in played:
            for seed in seeds:
                st = heuristic_state(game, seed, min(k, n * game.rules.hand_size - n))
                me = st.current_player()
                wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=epsilon)
                true = wd.log_likelihood(np.array(st.engine_state))
                rng = make_rng_state(seed, 7)
                worlds = np.array([wd.candidate(rng) for _ in range(candidates)])
                lls = np.array([wd.log_likelihood(w, rng) for w in worlds])
                ok = lls[np.isfinite(lls)]
                extra = {}
                if mcmc > 0:
                    keep = np.isfinite(lls)
                    mw, ml = np.ascontiguousarray(worlds[keep]), lls[keep].copy()
                    wd.belief.stats[3:5] = 0
                    move_pool(wd.P, mw, ml, len(ml), me, mcmc, rng, wd.belief)
                    extra = {"moved_best": float(ml.max()), "moved_median": float(np.median(ml)),
                             "accept": float(wd.belief.stats[4] / max(1.0, wd.belief.stats[3]))}
                rows.append({**extra, "players": n, "played": int(st.engine_state[E.S_NPLAYED]),
                             "seed": seed, "true": true,
                             "best": float(ok.max()) if ok.size else float("-inf"),
                             "median": float(np.median(ok)) if ok.size else float("-inf"),
                             "consistent": int(ok.size),
                             "reach_true": int(np.sum(ok >= true - 1e-9))})
    return {"config": {"players": list(players), "played": list(played),
                       "candidates": candidates, "epsilon": epsilon, "seeds": list(seeds),
                       "rules": dict(rules or {}), "mcmc": mcmc},
            "rows": rows}


#: The pool designs :func:`calibration` compares by default: (label, pool size,
#: a belief's min_ess, its mcmc), the agents' designs and a slow reference.
CALIBRATION_DESIGNS = (("prior, 2048 worlds (plain ISMCTS)", 2048, 2048, 0),
                       ("prior, 16 worlds", 16, 16, 0),
                       ("128 tempered to ESS 16", 128, 16, 0),
                       ("16 resampled from ESS 4, 30 MH steps", 16, 4, 30),
                       ("64 chains x 150 MH steps", 64, 64, 150))


def calibration(players: int = 6, played=(8, 16, 24, 32), seeds=range(15),
                designs=CALIBRATION_DESIGNS, epsilon: float = 0.1, bins: int = 10) -> dict:
    """Are a world pool's beliefs calibrated? For heuristic self-play states
    (:func:`heuristic_state`: every seat the heuristic, so the model is exact up
    to ``epsilon``), each pool design (:class:`solvers.beliefs._replay.WorldPool` with
    ``(size, min_ess, mcmc)``) predicts, for every other seat and card type, the
    probability that the seat holds at least one copy (its weighted share of
    worlds); predictions strictly between 0 and 1 are binned and compared with
    how often the seat really holds it. A calibrated pool's bins lie on the
    diagonal; an over-confident one's are flatter (what it calls 0.8 happens
    far less often). ``ece``: the expected calibration error (the bins'
    ``|predicted - observed|`` weighted by their counts); ``brier``: the mean
    squared error; ``sharpness``: the mean squared distance of the
    predictions from the base rate."""
    from solvers.beliefs import WeightedDeterminizer, world_pool
    game = spiel_game.load({"players": players})
    edges = np.linspace(0.0, 1.0, bins + 1)
    acc = {d[0]: np.zeros((3, bins)) for d in designs}
    err = {d[0]: [0.0, 0.0, 0] for d in designs}
    for seed in seeds:
        for k in played:
            st = heuristic_state(game, 500 + seed, k)
            me = st.current_player()
            wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=epsilon)
            y = spiel_game.seat_hands(st) > 0
            for label, size, min_ess, mcmc in designs:
                pool = world_pool(wd, size, make_rng_state(seed, k), min_ess=min_ess, mcmc=mcmc)
                held = np.stack([spiel_game.seat_hands(st, w) for w in pool.pool[:pool.m]]) > 0
                pr = np.einsum("m,mqk->qk", pool.weights, held.astype(float))
                mask = np.ones_like(pr, bool)
                mask[me] = False
                mask &= (pr > 1e-9) & (pr < 1 - 1e-9)
                i = np.clip(np.digitize(pr[mask], edges) - 1, 0, bins - 1)
                np.add.at(acc[label][0], i, pr[mask])
                np.add.at(acc[label][1], i, y[mask])
                np.add.at(acc[label][2], i, 1)
                e = err[label]
                e[0] += float(np.sum((pr[mask] - y[mask]) ** 2))
                e[1] += float(np.sum((pr[mask] - y[mask].mean()) ** 2))
                e[2] += int(mask.sum())
    rows = []
    for label, size, min_ess, mcmc in designs:
        a = acc[label]
        e = err[label]
        rows.append({"design": label, "size": size, "min_ess": min_ess, "mcmc": mcmc,
                     "bins": [{"predicted": float(a[0, b] / a[2, b]),
                               "observed": float(a[1, b] / a[2, b]), "count": int(a[2, b])}
                              for b in range(bins) if a[2, b]],
                     "ece": float(np.sum(np.abs(a[0] - a[1])) / max(1.0, a[2].sum())),
                     "brier": e[0] / max(1, e[2]), "sharpness": e[1] / max(1, e[2])})
    return {"config": {"players": players, "played": list(played), "seeds": list(seeds),
                       "epsilon": epsilon, "bins": bins,
                       "designs": [list(d) for d in designs]},
            "rows": rows}


def calibration_table(res: dict) -> str:
    """Markdown table of :func:`calibration`: predicted -> observed (count) per bin."""
    lines = ["| pool | predicted -> observed (predictions) | ECE | Brier |",
             "|---|---|---|---|"]
    for r in res["rows"]:
        cells = " ".join(f"{b['predicted']:.2f}->{b['observed']:.2f} ({b['count']})"
                         for b in r["bins"])
        lines.append(f"| {r['design']} | {cells} | {r['ece']:.3f} | {r['brier']:.4f} |")
    return "\n".join(lines)


def gap_table(res: dict) -> str:
    """Markdown table of :func:`proposal_gap`."""
    m, steps = res["config"]["candidates"], res["config"].get("mcmc", 0)
    moved = (f" best after {steps} MH steps | median after | accepted |" if steps else "")
    lines = [f"| players | cards played | seed | log-lik. of the true world | best of {m} "
             f"candidates | median | candidates >= true |" + moved,
             "|---|---|---|---|---|---|---|" + ("---|---|---|" if steps else "")]
    for r in res["rows"]:
        lines.append(f"| {r['players']} | {r['played']} | {r['seed']} | {r['true']:.2f} | "
                     f"{r['best']:.2f} | {r['median']:.2f} | {r['reach_true']} |"
                     + (f" {r['moved_best']:.2f} | {r['moved_median']:.2f} | "
                        f"{r['accept']:.2f} |" if steps else ""))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python research/scripts/belief_quality.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("calibration", "gap"))
    ap.add_argument("--quick", action="store_true", help="small sizes, seconds")
    ap.add_argument("--players", type=int, nargs="+", default=None,
                    help="calibration: one count (default 6); gap: default 6 11")
    ap.add_argument("--played", type=int, nargs="+", default=[10, 40, 80],
                    help="gap: cards played so far")
    ap.add_argument("--number", type=int, default=None,
                    help="calibration: seeds (default 15; quick 2); gap: candidates per "
                         "state (default 300)")
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mcmc", type=int, default=0,
                    help="gap: also move the candidates this many MH steps")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/<profile>/bench/inference_calibration.json or inference_gap.json)")
    a = ap.parse_args(argv)
    if a.what == "calibration":
        players = a.players or [6]
        if len(players) != 1:
            print(f"belief_quality: calibration takes one player count; got {players}",
                  file=sys.stderr)
            return 2
        nseeds = a.number or (2 if a.quick else 15)
        designs = CALIBRATION_DESIGNS[:4] + ((("64 chains x 20 MH steps", 64, 64, 20),)
                                             if a.quick else CALIBRATION_DESIGNS[4:])
        res = calibration(players[0], seeds=range(a.seed, a.seed + nseeds),
                          designs=designs, epsilon=a.epsilon)
        print(calibration_table(res))
        out = a.out or default_out("inference_calibration", a.quick)
    else:
        seeds = tuple(range(a.seed, a.seed + (1 if a.quick else 3)))
        res = proposal_gap(tuple(a.players or (6, 11)), tuple(a.played), a.number or 300,
                           a.epsilon, seeds, mcmc=a.mcmc)
        print(gap_table(res))
        out = a.out or default_out("inference_gap", a.quick)
    write_result(out, res, metadata(res["config"], a.seed))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
