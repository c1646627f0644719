"""The policy-value network (solvers.net): features, masking, training, checkpoints,
agents, and the expert-iteration experiment's config errors (its resumption:
tests/experiments/test_distill.py, with distillation's)."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest

torch = pytest.importorskip("torch")

import spiel_game  # noqa: E402,F401  (registers the game)
from experiments.studies import expert_iteration as ei  # noqa: E402
from experiments.tournament import TournamentConfig, run_tournament  # noqa: E402
from solvers.net._checkpoint import FORMAT, CheckpointError, read_checkpoint  # noqa: E402
from solvers.net._features import FeatureLayout, GameFamilyError  # noqa: E402
from solvers.net._inference import NetEvaluator  # noqa: E402
from solvers.net._model import (PolicyValueNet, load_model, losses, save_checkpoint,  # noqa: E402
                               to_batch)
from solvers.net._selfplay import concat, play_hands, size, train  # noqa: E402
from solvers._registry import AgentSpecError, make_agent  # noqa: E402

GAME = "python_cancellation_hearts"


def _game(n):
    return pyspiel.load_game(GAME, {"players": n})


@pytest.fixture(scope="module")
def layout():
    return FeatureLayout({}, (5, 6, 11))


@pytest.fixture(scope="module")
def small_ckpt(tmp_path_factory, layout):
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=16,
                           blocks=1, seed=5)
    return save_checkpoint(tmp_path_factory.mktemp("ck") / "net.npz", model, layout), model


def _random_states(game, seed, limit=None):
    """Engine states (decision nodes) of one random hand, with the state objects."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    out = []
    while not st.is_terminal():
        if st.is_chance_node():
            o, p = zip(*st.chance_outcomes())
            st.apply_action(int(o[rng.choice(len(o), p=np.asarray(p) / sum(p))]))
            continue
        out.append(st.clone())
        st.apply_action(int(rng.choice(st.legal_actions())))
    return out[:limit] if limit else out


def test_features_match_the_observer_tensor(layout):
    for n in (5, 6, 11):
        game = _game(n)
        states = _random_states(game, n)
        S = np.array([np.asarray(s.engine_state) for s in states])
        dense = layout.dense(game, S)
        assert dense.shape == (len(states), layout.size)
        unpadded = layout.unpad(game, dense)
        for st, row, full in zip(states, unpadded, dense):
            p = st.current_player()
            want = np.asarray(st.information_state_tensor(p), np.float32)
            np.testing.assert_array_equal(row, want)
            # the padding is zero apart from the player-count one-hot
            assert full.sum() == pytest.approx(want.sum() + 1.0)
        idx, val, offs = layout.sparse(game, S)
        assert offs[-1] == len(idx) == np.count_nonzero(dense)
        rebuilt = np.zeros_like(dense)
        for b in range(len(S)):
            rebuilt[b, idx[offs[b]:offs[b + 1]]] = val[offs[b]:offs[b + 1]]
        np.testing.assert_array_equal(rebuilt, dense)


def test_layout_refuses_other_rules_and_counts(layout):
    with pytest.raises(GameFamilyError, match="covers players"):
        layout.view(_game(8))
    with pytest.raises(GameFamilyError, match="moon"):
        layout.view(pyspiel.load_game(GAME, {"players": 6, "moon": "off"}))
    with pytest.raises(GameFamilyError, match="players="):
        FeatureLayout({"players": 6}, (6,))


def test_masking_never_gives_an_illegal_action(layout, small_ckpt):
    path, model = small_ckpt
    ev = NetEvaluator(path)
    for n in (5, 11):
        game = _game(n)
        states = _random_states(game, 100 + n)
        S = np.array([np.asarray(s.engine_state) for s in states])
        probs, values = ev.evaluate(game, S)
        idx, val, offs = layout.sparse(game, S)
        mask = layout.mask(game, S)
        with torch.no_grad():
            logits, tv = model(torch.from_numpy(idx), torch.from_numpy(val),
                               torch.from_numpy(offs), torch.from_numpy(mask))
        for st, pr, lg, m in zip(states, probs, logits.numpy(), mask):
            legal = st.legal_actions()
            assert sorted(np.flatnonzero(m).tolist()) == legal
            assert int(np.argmax(lg)) in legal
            assert np.isneginf(np.delete(lg, legal)).all()
            assert pr[legal].sum() == pytest.approx(1.0)
            assert (np.delete(pr, legal) == 0).all()
        # the compiled forward pass is the torch model's
        np.testing.assert_allclose(probs, torch.softmax(logits, 1).numpy(), atol=1e-5)
        np.testing.assert_allclose(values, tv.numpy(), atol=1e-5)


