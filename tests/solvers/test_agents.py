"""Agents: legal in every scheme and phase, OpenSpiel compatible, seeded, and
the compiled determinization draws from ``resample_from_infostate``'s distribution."""

from __future__ import annotations

import collections

import numpy as np
import pyspiel
import pytest
import scipy.stats

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game import _validation as V
from solvers._base.heuristic import heuristic_policy
from spiel_game._scenarios import state_from_hands
from spiel_game._playout import play_random
from spiel_game._simulator import make_rng

from solvers import HeuristicBot, ISMCTSBot, make_agent
from spiel_game._determinize import Determinizer

K = E.K


def mid_hand_state(game, seed: int, n_played: int):
    """A play-phase decision with two or more legal actions after ``n_played``
    cards (random play from seed ``seed``)."""
    return play_random(game, seed, until=lambda st: not (
        st.is_chance_node() or st.engine_state[E.S_PHASE] != E.PH_PLAY
        or st.engine_state[E.S_NPLAYED] < n_played or len(st.legal_actions()) < 2))

# Every scheme and rule variant the agents must handle (RULES.md R1-R11).
VARIANTS = {
    "balanced6": {"players": 6},
    "balanced5": {"players": 5},
    "balanced11_3packs": {"players": 11, "packs": 3},
    "kitty7": {"deck": "kitty", "players": 7},
    "kitty7_omnibus": {"deck": "kitty", "players": 7, "jack_of_diamonds": -10},
    "classic": {"deck": "classic", "players": 4, "packs": 1, "moon": "both"},
    "match_moon_choice": {"players": 6, "target_score": 20, "moon": "choose", "max_hands": 3},
    "pass_right_discard": {"players": 8, "pass_offset": -1, "void_last_trick": "discard"},
    "no_pass_zero_sum": {"players": 9, "pass_count": 0, "utility": "zero_sum",
                         "first_lead": "left_of_dealer"},
    "tiny_whole_deal": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA",
                        "pass_count": 0, "deal": "whole", "moon": "choose"},
}

# Small budgets: these tests check legality and plumbing, not strength.
SPECS = ["random", "heuristic", "pimc(worlds=2, rollouts=1)",
         "ismcts(iterations=30)", "ismcts(iterations=20, rollout='heuristic', "
         "final_policy='normalized_visit_count')", "openspiel_uniform"]


def _chance(st, rng):
    acts, probs = zip(*st.chance_outcomes())
    st.apply_action(int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))]))


def _play(game, bots, rng, seen_phases):
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            _chance(st, rng)
            continue
        p = st.current_player()
        seen_phases.add(int(st.engine_state[E.S_PHASE]))
        legal = st.legal_actions()
        a = bots[p].step(st)
        assert a in legal, (type(bots[p]).__name__, a, legal, str(st))
        st.apply_action(a)
    return st


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_agent_plays_legal_moves_in_every_variant(variant):
    game = spiel_game.load(VARIANTS[variant])
    n = game.num_players()
    rng = np.random.default_rng(7)
    phases: set[int] = set()
    for rot in range(2):
        bots = [make_agent(SPECS[(q + rot) % len(SPECS)], game, q, seed=q + 10 * rot)
                for q in range(n)]
        _play(game, bots, rng, phases)
    assert E.PH_PLAY in phases
    if game.rules.passes:
        assert E.PH_PASS in phases


def _moon_state(game, seed):
    """A state at the moon choice (R10, moon='choose'), found by random play."""
    rng = np.random.default_rng(seed)
    for _ in range(500):
        st = play_random(game, rng, until=lambda s: not s.is_chance_node()
                         and s.engine_state[E.S_PHASE] == E.PH_MOON)
        if not st.is_terminal():
            return st
    raise AssertionError("no moon reached")


