"""The approximate passing-convention analysis (issue 7) on cases checkable by hand."""

import math

import numpy as np
import pytest

from experiments.passing_metagame import (MetagameConfig, _library_gain, alpharank_masses,
                                          one_vs_population, profiles, replicator_nash, run)


def _table_from(fn, n, k):
    """A symmetric meta-game table from fn(counts, i) -> payoff of strategy i."""
    profs = profiles(n, k)
    t = np.full((len(profs), k), np.nan)
    for r, c in enumerate(profs):
        for i in range(k):
            if c[i]:
                t[r, i] = fn(c, i)
    return profs, t


def test_profiles_enumerate_multisets():
    assert len(profiles(6, 7)) == math.comb(12, 6)
    assert all(sum(p) == 6 for p in profiles(6, 7))


def test_dominant_strategy_is_the_nash_and_alpharank_winner_and_unexploitable():
    # Strategy 1 always earns 1 more than strategy 0, whatever the others do.
    profs, t = _table_from(lambda c, i: float(i), n=4, k=2)
    x, regret = replicator_nash(profs, t)
    assert x[1] > 0.999 and regret < 1e-6
    assert alpharank_masses(profs, t)[1] > 0.99
    gain = _library_gain(profs, t, 2, 4)
    assert gain[0] == pytest.approx(1.0) and gain[1] == pytest.approx(0.0)


def test_anti_coordination_game_has_the_mixed_equilibrium_computed_by_hand():
    # 3 players, 2 strategies; payoff of i = number of OTHER seats using the other strategy.
    # Against iid mixture x (prob of strategy 1): f0 = 2x, f1 = 2(1-x) -> x* = 1/2.
    profs, t = _table_from(lambda c, i: float(c[1 - i]), n=3, k=2)
    x, regret = replicator_nash(profs, t)
    assert x == pytest.approx([0.5, 0.5], abs=1e-3) and regret < 1e-3


def test_one_vs_population_reads_the_right_profiles():
    profs, t = _table_from(lambda c, i: 10 * i + c[0], n=3, k=2)
    a = one_vs_population(profs, t)
    # a[i, j]: one seat with i, two seats with j.
    assert a[0, 0] == 3 and a[0, 1] == 1 and a[1, 0] == 12 and a[1, 1] == 10


def test_quick_pipeline_on_the_full_game_runs_and_is_deterministic(tmp_path):
    cfg = MetagameConfig(players=5, conventions=("dump_points", "low"), deals=8, br_deals=2,
                         br_samples=2, bootstrap=3, workers=1)
    a = run(cfg, tmp_path / "a")
    b = run(cfg, tmp_path / "b")
    assert a["payoff_table"] == b["payoff_table"]
    # Everyone using one convention: the 52 points split evenly up to moons.
    assert a["self_play_payoff"]["low"] == pytest.approx(-52 / 5, abs=1e-9) or \
        a["self_play_payoff"]["low"] < -52 / 5
    assert set(a["alpharank"]["masses"]) == {"dump_points", "low"}
