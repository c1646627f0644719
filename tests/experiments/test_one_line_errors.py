"""Bad input to the command lines ends in one line, ``error: <what is wrong>;
<what is allowed>``, a non-zero exit status and nothing lost: no traceback, and
what was on disk before is still there, byte for byte.

Each case feeds the input the way a user would (a subprocess of the command
line, a few seconds each) and checks the exit status, that stderr is one line
without a traceback, and that the files around are unchanged:

* agent code that raises (an exception, ``SystemExit``, ``KeyboardInterrupt``)
  while being built or in its calls is a failure of that agent, named; a real
  SIGINT still interrupts;
* ``reproduce --profile`` unknown, ``check --quick FILE``, ``ship --src`` missing,
  ``--workers`` below 1, an empty ``--out``, a Ray ``--address`` that cannot be
  reached or does not answer (bounded, SIGINT honoured) are refused before any
  work starts;
* a full disk or a read-only folder mid-run (the write raises ENOSPC or EROFS),
  deeply nested TOML/JSON configs and ``run.json``, ``--records`` under a
  regular file, ``spiel_game.deserialize_game_and_state("garbage")`` and the
  paper build from a missing results folder.

The play app's view of a finished game names the record file only, never the
server's path: ``tests/experiments/test_play_secrets.py``.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT, shell_signals

import spiel_game

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

BOTS = '''
import time
import pyspiel


class Raising(pyspiel.Bot):
    def __init__(self, exc):
        super().__init__()
        self.exc = exc

    def restart_at(self, state):
        pass

    def inform_action(self, state, player, action):
        pass

    def step(self, state):
        raise self.exc


def exit_on_build(game, player, seed):
    raise SystemExit(7)


def interrupt_on_build(game, player, seed):
    raise KeyboardInterrupt


def value_error_on_build(game, player, seed):
    raise ValueError("no such depth")


def exit_on_step(game, player, seed):
    return Raising(SystemExit(7))


def interrupt_on_step(game, player, seed):
    return Raising(KeyboardInterrupt())


def value_error_on_step(game, player, seed):
    return Raising(ValueError("bad thing"))


def sleepy(game, player, seed):
    time.sleep(60)
'''


def run(args, *, module="experiments", cwd=ROOT, env=None, timeout=180):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=cwd,
                          env=env or ENV, capture_output=True, text=True, timeout=timeout)


def one_line_error(done, code=None) -> str:
    """The one stderr line of a refused command (exit status non-zero, or ``code``)."""
    assert done.returncode != 0 if code is None else done.returncode == code, \
        (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (what must not change)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def bots(tmp_path) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOTS)
    return path


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """A finished quick-profile ``demo`` run: ``<root>/demo``."""
    root = tmp_path_factory.mktemp("demo")
    done = run(["run", "demo", "--out", root, "--workers", "1", "--no-progress"])
    assert done.returncode == 0, done.stderr
    return root


# ------------------------------------------------------------------ agent code
@pytest.mark.parametrize("factory, what", [
    ("exit_on_build", r"exited \(SystemExit\): 7 in building the agent"),
    ("interrupt_on_build", "raised KeyboardInterrupt itself in building the agent"),
    ("value_error_on_build", "ValueError: no such depth"),
    ("exit_on_step", r"exited \(SystemExit\): 7 in step\(\)"),
    ("interrupt_on_step", r"raised KeyboardInterrupt itself in step\(\)"),
    ("value_error_on_step", r"raised ValueError: bad thing in step\(\)"),
])
def test_agent_code_that_raises_or_exits_is_a_failure_of_that_agent_named(
        bots, tmp_path, factory, what):
    import re
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    spec = f"{bots}:{factory}"
    done = run(["--agents", "random", spec, "--deals", "1", "--out", out, "--no-progress"],
               module="experiments.tournament")
    line = one_line_error(done, 1)
    assert f"agent '{spec}'" in line and "seat 1" in line, line
    assert re.search(what, line), line
    assert f"{bots}:" in line                   # where it was raised
    assert (out / "notes.txt").read_text() == "mine"


def test_a_real_sigint_while_an_agent_is_built_still_interrupts(bots, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.tournament", "--agents", "random",
         f"{bots}:sleepy", "--deals", "1", "--out", str(tmp_path / "out"), "--no-progress"],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=shell_signals)
    try:
        time.sleep(8)                           # importing, then building the sleepy agent
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert "KeyboardInterrupt itself" not in err


# ------------------------------------------------------------------ checked up front
def test_reproduce_with_an_unknown_profile_runs_nothing(tmp_path):
    line = one_line_error(run(["reproduce", "--profile", "bogus", "--out", tmp_path / "r"]),
                          2)
    assert "--profile 'bogus'" in line and "quick" in line and "paper" in line
    assert not (tmp_path / "r").exists()


def test_check_with_a_file_as_quick_folder_starts_nothing(tmp_path):
    f = tmp_path / "results.txt"
    f.write_text("not a folder")
    line = one_line_error(run(["check", "--quick", f]), 2)
    assert "a file, not a folder" in line
    assert f.read_text() == "not a folder" and sorted(tmp_path.iterdir()) == [f]


def test_ship_from_a_missing_folder_ships_and_deletes_nothing(tmp_path):
    dst = tmp_path / "shipped"
    dst.mkdir()
    (dst / "keep.txt").write_text("shipped before")
    line = one_line_error(run(["ship", "--src", tmp_path / "nonexistent", "--dst", dst]), 2)
    assert "--src" in line and "no such folder" in line
    assert snapshot(dst) == {"keep.txt": hashlib.sha256(b"shipped before").hexdigest()}


@pytest.mark.parametrize("workers", ["0", "-1"])
def test_workers_below_one_are_refused(tmp_path, workers):
    line = one_line_error(run(["run", "demo", "--workers", workers, "--out", tmp_path]), 2)
    assert f"--workers {workers}" in line and "1 or more" in line
    assert list(tmp_path.iterdir()) == []
    line = one_line_error(run(["--agents", "random", "random", "--deals", "1", "--workers",
                               workers, "--out", tmp_path, "--no-progress"],
                              module="experiments.tournament"), 1)
    assert "1 or more" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, module", [
    (["run", "demo", "--out", ""], "experiments"),
    (["reproduce", "--out", ""], "experiments"),
    (["--agents", "random", "random", "--deals", "1", "--out", ""], "experiments.tournament"),
])
def test_an_empty_out_is_refused_and_nothing_is_written_here(tmp_path, args, module):
    line = one_line_error(run(args, module=module, cwd=tmp_path))
    assert "empty name" in line
    assert list(tmp_path.iterdir()) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_ray_address_fails_at_once(tmp_path):
    t0 = time.monotonic()
    line = one_line_error(run(["run", "demo", "--backend", "ray", "--address",
                               f"127.0.0.1:{_free_port()}", "--out", tmp_path / "r"]), 2)
    assert time.monotonic() - t0 < 30
    assert "cannot be reached" in line and "--address" in line
    assert not (tmp_path / "r").exists()


@pytest.fixture
def silent_server():
    """A TCP port that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"127.0.0.1:{s.getsockname()[1]}"


RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not RAY and not IN_CI, reason="ray is not installed (pip "
                               "install -e '.[distributed]'); under CI=true this test runs "
                               "and fails instead")


@needs_ray
def test_a_ray_address_that_does_not_answer_fails_within_the_limit(tmp_path, silent_server):
    t0 = time.monotonic()
    line = one_line_error(run(["run", "demo", "--backend", "ray", "--address", silent_server,
                               "--out", tmp_path / "r"],
                              env={**ENV, "CH_RAY_CONNECT_SECONDS": "3"}), 2)
    assert time.monotonic() - t0 < 25
    assert silent_server in line and "CH_RAY_CONNECT_SECONDS" in line
    assert not (tmp_path / "r").exists()


@needs_ray
def test_sigint_stops_the_wait_for_a_ray_address(tmp_path, silent_server):
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments", "run", "demo", "--backend", "ray", "--address",
         silent_server, "--out", str(tmp_path / "r")], cwd=ROOT, env=ENV,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=shell_signals)
    try:
        time.sleep(5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 10
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------ during a run
FAILING_DISK = '''
import errno, sys
from experiments import runner, __main__ as cli
write, shards = runner._core._atomic_write, []
def failing(path, data):
    if path.name.startswith("unit-"):
        shards.append(path)
        if len(shards) > 2:
            raise OSError(errno.{code}, "{text}", str(path))
    return write(path, data)
runner._core._atomic_write = failing
sys.exit(cli.main(sys.argv[1:]))
'''


@pytest.mark.parametrize("code, text", [("ENOSPC", "No space left on device"),
                                        ("EROFS", "Read-only file system")])
def test_a_full_disk_or_read_only_folder_mid_run_keeps_the_saved_units(tmp_path, code, text):
    assert hasattr(errno, code)
    script = tmp_path / "failing_disk.py"
    script.write_text(FAILING_DISK.format(code=code, text=text))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(script), "run", "demo", "--out", str(out),
                           "--workers", "1", "--no-progress"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=180)
    line = one_line_error(done, 2)
    assert text in line and "2 of 8 units are saved" in line and "rerun" in line
    shards = out / "demo" / "shards"
    saved = snapshot(shards)
    assert sorted(saved) == ["unit-000000.json", "unit-000001.json"]
    again = run(["run", "demo", "--out", out, "--workers", "1", "--no-progress"])
    assert again.returncode == 0, again.stderr
    assert {k: v for k, v in snapshot(shards).items() if k in saved} == saved


