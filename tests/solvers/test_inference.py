"""Inference-weighted determinization (solvers/beliefs/_replay.py).

What is checked, against the module docstring of :mod:`solvers.beliefs._replay`:

(1) The compiled log-likelihood of a world equals one computed independently
    in plain Python through pyspiel states (the world's history replayed with
    ``state.apply_action``; the model's probabilities from
    ``state.legal_actions()`` and the heuristic called from Python; the pass
    to the observer summed over every distinct order with ``itertools``), to
    1e-9, for every world, in games with passing, a kitty, the opening-card
    lead and the classic rules; the completed world is a consistent engine
    state whose history the observer cannot tell from the real one.
(2) On a small deck the exact posterior (prior of the shuffle x likelihood
    of the other players' plays, by enumerating every split of the unseen
    cards) matches SIR draws with many candidates (chi-square, fixed seeds),
    for the softened heuristic and the random model.
(3) The uniform model reproduces the plain determinizer's distribution (chi-square against the
    brute-force prior) and leaves the agents bit-identical.
(4) Bad parameters raise errors naming the parameter and what is allowed.

All randomness is seeded; statistical tests use p > 0.001.
"""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np
import pytest
import scipy.stats

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game import _validation as V
from spiel_game._rng import make_rng_state
from solvers._base.bots import AgentParameterError
from solvers._base.heuristic import heuristic_policy
from solvers.beliefs import HeuristicBelief, LocationBelief, RandomBelief
from solvers.beliefs._replay import MODELS, WeightedDeterminizer, make_belief
from solvers._ismcts import ISMCTSBot
from solvers._pimc import PIMCBot
from solvers._registry import AgentSpecError, make_agent

K = C.NUM_CARD_TYPES
ALPHA = 1e-3


# ---------------------------------------------------------------- helpers
def heuristic_game_state(game, seed, stop):
    """Play chance by its probabilities and every seat by the heuristic until
    ``stop(state)`` holds at a decision point with more than one legal action."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    hrng = np.zeros(1, np.uint64)
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))]))
            continue
        legal = st.legal_actions()
        if len(legal) > 1 and stop(st):
            return st
        arr = np.array(legal, np.int32)
        st.apply_action(int(heuristic_policy(st.engine_params, np.array(st.engine_state), arr,
                                             len(arr), hrng)))
    raise AssertionError("the game ended before the stop condition")


def py_probability(model, eps, st, a):
    """The model's probability of ``a`` in pyspiel state ``st``, from Python."""
    legal = st.legal_actions()
    if a not in legal:
        return 0.0
    k = len(legal)
    if model == "random":
        return 1.0 / k
    h = int(heuristic_policy(st.engine_params, np.array(st.engine_state),
                             np.array(legal, np.int32), k, np.zeros(1, np.uint64)))
    return (1 - eps) * (a == h) + eps / k


