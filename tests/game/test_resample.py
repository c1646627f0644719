"""``state.resample_from_infostate(player, rng)`` (spiel_game/_resample.py).

What is checked, against the module docstring of :mod:`spiel_game._resample`:

(a) Consistency, from decision points of random games in every deck scheme:
    the resampled state has the player's information-state string and tensor,
    the current player and (for the player to move) the legal actions, and its
    history is a legal game that replays to the same state.
(b) Exact distribution on small custom decks: the posterior over the other
    players' current hands is computed independently by brute force (every
    history from the initial state: chance outcomes with their probabilities,
    the other players' hidden pass choices uniform, the public plays and the
    player's own passes as in the real game; kept when the player's
    information-state string matches) and compared with a chi-square test.
(c) The draw reads only the information state: real states in one
    information set give the same draw for the same seed, and the same
    distribution otherwise.
(d) No leak: the true hidden cards are not favoured.
Plus OpenSpiel's ISMCTSBot (sampler and resampler callback) and bad input.

All randomness is seeded; statistical tests use p > 0.001.
"""

from __future__ import annotations

import collections
import itertools
import math
import re
import zlib

import numpy as np
import pyspiel
import pytest
import scipy.stats
from open_spiel.python.algorithms import ismcts, mcts

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game._scenarios import parse_cards, state_from_hands

K = C.NUM_CARD_TYPES
ALPHA = 1e-3


# ---------------------------------------------------------------- helpers
def load(params):
    return spiel_game.load(dict(params))


def _row(state, field, q):
    s, P = state.engine_state, state.engine_params
    return s[P[field] + q * K:P[field] + (q + 1) * K]


def hand(state, q) -> str:
    """Seat ``q``'s current hand as text (engine read-out)."""
    return C.cards_to_string(_row(state, E.L_HANDS, q))


def kitty_hidden(state) -> bool:
    s = state.engine_state
    return state.rules.kitty_size > 0 and (s[E.S_PHASE] == E.PH_DEAL or s[E.S_KITTY_IN_POT] == 1)


def hidden_part(state, me) -> tuple:
    """What ``me`` does not see: the other seats' current hands (and an untaken kitty)."""
    n = state.rules.players
    out = tuple(hand(state, q) for q in range(n) if q != me)
    if kitty_hidden(state):
        s, P = state.engine_state, state.engine_params
        out += ("kitty " + C.cards_to_string(E.kitty(P, s)),)
    return out


def chance_step(state, rng):
    acts, probs = zip(*state.chance_outcomes())
    state.apply_action(int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))]))


def decision_points(game, rng, include_terminal=True):
    """Yield the state at every decision point of one random game (in place)."""
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            chance_step(st, rng)
            continue
        yield st
        la = st.legal_actions()
        st.apply_action(la[int(rng.integers(len(la)))])
    if include_terminal:
        yield st


def replay(game, history):
    st = game.new_initial_state()
    for a in history:
        st.apply_action(a)
    return st


def check_resample(game, st, player, rng, where=""):
    """The (a) checks for one resample; returns the resampled state."""
    before = str(st)
    r = st.resample_from_infostate(player, rng)
    tag = f"{where} player {player} after {len(st.history())} actions"
    assert isinstance(r, spiel_game.CancellationHeartsState), tag
    assert r is not st, tag
    assert r.information_state_string(player) == st.information_state_string(player), tag
    assert r.information_state_tensor(player) == st.information_state_tensor(player), tag
    assert r.current_player() == st.current_player(), tag
    assert r.is_terminal() == st.is_terminal(), tag
    if player == st.current_player():
        assert r.legal_actions() == st.legal_actions(), tag
    hist = r.history()
    assert len(hist) == len(st.history()), tag
    again = replay(game, hist)
    assert str(again) == str(r), tag
    assert np.array_equal(again.engine_state, r.engine_state), tag
    assert str(st) == before, f"{tag}: resampling changed the real state"
    return r


# ------------------------------------------------------------ brute force
def infoset_posterior(game, target, me, deal="chance"):
    """Exact posterior over ``hidden_part`` in ``me``'s information set, by brute force.

    Walks every history of the target's length from the initial state (with the
    engine kernels, for speed): chance nodes branch over every card left with
    its probability (``engine.chance_probabilities``, what ``chance_outcomes``
    returns); the other players' pass choices (hidden) branch uniformly over
    their legal actions; every other action (plays, which are public, and
    ``me``'s own passes, which ``me`` remembers) must be the real one.
    Histories reaching the same engine state are merged (probabilities added,
    one history kept). At the end every state is rebuilt from its history with
    pyspiel, and those whose information-state string for ``me`` equals the
    target's are grouped by ``hidden_part``. Once the deal is over ``me``'s
    dealt hand is part of the information state, so deals giving ``me`` other
    cards are pruned early (not done for a target in the middle of the deal).
    With ``deal="physical"`` the deal is enumerated directly instead: every
    split of the cards ``me`` was not dealt among the other seats, weighted by
    its number of physical deals (prod over card types of u! / prod k!), which
    is what the chance outcomes add up to (checked by
    ``test_b_brute_force_deal_enumerations_agree``); much faster for 15 cards.
    Returns ({hidden_part: probability}, number of end states).
    """
    assert game.rules.deal == "cards" and not game.rules.is_match
    P = target.engine_params
    hist = target.history()
    want = target.information_state_string(me)
    prune = target.engine_state[E.S_PHASE] != E.PH_DEAL
    lo = P[E.L_DEALT_HANDS] + me * K
    my_dealt = target.engine_state[lo:lo + K].copy()
    s0 = game.new_initial_state().engine_state.copy()
    frontier = {s0.tobytes(): (s0, 1.0, ())}
    if deal == "physical":
        assert prune and game.rules.kitty_size == 0
        frontier = _physical_deals(game, P, s0, me, my_dealt)
        hist = hist[game.rules.num_cards:]
    for a_real in hist:
        nxt = {}
        for s, w, h in frontier.values():
            phase = int(s[E.S_PHASE])
            if phase == E.PH_DEAL:
                acts, probs = E.chance_probabilities(P, s)
                branches = zip(acts.tolist(), probs.tolist())
            elif phase == E.PH_PASS and int(s[E.S_CUR]) != me:
                la = E.legal_actions(P, s).tolist()
                branches = [(a, 1.0 / len(la)) for a in la]
            else:
                branches = [(a_real, 1.0)] if E.check_action(P, s, a_real) == E.OK else []
            for a, p in branches:
                ch = s.copy()
                E.apply_unchecked(P, ch, a)
                if prune and phase == E.PH_DEAL and (ch[lo:lo + K] > my_dealt).any():
                    continue
                key = ch.tobytes()
                old = nxt.get(key)
                if old is None:
                    nxt[key] = (ch, w * p, h + (a,))
                else:
                    nxt[key] = (old[0], old[1] + w * p, old[2])
        frontier = nxt
    post = collections.defaultdict(float)
    for s, w, h in frontier.values():
        st = replay(game, h)
        assert np.array_equal(st.engine_state, s)
        if st.information_state_string(me) == want:
            post[hidden_part(st, me)] += w
    total = sum(post.values())
    assert total > 0, "the real history must be in its own information set"
    return {k: v / total for k, v in post.items()}, len(frontier)


