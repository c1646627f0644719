"""Readable outputs: short agent labels and named quantities in tournament
tables, the effective parameters printed at the start, no placeholders in
summaries, one-line reprs of result objects, and progress that moves within a
runner unit and during a long game-tree build."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import spiel_game
from experiments import runner
from experiments.tournament import TournamentConfig, agent_parameters, summarize, summary_table
from solvers.cfr import build_tree, nash_conv, uniform_profile
from solvers._agent_policy import agent_exploitability
from solvers.cfr._solvers import CFR

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _runner_experiment  # noqa: F401  (registers runner_selftest)

LONG_PATH = "results/paper/expert_iteration/checkpoints/round-0024.npz"
LONG = f"ismcts_bias(checkpoint='{LONG_PATH}')"


def _record(deal, points):
    return {"deal": deal, "assignments": [[0, 1, 0, 1, 0], [1, 0, 1, 0, 1]],
            "points": points, "hands": [1, 1],
            "timing": {"seconds": [1.0, 2.0], "decisions": [10, 20]}}


def test_tournament_table_uses_short_labels_and_names_what_is_better():
    cfg = TournamentConfig(agents=("heuristic", LONG), game={"players": 5})
    recs = [_record(d, [[1 + d, 2, 3, 4, 5], [5, 4, 3, 2, 1 + d]]) for d in range(3)]
    text = summary_table(summarize(cfg, recs))
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert "points per hand, lower is better" in rows[0]
    assert "zero-sum payoff, higher is better" in rows[0]
    assert any(r.startswith("| ismcts_bias(checkpoint=round-0024.npz) | ") for r in rows)
    assert "| heuristic vs ismcts_bias(checkpoint=round-0024.npz) |" in text
    assert max(len(r.split(" | ")[0]) for r in rows) < 60         # no 80-character paths
    # the full spec is given once, in the legend
    assert text.count("expert_iteration/checkpoints") == 1
    assert f"ismcts_bias(checkpoint=round-0024.npz) = {LONG}" in text


def test_the_effective_parameters_are_printed_with_their_defaults():
    text = agent_parameters(["ismcts", "random", f"network(checkpoint='{LONG_PATH}')"])
    lines = text.splitlines()
    assert lines[1].startswith("  ismcts: ismcts(iterations=1000, ")
    assert lines[2] == "  random: random"
    assert lines[3] == (f"  network(checkpoint=round-0024.npz): network(checkpoint="
                        f"'{LONG_PATH}', policy='argmax', temperature=1.0)")
    assert agent_parameters(["random", "no_such_agent(x=1)"]) is None   # the run reports it


def test_the_tournament_command_prints_the_parameters_first(tmp_path, capsys):
    from experiments.tournament import main
    rc = main(["--agents", "random", "heuristic", "--game", '{"players": 5}', "--deals", "1",
               "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.startswith("agents (every parameter, defaults included):\n  random: random\n")
    assert out.index("agents (every") < out.index("1 deals x 5 seat assignments\n")


@pytest.mark.parametrize("module", ["distill", "expert_iteration"])
def test_checkpoint_summaries_name_the_actual_folder(module, tmp_path):
    import importlib
    mod = importlib.import_module(f"experiments.studies.{module}")
    cfg = mod.PROFILES["quick"]
    row = {c: 0 for c in mod.CURVE_COLUMNS}
    row.update({"phase": "bc", "checkpoint": str(tmp_path / "ck" / "round-0000.npz")})
    if "eval_players" in row:
        row["eval_players"] = 6
    text = mod.summarize(cfg, pd.DataFrame([row])).text
    line = next(x for x in text.splitlines() if x.startswith("checkpoints: "))
    assert line.startswith(f"checkpoints: {tmp_path / 'ck'} ")
    assert "<" not in line


def test_result_reprs_are_one_line_summaries():
    tree = build_tree(spiel_game.load("micro3"))
    res = agent_exploitability(tree, "random")
    r = repr(res)
    assert r.startswith(f"AgentExploitability(nash_conv={res.nash_conv:.4g} (exact), gains=[")
    assert "agents=['random', 'random', 'random']" in r
    assert "\n" not in r and len(r) < 400 and "array(" not in r
    assert "AgentProfile(" in repr(res.agents) and len(repr(res.agents)) < 400
    nc = nash_conv(tree, uniform_profile(tree), return_details=True)
    assert repr(nc).startswith(f"NashConvResult(nash_conv={nc.nash_conv:.6g}, ")
    assert "array(" not in repr(nc)
    solver = CFR(tree).iterate(3)
    assert repr(solver).startswith("CFR(iterations=3, seconds=")
    assert f"sequences={tree.num_sequences:,}" in repr(solver)
    sampled = agent_exploitability(tree, "random", method="sample", samples=4, seed=0,
                                   bootstrap=20, leak_check=False)
    lo, hi = sampled.nash_conv_interval
    assert f"[{lo:.4g}, {hi:.4g}] (95%, 20 bootstrap)" in repr(sampled)


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_moves_within_a_unit(tmp_path, monkeypatch, workers):
    """A unit's unit_progress reports move the run's bar before the unit finishes,
    in the driver's process and from worker processes."""
    monkeypatch.setenv("CH_SELFTEST_PROGRESS", "1")
    monkeypatch.setenv("CH_EXPERIMENT_MODULES", "_runner_experiment")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[2]),
         os.environ.get("PYTHONPATH", "")]))
    seen, finished = [], []
    bar_class = runner._progress._UnitBar
    real_report, real_finished = bar_class.report, bar_class.finished

    def report(self, index, frac):
        seen.append((index, frac, self.bar.n))
        real_report(self, index, frac)

    def fin(self, index):
        finished.append(index)
        real_finished(self, index)
        with self.lock:              # finished units count whole, running ones by fraction
            assert abs(self.bar.n - len(finished) - sum(self.partial.values())) < 1e-9

    monkeypatch.setattr(bar_class, "report", report)
    monkeypatch.setattr(bar_class, "finished", fin)
    runner.run("runner_selftest", overrides={"units": workers, "sleep": 0.9}, out=tmp_path,
               workers=workers, progress=True, verbose=False)
    assert sorted(finished) == list(range(workers))
    for u in range(workers):
        fracs = [f for i, f, _ in seen if i == u]
        assert fracs and fracs == sorted(fracs) and 0 < fracs[0] < 1, (u, seen)


def test_unit_progress_outside_a_unit_does_nothing():
    runner.unit_progress(1, 2)          # no unit, no bar: no error, nothing recorded


def test_a_long_tree_build_shows_its_stages(capsys, monkeypatch):
    import solvers.cfr._tree as T
    game = spiel_game.load("micro3")
    monkeypatch.setattr(T, "PROGRESS_DELAY_S", 60.0)
    build_tree(game, method="pyspiel", progress=True)      # quicker than the delay
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(T, "PROGRESS_DELAY_S", 0.0)
    tree = build_tree(game, method="pyspiel", progress=True)
    err = capsys.readouterr().err
    assert "building the game tree (pyspiel walker): " in err
    assert (f"{tree.num_histories:,} histories, {tree.num_infosets:,} information sets"
            in err)
    build_tree(game, method="pyspiel", progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress"):
        build_tree(game, progress="yes")
    assert np.isfinite(tree.num_histories)
