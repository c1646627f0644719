"""The agent_exploitability study in the paper: a small run end to end (rows, figure
script, macros read back from the rows), the macros' derived claims on hand-made
rows whose answers are known, and missing results."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import check_figure_and_macros

import texmacros as macros
from experiments import runner
from experiments._base import registry
from experiments._base.config import ConfigError
from experiments.studies import agent_exploitability as study
from texmacros.studies import agent_exploitability as writer

ROOT = Path(__file__).resolve().parents[2]


def _value(tex: str, name: str) -> str:
    return re.search(rf"\\newcommand{{\\{name}}}{{(.*?)}}  %", tex, re.S).group(1)


def test_study_is_in_the_paper_and_its_quick_profile_is_small():
    exp = registry.get("agent_exploitability")
    assert exp.reproduce and "texmacros.studies.agent_exploitability" in macros.SOURCES
    quick, paper = exp.config("quick"), exp.config("paper")
    # make reproduce runs the quick profile: one small deal, two budgets, few samples
    units = study.units(quick)
    assert len(units) < len(study.units(paper))
    assert max(quick.budgets) <= 100 and quick.samples <= 4 and quick.iterations <= 200
    assert set(paper.deals) == {"micro_pass", "micro3"} and max(paper.budgets) == 1000
    with pytest.raises(ConfigError, match="budgets"):
        study.AgentExploitabilityConfig(budgets=(0,))


def test_small_run_figure_and_macros_end_to_end(tmp_path):
    out = tmp_path / "results"
    res = runner.run("agent_exploitability", out=out, workers=1, progress=False, verbose=False,
                     overrides={"deals": "micro3", "budgets": "10,30", "samples": 2,
                                "bootstrap": 10, "iterations": 20, "checkpoints": 4,
                                "references": "heuristic,pimc,random"})
    rows = res.rows
    assert set(rows.kind) == {"cfr", "ismcts", "reference"}
    shutil.move(res.path, out / "agent_exploitability")     # the profile's folder name
    tex = check_figure_and_macros("agent_exploitability", study, out, tmp_path)
    ref = rows[rows.kind == "reference"].set_index("agent").nash_conv
    ism = rows[rows.kind == "ismcts"].sort_values("budget")
    cfr = rows[rows.kind == "cfr"].sort_values("budget")
    assert _value(tex, "AeThreeHeuristic") == f"{ref['heuristic']:.2f}"
    assert _value(tex, "AeThreeRandom") == f"{ref['random']:.2f}"
    assert _value(tex, "AeThreeIsmctsLast") == f"{ism.nash_conv.iloc[-1]:.2f}"
    assert _value(tex, "AeThreeIsmctsFirstLo") == f"{ism.nash_conv_lo.iloc[0]:.2f}"
    assert _value(tex, "AeThreeCfrFinal") == macros.sci(cfr.nash_conv.iloc[-1])
    assert _value(tex, "AeCfrIterations") == "20" and _value(tex, "AeBudgets") == "10 and 30"
    assert _value(tex, "AeLeaks") == str(int(rows.leaks[rows.kind != "cfr"].sum()))
    # a 3-player deal only: the 2-player macros are "not run" (--), under a false flag
    assert "\\newif\\ifAeThree\\AeThreetrue" in tex and "\\newif\\ifAeTwo  %" in tex
    assert _value(tex, "AeTwoHeuristic") == "--"
    body = _value(tex, "AeRows")
    assert body.count("\\quad ") == 2 + 3 + 1 and body.count("\\multicolumn") == 1


def _write(folder: Path, rows: list[dict], config: dict) -> None:
    """A hand-made ``agent_exploitability`` result folder."""
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"config": config}))
    cols = list(rows[0])
    with open(folder / "rows.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def _row(kind, agent, budget, nc, lo, hi, *, methods="sample/sample", leaks=0):
    return {"deal": "micro_pass", "players": 2, "histories": 100, "infosets": 40,
            "kind": kind, "agent": agent, "budget": budget, "nash_conv": nc,
            "nash_conv_lo": lo, "nash_conv_hi": hi, "nash_conv_bias": 0.1 if lo != hi else 0.0,
            "estimated": lo != hi, "samples": 8 if lo != hi else 0, "methods": methods,
            "calls": 1, "seconds": 0.1, "leak_checked": 5, "leaks": leaks}


def test_derived_claims_on_known_rows(tmp_path):
    """The overlap budget, the CFR checkpoint that passes ISMCTS, the most exploitable
    agent and the flags, on rows whose answers are known by construction."""
    rows = [_row("cfr", "CFR", 1, 10.0, 10.0, 10.0, methods="cfr"),
            _row("cfr", "CFR", 10, 3.2, 3.2, 3.2, methods="cfr"),
            _row("cfr", "CFR", 100, 0.5, 0.5, 0.5, methods="cfr"),
            _row("ismcts", "ismcts(iterations=10)", 10, 7.0, 5.0, 9.0),
            _row("ismcts", "ismcts(iterations=100)", 100, 3.5, 3.0, 4.0),
            _row("ismcts", "ismcts(iterations=1000)", 1000, 4.0, 3.5, 4.5),
            _row("reference", "heuristic", "", 20.0, 20.0, 20.0,
                 methods="deterministic/deterministic"),
            _row("reference", "pimc", "", 15.0, 14.0, 16.0),
            _row("reference", "random", "", 12.0, 12.0, 12.0, methods="policy/policy", leaks=1)]
    cfg = {"samples": 8, "bootstrap": 50, "budgets": [10, 100, 1000], "solver": "CFR",
           "iterations": 100}
    _write(tmp_path / "agent_exploitability", rows, cfg)
    m = macros.Macros()
    writer.paper_macros(m, tmp_path, tmp_path)
    assert not m.warnings, m.warnings
    tex = m.tex("test")
    assert _value(tex, "AeTwoIsmctsOverlap") == "100"      # [5, 9] misses [3.5, 4.5]
    assert _value(tex, "AeTwoCfrPasses") == "100"          # 3.2 is not below 3.0; 0.5 is
    assert _value(tex, "AeTwoMost") == "the heuristic player"
    assert _value(tex, "AeTwoRatio") == "8"                # 4.0 / 0.5
    assert _value(tex, "AeDeterministic") == "the heuristic player"
    assert _value(tex, "AeLeaks") == "1" and _value(tex, "AeLeakChecked") == "30"
    assert "\\AeHeuristicMosttrue" in tex and "\\AeLevelstrue" in tex

    # ISMCTS at 10 iterations the most exploitable, and no level: the flags turn off
    rows[3] = _row("ismcts", "ismcts(iterations=10)", 10, 30.0, 29.0, 31.0)
    rows[4] = _row("ismcts", "ismcts(iterations=100)", 100, 9.0, 8.0, 10.0)
    shutil.rmtree(tmp_path / "agent_exploitability")
    _write(tmp_path / "agent_exploitability", rows, cfg)
    m = macros.Macros()
    writer.paper_macros(m, tmp_path, tmp_path)
    tex = m.tex("test")
    assert _value(tex, "AeTwoMost") == "ISMCTS at 10 iterations"
    assert _value(tex, "AeTwoIsmctsOverlap") == "1{,}000"
    assert "\\newif\\ifAeHeuristicMost  %" in tex and "\\newif\\ifAeLevels  %" in tex


def test_missing_results_give_question_marks(tmp_path):
    m = macros.Macros()
    writer.paper_macros(m, tmp_path, tmp_path)
    tex = m.tex("test")
    assert _value(tex, "AeSamples") == macros.MISSING and m.warnings
    assert "\\newif\\ifAeTwo  %" in tex
