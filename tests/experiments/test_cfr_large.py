"""experiments/bench/cfr_large.py: the large-solve bench on a small preset:
rows per checkpoint, exact NashConv falling, and a resumed run equal to an
uninterrupted one."""

import json
import re

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


def test_paper_macros_from_the_three_bench_files(tmp_path):
    """Every CFR-at-scale macro is defined from the three benchmark files (the
    flag on); with none of them, the flag is off and the macros are ``??``."""
    from texmacros import MISSING, Macros
    from texmacros.bench.cfr_large import paper_macros
    res = run(LargeSolveConfig(game="micro3", checkpoints=(2, 4), threads=1))
    res.pop("tree", None)
    bench = tmp_path / "bench"
    bench.mkdir()
    lite = [{"game": g, "ours_s": 1e-3, "liteefg_s": 9e-3, "speedup": s}
            for g, s in (("leduc_poker", 8.3), ("micro3", 7.4), ("small", 45.1))]
    timing = {"one_core": [[0.2, 0.2], [0.3, 0.3]], "blocks_on_T_threads": [[0.1, 0.2],
                                                                           [0.2, 0.4]]}
    multi = {"multicore": [{"preset": p, "histories": h, "speedup_vs_one_core": 1.9,
                            "shared_fraction": 0.097, "all": timing}
                           for p, h in (("medium3", 1499592), ("medium", 12728020))],
             "floor": [{"preset": p, "one_core_over_floor": 2.6, "bytes_per_history": 496}
                       for p in ("medium3", "medium")],
             "bandwidth": {"triad_1_gbs": 11.7},
             "capacity": {"bytes_per_history_solve": 97.0},
             "estimates": [{"game": "micro3+pass_count=2", "histories": 1.0e9}]}
    res["game"] = "micro3+pass_count=1"       # the rules of the preset micro3
    res["next"] = {"game": "micro3+pass_count=2", "histories": 1.0e9,
                   "gib": 1.0e9 * 97.0 / 2**30}
    for name, doc in (("cfr_scale", {"liteefg": lite, "liteefg_version": "1.0"}),
                      ("cfr_scale_multicore", multi), ("cfr_large", res)):
        (bench / f"{name}.json").write_text(json.dumps({"metadata": {}, "result": doc}))
    m = Macros()
    paper_macros(m, tmp_path, bench)
    text = "\n".join(m.lines)
    assert m.warnings == [] and MISSING not in text
    assert r"\newif\ifCfrScale\CfrScaletrue" in text
    assert r"\newcommand{\CfrScaleMediumThreeSpeedupLo}{1.50}" in text      # min(0.2/0.1, 0.3/0.2)
    assert r"\newcommand{\CfrScalePresetSpeedupHi}{45}" in text
    assert r"\newcommand{\CfrLargeIterations}{4}" in text
    assert r"\CfrLargeGame}{\texttt{micro3 (micro3+pass" in text     # named by its preset
    assert r"\newcommand{\CfrScaleNextGiB}{90}" in text                      # 1e9 * 97 / 2**30
    empty = Macros()
    paper_macros(empty, tmp_path, tmp_path / "nothing")
    lines = "\n".join(empty.lines)
    assert r"\newif\ifCfrScale  %" in lines and MISSING not in lines
    assert empty.warnings == [] and r"\newcommand{\CfrLargeNashConv}{--}" in lines
    assert len(re.findall(r"\\newcommand", lines)) == len(re.findall(r"\\newcommand", text))


def test_next_size_is_the_game_with_one_more_card_passed():
    """``micro`` with one card passed has the rules of ``micro_pass`` (10,910
    histories): the estimate is within 4 standard errors of it, seeded, and its
    memory is histories x bytes per history."""
    from experiments.bench.cfr_large import next_size
    nxt = next_size("micro", 2000, 0, 100.0)
    assert nxt["game"] == "micro+pass_count=1" and nxt["probes"] == 2000
    assert abs(nxt["histories"] - 10910) < 4 * nxt["histories_se"], nxt
    assert nxt["gib"] == nxt["histories"] * 100.0 / 2**30
    assert next_size("micro", 2000, 0, 100.0)["histories"] == nxt["histories"]
    assert next_size("micro+pass_count=1", 50, 0, 1.0)["game"] == "micro+pass_count=2"
    assert next_size("micro", 0, 0, 1.0) is None
    assert next_size("leduc_poker", 50, 0, 1.0) is None       # not one of our presets
    with pytest.raises(ValueError, match="next_probes"):
        LargeSolveConfig(next_probes=1)
