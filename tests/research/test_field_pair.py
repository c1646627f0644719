"""experiments.bench.field_pair: two one-tested-seat tournaments paired deal by deal."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments.bench.field_pair import FieldPairError, load_run, main, pair_runs
from experiments.tournament import main as tournament


def _run(tmp_path, tested, *, seed=3, field="heuristic", deals=4, players=5, lineup=None):
    out = tmp_path / f"runs-{abs(hash((tested, seed, field, deals, players))) % 10**8}"
    lineup = lineup or [1] + [0] * (players - 1)
    assert tournament(["--agents", field, tested, "--game", json.dumps({"players": players}),
                       "--deals", str(deals), "--seed", str(seed), "--lineup",
                       *map(str, lineup), "--deals-per-unit", "2", "--no-progress",
                       "--out", str(out)]) == 0
    (folder,) = out.glob("tournament@*")
    return folder


def test_the_same_agent_on_the_same_deals_differs_by_exactly_zero(tmp_path):
    """The heuristic is deterministic: played twice in the tested seat of the same
    deals it scores the same on every deal, so the pairing really pairs hands;
    a random player in its place scores differently, which the pairing shows."""
    a = load_run(_run(tmp_path, "heuristic"))
    b = load_run(_run(tmp_path / "again", "heuristic"))
    same = pair_runs(a, b)
    assert same["deals"] == 4 and same["x_minus_y"]["mean"] == 0.0
    assert same["x_minus_y"]["sd"] == 0.0
    r = load_run(_run(tmp_path, "random"))
    res = pair_runs(r, a)
    want = np.mean([r["points"][d] - a["points"][d] for d in range(4)])
    assert res["x_minus_y"]["mean"] == pytest.approx(want) and want != 0.0
    assert res["x_minus_y"]["lo"] < want < res["x_minus_y"]["hi"]
    assert res["points_x"]["mean"] == pytest.approx(np.mean(list(r["points"].values())))
    out = tmp_path / "cmp.json"
    assert main([str(_run(tmp_path, "random")), str(_run(tmp_path, "heuristic")),
                 "--json", str(out)]) == 0
    saved = json.loads(out.read_text())
    (c,) = saved["result"]["comparisons"]
    assert c["x_minus_y"]["mean"] == pytest.approx(want) and c["players"] == 5
    assert saved["metadata"]["git_commit"] and c["runs"][0]["config"]["agents"][1] == "random"
    assert c["runs"][0]["seconds_per_decision"] > 0
    assert main([str(_run(tmp_path, "random"))]) == 2              # not a pair


def test_runs_that_do_not_share_deals_or_shape_are_refused(tmp_path, capsys):
    a = load_run(_run(tmp_path, "heuristic"))
    with pytest.raises(FieldPairError, match="differ in seed"):
        pair_runs(a, load_run(_run(tmp_path, "heuristic", seed=4)))
    with pytest.raises(FieldPairError, match="different fields"):
        pair_runs(a, load_run(_run(tmp_path, "heuristic", field="random")))
    with pytest.raises(FieldPairError, match="lineup .* is not one tested seat"):
        load_run(_run(tmp_path, "random", lineup=[1, 1, 0, 0, 0]))
    with pytest.raises(FieldPairError, match="rows.csv is missing|run.json is missing"):
        load_run(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "run.json").write_text("{not json")
    (bad / "rows.csv").write_text("kind,deal\nseat,0\n")
    with pytest.raises(FieldPairError, match="run.json is not valid JSON"):
        load_run(bad)
    folder = _run(tmp_path, "heuristic")
    (bad / "run.json").write_text((folder / "run.json").read_text())
    with pytest.raises(FieldPairError, match="not a tournament's rows table"):
        load_run(bad)
    assert main([str(tmp_path), str(tmp_path)]) == 2
    assert "not a finished tournament run folder" in capsys.readouterr().err


def test_paper_macros_read_the_saved_comparisons(tmp_path):
    """The paper's numbers: points saved by inference (Y - X) with its interval
    flipped accordingly, from a saved comparison file; without the file every
    macro is defined as not run and the flag is false."""
    from experiments import macros
    from experiments.bench.field_pair import paper_macros
    comp = {"players": 6, "deals": 60, "p_value": 0.004,
            "x": "ismcts(time_limit=0.2, belief='heuristic', belief_pool=16, belief_mcmc=100)",
            "y": "ismcts(time_limit=0.2)",
            "x_minus_y": {"mean": -0.5, "lo": -0.8, "hi": -0.2},
            "runs": [{"seconds_per_decision": 0.2034}, {"seconds_per_decision": 0.201}]}
    (tmp_path / "inference_field.json").write_text(json.dumps(
        {"metadata": {}, "result": {"comparisons": [comp]}}))
    m = macros.Macros()
    paper_macros(m, tmp_path, tmp_path)
    tex = m.tex("test")
    assert "\\InferenceFieldtrue" in tex
    assert "\\newcommand{\\InfFieldSixMcmcSaved}{0.50}" in tex
    assert "\\newcommand{\\InfFieldSixMcmcLo}{0.20}" in tex
    assert "\\newcommand{\\InfFieldSixMcmcHi}{0.80}" in tex
    assert "\\newcommand{\\InfFieldSixMcmcBudget}{0.20}" in tex
    assert "\\newcommand{\\InfFieldSixMcmcMs}{203}" in tex
    assert "InfFieldElevenMcmcSaved}{--}" in tex and not m.warnings
    assert "\\newif\\ifInfFieldSixMcmcGain\\InfFieldSixMcmcGaintrue" in tex
    assert "\\newif\\ifInfFieldSixMcmcLoss " in tex
    assert "\\newif\\ifInfFieldElevenMcmcGain " in tex
    empty = macros.Macros()
    paper_macros(empty, tmp_path / "none", tmp_path / "none")
    assert "InferenceFieldtrue" not in empty.tex("t") and "{--}" in empty.tex("t")


def test_why_macros_pick_each_comparison_by_its_agents(tmp_path):
    """The "why" numbers: each comparison is found by its agents (the oracle
    with and without ``opponents='policy'``, that tree against the default,
    resample-move with it), not mistaken for the inference comparisons; the
    calibration numbers come from their rows; both flags need every entry."""
    from experiments import macros
    from experiments.bench.field_pair import paper_macros
    base = "ismcts(time_limit=0.05, rollout='heuristic'"
    pol = base + ", opponents='policy'"
    pairs = [("ismcts_oracle(time_limit=0.05, noise=0)", base + ")", -0.3),
             ("ismcts_oracle(time_limit=0.05, noise=0, opponents='policy')", pol + ")", -1.6),
             (pol + ")", base + ")", -0.2),
             (pol + ", belief='heuristic', belief_pool=16, belief_mcmc=30)", pol + ")", 0.9),
             ("ismcts_oracle(time_limit=0.05, opponents='policy', source='posterior')",
              pol + ")", -0.1)]
    comps = [{"players": 6, "deals": 100, "p_value": 0.01, "x": x, "y": y,
              "x_minus_y": {"mean": d, "lo": d - 0.4, "hi": d + 0.4},
              "runs": [{"seconds_per_decision": 0.05}, {"seconds_per_decision": 0.05}]}
             for x, y, d in pairs]
    (tmp_path / "inference_field.json").write_text(json.dumps(
        {"metadata": {}, "result": {"comparisons": comps}}))
    rows = [{"size": s, "min_ess": e, "mcmc": k, "ece": ece, "brier": 0.2, "bins": []}
            for (s, e, k), ece in [((2048, 2048, 0), 0.015), ((16, 16, 0), 0.067),
                                   ((16, 4, 30), 0.125), ((64, 64, 150), 0.013)]]
    (tmp_path / "inference_calibration.json").write_text(json.dumps(
        {"metadata": {}, "result": {"rows": rows}}))
    m = macros.Macros()
    paper_macros(m, tmp_path, tmp_path)
    tex = m.tex("test")
    assert "\\InferenceWhytrue" in tex and "\\InferenceCalibrationtrue" in tex
    assert "\\newcommand{\\InfWhyOracleSearchSaved}{0.30}" in tex
    assert "\\newcommand{\\InfWhyOraclePolicySaved}{1.60}" in tex
    assert "\\newcommand{\\InfWhyPolicyTreeSaved}{0.20}" in tex
    assert "\\newcommand{\\InfWhyPolicyMcmcSaved}{-0.90}" in tex
    assert "\\newcommand{\\InfWhyFreePosteriorSaved}{0.10}" in tex
    assert "\\newcommand{\\InfCalibResampledEce}{0.125}" in tex
    # The policy-tree resample-move comparison is not the plain inference one.
    assert "\\InferenceFieldtrue" in tex and "InfFieldSixMcmcSaved}{--}" in tex
    (tmp_path / "inference_calibration.json").write_text(json.dumps(
        {"metadata": {}, "result": {"rows": rows[:3]}}))
    part = macros.Macros()
    paper_macros(part, tmp_path, tmp_path)
    assert "\\InferenceCalibrationtrue" not in part.tex("t")
    assert "InfCalibChainsEce}{--}" in part.tex("t")
