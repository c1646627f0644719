"""OpenSpiel's PyTorch DQN and NFSP on our game (solvers.openspiel_rl): training through
rl_environment, checkpoints, the registered dqn/nfsp agents in tournaments, bad checkpoints."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

pytest.importorskip("torch", reason="the neural agents need the torch extra")

import torch

import spiel_game
from experiments.tournament import TournamentConfig, run_tournament
from solvers import openspiel_rl as rl
from solvers._openspiel_rl_play import _make_mlp
from solvers._registry import AgentSpecError, make_agent

# A small variant: 3 seats, 24 cards, one pass: an episode takes milliseconds.
SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "9TJQKA", "packs": 2,
         "pass_count": 1}
TINY = dict(game=SMALL, hidden=(16,), batch_size=16, min_buffer_size_to_learn=32,
            learn_every=3, update_target_every=50, epsilon_decay_duration=500,
            eval_every=40, eval_episodes=6, reservoir_capacity=2000, replay_capacity=2000)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A short DQN and NFSP run on SMALL, saved: {algorithm: (result, .pt path)}."""
    out = {}
    d = tmp_path_factory.mktemp("rl")
    for alg, extra in (("dqn", {}), ("nfsp", {"anticipatory": 0.5})):
        config = rl.TrainConfig(algorithm=alg, episodes=120, seed=7, **TINY, **extra)
        result = rl.train(config)
        out[alg] = (result, rl.save_checkpoint(result, d / f"{alg}.pt"))
    return out


@pytest.mark.parametrize("alg", ["dqn", "nfsp"])
def test_training_records_curve_loss_and_provenance(trained, alg):
    result, path = trained[alg]
    assert [p["episode"] for p in result.curve] == [0, 40, 80, 120]
    # No update before the buffers fill; updates (a finite loss) afterwards.
    assert result.curve[0]["loss"] is None
    later = [p["loss"] for p in result.curve[1:]]
    assert all(v is not None and math.isfinite(v) and v >= 0 for v in later), later
    if alg == "nfsp":
        assert any(p["rl_loss"] is not None for p in result.curve[1:])
    # Returns are points (<= 0 under utility=points) on the evaluation deals.
    assert all(-52 <= p["mean_return"] <= 0 for p in result.curve)
    doc = json.loads(path.with_suffix(".json").read_text())
    assert doc["algorithm"] == alg and doc["episodes_trained"] == 120
    assert doc["config"]["seed"] == 7 and doc["config"]["game"] == SMALL
    assert doc["curve"] == json.loads(json.dumps(result.curve))
    assert doc["metadata"]["versions"]["torch"] == torch.__version__
    assert doc["metadata"]["git_commit"] == result.git_commit != "unknown"
    blob = torch.load(path, weights_only=True)
    assert blob["format"] == rl.FORMAT and len(blob["policy_networks"]) == 3
    assert ("q_networks" in blob) == (alg == "nfsp")


def test_training_changes_the_network_and_is_reproducible(trained):
    result, _ = trained["dqn"]
    config = dataclasses.replace(result.config, episodes=0, eval_episodes=0)
    untrained = rl.train(config)
    w0 = untrained.policy_networks[0]["model.0.0.weight"]
    w1 = result.policy_networks[0]["model.0.0.weight"]
    assert not torch.equal(w0, w1), "120 episodes of DQN left seat 0's network unchanged"
    again = rl.train(dataclasses.replace(result.config, episodes=40, eval_episodes=0))
    twice = rl.train(dataclasses.replace(result.config, episodes=40, eval_episodes=0))
    for a, b in zip(again.policy_networks, twice.policy_networks):
        assert all(torch.equal(a[k], b[k]) for k in a)
    other = rl.train(dataclasses.replace(result.config, episodes=40, eval_episodes=0, seed=8))
    assert not all(torch.equal(a[k], b[k]) for a, b in zip(again.policy_networks,
                                                          other.policy_networks) for k in a)


def test_training_leaves_the_global_generators_as_they_were():
    np.random.seed(123)
    torch.manual_seed(123)
    before = (np.random.random(), torch.rand(1).item())
    np.random.seed(123)
    torch.manual_seed(123)
    rl.train(rl.TrainConfig(algorithm="nfsp", episodes=5, seed=1, **TINY))
    assert (np.random.random(), torch.rand(1).item()) == before


