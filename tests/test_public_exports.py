"""The names the notebooks need, exported by the documented packages:
``solvers.CONVENTIONS`` / ``solvers.choose_pass`` (imported lazily),
``spiel_game.Determinizer`` / ``spiel_game.make_rng_state`` /
``spiel_game.seat_hands``, ``solvers.beliefs.WeightedDeterminizer`` /
``WorldPool`` / ``world_pool``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import spiel_game
from conftest import ROOT
from spiel_game.cards import NUM_CARD_TYPES


@pytest.fixture(scope="module")
def position():
    game = spiel_game.load(players=6)
    state = spiel_game.play_random(game, np.random.default_rng(3),
                                   until=spiel_game.cards_played(30))
    return game, state, state.current_player()


def test_the_passing_conventions_are_exported_lazily():
    code = ("import sys, solvers\n"
            "assert 'solvers._base.passing' not in sys.modules, 'import solvers loaded passing'\n"
            "from solvers import CONVENTIONS, choose_pass\n"
            "from solvers._base import passing\n"
            "assert CONVENTIONS is passing.CONVENTIONS and choose_pass is passing.choose_pass\n"
            "print(len(CONVENTIONS))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["7"]


def test_choose_pass_through_solvers_passes_one_card_of_the_hand():
    from solvers import CONVENTIONS, choose_pass
    game = spiel_game.load(players=6)
    state = spiel_game.play_random(game, np.random.default_rng(0),
                                   until=lambda st: not st.is_chance_node())
    legal = set(state.legal_actions())
    for name in CONVENTIONS:
        dist = choose_pass(name, state)
        assert set(dist) == legal and abs(sum(dist.values()) - 1) < 1e-12, name
    with pytest.raises(ValueError, match="unknown passing convention 'nope'"):
        choose_pass("nope", state)


def test_seat_hands_of_the_state_and_of_a_drawn_world(position):
    game, state, me = position
    truth = spiel_game.seat_hands(state)
    assert truth.shape == (6, NUM_CARD_TYPES) and truth.dtype == np.int64
    det = spiel_game.Determinizer(state, me)
    world = det.sample(spiel_game.make_rng_state(5, 0))
    hands = spiel_game.seat_hands(state, world)
    assert np.array_equal(hands[me], truth[me])              # the observer's own hand
    assert np.array_equal(hands.sum(1), truth.sum(1))        # every seat's hand size
    assert np.array_equal(hands.sum(0), truth.sum(0))        # the same unseen cards
    shown = str(state).splitlines()[2 + me]                   # "P<me>: hand [...] ..."
    mine = shown.split("hand [")[1].split("]")[0].split()
    assert sorted(mine) == sorted(spiel_game.cards.cards_to_string(truth[me]).split())
    with pytest.raises(ValueError, match=r"seat_hands: world must be an engine state of this "
                                         r"game \(int32\[\d+\]"):
        spiel_game.seat_hands(state, world[:10])


def test_world_pool_is_the_pool_of_the_weighted_determinizer(position):
    from solvers.beliefs import WeightedDeterminizer, WorldPool, world_pool
    game, state, me = position
    wd = WeightedDeterminizer(state, me, model="heuristic", worlds=8, epsilon=0.1)
    pool = world_pool(wd, 16, spiel_game.make_rng_state(9, 1), min_ess=4)
    same = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 16, spiel_game.make_rng_state(9, 1),
                     4)
    assert isinstance(pool, WorldPool) and pool.m == same.m
    assert np.array_equal(pool.pool[:pool.m], same.pool[:same.m])
    assert np.allclose(pool.logw, same.logw) and pool.ess >= 4 - 1e-9
    truth = spiel_game.seat_hands(state)
    for w in pool.pool[:pool.m]:
        assert np.array_equal(spiel_game.seat_hands(state, w)[me], truth[me])
    moved = world_pool(wd, 8, spiel_game.make_rng_state(9, 2), mcmc=5)
    assert moved.m == 8 and 0.0 <= moved.accept <= 1.0
