"""Speed of ``state.resample_from_infostate`` against rejection sampling.

* 6 players, default game, mid-hand (about half the cards played): median
  cost of one resample for the player to move and for another player; and
  the spread over the decision points of a few random games (6 players: all
  of them; 11 players with 3 packs: every 4th), where the exact
  dynamic-programming fallback makes a heavy tail;
* rejection sampling, measured where it is feasible: a small custom deck
  (3 players, H S x 9 T J Q K A, 12 cards, no passing; the suggested
  T J Q K A makes 10 cards, which 3 players cannot share) in the first trick,
  right after the lead. One attempt = a fresh random history (deal through
  the chance outcomes; the real public plays and the player's own actions,
  rejected as soon as one is illegal; the other players' passes, if any,
  random) accepted when the player's information-state string equals the
  real one. Cost per accepted sample against one resample; a chi-square test
  checks that both give the same distribution of the hidden hands (single
  copies here, so the two definitions of the distribution coincide);
* rejection on the 6-player state: infeasible. Reported: attempts made with
  no acceptance, and an upper bound on the acceptance probability (a fresh
  deal must at least give the player exactly the 17 cards it was dealt).

Interleaved repeats and medians (machines here are shared and noisy).
``python -m experiments.bench.resample [--quick] [--repeats R] [--out FILE]`` (writes
``results/paper/bench/resample.json``; ``--quick``: 2 repeats of 40 resamples, a
3-second rejection run, ``results/quick/bench/``)
"""

from __future__ import annotations

import argparse
import collections
import datetime as _dt
import math
import statistics
import time

import numpy as np
import scipy.stats

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game._playout import play_random, random_action

from .._base.metadata import metadata, write_result
from . import default_out

SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "9TJQKA", "packs": 1,
         "pass_count": 0}


def _chance(st, rng):
    st.apply_action(random_action(st, rng))


def state_after_plays(game, seed: int, n_played: int):
    """A random state at a decision point with ``n_played`` cards played."""
    return play_random(game, seed, until=lambda st: not (
        st.is_chance_node() or st.engine_state[E.S_PHASE] == E.PH_PASS
        or st.engine_state[E.S_NPLAYED] < n_played))


def hidden(st, me) -> tuple:
    s, P = st.engine_state, st.engine_params
    return tuple(C.cards_to_string(E.hand(P, s, q))
                 for q in range(st.rules.players) if q != me)


def resample_seconds(st, player, number, seed) -> float:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for _ in range(number):
        st.resample_from_infostate(player, rng)
    return (time.perf_counter() - t0) / number


class Rejection:
    """Rejection sampling from fresh random histories (see the module docstring)."""

    def __init__(self, real, me):
        self.game = real.get_game()
        self.real = real
        self.me = me
        self.want = real.information_state_string(me)
        self.hist = real.history()
        self.n_deal = 1 if self.game.rules.deal == "whole" else self.game.rules.num_cards

    def attempt(self, rng):
        st = self.game.new_initial_state()
        for _ in range(self.n_deal):
            _chance(st, rng)
        for a in self.hist[self.n_deal:]:
            if st.engine_state[E.S_PHASE] == E.PH_PASS and st.current_player() != self.me:
                la = st.legal_actions()                 # others' hidden passes: random
                a = la[int(rng.integers(len(la)))]
            elif a not in st.legal_actions():
                return None
            st.apply_action(a)
        return st if st.information_state_string(self.me) == self.want else None

    def run(self, rng, max_accepted, max_seconds):
        accepted, attempts = [], 0
        t0 = time.perf_counter()
        while len(accepted) < max_accepted and time.perf_counter() - t0 < max_seconds:
            attempts += 1
            r = self.attempt(rng)
            if r is not None:
                accepted.append(r)
        return accepted, attempts, time.perf_counter() - t0