def world_history(game, w):
    """A history (chance as player -1) reaching the complete single-hand world
    ``w``: the deal in R4 order from the dealt hands and the kitty, each seat's
    passes in passing order, then the plays."""
    r = game.rules
    P = game.engine_params
    n, T = r.players, r.hand_size
    dealer = int(w[E.S_DEALER])
    lists = [[int(c) for c in np.repeat(np.arange(K), E.dealt_hand(P, w, q))] for q in range(n)]
    seq = [lists[(dealer + 1 + i) % n][i // n] for i in range(n * T)]
    seq += [int(c) for c in np.repeat(np.arange(K), E.kitty(P, w))] if r.kitty_size else []
    hist = [(-1, a) for a in seq]
    pc = int(P[E.P_PASS])
    if pc and int(w[E.S_PASSOFF]) % n:
        for i in range(n):
            q = (dealer + 1 + i) % n
            hist += [(q, int(c)) for c in E.pass_choices(P, w, q)[:pc]]
    seats = np.empty(n * T, np.int64)
    cards = np.empty(n * T, np.int64)
    m = E.plays(P, w, seats, cards)
    hist += list(zip(seats[:m].tolist(), cards[:m].tolist()))
    return hist


def py_log_likelihood(game, hist, me, model, eps):
    """The log-likelihood of the decisions ``me`` saw, by replaying ``hist`` in pyspiel."""
    n = game.num_players()
    st = game.new_initial_state()
    ll = 0.0
    done_giver = False
    for i, (q, a) in enumerate(hist):
        if q >= 0:
            assert st.current_player() == q
            phase = int(st.engine_state[E.S_PHASE])
            off = int(st.engine_state[E.S_PASSOFF]) % n
            if phase == E.PH_PASS and q == (me - off) % n and not done_giver:
                pc = int(game.engine_params[E.P_PASS])
                got = [b for _, b in hist[i:i + pc]]
                total = 0.0
                for order in set(itertools.permutations(got)):
                    c = st.clone()
                    pr = 1.0
                    for b in order:
                        pr *= py_probability(model, eps, c, b)
                        if pr == 0:
                            break
                        c.apply_action(b)
                    total += pr
                ll += math.log(total)
                done_giver = True
            elif phase == E.PH_PLAY and q != me:
                ll += math.log(py_probability(model, eps, st, a))
        st.apply_action(a)
    return ll, st


# ---------------------------------------------------------------- (1)
LIKELIHOOD_CONFIGS = [
    ("balanced6_pass4", {"players": 6}, 40),
    ("kitty7", {"deck": "kitty", "players": 7}, 30),
    ("classic", spiel_game.preset("classic"), 20),
    ("custom_3p_pass_right", {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA",
                              "packs": 3, "pass_count": 2, "pass_offset": -1}, 7),
    ("custom_4p_opening_card", {"deck": "custom", "players": 4, "suits": "CDHS",
                                "ranks": "2QKA", "packs": 1, "first_lead": "opening_card",
                                "pass_count": 1}, 5),
]


@pytest.mark.parametrize("name,params,played", LIKELIHOOD_CONFIGS,
                         ids=[c[0] for c in LIKELIHOOD_CONFIGS])
def test_1_compiled_log_likelihood_equals_pyspiel_replay(name, params, played):
    game = spiel_game.load(params)
    P = game.engine_params
    for seed in range(2):
        st = heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                                  E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
        me = st.current_player()
        want = st.information_state_string(me)
        rng = make_rng_state(seed, 7)
        for model, eps in (("heuristic", 0.1), ("heuristic", 0.6), ("random", 0.1)):
            wd = WeightedDeterminizer(st, me, model=model, epsilon=eps)
            for _ in range(2):
                w = wd.candidate(rng)
                assert V.validate(P, w) == 0, V.validate_message(P, w)
                hist = world_history(game, w)
                ll_py, end = py_log_likelihood(game, hist, me, model, eps)
                # The completed world is a real state the observer cannot tell apart.
                assert np.array_equal(end.engine_state, w), name
                assert end.information_state_string(me) == want, name
                ll = wd.log_likelihood(w)
                assert np.isfinite(ll) and ll < 0
                assert abs(ll - ll_py) < 1e-9, (name, model, eps, ll, ll_py)
                # The real world is consistent too.
                assert np.isfinite(wd.log_likelihood(np.array(st.engine_state)))


def test_1_heuristic_with_epsilon_one_is_the_random_model():
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 3, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 30)
    me = st.current_player()
    a = WeightedDeterminizer(st, me, model="heuristic", epsilon=1.0)
    b = WeightedDeterminizer(st, me, model="random")
    u = WeightedDeterminizer(st, me, model="uniform")
    rng = make_rng_state(3, 0)
    for _ in range(5):
        w = a.candidate(rng)
        assert abs(a.log_likelihood(w) - b.log_likelihood(w)) < 1e-12
        assert u.log_likelihood(w) == 0.0


# ---------------------------------------------------------------- (2), (3)
SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}


def hidden_key(P, s, me, n):
    return tuple(C.cards_to_string(E.hand(P, s, q)) for q in range(n) if q != me)