def _splits(counts, sizes):
    """Every way to split the multiset ``counts`` into groups of ``sizes``, with
    its number of physical ways: yields (list of count vectors, ways)."""
    types = [c for c in range(K) if counts[c]]

    def go(i, left, groups, ways):
        if i == len(types):
            if not any(left):
                yield [g.copy() for g in groups], ways
            return
        c = types[i]
        u = int(counts[c])
        for ks in itertools.product(*(range(min(u, room) + 1) for room in left)):
            if sum(ks) != u:
                continue
            for g, k in zip(groups, ks):
                g[c] = k
            w = math.factorial(u) // math.prod(math.factorial(k) for k in ks)
            yield from go(i + 1, [room - k for room, k in zip(left, ks)], groups, ways * w)
        for g in groups:
            g[c] = 0

    yield from go(0, list(sizes), [np.zeros(K, int) for _ in sizes], 1)


def _physical_deals(game, P, s0, me, my_dealt):
    """Frontier after the deal: {engine state: (state, probability, deal actions)}."""
    r = game.rules
    n, T = r.players, r.hand_size
    rest = np.array(r.deck_counts) - my_dealt
    others = [q for q in range(n) if q != me]
    out = {}
    total = 0
    for groups, ways in _splits(rest, [T] * len(others)):
        hands = [None] * n
        hands[me] = my_dealt
        for q, g in zip(others, groups):
            hands[q] = g
        lists = [[int(c) for c in np.repeat(np.arange(K), h)] for h in hands]
        seq = [lists[i % n][i // n] for i in range(n * T)]     # R4, hand 0: seat 0 first
        s = s0.copy()
        for a in seq:
            E.apply_unchecked(P, s, a)
        out[s.tobytes()] = (s, float(ways), tuple(seq))
        total += ways
    return {k: (s, w / total, h) for k, (s, w, h) in out.items()}


def physical_weights(support):
    """The docstring's weights: uniform over physical assignments of the unseen cards.

    For a tuple of holders' multisets, the number of ways to hand out the
    unseen physical copies: prod over card types of u! / prod_h k_h!.
    """
    out = {}
    for key in support:
        per_card = collections.defaultdict(list)
        for h in key:
            for card, k in collections.Counter(h.split()[1:] if h.startswith("kitty")
                                               else h.split()).items():
                per_card[card].append(k)
        w = 1
        for ks in per_card.values():
            w *= math.factorial(sum(ks)) // math.prod(math.factorial(k) for k in ks)
        out[key] = w
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


def sample_hidden(st, me, n, seed):
    rng = np.random.default_rng(seed)
    return collections.Counter(hidden_part(st.resample_from_infostate(me, rng), me)
                               for _ in range(n))


def chisquare_p(expected, counts):
    """Goodness of fit of ``counts`` to ``expected`` (probabilities); no sample outside."""
    outside = set(counts) - set(expected)
    assert not outside, f"resampled hands outside the information set: {sorted(outside)[:3]}"
    n = sum(counts.values())
    keys = sorted(expected)
    f_exp = np.array([expected[k] * n for k in keys])
    assert f_exp.min() >= 5, "test design: too few samples for a chi-square test"
    f_obs = np.array([counts[k] for k in keys], float)
    return scipy.stats.chisquare(f_obs, f_exp).pvalue


def describe(expected, counts):
    n = sum(counts.values())
    return "\n".join(f"  {k}: expected {expected[k]:.4f} sampled {counts[k] / n:.4f}"
                     for k in sorted(expected))


# ------------------------------------------------------------------- (a)
CONSISTENCY_CONFIGS = (
    # name, params, games, check every k-th decision point (and the end)
    [(f"balanced{n}", {"players": n}, 1, 1 if n < 9 else 2) for n in range(5, 12)]
    + [
        ("balanced11_3packs", {"players": 11, "packs": 3}, 1, 10),
        ("kitty5", {"deck": "kitty", "players": 5}, 1, 1),
        ("kitty7", {"deck": "kitty", "players": 7}, 1, 1),
        ("classic", spiel_game.preset("classic"), 2, 1),
        ("tiny_whole", spiel_game.preset("tiny"), 4, 1),
        ("custom_3p_2packs_pass", {"deck": "custom", "players": 3, "suits": "CHS",
                                   "ranks": "QK", "packs": 2, "pass_count": 1}, 3, 1),
        ("custom_3p_3packs_pass_right", {"deck": "custom", "players": 3, "suits": "HS",
                                         "ranks": "QKA", "packs": 3, "pass_count": 2,
                                         "pass_offset": -1}, 2, 1),
        ("custom_4p_opening_card", {"deck": "custom", "players": 4, "suits": "CDHS",
                                    "ranks": "2QKA", "packs": 1,
                                    "first_lead": "opening_card", "pass_count": 1}, 2, 1),
        ("custom_whole_pass", {"deck": "custom", "players": 3, "suits": "CHS",
                               "ranks": "QKA", "packs": 1, "pass_count": 1,
                               "pass_offset": -1, "deal": "whole"}, 3, 1),
        ("custom_void_last_discard", {"deck": "custom", "players": 3, "suits": "HS",
                                      "ranks": "QKA", "packs": 2, "pass_count": 0,
                                      "void_last_trick": "discard"}, 3, 1),
        ("match6", spiel_game.preset("match6"), 1, 12),
        ("match_custom_moon_choose", {"deck": "custom", "players": 3, "suits": "CHS",
                                      "ranks": "QKA", "packs": 1, "pass_count": 1,
                                      "target_score": 40, "moon": "choose"}, 4, 1),
        ("match_whole_moon_choose", {"deck": "custom", "players": 2, "suits": "HS",
                                     "ranks": "QKA", "packs": 1, "pass_count": 0,
                                     "deal": "whole", "target_score": 30,
                                     "moon": "choose"}, 4, 1),
    ])


@pytest.mark.parametrize("name,params,games,every", CONSISTENCY_CONFIGS,
                         ids=[c[0] for c in CONSISTENCY_CONFIGS])
def test_a_resample_is_consistent_at_decision_points(name, params, games, every):
    game = load(params)
    n = game.num_players()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    phases = collections.Counter()
    checked = 0
    for g in range(games):
        for i, st in enumerate(decision_points(game, rng)):
            if i % every and not st.is_terminal():
                continue
            phases[int(st.engine_state[E.S_PHASE])] += 1
            cur = st.current_player()
            mover = cur if cur >= 0 else int(rng.integers(n))
            other = (mover + 1 + int(rng.integers(n - 1))) % n
            for p in (mover, other):
                check_resample(game, st, p, rng, where=f"{name} game {g}")
                checked += 1
    assert checked >= 10
    assert phases[E.PH_PLAY] > 0 and phases[E.PH_OVER] == games
    if game.rules.passes:
        assert phases[E.PH_PASS] > 0


def test_a_moon_choice_decision_points_are_resampled():
    """A match with moon='choose' (R10): resample where the shooter chooses."""
    game = load({"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA", "packs": 1,
                 "pass_count": 0, "target_score": 60, "moon": "choose"})
    rng = np.random.default_rng(7)
    seen = 0
    for g in range(40):
        for st in decision_points(game, rng, include_terminal=False):
            if st.engine_state[E.S_PHASE] == E.PH_MOON:
                for p in range(2):
                    check_resample(game, st, p, rng, where=f"moon game {g}")
                seen += 1
        if seen >= 5:
            break
    assert seen >= 5, "random play should reach moon choices in this tiny match"


def test_a_resample_in_the_deal_and_at_the_end():
    """Chance nodes (mid-deal) and terminal states of single hands resample too."""
    for params in ({"players": 6}, {"deck": "kitty", "players": 9},
                   spiel_game.preset("tiny")):
        game = load(params)
        rng = np.random.default_rng(3)
        st = game.new_initial_state()
        steps = 0
        while st.is_chance_node() and steps < 30:
            if steps in (0, 1, 17, 29):
                for p in range(game.num_players()):
                    check_resample(game, st, p, rng, where=f"{params} deal")
            chance_step(st, rng)
            steps += 1
        *_, end = decision_points(game, rng)
        assert end.is_terminal()
        for p in range(game.num_players()):
            check_resample(game, end, p, rng, where=f"{params} end")


def test_a_same_seed_same_sample_and_generator_advances():
    game = load({"players": 6})
    st = next(s for i, s in enumerate(decision_points(game, np.random.default_rng(1)))
              if i == 60)
    p = st.current_player()
    a = st.resample_from_infostate(p, np.random.default_rng(5))
    b = st.resample_from_infostate(p, np.random.default_rng(5))
    assert a.history() == b.history()
    assert st.resample_from_infostate(p, 11).history() == \
        st.resample_from_infostate(p, 11).history()
    rng = np.random.default_rng(5)
    draws = {tuple(st.resample_from_infostate(p, rng).history()) for _ in range(5)}
    assert len(draws) == 5
    sampler = pyspiel.UniformProbabilitySampler(123, 0.0, 1.0)
    c = st.resample_from_infostate(p, sampler)
    d = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(123, 0.0, 1.0))
    assert c.history() == d.history()


# ------------------------------------------------------------------- (b)
def _other_deal_order(state, me):
    """The order in which the other seat's cards were dealt (R4), from the history."""
    n = state.rules.players
    deal = state.history()[:state.rules.num_cards]
    return tuple(deal[q] for q in range(len(deal)) if q % n != me % n)


def test_b_two_players_hidden_hand_is_determined_and_deal_order_uniform():
    """2 players, H S x Q K A, no passing: the opponent's hand is determined by
    what the player sees (brute force: one point), and the order in which the
    opponent's cards were dealt is uniform (docstring, second bullet; the
    brute-force posterior over deal sequences has it uniform as well)."""
    game = load({"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA", "packs": 1,
                 "pass_count": 0})
    st = state_from_hands(game, ["QH AH KS", "KH QS AS"], plays="KS AS")
    me = 0
    post, _ = infoset_posterior(game, st, me)
    assert post == {(hand(st, 1),): 1.0}
    rng = np.random.default_rng(11)
    n = 1800
    orders = collections.Counter()
    for _ in range(n):
        r = st.resample_from_infostate(me, rng)
        assert hidden_part(r, me) == (hand(st, 1),)
        orders[_other_deal_order(r, me)] += 1
    perms = set(itertools.permutations(parse_cards("KH QS AS")))
    expected = {p: 1 / len(perms) for p in perms}
    p = chisquare_p(expected, orders)
    assert p > ALPHA, describe(expected, orders)


NO_PASS_3P = {"deck": "custom", "players": 3, "suits": "CHS", "ranks": "QK", "packs": 2,
              "pass_count": 0}

# (hands, plays, observer): 3 players, 12 cards (Q K of C H S, two copies), 4 each.
SCENARIOS_3P = {
    # P1 shows void in clubs; the unseen KC must be with P0. Every card an
    # opponent played has its other copy in P2's sight, so "uniform over
    # physical assignments of the unseen cards" and the physical-deal posterior agree.
    "void_binding": (["QC KC QH QS", "QH KH QS KS", "QC KC KH KS"], "QC KH KC", 2),
    # QC/QC cancel, the trick is void (R8) and P0 leads again; P2 void in clubs.
    "void_trick": (["QC KC QH KS", "QC KC KH KH", "QH QS QS KS"], "QC QC QH", 0),
    # P2 shows void in clubs by discarding QH, and the other QH is unseen by P1:
    # it may be in P0's or in P2's hand. The physical-deal posterior (the
    # uniform shuffle, conditioned) puts it with P2 with probability 3/7: of
    # the 14 physical deals consistent with P1's view, P2 was dealt both QH in
    # 6 (a split of the two QH between P0 and P2 can happen in two ways).
    "void_split_copy": (["QC KC QS KS", "QC KC KH KS", "QH QH KH QS"], "KC QC QH", 1),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS_3P))