def test_heuristic_hint_is_the_heuristic_players_move(tmp_path, layout):
    """hint='heuristic' appends a one-hot of the heuristic player's move (only for
    the player to move), leaves the other features and the no-hint layout as they
    were, and the compiled forward pass (the search's) still equals torch's."""
    from solvers._base.bots import HeuristicBot
    hinted = FeatureLayout({}, (5, 6, 11), hint="heuristic")
    assert hinted.to_dict()["hint"] == "heuristic" and "hint" not in layout.to_dict()
    assert FeatureLayout({}, (5, 6, 11)).fingerprint == layout.fingerprint
    assert hinted.fingerprint != layout.fingerprint
    name, start, shape = hinted.pieces[-1]
    assert name == "hint" and shape == (hinted.num_actions,) and start == layout.size
    assert hinted.size == layout.size + hinted.num_actions
    model = PolicyValueNet(hinted.size, hinted.num_actions, hinted.max_players, hidden=16,
                           blocks=1, seed=6)
    ev = NetEvaluator(save_checkpoint(tmp_path / "hinted.npz", model, hinted))
    assert ev.layout.hint == "heuristic" and ev.layout.fingerprint == hinted.fingerprint
    for n in (5, 11):
        game = _game(n)
        states = _random_states(game, 200 + n)
        S = np.array([np.asarray(s.engine_state) for s in states])
        dense = hinted.dense(game, S)
        np.testing.assert_array_equal(dense[:, :layout.size], layout.dense(game, S))
        bots = [HeuristicBot(game, q) for q in range(n)]
        for st, row in zip(states, dense[:, layout.size:]):
            assert np.flatnonzero(row).tolist() == [bots[st.current_player()].step(st)]
        # another seat than the mover sees no hint
        other = (np.array([s.current_player() for s in states]) + 1) % n
        assert not hinted.dense(game, S, other)[:, layout.size:].any()
        idx, val, offs = hinted.sparse(game, S)
        rebuilt = np.zeros_like(dense)
        for b in range(len(S)):
            rebuilt[b, idx[offs[b]:offs[b + 1]]] = val[offs[b]:offs[b + 1]]
        np.testing.assert_array_equal(rebuilt, dense)
        probs, values = ev.evaluate(game, S)
        with torch.no_grad():
            logits, tv = model(torch.from_numpy(idx), torch.from_numpy(val),
                               torch.from_numpy(offs), torch.from_numpy(hinted.mask(game, S)))
        np.testing.assert_allclose(probs, torch.softmax(logits, 1).numpy(), atol=1e-5)
        np.testing.assert_allclose(values, tv.numpy(), atol=1e-5)
    with pytest.raises(GameFamilyError, match="hint='oracle'; allowed: None, 'heuristic'"):
        FeatureLayout({}, (6,), hint="oracle")


def _samples(layout, seed):
    """Samples from two hands of cheap plain ISMCTS self-play (6 players)."""
    from solvers._ismcts import ISMCTSBot
    game = _game(6)
    bots = [ISMCTSBot(game, q, seed + q, iterations=8) for q in range(6)]
    samples, rets = play_hands(game, layout, bots, 1, np.random.default_rng(seed))
    assert rets.shape == (1, 6)
    return samples


def test_selfplay_samples_and_training_lowers_the_loss(layout):
    data = _samples(layout, 11)
    n = size(data)
    assert n > 50
    assert np.allclose(data["policy"].sum(1), 1.0)
    assert not (data["policy"] * ~data["mask"]).any()           # targets only on legal actions
    assert (data["value_mask"].sum(1) == 6).all()
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=32,
                           blocks=1, seed=1)
    batch = to_batch(data, np.arange(min(n, 64)))
    with torch.no_grad():
        ce0, mse0 = losses(model, batch)
    log = train(model, concat([data]), steps=40, batch_size=64, lr=3e-3, seed=2)
    assert len(log) == 40
    with torch.no_grad():
        ce1, mse1 = losses(model, batch)
    assert float(ce1) < float(ce0) - 0.05
    assert float(mse1) < float(mse0)


def test_checkpoint_round_trip(tmp_path, layout, small_ckpt):
    path, model = small_ckpt
    loaded, cfg = load_model(path)
    assert cfg["format"] == FORMAT and cfg["layout"]["players"] == [5, 6, 11]
    assert cfg["hidden"] == 16 and cfg["blocks"] == 1 and cfg["seed"] == 5
    assert "numpy" in cfg["versions"] and cfg["commit"]
    for k, v in model.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k])
    again = save_checkpoint(tmp_path / "again.npz", loaded, layout, step=7, generation=2)
    c2, p2 = read_checkpoint(again)
    assert c2["step"] == 7 and c2["generation"] == 2
    c1, p1 = read_checkpoint(path)
    assert all(np.array_equal(p1[k], p2[k]) for k in p1)


