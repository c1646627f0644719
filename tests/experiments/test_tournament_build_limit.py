"""The per-move time limit covers building the agents and importing their modules.

With ``move_time_limit``, the agents are first built once in a child process
(:func:`experiments.tournament.check_agents`): a factory that sleeps, or a
bot file whose import sleeps, is stopped after the limit with a one-line
:class:`TournamentError` naming the agent, the child is killed, and nothing is
written; the command line prints that line and exits 1. Agents built within
the limit play as before.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from experiments.tournament import TournamentConfig, TournamentError, check_agents, \
    run_tournament

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}

BOT = textwrap.dedent('''
    import time
    from solvers._base.bots import Agent

    SLEEP_ON_IMPORT = {import_sleep}
    if SLEEP_ON_IMPORT:
        time.sleep(SLEEP_ON_IMPORT)


    class First(Agent):
        def _policy_and_action(self, state):
            a = state.legal_actions()[0]
            return [(a, 1.0)], a


    def make(game, player, seed, *, sleep=0.0):
        time.sleep(sleep)
        return First(game, player, seed)
''')


def _bot(folder: Path, name: str, import_sleep: float = 0) -> Path:
    p = folder / name
    p.write_text(BOT.format(import_sleep=import_sleep))
    return p


def _no_children_left():
    kids = multiprocessing.active_children()
    assert kids == [], kids


@pytest.mark.parametrize("what", ["factory", "import"])
def test_a_slow_build_is_stopped_naming_the_agent(tmp_path, what):
    if what == "factory":
        spec = f"{_bot(tmp_path, 'slow_factory.py')}:make(sleep=1000.0)"
    else:
        spec = f"{_bot(tmp_path, 'slow_import.py', import_sleep=1000)}:make"
    cfg = TournamentConfig(agents=("random", spec), game=SMALL, deals=2, move_time_limit=1.0)
    out = tmp_path / "out"
    t0 = time.monotonic()
    with pytest.raises(TournamentError) as e:
        run_tournament(cfg, out, progress=False)
    took = time.monotonic() - t0
    msg = str(e.value)
    assert msg == (f"agent {spec!r} (seat 1) was not built within the move time limit of 1 s "
                   f"(building includes importing its module); the tournament was not "
                   f"started"), msg
    assert took < 60, took                       # start-up of the child plus the limit
    assert not out.exists()
    _no_children_left()


def test_a_build_within_the_limit_and_errors_are_reported_as_before(tmp_path):
    ok = f"{_bot(tmp_path, 'quick.py')}:make(sleep=0.01)"
    check_agents(("random", ok), SMALL, time_limit=20.0)
    with pytest.raises(TournamentError, match="did you mean 'heuristic'"):
        check_agents(("random", "heuristc"), SMALL, time_limit=20.0)
    bad = f"{_bot(tmp_path, 'bad.py')}:make(sleep='x')"
    with pytest.raises(TournamentError, match=r"could not be built \(seat 0\): .*TypeError"):
        check_agents((bad,), SMALL, time_limit=20.0)
    _no_children_left()


def test_the_command_line_names_the_slow_agent(tmp_path):
    spec = f"{_bot(tmp_path, 'slow_cli.py')}:make(sleep=1000.0)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "--agents", "random", spec,
         "--game", json.dumps(SMALL), "--deals", "1", "--move-time-limit", "1",
         "--out", str(tmp_path / "o"), "--no-progress"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "was not built within the move time limit " \
        "of 1 s" in proc.stderr and "slow_cli.py:make" in proc.stderr, proc.stderr
    assert not (tmp_path / "o").exists()
