"""The CFR convergence experiment, its figure script and the CFR benchmark helpers."""

import importlib.util
import json
from pathlib import Path

import pytest

from experiments import cfr_convergence as cc
from experiments.bench_cfr import scaling_row
from experiments.metadata import write_result, metadata

ROOT = Path(__file__).resolve().parent.parent


def _figure_module():
    spec = importlib.util.spec_from_file_location(
        "cfr_convergence_figure", ROOT / "paper" / "figures" / "cfr_convergence.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_checkpoints_are_log_spaced_and_end_at_the_last_iteration():
    pts = cc.checkpoints(1000, 10)
    assert pts[0] == 1 and pts[-1] == 1000 and pts == sorted(set(pts))


def test_config_is_closed_and_validated():
    with pytest.raises(TypeError):
        cc.CFRConvergenceConfig(hands=3)
    with pytest.raises(ValueError, match="unknown preset"):
        cc.CFRConvergenceConfig(deals=("nope",))
    with pytest.raises(ValueError, match="unknown solver"):
        cc.CFRConvergenceConfig(solvers=("CFR-BR",))


def test_experiment_and_figure_end_to_end(tmp_path):
    config = cc.CFRConvergenceConfig(deals=("micro", "micro3"), iterations=30, checkpoints=6)
    result = cc.run(config)
    assert set(result["deals"]) == {"micro", "micro3"}
    for deal, entry in result["deals"].items():
        assert set(entry["runs"]) == set(config.solvers)
        for name, rows in entry["runs"].items():
            assert [r["iteration"] for r in rows] == cc.checkpoints(30, 6)
            assert rows[-1]["nash_conv"] < rows[0]["nash_conv"] / 5, (deal, name)
            assert all(b["seconds"] >= a["seconds"] for a, b in zip(rows, rows[1:]))
            assert len(rows[0]["player_improvements"]) == entry["players"]
    write_result(tmp_path / "cfr_convergence.json", result, metadata(config, config.seed))
    assert cc.summary_text(result).count("NashConv") == 2
    fig = _figure_module()
    assert fig.main([str(tmp_path), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "cfr_convergence.png").stat().st_size > 0
    assert fig.main([str(tmp_path / "missing"), str(tmp_path / "out2")]) == 0
    assert not (tmp_path / "out2").exists()


def test_cli_writes_the_result_file(tmp_path):
    assert cc.main(["--deals", "micro", "--solvers", "CFR,PCFR+", "--iterations", "5",
                    "--checkpoints", "3", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "cfr_convergence.json").read_text())
    assert data["metadata"]["config"]["solvers"] == ["CFR", "PCFR+"]
    assert data["metadata"]["git_commit"]
    assert list(data["result"]["deals"]["micro"]["runs"]) == ["CFR", "PCFR+"]


def test_bench_scaling_row_reports_memory_per_infoset():
    row = scaling_row("micro_pass", iterations=1)
    assert row["histories"] == 10_910 and row["infosets"] == 8_586
    assert 50 < row["bytes_per_infoset"] < 1000