def test_bad_checkpoints_give_clear_errors(tmp_path, small_ckpt):
    path, _ = small_ckpt
    game = _game(6)
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(f"network(checkpoint={str(tmp_path / 'nope.npz')!r})", game, 0)
    with pytest.raises(AgentSpecError, match="checkpoint='': no shipped model ''"):
        make_agent("network(checkpoint='')", game, 0)      # (no checkpoint: the shipped one)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(AgentSpecError, match="not a readable .npz"):
        make_agent(f"ismcts_net(checkpoint={str(junk)!r})", game, 0)
    cfg, params = read_checkpoint(path)
    for name, edit, msg in [
            ("format.npz", lambda c, p: c.update(format="other/9"), "has format 'other/9'"),
            ("shape.npz", lambda c, p: p.update({"bias0": np.zeros(3, np.float32)}),
             r"'bias0' has shape \(3,\)"),
            ("layout.npz", lambda c, p: c.update(layout_fingerprint="0" * 64),
             "another input layout")]:
        c, p = json.loads(json.dumps(cfg)), dict(params)
        edit(c, p)
        arrays = {f"param/{k}": v for k, v in p.items()}
        arrays["config"] = np.array(json.dumps(c))
        np.savez(tmp_path / name, **arrays)
        with pytest.raises(AgentSpecError, match=msg):
            make_agent(f"network(checkpoint={str(tmp_path / name)!r})", game, 0)
    with pytest.raises(CheckpointError, match="config"):
        np.savez(tmp_path / "noconfig.npz", x=np.zeros(2))
        read_checkpoint(tmp_path / "noconfig.npz")
    # a covered checkpoint, an uncovered game
    with pytest.raises(AgentSpecError, match="covers players"):
        make_agent(f"network(checkpoint={str(path)!r})", _game(7), 0)
    with pytest.raises(AgentSpecError, match="policy='best'"):
        make_agent(f"network(checkpoint={str(path)!r}, policy='best')", game, 0)
    with pytest.raises(AgentSpecError, match="c_puct"):
        make_agent(f"ismcts_net(checkpoint={str(path)!r}, c_puct=-1)", game, 0)


def test_agents_play_legal_moves_in_a_tournament(small_ckpt):
    path, _ = small_ckpt
    agents = (f"network(checkpoint={str(path)!r}, policy='sample')",
              f"ismcts_net(checkpoint={str(path)!r}, iterations=16)",
              f"ismcts_net(checkpoint={str(path)!r}, iterations=8, value_weight=0.5)",
              "heuristic")
    for n in (5, 6):
        cfg = TournamentConfig(agents=agents, game={"players": n}, deals=1, seed=3,
                               rotations=1)
        res = run_tournament(cfg, None, progress=False)    # an illegal move would raise
        rec = res.records[0]
        assert len(rec["points"][0]) == n
        assert all(d > 0 for d in rec["timing"]["decisions"])


def test_net_ismcts_search_statistics(small_ckpt):
    path, _ = small_ckpt
    game = _game(6)
    st = _random_states(game, 9)[30]
    bot = make_agent(f"ismcts_net(checkpoint={str(path)!r}, iterations=50)", game,
                     st.current_player(), seed=4)
    acts, vis, val, pri = bot.search(st)
    assert sorted(acts.tolist()) == st.legal_actions()
    assert vis.sum() == 49                  # the first iteration evaluates the root
    assert pri.sum() == pytest.approx(1.0)
    assert ((val >= 0) & (val <= 1)).all()
    again = make_agent(f"ismcts_net(checkpoint={str(path)!r}, iterations=50)", game,
                       st.current_player(), seed=4).search(st)
    np.testing.assert_array_equal(again[1], vis)
    # prior_mix: the root's priors move towards uniform by that share
    k = len(acts)
    for mix in (0.5, 1.0):
        mixed = make_agent(f"ismcts_net(checkpoint={str(path)!r}, iterations=50, "
                           f"prior_mix={mix})", game, st.current_player(), seed=4).search(st)
        np.testing.assert_allclose(mixed[3], (1 - mix) * pri + mix / k, rtol=1e-9)
    with pytest.raises(AgentSpecError, match="prior_mix"):
        make_agent(f"ismcts_net(checkpoint={str(path)!r}, prior_mix=1.5)", game, 0)


