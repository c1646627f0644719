"""The experiment runner: closed typed configs, deterministic units, loss-free resume
after SIGKILL, identical rows whatever the split, the worker count or the backend."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import IN_CI, ROOT

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import _runner_experiment  # noqa: E402,F401  (registers runner_selftest)
from experiments import runner  # noqa: E402
from experiments.studies import demo, rules_stats  # noqa: E402
from experiments.__main__ import main as cli  # noqa: E402
from experiments._base.config import ConfigError, load_toml, make_config, parse_assignments  # noqa: E402
from experiments._base.registry import get, unit_seed  # noqa: E402

SELFTEST_ENV = {**os.environ, "CH_EXPERIMENT_MODULES": "_runner_experiment",
                "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]
                                              + os.environ.get("PYTHONPATH", "").split(os.pathsep))}
SMALL_STATS = {"hands": 400, "chunk": 200}


def files(run_dir: Path, names=("rows.csv", "summary.csv", "seats.csv", "summary.txt")):
    return {n: (run_dir / n).read_bytes() for n in names if (run_dir / n).exists()}


# ------------------------------------------------------------------ configs
def test_unknown_config_key_is_rejected_with_the_allowed_keys():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['hand'\].*allowed: "
                                          r"hands, seed, policy, chunk"):
        make_config(rules_stats.RulesStatsConfig, None, {"hand": 3})
    with pytest.raises(ConfigError, match="allowed"):
        runner.run("rules_stats", overrides={"bogus": 1}, out="/nonexistent")


def test_cli_strings_are_converted_to_the_field_types():
    @dataclasses.dataclass(frozen=True)
    class C:
        seed: int = 0
        players: tuple[int, ...] = (6,)
        rate: float = 0.5
        flag: bool = False
        cap: int | None = None
        name: str = "x"

    cfg = make_config(C, None, parse_assignments(
        ["players=5,7", "rate=2", "flag=true", "cap=none", "name=a=b", "seed=1_000"]))
    assert cfg == C(seed=1000, players=(5, 7), rate=2.0, flag=True, cap=None, name="a=b")
    assert make_config(C, None, {"players": "[8, 9]", "cap": "3"}).players == (8, 9)
    assert make_config(C, None, {"players": [4], "cap": 3}).cap == 3
    for bad in ({"players": "a,b"}, {"flag": "maybe"}, {"seed": 1.5}, {"name": 3}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            make_config(C, None, bad)


def test_config_validation_and_toml(tmp_path):
    with pytest.raises(ConfigError, match="policy 'greedy' is not one of"):
        make_config(rules_stats.RulesStatsConfig, None, {"policy": "greedy"})
    f = tmp_path / "c.toml"
    f.write_text('hands = 600\npolicy = "heuristic"\n')
    cfg = get("rules_stats").config("quick", load_toml(f))
    assert (cfg.hands, cfg.policy, cfg.chunk) == (600, "heuristic", 5000)
    f.write_text("[rules_stats]\nhands = 600\n")
    with pytest.raises(ConfigError, match="top-level keys"):
        load_toml(f)


def test_show_prints_a_toml_config_that_loads_back(tmp_path, capsys):
    assert cli(["show", "demo", "--profile", "paper"]) == 0
    f = tmp_path / "demo.toml"
    f.write_text(capsys.readouterr().out)
    exp = get("demo")
    assert exp.config("quick", load_toml(f)) == exp.config("paper") == demo.PROFILES["paper"]


def test_list_names_the_registered_experiments(capsys):
    assert cli(["list"]) == 0
    out = capsys.readouterr().out
    assert "rules_stats" in out and "demo" in out and "units in quick" in out


def test_unit_seeds_derive_from_config_seed_and_index():
    exp = get("runner_selftest")
    a = exp.units(exp.config("quick"))
    b = exp.units(exp.config("quick"))
    c = exp.units(exp.config("quick", {"seed": 8}))
    assert [u.seed for u in a] == [u.seed for u in b] == [unit_seed(7, i) for i in range(40)]
    assert len({u.seed for u in a} | {u.seed for u in c}) == 80
    assert a[3].rng().integers(10**9) == b[3].rng().integers(10**9)


# ------------------------------------------------------------------ determinism
def test_rules_stats_numbers_do_not_depend_on_split_or_workers(tmp_path):
    one = runner.run("rules_stats", overrides={"hands": 400, "chunk": 400}, out=tmp_path / "a",
                     workers=1, progress=False, verbose=False)
    split = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "b",
                       workers=1, progress=False, verbose=False)
    pool = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "c",
                      workers=2, progress=False, verbose=False)
    assert len(split.rows) > len(one.rows)
    for t in ("summary", "seats"):
        pd.testing.assert_frame_equal(one.tables[t], split.tables[t], check_exact=True)
    assert files(split.path) == files(pool.path)       # byte for byte, rows included
    # Same numbers as one simulator call on the configuration's stream (sums vs
    # two-pass mean and Student t interval of experiments._base.stats).
    from experiments._base.stats import mean_ci
    from spiel_game._simulator import simulate
    i, (name, params) = 3, rules_stats.configurations()[3]
    res = simulate(params, 400, "uniform", seed=20261129 + i)
    s = one.tables["summary"].iloc[i]
    assert s.configuration == name
    assert s.void_tricks_per_hand == res.stat("void_tricks").mean()
    seats = one.tables["seats"]
    seats = seats[seats.configuration == name]
    for q, (_, row) in enumerate(seats.iterrows()):
        ci = mean_ci(res.points[:, q])
        assert row.mean_points == pytest.approx(ci["mean"], abs=1e-12)
        assert row.ci95 == pytest.approx(ci["hi"] - ci["mean"], rel=1e-9)
    meta = json.loads((split.path / "metadata.json").read_text())
    assert meta["config"] == {"hands": 400, "seed": 20261129, "policy": "uniform", "chunk": 200}
    for key in ("seed", "versions", "git_commit", "started", "finished", "machine"):
        assert key in meta
    assert meta["versions"]["numpy"] == np.__version__


def test_demo_rows_do_not_depend_on_split_or_the_global_rng(tmp_path):
    a = runner.run("demo", overrides={"hands": 5, "chunk": 5, "players": "5"},
                   out=tmp_path / "a", workers=1, progress=False, verbose=False)
    np.random.seed(12345)
    _ = np.random.random(100)
    b = runner.run("demo", overrides={"hands": 5, "chunk": 2, "players": "5"},
                   out=tmp_path / "b", workers=1, progress=False, verbose=False)
    assert len(a.rows) == 5 * 5
    assert files(a.path) == files(b.path)
    assert sorted(a.tables) == ["seats", "summary"]
    assert a.tables["summary"].mean_points_per_hand.iloc[0] == a.rows.points.sum() / 5


# ------------------------------------------------------------------ resume
def test_resume_recomputes_only_missing_shards(tmp_path):
    ref = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path, workers=1,
                     progress=False, verbose=False)
    before = files(ref.path)
    shards = sorted((ref.path / "shards").glob("unit-*.json"))
    for s in shards[::3]:
        s.unlink()
    (ref.path / "rows.csv").unlink()
    again = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path, workers=1,
                       progress=False, verbose=False)
    assert again.metadata["units_run_this_session"] == len(shards[::3])
    assert files(again.path) == before
    assert again.metadata["sessions"] == 2
    # each session that computed units records the commit it ran at
    from experiments._base.metadata import git_commit
    assert again.metadata["session_commits"] == [git_commit(), git_commit()]
    manifest = json.loads((again.path / "run.json").read_text())
    assert [x["units_to_run"] for x in manifest["sessions"]] == [len(shards),
                                                                 len(shards[::3])]


def test_attachments_and_the_run_root_reach_worker_processes(tmp_path, monkeypatch):
    """Units may return attachments beside their rows (kept in the shard, read back
    in unit order, the rows unchanged); worker processes see the run's results
    folder as run_root(), which is unset again after the run."""
    monkeypatch.delenv("CH_RUN_ROOT", raising=False)
    ov = {"units": 4, "sleep": 0.0}
    plain = runner.run("runner_selftest", overrides=ov, out=tmp_path / "a", workers=1,
                       progress=False, verbose=False)
    assert runner.attachments(plain, "pid") == []
    monkeypatch.setenv("CH_SELFTEST_ATTACH", "1")
    res = runner.run("runner_selftest", overrides=ov, out=tmp_path / "b", workers=2,
                     progress=False, verbose=False)
    pd.testing.assert_frame_equal(res.rows, plain.rows)
    roots = runner.attachments(res, "run_root")
    assert [i for i, _ in roots] == [0, 1, 2, 3]
    assert {r for _, r in roots} == {str((tmp_path / "b").resolve())}
    assert os.getpid() not in {p for _, p in runner.attachments(res, "pid")}
    assert "CH_RUN_ROOT" not in os.environ and runner.run_root() == runner.results_root()
    loaded = runner.load(res.path.name, out=tmp_path / "b")
    assert runner.attachments(loaded, "run_root") == roots


def test_a_changed_profile_is_refused_in_its_folder_unless_fresh(tmp_path, monkeypatch):
    """Other configurations get their own folders; the profile's folder refuses
    results of a profile that changed in the code since (--fresh deletes them)."""
    exp = get("runner_selftest")
    monkeypatch.setitem(exp.profiles, "quick", {"sleep": 0})
    first = runner.run("runner_selftest", out=tmp_path, workers=1, progress=False,
                       verbose=False)
    assert first.path == tmp_path / "runner_selftest"
    other = runner.run("runner_selftest", overrides={"units": 41}, out=tmp_path, workers=1,
                       progress=False, verbose=False)
    assert other.path.name.startswith("runner_selftest@") and other.rows.block.nunique() == 41
    monkeypatch.setitem(exp.profiles, "quick", {"sleep": 0, "units": 41})
    with pytest.raises(runner.RunError, match=r"'units': \(40, 41\).*--fresh"):
        runner.run("runner_selftest", out=tmp_path, workers=1, progress=False, verbose=False)
    res = runner.run("runner_selftest", out=tmp_path, workers=1, progress=False,
                     verbose=False, fresh=True)
    assert res.path == first.path and res.rows.block.nunique() == 41
    monkeypatch.setitem(exp.profiles, "quick", {"sleep": 0})
    again = runner.load("runner_selftest", out=tmp_path, overrides={"units": 41})
    assert again.path == other.path                 # --fresh left the other folder alone
    pd.testing.assert_frame_equal(again.rows, other.rows)


def test_a_failing_unit_stops_the_run_and_keeps_finished_shards(tmp_path, monkeypatch):
    monkeypatch.setenv("CH_SELFTEST_FAIL_UNIT", "6")
    with pytest.raises(RuntimeError, match="unit 6 fails on purpose"):
        runner.run("runner_selftest", overrides={"sleep": 0}, out=tmp_path, workers=1,
                   progress=False, verbose=False)
    folder = tmp_path / runner.resolve("runner_selftest", overrides={"sleep": 0})[2]
    assert len(list((folder / "shards").glob("unit-*.json"))) == 6
    assert not (folder / "rows.csv").exists()
    monkeypatch.delenv("CH_SELFTEST_FAIL_UNIT")
    res = runner.run("runner_selftest", overrides={"sleep": 0}, out=tmp_path, workers=1,
                     progress=False, verbose=False)
    assert res.metadata["units_run_this_session"] == 34


def test_one_run_per_results_folder_at_a_time(tmp_path):
    folder = runner.resolve("runner_selftest", overrides={"sleep": 0})[2]
    with runner._folders._exclusive(tmp_path / folder):
        with pytest.raises(runner.RunError, match="another run is writing"):
            runner.run("runner_selftest", overrides={"sleep": 0}, out=tmp_path, workers=1,
                       progress=False, verbose=False)
    runner.run("runner_selftest", overrides={"sleep": 0}, out=tmp_path, workers=1,
               progress=False, verbose=False)


def _kill_when(out: Path, workers: int, *, shards: int | None = None, delay: float = 0.0):
    """Start the self-test run in a subprocess; SIGKILL it once ``shards`` shards
    exist (or after ``delay`` seconds). Returns the shard count at the kill."""
    cmd = [sys.executable, "-m", "experiments", "run", "runner_selftest", "--out", str(out),
           "--workers", str(workers), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=SELFTEST_ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    folder = out / "runner_selftest" / "shards"
    deadline = time.monotonic() + 120
    try:
        t0 = time.monotonic()
        while time.monotonic() < deadline and proc.poll() is None:
            n = len(list(folder.glob("unit-*.json"))) if folder.exists() else 0
            late = time.monotonic() - t0 >= delay
            if (shards is not None and n >= shards) or (shards is None and late):
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)        # the run itself, mid-write or not
    except ProcessLookupError:
        pass
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # and its orphaned pool workers
        except ProcessLookupError:
            pass
        proc.wait()
    return len(list(folder.glob("unit-*.json"))) if folder.exists() else 0


def test_sigkill_at_any_moment_then_restart_gives_the_uninterrupted_rows(tmp_path):
    ref = runner.run("runner_selftest", out=tmp_path / "ref", workers=1, progress=False,
                     verbose=False)
    out = tmp_path / "killed"
    counts = [
        _kill_when(out, 1, delay=0.0),           # before anything is written
        _kill_when(out, 1, shards=3),
        _kill_when(out, 2, shards=12),           # a process pool
        _kill_when(out, 1, shards=21),
        _kill_when(out, 2, shards=30),
    ]
    assert counts == sorted(counts) and counts[-2] < 40, counts   # runs were cut short
    for f in (out / "runner_selftest" / "shards").glob("unit-*.json"):
        json.loads(f.read_text())                # no corrupt shard
    done = subprocess.run([sys.executable, "-m", "experiments", "run", "runner_selftest",
                           "--out", str(out), "--workers", "2", "--no-progress"],
                          cwd=ROOT, env=SELFTEST_ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert files(out / "runner_selftest") == files(ref.path)
    assert not list((out / "runner_selftest").rglob(".*.tmp"))
    assert json.loads((out / "runner_selftest" / "metadata.json").read_text())["sessions"] >= 2


# ------------------------------------------------------------------ Ray
def _ray_importable() -> bool:
    return importlib.util.find_spec("ray") is not None


@pytest.mark.skipif(not _ray_importable() and not IN_CI,
                    reason="ray is not installed (pip install -e '.[distributed]'); "
                           "under CI=true this test runs and fails instead")
def test_ray_backend_gives_the_local_rows(tmp_path):
    import ray

    local = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "local",
                       workers=1, progress=False, verbose=False)
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        remote = runner.run("rules_stats", overrides=SMALL_STATS, out=tmp_path / "ray",
                            backend="ray", workers=2, progress=False, verbose=False)
        assert ray.is_initialized()              # the runner leaves the caller's instance
        hosts = {json.loads(p.read_text())["host"]
                 for p in (remote.path / "shards").glob("unit-*.json")}
        assert hosts
    finally:
        ray.shutdown()
    assert files(remote.path) == files(local.path)
    assert remote.metadata["backend"] == "ray"


def test_step_timer_prints_each_step_with_its_wall_and_cpu_seconds(capsys):
    from experiments._reproduce import StepTimer
    timer = StepTimer()
    with timer.step("busy"):
        t = time.process_time()
        while time.process_time() - t < 0.2:
            pass
    with timer.step("child"):
        subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\n"
                        "while time.process_time() - t < 0.2: pass"], check=True)
    with timer.step("idle"):
        time.sleep(0.2)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ... ")[0] for line in lines] == ["=== busy", "=== child", "=== idle"]
    steps = {name: (wall, cpu) for name, wall, cpu in timer.steps}
    assert steps["busy"][1] >= 0.2            # this process's CPU time
    assert steps["child"][1] >= 0.2           # a waited-for child's CPU time counts
    assert steps["idle"][0] >= 0.2 and steps["idle"][1] < 0.1
    report = timer.report().splitlines()
    assert report[-1].startswith("total") and {r.split()[0] for r in report[1:-1]} == set(steps)


def test_side_by_side_runs_commands_at_once_and_prints_each_output_in_one_block(capsys):
    from experiments._reproduce import StepTimer, side_by_side
    burn = ("import sys, time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.2: pass\n"
            "for i in range(3): print(sys.argv[1], i, flush=True); time.sleep(0.05)\n"
            "sys.exit(int(sys.argv[2]))")
    timer = StepTimer()
    cmds = [(name, [sys.executable, "-c", burn, name, rc])
            for name, rc in (("a", "0"), ("b", "3"), ("c", "0"))]
    assert side_by_side(cmds, 2, timer) == ["b"]
    captured = capsys.readouterr()
    lines = [x for x in captured.out.splitlines() if not x.endswith("(started)")]
    for name in "abc":                    # each command's lines together, then its time
        i = lines.index(f"{name} 0")
        assert lines[i:i + 3] == [f"{name} 0", f"{name} 1", f"{name} 2"]
        assert lines[i + 3].startswith(f"=== {name} ... ")
    assert "b failed (exit status 3)" in captured.err
    assert {n: c >= 0.2 for n, _, c in timer.steps} == {"a": True, "b": True, "c": True}
