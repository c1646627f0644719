"""PIMC with every belief model (solvers._pimc.PIMCBot(belief=...), the interface ISMCTS takes)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers.beliefs import HeuristicBelief, LocationBelief, NetworkBelief, RandomBelief
from solvers.beliefs import _location as LOC
from solvers._base.bots import AgentParameterError
from solvers.net._features import FeatureLayout
from solvers._pimc import PIMCBot
from solvers._registry import AgentSpecError, make_agent
from spiel_game import _engine as E

K = E.K
PLAYERS = 6


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game(spiel_game.GAME_NAME, {"players": PLAYERS})


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """A small policy network and a card-location model (its correction 0: the
    prior) covering the 6-player game."""
    from solvers.net._model import PolicyValueNet, save_checkpoint
    where = tmp_path_factory.mktemp("ck")
    layout = FeatureLayout(players=(PLAYERS,))
    net = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=8,
                         blocks=1, seed=3)
    net_path = save_checkpoint(where / "net.npz", net, layout)
    rows, hidden = layout.max_players - 1, 4
    params = {"embed": np.zeros((layout.size, hidden)), "b0": np.zeros(hidden),
              "wp": np.zeros((hidden, rows * K)), "w1": np.zeros((hidden, hidden)),
              "b1": np.zeros(hidden), "wo": np.zeros((rows * K, hidden)),
              "bo": np.zeros(rows * K)}
    loc = LOC.LocationModel(params, layout, {"prior_worlds": 64, "hidden": hidden})
    loc_path = LOC.save_location(where / "loc.npz", loc, {}, [])
    return str(net_path), str(loc_path)


def _models(checkpoints):
    net, loc = checkpoints
    return {"uniform": None,
            "random": RandomBelief(worlds=4),
            "heuristic": HeuristicBelief(worlds=4, epsilon=0.2),
            "heuristic-pool": HeuristicBelief(pool=12, min_ess=3, mcmc=1, persist=True),
            "network": NetworkBelief(worlds=3, checkpoint=net),
            "network-pool": NetworkBelief(pool=8, checkpoint=net),
            "location": LocationBelief(pool=16, checkpoint=loc)}


def _play(game, belief, seed=4):
    """One hand: PIMC with ``belief`` at seat 0, the heuristic elsewhere. Returns
    the actions played and the statistics of seat 0's decisions."""
    bots = [PIMCBot(game, 0, seed, worlds=3, rollouts=1, belief=belief)]
    bots += [make_agent("heuristic", game, q, seed=q) for q in range(1, PLAYERS)]
    gen = np.random.default_rng(seed)
    st = game.new_initial_state()
    actions, stats = [], []
    while not st.is_terminal():
        if st.is_chance_node():
            o, p = zip(*st.chance_outcomes())
            st.apply_action(int(o[gen.choice(len(o), p=np.asarray(p) / sum(p))]))
            continue
        cur = st.current_player()
        a = bots[cur].step(st)
        assert a in st.legal_actions()
        if cur == 0:
            stats.append((int(st.engine_state[E.S_PHASE]), dict(bots[0].last_search)))
        actions.append(int(a))
        st.apply_action(a)
    return actions, stats


@pytest.mark.parametrize("name", ["uniform", "random", "heuristic", "heuristic-pool", "network",
                                  "network-pool", "location"])
def test_pimc_plays_a_hand_with_every_belief_model_and_repeats_with_its_seed(
        game, checkpoints, name):
    belief = _models(checkpoints)[name]
    actions, stats = _play(game, belief)
    again, _ = _play(game, belief)
    assert actions == again
    searched = [s for ph, s in stats if ph in (E.PH_PLAY, E.PH_MOON) and "playouts" in s]
    assert searched, "seat 0 searched no play decision"
    pooled = [s for s in searched if "belief_pool_ess" in s]
    weighed = [s for s in searched if "belief_mean_ess" in s]
    if belief is None:
        assert not pooled and not weighed
    elif belief.pool:
        # Every searched play draws its worlds from a root-level pool of the model.
        assert len(pooled) == len(searched) and not weighed
        assert all(1.0 - 1e-9 <= s["belief_pool_ess"] <= s["belief_pool_kept"] + 1e-9
                   for s in pooled)
    else:
        # Every searched play weighs its worlds' candidates (SIR), none from a pool.
        assert len(weighed) == len(searched) and not pooled
        assert all(1.0 - 1e-9 <= s["belief_mean_ess"] <= belief.worlds + 1e-9
                   for s in weighed)


def test_a_model_and_the_spec_belief_value_give_the_same_pimc(game, checkpoints):
    spec = "pimc(worlds=3, rollouts=1, belief='heuristic(pool=12, mcmc=1)')"
    st = game.new_initial_state()
    gen = np.random.default_rng(1)
    while st.is_chance_node() or st.engine_state[E.S_PHASE] != E.PH_PLAY:
        if st.is_chance_node():
            o, p = zip(*st.chance_outcomes())
            st.apply_action(int(o[gen.choice(len(o), p=np.asarray(p) / sum(p))]))
        else:
            st.apply_action(st.legal_actions()[0])
    me = st.current_player()
    by_spec = make_agent(spec, game, me, seed=7).action_values(st)
    by_model = PIMCBot(game, me, 7, worlds=3, rollouts=1,
                       belief=HeuristicBelief(pool=12, mcmc=1)).action_values(st)
    np.testing.assert_array_equal(by_spec[0], by_model[0])
    np.testing.assert_array_equal(by_spec[1], by_model[1])


def test_pimc_takes_a_model_and_refuses_the_former_flat_keywords(game):
    with pytest.raises(TypeError, match="belief_pool"):
        PIMCBot(game, 0, belief=HeuristicBelief(), belief_pool=4)
    for bad in (3, "heuristics"):
        with pytest.raises(AgentParameterError, match=f"belief={bad!r} is not allowed"):
            PIMCBot(game, 0, belief=bad)
    assert PIMCBot(game, 0, belief="random(pool=4)").belief == RandomBelief(pool=4)
    with pytest.raises(AgentSpecError, match=r"did you mean belief='heuristic\(pool=4\)'"):
        make_agent("pimc(belief='heuristic', belief_pool=4)", game, 0)
