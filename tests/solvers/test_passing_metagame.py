"""The approximate passing-convention analysis on cases checkable by hand."""

import math

import numpy as np
import pytest

from experiments._base.stats import mean_ci
from experiments.studies.passing_metagame import MetagameConfig, metagame_result
from solvers._metagame import (alpharank_masses, bootstrap_tables, fitness_setup, library_gain,
                              one_vs_population, profiles, replicator_nash, rollout_pass_gain)


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
    gain = library_gain(profs, t)
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


def test_quick_pipeline_on_the_full_game_runs_and_is_deterministic():
    cfg = MetagameConfig(players=5, conventions=("dump_points", "low"), deals=8, br_deals=2,
                         br_samples=2, bootstrap=3, workers=1)
    a = metagame_result(cfg)
    b = metagame_result(cfg)
    assert a["payoff_table"] == b["payoff_table"]
    # Everyone using one convention: the 52 points split evenly up to moons.
    assert a["self_play_payoff"]["low"] == pytest.approx(-52 / 5, abs=1e-9) or \
        a["self_play_payoff"]["low"] < -52 / 5
    assert set(a["alpharank"]["masses"]) == {"dump_points", "low"}


# ------------------------------------------------------------------ 11 players
def test_eleven_seat_profiles_are_the_multisets_and_the_fitness_setup_indexes_them():
    profs = profiles(11, 7)
    assert len(profs) == math.comb(17, 6) == 12376 == len(set(profs))
    assert all(sum(p) == 11 and min(p) >= 0 for p in profs)
    others, coef, rows = fitness_setup(profs)
    assert len(others) == math.comb(16, 6)
    # Row (m, i) is the opponents' multiset m plus one seat with strategy i.
    rng = np.random.default_rng(3)
    for m in rng.integers(0, len(others), 50):
        for i in range(7):
            expect = others[m].astype(int).copy()
            expect[i] += 1
            assert profs[rows[m, i]] == tuple(expect)
    # The multinomial coefficients make a distribution over the opponents' multisets.
    x = rng.dirichlet(np.ones(7))
    assert np.exp(coef + others @ np.log(x)).sum() == pytest.approx(1.0)


def test_bootstrap_tables_equal_the_resampled_nanmean():
    rng = np.random.default_rng(5)
    profs = profiles(4, 3)
    pay = rng.normal(size=(len(profs), 9, 3))
    pay[np.broadcast_to((np.array(profs) == 0)[:, None, :], pay.shape)] = np.nan
    got = list(bootstrap_tables(pay, np.random.default_rng(11), 4))
    ref = np.random.default_rng(11)
    for t in got:
        idx = ref.integers(0, 9, 9)
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
            want = np.nanmean(pay[:, idx, :], axis=1)
        np.testing.assert_allclose(t, want, equal_nan=True)
    # Resampled means are unbiased: their average over many replicates is the table.
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        table = np.nanmean(pay, axis=1)
    avg = np.mean(list(bootstrap_tables(pay, np.random.default_rng(2), 4000)), axis=0)
    np.testing.assert_allclose(avg, table, atol=0.02, equal_nan=True)


def test_eleven_player_pipeline_on_a_tiny_config():
    from spiel_game._simulator import simulate
    conv = ("dump_points", "low", "void_short")
    cfg = MetagameConfig(players=11, conventions=conv, deals=5, br_deals=3, br_samples=2,
                         bootstrap=20, workers=1)
    res = metagame_result(cfg)
    n_prof = math.comb(13, 2)
    assert res["design"] == {"profiles": n_prof, "rotations": 11, "deals": 5,
                             "hands": n_prof * 11 * 5}
    counts = np.array(res["profiles"])
    table = np.array(res["payoff_table"])
    assert counts.shape == table.shape == (n_prof, 3) and (counts.sum(axis=1) == 11).all()
    # The penalty points are shared out (no moon on these deals): in every profile
    # the seats' payoffs add up to minus the 52 points of two packs.
    np.testing.assert_allclose((counts * table).sum(axis=1), -52.0, atol=1e-9)
    # A symmetric profile is a plain simulation with everyone on one convention.
    for c in conv:
        pts = simulate({"players": 11}, 5, f"pass:{c}+heuristic", seed=cfg.seed,
                       workers=1).points
        assert res["self_play_payoff"][c] == pytest.approx(-pts.sum(axis=1).mean() / 11)
    a = np.array(res["one_vs_population"])
    assert a.shape == (3, 3)
    np.testing.assert_allclose(np.diag(a), [res["self_play_payoff"][c] for c in conv])
    for c in conv:
        # A gain is a maximum over deviations that include "no deviation": >= 0 in
        # the estimate and in every replicate. (Its percentile interval need not
        # contain the estimate: the bootstrap of a maximum is biased upward.)
        g = res["library_best_response_gain"][c]
        assert g["mean"] >= 0 and 0 <= g["ci95"][0] <= g["ci95"][1]
        b = mean_ci(rollout_pass_gain(11, c, deals=3, samples=2, seed=cfg.seed, workers=1))
        assert b["n"] == 3 and b["lo"] <= b["mean"] <= b["hi"]
        for key in ("replicator_nash", "alpharank"):
            lo, hi = res[key]["ci95"][c]
            assert -1e-9 <= lo <= hi <= 1 + 1e-9
    for key, field in (("replicator_nash", "mixture"), ("alpharank", "masses")):
        assert sum(res[key][field].values()) == pytest.approx(1.0)
    assert res["replicator_nash"]["regret"] < 1e-3


def test_eleven_player_experiment_is_registered_and_runs_in_the_runner(tmp_path):
    import shutil
    import subprocess
    import sys

    from conftest import ROOT
    from experiments import runner
    from experiments._base import registry
    from solvers._base.passing import CONVENTIONS
    exp = registry.get("passing_metagame_11")
    quick, paper = exp.config("quick"), exp.config("paper")
    assert quick.players == paper.players == 11 and paper.conventions == CONVENTIONS
    assert len(profiles(paper.players, len(paper.conventions))) == 12376
    assert len(exp.units(quick)) == 1 + len(quick.conventions)
    out = tmp_path / "results"
    got = runner.run("passing_metagame_11", out=out, workers=1, progress=False, verbose=False,
                     overrides={"conventions": ("low", "expert"), "deals": 3, "br_deals": 2,
                                "br_samples": 2, "bootstrap": 5})
    kinds = got.rows.kind.value_counts().to_dict()
    # 12 profiles of 2 conventions over 11 seats, 22 (profile, present convention) pairs.
    assert kinds == {"convention": 2, "one_vs_population": 4, "payoff": 22, "rollout_br": 2}
    assert set(got.tables["summary"].convention) == {"low", "expert"}
    # The figure script draws the 11-player figures from these rows (it reads the
    # profile's folder; a run with overrides has its own folder, name@<hash>).
    shutil.move(got.path, out / "passing_metagame_11")
    figs = tmp_path / "figures"
    figs.mkdir()
    shutil.copy(ROOT / "paper" / "figures" / "passing_conventions.py", figs)
    r = subprocess.run([sys.executable, str(figs / "passing_conventions.py"), str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "passing_metagame/rows.csv" in r.stdout and "not found" in r.stdout  # no 6-player run
    for name in ("passing_exploitability_11", "passing_metagame_11"):
        assert (figs / f"{name}.pdf").stat().st_size > 1000
    assert not (figs / "passing_exploitability.pdf").exists()