def own_deal_probability(st, me) -> float:
    """P(a fresh uniform deal gives ``me`` exactly the multiset it was dealt)."""
    r = st.rules
    s, P = st.engine_state, st.engine_params
    mine = E.dealt_hand(P, s, me)
    ways = math.prod(math.comb(int(r.deck_counts[c]), int(mine[c])) for c in range(E.K))
    return ways / math.comb(r.num_cards, r.hand_size)


def run(repeats: int = 7, seed: int = 0, number: int = 200, max_seconds: float = 30.0) -> dict:
    out: dict = {}
    # --- 6 players, mid-hand.
    game6 = spiel_game.load(players=6)
    st6 = state_after_plays(game6, seed, 51)
    me6 = st6.current_player()
    other6 = (me6 + 3) % 6
    resample_seconds(st6, me6, 5, seed)                 # compile / warm up
    rows = {"to_move": [], "other": []}
    for r in range(repeats):
        rows["to_move"].append(resample_seconds(st6, me6, number, seed + r))
        rows["other"].append(resample_seconds(st6, other6, number, seed + r))
    out["six_players_mid_hand"] = {
        "cards_played": int(st6.engine_state[E.S_NPLAYED]),
        "median_us_to_move": statistics.median(rows["to_move"]) * 1e6,
        "median_us_other_player": statistics.median(rows["other"]) * 1e6,
        "repeats": repeats, "resamples_per_repeat": number,
    }
    # --- spread over whole games (the exact fallback's tail), after one warm-up game.
    spread = {}
    for name, params, games, every in (("6 players", {"players": 6}, 3, 1),
                                       ("11 players, 3 packs", {"players": 11, "packs": 3}, 1, 4)):
        g = spiel_game.load(params)
        rng = np.random.default_rng(seed + 1)
        times = []
        for game_no in range(games + 1):            # game 0 warms up (loads every kernel)
            if game_no == 1:
                times.clear()
            st = g.new_initial_state()
            k = 0
            while not st.is_terminal():
                if st.is_chance_node():
                    _chance(st, rng)
                    continue
                k += 1
                if k % every == 0:
                    p = st.current_player()
                    t0 = time.perf_counter()
                    st.resample_from_infostate(p, rng)
                    times.append(time.perf_counter() - t0)
                la = st.legal_actions()
                st.apply_action(la[int(rng.integers(len(la)))])
        t = np.array(times) * 1e6
        spread[name] = {"decision_points": len(t), "median_us": float(np.median(t)),
                        "p95_us": float(np.percentile(t, 95)), "max_us": float(t.max())}
    out["spread_over_games_player_to_move"] = spread
    # --- rejection where feasible: small custom deck, first trick, after the lead.
    small = spiel_game.load(SMALL)
    st = state_after_plays(small, seed, 1)
    me = st.current_player()
    rej = Rejection(st, me)
    resample_seconds(st, me, 5, seed)
    t_res = [resample_seconds(st, me, number, seed + r) for r in range(repeats)]
    accepted, attempts, secs = rej.run(np.random.default_rng(seed), 300, max_seconds)
    per_attempt = secs / attempts
    acc_rate = len(accepted) / attempts
    per_accepted = secs / max(1, len(accepted))
    rng = np.random.default_rng(seed + 7)
    ours = collections.Counter(hidden(st.resample_from_infostate(me, rng), me)
                               for _ in range(max(300, len(accepted))))
    theirs = collections.Counter(hidden(r, me) for r in accepted)
    keys = sorted(set(ours) | set(theirs))
    p_same = float(scipy.stats.chi2_contingency(
        np.array([[ours[k] for k in keys], [theirs[k] for k in keys]]))[1]) \
        if len(keys) > 1 and accepted else float("nan")
    out["small_deck_rejection"] = {
        "params": SMALL, "cards_played": int(st.engine_state[E.S_NPLAYED]), "player": me,
        "resample_median_us": statistics.median(t_res) * 1e6,
        "rejection_attempts": attempts, "rejection_accepted": len(accepted),
        "acceptance_rate": acc_rate,
        "rejection_us_per_attempt": per_attempt * 1e6,
        "rejection_us_per_accepted_sample": per_accepted * 1e6,
        "ratio_rejection_over_resample": per_accepted / statistics.median(t_res),
        "chi2_same_distribution_p": p_same,
        "own_deal_probability": own_deal_probability(st, me),
    }
    # --- rejection on the 6-player state: infeasible.
    rej6 = Rejection(st6, me6)
    n6 = 0
    t0 = time.perf_counter()
    acc6 = 0
    while time.perf_counter() - t0 < max_seconds / 3:
        n6 += 1
        acc6 += rej6.attempt(np.random.default_rng(seed + n6)) is not None
    per6 = (time.perf_counter() - t0) / n6
    bound = own_deal_probability(st6, me6)
    out["six_players_rejection"] = {
        "attempts": n6, "accepted": acc6, "us_per_attempt": per6 * 1e6,
        "acceptance_upper_bound": bound,
        "estimated_seconds_per_accepted_sample_at_least": per6 / bound,
        "bound": "a fresh deal must give the player exactly its dealt multiset of "
                 "17 cards (the received passes and the play only lower it)",
    }
    return out