@pytest.mark.parametrize("spec", SPECS + ["ismcts(iterations=50, final_policy='max_value')"])
def test_r10_every_agent_makes_the_moon_choice(spec):
    game = spiel_game.load(VARIANTS["tiny_whole_deal"])
    st = _moon_state(game, 3)
    bot = make_agent(spec, game, st.current_player(), seed=1)
    assert st.legal_actions() == [E.MOON_SUBTRACT_ACTION, E.MOON_ADD_ACTION]
    assert bot.step(st) in (E.MOON_SUBTRACT_ACTION, E.MOON_ADD_ACTION)


def test_r10_search_takes_the_better_moon_choice():
    """Points utility, 16 points in play, moon 26: subtracting (-10) beats adding (16)."""
    game = spiel_game.load({"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA",
                            "pass_count": 0, "moon": "choose"})
    st = _moon_state(game, 5)
    me = st.current_player()
    value = {}
    for a in st.legal_actions():
        c = st.clone()
        c.apply_action(a)
        value[a] = c.returns()[me]
    assert value[E.MOON_SUBTRACT_ACTION] > value[E.MOON_ADD_ACTION]
    for spec in ("ismcts(iterations=100)", "ismcts(iterations=100, final_policy='max_value')",
                 "pimc(worlds=2)", "heuristic"):
        assert make_agent(spec, game, me, seed=2).step(st) == E.MOON_SUBTRACT_ACTION, spec


def test_agents_work_with_pyspiel_evaluate_bots():
    game = spiel_game.load(players=6)
    specs = ["random", "heuristic", "pimc(worlds=2)", "ismcts(iterations=20)",
             "heuristic", "random"]
    bots = [make_agent(s, game, q, seed=q) for q, s in enumerate(specs)]
    r1 = pyspiel.evaluate_bots(game.new_initial_state(), bots, 123)
    bots = [make_agent(s, game, q, seed=q) for q, s in enumerate(specs)]
    r2 = pyspiel.evaluate_bots(game.new_initial_state(), bots, 123)
    assert len(r1) == 6 and r1 == r2
    assert sum(r1) == -game.rules.total_points or any(x != 0 for x in r1)


def test_heuristic_bot_is_the_compiled_heuristic_policy():
    game = spiel_game.load(players=7)
    rng = np.random.default_rng(1)
    st = game.new_initial_state()
    legal = np.empty(K + 2, np.int32)
    checked = 0
    while not st.is_terminal():
        if st.is_chance_node():
            _chance(st, rng)
            continue
        bot = HeuristicBot(game, st.current_player())
        s = np.array(st.engine_state)
        k = E.legal_into(st.engine_params, s, legal)
        want = int(heuristic_policy(st.engine_params, s, legal, k, make_rng(0)))
        if k > 1:
            assert bot.step(st) == want
            checked += 1
        st.apply_action(want)
    assert checked > 50


def test_agents_are_deterministic_for_a_seed_and_ignore_the_global_rng():
    game = spiel_game.load(players=6)
    st = mid_hand_state(game, 4, 20)
    p = st.current_player()
    for spec in ("random", "pimc(worlds=4)", "ismcts(iterations=200)",
                 "ismcts(iterations=100, final_policy='normalized_visit_count')"):
        np.random.seed(1)
        a1 = [make_agent(spec, game, p, seed=s).step(st) for s in range(4)]
        np.random.seed(2)
        np.random.random(100)
        a2 = [make_agent(spec, game, p, seed=s).step(st) for s in range(4)]
        assert a1 == a2, spec


def test_ismcts_budgets_final_policies_and_statistics():
    game = spiel_game.load(players=6)
    st = mid_hand_state(game, 5, 40)
    p = st.current_player()
    bot = ISMCTSBot(game, p, 0, iterations=300)
    acts, visits, values = bot.search(st)
    assert sorted(acts.tolist()) == sorted(st.legal_actions())
    assert visits.sum() == 300 and bot.last_search["iterations"] == 300
    assert ((values >= 0) & (values <= 1)).all()          # rewards scaled to [0, 1]
    policy, a = bot.step_with_policy(st)
    assert abs(sum(pr for _, pr in policy) - 1) < 1e-9 and a in st.legal_actions()
    # Time budget: at least one chunk, and it stops.
    timed = ISMCTSBot(game, p, 0, time_limit=0.05)
    timed.step(st)
    assert timed.last_search["iterations"] >= 64 and timed.last_search["seconds"] < 1.0
    # The reference determinization (resample_from_infostate every iteration) runs.
    ref = ISMCTSBot(game, p, 0, iterations=30, determinization="resample")
    assert ref.step(st) in st.legal_actions()
    with pytest.raises(ValueError, match="final_policy"):
        ISMCTSBot(game, p, 0, final_policy="best")
    with pytest.raises(ValueError, match="rollout"):
        ISMCTSBot(game, p, 0, rollout="smart")


