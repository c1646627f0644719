"""texmacros.studies.confirmatory (paper/tools): the confirmatory family's table rows
and counts, from a hand-made results.csv (a held row, a not-shown row and an interim
row, as research/confirmatory/analyze.py writes them) and without any."""

from __future__ import annotations

import csv

COLUMNS = ["id", "rq", "claim", "players", "statistic", "deals", "declared_deals", "interim",
           "mean", "lo", "hi", "points_difference", "p_value", "holm_p", "holm_level",
           "holm_lo", "holm_hi", "holds"]
ROWS = [
    ["C1", 1, "heuristic beats random", 6, "G", 400, 400, False, 14.053, 13.49,
     14.61, 11.71, 1e-171, 7e-171, 0.994, 13.26, 14.85, True],
    ["C6", 1, "ISMCTS beats PIMC", 11, "G", 400, 400, False, 0.2, -0.1, 0.5, 0.18, 0.2,
     0.4, 0.99, -0.2, 0.6, False],
    ["C8", 2, "rollout best-response passer gains against dump_points", 6, "S", 75, 450,
     True, -1.25, -3.5, 1.0, -1.25, 0.09, 1.0, 0.975, -4.0, 1.5, False],
]


def _write(folder, rows=ROWS):
    (folder / "confirmatory").mkdir(parents=True)
    with open(folder / "confirmatory" / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)


def _tex(results, candidates=()):
    import texmacros
    from texmacros.studies import confirmatory
    m = texmacros.Macros()
    confirmatory.paper_macros(m, results, results, candidates=candidates)
    return m, m.tex("test")


def test_rows_and_counts_from_a_results_table(tmp_path):
    """One row per hypothesis with its status (holds, not shown, interim), deals
    played/declared, the statistic with its interval (minus signs typeset) and
    Holm's p; the counts: 3 declared, 2 finished, 1 held."""
    _write(tmp_path)
    m, tex = _tex(tmp_path)
    assert not m.warnings
    assert r"\newcommand{\ConfirmatoryCount}{3}" in tex
    assert r"\newcommand{\ConfirmatoryFinished}{2}" in tex
    assert r"\newcommand{\ConfirmatoryHeld}{1}" in tex
    rows = tex.split(r"\newcommand{\ConfirmatoryRows}{")[1].split("}  %")[0].split(r" \\")
    rows = [r.strip() for r in rows if r.strip()]
    assert rows[0] == (r"C1 & heuristic beats random & 6 & 400/400 & $G$ 14.05 [13.49, 14.61]"
                       r" & \ensuremath{7\times 10^{-171}} & holds")
    assert rows[1] == (r"C6 & ISMCTS beats PIMC & 11 & 400/400 & $G$ 0.20 "
                       r"[\ensuremath{-}0.10, 0.50] & 0.400 & not shown")
    assert rows[2] == (r"C8 & rollout best-response passer gains against dump\_points & 6 & "
                       r"75/450 & $S$ \ensuremath{-}1.25 [\ensuremath{-}3.50, 1.00] & 1.000 & "
                       r"interim")
    assert len(rows) == 3


def test_a_hypothesis_without_deals_has_no_statistic(tmp_path):
    _write(tmp_path, [["C9", 2, "x", 6, "S", 0, 450, True, "", "", "", "", "", 1.0, 0.95, "",
                       "", False]])
    m, tex = _tex(tmp_path)
    assert not m.warnings
    assert r"C9 & x & 6 & 0/450 & -- & 1.000 & interim \\" in tex
    assert r"\newcommand{\ConfirmatoryFinished}{0}" in tex
    assert r"\newcommand{\ConfirmatoryHeld}{0}" in tex


def test_missing_results_fall_back_to_the_shipped_table(tmp_path):
    """A results folder without confirmatory/ (the quick profile's) draws the shipped
    table; with no shipped table either, every macro is missing (``??``, a warning
    each, so the build reports it) and the rows are one missing row."""
    import texmacros
    shipped = tmp_path / "shipped"
    _write(shipped)
    m, tex = _tex(tmp_path / "quick", candidates=[shipped])
    assert not m.warnings and r"\newcommand{\ConfirmatoryCount}{3}" in tex
    m, tex = _tex(tmp_path / "quick", candidates=[tmp_path / "none"])
    assert len(m.warnings) == 4 and all("confirmatory/results.csv" in w for w in m.warnings)
    assert rf"\newcommand{{\ConfirmatoryHeld}}{{{texmacros.MISSING}}}" in tex
    assert rf"\newcommand{{\ConfirmatoryRows}}{{{texmacros.MISSING} \\}}" in tex


def test_registered_and_the_shipped_table_is_complete():
    """The module is one of the paper's macro sources, and the shipped table (default
    fallback) has the ten declared hypotheses."""
    from pathlib import Path

    import texmacros
    assert "texmacros.studies.confirmatory" in texmacros.SOURCES
    m, tex = _tex(Path("/nonexistent"), candidates=None)
    assert not m.warnings
    assert r"\newcommand{\ConfirmatoryCount}{10}" in tex


def test_each_hypothesis_has_its_own_macros_and_unmeasured_ones_are_dashes(tmp_path):
    """``\\Confirmatory<Id>Gain/Lo/Hi/Holm/Deals`` for the abstract: the numbers of
    that row; a hypothesis with no deal (or not in the table) prints ``--``."""
    rows = ROWS + [["C9", 2, "rollout best-response passer gains against void_short", 6, "S",
                    0, 450, True, "", "", "", "", "", 1.0, 0.95, "", "", False]]
    _write(tmp_path, rows)
    m, tex = _tex(tmp_path)
    assert not m.warnings
    assert r"\newcommand{\ConfirmatoryCSixGain}{0.20}" in tex
    assert r"\newcommand{\ConfirmatoryCSixLo}{-0.10}" in tex   # \val typesets the sign
    assert r"\newcommand{\ConfirmatoryCSixHolm}{0.400}" in tex
    assert r"\newcommand{\ConfirmatoryCOneDeals}{400}" in tex
    assert r"\newcommand{\ConfirmatoryCNineGain}{--}" in tex
    assert r"\newcommand{\ConfirmatoryCTenGain}{--}" in tex      # not in the table


def test_the_abstract_rests_on_the_declared_ladder_steps():
    """The abstract's central claim quotes the confirmatory ISMCTS-over-PIMC steps
    (C3 at six, C6 at eleven players), not only the earlier runs."""
    from pathlib import Path
    tex = (Path(__file__).resolve().parents[2] / "paper" / "main.tex").read_text()
    abstract = tex.split(r"\begin{abstract}")[1].split(r"\end{abstract}")[0]
    for key in ("CThree", "CSix"):
        for field in ("Gain", "Lo", "Hi", "Holm"):
            assert rf"\Confirmatory{key}{field}" in abstract
    assert "preregistration" in abstract
