"""Approximate exploitability of passing conventions on the full game.

Play: the compiled heuristic player (``solvers/_base/heuristic.py``) for everyone;
passing: the conventions of ``solvers/_base/passing.py``. All runs use duplicate
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

The algorithms (replicator dynamics, alpha-Rank, the rollout best response)
are :mod:`solvers._metagame`'s; this module plays the payoff tables. The runner
experiments ``passing_metagame`` and ``passing_metagame_11`` (``python -m
experiments run passing_metagame``) write ``results/<profile>/<name>/`` (tidy
rows, including every profile's payoffs).
"""

from __future__ import annotations

import dataclasses
import sys
import time
import warnings

import numpy as np

from solvers._metagame import (alpharank_masses, bootstrap_tables, fitness_setup, library_gain,
                              one_vs_population, profiles, replicator_nash, rollout_pass_gain)
from solvers._base.passing import CONVENTIONS
from spiel_game._rules import RuleSet
from spiel_game._simulator import simulate

from .._base.registry import Summary, Unit, register, table_text
from .._base.stats import mean_ci

__all__ = ["MetagameConfig", "PROFILES", "PROFILES_11", "QUICK_11_CONVENTIONS",
           "metagame_result", "units", "run_unit", "summarize_rows"]


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
    # A first look: the rollout best response (most of the time: every candidate
    # pass played out in Python-driven rollouts) on 6 deals instead of 12.
    "quick": MetagameConfig(br_deals=6),
    "paper": MetagameConfig(deals=3000, br_deals=400, br_samples=32, bootstrap=500),
}
#: Eleven players (see the module docstring for the design).
QUICK_11_CONVENTIONS = ("dump_points", "void_short", "low", "expert")
#: ``workers=1``: the simulator's serial kernel, faster on the meta-game's many
#: small batches (4,004 calls of 40 hands in quick) than two threads. The quick
#: rollout best response (a first look) plays 16 deals.
PROFILES_11 = {
    "quick": MetagameConfig(players=11, conventions=QUICK_11_CONVENTIONS, deals=40, br_deals=16,
                            br_samples=8, bootstrap=40, workers=1),
    "paper": MetagameConfig(players=11, deals=200, br_deals=1500, br_samples=16, bootstrap=500,
                            workers=1),
}


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


def _ci(samples: np.ndarray) -> list[float]:
    return [float(np.nanpercentile(samples, 2.5)), float(np.nanpercentile(samples, 97.5))]


def metagame_result(config: MetagameConfig) -> dict:
    """The meta-game of ``config``: payoff table, library gains, replicator Nash and
    alpha-Rank with bootstrap intervals (a JSON-ready dict; no rollout best response)."""
    k, n = len(config.conventions), config.players
    profs, pay = _profile_payoffs(config)
    with warnings.catch_warnings():       # NaN (absent strategy) on every deal
        warnings.simplefilter("ignore", RuntimeWarning)
        table = np.nanmean(pay, axis=1)
    setup = fitness_setup(profs)
    gain = library_gain(profs, table)
    nash, regret = replicator_nash(profs, table, setup=setup)
    masses = alpharank_masses(profs, table)
    rng = np.random.default_rng(config.seed)
    boot_gain, boot_nash, boot_alpha = [], [], []
    for t in bootstrap_tables(pay, rng, config.bootstrap):
        boot_gain.append(library_gain(profs, t))
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
        g = rollout_pass_gain(config.players, c, deals=config.br_deals,
                              samples=config.br_samples, play=config.play, seed=config.seed,
                              workers=config.workers)
        ci = mean_ci(g)
        return [{"kind": "rollout_br", "convention": c, "mean": ci["mean"], "lo": ci["lo"],
                 "hi": ci["hi"], "deals": ci["n"]}]
    res = metagame_result(config)
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
                   text=table_text(table, 3))


register("passing_metagame", MetagameConfig, units, run_unit, summarize_rows,
         profiles={k: dataclasses.asdict(v) for k, v in PROFILES.items()},
         description="exploitability of passing conventions on the full game "
                     "(duplicate deals, heuristic play, meta-game Nash and alpha-Rank)")
register("passing_metagame_11", MetagameConfig, units, run_unit, summarize_rows,
         profiles={k: dataclasses.asdict(v) for k, v in PROFILES_11.items()},
         description="the same with 11 players (paper: all 12,376 profiles x 11 rotations; "
                     "quick: four conventions)")
