"""The CFR convergence experiment, its figure script and the CFR benchmark helpers."""

import importlib.util
import shutil
from pathlib import Path

import pytest

from experiments import runner
from experiments.bench.cfr import scaling_row
from experiments.studies import cfr_convergence as cc

ROOT = Path(__file__).resolve().parents[2]


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
    out = tmp_path / "results"
    res = runner.run("cfr_convergence", out=out, workers=1, progress=False, verbose=False,
                     overrides={"deals": "micro,micro3", "iterations": 30, "checkpoints": 6})
    rows = res.rows
    assert set(rows.deal) == {"micro", "micro3"}
    assert set(rows.solver) == set(cc.CFRConvergenceConfig().solvers)
    for (deal, name), g in rows.groupby(["deal", "solver"], sort=False):
        g = g.sort_values("iteration")
        assert g.iteration.tolist() == cc.checkpoints(30, 6)
        nc = g.nash_conv.tolist()
        assert nc[-1] < nc[0] / 5, (deal, name)
        assert (g.seconds.diff().dropna() >= 0).all()
        players = int(g.players.iloc[0])
        assert [c for c in g.columns if c.startswith("improvement_")] == [
            f"improvement_{p}" for p in range(max(rows.players))]
        assert g[f"improvement_{players - 1}"].notna().all()
    assert len(res.tables["summary"]) == 2 * len(cc.CFRConvergenceConfig().solvers)
    assert list(res.metadata["config"]["deals"]) == ["micro", "micro3"]
    assert res.metadata["git_commit"]
    # The figure script reads the profile's folder (a run with overrides has its own).
    shutil.move(res.path, out / "cfr_convergence")
    fig = _figure_module()
    assert fig.main([str(out), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "cfr_convergence.png").stat().st_size > 0
    assert fig.main([str(tmp_path / "missing"), str(tmp_path / "out2")]) == 0
    assert not (tmp_path / "out2").exists()


def test_bench_scaling_row_reports_memory_per_infoset():
    row = scaling_row("micro_pass", iterations=1)
    assert row["histories"] == 10_910 and row["infosets"] == 8_586
    assert 50 < row["bytes_per_infoset"] < 1000