def brute_force(game, st, me, model, eps):
    """{hidden hands: (prior, posterior)} over every split of the unseen cards
    among the other seats, kept when the real plays are legal with it and the
    observer's information-state string is the real one. Prior: the shuffle's
    probability of the dealt hands (multinomial over each card's copies);
    likelihood: :func:`py_log_likelihood` (``model=None``: 1)."""
    r = game.rules
    P = game.engine_params
    n, T = r.players, r.hand_size
    s = np.array(st.engine_state)
    seats = np.empty(n * T, np.int64)
    cards = np.empty(n * T, np.int64)
    m = E.plays(P, s, seats, cards)
    played = np.zeros((n, K), int)
    for q, c in zip(seats[:m], cards[:m]):
        played[q, c] += 1
    pool = np.array(r.deck_counts) - E.hand(P, s, me) - played.sum(axis=0)
    others = [q for q in range(n) if q != me]
    sizes = [int(E.hand(P, s, q).sum()) for q in others]
    phys = [c for c in range(K) for _ in range(pool[c])]
    want = st.information_state_string(me)
    plays = list(zip(seats[:m].tolist(), cards[:m].tolist()))
    out = {}
    seen = set()
    for combo in itertools.combinations(range(len(phys)), sizes[0]):
        first = np.zeros(K, int)
        for i in combo:
            first[phys[i]] += 1
        if first.tobytes() in seen:
            continue
        seen.add(first.tobytes())
        hands_now = {others[0]: first, others[1]: pool - first, me: E.hand(P, s, me)}
        dealt = [hands_now[q] + played[q] for q in range(n)]
        lists = [[int(c) for c in np.repeat(np.arange(K), dealt[q])] for q in range(n)]
        hist = [(-1, lists[i % n][i // n]) for i in range(n * T)] + plays   # dealer n-1
        try:
            ll, end = py_log_likelihood(game, hist, me, model, eps) if model else (0.0, None)
            if end is None:
                end = game.new_initial_state()
                for _, a in hist:
                    end.apply_action(a)
        except Exception:          # a play illegal with these hands (pyspiel refuses it)
            continue
        if end.information_state_string(me) != want:
            continue
        prior = 1.0
        for q in others:
            for c in range(K):
                prior /= math.factorial(int(dealt[q][c]))
        key = hidden_key(P, end.engine_state, me, n)
        out[key] = (prior, prior * math.exp(ll))
    zp = sum(v[0] for v in out.values())
    zq = sum(v[1] for v in out.values())
    return {k: (a / zp, b / zq) for k, (a, b) in out.items()}


def chisquare(expected, counts):
    outside = set(counts) - set(expected)
    assert not outside, f"draws outside the information set: {sorted(outside)[:3]}"
    n = sum(counts.values())
    keys = sorted(expected, key=lambda k: -expected[k])
    f_exp = [expected[k] * n for k in keys]
    f_obs = [counts[k] for k in keys]
    # Pool the cells expected below 5 into one.
    big = [i for i, e in enumerate(f_exp) if e >= 5]
    rest = [i for i, e in enumerate(f_exp) if e < 5]
    e = [f_exp[i] for i in big] + ([sum(f_exp[i] for i in rest)] if rest else [])
    o = [f_obs[i] for i in big] + ([sum(f_obs[i] for i in rest)] if rest else [])
    assert len(e) >= 3, "test design: too few cells for a chi-square test"
    return scipy.stats.chisquare(o, e).pvalue


def draws(st, me, model, eps, worlds, count, seed):
    wd = WeightedDeterminizer(st, me, model=model, worlds=worlds, epsilon=eps)
    rng = make_rng_state(seed, 0)
    s = np.empty_like(wd.root)
    n = st.get_game().num_players()
    return collections.Counter(hidden_key(wd.P, wd.sample_into(s, rng), me, n)
                               for _ in range(count)), wd


SMALL_STATES = [(0, 2), (5, 3), (4, 2)]          # (seed, cards played)


@pytest.mark.parametrize("seed,played", SMALL_STATES)
def test_2_sir_matches_the_brute_force_posterior(seed, played):
    game = spiel_game.load(SMALL)
    st = heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                              E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    P = game.engine_params
    for model, eps in (("heuristic", 0.5), ("random", 0.1)):
        exact = brute_force(game, st, me, model, eps)
        post = {k: v[1] for k, v in exact.items()}
        # The evidence moves the distribution (the test has power) ...
        assert sum(abs(v[1] - v[0]) for v in exact.values()) > 0.05, (model, exact)
        # ... and every consistent world's compiled log-likelihood is the brute force's.
        wd = WeightedDeterminizer(st, me, model=model, epsilon=eps)
        rng = make_rng_state(seed, 1)
        for _ in range(30):
            w = wd.candidate(rng)
            key = hidden_key(P, w, me, game.num_players())
            ll_py, _ = py_log_likelihood(game, world_history(game, w), me, model, eps)
            assert abs(wd.log_likelihood(w) - ll_py) < 1e-9
            assert key in exact
        counts, wd = draws(st, me, model, eps, 48, 2000, seed)
        p = chisquare(post, counts)
        assert p > ALPHA, (model, p, counts, post)
        assert 1.0 <= wd.mean_ess() <= 48


@pytest.mark.parametrize("seed,played", SMALL_STATES[:2])
def test_3_uniform_model_is_todays_distribution(seed, played):
    game = spiel_game.load(SMALL)
    st = heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                              E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    prior = {k: v[0] for k, v in brute_force(game, st, me, None, 0.1).items()}
    counts, _ = draws(st, me, "uniform", 0.1, 5, 2000, seed)
    assert chisquare(prior, counts) > ALPHA
    # The heuristic posterior is a different distribution (the test can tell them apart).
    post = {k: v[1] for k, v in brute_force(game, st, me, "heuristic", 0.1).items()}
    assert sum(abs(post[k] - prior[k]) for k in prior) > 0.2


def test_3_uniform_belief_leaves_the_agents_bit_identical():
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 11, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 20)
    me = st.current_player()
    a = ISMCTSBot(game, me, 5, iterations=300).search(st)
    b = make_agent("ismcts(iterations=300, belief='uniform')", game, me, 5).search(st)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    pa = PIMCBot(game, me, 5, worlds=3, rollouts=1).action_values(st)
    pb = make_agent("pimc(worlds=3, rollouts=1, belief='uniform')", game, me, 5).action_values(st)
    for x, y in zip(pa, pb):
        assert np.array_equal(x, y)


def test_weighted_agents_play_legal_moves_and_repeat_with_their_seed():
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 12, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 25)
    me = st.current_player()
    before = str(st)
    for spec in ("ismcts(iterations=60, belief='heuristic(worlds=4)')",
                 "ismcts(iterations=60, belief='random(worlds=3)', rollout='heuristic')",
                 "pimc(worlds=4, rollouts=1, belief='heuristic(epsilon=0.3)')"):
        acts = []
        for _ in range(2):
            bot = make_agent(spec, game, me, 9)
            acts.append(bot.step(st))
            ess = bot.last_search["belief_mean_ess"]
            assert 1.0 <= ess <= 4.0, (spec, ess)
        assert acts[0] == acts[1] and acts[0] in st.legal_actions(), spec
    assert str(st) == before
    # Passing phase: nothing of the others seen yet, the plain determinizer is used.
    sp = heuristic_game_state(game, 13, lambda s: int(s.engine_state[E.S_PHASE]) == E.PH_PASS)
    bot = make_agent("ismcts(iterations=30, belief='heuristic')", game, sp.current_player(), 1)
    assert bot.step(sp) in sp.legal_actions()


@pytest.mark.parametrize("seed,played", SMALL_STATES[:2])
def test_2_world_pool_matches_the_brute_force_posterior(seed, played):
    """Root-level inference (:class:`WorldPool`): the pool's weighted distribution of
    the hidden hands is the exact posterior (total variation < 0.03 with 20,000
    candidates, where the unweighted pool is the prior, > 0.05 away), and the
    search's draws from the pool follow its weights (chi-square)."""
    from solvers.beliefs._replay import WorldPool, pool_pick
    game = spiel_game.load(SMALL)
    st = heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                              E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    n = game.num_players()
    exact = brute_force(game, st, me, "heuristic", 0.5)
    post = {k: v[1] for k, v in exact.items()}
    prior = {k: v[0] for k, v in exact.items()}
    wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=0.5)
    pool = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 20_000, make_rng_state(seed, 2))
    assert pool.m == 20_000 and 1.0 <= pool.ess <= pool.m
    keys = [hidden_key(wd.P, pool.pool[i], me, n) for i in range(pool.m)]
    assert set(keys) <= set(exact)
    weighted = collections.Counter()
    for k, w in zip(keys, pool.weights):
        weighted[k] += w
    tv = 0.5 * sum(abs(weighted[k] - post[k]) for k in exact)
    assert tv < 0.03, (tv, weighted, post)
    assert 0.5 * sum(abs(post[k] - prior[k]) for k in exact) > 0.05    # the test has power
    rng = make_rng_state(seed, 3)
    picks = collections.Counter(keys[pool_pick(pool.cum, pool.m, rng)] for _ in range(4000))
    assert chisquare(dict(weighted), picks) > ALPHA


