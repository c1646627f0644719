"""experiments/bench/cfr_large.py: the large-solve bench on a small preset:
rows per checkpoint, exact NashConv falling, and a resumed run equal to an
uninterrupted one."""

import json

import pytest

from experiments.bench import cfr_large
from experiments.bench.cfr_large import LargeSolveConfig, run


def test_resumed_solve_equals_uninterrupted(tmp_path):
    cfg = LargeSolveConfig(game="micro3", checkpoints=(3, 6), threads=2)
    first = run(cfg, state=str(tmp_path / "s"))
    assert [r["iteration"] for r in first["checkpoints"]] == [3, 6]
    assert first["histories"] == 2015 and first["threads"] == 2
    longer = LargeSolveConfig(game="micro3", checkpoints=(3, 6, 12), threads=2)
    resumed = run(longer, state=str(tmp_path / "s"))
    whole = run(longer)
    assert [r["iteration"] for r in resumed["checkpoints"]] == [3, 6, 12]
    assert [r["nash_conv"] for r in resumed["checkpoints"]] == \
        [r["nash_conv"] for r in whole["checkpoints"]]
    ncs = [r["nash_conv"] for r in whole["checkpoints"]]
    assert ncs[-1] < ncs[0]
    assert all(abs(sum(r["br_gains"]) - r["nash_conv"]) < 1e-9 for r in whole["checkpoints"])
    saved = json.loads((tmp_path / "s" / "progress.json").read_text())
    assert saved["iteration"] == 12 and len(saved["rows"]) == 3


def test_state_of_another_game_is_refused(tmp_path):
    run(LargeSolveConfig(game="micro3", checkpoints=(2,), threads=1), state=str(tmp_path))
    with pytest.raises(ValueError, match="different game"):
        run(LargeSolveConfig(game="micro", checkpoints=(4,), threads=1), state=str(tmp_path))


@pytest.mark.parametrize("bad", [(), (5, 3), (0, 2), (2, 2)])
def test_bad_checkpoints(bad):
    with pytest.raises(ValueError, match="checkpoints must be increasing"):
        LargeSolveConfig(checkpoints=bad)


def test_command_line_writes_the_result(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cfr_large.main(["--game", "micro", "--checkpoints", "2", "4", "--threads", "1",
                           "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["result"]["checkpoints"][-1]["iteration"] == 4
    assert doc["metadata"]["config"]["game"] == "micro"
    assert "| 4 |" in capsys.readouterr().out
