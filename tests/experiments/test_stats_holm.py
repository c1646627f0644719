"""Holm's step-down correction and the p-value recovered from a saved t interval."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from experiments._base.stats import holm, mean_ci, p_from_interval


def test_holm_matches_the_worked_example_of_four_hypotheses():
    # The textbook example (Wikipedia, "Holm-Bonferroni method"): p = 0.01, 0.04,
    # 0.03, 0.005 at alpha 0.05 rejects the first and the fourth only.
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [a <= 0.05 for a in adjusted] == [True, False, False, True]


def test_holm_is_monotone_capped_and_never_below_the_raw_value():
    rng = np.random.default_rng(3)
    raw = list(rng.uniform(0, 0.2, size=12))
    adjusted = holm(raw)
    order = np.argsort(raw)
    assert all(np.diff(np.asarray(adjusted)[order]) >= 0)
    assert all(a >= r for a, r in zip(adjusted, raw))
    assert max(adjusted) <= 1.0
    assert holm([0.9, 0.8]) == [1.0, 1.0]
    assert holm([]) == []
    assert holm([0.02]) == [0.02]


@pytest.mark.parametrize("bad", [[0.1, -0.01], [1.5], [float("nan")]])
def test_holm_rejects_values_that_are_not_probabilities(bad):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm(bad)


def test_p_from_interval_inverts_the_t_interval_of_mean_ci():
    rng = np.random.default_rng(11)
    for n, shift in ((30, 0.4), (200, 0.1), (12, -1.0)):
        x = rng.normal(shift, 1.0, size=n)
        ci = mean_ci(x)
        p = p_from_interval(ci["mean"], ci["lo"], ci["hi"], n)
        assert p == pytest.approx(scipy.stats.ttest_1samp(x, 0.0).pvalue, rel=1e-9)


def test_p_from_interval_refuses_a_degenerate_interval_or_sample():
    with pytest.raises(ValueError, match="positive width"):
        p_from_interval(1.0, 1.0, 1.0, 3)
    with pytest.raises(ValueError, match="n >= 2"):
        p_from_interval(1.0, 0.0, 2.0, 1)