@pytest.mark.parametrize("deal", ["cards", "whole"])
def test_b_three_players_matches_brute_force_posterior(scenario, deal):
    """Chi-square of the other players' current hands against the exact
    physical-deal posterior (the docstring: "the posterior of the uniform
    shuffle, i.e. each multiset assignment weighted by its number of physical
    deals"), computed by brute force in the card-by-card game; the whole-deal
    game has the same information sets and must give the same distribution."""
    hands, plays, me = SCENARIOS_3P[scenario]
    cards_game = load(NO_PASS_3P)
    real = state_from_hands(cards_game, hands, plays=plays)
    post, _ = infoset_posterior(cards_game, real, me)
    assert len(post) >= 4
    if deal == "whole":
        game = load(dict(NO_PASS_3P, deal="whole"))
        real = whole_deal_state(game, hands, plays)
        assert real.information_state_string(me) == \
            state_from_hands(cards_game, hands, plays=plays).information_state_string(me)
    counts = sample_hidden(real, me, 3000, seed=17)
    p = chisquare_p(post, counts)
    assert p > ALPHA, f"{scenario} ({deal}): p={p:.2e}\n{describe(post, counts)}"


def test_b_split_copy_posterior_is_three_sevenths():
    """The same defect as ``void_split_copy`` in one number (see the scenario):
    P(P2 still holds a QH | P1's information) is 3/7 under the uniform shuffle."""
    hands, plays, me = SCENARIOS_3P["void_split_copy"]
    game = load(NO_PASS_3P)
    real = state_from_hands(game, hands, plays=plays)
    post, _ = infoset_posterior(game, real, me)
    exact = sum(v for k, v in post.items() if "QH" in k[1].split())
    assert exact == pytest.approx(3 / 7)
    counts = sample_hidden(real, me, 4000, seed=5)
    got = sum(v for k, v in counts.items() if "QH" in k[1].split())
    p = scipy.stats.binomtest(got, 4000, exact).pvalue
    assert p > ALPHA, f"P2 holds the unseen QH in {got / 4000:.3f} of resamples, exact {exact:.3f}"


