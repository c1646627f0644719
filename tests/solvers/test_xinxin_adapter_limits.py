"""The xinxin adapter's limits, with small Python programs standing in for the driver.

* A driver that never answers (not even its greeting, or not a command) is
  stopped after the agent's ``timeout`` with an :class:`XinxinError` saying so.
* A reply line longer than ``MAX_LINE`` (the driver writes without end) is an
  error after reading only a little more than ``MAX_LINE`` bytes.
* A driver that writes 64 MB to stderr: the adapter keeps only the last
  ``STDERR_TAIL`` bytes (memory stays small) and shows the tail in the error.
* Stopping the agent kills the driver's whole process group (a child it
  started included); a driver whose parent process is killed dies with it.
* A malformed ``move`` or ``points`` reply is an :class:`XinxinError`, not a
  raw ``ValueError``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import pytest

import spiel_game
from solvers.xinxin import (MAX_LINE, STDERR_TAIL, DriverProcess, XinxinBot, XinxinError,
                            GREETING)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "xinxin"
CLASSIC = {"players": 4, "deck": "classic", "packs": 1, "moon": "both"}


GREET = f"sys.stdout.write({GREETING!r} + '\\n'); sys.stdout.flush()\n"


def _driver(tmp_path: Path, body: str, greet: bool = False) -> list[str]:
    """A Python program standing in for the driver (greeting first if ``greet``)."""
    p = tmp_path / "driver.py"
    p.write_text("import os, sys, time, subprocess\n" + (GREET if greet else "")
                 + textwrap.dedent(body))
    return [sys.executable, str(p)]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return not _alive(pid)


def _dealt(game):
    s = game.new_initial_state()
    for c in range(52):
        s.apply_action(c)
    return s


# ------------------------------------------------------------------ timeouts
def test_a_silent_driver_is_stopped_after_the_timeout(tmp_path):
    argv = _driver(tmp_path, greet=True, body="""
        open(sys.argv[1], "w").write(str(os.getpid()))
        for line in sys.stdin:
            time.sleep(1000)                     # never answers a command
    """) + [str(tmp_path / "pid")]
    game = spiel_game.load(CLASSIC)
    bot = XinxinBot(game, 0, 0, binary=argv, timeout=1.0)
    t0 = time.monotonic()
    with pytest.raises(XinxinError, match=r"did not answer 'config .*' within 1 s \(timeout=\); "
                                          r"it was stopped"):
        bot.step(_dealt(game))
    assert time.monotonic() - t0 < 6
    assert _gone_within(int((tmp_path / "pid").read_text()), 3)


def test_a_driver_without_a_greeting_is_stopped(tmp_path):
    argv = _driver(tmp_path, "time.sleep(1000)\n")
    t0 = time.monotonic()
    with pytest.raises(XinxinError, match=r"did not answer None within 0.5 s"):
        DriverProcess(argv, timeout=0.5)
    assert time.monotonic() - t0 < 5


def test_the_timeout_is_checked_when_the_agent_is_built():
    game = spiel_game.load(CLASSIC)
    from solvers._registry import AgentSpecError, make_agent
    with pytest.raises(AgentSpecError, match="timeout=0 is out of range"):
        make_agent(f"xinxin(binary={[sys.executable]!r}, timeout=0)", game, 0, 0)


# ------------------------------------------------------------------ bounded reads
def test_an_endless_reply_line_is_refused_after_max_line_bytes(tmp_path):
    argv = _driver(tmp_path, greet=True, body="""
        for line in sys.stdin:
            chunk = b"x" * 65536
            while True:                          # a reply line without end
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
    """)
    d = DriverProcess(argv, timeout=30)
    tracemalloc.start()
    try:
        t0 = time.monotonic()
        with pytest.raises(XinxinError, match=f"reply longer than {MAX_LINE} bytes"):
            d.ask("move")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 10
    assert peak < 8 * MAX_LINE, peak
    assert _gone_within(d.pid, 3)


def test_a_flood_on_stderr_keeps_only_its_tail(tmp_path):
    argv = _driver(tmp_path, """
        block = b"e" * (1 << 20)
        for _ in range(64):                      # 64 MB of stderr
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"THE LAST WORDS")
        sys.stderr.flush()
        sys.exit(3)
    """)
    tracemalloc.start()
    try:
        with pytest.raises(XinxinError) as e:
            DriverProcess(argv, timeout=60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = str(e.value)
    assert "stopped answering" in msg and "exit code 3" in msg and "THE LAST WORDS" in msg
    assert len(msg) < 2500, len(msg)
    assert peak < 4 * (1 << 20), peak                 # not the 64 MB
    assert STDERR_TAIL <= 64 * 1024


# ------------------------------------------------------------------ no orphans
def test_close_kills_the_process_group(tmp_path):
    argv = _driver(tmp_path, greet=True, body="""
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        open(sys.argv[1], "w").write(f"{os.getpid()} {child.pid}")
        signal_ignored = __import__("signal").signal(15, __import__("signal").SIG_IGN)
        for line in sys.stdin:
            if line.strip() == "quit":
                continue                         # ignores quit: it must be killed
            sys.stdout.write("ok\\n"); sys.stdout.flush()
    """) + [str(tmp_path / "pids")]
    d = DriverProcess(argv, timeout=10)
    assert d.ask("config") == "ok"
    driver, child = map(int, (tmp_path / "pids").read_text().split())
    assert os.getpgid(child) == driver == d.pid      # one group, led by the driver
    t0 = time.monotonic()
    d.close()
    assert time.monotonic() - t0 < 5
    assert _gone_within(driver, 3) and _gone_within(child, 3)


def test_a_driver_dies_with_the_process_that_started_it(tmp_path):
    argv = _driver(tmp_path, greet=True, body="""
        for line in sys.stdin:
            time.sleep(1000)
    """)
    code = textwrap.dedent(f"""
        import os, signal, sys
        from solvers.xinxin import DriverProcess
        d = DriverProcess({argv!r}, timeout=30)
        print(d.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]
    pid = int(r.stdout.split()[0])
    assert _gone_within(pid, 5), f"driver {pid} outlived its parent"


# ------------------------------------------------------------------ malformed replies
def _transcript_with(tmp_path, change) -> list[str]:
    with open(FIXTURES / "game.jsonl", encoding="utf-8") as f:
        steps = [json.loads(line) for line in f]
    change(steps)
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    return [sys.executable, str(FIXTURES / "fake_driver.py"), str(path)]


@pytest.mark.parametrize("reply", ["move ZZ legal 2C", "move 2C legal 2C,QQ",
                                   "move 2C legal 2C,,3C"])
def test_a_malformed_move_reply_is_a_xinxin_error(tmp_path, reply):
    from test_xinxin import _recorded_game

    def change(steps):
        i = next(k for k, s in enumerate(steps) if s["command"] == "move")
        steps[i]["reply"] = reply

    with pytest.raises(XinxinError, match=r"malformed reply to 'move'"):
        _recorded_game(_transcript_with(tmp_path, change))


def test_a_malformed_points_reply_is_a_xinxin_error(tmp_path):
    from test_xinxin import _recorded_game

    def change(steps):
        steps[-1]["reply"] = "points x 3 0 0"

    with pytest.raises(XinxinError, match=r"malformed reply to 'points'"):
        _recorded_game(_transcript_with(tmp_path, change))
