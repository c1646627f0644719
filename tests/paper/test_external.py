"""The paper's xinxin table and macros (texmacros.external), from a gains.csv in the
form experiments._external describes."""

from __future__ import annotations

import csv

import pytest

from experiments._external import COLUMNS, OPTIONAL
from texmacros import Macros
from texmacros.external import paper_macros, split_agent


def _write(tmp_path, rows, columns=COLUMNS + OPTIONAL):
    out = tmp_path / "xinxin"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "gains.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns))
        w.writeheader()
        w.writerows([{c: r.get(c, "") for c in columns} for r in rows])


ROW = {"agent": "ismcts(time_limit=0.060, rollout='heuristic'), 3-card pass",
       "opponent": "xinxin(simulations=10000, worlds=30)", "players": 4, "deals": 300,
       "seatings": 2, "gain": "1.5", "gain_lo": "0.25", "gain_hi": "2.75",
       "p_value": "0.0125", "ms_ours": "61.6", "ms_xinxin": "58.2", "cell": "eq_pass"}


@pytest.mark.parametrize("agent, want", [
    ("heuristic, no passing", ("\\texttt{heuristic}", "none")),
    ("ismcts(time_limit=0.15, rollout='heuristic'), 3-card pass", ("ISMCTS, 0.15\\,s", "3-card")),
    ("pimc(worlds=3)", ("\\texttt{pimc(worlds=3)}", "")),
])
def test_split_agent(agent, want):
    assert split_agent(agent) == want


def test_rows_and_cell_macros(tmp_path):
    _write(tmp_path, [ROW, {**ROW, "agent": "heuristic, no passing", "cell": "",
                            "ms_ours": "", "ms_xinxin": ""}])
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    text = "\n".join(m.lines)
    assert "\\newif\\ifXinxin\\Xinxintrue" in text
    assert "ISMCTS, 0.060\\,s & 3-card & 62/58 & 1.50 & " in text
    assert "\\texttt{heuristic} & none & -- & " in text        # no times: a dash
    assert "\\newcommand{\\XinxinEqPassGain}{1.50}" in text
    assert "\\newcommand{\\XinxinEqPassMsXinxin}{58}" in text
    assert "\\newcommand{\\XinxinCount}{2}" in text
    _write(tmp_path, [{**ROW, "cell": "eq_pass48"}])
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert "\\newcommand{\\XinxinEqPassFourEightGain}{1.50}" in "\n".join(m.lines)
    assert not m.warnings


@pytest.mark.parametrize("ms_ours, ms_xinxin, cell, macro", [
    # a fast agent's time as measured, two significant digits
    ("0.0513", "101.4", "& 0.051/101 & ", "{0.051}"),
    # the shipped table keeps one decimal: 0.0 ms is under 0.05 ms, not zero
    ("0.0", "100.5", "& $<$0.05/100 & ", "{$<$0.05}"),
])
def test_a_fast_agent_s_time_is_printed_as_measured_never_as_zero(tmp_path, ms_ours, ms_xinxin,
                                                                  cell, macro):
    _write(tmp_path, [{**ROW, "agent": "heuristic, 3-card pass", "cell": "heuristic_pass",
                       "ms_ours": ms_ours, "ms_xinxin": ms_xinxin, "gain": "-1.25"}])
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    text = "\n".join(m.lines)
    assert f"{cell}\\ensuremath{{-}}1.25 & " in text
    assert "\\newcommand{\\XinxinHeuristicPassMsOurs}" + macro in text
    assert "& 0/1" not in text


def test_missing_or_malformed_results_print_not_yet_measured(tmp_path):
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")              # no file
    text = "\n".join(m.lines)
    assert "\\newif\\ifXinxin  %" in text and "not yet measured" in text
    assert "\\newcommand{\\XinxinEqPassFourEightGain}{--}" in text   # defined, never printed
    assert "??" not in text
    _write(tmp_path, [ROW], columns=[c for c in COLUMNS if c != "gain"])  # a column missing
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert "not yet measured" in "\n".join(m.lines)

