"""The learned card-location model (solvers.beliefs._location) and ISMCTS's belief='location'."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers._base.bots import AgentParameterError
from solvers.beliefs._replay import make_belief
from spiel_game._determinize import make_determinization
from solvers.beliefs import _location as LOC
from solvers.net._checkpoint import CheckpointError
from solvers.net._features import FeatureLayout
from solvers._registry import AgentSpecError, make_agent
from spiel_game import _engine as E
from spiel_game._rng import make_rng_state

K = E.K


def collect(players: int, hands: int, seed: int) -> dict:
    """Every play-phase decision of ``hands`` hands with the heuristic in every
    seat (hand ``h`` dealt from ``default_rng([seed, h])``), in the layout
    :func:`solvers.beliefs._location.prepare_collection` reads (what
    ``research/scripts/card_location.py collect`` writes)."""
    from solvers.net._selfplay import play_hand
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": players})
    bots = [make_agent("heuristic", game, q, seed=q) for q in range(players)]
    states, observers, hand = [], [], []
    for h in range(hands):
        for b in bots:
            b.restart()

        def decide(st, cur, h=h):
            s = np.array(st.engine_state, np.int32)
            if s[E.S_PHASE] in (E.PH_PLAY, E.PH_MOON):
                states.append(s)
                observers.append(cur)
                hand.append(h)
            return bots[cur].step(st)
        play_hand(game, np.random.default_rng([seed, h]), decide)
    return {"states": np.array(states, np.int32), "observers": np.array(observers, np.int64),
            "hand": np.array(hand, np.int64),
            "meta": {"config": {"players": players, "hands": hands, "agent": "heuristic",
                                "seed": seed}}}


@pytest.fixture(scope="module")
def six():
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    data = collect(6, 4, seed=5)
    prep = LOC.prepare_collection(data, prior_worlds=64, seed=0)
    return game, data, prep


def _model(layout, hidden=4, entry=None, value=0.0):
    """A model whose correction is ``value`` on relative row/card ``entry`` and 0 elsewhere."""
    rows = layout.max_players - 1
    params = {"embed": np.zeros((layout.size, hidden)), "b0": np.zeros(hidden),
              "wp": np.zeros((hidden, rows * K)), "w1": np.zeros((hidden, hidden)),
              "b1": np.zeros(hidden), "wo": np.zeros((rows * K, hidden)),
              "bo": np.zeros(rows * K)}
    if entry is not None:
        params["bo"][entry[0] * K + entry[1]] = value
    return LOC.LocationModel(params, layout, {"prior_worlds": 64})


def test_tilt_log_weights_is_the_sum_of_counts_times_z():
    gen = np.random.default_rng(0)
    counts = gen.integers(0, 3, size=(7, 6, K)).astype(float)
    z = gen.normal(size=(6, K))
    want = [sum(counts[i, q, c] * z[q, c] for q in range(6) for c in range(K))
            for i in range(7)]
    np.testing.assert_allclose(LOC.tilt_log_weights(counts, z), want, rtol=1e-12)


def test_prepared_rows_hold_the_true_hands_and_a_prior_that_never_rules_them_out(six):
    game, data, prep = six
    P = np.asarray(game.new_initial_state().engine_params)
    deck = E.deck(P)
    hb = int(P[E.L_HANDS])
    assert len(prep["observers"]) == len(data["observers"]) > 100
    # The prior is sampled: 64 worlds can miss a rare holding (they do once in
    # these 320 decisions), so its support is checked with 4,096 worlds.
    every7 = {**data, **{k: data[k][::7] for k in ("states", "observers", "hand")}}
    wide = LOC.prepare_collection(every7, prior_worlds=4096, seed=1)["prior"]
    for b in range(0, len(prep["observers"]), 7):
        s, me = data["states"][b], int(data["observers"][b])
        hands = s[hb:hb + 6 * K].reshape(6, K)
        np.testing.assert_allclose(prep["prior"][b][me], hands[me])   # own hand: known
        for r in range(5):
            q = (me + r + 1) % 6
            np.testing.assert_array_equal(prep["truth"][b, r], hands[q])
            # where the prior puts no copy, the truth has none
            assert not np.any((wide[b // 7][q] == 0) & (hands[q] > 0))
            np.testing.assert_array_equal(
                prep["live"][b, r], (prep["prior"][b][q] > 0) & (prep["prior"][b][q] < deck))
    # the other seats hold, on average over the prior, every copy the observer cannot see
    b = len(prep["observers"]) // 2
    s, me = data["states"][b], int(data["observers"][b])
    others = np.delete(np.arange(6), me)
    hands = s[hb:hb + 6 * K].reshape(6, K)
    np.testing.assert_allclose(prep["prior"][b][others].sum(axis=0),
                               hands[others].sum(axis=0), atol=1e-9)


def test_training_lowers_the_loss_from_the_prior(six):
    import torch
    _, _, prep = six
    model, curve = LOC.train_location([prep], hidden=16, steps=150, batch_size=32,
                                      seed=0, valid_share=0.0)
    rows = np.arange(len(prep["p0"]))
    deck = torch.from_numpy(prep["deck"])
    zero = LOC._torch_model(model.layout.size, 5, 16, 0)      # z = 0: the prior
    with torch.no_grad():
        before = float(LOC._loss(zero, prep, rows, deck))
    trained = LOC._torch_model(model.layout.size, 5, 16, 0)
    sd = {"embed.weight": model.params["embed"], "b0": model.params["b0"],
          "wp.weight": model.params["wp"], "l1.weight": model.params["w1"],
          "l1.bias": model.params["b1"], "out.weight": model.params["wo"],
          "out.bias": model.params["bo"]}
    trained.load_state_dict({k: torch.from_numpy(np.asarray(v, np.float32))
                             for k, v in sd.items()})
    with torch.no_grad():
        after = float(LOC._loss(trained, prep, rows, deck))
    assert after < before - 0.01
    assert curve[-1]["step"] == 150


def test_the_tilt_moves_the_pool_towards_the_prediction_and_zero_is_the_prior(six):
    game, data, prep = six
    P = np.asarray(game.new_initial_state().engine_params)
    layout = FeatureLayout(players=(6,))
    b = int(np.flatnonzero(prep["live"][:, 0].sum(axis=1) > 10)[0])
    c = int(np.flatnonzero(prep["live"][b, 0])[0])
    s, me = data["states"][b], int(data["observers"][b])
    q = (me + 1) % 6
    record = make_determinization(P, s, me)
    out = {}
    for name, model in (("zero", _model(layout)), ("up", _model(layout, entry=(0, c), value=2.0))):
        bel = make_belief(P, me, "uniform")
        pool = LOC.LocationPool(model, game, P, s, record, bel, 256,
                                make_rng_state(np.uint64(1), 0))
        cnt = np.array([E.hand(P, w, q)[c] for w in pool.pool[:pool.m]], float)
        out[name] = (pool, float(cnt.mean()), float(pool.weights @ cnt))
    zp, zmean, zw = out["zero"]
    assert zp.ess == pytest.approx(zp.m) and zw == pytest.approx(zmean)
    up, umean, uw = out["up"]
    assert up.z[q, c] == 2.0 and np.count_nonzero(up.z) == 1
    assert uw > umean + 0.05 and up.ess < up.m


def test_checkpoint_round_trip_and_damaged_files(six, tmp_path):
    game, data, prep = six
    model, curve = LOC.train_location([prep], hidden=8, steps=20, batch_size=16, seed=1)
    path = LOC.save_location(tmp_path / "loc.npz", model, {"note": "test"}, curve)
    again = LOC.load_location(path)
    s, me, prior = data["states"][3], int(data["observers"][3]), prep["prior"][3]
    np.testing.assert_allclose(again.z(game, s, me, prior), model.z(game, s, me, prior),
                               rtol=1e-6, atol=1e-7)
    assert again.config["note"] == "test" and again.config["curve"] == curve
    bad = tmp_path / "bad.npz"
    bad.write_bytes(path.read_bytes()[:200])
    with pytest.raises(CheckpointError, match="bad.npz"):
        LOC.load_location(bad)
    with pytest.raises(CheckpointError, match="does not exist"):
        LOC.load_location(tmp_path / "missing.npz")
    eleven = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 11})
    with pytest.raises(AgentSpecError, match="covers players \\[6\\], not 11"):
        make_agent(f"ismcts(belief='location(pool=8, checkpoint=\"{path}\")')", eleven, 0)


def test_the_location_agent_plays_legal_moves_and_repeats(six, tmp_path):
    game, _, prep = six
    model, curve = LOC.train_location([prep], hidden=8, steps=20, batch_size=16, seed=1)
    path = LOC.save_location(tmp_path / "loc.npz", model, {}, curve)
    spec = (f"ismcts(iterations=40, rollout='heuristic', belief='location(pool=32, "
            f"min_ess=4, checkpoint=\"{path}\")')")

    def play():
        bots = [make_agent(spec if q == 0 else "heuristic", game, q, seed=q) for q in range(6)]
        gen = np.random.default_rng(3)
        st = game.new_initial_state()
        ess = []
        while not st.is_terminal():
            if st.is_chance_node():
                o, p = zip(*st.chance_outcomes())
                st.apply_action(o[gen.choice(len(o), p=np.array(p) / sum(p))])
                continue
            a = bots[st.current_player()].step(st)
            assert a in st.legal_actions()
            if st.current_player() == 0 and "belief_pool_ess" in bots[0].last_search:
                ess.append(bots[0].last_search["belief_pool_ess"])
            st.apply_action(a)
        return st.returns(), ess

    r1, e1 = play()
    r2, e2 = play()
    assert r1 == r2 and e1 == e2 and len(e1) > 5
    assert all(4 - 1e-6 <= e <= 32 + 1e-6 for e in e1)


@pytest.mark.parametrize("spec,match", [
    ("ismcts(belief='location(checkpoint=\"X\")')", "pool=0 is not allowed"),
    ("ismcts(belief='location(pool=8, mcmc=3, checkpoint=\"X\")')",
     "mcmc=3 is not allowed"),
    ("ismcts(belief='location(pool=8)')", "needs a checkpoint"),
    ("ismcts(belief='location(pool=8, checkpoint=\"/nonexistent.npz\")')",
     "does not exist"),
    ("pimc(belief='location(checkpoint=\"X\")')", "pool=0 is not allowed"),
    ("pimc(belief='location', belief_pool=8)", "did you mean belief='location\\(pool=8\\)'"),
])
def test_bad_location_parameters_name_the_parameter(spec, match):
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    with pytest.raises(AgentSpecError, match=match):
        make_agent(spec, game, 0)
    assert issubclass(AgentSpecError, ValueError) and AgentParameterError


def test_early_stopping_keeps_the_step_with_the_lowest_held_out_loss(six):
    _, data, prep = six
    kw = dict(hidden=8, steps=60, batch_size=16, seed=2, valid_share=0.25, eval_every=20)
    last, curve = LOC.train_location([prep], **kw)
    best, curve2 = LOC.train_location([prep], early_stop=True, **kw)
    assert curve == curve2 and [p["step"] for p in curve] == [0, 20, 40, 60]
    want = min(curve, key=lambda p: p["valid"])["step"]
    assert best.config["best_step"] == want and last.config["best_step"] == 60
    if want != 60:
        assert not np.allclose(best.params["wo"], last.params["wo"])
    if want == 0:       # the prior itself: no correction anywhere
        assert not best.params["wo"].any() and not best.params["bo"].any()


def test_excluded_pieces_are_not_read(six):
    game, data, prep = six
    layout = FeatureLayout(players=(6,))
    keep = LOC.feature_mask(layout, ("dealt_hand", "hand"))
    names = {name: (off, int(np.prod(shape))) for name, off, shape in layout.pieces}
    off, size = names["hand"]
    assert not keep[off:off + size].any() and keep.sum() == layout.size - size - names[
        "dealt_hand"][1]
    with pytest.raises(ValueError, match="unknown pieces \\['cards'\\]; allowed: seat"):
        LOC.feature_mask(layout, ("cards",))
    model, _ = LOC.train_location([prep], hidden=8, steps=30, batch_size=16, seed=1,
                                  exclude=("dealt_hand", "hand"))
    assert model.config["exclude"] == ["dealt_hand", "hand"]
    # a first-layer weight on an excluded input changes nothing; on a kept one it does
    s, me, prior = data["states"][5], int(data["observers"][5]), prep["prior"][5]
    z0 = model.z(game, s, me, prior)
    idx, _, _ = layout.sparse(game, s[None], [me])
    dropped, kept = idx[~keep[idx]], idx[keep[idx]]
    assert len(dropped) and len(kept)
    model.params["embed"][dropped] += 5.0
    np.testing.assert_array_equal(model.z(game, s, me, prior), z0)
    model.params["embed"][kept[:3]] += 5.0
    assert not np.array_equal(model.z(game, s, me, prior), z0)