@pytest.mark.parametrize("seed,played", SMALL_STATES[:2])
def test_2_mcmc_moves_reach_the_brute_force_posterior(seed, played):
    """The Metropolis-Hastings moves of the resample-move pool leave the exact
    posterior invariant and mix: independent chains started from the *prior*
    (no resampling: ``min_ess`` = the pool) end distributed as the brute-force
    posterior (chi-square), for the heuristic and the random model; the prior
    itself is rejected by the same test (power)."""
    from solvers.beliefs._replay import WorldPool
    game = spiel_game.load(SMALL)
    st = heuristic_game_state(game, seed, lambda s: int(s.engine_state[E.S_PHASE]) ==
                              E.PH_PLAY and int(s.engine_state[E.S_NPLAYED]) >= played)
    me = st.current_player()
    n = game.num_players()
    for model, eps in (("heuristic", 0.5), ("random", 0.1)):
        exact = brute_force(game, st, me, model, eps)
        post = {k: v[1] for k, v in exact.items()}
        prior = {k: v[0] for k, v in exact.items()}
        wd = WeightedDeterminizer(st, me, model=model, epsilon=eps)
        rng = make_rng_state(seed, 11)
        start = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 3000, rng, min_ess=3000)
        keys0 = collections.Counter(hidden_key(wd.P, start.pool[i], me, n)
                                    for i in range(start.m))
        assert chisquare(prior, keys0) > ALPHA                # the start is the prior ...
        assert chisquare(post, keys0) < ALPHA                 # ... which is not the posterior
        moved = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 3000, rng, min_ess=3000,
                          mcmc=40)
        assert 0.0 < moved.accept <= 1.0 and np.allclose(moved.weights, 1 / 3000)
        keys = collections.Counter(hidden_key(wd.P, moved.pool[i], me, n)
                                   for i in range(moved.m))
        assert chisquare(post, keys) > ALPHA, (model, keys, post)
        for i in range(0, moved.m, 97):                       # their log-weights are current
            assert moved.logw[i] == pytest.approx(wd.log_likelihood(moved.pool[i]), abs=1e-9)


