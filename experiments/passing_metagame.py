"""Approximate exploitability of passing conventions on the full game (issue 7).

Play: the compiled heuristic player (``spiel_game/policies.py``) for everyone;
passing: the conventions of ``solvers/passing.py``. All runs use duplicate
deals: deal ``d`` is the same hand for every profile and every seat rotation
(the simulator draws the deal first from game ``d``'s own random stream).

1. **Meta-game.** For every convention profile up to symmetry (a multiset of
   conventions over the seats), every deal is played with the profile rotated
   through all cyclic seat assignments; the payoff of a convention is minus
   the mean points of the seats using it. Sampling error: bootstrap over deals.
2. **Best response within the library.** ``gain(C) = max_j u_j(one j, others C)
   - u_C(all C)`` with its bootstrap 95% interval (percentile; the bootstrap
   of a maximum is biased upward, so the interval need not contain the
   estimate when two deviations are close).
3. **Rollout best-response passer.** Against everyone passing by C, one seat
   chooses each passed card by simulation: it samples hidden cards from its
   information state (``resample_from_infostate``), plays every candidate out
   with the heuristic player in the compiled engine (common random numbers),
   and passes the best; the gain is the paired difference with passing by C
   on the same deals, with a 95% interval.
4. **Equilibria of the estimated meta-game:** a symmetric Nash equilibrium of
   the n-player symmetric meta-game by replicator dynamics (its regret
   reported), and alpha-Rank (OpenSpiel's ``open_spiel.python.egt.alpharank``)
   on the 2-player one-vs-population reduction (entry ``[i, j]``: one seat
   with ``i``, the others with ``j``), each with bootstrap intervals.

Eleven players (``passing_metagame_11``). The same analysis with
``{"players": 11}`` (two packs, 9 cards each, 2 passed). With all seven
conventions the meta-game has C(17, 6) = 12,376 profiles, each played in all
11 cyclic seat rotations: 136,136 simulator calls per deal set. Design:

* **paper profile: the full heuristic payoff table** (every profile, every
  rotation, all seven conventions) with fewer duplicate deals per profile
  than the 6-player run (200 instead of 3,000: 27 million hands at a
  measured ~35 us per 11-player hand on one core), and bootstrap over those
  deals. Sized to fit 40 minutes on a shared 2-core machine with ``nice``:
  the whole paper run took 26 minutes wall, 18.5 minutes of CPU, under a
  load of about 4 (README). Nothing is left out of the meta-game; the price
  is wider intervals.
* **quick profile: a restricted convention set** (``dump_points``,
  ``void_short``, ``low``, ``expert``: 364 profiles) on 40 deals, so that
  ``make reproduce`` and the tests stay at seconds; its numbers are a smoke
  run of the same code, not a result about all seven conventions.
* **all 11 rotations are kept.** Under the default rules the seats are
  exchangeable (uniform deal, the holder of the opening card leads, and no
  passed card is seen before everyone has passed), so rotating is variance
  reduction, not bias removal, and fewer rotations with more deals would be
  equally honest. Measured per simulated hand on 400 x 11 hands (one-seat,
  five-vs-six and expert/keep_maria profiles) neither design was uniformly
  more efficient (variance ratio, one rotation per deal / all rotations,
  between 0.4 and 1.7), so we keep the duplicate design of the 6-player run:
  on every deal each convention of a profile holds every seat's cards.
* The rollout best-response passer works unchanged (seat 0, which passes
  first; every seat is equivalent by the same exchangeability).

``python -m experiments.passing_metagame --profile quick|paper [--players 6|11]``
writes ``results/<profile>/passing_metagame.json`` (``passing_metagame_11.json``);
the runner experiments ``passing_metagame`` and ``passing_metagame_11`` write
``results/<profile>/<name>/`` (tidy rows, including every profile's payoffs).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import itertools
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game
from spiel_game import engine as E
from spiel_game.policies import CONVENTIONS
from spiel_game.rules import RuleSet
from spiel_game.simulator import make_rng, rollout, simulate

from .metadata import metadata, write_result
from .registry import Summary, Unit, register

__all__ = ["MetagameConfig", "PROFILES", "PROFILES_11", "run", "profiles", "replicator_nash",
           "alpharank_masses", "one_vs_population", "fitness_setup", "bootstrap_tables",
           "result_name"]


@dataclasses.dataclass(frozen=True)
class MetagameConfig:
    players: int = 6
    conventions: tuple[str, ...] = CONVENTIONS
    deals: int = 40
    br_deals: int = 12
    br_samples: int = 8
    bootstrap: int = 40
    play: str = "heuristic"
    seed: int = 20261129
    workers: int | None = None


PROFILES = {
    "quick": MetagameConfig(),
    "paper": MetagameConfig(deals=3000, br_deals=400, br_samples=32, bootstrap=500),
}
#: Eleven players (see the module docstring for the design).
QUICK_11_CONVENTIONS = ("dump_points", "void_short", "low", "expert")
#: ``workers=1``: the simulator's serial kernel, faster on the meta-game's many
#: small batches (4,004 calls of 40 hands in quick) than two threads.
PROFILES_11 = {
    "quick": MetagameConfig(players=11, conventions=QUICK_11_CONVENTIONS, deals=40, br_deals=40,
                            br_samples=8, bootstrap=40, workers=1),
    "paper": MetagameConfig(players=11, deals=200, br_deals=1500, br_samples=16, bootstrap=500,
                            workers=1),
}
PROFILES_BY_PLAYERS = {6: PROFILES, 11: PROFILES_11}


def result_name(players: int) -> str:
    """``passing_metagame`` (6 players, and any count but 11) or ``passing_metagame_11``."""
    return "passing_metagame_11" if players == 11 else "passing_metagame"


def profiles(n_players: int, k: int) -> list[tuple[int, ...]]:
    """Count vectors of ``k`` strategies over ``n_players`` seats."""
    out = []
    for combo in itertools.combinations_with_replacement(range(k), n_players):
        counts = [0] * k
        for i in combo:
            counts[i] += 1
        out.append(tuple(counts))
    return out


def _profile_payoffs(cfg: MetagameConfig) -> tuple[list, np.ndarray]:
    """payoff[profile, deal, strategy] (NaN where the strategy is absent).

    Profile ``counts`` seats its conventions in blocks (``counts[0]`` seats of
    the first, then the second, ...) and plays every deal in all ``n`` cyclic
    rotations of that arrangement; a convention's payoff on a deal is minus
    the mean points of its seats over the rotations. A long table (the
    11-player one) reports its progress on stderr at every tenth."""
    k, n = len(cfg.conventions), cfg.players
    rules = RuleSet.from_params({"players": n})
    profs = profiles(n, k)
    pay = np.full((len(profs), cfg.deals, k), np.nan)
    t0 = time.perf_counter()
    tenth = max(1, len(profs) // 10)
    for r, counts in enumerate(profs):
        if r and r % tenth == 0 and time.perf_counter() - t0 > 10:
            el = time.perf_counter() - t0
            print(f"passing meta-game, {n} players: {r}/{len(profs)} profiles in {el:.0f} s, "
                  f"about {el * (len(profs) - r) / r:.0f} s to go", file=sys.stderr, flush=True)
        seats = [i for i, c in enumerate(counts) for _ in range(c)]
        acc = np.zeros((cfg.deals, k))
        for rot in range(n):
            order = seats[rot:] + seats[:rot]
            pols = [f"pass:{cfg.conventions[i]}+{cfg.play}" for i in order]
            res = simulate(rules, cfg.deals, pols, seed=cfg.seed, workers=cfg.workers)
            onehot = np.zeros((n, k))
            onehot[np.arange(n), order] = 1.0
            acc -= res.points @ onehot
        for i, c in enumerate(counts):
            if c:
                pay[r, :, i] = acc[:, i] / (c * n)
    return profs, pay


def fitness_setup(profs):
    """Opponent multisets (n-1 seats), their multinomial log-coefficients, and
    the row of the full profile for each (multiset, strategy). Depends on the
    profile list only: compute it once and pass it to :func:`replicator_nash`."""
    n, k = sum(profs[0]), len(profs[0])
    index = {p: i for i, p in enumerate(profs)}
    others = np.array(profiles(n - 1, k), np.float64)
    coef = np.array([math.lgamma(n) - sum(math.lgamma(c + 1) for c in row) for row in others])
    rows = np.zeros((len(others), k), np.int64)
    for m, row in enumerate(others.astype(int)):
        for i in range(k):
            full = list(row)
            full[i] += 1
            rows[m, i] = index[tuple(full)]
    return others, coef, rows


def _expected_payoffs(setup, table, x, gathered=None):
    """Fitness of each strategy against n-1 opponents drawn iid from ``x``
    (``gathered``: ``table[rows, arange(k)]``, when already computed)."""
    others, coef, rows = setup
    if gathered is None:
        gathered = table[rows, np.arange(table.shape[1])]
    logx = np.log(np.maximum(x, 1e-300))
    prob = np.exp(coef + others @ logx)
    return prob @ gathered


def replicator_nash(profs, table, *, steps: int = 3000, lr: float = 0.05, setup=None):
    """Discrete-time replicator dynamics from the uniform mixture.

    Returns (mixture, regret): regret = max_i f_i(x) - x . f(x) (0 at a
    symmetric Nash equilibrium of the estimated meta-game). ``setup``:
    :func:`fitness_setup` of ``profs`` (computed here when None)."""
    setup = fitness_setup(profs) if setup is None else setup
    k = table.shape[1]
    gathered = table[setup[2], np.arange(k)]
    x = np.full(k, 1.0 / k)
    for _ in range(steps):
        f = _expected_payoffs(setup, table, x, gathered)
        x = x * np.exp(lr * (f - x @ f))
        x /= x.sum()
    f = _expected_payoffs(setup, table, x, gathered)
    return x, float(f.max() - x @ f)


def one_vs_population(profs, table):
    """The 2-player reduction of the symmetric meta-game: ``A[i, j]`` = payoff of
    one seat using ``i`` while the other n-1 seats use ``j``."""
    k = table.shape[1]
    n = sum(profs[0])
    index = {p: i for i, p in enumerate(profs)}
    a = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            prof = tuple((n - 1 if q == j else 0) + (1 if q == i else 0) for q in range(k))
            a[i, j] = table[index[prof], i]
    return a


def alpharank_masses(profs, table, *, alpha: float = 10.0):
    """alpha-Rank (OpenSpiel) stationary distribution of the one-vs-population
    reduction (OpenSpiel's single-population alpha-Rank is defined for
    2-player symmetric games)."""
    from open_spiel.python.egt import alpharank
    out = alpharank.compute([one_vs_population(profs, table)], alpha=alpha)
    return np.asarray(out[2], float)


def _library_gain(profs, table, k, n):
    """gain[C] = max_j u_j(one j, others C) - u_C(all C)."""
    index = {p: i for i, p in enumerate(profs)}
    gain = np.zeros(k)
    for c in range(k):
        base = table[index[tuple(n if i == c else 0 for i in range(k))], c]
        best = base
        for j in range(k):
            if j != c:
                prof = tuple((n - 1 if i == c else 0) + (1 if i == j else 0) for i in range(k))
                best = max(best, table[index[prof], j])
        gain[c] = best - base
    return gain


def _rollout_br_gain(cfg: MetagameConfig, conv: str) -> np.ndarray:
    """Per-deal gain of the rollout best-response passer (seat 0) against ``conv``."""
    n = cfg.players
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    pol_c = f"pass:{conv}+{cfg.play}"
    out = np.zeros(cfg.br_deals)
    rng = np.random.default_rng(cfg.seed + 7919)
    # The deals: replayed from the simulator's traces (duplicate with the meta-game).
    res = simulate({"players": n}, cfg.br_deals, [pol_c] * n, seed=cfg.seed, record=True,
                   workers=cfg.workers)
    for d in range(cfg.br_deals):
        base = -float(res.points[d, 0])
        st = game.new_initial_state()
        for a in res.trace[d][:game.rules.num_cards]:
            st.apply_action(int(a))
        # Seat 0 chooses its passes by simulation; everyone else passes by conv.
        while st.engine_state[E.S_PHASE] == E.PH_PASS:
            p = st.current_player()
            if p == 0:
                dets = [st.resample_from_infostate(0, rng) for _ in range(cfg.br_samples)]
                best, best_v = None, -np.inf
                for a in st.legal_actions():
                    v = 0.0
                    for j, det in enumerate(dets):
                        child = det.child(a)
                        ret = rollout(child.engine_params, np.asarray(child.engine_state),
                                      make_rng(cfg.seed, 1000 * d + j),
                                      [f"pass:{conv}+{cfg.play}"] * n)
                        v += ret[0]
                    if v > best_v:
                        best, best_v = a, v
                st.apply_action(best)
            else:
                from solvers.passing import choose_pass
                dist = choose_pass(conv, st)
                st.apply_action(max(dist, key=dist.get) if conv != "random"
                                else int(rng.choice(list(dist))))
        ret = rollout(st.engine_params, np.asarray(st.engine_state), make_rng(cfg.seed, d),
                      [pol_c] * n)
        out[d] = ret[0] - base
    return out


def bootstrap_tables(pay: np.ndarray, rng: np.random.Generator, replicates: int):
    """Bootstrap over deals: yields ``replicates`` meta-game tables, each the mean
    payoff over ``D`` deals drawn with replacement (``rng.integers(0, D, D)``).

    ``pay[profile, deal, strategy]`` is NaN exactly where the strategy is
    absent from the profile (on every deal), so a resampled mean is a matrix
    product with the deal counts: no copy of ``pay`` per replicate (the
    11-player table holds 12,376 profiles)."""
    n_prof, n_deals, k = pay.shape
    present = ~np.isnan(pay[:, 0, :])
    flat = np.ascontiguousarray(np.nan_to_num(pay, nan=0.0).transpose(0, 2, 1)).reshape(
        n_prof * k, n_deals)
    for _ in range(replicates):
        w = np.bincount(rng.integers(0, n_deals, n_deals), minlength=n_deals)
        t = (flat @ w).reshape(n_prof, k) / n_deals
        t[~present] = np.nan
        yield t


def _ci(samples: np.ndarray) -> list[float]:
    return [float(np.nanpercentile(samples, 2.5)), float(np.nanpercentile(samples, 97.5))]


def run(config: MetagameConfig, out_dir: Path, name: str = "passing_metagame") -> dict:
    """Everything in one call; writes ``out_dir/<name>.json``."""
    started = dt.datetime.now(dt.timezone.utc)
    result = _metagame(config)
    br = {}
    for c in config.conventions:
        g = _rollout_br_gain(config, c)
        half = 1.959964 * g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else float("nan")
        br[c] = {"mean": float(g.mean()), "ci95": [float(g.mean() - half), float(g.mean() + half)],
                 "deals": int(len(g))}
    result["rollout_best_response_gain"] = br
    write_result(out_dir / f"{name}.json", result, metadata(config, config.seed, started))
    return result


def _metagame(config: MetagameConfig) -> dict:
    k, n = len(config.conventions), config.players
    profs, pay = _profile_payoffs(config)
    with warnings.catch_warnings():       # NaN (absent strategy) on every deal
        warnings.simplefilter("ignore", RuntimeWarning)
        table = np.nanmean(pay, axis=1)
    setup = fitness_setup(profs)
    gain = _library_gain(profs, table, k, n)
    nash, regret = replicator_nash(profs, table, setup=setup)
    masses = alpharank_masses(profs, table)
    rng = np.random.default_rng(config.seed)
    boot_gain, boot_nash, boot_alpha = [], [], []
    for t in bootstrap_tables(pay, rng, config.bootstrap):
        boot_gain.append(_library_gain(profs, t, k, n))
        boot_nash.append(replicator_nash(profs, t, steps=600, setup=setup)[0])
        boot_alpha.append(alpharank_masses(profs, t))
    del pay
    boot_gain, boot_nash, boot_alpha = map(np.array, (boot_gain, boot_nash, boot_alpha))
    index = {p: i for i, p in enumerate(profs)}
    self_play = {c: float(table[index[tuple(n if j == i else 0 for j in range(k))], i])
                 for i, c in enumerate(config.conventions)}
    result = {
        "conventions": list(config.conventions),
        "players": n,
        "play": config.play,
        "design": {"profiles": len(profs), "rotations": n, "deals": config.deals,
                   "hands": len(profs) * n * config.deals},
        "profiles": [list(p) for p in profs],
        "payoff_table": np.nan_to_num(table, nan=0.0).tolist(),
        "self_play_payoff": self_play,
        "library_best_response_gain": {c: {"mean": float(gain[i]), "ci95": _ci(boot_gain[:, i])}
                                       for i, c in enumerate(config.conventions)},
        "replicator_nash": {"mixture": dict(zip(config.conventions, nash.tolist())),
                            "regret": regret,
                            "ci95": {c: _ci(boot_nash[:, i])
                                     for i, c in enumerate(config.conventions)}},
        "one_vs_population": one_vs_population(profs, table).tolist(),
        "alpharank": {"masses": dict(zip(config.conventions, masses.tolist())),
                      "ci95": {c: _ci(boot_alpha[:, i]) for i, c in enumerate(config.conventions)}},
    }
    return result


# ------------------------------------------------------------------ runner
def units(config: MetagameConfig) -> list[dict]:
    """The meta-game (one unit) and one rollout best-response unit per convention."""
    return [{"kind": "metagame"}] + [{"kind": "rollout_br", "convention": c}
                                     for c in config.conventions]


def run_unit(config: MetagameConfig, unit: Unit) -> list[dict]:
    """Tidy rows: per convention (``kind=convention``), the one-vs-population
    matrix (``kind=one_vs_population``), the estimated payoff of every
    convention in every profile (``kind=payoff``; ``profile`` is the counts of
    the conventions, in config order, joined by ``-``) and the rollout
    best-response gains (``kind=rollout_br``)."""
    if unit.params["kind"] == "rollout_br":
        c = unit.params["convention"]
        g = _rollout_br_gain(config, c)
        half = 1.959964 * g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else float("nan")
        return [{"kind": "rollout_br", "convention": c, "mean": float(g.mean()),
                 "lo": float(g.mean() - half), "hi": float(g.mean() + half),
                 "deals": int(len(g))}]
    res = _metagame(config)
    rows = []
    for c in config.conventions:
        rows.append({"kind": "convention", "convention": c,
                     "self_play": res["self_play_payoff"][c],
                     "library_gain": res["library_best_response_gain"][c]["mean"],
                     "library_lo": res["library_best_response_gain"][c]["ci95"][0],
                     "library_hi": res["library_best_response_gain"][c]["ci95"][1],
                     "nash": res["replicator_nash"]["mixture"][c],
                     "nash_lo": res["replicator_nash"]["ci95"][c][0],
                     "nash_hi": res["replicator_nash"]["ci95"][c][1],
                     "alpharank": res["alpharank"]["masses"][c],
                     "alpharank_lo": res["alpharank"]["ci95"][c][0],
                     "alpharank_hi": res["alpharank"]["ci95"][c][1],
                     "regret": res["replicator_nash"]["regret"]})
    for i, ci in enumerate(config.conventions):
        for j, cj in enumerate(config.conventions):
            rows.append({"kind": "one_vs_population", "convention": ci, "others": cj,
                         "payoff": res["one_vs_population"][i][j]})
    for prof, pay in zip(res["profiles"], res["payoff_table"]):
        key = "-".join(map(str, prof))
        rows += [{"kind": "payoff", "profile": key, "convention": c, "payoff": pay[i]}
                 for i, c in enumerate(config.conventions) if prof[i]]
    return rows


def summarize_rows(config: MetagameConfig, rows) -> Summary:
    conv = rows[rows.kind == "convention"].set_index("convention")
    br = rows[rows.kind == "rollout_br"].set_index("convention")
    table = conv[["self_play", "library_gain", "library_lo", "library_hi", "nash",
                  "alpharank"]].join(br[["mean", "lo", "hi"]].rename(
                      columns={"mean": "rollout_gain", "lo": "rollout_lo", "hi": "rollout_hi"}))
    return Summary(tables={"summary": table.reset_index()},
                   text=table.round(3).to_string())


register("passing_metagame", MetagameConfig, units, run_unit, summarize_rows,
         profiles={"quick": {}, "paper": dataclasses.asdict(PROFILES["paper"])},
         description="exploitability of passing conventions on the full game "
                     "(duplicate deals, heuristic play, meta-game Nash and alpha-Rank)")
register("passing_metagame_11", MetagameConfig, units, run_unit, summarize_rows,
         profiles={k: dataclasses.asdict(v) for k, v in PROFILES_11.items()},
         description="the same with 11 players (paper: all 12,376 profiles x 11 rotations; "
                     "quick: four conventions)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.passing_metagame")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    ap.add_argument("--players", type=int, choices=sorted(PROFILES_BY_PLAYERS), default=6)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out or Path("results") / args.profile)
    res = run(PROFILES_BY_PLAYERS[args.players][args.profile], out, result_name(args.players))
    for c in res["conventions"]:
        g = res["library_best_response_gain"][c]
        b = res["rollout_best_response_gain"][c]
        print(f"{c:>12}: self-play {res['self_play_payoff'][c]:7.2f}  library BR gain "
              f"{g['mean']:5.2f} [{g['ci95'][0]:.2f}, {g['ci95'][1]:.2f}]  rollout BR gain "
              f"{b['mean']:5.2f} [{b['ci95'][0]:.2f}, {b['ci95'][1]:.2f}]  Nash "
              f"{res['replicator_nash']['mixture'][c]:.2f}  alpha-Rank {res['alpharank']['masses'][c]:.2f}")
    print(f"replicator regret {res['replicator_nash']['regret']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
