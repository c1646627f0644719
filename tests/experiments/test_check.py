"""python -m experiments check: the quick profile's estimates against the paper results
(intervals overlap; exact values agree to a tolerance), on fixture results."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from experiments import _check as check, _shipped as shipped

FIXTURES = ROOT / "tests" / "fixtures" / "results" / "quick"


def _check(quick, paper):
    return subprocess.run([sys.executable, "-m", "experiments", "check", "--quick", str(quick),
                           "--paper", str(paper)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture()
def pair(tmp_path):
    """The fixtures as quick results and a copy of them as paper results (shipped form)."""
    quick = tmp_path / "quick"
    shipped.pack(FIXTURES, quick)
    paper_src = tmp_path / "paper_src"
    shutil.copytree(FIXTURES, paper_src)
    return quick, paper_src, tmp_path / "paper"


def _shift_first_ladder_step(src, by) -> None:
    """Move the first ladder step's gain and interval of ``src`` up by ``by(lo, hi)``."""
    path = src / "ladder" / "steps.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    g = rows[0]
    shift = by(float(g["gain_lo"]), float(g["gain_hi"]))
    for k in ("gain", "gain_lo", "gain_hi"):
        g[k] = str(float(g[k]) + shift)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_identical_results_agree_on_every_kind_of_quantity(pair):
    quick, src, paper = pair
    shipped.pack(src, paper)
    rows, skipped = check.compare(quick, paper)
    assert not skipped and rows and all(r.agree for r in rows)
    kinds = {r.quantity.split(",")[0].split(":")[0] for r in rows}
    assert {"ladder", "ISMCTS sweep", "CFR NashConv", "exact exploitability (passing only)",
            "5-player meta-game"} <= kinds, kinds
    r = _check(quick, paper)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| quantity | quick | paper | agree? |" in r.stdout
    assert f"{len(rows)} of {len(rows)} quantities agree" in r.stdout


def test_a_different_nash_conv_and_a_shifted_interval_disagree(pair):
    quick, src, paper = pair
    rows_csv = src / "cfr_convergence" / "rows.csv"
    with open(rows_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    rows[3]["nash_conv"] = str(float(rows[3]["nash_conv"]) * (1 + 1e-6))   # beyond 1e-9 relative
    with open(rows_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    _shift_first_ladder_step(src, lambda lo, hi: 10 * (hi - lo) + 1.0)   # apart, even widened
    shipped.pack(src, paper)
    compared = check.compare(quick, paper)[0]
    bad = [r for r in compared if not r.agree]
    assert len(bad) == 2, bad
    assert bad[0].quantity.startswith("ladder, ") and bad[0].rule.startswith("intervals overlap")
    it = rows[3]
    assert bad[1].quantity == (f"CFR NashConv, {it['deal']}, {it['solver']}, "
                               f"iteration {it['iteration']}")
    r = _check(quick, paper)
    assert r.returncode == 1
    assert r.stdout.count("| NO |") == 2
    assert f"{len(compared) - 2} of {len(compared)} quantities agree" in r.stdout


def test_damaged_paper_results_stop_the_check(pair):
    quick, src, paper = pair
    shipped.pack(src, paper)
    (paper / "ladder" / "steps.csv").write_text("{}")
    r = _check(quick, paper)
    assert r.returncode == 2 and "ladder/steps.csv" in r.stderr


def test_many_interval_comparisons_are_judged_together(pair):
    """With k interval comparisons each 95% interval is widened (Bonferroni), so that
    chance alone rarely fails one; --per-quantity keeps each at 95%."""
    assert check.family_factor(1) == pytest.approx(1.0)
    assert check.family_factor(100) == pytest.approx(3.4808 / 1.95996, rel=1e-3)
    quick, src, paper = pair
    _shift_first_ladder_step(src, lambda lo, hi: (hi - lo) * 1.05)     # just apart at 95%
    shipped.pack(src, paper)
    together = check.compare(quick, paper)[0]
    alone = check.compare(quick, paper, family=False)[0]
    assert all(r.agree for r in together)
    assert [r.quantity for r in alone if not r.agree] == [together[0].quantity]