def test_mcmc_moves_keep_the_observers_knowledge_with_passing():
    """With passing, the cards the observer passed stay with their receiver until
    played, hand sizes and the observer's hand never change, every moved world
    is consistent with the plays (finite log-likelihood), and the moves raise
    the mean log-likelihood of a prior pool (6 players, heuristic model)."""
    from solvers.beliefs._mcmc import move_constraints
    from solvers.beliefs._replay import WorldPool
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 3, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 30)
    me = st.current_player()
    wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=0.1)
    played, known = move_constraints(wd.P, wd.root, me)
    assert known.sum() > 0                                     # the test has power
    base = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 64, make_rng_state(2, 0),
                     min_ess=64)
    pool = WorldPool(wd.P, wd.root, wd.det.record, wd.belief, 64, make_rng_state(2, 0),
                     min_ess=64, mcmc=60)
    assert pool.accept > 0.05
    assert np.mean(pool.logw) > np.mean(base.logw) + 5.0
    n = game.num_players()
    for w in pool.pool:
        assert np.array_equal(E.hand(wd.P, w, me), E.hand(wd.P, wd.root, me))
        for q in range(n):
            h = E.hand(wd.P, w, q)
            assert h.sum() == E.hand(wd.P, wd.root, q).sum()
            assert np.all(h >= known[q])
            suits = [int(sum(h[c] for c in range(K) if C.SUIT_OF[c] == u)) for u in range(4)]
            assert suits == list(E.suit_counts(wd.P, w, q))
        assert math.isfinite(wd.log_likelihood(w))


def test_ismcts_with_a_world_pool_plays_legal_moves_and_repeats_with_its_seed():
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 12, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 25)
    me = st.current_player()
    before = str(st)
    spec = "ismcts(iterations=200, belief='heuristic(pool=64)', rollout='heuristic')"
    acts = []
    for _ in range(2):
        bot = make_agent(spec, game, me, 9)
        acts.append(bot.step(st))
        ls = bot.last_search
        assert ls["iterations"] == 200 and 1.0 <= ls["belief_pool_ess"] <= ls["belief_pool_kept"]
        assert ls["belief_pool_kept"] <= 64 and "belief_mean_ess" not in ls
    assert acts[0] == acts[1] and acts[0] in st.legal_actions()
    assert str(st) == before
    spec = ("ismcts(iterations=200, belief='heuristic(pool=16, mcmc=20)', "
            "rollout='heuristic')")
    moved = [make_agent(spec, game, me, 9) for _ in range(2)]
    assert moved[0].step(st) == moved[1].step(st) and str(st) == before
    ls = moved[0].last_search
    assert 0.0 < ls["belief_mcmc_accept"] <= 1.0 and ls["belief_pool_kept"] == 16
    assert ls["belief_pool_loglik"] == moved[1].last_search["belief_pool_loglik"]