@pytest.mark.parametrize("alg", ["dqn", "nfsp"])
def test_registered_agent_plays_tournament_deals(trained, tmp_path, alg):
    _, path = trained[alg]
    spec = f"{alg}(checkpoint={str(path)!r})"
    config = TournamentConfig(agents=(spec, "random"), game=SMALL, deals=3, seed=5)
    res = run_tournament(config, tmp_path / "t", progress=False)
    recs = res.records
    assert (tmp_path / "t" / "rows.csv").exists()
    assert f"checkpoint {path}" in json.loads((tmp_path / "t" / "metadata.json")
                                              .read_text())["code"]
    assert len(recs) == 3                       # play_game refuses an illegal action
    assert res.summary["agents"][0]["agent"] == spec
    # The agent decided something (not only forced moves) and returned legal actions.
    assert sum(r["timing"]["decisions"][0] for r in recs) > 0
    game = spiel_game.load(SMALL)
    rng = np.random.default_rng(1)
    bots = [make_agent(spec, game, p, 11) for p in range(3)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(acts, p=probs)))
            continue
        p = state.current_player()
        policy, a = bots[p].step_with_policy(state)
        legal = state.legal_actions()
        assert a in legal and sorted(x for x, _ in policy) == legal
        assert math.isclose(sum(q for _, q in policy), 1.0, rel_tol=1e-6)
        state.apply_action(a)


def test_dqn_agent_is_the_greedy_policy_of_its_network(trained):
    result, path = trained["dqn"]
    game = spiel_game.load(SMALL)
    bot = make_agent(f"dqn(checkpoint={str(path)!r})", game, 1, 0)
    net = _make_mlp(result.input_size, result.config.hidden, result.num_actions)
    net.load_state_dict(result.policy_networks[1])
    rng = np.random.default_rng(4)
    state, checked = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(acts, p=probs)))
            continue
        legal = state.legal_actions()
        if state.current_player() == 1 and len(legal) > 1:
            q = net(torch.tensor([state.observation_tensor(1)])).detach().numpy()[0]
            assert bot.step(state) == legal[int(np.argmax(q[legal]))]
            checked += 1
        state.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 0


def test_bad_checkpoints_give_clear_errors(trained, tmp_path):
    _, dqn_path = trained["dqn"]
    _, nfsp_path = trained["nfsp"]
    game = spiel_game.load(SMALL)

    def err(spec, g=game):
        with pytest.raises(AgentSpecError) as e:
            make_agent(spec, g, 0, 0)
        return str(e.value)

    msg = err(f"dqn(checkpoint={str(tmp_path / 'missing.pt')!r})")
    assert "missing.pt" in msg and "cannot be read" in msg
    other = spiel_game.load({**SMALL, "players": 4})
    msg = err(f"dqn(checkpoint={str(dqn_path)!r})", other)
    assert "another game" in msg and "players=3 (checkpoint) vs 4 (this game)" in msg
    msg = err(f"dqn(checkpoint={str(dqn_path)!r})", spiel_game.load({**SMALL, "moon": "off"}))
    assert "moon=add (checkpoint) vs off (this game)" in msg
    assert "holds a nfsp policy" in err(f"dqn(checkpoint={str(nfsp_path)!r})")
    assert "holds a dqn policy" in err(f"nfsp(checkpoint={str(dqn_path)!r})")
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(dqn_path.read_bytes()[:1000])
    assert "damaged" in err(f"dqn(checkpoint={str(damaged)!r})")
    foreign = tmp_path / "foreign.pt"
    torch.save({"model": torch.zeros(3)}, foreign)
    assert "not a checkpoint of solvers.openspiel_rl" in err(f"dqn(checkpoint={str(foreign)!r})")
    wrong = tmp_path / "wrong.pt"
    blob = torch.load(dqn_path, weights_only=True)
    blob["hidden"] = [32]
    torch.save(blob, wrong)
    assert "does not fit" in err(f"dqn(checkpoint={str(wrong)!r})")
    assert "greedy=1" in err(f"nfsp(checkpoint={str(nfsp_path)!r}, greedy=1)")


def test_bad_training_configs_are_refused():
    with pytest.raises(ValueError, match="algorithm='ppo' is not allowed; allowed: dqn, nfsp"):
        rl.TrainConfig(algorithm="ppo")
    with pytest.raises(ValueError, match="episodes=-1"):
        rl.TrainConfig(episodes=-1)
    with pytest.raises(ValueError, match="learn_every=2 is not allowed; allowed: an int >= 3"):
        rl.TrainConfig(learn_every=2)
    with pytest.raises(ValueError, match="observation='pixels'"):
        rl.TrainConfig(observation="pixels")
    with pytest.raises(ValueError, match="bad game parameters"):
        rl.train(rl.TrainConfig(game={"players": 99}, episodes=1))


def test_cli_trains_on_the_six_player_game_with_info_states(tmp_path, capsys):
    out = tmp_path / "cli.pt"
    rc = rl.main(["train", "--algorithm", "dqn", "--episodes", "3", "--hidden", "8",
                  "--observation", "info_state", "--eval-every", "3", "--eval-episodes", "2",
                  "--seed", "3", "--out", str(out)])
    assert rc == 0 and out.exists() and out.with_suffix(".json").exists()
    doc = json.loads(out.with_suffix(".json").read_text())
    game = spiel_game.load({"players": 6})
    assert doc["input_size"] == game.information_state_tensor_size()
    assert [p["episode"] for p in doc["curve"]] == [0, 3]
    assert "wrote" in capsys.readouterr().out
    bot = make_agent(f"dqn(checkpoint={str(out)!r})", game, 5, 0)
    assert bot.observation == "info_state"
