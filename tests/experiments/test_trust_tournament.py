"""Trust in tournaments: a damaged results folder (the runner's shards) is
reported file by file and repaired without losing a record, record files of
earlier versions are read with every check and converted, a bad agent spec
leaves ``--out`` untouched, a hanging agent is stopped by the move time limit,
and SIGINT or SIGTERM stops every worker process and leaves a folder that
resumes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings, strategies as st

from conftest import shell_signals
import experiments.tournament as T
from experiments.tournament import (TournamentConfig, TournamentError, run_tournament)

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}
CFG = TournamentConfig(agents=("random", "heuristic"), game=SMALL, deals=5, seed=3)


def _tree(folder: Path) -> dict:
    """Every file under ``folder`` with its bytes (None if the folder does not exist)."""
    if not folder.exists():
        return None
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _core(summary):
    return {k: v for k, v in summary.items() if k != "timing"}


# ---------------------------------------------------------------- a plug-in agent that sleeps
PLUGIN = '''
import os, time
import pyspiel


class Sleepy(pyspiel.Bot):
    """Plays the first legal action after sleeping ``delay`` seconds; writes the time
    it started each move to ``mark`` (when given)."""

    def __init__(self, delay, mark):
        pyspiel.Bot.__init__(self)
        self.delay, self.mark = delay, mark

    def step(self, state):
        if self.mark:
            with open(self.mark, "a") as f:
                f.write(f"{time.time()}\\n")
        time.sleep(self.delay)
        return state.legal_actions()[0]

    def restart_at(self, state):
        pass


def make_sleepy(game, player, seed, delay=None, mark=""):
    """``delay``: seconds per move (default: $SLEEPY_DELAY, else for ever)."""
    if delay is None:
        delay = float(os.environ.get("SLEEPY_DELAY", 1e9))
    if delay < 0:
        raise ValueError(f"delay must be >= 0, got {delay}")
    return Sleepy(delay, mark)
'''


@pytest.fixture(scope="module")
def plugin_dir():
    """A package ``sleepy_agents`` declaring the agent ``sleepy`` through the
    ``cancellation_hearts.agents`` entry point (found on ``sys.path``/``PYTHONPATH``)."""
    d = Path(tempfile.mkdtemp(prefix="sleepy_plugin_"))
    (d / "sleepy_agents.py").write_text(PLUGIN)
    info = d / "sleepy_agents-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sleepy-agents\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[cancellation_hearts.agents]\nsleepy = sleepy_agents:make_sleepy\n")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def sleepy(plugin_dir, monkeypatch):
    from solvers._catalog import refresh
    monkeypatch.syspath_prepend(str(plugin_dir))     # spawned workers inherit sys.path
    refresh()               # a plug-in installed into a running process: read them again
    yield plugin_dir
    monkeypatch.undo()
    refresh()


def _env(plugin_dir: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(plugin_dir), str(ROOT)] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(p.name))
    return out


def _alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its new parent, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# ---------------------------------------------------------------- the results folder
@pytest.fixture(scope="module")
def clean():
    """An undamaged run (timings frozen at 0 so records compare whole)."""
    d = Path(tempfile.mkdtemp(prefix="clean_tournament_"))
    with pytest.MonkeyPatch.context() as mp:
        _freeze_clock(mp)
        res = run_tournament(CFG, d, progress=False)
    yield types.SimpleNamespace(tree=_tree(d), records=res.records, summary=res.summary)
    shutil.rmtree(d, ignore_errors=True)


def _freeze_clock(mp):
    """``time.perf_counter`` and ``time.thread_time`` as seen by the tournament's play module
    return 0: every record's ``seconds`` and CPU time are 0 and a recomputed deal equals
    the original."""
    fake = types.SimpleNamespace(perf_counter=lambda: 0.0, thread_time=lambda: 0.0,
                                 monotonic=time.monotonic,
                                 sleep=time.sleep, time=time.time)
    mp.setattr(T._play, "time", fake)


def _restore(folder: Path, tree: dict) -> None:
    for name, data in tree.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


# One damage to one file of the folder (a shard or shards.sha256), applied to its bytes.
_damage = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 2**20), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 2**20)),
    st.tuples(st.just("number"), st.integers(0, 40), st.integers(0, 999)),
    st.tuples(st.just("delete line"), st.integers(0, 10)),
)


def _apply(data: bytes, dmg) -> bytes:
    kind = dmg[0]
    if not data:
        return data
    if kind == "flip":
        i = dmg[1] % len(data)
        return data[:i] + bytes([data[i] ^ dmg[2]]) + data[i + 1:]
    if kind == "truncate":
        return data[:dmg[1] % len(data)]
    if kind == "number":                        # an edited number: 11 -> 99
        nums = list(re.finditer(rb"\d+", data))
        if not nums:
            return data
        m = nums[dmg[1] % len(nums)]
        return data[:m.start()] + str(dmg[2]).encode() + data[m.end():]
    lines = data.split(b"\n")
    del lines[dmg[1] % len(lines)]
    return b"\n".join(lines)


@settings(max_examples=30, deadline=None, derandomize=True, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 5), dmg=_damage)
def test_a_damaged_results_folder_is_reported_and_repaired_without_losing_a_record(
        clean, which, dmg):
    """A damaged shard or shard-hash file (``which``: shard 0..4, or 5: shards.sha256)
    stops the tournament before it plays, naming the file, with nothing changed;
    ``repair=True`` moves the damaged file to corrupt/ and replays its deal: the
    results equal the undamaged run's."""
    name = "shards.sha256" if which == 5 else f"shards/unit-{which:06d}.json"
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        _freeze_clock(mp)
        out = Path(tmp)
        _restore(out, clean.tree)
        data = _apply(clean.tree[name], dmg)
        (out / name).write_bytes(data)
        before = _tree(out)
        refused = None
        try:
            res = run_tournament(CFG, out, progress=False)
        except TournamentError as e:
            refused = str(e)
        event("refused, then repaired" if refused else "read as it is")
        if refused is not None:
            assert str(out / "shards") in refused or str(out / name) in refused, refused
            assert "recompute_corrupt=True" in refused
            assert {k: v for k, v in _tree(out).items() if k != ".runner.lock"} == \
                {k: v for k, v in before.items() if k != ".runner.lock"}
            res = run_tournament(CFG, out, progress=False, repair=True)
            assert list((out / "corrupt").iterdir()) or name == "shards.sha256"
        else:       # only a torn last line of shards.sha256 (its shard replayed) is read
            assert data == clean.tree[name] or name == "shards.sha256", dmg
        assert res.records == clean.records
        assert _core(res.summary) == _core(clean.summary)
        again = run_tournament(CFG, out, progress=False)
        assert again.records == clean.records


