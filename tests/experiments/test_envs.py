"""The PettingZoo AEC and Gymnasium environments (experiments.envs)."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import spiel_game
from solvers._base.bots import RandomBot
from experiments.envs import (ENV_ID, CancellationHeartsAEC, CancellationHeartsEnv, env as aec_env,
                          raw_env)
from solvers._registry import AgentSpecError
from spiel_game import _engine as E

ROOT = Path(__file__).resolve().parents[2]

# The only warnings PettingZoo's api_test may give: our observations are the
# Dict of tensor and action mask it recommends for card games, which it flags
# for environments outside its own collection.
_DICT_OBS_WARNINGS = ("Observation is not a NumPy array",
                      "Observation space for each agent probably should be")

AEC_CONFIGS = [
    {"players": 5},
    {"players": 6, "observation": "observation", "target_score": 40, "pass_offset": -1},
    {"players": 7, "deck": "kitty", "void_last_trick": "discard", "utility": "zero_sum"},
    {"players": 11, "moon": "choose", "jack_of_diamonds": -10, "pass_count": 0},
]


def _ids(cfg):
    return ",".join(f"{k}={v}" for k, v in cfg.items())


def _random_aec_game(e, seed: int, rng_seed: int):
    """Play ``e`` (raw AEC env) to the end with seeded random legal actions; returns
    (the sum of each agent's rewards, the list of (step, rewards) events)."""
    e.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    events = []
    for step, agent in enumerate(e.agent_iter()):
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if any(e.rewards.values()):
            events.append((step, dict(e.rewards)))
    return totals, events


@pytest.mark.parametrize("cfg", AEC_CONFIGS, ids=_ids)
def test_pettingzoo_api_and_seed_tests(cfg):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec_env(**cfg), num_cycles=200)
        seed_test(lambda: aec_env(**cfg), num_cycles=200)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(_DICT_OBS_WARNINGS)]
    assert unexpected == []


@pytest.mark.parametrize("cfg", AEC_CONFIGS, ids=_ids)
def test_aec_rewards_add_up_to_the_pyspiel_returns_of_the_same_actions(cfg):
    e = raw_env(**cfg)
    totals, events = _random_aec_game(e, seed=3, rng_seed=4)
    assert e.agents == []
    # Replay the environment's history (deal included) in a fresh pyspiel state.
    replay = e.game.state_from_actions(e.state.history())
    assert replay.is_terminal()
    expected = replay.returns()
    for i, agent in enumerate(e.possible_agents):
        assert totals[agent] == pytest.approx(expected[i], abs=1e-9)
    hands = int(e.state.engine_state[E.S_HANDNO])
    # Rewards arrive when a hand is scored: once per hand at most.
    assert 1 <= len(events) <= hands
    if cfg.get("target_score"):
        assert hands > 1 and len(events) > 1


def test_aec_match_rewards_are_each_hands_points():
    e = raw_env(players=6, target_score=40)
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    hands_seen = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        before = int(e.state.engine_state[E.S_HANDNO])
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        s, P = e.state.engine_state, e.state.engine_params
        if int(s[E.S_HANDNO]) != before:          # a hand was scored by this action
            hands_seen += 1
            points = E.hand_points(P, s)
            assert [e.rewards[a] for a in e.possible_agents] == [-float(x) for x in points]
        elif e.agents and not any(e.terminations.values()):
            assert all(r == 0.0 for r in e.rewards.values())
    assert hands_seen >= 2


@pytest.mark.parametrize("kind", ["information_state", "observation"])
def test_aec_observations_are_the_games_tensors_and_legal_actions(kind):
    e = raw_env(players=6, observation=kind)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(40):
        agent = e.agent_selection
        seat = e.possible_agents.index(agent)
        for other, q in ((a, i) for i, a in enumerate(e.possible_agents)):
            obs = e.observe(other)
            tensor = (e.state.information_state_tensor(q) if kind == "information_state"
                      else e.state.observation_tensor(q))
            np.testing.assert_array_equal(obs["observation"], np.asarray(tensor, np.float32))
            expected = np.zeros(e.game.num_distinct_actions(), np.int8)
            if q == seat:
                expected[e.state.legal_actions()] = 1
            np.testing.assert_array_equal(obs["action_mask"], expected)
            assert e.observation_space(other).contains(obs)
        e.step(int(rng.choice(e.state.legal_actions())))


