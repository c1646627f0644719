"""The learned opponent model of inference (``belief='network'``, solvers/beliefs/_replay.py).

A policy-value network (:mod:`solvers.net`) as the opponent model: a world is
weighted by the probability, under the network seeing each other player's own
information state in that world, of every decision of theirs the observer saw
(softened by ``eps``). Checked as the hand-written models are in
``test_inference.py``:

(1) the compiled log-likelihood equals a plain-Python replay through pyspiel
    states, with the network's probabilities from ``NetEvaluator.evaluate``
    on each replayed state (the pass to the observer summed over every
    distinct order), to 1e-9, with passing and without;
(2) on a small deck, SIR draws and the root-level pool match the brute-force
    posterior (every split of the unseen cards, prior x likelihood) with a
    known network (chi-square, total variation);
(3) the agents take ``belief='network(checkpoint=...)'``, play legal
    moves and repeat with their seed; bad parameters name the parameter.

The networks are small and random, their policy heads scaled up so that the
evidence moves the posterior (checked: the test has power). Seeded throughout.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spiel_game  # noqa: E402
from spiel_game import _engine as E  # noqa: E402
from spiel_game import _validation as V  # noqa: E402
from spiel_game._rng import make_rng_state  # noqa: E402
from solvers._base.bots import AgentParameterError  # noqa: E402
from solvers.beliefs._replay import WeightedDeterminizer, WorldPool, make_belief, pool_pick  # noqa: E402
from solvers.net._features import FeatureLayout, game_base_params  # noqa: E402
from solvers.net._inference import NetEvaluator  # noqa: E402
from solvers.net._model import PolicyValueNet, save_checkpoint  # noqa: E402
from solvers._registry import AgentSpecError, make_agent  # noqa: E402
import test_inference as ti  # noqa: E402

ALPHA = 1e-3


def _checkpoint(path, game, sharpen=8.0, seed=3):
    """A small random network covering ``game`` (its rules, its player count),
    with the policy head scaled by ``sharpen`` (a confident opponent model)."""
    n = game.num_players()
    base = {k: v for k, v in game_base_params(game).items() if k != "players"}
    layout = FeatureLayout(base, (n,))
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=16,
                           blocks=1, seed=seed)
    with torch.no_grad():
        model.policy.weight.mul_(sharpen)
        model.policy.bias.mul_(sharpen)
    return str(save_checkpoint(path, model, layout))


class NetModel:
    """The network model, from Python: ``(1 - eps) p(a) + eps / k`` with ``p``
    from :meth:`NetEvaluator.evaluate` on the pyspiel state."""

    def __init__(self, path, game):
        self.ev, self.game = NetEvaluator(path), game

    def prob(self, eps, st, a):
        legal = st.legal_actions()
        if a not in legal:
            return 0.0
        probs, _ = self.ev.evaluate(self.game, np.array(st.engine_state, np.int32))
        return (1 - eps) * float(probs[0, a]) + eps / len(legal)


@pytest.fixture
def net_probability(monkeypatch):
    """Let ``test_inference.py_probability`` take a :class:`NetModel` as its model."""
    plain = ti.py_probability

    def prob(model, eps, st, a):
        if isinstance(model, NetModel):
            return model.prob(eps, st, a)
        return plain(model, eps, st, a)
    monkeypatch.setattr(ti, "py_probability", prob)


CONFIGS = [("balanced6_pass4", {"players": 6}, 30),
           ("custom_3p_pass_right", {"deck": "custom", "players": 3, "suits": "HS",
                                     "ranks": "QKA", "packs": 3, "pass_count": 2,
                                     "pass_offset": -1}, 7),
           ("no_passing7", {"players": 7, "pass_count": 0}, 25)]


@pytest.mark.parametrize("name,params,played", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_1_network_log_likelihood_equals_pyspiel_replay(tmp_path, net_probability, name,
                                                       params, played):
    game = spiel_game.load(params)
    ck = _checkpoint(tmp_path / "net.npz", game)
    net = NetModel(ck, game)
    P = game.engine_params
    st = ti.heuristic_game_state(game, 1, lambda s: int(s.engine_state[E.S_PHASE]) ==
                                 E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    rng = make_rng_state(1, 7)
    for eps in (0.05, 0.5):
        wd = WeightedDeterminizer(st, me, model="network", epsilon=eps, checkpoint=ck)
        lls = []
        for _ in range(3):
            w = wd.candidate(rng)
            assert V.validate(P, w) == 0, V.validate_message(P, w)
            ll_py, end = ti.py_log_likelihood(game, ti.world_history(game, w), me, net, eps)
            assert np.array_equal(end.engine_state, w)
            ll = wd.log_likelihood(w)
            assert np.isfinite(ll) and ll < 0
            assert abs(ll - ll_py) < 1e-9, (name, eps, ll, ll_py)
            lls.append(ll)
        # A network model is not a constant: worlds differ in likelihood.
        assert max(lls) - min(lls) > 1e-3, lls
        # The other players' decisions are weighed, not the observer's own: the
        # heuristic model differs from the network on the same world.
        wh = WeightedDeterminizer(st, me, model="heuristic", epsilon=eps)
        assert abs(wh.log_likelihood(w) - ll) > 1e-6


@pytest.mark.parametrize("seed,played", ti.SMALL_STATES[:2])
def test_2_network_sir_and_pool_match_the_brute_force_posterior(tmp_path, net_probability,
                                                                seed, played):
    game = spiel_game.load(ti.SMALL)
    ck = _checkpoint(tmp_path / "small.npz", game, sharpen=12.0)
    net = NetModel(ck, game)
    st = ti.heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                                 E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    n = game.num_players()
    eps = 0.1
    exact = ti.brute_force(game, st, me, net, eps)
    post = {k: v[1] for k, v in exact.items()}
    prior = {k: v[0] for k, v in exact.items()}
    assert 0.5 * sum(abs(post[k] - prior[k]) for k in exact) > 0.05    # the test has power
    # SIR with many candidates: draws follow the posterior.
    wd = WeightedDeterminizer(st, me, model="network", worlds=48, epsilon=eps, checkpoint=ck)
    rng = make_rng_state(seed, 0)
    s = np.empty_like(wd.root)
    counts = collections.Counter(ti.hidden_key(wd.P, wd.sample_into(s, rng), me, n)
                                 for _ in range(1500))
    assert ti.chisquare(post, counts) > ALPHA, (counts, post)
    assert 1.0 <= wd.mean_ess() < 48
    # The root-level pool: its weighted distribution is the posterior.
    pool = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 8000, make_rng_state(seed, 2))
    keys = [ti.hidden_key(wd.P, pool.pool[i], me, n) for i in range(pool.m)]
    weighted = collections.Counter()
    for k, w in zip(keys, pool.weights):
        weighted[k] += w
    assert 0.5 * sum(abs(weighted[k] - post[k]) for k in exact) < 0.04
    r = make_rng_state(seed, 3)
    picks = collections.Counter(keys[pool_pick(pool.cum, pool.m, r)] for _ in range(3000))
    assert ti.chisquare(dict(weighted), picks) > ALPHA


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    game = spiel_game.load({"players": 6})
    return game, _checkpoint(tmp_path_factory.mktemp("net6") / "net6.npz", game)


def test_3_agents_with_the_network_model_play_legal_moves_and_repeat(six):
    game, ck = six
    st = ti.heuristic_game_state(game, 12, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 25)
    me = st.current_player()
    before = str(st)
    for spec, key in ((f"ismcts(iterations=40, belief='network(checkpoint=\"{ck}\", "
                       f"worlds=3)')", "belief_mean_ess"),
                      (f"ismcts(iterations=40, belief='network(checkpoint=\"{ck}\", "
                       f"pool=16, min_ess=4)')", "belief_pool_ess"),
                      (f"pimc(worlds=3, rollouts=1, belief='network(checkpoint=\"{ck}\")')",
                       "belief_mean_ess")):
        acts = []
        for _ in range(2):
            bot = make_agent(spec, game, me, 9)
            acts.append(bot.step(st))
            assert bot.last_search[key] >= 1.0, (spec, bot.last_search)
        assert acts[0] == acts[1] and acts[0] in st.legal_actions(), spec
    assert str(st) == before


def test_3_the_network_model_is_not_the_heuristic_one(six):
    """The same search, seed and candidates with the network model and with
    the heuristic one weigh the worlds differently (the model is really used)."""
    game, ck = six
    st = ti.heuristic_game_state(game, 4, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 30)
    me = st.current_player()
    a = make_agent(f"ismcts(iterations=200, belief='network(checkpoint=\"{ck}\", pool=32)')",
                   game, me, 3)
    b = make_agent("ismcts(iterations=200, belief='heuristic(pool=32)')", game, me, 3)
    a.step(st)
    b.step(st)
    assert a.last_search["belief_pool_ess"] != b.last_search["belief_pool_ess"]


def test_4_bad_network_parameters_name_the_parameter(six, tmp_path):
    game, ck = six
    other = _checkpoint(tmp_path / "net7.npz", spiel_game.load({"players": 7}))
    bad = [("ismcts(belief='network')", "belief='network(checkpoint=PATH)'"),
           ("pimc(belief='network')", "belief='network(checkpoint=PATH)'"),
           (f"ismcts(belief='heuristic(checkpoint=\"{ck}\")')",
            "'heuristic' has no keyword 'checkpoint'"),
           ("ismcts(belief='network(checkpoint=\"/no/such.npz\")')",
            "checkpoint='/no/such.npz'"),
           (f"ismcts(belief='network(checkpoint=\"{other}\")')", "covers players [7]"),
           (f"ismcts_bias(checkpoint='{ck}', belief_checkpoint='{ck}')", "belief_checkpoint")]
    for spec, want in bad:
        with pytest.raises(AgentSpecError) as e:
            make_agent(spec, game, 0, 1)
        assert want in str(e.value), (spec, str(e.value))
    P = game.engine_params
    with pytest.raises(AgentParameterError, match="other models take none"):
        make_belief(P, 0, "heuristic", network=("not", "a network"))
    with pytest.raises(AgentParameterError, match="network must be"):
        make_belief(P, 0, "network", network=("not", "a network"))


def test_the_true_world_is_at_least_as_likely_under_the_model_that_played_it(six):
    """Every seat plays the network's argmax: in the world that really happened,
    each of the others' plays is the network's most probable card, so with a
    small eps the true world is among the most likely candidates."""
    game, ck = six
    ev = NetEvaluator(ck)
    rng = np.random.default_rng(8)
    st = game.new_initial_state()
    while int(st.engine_state[E.S_NPLAYED]) < 30 or st.is_chance_node():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))]))
            continue
        probs, _ = ev.evaluate(game, np.array(st.engine_state, np.int32))
        st.apply_action(int(np.argmax(probs[0])))
    me = st.current_player()
    wd = WeightedDeterminizer(st, me, model="network", epsilon=0.01, checkpoint=ck)
    true_ll = wd.log_likelihood(np.array(st.engine_state))
    r = make_rng_state(8, 1)
    others = [wd.log_likelihood(wd.candidate(r)) for _ in range(100)]
    assert np.isfinite(true_ll)
    assert true_ll > np.quantile(others, 0.9), (true_ll, sorted(others)[-5:])
    assert all(math.isfinite(x) for x in others)


def test_the_cost_bench_times_the_network_model(six):
    """``experiments.bench.inference --checkpoint``: the network model is timed
    beside the hand-written ones, and its weighted world costs more than a
    plain determinization (it replays the hand with a forward pass a play)."""
    from experiments.bench import inference as bench
    _, ck = six
    res = bench.run(players=(6,), played=(30,), repeats=1, number=4, worlds=4, checkpoint=ck)
    row = res["rows"][0]
    assert res["config"]["timed_models"] == ["random", "heuristic", "network"]
    assert row["weighted_network_ratio"] > 1.0 and 1.0 <= row["ess_network"] <= 4.0
    table = bench.table(res)
    assert "| network |" in table.splitlines()[0] and table.count("\n") == 2
    plain = bench.run(players=(6,), played=(30,), repeats=1, number=2, worlds=2)
    assert "network" not in bench.table(plain)
    with pytest.raises(AgentParameterError, match="--checkpoint='/no/such.npz'"):
        bench.run(players=(6,), played=(30,), repeats=1, number=2, checkpoint="/no/such.npz")
