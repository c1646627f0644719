"""The shipped classic-Hearts networks (``classic-4`` with the 3-card pass,
``classic-4-nopass``): checksummed, chosen by the game's rules when no
checkpoint is given, and playing legal classic hands, passes included, with
the passes decided by the network."""

import numpy as np
import pytest

import spiel_game
from spiel_game import _engine as E
from solvers.net import zoo
from solvers.net._checkpoint import read_checkpoint
from solvers._registry import AgentSpecError, make_agent

CLASSIC = {"deck": "classic", "players": 4, "packs": 1, "moon": "both"}
NOPASS = {**CLASSIC, "pass_count": 0}


@pytest.mark.parametrize("name, params", [("classic-4", CLASSIC), ("classic-4-nopass", NOPASS)])
def test_the_classic_models_are_shipped_checksummed_and_made_for_their_game(name, params):
    card = zoo.models()[name]
    assert card.players == (4,)
    assert zoo.file_sha256(card.path) == card.sha256 and card.size_bytes == card.path.stat().st_size
    assert card.training["command"] and card.training["round"] >= 1
    config, _ = read_checkpoint(zoo.model_path(name))
    assert config["weights_dtype"] == "float16" and config["layout"]["players"] == [4]
    game = spiel_game.load(params)
    assert card.covers(game) and zoo.default_for(game) == name
    other = NOPASS if params is CLASSIC else CLASSIC
    assert not card.covers(spiel_game.load(other))


def test_the_preset_classic_takes_classic_4_and_the_cancellation_games_keep_their_default():
    assert zoo.default_for(spiel_game.load("classic")) == "classic-4"
    assert zoo.default_for(spiel_game.load({"players": 6})) == zoo.DEFAULT_MODEL


def _play(game, bots, seed):
    """One hand; returns the returns and ``{seat: [(probs, legal, action)]}`` of
    the passing decisions."""
    gen = np.random.default_rng(seed)
    st = game.new_initial_state()
    passes = {}
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(gen.choice(acts, p=probs)))
            continue
        me = st.current_player()
        legal = st.legal_actions()
        in_pass = st.engine_state[E.S_PHASE] == E.PH_PASS
        probs = (bots[me].action_probabilities(st) if in_pass and hasattr(
            bots[me], "action_probabilities") else None)
        a = bots[me].step(st)
        assert a in legal
        if in_pass:
            passes.setdefault(me, []).append((probs, legal, a))
        st.apply_action(a)
    return st.returns(), passes


def test_a_classic_hand_with_passing_is_played_by_the_network_which_passes_itself():
    game = spiel_game.load("classic")
    bots = [make_agent("network(checkpoint='classic-4')" if p % 2 == 0 else
                       "ismcts_bias(iterations=30, bias=10.0, rollout='heuristic')", game, p, p)
            for p in range(4)]
    assert bots[1].evaluator.path == str(zoo.model_path("classic-4"))
    returns, passes = _play(game, bots, 5)
    assert sorted(returns) != [0, 0, 0, 0] and sum(returns) < 0      # 26 points were taken
    for seat in (0, 2):                 # the network's 3 passes: its own argmax each time
        assert len(passes[seat]) == 3
        for probs, legal, a in passes[seat]:
            assert probs is not None and probs[legal].sum() == pytest.approx(1.0, abs=1e-5)
            assert probs[a] == probs[legal].max()
    assert len(passes[1]) == len(passes[3]) == 3


def test_the_nopass_game_takes_classic_4_nopass_and_plays_without_passing():
    game = spiel_game.load(NOPASS)
    bots = [make_agent("ismcts_net(iterations=20)" if p == 0 else "network", game, p, p)
            for p in range(4)]
    assert bots[0].evaluator.path == str(zoo.model_path("classic-4-nopass"))
    _, passes = _play(game, bots, 6)
    assert passes == {}


def test_a_classic_game_with_other_rules_is_refused_with_the_rules_named():
    game = spiel_game.load({**CLASSIC, "pass_offset": 2})     # passing across
    with pytest.raises(AgentSpecError, match="other rules|covers players"):
        make_agent("network", game, 0, 0)
    with pytest.raises(AgentSpecError, match="pass_count"):
        make_agent("network(checkpoint='classic-4')", spiel_game.load(NOPASS), 0, 0)


@pytest.mark.parametrize("name, profile", [("classic-4", "classic"),
                                           ("classic-4-nopass", "classic_nopass")])
def test_the_distill_profile_rebuilds_the_shipped_models_layout_and_recipe(name, profile):
    """``python -m experiments run distill --profile P`` (the card's command) trains
    a network of the shipped model's layout, size and experiment config."""
    from experiments._base.config import config_to_dict
    from experiments.studies.distill import PROFILES, feature_layout
    config = PROFILES[profile]
    model_config, _ = read_checkpoint(zoo.model_path(name))
    assert feature_layout(config).fingerprint == model_config["layout_fingerprint"]
    assert model_config["hidden"] == config.hidden and model_config["blocks"] == config.blocks
    trained = {k: v for k, v in model_config["experiment_config"].items() if k != "rounds"}
    assert trained == {k: v for k, v in config_to_dict(config).items() if k != "rounds"}
    assert profile in zoo.models()[name].training["command"]
