"""ISMCTS's ``clock``: a ``time_limit`` in CPU seconds of the searching thread
(the clock of equal-CPU-time comparisons) or in elapsed seconds."""

from __future__ import annotations

import time

import numpy as np
import pytest

import spiel_game
from solvers._base.bots import AgentParameterError
from solvers._ismcts import CLOCKS, ISMCTSBot


def _first_decision(seed=0):
    game = spiel_game.load("classic")
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=probs)))
    return game, state


@pytest.mark.parametrize("clock", sorted(CLOCKS))
def test_the_limit_counts_the_named_clock(clock):
    game, state = _first_decision()
    bot = ISMCTSBot(game, state.current_player(), 0, time_limit=0.03, clock=clock,
                    rollout="heuristic")
    bot.step(state)                                # compile outside the measurement
    c0, w0 = time.thread_time(), time.perf_counter()
    bot.step(state)
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    assert bot.last_search["clock"] == clock
    assert bot.last_search["seconds"] >= 0.03
    spent = cpu if clock == "cpu" else wall
    assert spent >= 0.03 and bot.last_search["seconds"] <= spent + 1e-6


def test_a_cpu_limit_ignores_time_the_thread_does_not_run(monkeypatch):
    """While the searching thread is descheduled, the CPU clock stands still: a
    fake pair of clocks where elapsed time races ahead stops a wall-clock search
    after its first chunk but not a CPU-clock one."""
    game, state = _first_decision(1)
    fast_wall = iter(np.arange(0.0, 1e6, 10.0))
    monkeypatch.setitem(CLOCKS, "wall", lambda: float(next(fast_wall)))
    wall = ISMCTSBot(game, state.current_player(), 0, time_limit=0.02, clock="wall")
    cpu = ISMCTSBot(game, state.current_player(), 0, time_limit=0.02, clock="cpu")
    wall.step(state)
    cpu.step(state)
    assert wall.last_search["iterations"] == 1
    assert cpu.last_search["iterations"] > 1


def test_an_unknown_clock_is_refused_naming_the_allowed_ones():
    game, _ = _first_decision()
    with pytest.raises(AgentParameterError, match=r"clock='gpu' is not allowed; allowed: "
                                                  r"'wall', 'cpu'"):
        ISMCTSBot(game, 0, 0, clock="gpu")