def whole_deal_state(game, hands, plays=()):
    """The state of a ``deal='whole'`` game after the deal of ``hands`` and ``plays``."""
    st = game.new_initial_state()
    want = " ".join(f"P{q}[{C.cards_to_string(np.bincount(parse_cards(h), minlength=K))}]"
                    for q, h in enumerate(hands))
    matches = [a for a, _ in st.chance_outcomes()
               if st.action_to_string(pyspiel.PlayerId.CHANCE, a).split(" ", 1)[1] == want]
    assert len(matches) == 1
    st.apply_action(matches[0])
    for c in parse_cards(plays if not isinstance(plays, str) else plays.split()):
        st.apply_action(c)
    return st


PASS_3P = {"deck": "custom", "players": 3, "suits": "CHS", "ranks": "TJQKA", "packs": 1,
           "pass_count": 1}


def test_b_brute_force_deal_enumerations_agree():
    """The fast brute force (deals enumerated directly, weighted by physical
    deals) gives the same posterior as the walk over chance outcomes."""
    for scenario in ("void_binding", "void_split_copy"):
        hands, plays, me = SCENARIOS_3P[scenario]
        game = load(NO_PASS_3P)
        real = state_from_hands(game, hands, plays=plays)
        a, _ = infoset_posterior(game, real, me)
        b, _ = infoset_posterior(game, real, me, deal="physical")
        assert a.keys() == b.keys()
        assert max(abs(a[k] - b[k]) for k in a) < 1e-12