def test_net_ismcts_time_limit_budget(small_ckpt):
    """With ``time_limit`` the search runs for about that long (at least one
    iteration, overrunning by at most a chunk), and a bad limit is refused."""
    path, _ = small_ckpt
    game = _game(6)
    st = _random_states(game, 9)[30]
    spec = f"ismcts_net(checkpoint={str(path)!r}, time_limit=0.05)"
    bot = make_agent(spec, game, st.current_player(), seed=4)
    bot.search(st)
    info = bot.last_search
    assert info["iterations"] >= 1
    assert 0.05 <= info["seconds"] < 1.0
    for bad in ("0", "-1", "4000"):
        with pytest.raises(ValueError, match="time_limit"):
            make_agent(f"ismcts_net(checkpoint={str(path)!r}, time_limit={bad})", game, 0)


def test_expert_iteration_config_errors():
    from experiments._base.config import ConfigError
    with pytest.raises(ConfigError, match="subset of cover"):
        ei.ExpertIterationConfig(players=(4,))
    with pytest.raises(ConfigError, match="search"):
        ei.ExpertIterationConfig(search="mcts")


def test_sharpened_policy_targets():
    from solvers.net._model import sharpen
    p = np.array([[0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.5, 0.0]])
    np.testing.assert_allclose(sharpen(p, 1.0), p, rtol=1e-6)
    s = sharpen(p, 0.5)
    np.testing.assert_allclose(s[0], np.array([25, 9, 4, 0]) / 38, rtol=1e-6)
    np.testing.assert_array_equal(sharpen(p, 0.0), [[1, 0, 0, 0], [0, 0, 1, 0]])
    assert (sharpen(p, 0.25)[:, 3] == 0).all()          # illegal actions stay at 0


def test_ismcts_bias_is_plain_ismcts_plus_a_root_bias(small_ckpt):
    """``ismcts_bias``: bias 0 is plain ISMCTS move for move (same seed); the bias is
    the network's policy at the root times the weight; a huge bias allocates the
    root's visits greedily by prior / (1 + visits); bad keywords are refused."""
    path, _ = small_ckpt
    game = _game(6)
    states = _random_states(game, 9)
    st = states[30]
    me = st.current_player()
    plain = make_agent("ismcts(iterations=300, rollout='heuristic')", game, me, seed=4)
    zero = make_agent(f"ismcts_bias(checkpoint={str(path)!r}, bias=0, iterations=300, "
                      f"rollout='heuristic')", game, me, seed=4)
    a0, v0, q0 = plain.search(st)
    a1, v1, q1 = zero.search(st)
    np.testing.assert_array_equal(a0, a1)
    np.testing.assert_array_equal(v0, v1)
    np.testing.assert_array_equal(q0, q1)
    for s in states[::7]:                   # whole decisions too (pass, play)
        if len(s.legal_actions()) > 1:
            p = s.current_player()
            x = make_agent("ismcts(iterations=40)", game, p, seed=2).step(s)
            y = make_agent(f"ismcts_bias(checkpoint={str(path)!r}, bias=0.0, iterations=40)",
                           game, p, seed=2).step(s)
            assert x == y
    # the bias: weight x the network's policy at the root
    net = make_agent(f"network(checkpoint={str(path)!r})", game, me)
    probs = net.action_probabilities(st)
    big = 1e6
    bot = make_agent(f"ismcts_bias(checkpoint={str(path)!r}, bias={big}, iterations=400)",
                     game, me, seed=4)
    np.testing.assert_allclose(bot._root_bias(np.asarray(st.engine_params),
                                              np.array(st.engine_state), me), big * probs,
                               rtol=1e-12)
    acts, vis, _ = bot.search(st)
    assert vis.sum() == 400 and (vis >= 1).all()
    p = probs[acts]
    # greedy allocation: no move could have scored more than the last pick of another
    for i in range(len(acts)):
        for j in range(len(acts)):
            if vis[j] >= 2:
                assert p[i] / (1 + vis[i]) <= p[j] / vis[j] + 3.0 / big
    assert vis[np.argmax(p)] == vis.max()
    unbiased = make_agent("ismcts(iterations=400)", game, me, seed=4).search(st)[1]
    assert not np.array_equal(vis, unbiased)
    # refusals name the keyword
    for bad, word in (("bias=-1", "bias"), ("bias=float('nan')", "bias"),
                      ("belief='heuristic'", "belief"), ("uct_c=-1", "uct_c")):
        with pytest.raises(AgentSpecError, match=word):
            make_agent(f"ismcts_bias(checkpoint={str(path)!r}, {bad})", game, 0)
    with pytest.raises(AgentSpecError, match="ismcts_bias: checkpoint"):
        make_agent("ismcts_bias(checkpoint='/nonexistent/net.npz')", game, 0)
    from solvers._ismcts_net import BiasISMCTSBot
    from solvers.beliefs import HeuristicBelief
    with pytest.raises(TypeError, match="belief"):
        BiasISMCTSBot(game, 0, checkpoint=str(path), belief=HeuristicBelief(pool=4))