def table(res: dict) -> str:
    six = res["six_players_mid_hand"]
    sm = res["small_deck_rejection"]
    r6 = res["six_players_rejection"]
    years = r6["estimated_seconds_per_accepted_sample_at_least"] / 3.15e7
    lines = [
        "| case | resample (median) | rejection sampling | ratio |",
        "|---|---|---|---|",
        f"| 6 players, mid-hand ({six['cards_played']} of 102 cards played), player to move "
        f"| {six['median_us_to_move']:.0f} us | infeasible: acceptance <= "
        f"{r6['acceptance_upper_bound']:.1e} ({r6['accepted']}/{r6['attempts']} accepted, "
        f"{r6['us_per_attempt']:.0f} us per attempt, >= {years:.1e} years per sample) | - |",
        f"| 6 players, mid-hand, another player | {six['median_us_other_player']:.0f} us | - | - |",
        f"| 3 players, H S x 9-A (12 cards), first trick after the lead "
        f"| {sm['resample_median_us']:.0f} us "
        f"| {sm['rejection_us_per_accepted_sample']:.0f} us per accepted sample "
        f"(acceptance {sm['acceptance_rate']:.2e}: {sm['rejection_accepted']}/"
        f"{sm['rejection_attempts']}; same distribution: chi-square p = "
        f"{sm['chi2_same_distribution_p']:.2f}) | {sm['ratio_rejection_over_resample']:.0f}x |",
        "",
        "| resample at decision points of random games, player to move "
        "| points | median | p95 | max |",
        "|---|---|---|---|---|",
    ]
    for name, v in res["spread_over_games_player_to_move"].items():
        lines.append(f"| {name} | {v['decision_points']} | {v['median_us']:.0f} us | "
                     f"{v['p95_us']:.0f} us | {v['max_us'] / 1e3:.1f} ms |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.resample")
    ap.add_argument("--quick", action="store_true",
                    help="seconds: 2 repeats of 40 resamples, 3 s of rejection sampling, "
                         "into results/quick/bench")
    ap.add_argument("--repeats", type=int, default=None, help="default 7 (quick: 2)")
    ap.add_argument("--number", type=int, default=None,
                    help="resamples per timed repeat (default 200; quick: 40)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="time limit of the small-deck rejection run (default 30; quick: 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/resample.json, results/quick/bench with --quick)")
    args = ap.parse_args(argv)
    for key, full, quick in (("repeats", 7, 2), ("number", 200, 40), ("max_seconds", 30.0, 3.0)):
        if getattr(args, key) is None:
            setattr(args, key, quick if args.quick else full)
    if args.out is None:
        args.out = str(default_out("resample", args.quick))
    started = _dt.datetime.now(_dt.UTC)
    res = run(args.repeats, args.seed, args.number, args.max_seconds)
    print(table(res))
    write_result(args.out, res, metadata(vars(args), args.seed, started))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
