"""The paper's outcome and unit, checked on hands computed by hand.

``paper/main.tex`` (Section "Statistical protocol", paragraph "Outcome and
unit") defines the two statistics every gain of the paper is, both in points
per hand (points are penalties):

* the **head-to-head gain** ``G`` of agent A over agent B, when the two
  alternate around the table: the difference of their mean zero-sum payoffs,
  a seat's zero-sum payoff being the mean of the other seats' points minus
  its own. At ``n`` players this is ``n/(n-1)`` times the difference of their
  points per hand: ``G = n/(n-1) (p_B - p_A)``;
* the **points saved** ``S`` by one deviating seat: the field's points in
  that seat minus the deviator's, on the same deal (no conversion).

These tests compute a few hands by hand, once through the zero-sum payoffs
and once through the formula, and check that what the code reports (the
tournament's statistic, the ladder's row, the ABR study's gain) is the
number the text's definition gives, and that the text still states it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from experiments.studies import abr as abr_study
from experiments.studies.ladder import LadderConfig, _step_row
from experiments.tournament import TournamentConfig, summarize

PAPER = Path(__file__).resolve().parents[2] / "paper" / "main.tex"


def _record(deal: int, assignments, points) -> dict:
    """A deal record as :func:`experiments.tournament.play_deal` returns it (one
    hand per seat assignment; the timing is not part of the outcome)."""
    return {"deal": deal, "assignments": [list(a) for a in assignments],
            "points": [list(p) for p in points], "hands": [1] * len(assignments),
            "timing": {"seconds": [1.0, 1.0], "decisions": [10, 10]}}


def _by_hand(assignments, points, n: int) -> tuple[Fraction, Fraction]:
    """(G of agent 1 over agent 0 through the zero-sum payoffs, the points
    difference p_0 - p_1), exactly, for one deal."""
    pay = {0: [], 1: []}
    pts = {0: [], 1: []}
    for assign, row in zip(assignments, points):
        total = sum(Fraction(p) for p in row)
        for agent, p in zip(assign, row):
            p = Fraction(p)
            pay[agent].append((total - p) / (n - 1) - p)
            pts[agent].append(p)

    def mean(xs):
        return sum(xs) / len(xs)

    return mean(pay[1]) - mean(pay[0]), mean(pts[0]) - mean(pts[1])


# Six players, two packs (52 points a hand); agent 0 on the even seats, then rotated.
SIX_ASSIGN = [(0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 0)]
SIX_DEALS = [
    [[26, 0, 10, 4, 10, 2], [0, 13, 1, 13, 13, 12]],
    [[13, 13, 0, 13, 13, 0], [2, 20, 5, 10, 5, 10]],
]


def test_six_players_gain_is_six_fifths_of_the_points_difference_by_hand():
    g, d = _by_hand(SIX_ASSIGN, SIX_DEALS[0], 6)
    # agent 0: (26 + 10 + 10 + 13 + 13 + 12) / 6 = 14 points per hand;
    # agent 1: (0 + 4 + 2 + 0 + 1 + 13) / 6 = 10/3
    assert d == 14 - Fraction(10, 3)
    # zero-sum payoff of a seat with p points: 52/5 - 6/5 p, so G = 6/5 (14 - 10/3) = 12.8
    assert g == Fraction(6, 5) * d == Fraction(64, 5)


def test_the_ladder_reports_the_gain_the_text_defines():
    config = LadderConfig(players=(6,), deals=2)
    step = {"step": "n6_step0", "players": 6, "lower": "random", "higher": "heuristic",
            "iterations": None, "deals": 2}
    records = [_record(d, SIX_ASSIGN, pts) for d, pts in enumerate(SIX_DEALS)]
    row = _step_row(config, step, records)
    expected = [_by_hand(SIX_ASSIGN, pts, 6) for pts in SIX_DEALS]
    gain = sum(g for g, _ in expected) / len(expected)
    points = sum(d for _, d in expected) / len(expected)
    assert row["gain"] == pytest.approx(float(gain), abs=1e-12)
    assert row["gain"] == pytest.approx(6 / 5 * float(points), abs=1e-12)
    # the higher rung (agent 1) took fewer points: the gain is positive
    assert row["gain"] > 0 and row["gain_lo"] < row["gain"] < row["gain_hi"]


def test_four_players_gain_with_a_moon_points_difference_is_three_quarters():
    """Classic Hearts (the xinxin comparison): 26 points a hand, 78 when the moon
    is shot (the shooter 0, the others 26). The total cancels in G."""
    assign = [(0, 1, 0, 1), (1, 0, 1, 0)]
    points = [[0, 13, 3, 10], [0, 26, 26, 26]]       # agent 1 shoots the moon in seat 0
    g, d = _by_hand(assign, points, 4)
    # agent 0: (0 + 3 + 26 + 26) / 4 = 13.75; agent 1: (13 + 10 + 0 + 26) / 4 = 12.25
    assert d == Fraction(3, 2)
    assert g == 2 and d == Fraction(3, 4) * g
    config = TournamentConfig(agents=("heuristic", "random"), deals=1)
    s = summarize(config, [_record(0, assign, points)])
    pair = s["pairs"][0]                                   # agent 0 minus agent 1
    assert pair["payoff_difference"]["mean"] == pytest.approx(-2.0, abs=1e-12)
    assert pair["points_difference"]["mean"] == pytest.approx(1.5, abs=1e-12)


def test_eleven_players_unequal_seat_counts_keep_the_identity():
    """At eleven players one agent holds six seats and the other five; the
    identity G = n/(n-1) (p_B - p_A) holds for every assignment all the same."""
    assign = [tuple(i % 2 for i in range(11)), tuple((i + 1) % 2 for i in range(11))]
    points = [[1, 2, 13, 0, 4, 5, 0, 13, 6, 8, 0], [0, 0, 0, 26, 0, 0, 0, 26, 0, 0, 0]]
    g, d = _by_hand(assign, points, 11)
    assert g == Fraction(11, 10) * d
    s = summarize(TournamentConfig(agents=("a", "b"), deals=1), [_record(0, assign, points)])
    assert -s["pairs"][0]["payoff_difference"]["mean"] == pytest.approx(float(g), abs=1e-12)


def test_abr_gain_is_points_saved_in_the_seat():
    """The ABR study's row: the points of the seat in the deal played by the field
    alone, minus the deviator's points in that seat on the same deal (a random
    deviator here, so that the two differ)."""
    from experiments._base.registry import Unit
    from experiments.tournament import play_deal

    config = abr_study.ABRStudyConfig(targets=("heuristic",), players=(6,), deals=1,
                                      deals_per_unit=1, rotations=2, responder="random",
                                      exact_presets=())
    rows = abr_study.run_unit(config, Unit(0, 0, {"kind": "deal", "target": "heuristic",
                                                  "players": 6, "first_deal": 0, "deals": 1}))
    field = play_deal(TournamentConfig(agents=("heuristic",), game={"players": 6}, deals=1,
                                       seed=config.seed), 0)
    deviation = play_deal(TournamentConfig(agents=("heuristic", "random"), game={"players": 6},
                                           deals=1, seed=config.seed, lineup=(1, 0, 0, 0, 0, 0),
                                           rotations=2), 0)
    saved = {}
    for assign, points in zip(deviation["assignments"], deviation["points"]):
        q = list(assign).index(1)
        saved[q] = field["points"][0][q] - points[q]
    assert len(rows) == len(saved) == 2
    assert {r["seat"]: r["gain"] for r in rows} == saved
    assert any(v != 0 for v in saved.values())


def test_abr_summary_averages_seats_then_deals():
    """The ABR table's gain: the rows' points saved, mean over seats per deal, then
    over deals (no n/(n-1) factor)."""
    rows = pd.DataFrame([
        # deal 0: the deviator takes 2 in seat 0 where the target took 13, and 5 in seat 3
        # where it took 5; deal 1: 0 where the target took 4, 26 where it took 13
        {"kind": "deal", "target": "heuristic", "players": 6, "deal": 0, "seat": 0,
         "abr_points": 2, "target_points": 13, "abr_ms_per_decision": 1.0},
        {"kind": "deal", "target": "heuristic", "players": 6, "deal": 0, "seat": 3,
         "abr_points": 5, "target_points": 5, "abr_ms_per_decision": 1.0},
        {"kind": "deal", "target": "heuristic", "players": 6, "deal": 1, "seat": 0,
         "abr_points": 0, "target_points": 4, "abr_ms_per_decision": 1.0},
        {"kind": "deal", "target": "heuristic", "players": 6, "deal": 1, "seat": 3,
         "abr_points": 26, "target_points": 13, "abr_ms_per_decision": 1.0},
    ])
    rows["gain"] = rows["target_points"] - rows["abr_points"]
    rows["responder"] = "abr"
    gains = abr_study.summarize(abr_study.ABRStudyConfig(), rows).tables["gains"]
    # per deal: (11 + 0) / 2 = 5.5 and (4 - 13) / 2 = -4.5; over deals: 0.5
    assert gains.iloc[0]["gain"] == pytest.approx(0.5, abs=1e-12)


def test_the_text_states_the_definition_the_code_computes():
    tex = PAPER.read_text()
    start = tex.index(r"\section{Statistical protocol}")
    section = tex[start:tex.index(r"\paragraph{The earlier, post hoc family")]
    assert re.search(r"\\frac\{n\}\{n-1\}", section), "the conversion n/(n-1) is not stated"
    assert "points saved" in section
    assert "zero-sum payoff" in section