def test_tempered_weights_keep_the_asked_effective_size_and_no_more_tempering():
    from solvers.beliefs._replay import tempered_weights
    rng = np.random.default_rng(3)
    logw = rng.normal(0.0, 6.0, 200)               # a sharp posterior: one world dominates
    w1, b1 = tempered_weights(logw, 0.0)
    ess = lambda w: 1.0 / float(np.sum(w * w))     # noqa: E731
    assert b1 == 1.0 and ess(w1) < 5.0
    np.testing.assert_allclose(w1, np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum())
    for target in (10.0, 50.0, 150.0):
        w, beta = tempered_weights(logw, target)
        assert 0.0 < beta < 1.0 and abs(w.sum() - 1.0) < 1e-12
        assert target - 1e-6 <= ess(w) < target * 1.001       # the largest beta that reaches it
        # the same order as the posterior: tempering flattens, never reorders
        assert np.array_equal(np.argsort(w, kind="stable"), np.argsort(logw, kind="stable"))
    w, beta = tempered_weights(logw, 1e9)                     # capped at the pool size: prior
    assert beta == 0.0 and np.allclose(w, 1 / 200)
    flat, beta = tempered_weights(np.zeros(7), 7.0)           # already that wide: untouched
    assert beta == 1.0 and np.allclose(flat, 1 / 7)
    for bad in ([], [0.0, np.inf], [[0.0]]):
        with pytest.raises(ValueError, match="logw"):
            tempered_weights(np.asarray(bad, float), 1.0)


def test_a_tempered_pool_keeps_its_worlds_and_reports_the_exponent():
    game = spiel_game.load({"players": 6})
    st = heuristic_game_state(game, 12, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 40)
    me = st.current_player()
    spec = ("ismcts(iterations=100, belief='heuristic(epsilon=0.05, pool=128{})', "
            "rollout='heuristic')")
    sharp = make_agent(spec.format(""), game, me, 4)
    sharp.step(st)
    wide = make_agent(spec.format(", min_ess=24"), game, me, 4)
    act = wide.step(st)
    assert act in st.legal_actions()
    s1, s2 = sharp.last_search, wide.last_search
    assert s1["belief_pool_beta"] == 1.0 and s1["belief_pool_ess"] < 24   # the test has power
    assert 0.0 < s2["belief_pool_beta"] < 1.0 and s2["belief_pool_ess"] >= 24 - 1e-6


# ---------------------------------------------------------------- (4)
BAD = [
    ("ismcts(belief='heuristic(pool=-1)')", "pool=-1", "[0, 65536]"),
    ("ismcts(belief='heuristic(pool=2.5)')", "pool=2.5", "an int"),
    ("ismcts(belief='random(pool=70000)')", "pool=70000", "[0, 65536]"),
    ("ismcts(belief='heuristic(min_ess=-1)')", "min_ess=-1", "[0, 65536]"),
    ("ismcts(belief='heuristic(min_ess=\"x\")')", "min_ess='x'", "a number"),
    ("ismcts(belief='heuristic(mcmc=-1)')", "mcmc=-1", "[0, 10000]"),
    ("ismcts(belief='heuristic(mcmc=1.5)')", "mcmc=1.5", "an int"),
    ("ismcts(belief='heuristic(poo=3)')", "no keyword 'poo'", "did you mean 'pool'?"),
    ("ismcts(belief='heuristic(pool=')", "belief='heuristic(pool='", "belief='NAME(key=value"),
    ("ismcts(belief='uniform(pool=8)')", "'uniform'", "takes no keywords"),
    ("ismcts(belief='heuristics')", "belief='heuristics'", "'uniform', 'random', 'heuristic'"),
    ("ismcts(belief=3)", "belief=3", "HeuristicBelief(pool=64)) or its spec, belief='NAME'"),
    ("ismcts(belief='heuristic(worlds=0)')", "worlds=0", "[1, 1000000]"),
    ("ismcts(belief='heuristic(worlds=2.0)')", "worlds=2.0", "an int"),
    ("ismcts(belief='heuristic(worlds=True)')", "worlds=True", "an int"),
    ("ismcts(belief='heuristic(epsilon=0)')", "epsilon=0", "(0, 1]"),
    ("ismcts(belief='heuristic(epsilon=1.5)')", "epsilon=1.5", "(0, 1]"),
    ("ismcts(belief='heuristic(epsilon=\"x\")')", "epsilon='x'", "a number"),
    # the former flat keywords: refused, with the one form to write instead
    ("ismcts(belief='heuristic', belief_pool=64, belief_mcmc=2)", "no parameter 'belief_pool'",
     "did you mean belief='heuristic(pool=64, mcmc=2)'?"),
    ("pimc(belief='network', belief_checkpoint='n.npz')", "no parameter 'belief_checkpoint'",
     "did you mean belief=\"network(checkpoint='n.npz')\"?"),
    ("ismcts(belief='heuristic', determinization='resample')", "determinization='resample'",
     "allowed: determinization='compiled'"),
    ("pimc(belief='Heuristic')", "belief='Heuristic'", "allowed"),
    ("pimc(belief='heuristic(worlds=-3)')", "worlds=-3", "[1, 1000000]"),
]