def test_b_after_passing_uniform_over_physical_assignments():
    """Passing (pass_count=1, to the left), compared after the first trick.

    Compared: the other players' current hands (P1, P2) as seen by P0, against
    the docstring's definition: uniform over physical assignments of the unseen
    cards subject to what P0 knows. The set of possible assignments is not
    derived from the docstring's list of constraints but by brute force (every
    deal and every hidden pass of P1, P2 whose history gives P0's information
    state); single copies, so every assignment weighs the same. Here P0 passed
    AS to P1 (still unplayed: P1 holds it) and P1 showed void in clubs (KC,
    unseen, must be with P2): 20 possible assignments. (With one card passed
    and single copies, the brute-force posterior with uniform passes happens to
    be uniform too; that is asserted as well.)
    """
    game = load(PASS_3P)
    real = state_from_hands(game, ["TC JC QC TH AS", "AC JH QH KH KS", "KC AH TS JS QS"],
                            passes=["AS", "AC", "QS"], plays="JC KS AC")
    me = 0
    post, _ = infoset_posterior(game, real, me, deal="physical")
    assert len(post) == 20
    for p1, p2 in post:
        assert "AS" in p1.split() and "KC" in p2.split()
    expected = physical_weights(post)
    assert max(abs(post[k] - expected[k]) for k in post) < 1e-12
    counts = sample_hidden(real, me, 2400, seed=23)
    p = chisquare_p(expected, counts)
    assert p > ALPHA, f"p={p:.2e}\n{describe(expected, counts)}"


def played_weighted(support, played, forced):
    """The docstring's weights with passing: physical assignments of the unseen
    cards, each holder's unseen copies weighted as if dealt together with the
    copies it played: prod over holders and cards of 1 / C(k' + p', k'), with
    k' its unseen copies and p' the copies it played or holds from the player."""
    base = physical_weights(support)
    out = {}
    for key, w in base.items():
        for h, hand in enumerate(key):
            for card, k in collections.Counter(hand.split()).items():
                f = forced[h].get(card, 0)
                pp = played[h].get(card, 0) + f
                w /= math.comb(k - f + pp, k - f)
        out[key] = w
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


def test_b_after_passing_with_copies_uniform_over_physical_assignments():
    """Passing with two copies of each card (3 players, Q K of C H S): P2
    passed one QS to P0 (P0 still holds it: P2 played its other QS) and P1
    showed void in spades. Compared: P0's and P1's current hands against the
    docstring's definition (physical assignments of the unseen cards, each
    weighted as if dealt with the copies its holder played, see
    ``played_weighted``), over the possible assignments found by brute force.
    (The brute-force posterior with uniform hidden passes is a different
    distribution: the docstring does not model the others' passing policies.)"""
    game = load({"deck": "custom", "players": 3, "suits": "CHS", "ranks": "QK", "packs": 2,
                 "pass_count": 1})
    real = state_from_hands(game, ["QC QH QH KS", "QC KC KC KH", "KH QS QS KS"],
                            passes=["QH", "KC", "QS"], plays="KS QH QS")
    me = 2
    post, _ = infoset_posterior(game, real, me)
    assert len(post) == 7
    for p0, p1 in post:
        assert "QS" in p0.split() and not any(c.endswith("S") for c in p1.split())
    assert sorted(set(round(v, 9) for v in physical_weights(post).values())) == [0.1, 0.2]
    # P0 led KS, P1 played QH, P2 played QS; P0 holds the QS P2 passed it.
    expected = played_weighted(post, played=[{"KS": 1}, {"QH": 1}], forced=[{"QS": 1}, {}])
    counts = sample_hidden(real, me, 2000, seed=31)
    p = chisquare_p(expected, counts)
    assert p > ALPHA, f"p={p:.2e}\n{describe(expected, counts)}"


def test_b_during_passing_matches_brute_force_posterior():
    """Mid-passing (P0 and P1 have passed, P2 to choose): seen by P1, the
    unseen cards are P0's hand less its hidden pass and P2's dealt hand, drawn
    uniformly, P0's pass uniform among its cards (docstring); brute force with
    the same model. Compared: P0's and P2's current hands (P0's passed card,
    in transit, is the one missing)."""
    game = load({"deck": "custom", "players": 3, "suits": "CDHS", "ranks": "QKA",
                 "packs": 1, "pass_count": 1})
    real = state_from_hands(game, ["QC KD QH AS", "KC AD KH KS", "AC QD AH QS"],
                            passes=["QH", "KS"])
    me = 1
    assert real.current_player() == 2 and real.engine_state[E.S_PHASE] == E.PH_PASS
    post, _ = infoset_posterior(game, real, me)
    assert len(post) == math.comb(8, 4) * 4
    counts = sample_hidden(real, me, 8 * len(post), seed=29)
    p = chisquare_p(post, counts)
    assert p > ALPHA, f"p={p:.2e}"


# ------------------------------------------------------------------- (c)
def _seat_lists(state):
    """Dealt hands (sorted ids), passes per seat in order, plays and kitty of a hand-0 state."""
    r = state.rules
    n, pc = r.players, (r.pass_count if r.passes else 0)
    s, P = state.engine_state, state.engine_params
    dealt = [[int(c) for c in np.repeat(np.arange(K), _row(state, E.L_DEALT_HANDS, q))]
             for q in range(n)]
    passes = [[int(c) for c in E.pass_choices(P, s, q)]
              for q in range(n)] if pc else []
    plays = state.history()[r.num_cards + n * pc:]
    kitty = [int(c) for c in np.repeat(np.arange(K), E.kitty(P, s))]
    return dealt, passes, plays, kitty


def _received(state, q):
    off = int(state.engine_state[E.S_PASSOFF])
    n = state.rules.players
    return _row(state, E.L_PASSED, (q - off) % n) if off else np.zeros(K, int)