def test_search_dumps_the_black_maria_when_void():
    """P3 is void in diamonds and holds QS KS AS: discarding QS now gives it to the
    diamond winner; keeping it, P3 must later take it with its own high spades."""
    game = spiel_game.load(deck="custom", players=4, suits="DS", ranks="9TJQKA", packs=1,
                           pass_count=0, first_lead="left_of_dealer", moon="off")
    hands = ["9D TD 9S", "JD QD TS", "KD AD JS", "QS KS AS"]
    st = state_from_hands(game, hands, plays=["9D", "JD", "AD"])
    assert st.current_player() == 3
    for spec in ("ismcts(iterations=300)", "ismcts(iterations=300, rollout='heuristic')",
                 "pimc(worlds=4, rollouts=2)", "heuristic"):
        bot = make_agent(spec, game, 3, seed=0)
        assert C.card_to_string(bot.step(st)) == "QS", spec


# ---------------------------------------------------------------- determinization
def _hidden(P, s, me, n):
    rows = [tuple(E.hand(P, s, q)) for q in range(n) if q != me]
    if P[E.P_KITTY] and s[E.S_KITTY_IN_POT]:
        rows.append(tuple(E.kitty(P, s)))
    return tuple(rows)


def _random_states(game, seed, count, max_actions, constrained=False):
    """Random decision points; ``constrained``: only where the player to move can
    prove that another seat lacks some unseen card (voids, lead rules)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        st = game.new_initial_state()
        stop = int(rng.integers(0, max_actions))
        i = 0
        while not st.is_terminal():
            if st.is_chance_node():
                _chance(st, rng)
                continue
            if i >= stop and (not constrained or
                              Determinizer(st, st.current_player()).problem.allowed.shape[0]):
                out.append(st)
                break
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
            i += 1
    return out


@pytest.mark.parametrize("method", ["auto", "table"])
def test_determinizer_draws_the_distribution_of_resample_from_infostate(method):
    """Chi-square homogeneity of the hidden hands: compiled sampler vs resample_from_infostate,
    on small decks with passing, voids, a hidden kitty and copies."""
    cases = [({"deck": "custom", "players": 3, "suits": "HS", "ranks": "9TJQKA", "packs": 2,
               "pass_count": 1}, 11),
             ({"deck": "custom", "players": 4, "suits": "CHS", "ranks": "JQKA", "packs": 2,
               "pass_count": 1, "first_lead": "left_of_dealer"}, 13)]
    pvals, tables = [], 0
    for params, seed in cases:
        game = spiel_game.load(params)
        n = game.num_players()
        for st in _random_states(game, seed, 6, 16, constrained=method == "table"):
            me = st.current_player()
            d = Determinizer(st, me, method=method)
            tables += d.problem.max_tries == 0
            r, g = make_rng(seed), np.random.default_rng(seed)
            N = 1000
            ours = collections.Counter(_hidden(game._P, d.sample(r), me, n) for _ in range(N))
            ref = collections.Counter(_hidden(game._P, st.resample_from_infostate(me, g)._s, me, n)
                                      for _ in range(N))
            keys = sorted(set(ours) | set(ref))
            if len(keys) > 1:
                pvals.append(scipy.stats.chi2_contingency(
                    np.array([[ours[k] for k in keys], [ref[k] for k in keys]]))[1])
    assert len(pvals) >= 8
    # Under the null the p-values are uniform: no tiny one, and not too many small ones.
    assert min(pvals) > 1e-4, pvals
    assert sum(p < 0.05 for p in pvals) <= 3, pvals
    if method == "table":
        assert tables >= 2                          # the exact table sampler was exercised


@pytest.mark.parametrize("variant", ["balanced6", "balanced11_3packs", "kitty7", "kitty7_omnibus",
                                     "classic", "match_moon_choice"])
def test_determinizations_are_consistent_states(variant):
    """Valid engine states that keep the player's hand, legal actions and all public cards."""
    game = spiel_game.load(VARIANTS[variant])
    P, n = game._P, game.num_players()
    r = make_rng(1)
    for st in _random_states(game, 2, 12, game.rules.decisions_per_hand):
        me = st.current_player()
        d = Determinizer(st, me)
        s0 = st.engine_state
        for _ in range(5):
            x = d.sample(r)
            assert V.validate_determinization(P, x) == 0   # hands redrawn: sizes only
            assert (E.legal_actions(P, x) == E.legal_actions(P, s0)).all()
            assert (E.hand(P, x, me) == E.hand(P, s0, me)).all()
            assert (E.all_trick_cards(P, x) == E.all_trick_cards(P, s0)).all()
            for q in range(n):      # hand sizes are public
                assert E.hand(P, x, q).sum() == E.hand(P, s0, q).sum()
            assert (E.card_locations(P, x)[n + 2:] == E.card_locations(P, s0)[n + 2:]).all()