@pytest.mark.parametrize("spec,names,allowed", BAD, ids=[b[0] for b in BAD])
def test_4_bad_parameters_name_the_parameter(spec, names, allowed):
    game = spiel_game.load({"players": 6})
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, game, 0, 1)
    msg = str(e.value)
    assert names in msg and allowed in msg, msg


def test_4_make_belief_checks_its_arguments():
    P = spiel_game.load({"players": 6}).engine_params
    with pytest.raises(AgentParameterError, match="belief=.bogus. is not allowed"):
        make_belief(P, 0, "bogus")
    with pytest.raises(AgentParameterError, match="observer 6 is not a seat; allowed 0..5"):
        make_belief(P, 6)
    with pytest.raises(AgentParameterError, match="epsilon=-0.1"):
        make_belief(P, 0, epsilon=-0.1)
    assert set(MODELS) == {"uniform", "random", "heuristic", "network"}
    with pytest.raises(AgentParameterError, match="'network' model needs network="):
        make_belief(P, 0, "network")


@pytest.mark.parametrize("params", [{"players": 6, "pass_count": 0}, {"players": 5}])
def test_the_true_world_of_heuristic_players_is_as_likely_as_the_model_allows(params):
    """Every seat plays the heuristic, so in the world that really happened each
    of the others' plays is the model's own card: its likelihood is the product
    of ``1 - eps + eps / k`` over those plays (``k`` legal cards), counted here
    on the pyspiel history, with no passing; with passing it is at least that
    (the pass to the observer is the heuristic's too). The proposal-gap
    study (``research/scripts/belief_quality.py``) reads this number against the
    sampler's candidates."""
    from experiments.bench.inference import heuristic_state
    from solvers.beliefs._replay import WeightedDeterminizer
    eps = 0.1
    game = spiel_game.load(params)
    st = heuristic_state(game, 4, 37)
    me = st.current_player()
    want = 0.0
    replay = game.new_initial_state()
    for a in st.history():
        if (not replay.is_chance_node() and replay.current_player() != me
                and int(replay.engine_state[E.S_PHASE]) == E.PH_PLAY):
            k = len(replay.legal_actions())
            want += math.log(1 - eps + eps / k)
        replay.apply_action(a)
    wd = WeightedDeterminizer(st, me, model="heuristic", epsilon=eps)
    got = wd.log_likelihood(np.array(st.engine_state))
    if params.get("pass_count") == 0:
        assert got == pytest.approx(want, abs=1e-9)
    else:
        assert got <= want + 1e-9 and math.isfinite(got)


