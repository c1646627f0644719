"""CPU time per decision in tournaments (experiments.tournament): each agent's
CPU seconds around its moves (its thread's time, plus the xinxin driver's
process time), the ``cpu_ms_per_decision`` column, and pinning to cores.

A bot that burns CPU shows CPU time equal to its busy time and a bot that
sleeps shows almost none (while both take the same wall time). The xinxin
tests skip only when the driver is absent (like tests/solvers/test_xinxin.py).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyspiel
import pytest

import spiel_game
from experiments import tournament as T
from solvers import xinxin as X

BUSY_S = 0.004          # seconds each test bot spends per decision


class _TimedBot(pyspiel.Bot):
    """Plays its first legal action after spending BUSY_S seconds: of CPU time
    (``busy``: a spin until its thread time has advanced that much) or asleep."""

    def __init__(self, busy: bool):
        pyspiel.Bot.__init__(self)
        self.busy = busy

    def step(self, state):
        if self.busy:
            end = time.thread_time() + BUSY_S
            while time.thread_time() < end:
                pass
        else:
            time.sleep(BUSY_S)
        return state.legal_actions()[0]

    def restart(self):
        pass

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass


def busy(game, player, seed):
    return _TimedBot(True)


def sleepy(game, player, seed):
    return _TimedBot(False)


CFG = T.TournamentConfig(agents=("busy", "sleepy"), game={"players": 5, "max_hands": 1},
                         deals=2, seed=5)
FACTORIES = {"busy": busy, "sleepy": sleepy}


@pytest.fixture(scope="module")
def records():
    game = spiel_game.load(CFG.game_params)
    return [T.play_deal(CFG, d, game, FACTORIES) for d in range(CFG.deals)]


def test_busy_bot_cpu_equals_its_busy_time_sleeping_bot_near_zero(records):
    s = T.summarize(CFG, records)
    busy_t, sleepy_t = s["timing"]
    assert busy_t["decisions"] > 10 and sleepy_t["decisions"] > 10
    # the busy bot: CPU per decision is its busy time (plus little overhead), and its wall
    # time is at least that
    assert BUSY_S * 1e3 <= busy_t["cpu_ms_per_decision"] < BUSY_S * 1e3 + 1.5
    assert busy_t["ms_per_decision"] >= busy_t["cpu_ms_per_decision"] - 0.05
    # the sleeping bot: its wall time is the sleep, its CPU time almost nothing
    assert sleepy_t["ms_per_decision"] >= BUSY_S * 1e3
    assert sleepy_t["cpu_ms_per_decision"] < 0.25 * BUSY_S * 1e3


def test_cpu_column_in_tables_rows_and_text(records):
    s = T.summarize(CFG, records)
    agents, _ = T.summary_tables(s)
    assert list(agents.columns) == list(T.AGENT_COLUMNS)
    assert "ms_per_decision" in agents.columns and "cpu_ms_per_decision" in agents.columns
    assert agents["cpu_ms_per_decision"].tolist() == [t["cpu_ms_per_decision"]
                                                     for t in s["timing"]]
    assert "CPU ms per decision" in T.summary_table(s)
    rows = T.deal_rows(records)
    assert all(set(r) == set(T.ROW_COLUMNS) for r in rows)
    assert T.deal_records(rows) == records


def test_records_without_cpu_seconds_give_none():
    """Older records (no CPU seconds) still summarize: wall time, no CPU time."""
    rec = {"deal": 0, "assignments": [[0, 1, 0, 1]], "points": [[1.0, 2.0, 3.0, 4.0]],
           "hands": [1], "timing": {"seconds": [0.5, 0.25], "decisions": [10, 10]}}
    cfg = T.TournamentConfig(agents=("a", "b"), game={"players": 4, "deck": "classic"}, deals=1)
    t = T.summarize(cfg, [rec])["timing"]
    assert t[0]["ms_per_decision"] == 50.0 and t[0]["cpu_ms_per_decision"] is None
    assert T.deal_records(T.deal_rows([rec])) == [rec]
    assert "| - |" in T.summary_table(T.summarize(cfg, [rec]))


def test_cpu_now_adds_an_agents_helper_process_time():
    class Helper:
        def cpu_seconds(self):
            return 100.0
    assert T.cpu_now(Helper()) - T.cpu_now(object()) == pytest.approx(100.0, abs=0.01)


def test_pin_cores_on_one_core_pins_nothing(monkeypatch, capsys):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})

    def refuse(*a):
        raise AssertionError("sched_setaffinity must not be called on one core")
    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    monkeypatch.delenv(X.CORE_ENV, raising=False)
    assert T.pin_cores() is None
    assert X.CORE_ENV not in os.environ
    assert "not pinned" in capsys.readouterr().err


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to pin")
def test_pin_cores_pins_this_process_and_names_the_drivers_core(monkeypatch):
    before = os.sched_getaffinity(0)
    monkeypatch.delenv(X.CORE_ENV, raising=False)
    try:
        ours, theirs = T.pin_cores()
        assert os.sched_getaffinity(0) == {ours} and ours != theirs
        assert os.environ[X.CORE_ENV] == str(theirs)
        os.sched_setaffinity(0, before)
        assert T.pin_cores(swap=True) == (theirs, ours)
        assert os.sched_getaffinity(0) == {theirs} and os.environ[X.CORE_ENV] == str(ours)
    finally:
        os.sched_setaffinity(0, before)


# ---------------------------------------------------------------- with xinxin
@pytest.fixture(scope="module")
def xinxin_binary():
    """The real driver (``$XINXIN_BINARY``, the user cache or ``build/xinxin`` of this
    checkout); else skip."""
    built = Path(__file__).resolve().parents[2] / "build" / "xinxin" / "xinxin_driver"
    try:
        return X.find_binary()
    except X.XinxinNotBuilt as e:
        if built.is_file():
            return X.find_binary(built)
        pytest.skip(f"xinxin is not built ({e})")


def test_xinxin_cpu_is_the_drivers_and_the_driver_is_pinned(xinxin_binary, monkeypatch):
    game = spiel_game.load({"players": 4, "deck": "classic", "packs": 1, "moon": "both",
                            "pass_count": 0})
    core = sorted(os.sched_getaffinity(0))[-1]
    monkeypatch.setenv(X.CORE_ENV, str(core))
    bot = X.XinxinBot(game, 0, 7, binary=xinxin_binary, simulations=20_000, worlds=20)
    try:
        st = game.new_initial_state()
        while st.is_chance_node():
            st.apply_action(st.chance_outcomes()[0][0])
        while st.current_player() != 0:
            st.apply_action(st.legal_actions()[0])
        assert bot.cpu_seconds() == 0.0          # no driver yet
        bot.restart()                            # starts the driver, before any move
        assert bot._driver is not None
        bot.step(st)
        c0, t0, w0 = T.cpu_now(bot), time.thread_time(), time.perf_counter()
        bot.step(st)                             # the same decision again: a search only
        cpu, ours, wall = T.cpu_now(bot) - c0, time.thread_time() - t0, time.perf_counter() - w0
        assert os.sched_getaffinity(bot._driver.pid) == {core}
        # 20,000 UCT simulations take the driver well over 50 ms of CPU (in threads that
        # have exited when it replies); this thread only waits for its reply
        assert cpu - ours > 0.05 and cpu - ours > 3 * ours
        assert cpu <= wall + 0.02
        used = bot.cpu_seconds()
        bot.close()
        assert bot.cpu_seconds() >= used > 0            # kept after the driver stopped
    finally:
        bot.close()


def test_xinxin_bad_core_is_a_clear_error(xinxin_binary, monkeypatch):
    monkeypatch.setenv(X.CORE_ENV, "4096")
    with pytest.raises(X.XinxinError, match="could not pin the driver to core"):
        X.DriverProcess(xinxin_binary)


def test_tournament_records_xinxin_cpu(xinxin_binary):
    cfg = T.TournamentConfig(agents=("random", "xinxin(simulations=3000, worlds=20)"),
                             game={"players": 4, "deck": "classic", "packs": 1,
                                   "moon": "both", "pass_count": 0}, deals=1, seed=3)
    s = T.summarize(cfg, [T.play_deal(cfg, 0)])
    rnd, xx = s["timing"]
    assert xx["cpu_ms_per_decision"] > 1.0 > rnd["cpu_ms_per_decision"]
    assert xx["cpu_ms_per_decision"] <= xx["ms_per_decision"] + 1.0