def test_an_edited_number_is_detected_named_and_repaired(tmp_path, clean):
    _restore(tmp_path, clean.tree)
    shard = tmp_path / "shards" / "unit-000003.json"
    doc = json.loads(shard.read_text())
    doc["rows"][0]["points"] += 88
    shard.write_text(json.dumps(doc, indent=1))
    with pytest.raises(TournamentError) as e:
        run_tournament(CFG, tmp_path, progress=False)
    msg = str(e.value)
    assert f"{shard}: content hash mismatch" in msg and "Nothing was changed" in msg
    res = run_tournament(CFG, tmp_path, progress=False, repair=True)
    assert [r["points"] for r in res.records] == [r["points"] for r in clean.records]
    assert _core(res.summary) == _core(clean.summary)
    (moved,) = (tmp_path / "corrupt").iterdir()
    assert json.loads(moved.read_text())["rows"][0]["points"] == doc["rows"][0]["points"]


def test_a_kill_between_the_hash_and_the_shard_resumes_with_a_note(tmp_path, clean, capsys):
    """The runner records a shard's hash before writing it: a kill in between leaves
    a torn last line or a hash without its shard; the rerun replays that deal."""
    _restore(tmp_path, clean.tree)
    (tmp_path / "shards" / "unit-000004.json").unlink()
    j = tmp_path / "shards.sha256"
    j.write_bytes(j.read_bytes()[:-20])                  # torn last line
    res = run_tournament(CFG, tmp_path, progress=False)
    assert [r["points"] for r in res.records] == [r["points"] for r in clean.records]
    err = capsys.readouterr().err
    assert "incomplete last line" in err and "4 of 5 units reused (same code)" in err