def test_aec_is_deterministic_per_seed():
    def history(seed):
        e = raw_env(players=5)
        _random_aec_game(e, seed=seed, rng_seed=0)
        return e.state.history()
    assert history(7) == history(7)
    assert history(7) != history(8)
    # reset() without a seed continues the seeded stream: the same two games again.
    a, b = raw_env(players=5), raw_env(players=5)
    a.reset(seed=1)
    b.reset(seed=1)
    a.reset()
    b.reset()
    assert a.state.history() == b.state.history()


def test_aec_errors_name_what_is_allowed():
    with pytest.raises(spiel_game.GameParameterError, match="allowed"):
        raw_env(players=3)
    with pytest.raises(spiel_game.GameParameterError, match="unknown parameter.*playrs"):
        raw_env(playrs=6)
    with pytest.raises(ValueError, match="observation='tensor'.*allowed.*information_state"):
        raw_env(observation="tensor")
    with pytest.raises(ValueError, match="render_mode='human'.*allowed"):
        raw_env(render_mode="human")
    e = raw_env(players=6)
    e.reset(seed=0)
    legal = e.state.legal_actions()
    illegal = next(a for a in range(53) if a not in legal)
    with pytest.raises(spiel_game.IllegalActionError, match=r"player_\d: action .* legal: "):
        e.step(illegal)
    with pytest.raises(TypeError, match="integer"):
        e.step("QS")
    with pytest.raises(KeyError, match="player_0"):
        e.observation_space("player_9")
    wrapped = aec_env(players=6)
    with pytest.raises(Exception, match="reset"):
        wrapped.step(0)


def test_aec_render_ansi_is_the_state_text():
    e = CancellationHeartsAEC(players=5, render_mode="ansi")
    e.reset(seed=2)
    assert e.render() == str(e.state) and "Hearts" in e.render()
    with pytest.warns(UserWarning, match="render_mode='ansi'"):
        assert raw_env(players=5).render() is None


# ---------------------------------------------------------------- Gymnasium

GYM_CONFIGS = [
    {"opponents": "heuristic"},
    {"opponents": ["random", "heuristic", "random", "heuristic"], "seat": 2, "players": 5,
     "observation": "observation", "target_score": 30},
]


def _gym_episode(env, seed, rng_seed=0):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    total, done, observations = 0.0, False, [obs]
    while not done:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total, done = total + r, term or trunc
        observations.append(obs)
    return total, observations


@pytest.mark.parametrize("cfg", GYM_CONFIGS, ids=lambda c: _ids(c)[:40])
def test_gymnasium_check_env(cfg):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(ENV_ID, **cfg).unwrapped)       # with a spec: render modes
        check_env(CancellationHeartsEnv(**cfg), skip_render_check=True)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("cfg", GYM_CONFIGS, ids=lambda c: _ids(c)[:40])
def test_gymnasium_reward_is_the_learners_pyspiel_return(cfg):
    env = CancellationHeartsEnv(**cfg)
    total, _ = _gym_episode(env, seed=9)
    replay = env.game.state_from_actions(env.state.history())
    assert replay.is_terminal()
    assert total == pytest.approx(replay.returns()[env.seat], abs=1e-9)


