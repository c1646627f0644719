"""research/scripts/belief_quality.py: how far the sampled worlds are from the true
world, and whether a pool's beliefs are calibrated."""

from __future__ import annotations

import numpy as np
import pytest
from belief_quality import CALIBRATION_DESIGNS, calibration, main, proposal_gap

import spiel_game
from experiments.bench.inference import heuristic_state
from solvers.beliefs._replay import WeightedDeterminizer


@pytest.mark.parametrize("params", [{"players": 6, "pass_count": 0}, {"players": 5}])
def test_the_proposal_gap_reads_the_true_world_against_the_candidates(params):
    """The true world's log-likelihood is the determinizer's own (tests/solvers/test_inference.py
    checks it against a replay); no candidate is more likely than 0, at most every
    consistent one reaches the truth, and Metropolis-Hastings moves raise the median."""
    eps = 0.1
    st = heuristic_state(spiel_game.load(params), 4, 37)
    got = WeightedDeterminizer(st, st.current_player(), model="heuristic",
                               epsilon=eps).log_likelihood(np.array(st.engine_state))
    rules = {k: v for k, v in params.items() if k != "players"}
    res = proposal_gap(players=(params["players"],), played=(37,), candidates=20, seeds=(4,),
                       rules=rules)
    (row,) = res["rows"]
    assert row["true"] == pytest.approx(got, abs=1e-9) and row["best"] <= 0.0
    assert 0 <= row["reach_true"] <= row["consistent"] <= 20
    moved = proposal_gap(players=(params["players"],), played=(37,), candidates=20,
                         seeds=(4,), rules=rules, mcmc=30)["rows"][0]
    assert moved["median"] == row["median"] and moved["moved_median"] > row["median"]
    assert 0.0 < moved["accept"] <= 1.0


def test_calibration_tells_a_calibrated_pool_from_an_over_confident_one():
    """``calibration``: the plain determinizer's
    beliefs (2048 prior worlds) lie near the diagonal, a pool of 16 worlds
    resampled from an effective size of 4 does not (the test has power)."""
    designs = (CALIBRATION_DESIGNS[0], CALIBRATION_DESIGNS[3])
    res = calibration(6, played=(16, 32), seeds=range(3), designs=designs)
    prior, resampled = res["rows"]
    assert sum(b["count"] for b in prior["bins"]) > 300
    for b in prior["bins"]:
        assert 0.0 <= b["predicted"] <= 1.0 and 0.0 <= b["observed"] <= 1.0
    assert prior["ece"] < 0.05, prior
    assert resampled["ece"] > prior["ece"] + 0.03, (prior["ece"], resampled["ece"])


def test_the_script_refuses_two_player_counts_for_calibration(capsys):
    assert main(["calibration", "--players", "6", "11"]) == 2
    assert "one player count" in capsys.readouterr().err
