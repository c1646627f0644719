"""The duplicate-deal tournament as a registered runner experiment (``tournament``)
and its command line ``python -m experiments.tournament``: the same
records and statistics as :func:`experiments.tournament.run_tournament` on the
same configuration, whatever the split into units or the number of workers; a
bad agent spec or game parameter refused before anything is written."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from experiments import runner
from experiments._base.config import ConfigError
from experiments._base.registry import get
from experiments.tournament import (TournamentConfig, deal_records, deal_rows, main,
                                    run_tournament)

ROOT = Path(__file__).resolve().parents[2]


def _strip(records):
    """The deterministic part of deal records (timings vary from run to run)."""
    return [{k: v for k, v in r.items() if k != "timing"} for r in records]


def _check_tables(res, ref):
    """The runner's tables hold the tournament's own statistics."""
    s = ref.summary
    agents, pairs = res.tables["agents"], res.tables["pairs"]
    assert list(agents["spec"]) == list(ref.config.agents)
    for row, a in zip(agents.to_dict("records"), s["agents"]):
        for col, key in (("points_per_hand", "points_per_hand"), ("payoff", "zero_sum_payoff")):
            assert row[col] == pytest.approx(a[key]["mean"], abs=1e-12)
        assert row["payoff_lo"] == pytest.approx(a["zero_sum_payoff"]["lo"], abs=1e-12)
        assert row["payoff_hi"] == pytest.approx(a["zero_sum_payoff"]["hi"], abs=1e-12)
        assert row["deals"] == s["deals"] and row["seat_assignments"] == len(s["assignments"])
    assert len(pairs) == len(s["pairs"])
    for row, p in zip(pairs.to_dict("records"), s["pairs"]):
        d = p["payoff_difference"]
        assert (row["a_spec"], row["b_spec"]) == (p["a"], p["b"])
        assert row["payoff_difference"] == pytest.approx(d["mean"], abs=1e-12)
        assert row["payoff_p_value"] == pytest.approx(d["p_value"], rel=1e-9)
    assert res.text.splitlines()[0] == ref.table().splitlines()[0]


def test_the_quick_profile_is_a_seconds_long_tool_run():
    exp = get("tournament")
    cfg = exp.config("quick")
    assert not exp.reproduce
    assert cfg.agents == ("random", "heuristic") and cfg.players == 6 and cfg.deals == 4
    assert [u.params for u in exp.units(cfg)] == [{"first_deal": 0, "deals": 4}]


def test_same_records_and_gains_as_run_tournament(tmp_path):
    ov = {"agents": ("random", "heuristic", "pimc(worlds=2)"), "players": 5,
          "game": ("max_hands=2",), "deals": 5, "seed": 11, "deals_per_unit": 2}
    res = runner.run("tournament", overrides=ov, out=tmp_path, workers=1, progress=False,
                     verbose=False)
    assert len(get("tournament").units(res.config)) == 3
    ref = run_tournament(TournamentConfig(agents=ov["agents"],
                                          game={"players": 5, "max_hands": 2}, deals=5,
                                          seed=11), None, progress=False)
    assert _strip(deal_records(res.rows)) == _strip(ref.records)
    _check_tables(res, ref)
    # the saved rows alone give the same records (rows.csv read back)
    saved = pd.read_csv(res.path / "rows.csv")
    assert _strip(deal_records(saved)) == _strip(ref.records)
    assert set(saved["kind"]) == {"seat", "agent"}
    assert (saved["spec"] == saved["agent"].map(dict(enumerate(ov["agents"])))).all()
    # another split gives the same rows (but for the thinking seconds)
    other = runner.run("tournament", overrides={**ov, "deals_per_unit": 5}, out=tmp_path,
                       workers=1, progress=False, verbose=False)
    cols = [c for c in res.rows.columns if c not in ("seconds", "cpu_seconds")]
    assert other.rows[cols].equals(res.rows[cols])
    assert other.path != res.path


def test_rows_and_records_are_inverse():
    cfg = TournamentConfig(agents=("random", "heuristic"), game={"players": 5, "max_hands": 1},
                           deals=2, seed=4)
    recs = run_tournament(cfg, None, progress=False).records
    rows = deal_rows(recs, step="x")
    assert all(r["step"] == "x" for r in rows)
    assert deal_records(rows) == recs
    assert deal_records(list(reversed(rows))) == recs
    with pytest.raises(ValueError, match="deal 1"):
        deal_records([r for r in rows if not (r["deal"] == 1 and r["seat"] == 2)])


@pytest.mark.parametrize("ov, why", [
    ({"agents": ("random", "heuristc")}, r"tournament: bad agent spec.*did you mean 'heuristic'"),
    ({"game": ("packs=x",)}, "game parameter packs is an integer"),
    ({"game": ("deck=nonsense",)}, "bad game parameters"),
    ({"game": ("players=5",)}, "players field"),
    ({"lineup": (0, 0, 0, 0, 0, 0)}, "leaves out agents"),
    ({"agents": ("random", "pimc(worlds=-1)")}, "bad agent spec"),
])
def test_a_bad_configuration_is_refused_with_nothing_written(tmp_path, ov, why):
    with pytest.raises(ConfigError, match=why):
        runner.run("tournament", overrides=ov, out=tmp_path / "o", workers=1, progress=False,
                   verbose=False)
    assert not (tmp_path / "o").exists()


def test_the_command_line_runs_the_registered_study_end_to_end(tmp_path):
    """Two deals, one per unit, on two worker processes; then the same command again
    (everything saved: nothing is played) in this process."""
    out = tmp_path / "t"
    args = ["--agents", "random", "heuristic", "--game", '{"players": 5, "max_hands": 2}',
            "--deals", "2", "--seed", "3", "--deals-per-unit", "1", "--out", str(out),
            "--no-progress"]
    proc = subprocess.run([sys.executable, "-m", "experiments.tournament", *args,
                           "--workers", "2"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = out.glob("tournament@*")
    # the agents' parameters (defaults included), then the results
    assert proc.stdout.startswith("agents (every parameter, defaults included):\n"
                                  "  random: random\n  heuristic: heuristic\n")
    assert "\n2 deals x 5 seat assignments\n" in proc.stdout
    assert proc.stdout.rstrip().endswith(f"written to {run_dir}")
    assert "| random vs heuristic |" in proc.stdout
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["experiment"] == "tournament" and meta["units"] == 2 and meta["workers"] == 2
    assert meta["config"]["game"] == ["max_hands=2"] and meta["config"]["players"] == 5
    ref = run_tournament(TournamentConfig(agents=("random", "heuristic"),
                                          game={"players": 5, "max_hands": 2}, deals=2, seed=3),
                         None, progress=False)
    assert _strip(deal_records(pd.read_csv(run_dir / "rows.csv"))) == _strip(ref.records)
    agents = pd.read_csv(run_dir / "agents.csv")
    assert list(agents["payoff"]) == pytest.approx(
        [a["zero_sum_payoff"]["mean"] for a in ref.summary["agents"]], abs=1e-12)
    assert math.isclose(pd.read_csv(run_dir / "pairs.csv")["payoff_p_value"][0],
                        ref.summary["pairs"][0]["payoff_difference"]["p_value"], rel_tol=1e-9)
    assert main([*args, "--workers", "1"]) == 0
    again = json.loads((run_dir / "metadata.json").read_text())
    assert again["units_run_this_session"] == 0


def test_game_records_are_kept_with_the_units_and_written_by_the_command_line(tmp_path,
                                                                             capsys):
    """Every deal and seat assignment of a run has its game record (a runner
    attachment: the run's folder and rows do not change); they replay to the
    saved points, the command line writes them with --records, and a damaged
    shard is named instead of being read."""
    from spiel_game.records import read_records, replay
    from experiments.studies.tournament import game_records
    out, dest = tmp_path / "t", tmp_path / "games.jsonl"
    args = ["--agents", "random", "heuristic", "--game", '{"players": 5, "max_hands": 1}',
            "--deals", "3", "--seed", "2", "--deals-per-unit", "2", "--out", str(out),
            "--no-progress"]
    assert main([*args, "--records", str(dest)]) == 0
    assert "15 game records written to" in capsys.readouterr().out
    (run_dir,) = out.glob("tournament@*")
    res = runner.load(run_dir.name, out=out)
    games, missing = game_records(res)
    assert missing == []
    assert [(g.info["deal"], g.info["assignment"]) for g in games] == \
        [(d, a) for d in range(3) for a in range(5)]
    saved = read_records(dest)
    assert saved == games
    recs = deal_records(res.rows)
    for g in games:
        st = replay(g)
        assert list(st.returns()) == list(g.returns)
        rec = recs[g.info["deal"]]     # points are penalties: returns are their negatives
        assert [-r for r in g.returns] == pytest.approx(rec["points"][g.info["assignment"]])
        assert g.info["lineup"] == rec["assignments"][g.info["assignment"]]
        assert g.agents == [("random", "heuristic")[a] for a in g.info["lineup"]]
    # the same command without --records: same folder, nothing played again
    assert main(args) == 0
    assert json.loads((run_dir / "metadata.json").read_text())["units_run_this_session"] == 0
    # a shard edited after the run is named, not read
    shard = run_dir / "shards" / "unit-000001.json"
    shard.write_bytes(shard.read_bytes().replace(b'"games"', b'"gamez"'))
    with pytest.raises(runner.CorruptResultError, match="unit-000001"):
        runner.attachments(res, "games")
    assert main([*args, "--records", str(dest)]) == 1


def test_the_command_line_refuses_bad_flags(tmp_path, capsys):
    out = tmp_path / "o"
    for game in ("[6]", '{"players": 6, "packs": 1.5}', "nope"):
        with pytest.raises(SystemExit) as e:
            main(["--agents", "random", "--game", game, "--out", str(out)])
        assert e.value.code == 2
    assert main(["--agents", "random", "heuristic", "--deals", "0", "--out", str(out),
                 "--no-progress"]) == 1
    assert "deals must be >= 1" in capsys.readouterr().err
    assert not out.exists()


def test_a_signal_during_an_in_process_unit_is_the_runners_interruption(tmp_path):
    """With one worker the units run in the command's own process: SIGTERM during a
    deal stops the run with the runner's line (units saved, how to resume), exit
    128 + SIGTERM, and the same command finishes it."""
    out = tmp_path / "t"
    args = ["--agents", "heuristic", "ismcts(iterations=400)", "--game", '{"players": 5}',
            "--deals", "4", "--deals-per-unit", "1", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "experiments.tournament", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if list(out.glob("tournament@*/shards/unit-*.json")):
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-3000:]
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    (run_dir,) = out.glob("tournament@*")
    done = len(list((run_dir / "shards").glob("unit-*.json")))
    assert re.fullmatch(rf"interrupted \(SIGTERM\); {done} of 4 units done in "
                        rf"{re.escape(str(run_dir))}; rerun the same command to resume\n", err)
    assert main(args) == 0
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["units_run_this_session"] == 4 - done
