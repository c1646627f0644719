"""The xinxin sweep as an experiment (experiments/studies/xinxin_sweep.py): its
statistics on hand-made per-deal numbers, the declaration reader, the shipped
results and their figure and macros, and a one-deal run (with xinxin where it is
installed, and without it)."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

from conftest import ROOT, check_figure_and_macros
from experiments import runner, _shipped as shipped
from experiments._base.config import ConfigError
from experiments.studies import xinxin_sweep as xs
from experiments.tournament import deal_rows

SHIPPED = ROOT / shipped.SHIPPED
SWEEP = ROOT / "research" / "xinxin_sweep"
FIXTURE = ROOT / "tests" / "fixtures" / "results" / "quick"


def _xinxin_installed() -> bool:
    return xs.xinxin_status() != "not installed"


def _read(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ statistics
def test_difference_stats_of_hand_made_differences():
    s = xs.difference_stats([1.0, 2.0, 3.0, 4.0])
    se = np.sqrt(5 / 3) / 2                         # sd of 1..4 is sqrt(5/3)
    assert s["deals"] == 4 and s["mean"] == 2.5
    assert s["se"] == pytest.approx(se)
    assert s["lo"] == pytest.approx(2.5 - 3.182446 * se, abs=1e-5)   # t(0.975, 3)
    assert s["hi"] == pytest.approx(2.5 + 3.182446 * se, abs=1e-5)
    assert s["p"] == pytest.approx(0.030466, abs=1e-6)                # t = 3.873, 3 df
    assert xs.difference_stats([]) == {"deals": 0}
    one = xs.difference_stats([1.5])
    assert one == {"deals": 1, "mean": 1.5}                          # no interval, no p


def _records():
    """Two duplicate deals, ours agent 0 and xinxin agent 1 (hand-computed):
    deal 0: ours (1+12+0+14)/4 = 6.75, xinxin (0+13+0+12)/4 = 6.25, so d = -0.5;
    deal 1: ours (2+6+5+13)/4 = 6.5, xinxin (4+8+3+7)/4 = 5.5, so d = -1.0."""
    lineups = [[0, 1, 0, 1], [1, 0, 1, 0]]
    return [{"deal": 0, "assignments": lineups, "points": [[1, 0, 12, 13], [0, 0, 12, 14]],
             "hands": [1, 1], "timing": {"seconds": [1.0, 2.0], "decisions": [38, 39],
                                         "cpu_seconds": [0.3, 0.4]}},
            {"deal": 1, "assignments": lineups, "points": [[2, 4, 6, 8], [3, 5, 7, 13]],
             "hands": [1, 1], "timing": {"seconds": [3.0, 2.0], "decisions": [42, 41],
                                         "cpu_seconds": [0.5, 0.2]}}]


def test_cell_stats_of_hand_made_deals():
    s = xs.cell_stats(deal_rows(_records(), cell="c"))
    assert list(s["d"]) == [-0.5, -1.0]
    assert s["mean"] == -0.75 and s["deals"] == 2
    assert s["cpu_ms_ours"] == pytest.approx(10.0)          # 0.8 s over 80 decisions
    assert s["cpu_ms_xinxin"] == pytest.approx(7.5)         # 0.6 s over 80
    assert s["cpu_ratio"] == pytest.approx(0.75)
    assert s["wall_ms_ours"] == pytest.approx(50.0) and s["wall_ms_xinxin"] == pytest.approx(50.0)
    assert xs.cell_stats([]) == {"deals": 0}


def test_holm_adjusts_step_down_in_order_of_p():
    adj, level = xs.holm({"a": 0.01, "b": 0.04, "c": 0.03})
    assert adj == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})   # running maximum
    assert level == pytest.approx({"a": 0.05 / 3, "c": 0.05 / 2, "b": 0.05})
    adj, _ = xs.holm({"a": 0.5, "b": 0.9})
    assert adj == pytest.approx({"a": 1.0, "b": 1.0})                # capped at 1


def test_cells_table_flags_holm_family_equal_cpu_and_status():
    cells = [{"cell": n, "budget_ms": 5, "game": g, "seed": i, "deals": k, "ours": "o",
              "xinxin": "x"}
             for i, (n, g, k) in enumerate([("c1", "nopass", 2), ("c2", "pass", 3),
                                            ("c3", "pass", 2), ("c4", "nopass", 2)])]
    stats = {"c1": xs.cell_stats(deal_rows(_records())), "c2": xs.cell_stats(deal_rows(
        _records())), "c3": {"deals": 0}, "c4": {"deals": 0}}
    table = {r["cell"]: r for r in xs.cells_table(cells, stats, absent={"c4"})}
    assert list(table["c1"]) == list(xs.TABLE_COLUMNS)
    assert [table[c]["status"] for c in ("c1", "c2", "c3", "c4")] == [
        "finished", "interim", "not started", "xinxin not installed"]
    assert table["c1"]["finished"] and not table["c2"]["finished"]
    assert table["c1"]["equal_cpu"] is False                 # ratio 0.75 < 0.8
    assert table["c3"]["equal_cpu"] is None and table["c3"]["mean"] is None
    p = table["c1"]["p"]
    assert table["c1"]["holm_p"] == pytest.approx(min(1.0, 4 * p))   # the unplayed count, p = 1
    assert table["c1"]["passing"] is False and table["c2"]["passing"] is True


def test_cells_table_counts_stopped_cells_with_p_one_and_keeps_their_numbers():
    cells = [{"cell": n, "budget_ms": 5, "game": "nopass", "seed": i, "deals": k, "ours": "o",
              "xinxin": "x"} for i, (n, k) in enumerate([("c1", 2), ("c2", 3), ("c3", 2)])]
    stats = {"c1": xs.cell_stats(deal_rows(_records())), "c3": {"deals": 0},
             "c2": {"deals": 2, "mean": -0.75, "lo": -1.0, "hi": -0.5, "p": 1e-6, "se": 0.1}}
    plain = {r["cell"]: r for r in xs.cells_table(cells, stats)}
    table = {r["cell"]: r for r in xs.cells_table(cells, stats, stopped={"c1", "c2", "c3"})}
    assert table["c1"]["status"] == "finished"              # finished: never stopped
    assert [table[c]["status"] for c in ("c2", "c3")] == ["stopped", "stopped"]
    assert table["c2"]["mean"] == plain["c2"]["mean"] == -0.75      # interim numbers kept
    assert table["c2"]["lo"] == plain["c2"]["lo"] and table["c2"]["p"] == plain["c2"]["p"]
    assert table["c2"]["holm_p"] == 1.0 and table["c2"]["holm_lo"] is None
    p = table["c1"]["p"]                                     # the family: p, 1, 1
    assert table["c1"]["holm_p"] == pytest.approx(min(1.0, 3 * p))
    assert plain["c1"]["holm_p"] == pytest.approx(2 * p)     # c2's own p (below c1's)
    assert plain["c2"]["holm_p"] == pytest.approx(3e-6)      # no longer counts when stopped


def _row(budget, passing, status, ratio, cell, mean=1.0):
    return {"cell": cell, "budget_ms": budget, "passing": passing, "status": status,
            "deals": 3, "declared_deals": 3, "mean": mean, "lo": 0.5, "hi": 1.5,
            "cpu_ratio": ratio, "equal_cpu": ratio is not None and 0.8 <= ratio <= 1.25}


def test_the_curve_rule_on_a_hand_made_case():
    """Per budget and passing mode: the recalibrated cell where the second sweep has
    one (whatever its status or ratio), else the first sweep's cell only when it
    finished inside the band, else no point; CSV rows (strings) work alike."""
    first = [_row(5, False, "finished", 1.0, "a"),          # finished inside: on the curve
             _row(5, True, "finished", 0.6, "b"),           # outside, replaced below
             _row(20, False, "finished", 0.6, "c"),         # outside, not replaced: none
             _row(20, True, "interim", 1.0, "d"),           # unfinished, not replaced: none
             _row(80, False, "stopped", 0.7, "e")]          # stopped, replaced below
    second = [_row(5, True, "not started", None, "r_b"),
              _row(80, False, "interim", 1.4, "r_e", mean=-2.0)]
    curve = xs.curve_rows(first, second)
    assert [(r["budget_ms"], r["passing"]) for r in curve] == [
        (5, False), (5, True), (20, False), (20, True), (80, False)]
    assert [(r["sweep"], r["cell"], r["status"]) for r in curve] == [
        ("first", "a", "finished"), ("recalibrated", "r_b", "not started"),
        ("", "", xs.NO_CELL), ("", "", xs.NO_CELL), ("recalibrated", "r_e", "interim")]
    assert curve[4]["mean"] == -2.0 and curve[4]["equal_cpu"] is False
    assert curve[2]["mean"] is None and list(curve[0]) == list(xs.CURVE_COLUMNS)
    as_csv = [{k: str(v) for k, v in r.items()} for r in first]
    assert [r["sweep"] for r in xs.curve_rows(as_csv)] == ["first", "", "", "", ""]
    # a third declaration's cell takes its budget's place, whatever the second has
    third = [_row(80, False, "interim", 1.0, "t_e", mean=0.5),
             _row(300, True, "not started", None, "t_f")]
    curve3 = xs.curve_rows(first, second, third)
    assert [(r["budget_ms"], r["passing"], r["sweep"], r["cell"]) for r in curve3] == [
        (5, False, "first", "a"), (5, True, "recalibrated", "r_b"), (20, False, "", ""),
        (20, True, "", ""), (80, False, "third", "t_e"), (300, True, "third", "t_f")]
    assert curve3[4]["mean"] == 0.5
    assert [d.key for d in xs.LATER] == ["recalibrated", "third"]
    with pytest.raises(ValueError, match="only 2 later declarations"):
        xs.curve_rows(first, second, third, third)


def test_a_later_declaration_names_the_cells_it_stops():
    """The third declaration's JSON block stops two cells of the second; a
    malformed ``stops`` is refused with what it must be."""
    design, _ = xs.declaration(xs.THIRD, xs.frozen_for(xs.THIRD), unfrozen_ok=True)
    assert xs.stops(design, xs.RECALIBRATED) == ("r2_b300_pass", "r2_b1000_pass")
    assert xs.stops(design, xs.DECLARATION) == ()
    recal = {c["cell"] for c in xs.declaration(xs.RECALIBRATED, xs.frozen_for(
        xs.RECALIBRATED))[0]["cells"]}
    assert set(xs.stops(design, xs.RECALIBRATED)) <= recal
    with pytest.raises(xs.DeclarationError, match="must map an earlier declaration"):
        xs.stops({"stops": ["r2_b300_pass"]}, xs.RECALIBRATED)


# ------------------------------------------------------------------ the declaration
def test_the_declaration_is_read_under_its_frozen_hash():
    design, digest = xs.declaration()
    assert digest == (SWEEP / "declaration.sha256").read_text().split()[0]
    assert len(design["cells"]) == 10
    assert sorted({c["budget_ms"] for c in design["cells"]}) == [5, 20, 80, 300, 1000]
    paper = xs.cells(xs.PROFILES["paper"], design)
    assert [c["deals"] for c in paper] == [c["deals"] for c in design["cells"]]
    assert [c["seed"] for c in paper] == [c["seed"] for c in design["cells"]]
    quick = xs.cells(xs.PROFILES["quick"], design)
    assert [c["cell"] for c in quick] == ["b005_nopass", "b005_pass", "b020_nopass",
                                          "b020_pass"]
    assert {c["deals"] for c in quick} == {xs.QUICK_DEALS}
    assert quick[0]["params"]["pass_count"] == 0 and "pass_count" not in quick[1]["params"]
    with pytest.raises(ConfigError, match=r"budgets_ms \[7\].*declared budgets_ms"):
        xs.cells(xs.XinxinSweepConfig(budgets_ms=(7,)), design)


def test_the_declaration_reader_refuses_a_changed_file(tmp_path):
    decl, frozen = tmp_path / "prereg.md", tmp_path / "declaration.sha256"
    shutil.copy(xs.DECLARATION, decl)
    shutil.copy(xs.FROZEN, frozen)
    assert xs.declaration(decl, frozen)[0] == xs.declared()
    decl.write_text(decl.read_text().replace('"deals": 240', '"deals": 200', 1))
    with pytest.raises(xs.DeclarationError, match="changed after the sweep's first unit"):
        xs.declaration(decl, frozen)
    frozen.unlink()
    with pytest.raises(xs.DeclarationError, match="no frozen SHA-256"):
        xs.declaration(decl, frozen)
    with pytest.raises(xs.DeclarationError, match="is not there"):
        xs.declaration(tmp_path / "none.md", frozen)


def test_the_second_declaration_is_checked_against_its_own_frozen_hash(tmp_path):
    """The recalibrated sweep's declaration is read under the SHA-256 its runner
    froze (``declaration-preregistration_xinxin_recalibrated.sha256``): a changed
    file or a different hash is refused, and saved units without a frozen hash
    are refused too; with neither, the sweep simply has not started."""
    frozen = xs.frozen_for(xs.RECALIBRATED)
    assert frozen.name == "declaration-preregistration_xinxin_recalibrated.sha256"
    assert xs.frozen_for(xs.DECLARATION) == xs.FROZEN
    design, digest = xs.declaration(xs.RECALIBRATED, frozen)
    assert digest == frozen.read_text().split()[0]
    assert [c["cell"] for c in design["cells"]] == [
        "r2_b005_pass", "r2_b080_pass", "r2_b300_nopass", "r2_b300_pass", "r2_b1000_nopass",
        "r2_b1000_pass"]
    decl = tmp_path / xs.RECALIBRATED.name
    decl.write_text(xs.RECALIBRATED.read_text().replace('"deals": 300', '"deals": 200', 1))
    with pytest.raises(xs.DeclarationError, match="changed after the sweep's first unit"):
        xs.declaration(decl, frozen)
    sweep = tmp_path / "sweep"
    (sweep / "archive").mkdir(parents=True)
    (sweep / frozen.name).write_text("0" * 64 + "\n")
    with pytest.raises(xs.DeclarationError, match="changed after the sweep's first unit"):
        xs.ship_table(sweep, xs.RECALIBRATED, unfrozen_ok=True)
    (sweep / frozen.name).unlink()
    table, _ = xs.ship_table(sweep, xs.RECALIBRATED, unfrozen_ok=True)
    assert {r["status"] for r in table} == {"not started"} and len(table) == 6
    with pytest.raises(xs.DeclarationError, match="no frozen SHA-256"):
        xs.ship_table(sweep, xs.RECALIBRATED)
    packed = sorted((SWEEP / "archive").glob("r2_*.tar.xz"))
    if packed:                                   # saved units but no frozen hash: refused
        shutil.copy(packed[0], sweep / "archive")
        with pytest.raises(xs.DeclarationError, match="has saved deals"):
            xs.ship_table(sweep, xs.RECALIBRATED, unfrozen_ok=True)


def test_summarize_py_writes_the_study_statistics_in_its_own_columns():
    """research/xinxin_sweep/cells.csv (summarize.py) and the study's table share
    their columns and numbers: the study adds only equal_cpu and status."""
    header = _read(SWEEP / "cells.csv")[0].keys()
    assert tuple(header) == xs.COLUMNS
    assert [c for c in xs.TABLE_COLUMNS if c not in xs.COLUMNS] == ["equal_cpu", "status"]


# ------------------------------------------------------------------ shipped results
def test_ship_table_reads_a_cell_from_its_archive(tmp_path):
    """A fresh checkout has only archive/<cell>.tar.xz: the cell is read from it (in
    memory) with the statistics summarize.py wrote; a shipped copy goes in with
    the declaration and leaves every other shipped file as it was."""
    sweep = tmp_path / "sweep"
    (sweep / "archive").mkdir(parents=True)
    shutil.copy(SWEEP / "declaration.sha256", sweep / "declaration.sha256")
    shutil.copy(SWEEP / "archive" / "b005_nopass.tar.xz", sweep / "archive")
    table, prov = xs.ship_table(sweep)
    row = {r["cell"]: r for r in table}
    assert row["b005_nopass"]["deals"] == 240 and row["b005_nopass"]["status"] == "finished"
    assert prov["b005_nopass"]["read_from"].endswith("b005_nopass.tar.xz")
    assert prov["b005_nopass"]["sessions"][0]["git_commit"]
    assert all(row[c]["status"] == "not started" for c in row if c != "b005_nopass")
    summarized = {r["cell"]: r for r in _read(SWEEP / "cells.csv")}["b005_nopass"]
    assert f"{row['b005_nopass']['mean']:.4g}" == summarized["mean"]
    assert f"{row['b005_nopass']['cpu_ratio']:.4g}" == summarized["cpu_ratio"]
    dst = tmp_path / "results"
    shutil.copytree(SHIPPED, dst)
    before = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
              if p.is_file()}
    out = xs.ship(sweep, dst)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["config"] == xs.declared()
    assert meta["declaration_sha256"] == xs.declaration()[1]
    assert meta["profile"] == "paper" and meta["interim"] and meta["finished_cells"] == 1
    assert meta["git_commit"] and meta["versions"]["numpy"]
    # the second sweep has no saved units (nor a frozen hash) here: shipped not started
    second = meta["declarations"]["recalibrated"]
    assert second["declaration"] == "paper/preregistration_xinxin_recalibrated.md"
    assert second["declaration_sha256"] == xs.declaration(xs.RECALIBRATED,
                                                          xs.frozen_for(xs.RECALIBRATED))[1]
    assert second["frozen"] is False and second["finished_cells"] == 0
    assert meta["declarations"]["first"]["declaration_sha256"] == meta["declaration_sha256"]
    recal = _read(out / "recalibrated.csv")
    assert list(recal[0]) == list(xs.TABLE_COLUMNS) and len(recal) == 6
    # the third declaration stops two of them, before any deal here
    assert {r["cell"]: r["status"] for r in recal if r["status"] != "not started"} == {
        "r2_b300_pass": "stopped", "r2_b1000_pass": "stopped"}
    third = _read(out / "third.csv")
    assert [r["cell"] for r in third] == ["r3_b300_pass", "r3_b1000_pass"]
    assert {r["status"] for r in third} == {"not started"}
    assert meta["declarations"]["third"]["cells_file"] == "third.csv"
    assert meta["declarations"]["recalibrated"]["stopped_cells"] == ["r2_b300_pass",
                                                                    "r2_b1000_pass"]
    first = {r["cell"]: r["status"] for r in _read(out / "cells.csv")}
    assert {first[c] for c in xs.STOPPED_CELLS} == {"stopped"}
    curve = _read(out / "curve.csv")
    assert list(curve[0]) == list(xs.CURVE_COLUMNS) and len(curve) == 10
    assert [(r["cell"], r["sweep"]) for r in curve[:2]] == [("b005_nopass", "first"),
                                                            ("r2_b005_pass", "recalibrated")]
    assert sum(r["sweep"] == "recalibrated" for r in curve) == 4
    assert [r["cell"] for r in curve if r["sweep"] == "third"] == ["r3_b300_pass",
                                                                   "r3_b1000_pass"]
    assert sum(r["sweep"] == "" for r in curve) == 3      # b020_nopass etc. not read here
    after = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
             if p.is_file()}
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed - {"shipped.json", "SHA256SUMS"} <= {
        "xinxin_sweep/cells.csv", "xinxin_sweep/metadata.json",
        "xinxin_sweep/recalibrated.csv", "xinxin_sweep/third.csv", "xinxin_sweep/curve.csv"}
    assert shipped.verify(dst) == len(after) - 1


def test_the_shipped_sweep_is_the_declared_one():
    rows = _read(SHIPPED / "xinxin_sweep" / "cells.csv")
    meta = json.loads((SHIPPED / "xinxin_sweep" / "metadata.json").read_text())
    design, digest = xs.declaration()
    assert meta["declaration_sha256"] == digest and meta["config"] == design
    assert [r["cell"] for r in rows] == [c["cell"] for c in design["cells"]]
    assert list(rows[0]) == list(xs.TABLE_COLUMNS)
    for r in rows:
        deals, declared = int(r["deals"]), int(r["declared_deals"])
        assert r["status"] == ("finished" if deals >= declared else
                               "stopped" if r["cell"] in xs.STOPPED_CELLS else
                               "interim" if deals else "not started"), r["cell"]
        assert (r["finished"] == "True") == (r["status"] == "finished")
    assert meta["interim"] == any(r["status"] != "finished" for r in rows)
    assert "xinxin_sweep" in json.loads((SHIPPED / "shipped.json").read_text())["results"]
    # the second declaration, and the curve both define
    design2, digest2 = xs.declaration(xs.RECALIBRATED, xs.frozen_for(xs.RECALIBRATED))
    second = meta["declarations"]["recalibrated"]
    assert second["declaration_sha256"] == digest2 and second["config"] == design2
    recal = _read(SHIPPED / "xinxin_sweep" / "recalibrated.csv")
    assert [r["cell"] for r in recal] == [c["cell"] for c in design2["cells"]]
    design3, digest3 = xs.declaration(xs.THIRD, xs.frozen_for(xs.THIRD))
    assert meta["declarations"]["third"]["declaration_sha256"] == digest3
    third = _read(SHIPPED / "xinxin_sweep" / "third.csv")
    assert [r["cell"] for r in third] == [c["cell"] for c in design3["cells"]]
    stopped = set(xs.stops(design3, xs.RECALIBRATED))
    assert all(r["status"] == "stopped" for r in recal
               if r["cell"] in stopped and int(r["deals"]) < int(r["declared_deals"]))
    curve = _read(SHIPPED / "xinxin_sweep" / "curve.csv")
    assert curve == [{k: str(v) if v is not None else "" for k, v in r.items()}
                     for r in xs.curve_rows(rows, recal, third)]
    assert not stopped & {r["cell"] for r in curve}
    assert [r["cell"] for r in curve if r["sweep"] == "first"] == [
        "b005_nopass", "b020_nopass", "b020_pass", "b080_nopass"]


def test_the_figure_and_macros_draw_the_shipped_results(tmp_path):
    tex = check_figure_and_macros("xinxin_sweep", xs, SHIPPED, tmp_path)
    assert "\\newcommand{\\XinxinSweepCells}{10}" in tex
    assert "\\newcommand{\\XinxinSweepRecalCells}{6}" in tex
    assert "\\newcommand{\\XinxinSweepCurveCells}{10}" in tex
    assert "\\XinxinSweepRecaltrue" in tex and "\\XinxinSweepThirdtrue" in tex
    assert "\\newcommand{\\XinxinSweepThirdCells}{2}" in tex
    assert "\\newcommand{\\XinxinSweepRecalStopped}{2}" in tex
    assert "the paper-profile results (" in tex
    assert tex.count("&") >= 10 * 8                          # one table row per cell


def test_without_xinxin_the_paper_draws_the_shipped_results(tmp_path, monkeypatch):
    """The fixture is a quick run without xinxin: the figure and macros say they
    show the shipped paper-profile results; with none found, no figure."""
    tex = check_figure_and_macros("xinxin_sweep", xs, FIXTURE, tmp_path)
    assert "the shipped paper-profile results" in tex and "not installed" in tex
    rows, source, f = xs.figure_table(FIXTURE)
    assert source == "shipped" and f.resolve() == (SHIPPED / "xinxin_sweep" /
                                                   "cells.csv").resolve()
    monkeypatch.setattr(xs, "shipped_cells", lambda: None)
    with pytest.raises(FileNotFoundError, match="xinxin was not installed"):
        xs.figure_table(FIXTURE)
    from conftest import paper_figure
    assert paper_figure("xinxin_sweep")([str(FIXTURE), str(tmp_path / "none")]) == 0
    assert not (tmp_path / "none").exists()


# ------------------------------------------------------------------ runs
def test_a_run_without_xinxin_records_it_and_the_paper_profile_refuses(tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("XINXIN_BINARY", str(tmp_path / "no_driver"))
    res = runner.run("xinxin_sweep", profile="quick", out=tmp_path / "r", workers=1,
                     overrides={"budgets_ms": [5], "games": ["nopass"], "deals": 1},
                     progress=False, verbose=False)
    (row,) = res.tables["cells"].to_dict("records")
    assert row["status"] == "xinxin not installed" and row["deals"] == 0
    assert (res.rows["kind"] == "skipped").all()
    assert "no driver executable" in res.rows["reason"].iloc[0]
    with pytest.raises(ConfigError, match="paper profile plays the declared sweep"):
        xs.units(xs.PROFILES["paper"])


@pytest.mark.skipif(not _xinxin_installed(),
                    reason="xinxin's driver is not installed (make xinxin; docs/xinxin.md)")
def test_a_one_deal_quick_run_against_xinxin(tmp_path):
    res = runner.run("xinxin_sweep", profile="quick", out=tmp_path, workers=1,
                     overrides={"budgets_ms": [5], "games": ["nopass"], "deals": 1},
                     progress=False, verbose=False)
    (row,) = res.tables["cells"].to_dict("records")
    assert row["cell"] == "b005_nopass" and row["deals"] == 1 and row["status"] == "finished"
    assert np.isfinite(row["mean"]) and row["cpu_ms_ours"] > 0 and row["cpu_ms_xinxin"] > 0
    assert row["cpu_ratio"] == pytest.approx(row["cpu_ms_xinxin"] / row["cpu_ms_ours"])
    assert set(res.rows["kind"]) == {"seat", "agent"}
    assert res.metadata["profile"] == "quick"