def test_a_deeply_nested_toml_config_is_one_line(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("seed = " + "[" * 5000 + "]" * 5000 + "\n")
    line = one_line_error(run(["run", "demo", "--config", deep, "--out", tmp_path / "r"]), 2)
    assert "nested too deeply" in line
    assert not (tmp_path / "r").exists()


def test_a_deeply_nested_json_given_as_config_is_one_short_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"seed": ' + "[" * 100000 + "]" * 100000 + "}\n")
    line = one_line_error(run(["run", "demo", "--config", deep, "--out", tmp_path / "r"]), 2)
    assert "invalid TOML" in line and len(line) < 600
    assert not (tmp_path / "r").exists()


def test_a_deeply_nested_run_json_is_named_and_left_as_it_is(demo):
    import shutil
    root = demo.parent / "deep-run-json"
    shutil.copytree(demo, root)
    (root / "demo" / "run.json").write_text('{"a": ' + "[" * 100000 + "]" * 100000 + "}")
    before = snapshot(root)
    line = one_line_error(run(["run", "demo", "--out", root, "--workers", "1",
                               "--no-progress"]), 2)
    assert "run.json: nested too deeply" in line and "--recompute-corrupt" in line
    assert snapshot(root) == before


def test_records_under_a_regular_file_is_refused_before_playing(tmp_path):
    f = tmp_path / "afile"
    f.write_text("mine")
    line = one_line_error(run(["--agents", "random", "random", "--deals", "1", "--out",
                               tmp_path / "out", "--records", f / "games.jsonl",
                               "--no-progress"], module="experiments.tournament"), 1)
    assert "--records" in line and str(f) in line
    assert f.read_text() == "mine" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["garbage", "", "[Meta]\n[Game]\nnope()\n[State]\n",
                                  "\x00" * 10])
def test_deserializing_garbage_is_one_line_without_a_cpp_source_line(text):
    with pytest.raises(spiel_game.CorruptStateError) as info:
        spiel_game.deserialize_game_and_state(text)
    msg = str(info.value)
    assert "\n" not in msg and ".cc:" not in msg and "SpielError" not in msg, msg


def test_the_paper_build_from_a_missing_folder_deletes_nothing(tmp_path):
    generated = [ROOT / "paper" / "figures", ROOT / "paper" / "tables"]
    before = [snapshot(g) for g in generated]
    done = subprocess.run([sys.executable, str(ROOT / "paper" / "tools" / "build.py"),
                           str(tmp_path / "nonexistent"), "--no-build"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)
    line = one_line_error(done)
    assert "no results folder" in line
    assert [snapshot(g) for g in generated] == before
