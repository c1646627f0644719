"""Helpers of the CFR-at-scale benchmark (experiments/bench/cfr_scale.py): the
bytes model, the history estimator, the capacity arithmetic, the simultaneous
CFR that LiteEFG's average is checked against, and a seconds-long run."""

from __future__ import annotations

import numpy as np
import pytest

import spiel_game
from experiments.bench.cfr_scale import (BenchScaleConfig, _SimultaneousCFR, bytes_touched,
                                         capacity, estimate_histories, parse_game, run,
                                         simultaneous_average, tables)
from solvers.cfr._tree import build_tree


@pytest.fixture(scope="module")
def micro3():
    return build_tree(spiel_game.load("micro3"))


def test_bytes_model(micro3):
    one, blocks = bytes_touched(micro3), bytes_touched(micro3, "blocks")
    assert len(one["passes"]) == micro3.num_players
    assert one["per_iteration"] == sum(sum(p.values()) for p in one["passes"])
    # 3 players: the one-core kernel writes 4 reach rows per history, the blocks one
    assert 100 < blocks["per_history"] < one["per_history"] < 1000
    with pytest.raises(ValueError, match="kernel must be"):
        bytes_touched(micro3, "gpu")


def test_knuth_estimate_brackets_the_true_count():
    tree = build_tree(spiel_game.load("micro"))
    game = spiel_game.load("micro")
    mean, se = estimate_histories(game, 400, seed=3)
    assert abs(mean - tree.num_nodes) < 4 * se and se < 0.2 * mean
    assert estimate_histories(game, 400, seed=3) == (mean, se)      # seeded
    with pytest.raises(ValueError, match="probes must be at least 2"):
        estimate_histories(game, 1, seed=0)


def test_parse_game():
    params = parse_game("medium3+pass_count=1,suits=HSD")
    assert params["pass_count"] == 1 and params["suits"] == "HSD" and params["players"] == 3
    assert parse_game("micro") == spiel_game.preset("micro")
    with pytest.raises(ValueError, match="expected key=value"):
        parse_game("micro+pass_count")
    with pytest.raises(KeyError, match="unknown preset"):
        parse_game("nano+pass_count=1")


def test_capacity_arithmetic(micro3):
    c = capacity(micro3, budget_gib=1.0)
    per = c["bytes_per_history_solve"]
    assert c["max_histories_solve"] == int(2 ** 30 / per)
    assert c["bytes_per_history_solve_threads"] > per
    assert c["max_histories_build"] <= c["max_histories_solve"] or per > 140


def test_simultaneous_average_is_the_updated_strategy_after_one(micro3):
    """Weight 0 at iteration 1: the average after one LiteEFG-style iteration is
    the strategy that iteration produced, wherever its reach is positive."""
    solver = _SimultaneousCFR(micro3).iterate(2)
    avg = simultaneous_average(micro3, 1)
    reached = solver.avg_numerator > 0
    ref = _SimultaneousCFR(micro3).iterate(1).policy
    assert reached.any()
    np.testing.assert_allclose(avg[reached], ref[reached], rtol=0, atol=1e-12)


def test_seconds_long_run_and_tables():
    res = run(BenchScaleConfig(repeats=1, liteefg=(), liteefg_tree=(), multicore=("micro3",),
                               bandwidth_mib=8,
                               estimate=("micro",), probes=50, target_s=0.02))
    row = res["multicore"][0]
    assert row["bit_identical"] and row["histories"] == 2015 and "tree" not in row
    assert set(row["wall_s"]) == {"one_core", "blocks_on_1_thread", "blocks_on_T_threads"}
    bw = res["bandwidth"]
    assert bw["copy_1_gbs"] > 0 and bw["triad_all_gbs"] > 0
    assert res["floor"][0]["floor_ns_one_thread"] > 0
    text = tables(res)
    assert "`micro3` (T=2)" in text and "`micro3`, blocks, all threads" in text
    assert "`micro` |" in text and "Capacity in 24 GiB" in text


def test_liteefg_file_lists_every_node_and_information_set(micro3, tmp_path):
    from experiments.bench.cfr_scale import write_liteefg_file
    path = tmp_path / "micro3.efg"
    nbytes = write_liteefg_file(micro3, path)
    lines = path.read_text().splitlines()
    assert nbytes == path.stat().st_size and "#     players: 3," in lines
    nodes = [ln for ln in lines if ln.startswith("node ")]
    sets = [ln for ln in lines if ln.startswith("infoset ")]
    assert len(nodes) == micro3.num_nodes and nodes[0].startswith("node n0 ")
    assert len(sets) == micro3.num_infosets
    members = sum(len(ln.split(" nodes ")[1].split()) for ln in sets)
    assert members == micro3.num_decision_nodes
    leaves = [ln for ln in nodes if " leaf payoffs " in ln]
    assert len(leaves) == micro3.num_terminals and leaves[0].count("=") == 3
