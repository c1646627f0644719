"""Search speed and strength against OpenSpiel's ISMCTS, side by side in one run.

Speed, iterations per second (one iteration = one determinization, one tree
descent, one random rollout to the end of the hand), medians of interleaved
repeats with the same iteration budget:

* ours (:class:`solvers._ismcts.ISMCTSBot`, random rollouts) on
  ``python_cancellation_hearts``, 6 players, mid-hand (51 of 102 cards
  played), the player to move;
* OpenSpiel's Python ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with
  ``RandomRolloutEvaluator(1)`` on the same state (goal: ours >= 50x);
* OpenSpiel's C++ ``pyspiel.ISMCTSBot`` (``RandomRolloutEvaluator(1)``) on its
  C++ ``hearts`` (4 players, one pack), mid-hand (26 of 52 cards played)
  (goal: ours, on the larger game, at least as many iterations per second).

Strength at equal iterations: ours against OpenSpiel's Python ISMCTSBot on our
game (6 players), both with random rollouts and the same exploration (ours
``uct_c`` on rewards scaled to [0, 1], theirs ``uct_c * (max - min utility)``
on raw returns), by duplicate deals (:mod:`experiments.tournament`); goal: the
95% CI of our payoff advantage includes or exceeds 0.

``python -m experiments.bench.search [--quick] [--iterations 1000] [--repeats 5]
[--strength-iterations 100] [--strength-deals 20] [--workers 2] [--out DIR]``;
prints a markdown table and writes ``results/paper/bench/search.json``
(``--quick``: small budgets, seconds, ``results/quick/bench/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import statistics
import time
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game
from spiel_game import _engine as E
from spiel_game._playout import play_random, random_action

from .._base.metadata import metadata, write_result
from ..tournament import TournamentConfig, run_tournament
from . import default_out

__all__ = ["BenchConfig", "mid_hand_state", "hearts_mid_hand_state", "run", "table"]


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    iterations: int = 1000
    repeats: int = 5
    uct_c: float = 0.4
    strength_iterations: int = 100
    strength_deals: int = 20
    workers: int = 2
    seed: int = 0


def mid_hand_state(game, seed: int, n_played: int):
    """A decision point with ``n_played`` cards played (random play, seeded)."""
    return play_random(game, seed, until=lambda st: not (
        st.is_chance_node() or st.engine_state[E.S_PHASE] != E.PH_PLAY
        or st.engine_state[E.S_NPLAYED] < n_played or len(st.legal_actions()) < 2))


def hearts_mid_hand_state(seed: int, n_played: int = 26):
    """OpenSpiel C++ ``hearts`` (pass direction, deal, 12 passes unless "No Pass")
    at a decision point with ``n_played`` cards played."""
    game = pyspiel.load_game("hearts")
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    moves = 0
    while True:
        if st.is_chance_node():
            st.apply_action(random_action(st, rng))
            continue
        passes = 0 if "No Pass" in str(st) else 12
        la = st.legal_actions()
        if moves - passes >= n_played and len(la) >= 2:
            return game, st
        st.apply_action(la[int(rng.integers(len(la)))])
        moves += 1


def _time(fn, state) -> float:
    t0 = time.perf_counter()
    fn(state)
    return time.perf_counter() - t0


def run(config: BenchConfig, out_dir: Path | None = None, progress: bool = True) -> dict:
    from open_spiel.python.algorithms import ismcts as os_ismcts, mcts
    from solvers._ismcts import ISMCTSBot
    started = _dt.datetime.now(_dt.UTC)
    B = config.iterations
    game = spiel_game.load(players=6)
    st = mid_hand_state(game, config.seed, 51)
    me = st.current_player()
    span = game.max_utility() - game.min_utility()
    ours = ISMCTSBot(game, me, config.seed, iterations=B, uct_c=config.uct_c)
    rs = np.random.RandomState(config.seed)
    theirs = os_ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), config.uct_c * span,
                                 B, random_state=rs)
    gen = np.random.default_rng(config.seed)
    theirs.set_resampler(lambda s, p: s.resample_from_infostate(p, gen))
    hgame, hst = hearts_mid_hand_state(config.seed)
    cpp = pyspiel.ISMCTSBot(config.seed, pyspiel.RandomRolloutEvaluator(1, config.seed),
                            config.uct_c * (hgame.max_utility() - hgame.min_utility()), B,
                            final_policy_type=pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    ours.step(st)                                   # compile / warm up
    cpp.step(hst)
    t = {"ours": [], "openspiel_python": [], "openspiel_cpp_hearts": []}
    for _ in range(config.repeats):
        t["ours"].append(_time(ours.step, st))
        t["openspiel_python"].append(_time(theirs.step, st))
        t["openspiel_cpp_hearts"].append(_time(cpp.step, hst))
    ips = {k: B / statistics.median(v) for k, v in t.items()}
    speed = {
        "iterations_per_move": B, "repeats": config.repeats,
        "state": {"game": "python_cancellation_hearts(players=6)",
                  "cards_played": int(st.engine_state[E.S_NPLAYED]),
                  "cards_left": game.rules.num_cards - int(st.engine_state[E.S_NPLAYED]),
                  "legal_actions": len(st.legal_actions())},
        "hearts_state": {"game": "hearts", "cards_left": 52 - 26,
                         "legal_actions": len(hst.legal_actions())},
        "iterations_per_second": ips,
        "ratio_vs_openspiel_python": ips["ours"] / ips["openspiel_python"],
        "ratio_vs_openspiel_cpp_hearts": ips["ours"] / ips["openspiel_cpp_hearts"],
        "seconds": t,
    }
    strength = None
    if config.strength_deals > 0:
        iters = config.strength_iterations
        tc = TournamentConfig(
            agents=(f"ismcts(iterations={iters}, uct_c={config.uct_c})",
                    f"openspiel_ismcts(iterations={iters}, uct_c={config.uct_c})"),
            game={"players": 6}, deals=config.strength_deals, seed=config.seed,
            workers=config.workers)
        res = run_tournament(tc, None if out_dir is None else out_dir / "bench_search_strength",
                             progress=progress)
        d = res.summary["pairs"][0]["payoff_difference"]
        strength = {"iterations": iters, "deals": res.summary["deals"],
                    "seat_assignments": len(res.summary["assignments"]),
                    "payoff_ours_minus_openspiel": d,
                    "not_weaker": bool(np.isnan(d["hi"]) or d["hi"] >= 0),
                    "agents": res.summary["agents"], "timing": res.summary["timing"]}
    result = {"speed": speed, "strength": strength,
              "goals": {"ratio_vs_openspiel_python": ">= 50",
                        "ratio_vs_openspiel_cpp_hearts": ">= 1",
                        "strength": "CI of ours - openspiel includes or exceeds 0"}}
    if out_dir is not None:
        write_result(out_dir / "search.json", result,
                     metadata(config, config.seed, started))
    return result


def table(res: dict) -> str:
    sp = res["speed"]
    ips = sp["iterations_per_second"]
    lines = [
        f"ISMCTS, {sp['iterations_per_move']} iterations per move, random rollouts, "
        f"medians of {sp['repeats']} interleaved repeats",
        "",
        "| figure | ours | anchor beside it | ratio | goal |",
        "|---|---|---|---|---|",
        f"| iterations/s, 6 players mid-hand ({sp['state']['cards_left']} cards left) "
        f"| {ips['ours']:,.0f} | OpenSpiel Python ISMCTSBot, same state: "
        f"{ips['openspiel_python']:,.0f} | {sp['ratio_vs_openspiel_python']:.0f}x | >= 50x |",
        f"| same | {ips['ours']:,.0f} | OpenSpiel C++ ISMCTSBot on C++ hearts (4 players, "
        f"{sp['hearts_state']['cards_left']} cards left): {ips['openspiel_cpp_hearts']:,.0f} "
        f"| {sp['ratio_vs_openspiel_cpp_hearts']:.2f}x | >= 1x |",
    ]
    s = res["strength"]
    if s:
        d = s["payoff_ours_minus_openspiel"]
        lines.append(
            f"| strength at {s['iterations']} iterations, 6 players | payoff ours - theirs "
            f"{d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] | OpenSpiel Python ISMCTSBot "
            f"({s['deals']} deals x {s['seat_assignments']} seatings) | p = {d['p_value']:.2g} "
            f"| CI includes or exceeds 0: {'yes' if s['not_weaker'] else 'no'} |")
    return "\n".join(lines)


#: The ``--quick`` run, the same measurements with small budgets (seconds): speed at 200
#: iterations, 2 repeats; strength at 20 iterations on 2 deals, in this process.
QUICK = {"iterations": 200, "repeats": 2, "strength_iterations": 20, "strength_deals": 2,
         "workers": 1}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.search")
    ap.add_argument("--quick", action="store_true",
                    help="small budgets (seconds), into results/quick/bench: " + ", ".join(
                        f"{k}={v}" for k, v in QUICK.items()))
    for f in dataclasses.fields(BenchConfig):
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=None,
                        help=f"default {f.default}")
    ap.add_argument("--out", default=None, help="the folder of search.json (default "
                    "results/paper/bench, results/quick/bench with --quick)")
    ap.add_argument("--no-progress", action="store_true")
    args = vars(ap.parse_args(argv))
    quick = args.pop("quick")
    out = Path(args.pop("out") or default_out("search", quick).parent)
    progress = not args.pop("no_progress")
    preset = {f.name: f.default for f in dataclasses.fields(BenchConfig)}
    preset.update(QUICK if quick else {})
    config = BenchConfig(**{k: preset[k] if v is None else v for k, v in args.items()})
    res = run(config, out, progress)
    print(table(res))
    print(f"written to {out / 'search.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
