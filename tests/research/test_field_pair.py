"""research/scripts/field_pair.py: two one-tested-seat tournaments paired deal by deal."""

from __future__ import annotations

import json

import numpy as np
import pytest

from field_pair import FieldPairError, load_run, main, pair_runs
from experiments.tournament import main as tournament


def _run(tmp_path, tested, *, seed=3, field="heuristic", deals=4, players=5, lineup=None):
    out = tmp_path / f"runs-{abs(hash((tested, seed, field, deals, players))) % 10**8}"
    lineup = lineup or [1] + [0] * (players - 1)
    assert tournament(["--agents", field, tested, "--game", json.dumps({"players": players}),
                       "--deals", str(deals), "--seed", str(seed), "--lineup",
                       *map(str, lineup), "--deals-per-unit", "2", "--no-progress",
                       "--out", str(out)]) == 0
    (folder,) = out.glob("tournament@*")
    return folder


def test_the_same_agent_on_the_same_deals_differs_by_exactly_zero(tmp_path):
    """The heuristic is deterministic: played twice in the tested seat of the same
    deals it scores the same on every deal, so the pairing really pairs hands;
    a random player in its place scores differently, which the pairing shows."""
    a = load_run(_run(tmp_path, "heuristic"))
    b = load_run(_run(tmp_path / "again", "heuristic"))
    same = pair_runs(a, b)
    assert same["deals"] == 4 and same["x_minus_y"]["mean"] == 0.0
    assert same["x_minus_y"]["sd"] == 0.0
    r = load_run(_run(tmp_path, "random"))
    res = pair_runs(r, a)
    want = np.mean([r["points"][d] - a["points"][d] for d in range(4)])
    assert res["x_minus_y"]["mean"] == pytest.approx(want) and want != 0.0
    assert res["x_minus_y"]["lo"] < want < res["x_minus_y"]["hi"]
    assert res["points_x"]["mean"] == pytest.approx(np.mean(list(r["points"].values())))
    out = tmp_path / "cmp.json"
    assert main([str(_run(tmp_path, "random")), str(_run(tmp_path, "heuristic")),
                 "--json", str(out)]) == 0
    saved = json.loads(out.read_text())
    (c,) = saved["result"]["comparisons"]
    assert c["x_minus_y"]["mean"] == pytest.approx(want) and c["players"] == 5
    assert saved["metadata"]["git_commit"] and c["runs"][0]["config"]["agents"][1] == "random"
    assert c["runs"][0]["seconds_per_decision"] > 0
    assert main([str(_run(tmp_path, "random"))]) == 2              # not a pair


def test_runs_that_do_not_share_deals_or_shape_are_refused(tmp_path, capsys):
    a = load_run(_run(tmp_path, "heuristic"))
    with pytest.raises(FieldPairError, match="differ in seed"):
        pair_runs(a, load_run(_run(tmp_path, "heuristic", seed=4)))
    with pytest.raises(FieldPairError, match="different fields"):
        pair_runs(a, load_run(_run(tmp_path, "heuristic", field="random")))
    with pytest.raises(FieldPairError, match="lineup .* is not one tested seat"):
        load_run(_run(tmp_path, "random", lineup=[1, 1, 0, 0, 0]))
    with pytest.raises(FieldPairError, match="rows.csv is missing|run.json is missing"):
        load_run(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "run.json").write_text("{not json")
    (bad / "rows.csv").write_text("kind,deal\nseat,0\n")
    with pytest.raises(FieldPairError, match="run.json is not valid JSON"):
        load_run(bad)
    folder = _run(tmp_path, "heuristic")
    (bad / "run.json").write_text((folder / "run.json").read_text())
    with pytest.raises(FieldPairError, match="not a tournament's rows table"):
        load_run(bad)
    assert main([str(tmp_path), str(tmp_path)]) == 2
    assert "not a finished tournament run folder" in capsys.readouterr().err