def swapped_twin(game, seed, n_actions):
    """(real, twin, me, a, b, x, y): a hand-0 state and the state where opponents
    ``a`` and ``b`` hold each other's unplayed, never-passed cards ``x``/``y``
    (same suit, not QS, not the opening card) instead. Both rebuilt from
    sorted dealt hands with ``state_from_hands``."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    while len(st.history()) < n_actions:
        if st.is_chance_node():
            chance_step(st, rng)
        else:
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
    me = st.current_player()
    dealt, passes, plays, kitty = _seat_lists(st)
    n = game.num_players()
    opening = game.rules.opening_card
    passed = [set(p) for p in passes] if passes else [set()] * n
    for a, b in itertools.permutations([q for q in range(n) if q != me], 2):
        for x in sorted(set(np.nonzero(_row(st, E.L_HANDS, a))[0])):
            for y in sorted(set(np.nonzero(_row(st, E.L_HANDS, b))[0])):
                if (x == y or C.SUIT_OF[x] != C.SUIT_OF[y] or C.QS in (x, y)
                        or opening in (x, y) or x in passed[a] | passed[b]
                        or y in passed[a] | passed[b]
                        or _received(st, a)[x] or _received(st, b)[y]
                        or x not in dealt[a] or y not in dealt[b]):
                    continue
                d2 = [list(h) for h in dealt]
                d2[a].remove(x)
                d2[a].append(y)
                d2[b].remove(y)
                d2[b].append(x)
                real = state_from_hands(game, dealt, kitty, passes=passes, plays=plays)
                twin = state_from_hands(game, [sorted(h) for h in d2], kitty, passes=passes,
                                        plays=plays)
                return real, twin, me, a, b, int(x), int(y)
    raise AssertionError("no swappable pair found; choose another seed")


@pytest.mark.parametrize("params,seed,n_actions", [
    ({"players": 6}, 0, 102 + 24 + 51),
    ({"players": 6}, 1, 102 + 24 + 20),
    ({"deck": "kitty", "players": 7}, 2, 104 + 21 + 30),
    ({"players": 9}, 3, 99 + 18 + 40),
    (spiel_game.preset("classic"), 4, 52 + 12 + 20),
])
def test_c_same_information_state_same_sample(params, seed, n_actions):
    """Two real states in one information set (opponents' hidden cards swapped)
    give the identical resample for the same seed."""
    game = load(params)
    real, twin, me, a, b, x, y = swapped_twin(game, seed, n_actions)
    assert real.information_state_string(me) == twin.information_state_string(me)
    assert real.information_state_tensor(me) == twin.information_state_tensor(me)
    assert hand(real, a) != hand(twin, a) and _row(twin, E.L_HANDS, a)[y] > 0
    for s in range(5):
        r1 = real.resample_from_infostate(me, np.random.default_rng(s))
        r2 = twin.resample_from_infostate(me, np.random.default_rng(s))
        assert r1.history() == r2.history(), f"seed {s}: the draw depends on hidden cards"


def test_c_same_information_state_same_distribution():
    """Small game: twins (hidden cards swapped between P0 and P1, seen by P2)
    resampled with different seeds give chi-square-compatible distributions of
    the other players' hands; on the 6-player game, the seat holding the
    swapped card ``x`` has the same distribution."""
    game = load(NO_PASS_3P)
    a = state_from_hands(game, ["QC KC QH QS", "QH KH QS KS", "QC KC KH KS"], plays="QC KH KC")
    b = state_from_hands(game, ["QC KC QS QS", "QH KH QH KS", "QC KC KH KS"], plays="QC KH KC")
    assert a.information_state_string(2) == b.information_state_string(2)
    assert hidden_part(a, 2) != hidden_part(b, 2)
    ca, cb = sample_hidden(a, 2, 1500, seed=100), sample_hidden(b, 2, 1500, seed=200)
    keys = sorted(set(ca) | set(cb))
    table = np.array([[ca[k] for k in keys], [cb[k] for k in keys]])
    assert scipy.stats.chi2_contingency(table).pvalue > ALPHA

    game6 = load({"players": 6})
    real, twin, me, _, _, x, _ = swapped_twin(game6, 0, 102 + 24 + 51)
    n = 400
    holders = []
    for st, seed in ((real, 1), (twin, 2)):
        rng = np.random.default_rng(seed)
        cnt = np.zeros(6, int)
        for _ in range(n):
            r = st.resample_from_infostate(me, rng)
            for q in range(6):
                cnt[q] += _row(r, E.L_HANDS, q)[x]
        holders.append(cnt)
    table = np.array(holders)
    table = table[:, table.sum(axis=0) > 0]
    assert scipy.stats.chi2_contingency(table).pvalue > ALPHA


def test_c_order_of_the_cards_received_is_not_read():
    """The order in which the passer chose the cards it passed to the player is
    not in the player's information state (received cards are a set); the two
    real states must give the identical draw for the same seed."""
    game = load({"players": 6})
    rng = np.random.default_rng(8)
    st = game.new_initial_state()
    while st.is_chance_node():
        chance_step(st, rng)
    dealt, _, _, _ = _seat_lists(st)
    giver, me = 0, 1                                   # pass +1: seat 0 passes to seat 1
    chosen = [c for c in dealt[giver][:4]]
    assert len(set(chosen)) >= 2
    others = [dealt[q][:4] for q in range(1, 6)]
    states = []
    for order in (chosen, [chosen[1], chosen[0]] + chosen[2:]):
        s1 = state_from_hands(game, dealt, passes=[order] + others)
        rr = np.random.default_rng(9)
        for _ in range(8):
            la = s1.legal_actions()
            s1.apply_action(la[int(rr.integers(len(la)))])
        states.append(s1)
    a, b = states
    assert a.information_state_string(me) == b.information_state_string(me)
    assert a.history() != b.history()
    for s in range(3):
        r1 = a.resample_from_infostate(me, np.random.default_rng(s))
        r2 = b.resample_from_infostate(me, np.random.default_rng(s))
        assert r1.history() == r2.history(), \
            f"seed {s}: the draw depends on the order the passer chose its cards"


def test_c_order_of_own_deal_is_not_read():
    """The order in which the player's own cards were dealt is not in the
    information state (cards are picked up when the deal is complete,
    spiel_game.observers); two real states differing only in it must give the
    identical draw for the same seed."""
    game = load(NO_PASS_3P)
    hands = ["QC KC QH QS", "QH KH QS KS", "QC KC KH KS"]
    a = state_from_hands(game, hands, plays="QC KH KC")
    b = state_from_hands(game, hands[:2] + ["KS KH KC QC"], plays="QC KH KC")
    assert a.information_state_string(2) == b.information_state_string(2)
    assert a.history() != b.history()
    for s in range(3):
        r1 = a.resample_from_infostate(2, np.random.default_rng(s))
        r2 = b.resample_from_infostate(2, np.random.default_rng(s))
        assert r1.history() == r2.history(), f"seed {s}: the draw reads the own deal order"


# ------------------------------------------------------------------- (d)
@pytest.mark.parametrize("scenario", ["void_binding", "void_trick"])
@pytest.mark.parametrize("deal", ["cards", "whole"])
def test_d_true_hands_not_favoured(scenario, deal):
    """Over many resamples the other players' hands take several values, and the
    real ones are not more frequent than the exact posterior says."""
    hands, plays, me = SCENARIOS_3P[scenario]
    cards_game = load(NO_PASS_3P)
    real = state_from_hands(cards_game, hands, plays=plays)
    post, _ = infoset_posterior(cards_game, real, me)
    if deal == "whole":
        real = whole_deal_state(load(dict(NO_PASS_3P, deal="whole")), hands, plays)
    truth = hidden_part(real, me)
    n = 1500
    counts = sample_hidden(real, me, n, seed=41)
    assert len(counts) >= min(4, len(post))
    assert counts[truth] < n
    p = scipy.stats.binomtest(counts[truth], n, post[truth], alternative="greater").pvalue
    assert p > ALPHA, f"the real hands come back in {counts[truth] / n:.3f} of draws, " \
                      f"exact {post[truth]:.3f}"


@pytest.mark.parametrize("params", [{"players": 6}, {"deck": "kitty", "players": 7}])
def test_d_big_game_draws_vary_and_never_return_the_truth(params):
    game = load(params)
    rng = np.random.default_rng(12)
    st = next(s for s in decision_points(game, rng)
              if s.engine_state[E.S_PHASE] == E.PH_PLAY and s.engine_state[E.S_NPLAYED] == 1)
    me = st.current_player()
    truth = hidden_part(st, me)
    n = game.num_players()
    draws = [hidden_part(st.resample_from_infostate(me, rng), me) for _ in range(150)]
    assert truth not in draws
    assert len(set(draws)) == len(draws)
    for i in range(n - 1):                      # every opponent's hand varies
        assert len({d[i] for d in draws}) > 100
    if kitty_hidden(st):
        assert len({d[-1] for d in draws}) > 1


def test_d_mid_deal_does_not_read_own_undisclosed_cards():
    """During the deal the information state shows only how many cards have
    been dealt (spiel_game.observers: cards are picked up when the deal is
    complete). Two mid-deal states with the same information state but
    different cards dealt to the player must give the same draw."""
    game = load(NO_PASS_3P)
    from spiel_game._scenarios import deal_actions
    a = game.state_from_actions(deal_actions(game, ["QC KC QS KS", "QC KC KH KS",
                                                    "QH QH KH QS"])[:6])
    b = game.state_from_actions(deal_actions(game, ["QH KC QS KS", "QC KC KH KS",
                                                    "QC QH KH QS"])[:6])
    assert a.information_state_string(0) == b.information_state_string(0)
    for s in range(3):
        r1 = a.resample_from_infostate(0, np.random.default_rng(s))
        r2 = b.resample_from_infostate(0, np.random.default_rng(s))
        assert r1.history() == r2.history(), \
            f"seed {s}: the draw keeps the player's real (unseen) cards of the deal"


# ------------------------------------------------------------------ ISMCTS
def _bot(game, seed, sims=20):
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                            random_state=np.random.RandomState(seed))
    return ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=sims,
                            random_state=np.random.RandomState(seed))


def _play_with_bot(game, bot, seed, bot_moves, start_actions=0):
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    while len(st.history()) < start_actions and not st.is_terminal():
        if st.is_chance_node():
            chance_step(st, rng)
        else:
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
    moves = 0
    while not st.is_terminal() and moves < bot_moves:
        if st.is_chance_node():
            chance_step(st, rng)
            continue
        legal = st.legal_actions()
        a = bot.step(st)
        assert a in legal
        st.apply_action(a)
        moves += 1
    return st, moves


@pytest.mark.parametrize("params,start,moves", [
    ({"players": 6}, 102, 3),                      # passing
    ({"players": 6}, 102 + 24 + 40, 3),            # mid-hand
    ({"deck": "custom", "players": 3, "suits": "CHS", "ranks": "QK", "packs": 2,
      "pass_count": 1}, 0, 100),                   # the whole small game
    (spiel_game.preset("tiny"), 0, 100),
])
def test_ismcts_bot_uses_resample_from_infostate(params, start, moves):
    """ISMCTSBot calls state.resample_from_infostate(player,
    pyspiel.UniformProbabilitySampler(0., 1.)) at each simulation."""
    game = load(params)
    bot = _bot(game, 0)
    st, made = _play_with_bot(game, bot, 1, moves, start)
    assert made >= 3 or st.is_terminal()


def test_ismcts_bot_with_resampler_callback():
    game = load({"deck": "custom", "players": 3, "suits": "CHS", "ranks": "QK", "packs": 2,
                 "pass_count": 1})
    bot = _bot(game, 1)
    rng = np.random.default_rng(3)
    calls = []

    def resampler(state, player):
        r = state.resample_from_infostate(player, rng)
        assert r.information_state_string(player) == state.information_state_string(player)
        calls.append(player)
        return r

    bot.set_resampler(resampler)
    st, _ = _play_with_bot(game, bot, 2, 100)
    assert st.is_terminal()
    assert len(calls) >= 20


# --------------------------------------------------------------- bad input
def test_bad_player_names_the_allowed_players():
    game = load({"players": 6})
    st = next(decision_points(game, np.random.default_rng(0)))
    for bad in (-1, 6, 100):
        with pytest.raises(ValueError) as e:
            st.resample_from_infostate(bad, np.random.default_rng(0))
        text = str(e.value)
        assert str(bad) in text
        assert re.search(r"0\s*(\.\.|-|to)\s*5|\[0, 1, 2, 3, 4, 5\]", text), text


@pytest.mark.parametrize("bad", ["seed", 1.5, np.random.RandomState(0), [1, 2], object(),
                                 np.float64(0.5)])
def test_bad_rng_type_is_a_type_error(bad):
    game = load({"players": 6})
    st = next(decision_points(game, np.random.default_rng(0)))
    with pytest.raises(TypeError, match="rng"):
        st.resample_from_infostate(st.current_player(), bad)


# ---------------------------------------------------------- compiled path
def _python_path(game, st, me, rng):
    """The pure-Python resample (the path for matches and whole-deal games)."""
    from spiel_game import _resample as R
    h = R._current_hand_from_engine(game, st, st.history())
    actions = R._current_hand_actions(game, st, h, me, rng)
    return type(st).from_history(game, [a for _, a in actions], players=[p for p, _ in actions])


def _holders_of(state, me, card) -> tuple:
    """Which hidden holders have the copies of ``card`` (seats, -1 = kitty), sorted."""
    n = state.rules.players
    out = []
    for q in range(n):
        if q != me:
            out += [q] * int(_row(state, E.L_HANDS, q)[card])
    if kitty_hidden(state):
        s, P = state.engine_state, state.engine_params
        out += [-1] * int(E.kitty(P, s)[card])
    return tuple(sorted(out))


@pytest.mark.parametrize("params,seed,n_played", [
    ({"players": 6}, 3, 40),                                     # passing, two packs
    (spiel_game.preset("kitty7"), 5, 20),                        # an unseen kitty
    ({"players": 5, "pass_count": 3}, 7, 0),                     # first trick, forced cards
])
def test_compiled_path_draws_the_python_paths_distribution(params, seed, n_played):
    """Single-hand card-by-card games are resampled by one compiled kernel;
    the Python path (used for matches and whole-deal games) must give the same
    distribution. Two-sample chi-square on where the copies of each unseen
    card are (Bonferroni over the cards), 1,500 draws each."""
    from spiel_game._playout import play_random
    game = load(params)
    st = play_random(game, seed, until=lambda s: not (
        s.is_chance_node() or s.engine_state[E.S_PHASE] == E.PH_PASS
        or s.engine_state[E.S_NPLAYED] < n_played))
    me = st.current_player()
    fast_rng, slow_rng = np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)
    fast = [st.resample_from_infostate(me, fast_rng) for _ in range(1500)]
    slow = [_python_path(game, st, me, slow_rng) for _ in range(1500)]
    for r in fast[:20] + slow[:20]:
        assert r.information_state_string(me) == st.information_state_string(me)
    cards = sorted({c for r in fast[:50] for q in range(game.num_players()) if q != me
                    for c in np.nonzero(_row(r, E.L_HANDS, q))[0]})
    assert len(cards) > 5
    pvals = []
    for c in cards:
        a = collections.Counter(_holders_of(r, me, c) for r in fast)
        b = collections.Counter(_holders_of(r, me, c) for r in slow)
        keys = sorted(set(a) | set(b))
        if len(keys) < 2:
            assert a == b
            continue
        table = np.array([[a[k] for k in keys], [b[k] for k in keys]])
        pvals.append(scipy.stats.chi2_contingency(table)[1])
    assert min(pvals) > ALPHA / len(pvals), f"min p = {min(pvals):.2e} over {len(pvals)} cards"


def test_table_problems_are_remembered_per_information_state(monkeypatch):
    """Where rejection fails, the class tables of a problem are built once and
    reused (a search resamples one information state many times); the draws
    still vary and respect the constraints."""
    from spiel_game import _sampler as R
    built = []
    real = R.build_problem

    def counting(*args, **kw):
        built.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(R, "build_problem", counting)
    monkeypatch.setattr(R, "_PROBLEMS", collections.OrderedDict())
    pool = np.zeros(K, np.int64)
    pool[[0, 1, 2, 3, 4, 5]] = 2                      # 12 cards, two copies of six kinds
    forbid = np.zeros((3, K), np.bool_)
    forbid[0, [0, 1, 2]] = True                       # holder 0 cannot hold kinds 0-2
    forbid[1, [3, 4]] = True
    rng = np.random.default_rng(3)
    draws = set()
    for _ in range(30):
        out = R.assign(pool, [4, 4, 4], forbid, rng, tries=0)
        assert (out.sum(axis=0) == pool).all() and (out.sum(axis=1) == 4).all()
        assert not (out[forbid] > 0).any()
        draws.add(out.tobytes())
    assert len(built) == 1
    assert len(draws) > 5
    forbid[2, 5] = True                               # another information state
    R.assign(pool, [4, 4, 4], forbid, rng, tries=0)
    assert len(built) == 2


def test_resample_reaches_the_adapter_only_through_its_public_constructor():
    """resample.py rebuilds a history; the state comes from
    ``CancellationHeartsState.from_history``: no import of the adapter (no
    cycle), none of its private parts, no pickle."""
    import ast
    import pathlib
    from spiel_game import _resample as R
    src = pathlib.Path(R.__file__).read_text()
    tree = ast.parse(src)
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m and (m == "game" or m.endswith(".game")) for m in mods), mods
    for private in ("_Box", "_b.a", "_state_with_history", "_attach_history", "pickle", "._P",
                    "._deals"):
        assert private not in src, private