def test_a_longer_tournament_reuses_the_saved_deals_and_another_is_refused(tmp_path):
    out = tmp_path / "t"
    short = run_tournament(TournamentConfig(**{**CFG.__dict__, "deals": 2}), out,
                           progress=False)
    longer = run_tournament(CFG, out, progress=False)
    assert longer.records[:2] == short.records      # timings too: the same saved deals
    fresh = run_tournament(CFG, None, progress=False)
    assert [r["points"] for r in longer.records] == [r["points"] for r in fresh.records]
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["units_run_this_session"] == 3
    with pytest.raises(TournamentError, match="another configuration"):
        run_tournament(TournamentConfig(**{**CFG.__dict__, "seed": 4}), out, progress=False)


def test_a_second_process_cannot_write_the_same_folder(tmp_path):
    import fcntl
    lock = tmp_path / ".runner.lock"
    lock.touch()
    with open(lock) as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        with pytest.raises(TournamentError, match="another run is writing"):
            run_tournament(CFG, tmp_path, progress=False)
    assert not (tmp_path / "shards").exists()


# ---------------------------------------------------------------- earlier record files
def test_record_files_of_earlier_versions_are_read_checked_and_converted(tmp_path, clean):
    from _legacy_deals import header, line, write
    old = tmp_path / "old"
    path = write(old, CFG, clean.records)
    assert T.read_records(old, CFG) == clean.records
    res = T.convert_deals(old, tmp_path / "new")
    assert res.records == clean.records and _core(res.summary) == _core(clean.summary)
    assert {"rows.csv", "agents.csv", "pairs.csv", "summary.txt", "metadata.json"} <= \
        {p.name for p in (tmp_path / "new").iterdir()}
    with pytest.raises(TournamentError, match="exists"):
        T.convert_deals(old, tmp_path / "new")
    with pytest.raises(TournamentError, match="record file of an earlier version"):
        run_tournament(CFG, old, progress=False)      # never silently replayed beside it
    # an edited number, a record of another tournament and a wrong shape are named
    lines = path.read_text().splitlines()
    rec = dict(clean.records[0], points=clean.records[0]["points"][:2])
    edited = json.loads(lines[2])
    edited["points"][0][0] += 1
    other = TournamentConfig(**{**CFG.__dict__, "seed": 4})
    path.write_text("\n".join([lines[0], line(clean.records[0], other), line(rec, CFG),
                               json.dumps(edited)] + lines[3:]) + "\n")
    with pytest.raises(TournamentError) as e:
        T.read_records(old, CFG)
    msg = str(e.value)
    assert "line 2: deal 0: checksum mismatch" in msg
    assert "line 3: deal 0: points must be 3 rows of 3 finite numbers" in msg
    assert "line 4: deal 1: checksum mismatch" in msg and "convert_deals" in msg
    with pytest.raises(TournamentError, match="checksum mismatch"):
        T.convert_deals(old, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
    # a torn last line is refused by the read-only loader (nothing is repaired there)
    path.write_text("\n".join([lines[0]] + lines[1:]) + "\n" + lines[-1][:30])
    with pytest.raises(TournamentError, match="incomplete"):
        T.read_records(old, CFG)
    # files written before checksums: structural checks only
    objs = [header(CFG)] + [json.loads(x) for x in lines[1:]]
    legacy = [{"fingerprint": objs[0]["fingerprint"], "config": objs[0]["config"]}] + [
        {k: v for k, v in o.items() if k != "sha256"} for o in objs[1:]]
    path.write_text("".join(json.dumps(o) + "\n" for o in legacy))
    assert T.read_records(old, CFG) == clean.records


# ---------------------------------------------------------------- validated before writing
BAD_SPECS = [
    ("ismctss", r"unknown agent 'ismctss' \(did you mean 'ismcts'\?\)"),
    ("ismcts(iteratons=3)", r"no parameter 'iteratons' \(did you mean 'iterations'\?\)"),
    ("ismcts(rollout='nope')", r"rollout='nope' is not allowed"),
    ("pimc(worlds=", r"is not valid"),
    ("heuristic(os.system('x'))", r"positional argument"),
    ("ismcts(iterations=__import__('os'))", r"must be a Python literal"),
]


@pytest.mark.parametrize("spec,why", BAD_SPECS)
def test_a_bad_spec_leaves_out_untouched_and_the_corrected_rerun_works(tmp_path, spec, why):
    fresh = tmp_path / "fresh"
    cfg = TournamentConfig(agents=("random", spec), game=SMALL, deals=1)
    with pytest.raises(TournamentError, match=why):
        run_tournament(cfg, fresh, progress=False)
    assert not fresh.exists()
    # a folder that already holds a tournament is not touched either
    used = tmp_path / "used"
    run_tournament(TournamentConfig(**{**CFG.__dict__, "deals": 1}), used, progress=False)
    before = _tree(used)
    with pytest.raises(TournamentError, match=why):
        run_tournament(TournamentConfig(**{**CFG.__dict__, "agents": ("random", spec)}), used,
                       progress=False)
    assert _tree(used) == before
    ok = run_tournament(TournamentConfig(agents=("random", "heuristic"), game=SMALL, deals=1),
                        fresh, progress=False)
    assert ok.summary["deals"] == 1


@settings(max_examples=25, deadline=None, derandomize=True)
@given(key=st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
       value=st.one_of(st.integers(-5, 5), st.text(max_size=4), st.booleans()))
def test_unknown_keywords_and_bad_values_are_refused_before_anything_is_written(key, value):
    spec = f"ismcts({key}={value!r})"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        try:
            T.check_agents(("random", spec), SMALL)
        except TournamentError:
            with pytest.raises(TournamentError):
                run_tournament(TournamentConfig(agents=("random", spec), game=SMALL, deals=1),
                               out, progress=False)
            assert not out.exists()
        else:                       # a valid spec (e.g. iterations=3): the agent builds
            assert key in {"iterations", "time_limit", "uct_c", "final_policy", "rollout",
                           "determinization", "max_nodes"}


def test_bad_settings_are_refused_with_what_is_allowed(tmp_path):
    for kw, why in [({"deals": 2.5}, "deals must be an integer"),
                    ({"workers": 0}, "workers must be >= 1"),
                    ({"move_time_limit": 0}, "move_time_limit must be a number of seconds > 0"),
                    ({"move_time_limit": "1"}, "move_time_limit must be"),
                    ({"rotations": True}, "rotations must be an integer")]:
        with pytest.raises(TournamentError, match=why):
            TournamentConfig(**{**CFG.__dict__, **kw})
    for kw, why in [({"game": {"players": 2}}, "bad game parameters"),
                    ({"lineup": (0, 0, 0)}, "leaves out agents")]:
        with pytest.raises(TournamentError, match=why):
            run_tournament(TournamentConfig(**{**CFG.__dict__, **kw}), tmp_path / "o",
                           progress=False)
        assert not (tmp_path / "o").exists()


def test_the_command_line_prints_one_error_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "o"
    rc = T.main(["--agents", "random", "heuristc", "--game", json.dumps(SMALL), "--deals", "1",
                 "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("error: tournament: bad agent spec")
    assert "Traceback" not in err
    assert "did you mean 'heuristic'" in err and not out.exists()


def test_the_ladder_checks_every_rung_before_writing(tmp_path, capsys):
    from experiments import runner
    from experiments.__main__ import main as cli
    from experiments._base.config import ConfigError
    with pytest.raises(ConfigError, match="unknown agent 'pimcc'"):
        runner.run("ladder", overrides={"rungs": ("random", "heuristic", "pimcc")},
                   out=tmp_path / "l", progress=False, verbose=False)
    assert not (tmp_path / "l").exists()
    rc = cli(["run", "ladder", "--set", "sweep_rollout=nope", "--out", str(tmp_path / "m"),
              "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "rollout='nope' is not allowed" in err and "Traceback" not in err
    assert not (tmp_path / "m").exists()


# ---------------------------------------------------------------- the move time limit
def test_a_hanging_agent_is_stopped_by_the_move_time_limit(sleepy, tmp_path):
    mark = tmp_path / "moves"
    limit = 1.5
    spec = f"sleepy(mark={str(mark)!r})"                  # sleeps for ever
    cfg = TournamentConfig(agents=("random", spec), game=SMALL, deals=3, workers=2,
                           move_time_limit=limit)
    with pytest.raises(TournamentError) as e:
        run_tournament(cfg, tmp_path / "o", progress=False)
    stopped = time.time()
    first = min(float(x) for x in mark.read_text().split())
    assert limit <= stopped - first <= limit + 3.0, stopped - first
    msg = str(e.value)
    assert re.search(rf"agent {re.escape(repr(spec))} on seat \d did not return from step\(\) "
                     rf"\(its move\) within the move time limit of 1.5 s \(deal [0-2], seat "
                     rf"assignment \d\)", msg), msg
    alive = [p for p in _children(os.getpid()) if _alive(p) and b"multiprocessing.spawn" in
             Path(f"/proc/{p}/cmdline").read_bytes()]
    assert alive == []
    assert not list((tmp_path / "o" / "shards").glob("unit-*.json"))   # no deal finished


def test_a_hanging_agent_stops_the_ladder_with_a_clear_error(sleepy, tmp_path):
    """The ladder's units play their deals in a watched worker process when
    ``move_time_limit`` is set: a hanging rung stops the run, naming the step,
    the deals, the agent and the limit; no shard of that unit is written."""
    from experiments import runner
    from experiments._base.registry import get
    mark = tmp_path / "moves"
    spec = f"sleepy(mark={str(mark)!r})"                  # sleeps for ever
    ov = {"rungs": ("random", spec), "deals": 2, "deals_per_unit": 2, "sweep": (),
          "move_time_limit": 1.5}
    t0 = time.time()
    with pytest.raises(runner.RunError) as e:
        runner.run("ladder", overrides=ov, out=tmp_path / "o", workers=1, progress=False,
                   verbose=False)
    first = min(float(x) for x in mark.read_text().split())
    assert t0 < first and time.time() - first <= 1.5 + 5.0     # stopped soon after the limit
    msg = str(e.value)
    assert re.fullmatch(rf"ladder step n6_step0 \(random vs {re.escape(spec)}, 6 players\), "
                        rf"deals 0\.\.1: agent {re.escape(repr(spec))} on seat \d did not "
                        rf"return from step\(\) \(its move\) within the move time limit of "
                        rf"1\.5 s \(deal [01], seat assignment \d\); the tournament was "
                        rf"stopped", msg), msg
    folder = tmp_path / "o" / runner.resolve("ladder", overrides=ov)[2]
    assert not list((folder / "shards").glob("unit-*.json"))
    assert len(get("ladder").units(get("ladder").config("quick", ov))) == 1


def test_the_command_line_time_limit_names_the_agent(sleepy, tmp_path):
    mark = tmp_path / "moves"
    t0 = time.time()
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "--agents", "heuristic",
         f"sleepy(mark={str(mark)!r})", "--game", json.dumps(SMALL), "--deals", "2",
         "--move-time-limit", "1", "--out", str(tmp_path / "o"), "--no-progress"],
        cwd=ROOT, env=_env(sleepy), capture_output=True, text=True, timeout=120)
    end = time.time()
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert re.fullmatch(r"error: tournament \(heuristic vs sleepy\(mark='.*'\), 3 players\), "
                        r"deals 0\.\.1: agent \"sleepy\(mark='.*'\)\" on seat \d did not "
                        r"return from step\(\) \(its move\) within the move time limit of 1 s "
                        r"\(deal 0, seat assignment \d\); the tournament was stopped\n",
                        proc.stderr), \
        proc.stderr
    first = min(float(x) for x in mark.read_text().split())
    assert t0 < first and end - first <= 1 + 5.0       # the exit follows the limit closely


def test_a_slow_agent_within_the_limit_gives_the_in_process_results(sleepy, tmp_path):
    cfg = TournamentConfig(agents=("random", "sleepy(delay=0.001)"), game=SMALL, deals=3,
                           seed=5)
    ref = run_tournament(cfg, None, progress=False)
    lim = run_tournament(TournamentConfig(**{**cfg.__dict__, "move_time_limit": 20.0}),
                         tmp_path / "o", progress=False)
    strip = [{k: v for k, v in r.items() if k != "timing"} for r in ref.records]
    assert [{k: v for k, v in r.items() if k != "timing"} for r in lim.records] == strip


# ---------------------------------------------------------------- SIGINT / SIGTERM
@pytest.mark.parametrize("how", ["SIGINT to the process group (Ctrl-C)", "SIGTERM"])
def test_a_signal_stops_every_worker_and_the_rerun_resumes(sleepy, tmp_path, how):
    """The command line (the runner experiment ``tournament``, two worker processes)
    stopped by a signal: one line, exit 128 + the signal, no worker left; the same
    command (here with one worker) plays only the deals of the units not saved."""
    out = tmp_path / "o"
    deals, per_unit = 24, 2
    args = ["--agents", "random", "sleepy", "--game", json.dumps(SMALL),
            "--deals", str(deals), "--seed", "2", "--deals-per-unit", str(per_unit),
            "--out", str(out), "--no-progress"]
    env = dict(_env(sleepy), SLEEPY_DELAY="0.02")      # 0.02 s per move: about 0.3 s a deal
    proc = subprocess.Popen([sys.executable, "-m", "experiments.tournament", *args,
                             "--workers", "2"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=shell_signals)
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        if len(list(out.glob("tournament@*/shards/unit-*.json"))) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-3000:]
    workers = [p for p in _children(proc.pid) if _alive(p)]
    assert len([p for p in workers if b"multiprocessing.spawn"
                in Path(f"/proc/{p}/cmdline").read_bytes()]) == 2
    t0 = time.time()
    if how == "SIGTERM":
        os.kill(proc.pid, signal.SIGTERM)
        signum = signal.SIGTERM
    else:
        os.killpg(proc.pid, signal.SIGINT)              # what a terminal's Ctrl-C does
        signum = signal.SIGINT
    _, err = proc.communicate(timeout=30)
    took = time.time() - t0
    assert took < 5, took
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    (run_dir,) = out.glob("tournament@*")
    units = deals // per_unit
    m = re.fullmatch(rf"interrupted \({signal.Signals(signum).name}\); (\d+) of {units} units "
                     rf"done in {re.escape(str(run_dir))}; rerun the same command to "
                     rf"resume\n", err)
    assert m, err
    time.sleep(1.0)
    assert [p for p in workers if _alive(p)] == []
    shards = sorted((run_dir / "shards").glob("unit-*.json"))
    assert 2 <= len(shards) == int(m.group(1)) < units
    saved = {r["deal"] for f in shards for r in json.loads(f.read_text())["rows"]}
    # the rerun plays only the deals that are not saved (without the delay: the same moves)
    played = []
    real = T.play_deal

    def counting(config, deal, *a, **k):
        played.append(deal)
        return real(config, deal, *a, **k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SLEEPY_DELAY", "0")
        mp.setattr(T._play, "play_deal", counting)
        assert T.main([*args, "--workers", "1"]) == 0
    assert sorted(played) == sorted(set(range(deals)) - saved)
    cfg = TournamentConfig(agents=("random", "sleepy"), game=SMALL, deals=deals, seed=2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SLEEPY_DELAY", "0")
        fresh = run_tournament(cfg, None, progress=False)
    resumed = T.deal_records(pd.read_csv(run_dir / "rows.csv"))
    assert ([{k: v for k, v in r.items() if k != "timing"} for r in resumed]
            == [{k: v for k, v in r.items() if k != "timing"} for r in fresh.records])


class _StopAfter:
    """A factory whose agents send this process SIGINT (as Ctrl-C would) at the
    ``n``-th move overall: the in-process path (workers=1, no time limit). (A
    ``KeyboardInterrupt`` an agent raises itself is that agent's failure, not a
    stop: tests/experiments/test_one_line_errors.py.)"""

    def __init__(self, n):
        self.moves, self.n = 0, n

    def __call__(self, game, player, seed):
        import pyspiel
        outer = self

        class Bot(pyspiel.Bot):
            def __init__(self):
                pyspiel.Bot.__init__(self)

            def step(self, state):
                outer.moves += 1
                if outer.moves == outer.n:
                    os.kill(os.getpid(), signal.SIGINT)
                return state.legal_actions()[0]

            def restart_at(self, state):
                pass

        return Bot()


def test_ctrl_c_in_process_saves_whole_lines_and_says_so(tmp_path, clean):
    cfg = TournamentConfig(agents=("random", "stop"), game=SMALL, deals=5, seed=3)
    with pytest.raises(T.TournamentInterrupted) as e:
        run_tournament(cfg, tmp_path, factories={"stop": _StopAfter(12)}, progress=False)
    saved = len(list((tmp_path / "shards").glob("unit-*.json")))
    assert 1 <= saved < 5 and e.value.signum == signal.SIGINT
    assert str(e.value) == (f"tournament stopped by SIGINT: {saved} of 5 deals are saved in "
                            f"{tmp_path}; rerun the same command to resume")
    res = run_tournament(cfg, tmp_path, factories={"stop": _StopAfter(-1)}, progress=False)
    assert res.summary["deals"] == 5
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["units_run_this_session"] == 5 - saved
