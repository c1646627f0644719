"""The paper's number formatting, provenance, primary-hypothesis family and figure size checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from experiments._provenance import records, wall_time
from experiments._base.stats import holm
from texmacros import plural, sci_bound, spread
from texmacros.hypotheses import PRIMARY, family

SHIPPED = ROOT / "paper" / "results"


@pytest.mark.parametrize("x, direction, text", [
    (3.415042774835374e-15, "up", r"3.5\times 10^{-15}"),      # an upper bound goes up
    (56203.624955746964, "down", r"5.6\times 10^{4}"),          # a lower bound goes down
    (5.68e4, "down", r"5.6\times 10^{4}"),
    (5.61e4, "up", r"5.7\times 10^{4}"),
    (9.96e3, "up", r"1.0\times 10^{4}"),                        # carries into the exponent
    (3.5e-15, "up", r"3.5\times 10^{-15}"),                     # exact values stay
    (3.5e-15, "down", r"3.5\times 10^{-15}"),
])
def test_sci_bound_rounds_a_bound_so_that_it_stays_a_bound(x, direction, text):
    assert sci_bound(x, direction) == text


def test_sci_bound_rejects_a_direction_or_value_it_cannot_round():
    with pytest.raises(ValueError, match="'up' or 'down'"):
        sci_bound(1.0, "nearest")
    with pytest.raises(ValueError, match="positive"):
        sci_bound(0.0, "up")


def test_the_performance_table_prints_the_rejection_bounds_safely():
    import importlib.util
    spec = importlib.util.spec_from_file_location("perf", ROOT / "paper/tables/performance.py")
    perf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(perf)
    bench = {"resample": json.loads((SHIPPED / "bench" / "resample.json").read_text())}
    text = " ".join(" ".join(r) for r in perf.rows(bench))
    assert r"acceptance $\le 3.5\times 10^{-15}$" in text
    assert r"$\ge 5.6\times 10^{4}$ years" in text


def test_spread_says_when_every_replicate_agreed_and_plural_agrees_with_its_number():
    assert spread(1.0, 1.0, 500, "bootstrap replicates", lambda x: f"{x:.2f}") == \
        "all 500 bootstrap replicates gave 1.00"
    assert spread(0.12, 0.4, 500, "bootstrap replicates") == "[0.12, 0.40]"
    assert plural(1, "step") == "1 step" and plural(6, "step") == "6 steps"
    assert plural(2, "hypothesis", "hypotheses") == "2 hypotheses"


def test_the_primary_family_is_holm_corrected_over_the_shipped_results():
    fam = family(SHIPPED, SHIPPED / "bench")
    assert len(fam) == len(PRIMARY) and all(r is not None for _, r, _ in fam)
    raw = [r.p for _, r, _ in fam]
    assert [a for _, _, a in fam] == pytest.approx(holm(raw))
    by_key = {h.key: r for h, r, _ in fam}
    # inference at equal time loses: the gain in the claim's direction is negative
    assert by_key["InferenceSix"].hi < 0
    assert all(r.lo <= r.gain <= r.hi for r in by_key.values())


def test_the_primary_family_skips_what_a_profile_did_not_measure(tmp_path):
    fam = family(tmp_path, tmp_path / "bench")
    assert all(r is None and a is None for _, r, a in fam)


def test_provenance_reads_commit_dirty_flag_and_wall_time(tmp_path):
    study = tmp_path / "demo"
    study.mkdir()
    (study / "metadata.json").write_text(json.dumps({
        "git_commit": "a" * 40 + "+dirty", "machine": {"platform": "Linux-x-with-glibc", "cpus": 2},
        "started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:10:00+00:00",
        "seconds_this_session": 600.0, "sessions": 1, "units_run_this_session": 3}))
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "b.json").write_text(json.dumps({
        "metadata": {"git_commit": "b" * 40, "machine": {"platform": "P", "cpus": 2},
                     "started": "2026-01-01T00:00:00+00:00",
                     "finished": "2026-01-01T00:00:00+00:00"},
        "result": {"runs": [{"git_commit": "c" * 40 + "+dirty"}]}}))
    recs = {r.name: r for r in records(tmp_path)}
    assert recs["demo"].dirty and recs["demo"].commit == "a" * 40
    assert recs["demo"].wall == "10 min" and recs["demo"].machine == "Linux-x, 2 cores"
    assert not recs["bench/b"].dirty and recs["bench/b"].wall == "not recorded"
    assert recs["bench/b"].inner == (("c" * 40, True),)
    assert wall_time({"units_run_this_session": 0, "seconds_this_session": 0.0}) == "not recorded"
    assert recs["demo"].inner == ()
    packed = tmp_path / "packed"                  # a study packing runs of other commits
    packed.mkdir()
    (packed / "metadata.json").write_text(json.dumps({
        "git_commit": "d" * 40, "cells": {"x": {"sessions": [
            {"git_commit": "e" * 40 + "+dirty"}, {"git_commit": "d" * 40}]}}}))
    assert {r.name: r for r in records(tmp_path)}["packed"].inner == (("e" * 40, True),)


def test_save_refuses_a_figure_too_wide_or_with_text_too_small(tmp_path):
    import matplotlib.pyplot as plt

    from experiments._figures import MIN_FONT_PT, TEXT_WIDTH, apply_style, save
    apply_style()
    fig, ax = plt.subplots(figsize=(TEXT_WIDTH + 1, 2))
    with pytest.raises(ValueError, match="in wide"):
        save(fig, tmp_path, "wide")
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("tiny", fontsize=MIN_FONT_PT - 2)
    with pytest.raises(ValueError, match="tiny"):
        save(fig, tmp_path, "tiny")
    assert not list(Path(tmp_path).glob("*.pdf"))
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("fine")
    assert [p.suffix for p in save(fig, tmp_path, "fine")] == [".pdf", ".png"]


def test_save_refuses_math_superscripts_below_the_minimum(tmp_path):
    import matplotlib.pyplot as plt

    from experiments._figures import apply_style, save
    apply_style()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title(r"cost $10^{-2}$")               # the exponent prints at 70%: 5.6 pt
    with pytest.raises(ValueError, match="below 8.0 pt"):
        save(fig, tmp_path, "superscript")


def test_save_gives_log_axes_plain_tick_labels(tmp_path):
    import matplotlib.pyplot as plt

    from experiments._figures import apply_style, plain_log_ticks, save
    apply_style()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 1e6], [1e-6, 10])
    ax.set(xscale="log", yscale="log")
    plain_log_ticks(fig)
    fig.canvas.draw()
    labels = {t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()}
    assert {"1", "100", "1e6", "0.01"} <= labels, labels
    assert any(s.replace("\u2212", "-").startswith("1e-") for s in labels), labels
    assert not any("$" in s for s in labels)
    assert save(fig, tmp_path, "log")                # and the page check passes


def test_save_refuses_a_legend_over_the_data(tmp_path):
    import matplotlib.pyplot as plt

    from experiments._figures import apply_style, save
    apply_style()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(range(10), [5] * 10, label="flat line")  # runs right through the legend
    ax.legend(loc="center")
    with pytest.raises(ValueError, match="covers data.*flat line"):
        save(fig, tmp_path, "covered")
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.errorbar([0, 1], [0, 1], yerr=[0.1, 0.1], fmt="o", label="points")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))   # below the axes
    assert save(fig, tmp_path, "below")
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="a")
    fig.legend(loc="center")
    ax.legend(loc="center")
    with pytest.raises(ValueError, match="two legends overlap"):
        save(fig, tmp_path, "twice")
