"""research/scripts/oracle_worlds.py: ISMCTS on the true (or perturbed true) world."""

from __future__ import annotations

import json

import numpy as np
import pytest

import spiel_game
from experiments.bench.inference import heuristic_state
from oracle_worlds import OracleISMCTS, main, perturb, world_accuracy
from solvers._base.bots import AgentParameterError
from spiel_game import _engine as E
from spiel_game._hidden import hidden_cards
from spiel_game._rng import make_rng_state


def test_perturbed_worlds_keep_what_the_observer_knows_and_lose_accuracy():
    """Swaps keep every hand's size and suit counts, never give a seat a card
    type it provably lacks nor move a card the observer knows a seat holds;
    accuracy is 1 for the truth and falls as swaps grow (the test has power)."""
    game = spiel_game.load({"players": 6})
    st = heuristic_state(game, 2, 45)
    P, truth, me = np.asarray(game.engine_params), np.array(st.engine_state), st.current_player()
    hc = hidden_cards(P, truth, me)
    assert hc.forbid.any() and hc.forced.any()                # constraints to respect
    assert world_accuracy(P, truth, truth, me) == 1.0
    rng = make_rng_state(5, 0)
    acc = []
    for swaps in (2, 8, 40):
        worlds = []
        for _ in range(20):
            w = truth.copy()
            assert perturb(P, w, hc.seats, hc.forbid, hc.forced, rng, swaps) == swaps
            worlds.append(w)
            for i, q in enumerate(hc.seats):
                h = E.hand(P, w, q)
                assert h.sum() == E.hand(P, truth, q).sum() and (h >= 0).all()
                assert not (h[hc.forbid[i]] > 0).any()
                assert (h >= hc.forced[i]).all()
                suits = [int(sum(h[c] for c in range(len(h)) if E.SUIT_OF[c] == u))
                         for u in range(4)]
                assert suits == list(E.suit_counts(P, w, q))
            assert np.array_equal(E.hand(P, w, me), E.hand(P, truth, me))
        acc.append(np.mean([world_accuracy(P, w, truth, me) for w in worlds]))
    assert 1.0 > acc[0] > acc[1] > acc[2], acc


def test_the_oracle_searches_the_true_world_and_rejects_belief_parameters():
    game = spiel_game.load({"players": 6})
    st = heuristic_state(game, 4, 20)
    me = st.current_player()
    bot = OracleISMCTS(game, me, 1, iterations=200, rollout="heuristic", opponents="policy")
    pool = bot._world_pool(st, np.asarray(game.engine_params), np.array(st.engine_state),
                           None, None)
    assert pool.m == 1 and np.array_equal(pool.pool[0], st.engine_state)
    assert bot.step(st) in st.legal_actions() and bot.last_search["belief_pool_kept"] == 1
    noisy = OracleISMCTS(game, me, 1, iterations=200, rollout="heuristic", noise=6, worlds=8)
    assert noisy.step(st) in st.legal_actions() and noisy.last_search["belief_pool_kept"] == 8
    assert len(noisy.accuracy) == 1 and 0.0 < noisy.accuracy[0] < 1.0
    with pytest.raises(AgentParameterError, match="belief_pool is not allowed"):
        OracleISMCTS(game, me, 1, belief_pool=4)
    with pytest.raises(AgentParameterError, match="noise=-1"):
        OracleISMCTS(game, me, 1, noise=-1)


def test_main_plays_a_pairable_tournament(tmp_path, capsys):
    args = ["--agents", "heuristic", "ismcts_oracle(iterations=30, rollout='heuristic')",
            "--lineup", "1", "0", "0", "0", "0", "--game", json.dumps({"players": 5}),
            "--deals", "1", "--seed", "2", "--no-progress", "--out", str(tmp_path)]
    assert main(args) == 0
    assert "the true world" in capsys.readouterr().out
    (folder,) = tmp_path.glob("tournament@*")
    assert (folder / "rows.csv").exists()
    assert main(args + ["--workers", "2"]) == 2
    from solvers._registry import factories
    assert "ismcts_oracle" not in factories()      # not left registered after the run


def test_the_free_posterior_source_moves_prior_worlds_without_the_truth():
    """``source='posterior'``: ``worlds`` MH chains from the prior, built before
    the clock; they are not the truth, and more steps put more cards in the
    right hands than the prior does (on average over a few states)."""
    game = spiel_game.load({"players": 6})
    gain = []
    for seed in (1, 2, 3):
        st = heuristic_state(game, seed, 40)
        me = st.current_player()
        acc = {}
        for steps in (0, 300):
            bot = OracleISMCTS(game, me, 1, iterations=50, rollout="heuristic",
                               source="posterior", worlds=24, steps=steps)
            assert bot.step(st) in st.legal_actions()
            assert bot.last_search["belief_pool_kept"] == 24 and len(bot.accuracy) == 1
            acc[steps] = bot.accuracy[0]
        assert acc[300] < 1.0
        gain.append(acc[300] - acc[0])
    assert np.mean(gain) > 0.02, gain
    with pytest.raises(AgentParameterError, match="source='x'"):
        OracleISMCTS(game, 0, 1, source="x")