def _opponent_fanout(game, st, opp):
    """Search 2,000 iterations on one world (the true state) and return the
    largest number of children of a node where another player moves."""
    from solvers._ismcts import search_pooled
    from solvers._ismcts import ROLLOUT_POLICIES, OPPONENTS, new_tree
    from spiel_game._rng import make_rng_state
    P = np.asarray(game.engine_params)
    root = np.array(st.engine_state)
    me = st.current_player()
    n, T = int(P[E.P_N]), int(P[E.P_HAND])
    tree = new_tree(200_000)
    pool = root[None, :].copy()
    search_pooled(P, root, me, 2000, 0.4, float(game.min_utility()),
                  1.0 / float(game.max_utility() - game.min_utility()),
                  ROLLOUT_POLICIES["heuristic"], make_rng_state(3, 0), tree,
                  np.empty_like(root), np.empty(E.K + 2, np.int32),
                  np.empty(int(P[E.P_NCARDS]), np.int32), np.empty(4 * n * T + 8, np.int64),
                  pool, np.ones(1), 1, OPPONENTS.index(opp))
    widest = 0
    for node in range(int(tree.size[0])):
        kids, c = 0, int(tree.child[node])
        while c >= 0:
            if tree.mover[c] >= 0 and tree.mover[c] != me:
                kids += 1
            c = int(tree.sibling[c])
        widest = max(widest, kids)
    return widest


def test_ismcts_opponents_policy_plays_the_rollout_policy_for_the_others():
    """``opponents='policy'``: the other players' moves in the tree are the
    (deterministic) heuristic's, so on a single world every node where another
    player moves has one child; SO-ISMCTS (``'search'``) branches there. The
    agent plays legal moves, repeats with its seed and rejects other values."""
    game = spiel_game.load(players=6)
    st = mid_hand_state(game, 5, 20)
    assert _opponent_fanout(game, st, "search") > 1          # the test has power
    assert _opponent_fanout(game, st, "policy") == 1
    p = st.current_player()
    spec = "ismcts(iterations=300, rollout='heuristic', opponents='policy')"
    acts = [make_agent(spec, game, p, seed=2).step(st) for _ in range(2)]
    assert acts[0] == acts[1] and acts[0] in st.legal_actions()
    bot = ISMCTSBot(game, p, 1, iterations=500, rollout="heuristic", opponents="policy")
    _, visits, _ = bot.search(st)
    assert visits.sum() == 500 and bot.last_search["nodes"] <= bot.last_search["capacity"]
    with pytest.raises(ValueError, match="opponents='heuristic'.*'search', 'policy'"):
        ISMCTSBot(game, p, 0, opponents="heuristic")
