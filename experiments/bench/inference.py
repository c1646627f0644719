"""Cost of an inference-weighted world against one plain determinization.

For the player to move in a game played by the heuristic player (6 and 11
players, default rules, so the passing scheme's rule applies: 4 and 2 cards),
at several points of the hand (``--played``: cards played so far), medians
over ``--repeats`` interleaved repeats of ``--number`` draws, all inside one
compiled loop (no Python call per draw), in CPU time (``time.process_time``):

* ``plain``: one determinization (:func:`spiel_game.determinize.determinize`, what
  an ISMCTS iteration or a PIMC world costs to draw today);
* ``weighted``: one candidate world weighted: determinization,
  :func:`solvers.beliefs.replay.complete_world` and
  :func:`solvers.beliefs.replay.world_log_likelihood` (for each model);
* ``sir(M)``: one SIR draw with ``M`` candidates (``--worlds``), what a
  weighted ISMCTS iteration or PIMC world costs to draw;
* the mean effective sample size of those SIR draws (``M`` when every
  weight is equal, 1 when one candidate takes all).

``python -m experiments.bench.inference [--quick] [--players 6 11]
[--played 10 40 80] [--repeats 5] [--number 300] [--worlds 8]
[--checkpoint CK] [--out FILE]`` (``--checkpoint``: also the ``network``
opponent model of that network checkpoint)
prints a markdown table and writes ``results/<profile>/bench/inference.json``.
With ``--gap`` it measures instead how far the sampler's candidates fall
below the true world in likelihood when every seat plays the heuristic
(:func:`proposal_gap`; ``results/<profile>/bench/inference_gap.json``).
It measures; it is not part of ``make reproduce`` (not in ``BENCHES``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

import spiel_game
from spiel_game import engine as E
from spiel_game.rng import make_rng_state
from solvers.heuristic import heuristic_policy
from solvers.beliefs.replay import (MODELS, complete_world, make_belief, sir_world,
                               belief_log_likelihood)
from spiel_game.determinize import Determinizer, determinize

from ..metadata import metadata, write_result
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
    from solvers.beliefs.replay import network_for
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
    (:func:`solvers.beliefs.replay.move_pool`) and the same numbers are reported
    after the moves (``moved_best``, ``moved_median``, ``accept``)."""
    from solvers.beliefs.replay import WeightedDeterminizer, move_pool
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
#: belief_min_ess, belief_mcmc), the agents' designs and a slow reference.
CALIBRATION_DESIGNS = (("prior, 2048 worlds (plain ISMCTS)", 2048, 2048, 0),
                       ("prior, 16 worlds", 16, 16, 0),
                       ("128 tempered to ESS 16", 128, 16, 0),
                       ("16 resampled from ESS 4, 30 MH steps", 16, 4, 30),
                       ("64 chains x 150 MH steps", 64, 64, 150))


def calibration(players: int = 6, played=(8, 16, 24, 32), seeds=range(15),
                designs=CALIBRATION_DESIGNS, epsilon: float = 0.1, bins: int = 10) -> dict:
    """Are a world pool's beliefs calibrated? For heuristic self-play states
    (:func:`heuristic_state`: every seat the heuristic, so the model is exact up
    to ``epsilon``), each pool design (:class:`solvers.beliefs.replay.WorldPool` with
    ``(size, min_ess, mcmc)``) predicts, for every other seat and card type, the
    probability that the seat holds at least one copy (its weighted share of
    worlds); predictions strictly between 0 and 1 are binned and compared with
    how often the seat really holds it. A calibrated pool's bins lie on the
    diagonal; an over-confident one's are flatter (what it calls 0.8 happens
    far less often). ``ece``: the expected calibration error (the bins'
    ``|predicted - observed|`` weighted by their counts); ``brier``: the mean
    squared error; ``sharpness``: the mean squared distance of the
    predictions from the base rate."""
    from solvers.beliefs.replay import WeightedDeterminizer, WorldPool
    game = spiel_game.load({"players": players})
    n = players
    edges = np.linspace(0.0, 1.0, bins + 1)
    acc = {d[0]: np.zeros((3, bins)) for d in designs}
    err = {d[0]: [0.0, 0.0, 0] for d in designs}
    for seed in seeds:
        for k in played:
            st = heuristic_state(game, 500 + seed, k)
            me = st.current_player()
            truth = np.array(st.engine_state)
            wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=epsilon)
            y = np.stack([E.hand(wd.P, truth, q) for q in range(n)]) > 0
            for label, size, min_ess, mcmc in designs:
                pool = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, size,
                                 make_rng_state(seed, k), min_ess=min_ess, mcmc=mcmc)
                held = np.stack([np.stack([E.hand(wd.P, w, q) for q in range(n)])
                                 for w in pool.pool[:pool.m]]) > 0
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
    ap.add_argument("--gap", action="store_true",
                    help="instead of costs: the proposal gap (proposal_gap), --number "
                         "candidates per state (default 300), seeds 0..2 from --seed")
    ap.add_argument("--mcmc", type=int, default=0,
                    help="with --gap: also move the candidates this many MH steps")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/<profile>/bench/inference.json, or inference_gap.json)")
    ap.add_argument("--calibration", action="store_true",
                    help="instead of costs: are the pools' beliefs calibrated (calibration); "
                         "--players (first), --number seeds (default 15; quick 2)")
    a = ap.parse_args(argv)
    if a.calibration:
        nseeds = a.number or (2 if a.quick else 15)
        designs = CALIBRATION_DESIGNS[:4] + ((("64 chains x 20 MH steps", 64, 64, 20),)
                                             if a.quick else CALIBRATION_DESIGNS[4:])
        res = calibration(a.players[0], seeds=range(a.seed, a.seed + nseeds),
                          designs=designs, epsilon=a.epsilon)
        print(calibration_table(res))
        out = a.out or default_out("inference_calibration", a.quick)
        write_result(out, res, metadata(res["config"], a.seed))
        print(f"wrote {out}")
        return 0
    if a.gap:
        seeds = tuple(range(a.seed, a.seed + (1 if a.quick else 3)))
        res = proposal_gap(tuple(a.players), tuple(a.played), a.number or 300, a.epsilon,
                           seeds, mcmc=a.mcmc)
        print(gap_table(res))
        out = a.out or default_out("inference_gap", a.quick)
        write_result(out, res, metadata(res["config"], a.seed))
        print(f"wrote {out}")
        return 0
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