def test_persistent_chains_carry_worlds_forward_consistently():
    """``persist``: a pool's worlds carried to a later position of the
    same hand keep every hand's size and the observer's knowledge, are
    consistent with every play since (finite log-likelihood, the one
    recorded), and most are carried rather than redrawn; the agent carries
    its chains within a hand and starts afresh in a new hand."""
    from solvers.beliefs._mcmc import move_constraints
    from solvers.beliefs._replay import WorldPool
    game = spiel_game.load({"players": 6})
    first = heuristic_game_state(game, 21, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 20)
    me = first.current_player()
    later = first.clone()
    while not (later.current_player() == me and int(later.engine_state[E.S_NPLAYED]) > 20
               and len(later.legal_actions()) > 1):
        legal = np.array(later.legal_actions(), np.int32)
        later.apply_action(int(heuristic_policy(later.engine_params,
                                                np.array(later.engine_state), legal,
                                                len(legal), np.zeros(1, np.uint64))))
    w0 = WeightedDeterminizer(first, me, model="heuristic", epsilon=0.1)
    old = WorldPool(w0.P, w0.root, w0.det.record, w0.belief, 48, make_rng_state(4, 0),
                    min_ess=48, mcmc=30)
    w1 = WeightedDeterminizer(later, me, model="heuristic", epsilon=0.1)
    new = WorldPool(w1.P, w1.root, w1.det.record, w1.belief, 48, make_rng_state(4, 1),
                    mcmc=5, previous=old.pool)
    assert new.m == 48 and new.carried >= 36, new.carried
    _, known = move_constraints(w1.P, w1.root, me)
    for w, ll in zip(new.pool, new.logw):
        assert ll == pytest.approx(w1.log_likelihood(w), abs=1e-9) and math.isfinite(ll)
        assert np.array_equal(E.hand(w1.P, w, me), E.hand(w1.P, w1.root, me))
        for q in range(6):
            h = E.hand(w1.P, w, q)
            assert h.sum() == E.hand(w1.P, w1.root, q).sum() and np.all(h >= known[q])
    # The agent: chains carried at its second decision of the hand, not across hands.
    bot = make_agent("ismcts(iterations=50, rollout='heuristic', belief='heuristic("
                     "pool=16, min_ess=16, mcmc=5, persist=True)')",
                     game, me, 3)
    bot.step(first)
    assert bot.last_search["belief_carried"] == 0
    bot.step(later)
    assert bot.last_search["belief_carried"] > 0
    other = heuristic_game_state(game, 22, lambda s: int(s.engine_state[E.S_NPLAYED]) >= 20
                                 and s.current_player() == me)
    bot.step(other)
    assert bot.last_search["belief_carried"] == 0
    with pytest.raises(AgentSpecError, match="persist=1.*True or False"):
        make_agent("ismcts(belief='heuristic(persist=1)')", game, 0, 1)


@pytest.mark.parametrize("keywords, model", [
    ("belief='heuristic(worlds=4, epsilon=0.2)'", HeuristicBelief(worlds=4, epsilon=0.2)),
    ("belief='heuristic(pool=16, min_ess=4, mcmc=5, persist=True)'",
     HeuristicBelief(pool=16, min_ess=4, mcmc=5, persist=True)),
    ("belief='random(pool=8)'", RandomBelief(pool=8))])
def test_a_spec_with_a_belief_value_and_the_belief_object_play_the_same_moves(keywords, model):
    """``ismcts(belief='heuristic(pool=16, ...)')`` (the spec's one belief
    value) is ``ISMCTSBot(belief=HeuristicBelief(pool=16, ...))``: the same
    moves and search statistics, seed for seed, over a whole hand."""
    game = spiel_game.load({"players": 6})
    spec = f"ismcts(iterations=60, rollout='heuristic', {keywords})"
    by_spec = make_agent(spec, game, 0, 4)
    by_object = ISMCTSBot(game, 0, 4, iterations=60, rollout="heuristic", belief=model)
    assert by_spec.belief == model
    gen = np.random.default_rng(8)
    st = game.new_initial_state()
    moves = 0
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(gen.choice(acts, p=probs)))
        elif st.current_player() == 0:
            a, b = by_spec.step(st), by_object.step(st)
            assert a == b and by_spec.last_search.keys() == by_object.last_search.keys()
            moves += 1
            st.apply_action(a)
        else:
            legal = st.legal_actions()
            st.apply_action(legal[int(gen.integers(len(legal)))])
    assert moves > 5


def test_belief_objects_check_their_parameters():
    with pytest.raises(AgentParameterError, match=r"HeuristicBelief: pool=-1 .*\[0, 65536\]"):
        HeuristicBelief(pool=-1)
    with pytest.raises(AgentParameterError, match="LocationBelief: pool=0, mcmc=3"):
        LocationBelief(checkpoint="x", mcmc=3)
    game = spiel_game.load({"players": 6})
    with pytest.raises(AgentParameterError, match="belief='heuristics' is not allowed"):
        ISMCTSBot(game, 0, 1, belief="heuristics")
    with pytest.raises(AgentParameterError, match=r"belief=3 is not allowed"):
        ISMCTSBot(game, 0, 1, belief=3)
    # the string an agent spec writes is the model
    assert ISMCTSBot(game, 0, 1, belief="heuristic(pool=8)").belief == HeuristicBelief(pool=8)
