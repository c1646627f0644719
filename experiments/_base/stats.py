"""Confidence intervals: the one 95% interval of the studies, the tournament and the figures.

Every interval of a mean is the Student t interval ``mean +- t(0.975, n - 1) *
sd / sqrt(n)`` (``sd`` with ``ddof=1``): exact for normal data, and for large
``n`` the same as the normal interval (``t(0.975, 19999) = 1.96001`` against
``z = 1.95996``), while for the small samples of some studies (12 deals of a
quick rollout best response: ``t(0.975, 11) = 2.201``) it does not claim more
confidence than the data give. A binomial proportion gets the Wald interval
with the same quantile (:func:`proportion_half_width`). A family of
hypotheses tested together is corrected with Holm's step-down method
(:func:`holm`), and a two-sided p-value is recovered from a saved t interval by
:func:`p_from_interval`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["LEVEL", "t_quantile", "half_width", "mean_ci", "mean_ci_from_sums",
           "proportion_half_width", "holm", "p_from_interval"]

#: The confidence level of every interval.
LEVEL = 0.95


def t_quantile(n):
    """The two-sided ``LEVEL`` quantile of Student's t with ``n - 1`` degrees of
    freedom (``n``: sample size; an int or an array; NaN where ``n < 2``)."""
    import scipy.stats

    df = np.asarray(n, np.float64) - 1.0
    q = scipy.stats.t.ppf(0.5 + LEVEL / 2, np.where(df >= 1, df, np.nan))
    return float(q) if np.ndim(q) == 0 else q


def half_width(sd, n):
    """``t_quantile(n) * sd / sqrt(n)``: the half-width of the interval of a mean
    of ``n`` values with sample standard deviation ``sd`` (scalars or arrays)."""
    out = t_quantile(n) * np.asarray(sd, np.float64) / np.sqrt(np.asarray(n, np.float64))
    return float(out) if np.ndim(out) == 0 else out


def mean_ci(x) -> dict:
    """``{"mean", "lo", "hi", "sd", "n"}`` of the values ``x`` (NaN bounds and sd
    for fewer than two values)."""
    x = np.asarray(x, np.float64)
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    if n < 2:
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "sd": float("nan"), "n": n}
    sd = float(x.std(ddof=1))
    half = half_width(sd, n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "sd": sd, "n": n}


def mean_ci_from_sums(s1: float, s2: float, n: int) -> tuple[float, float]:
    """``(mean, half-width)`` from the sum ``s1`` and the sum of squares ``s2`` of
    ``n >= 2`` values (what a study that saves sufficient statistics keeps)."""
    mean = s1 / n
    var = max(0.0, (s2 - s1 * s1 / n) / (n - 1))
    return mean, half_width(math.sqrt(var), n)


def proportion_half_width(p, n):
    """Wald half-width ``t_quantile(n) * sqrt(p (1 - p) / n)`` of a proportion
    ``p`` observed in ``n`` trials (scalars, arrays or pandas Series; NaN where
    ``n < 2``)."""
    p = np.asarray(p, np.float64)
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = t_quantile(np.where(n >= 2, n, np.nan)) * np.sqrt(p * (1 - p) / n)
    return float(out) if np.ndim(out) == 0 else out


def holm(pvalues) -> list[float]:
    """Holm's (1979) step-down adjusted p-values of a family of hypotheses, in the
    order given.

    With the ``m`` p-values sorted ascending, the ``k``-th (from 0) is multiplied
    by ``m - k``, a running maximum keeps the adjusted values monotone, and each is
    capped at 1. Rejecting every hypothesis whose adjusted p-value is at most
    ``alpha`` controls the family-wise error rate at ``alpha`` under any
    dependence between the tests. ``pvalues``: a sequence of floats in [0, 1]
    (an empty one gives ``[]``); a value outside [0, 1] or NaN raises ValueError.
    """
    ps = [float(p) for p in pvalues]
    bad = [p for p in ps if not 0.0 <= p <= 1.0]        # NaN fails both comparisons
    if bad:
        raise ValueError(f"p-values must lie in [0, 1]; got {bad}")
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adjusted = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * ps[i]))
        adjusted[i] = running
    return adjusted


def p_from_interval(mean: float, lo: float, hi: float, n: int) -> float:
    """The two-sided p-value of the one-sample t-test of ``mean = 0`` whose 95%
    interval over ``n >= 2`` values is ``[lo, hi]`` (as :func:`mean_ci` computes
    it): the standard error is the half-width over ``t_quantile(n)``. A zero-width
    interval (every value equal) raises ValueError: there is no t-test to invert."""
    import scipy.stats

    if n < 2:
        raise ValueError(f"p_from_interval needs n >= 2 values; got n = {n}")
    half = (float(hi) - float(lo)) / 2
    if not half > 0:
        raise ValueError(f"p_from_interval needs an interval of positive width; got [{lo}, {hi}]")
    se = half / t_quantile(n)
    return float(2 * scipy.stats.t.sf(abs(float(mean)) / se, n - 1))
