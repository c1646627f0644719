"""texmacros.research (paper/tools): the paper's numbers read from the results that the
hand-run research scripts saved (here written by hand, so no script runs)."""

from __future__ import annotations

import json


def test_paper_macros_read_the_saved_comparisons(tmp_path):
    """The paper's numbers: points saved by inference (Y - X) with its interval
    flipped accordingly, from a saved comparison file; without the file every
    macro is defined as not run and the flag is false."""
    import texmacros as macros
    from texmacros.research import field_macros as paper_macros
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
    import texmacros as macros
    from texmacros.research import field_macros as paper_macros
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