def test_gymnasium_is_deterministic_per_seed_and_masks_the_learners_actions():
    env = CancellationHeartsEnv(opponents="heuristic", players=6, seat=1)
    t1, obs1 = _gym_episode(env, seed=4)
    h1 = env.state.history()
    t2, obs2 = _gym_episode(env, seed=4)
    assert env.state.history() == h1 and t1 == t2
    assert all(np.array_equal(a, b) for a, b in zip(obs1, obs2)) and len(obs1) == len(obs2)
    _gym_episode(env, seed=5)
    assert env.state.history() != h1
    obs, info = env.reset(seed=0)
    assert env.state.current_player() == 1
    assert np.flatnonzero(info["action_mask"]).tolist() == env.state.legal_actions()
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
    np.testing.assert_array_equal(obs, np.asarray(env.state.information_state_tensor(1),
                                                  np.float32))


def test_gymnasium_opponents_can_be_a_factory_plug_in():
    built = []

    def factory(game, player, seed):
        built.append((player, seed))
        return RandomBot(game, player, seed)

    def run():
        env = CancellationHeartsEnv(opponents=factory, players=5, seat=4)
        built.clear()                                   # (construction checks the spec)
        _gym_episode(env, seed=1)
        return list(built), env.state.history()

    built1, history1 = run()
    assert [p for p, _ in built1] == [0, 1, 2, 3]
    assert len({s for _, s in built1}) == 4             # a seed of its own per seat
    assert run() == (built1, history1)


@pytest.mark.slow
def test_gymnasium_against_ismcts_is_deterministic():
    env = CancellationHeartsEnv(opponents=["ismcts(iterations=20)"] + ["heuristic"] * 4)
    _gym_episode(env, seed=2)
    h = env.state.history()
    _gym_episode(env, seed=2)
    assert env.state.history() == h


def test_gymnasium_illegal_actions_and_bad_arguments():
    env = CancellationHeartsEnv(opponents="heuristic")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert term and not trunc and info["illegal_action"]
    assert r == env.game.min_utility() == -52.0 and "legal:" in info["message"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = CancellationHeartsEnv(opponents="heuristic", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(spiel_game.IllegalActionError, match="seat 0: action .* legal"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="seat=6.*allowed: 0..5"):
        CancellationHeartsEnv(seat=6)
    with pytest.raises(ValueError, match="3 given for the 5 other seats"):
        CancellationHeartsEnv(opponents=["random"] * 3)
    with pytest.raises(AgentSpecError, match="unknown agent 'heuristc'"):
        CancellationHeartsEnv(opponents="heuristc")
    with pytest.raises(ValueError, match="illegal_action='ignore'.*allowed"):
        CancellationHeartsEnv(illegal_action="ignore")
    with pytest.raises(spiel_game.GameParameterError, match="moon"):
        CancellationHeartsEnv(moon="sometimes")


# ---------------------------------------------------------------- examples

@pytest.mark.parametrize("name", ["pettingzoo_example.py", "gymnasium_example.py"])
def test_readme_examples_run(name, capsys):
    runpy.run_path(str(ROOT / "examples" / name), run_name="__main__")
    out = capsys.readouterr().out
    assert ("player_4" in out) if name.startswith("pettingzoo") else ("return" in out)


def test_training_example_quick_form(tmp_path):
    train = runpy.run_path(str(ROOT / "examples" / "train_reinforce.py"))
    summary = train["main"](["--episodes", "16", "--batch", "8", "--eval", "4", "--hidden",
                             "16", "--out", str(tmp_path)])
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0] == "episodes,mean_return,seconds" and len(rows) == 3
    for key in ("learned", "uniform_random", "heuristic"):
        assert -52.0 <= summary[key]["mean"] <= 0.0
    again = train["main"](["--episodes", "16", "--batch", "8", "--eval", "4", "--hidden",
                           "16", "--out", str(tmp_path / "again")])
    assert (tmp_path / "again" / "curve.csv").read_text().splitlines()[1:] != [] and \
        [r.split(",")[:2] for r in rows] == [
            r.split(",")[:2] for r in (tmp_path / "again" / "curve.csv").read_text().splitlines()]
    assert again["learned"] == summary["learned"]
