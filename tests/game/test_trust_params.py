"""Trust in game parameters.

* ``deal="whole"``: the number of distinct deals is counted without listing
  them (``spiel_game._deals.count_deals``) and checked against brute-force
  enumeration on many generated decks; every deck of the game is refused or
  accepted within a second (a big deck used to hang), the refusal naming the
  count and the limit.
* Integer parameters: every one is checked for type (bool, float, str, None,
  huge ints, numpy scalars) and range; ``moon_points``, ``target_score`` and
  ``max_hands`` have documented maxima chosen so that no score overflows the
  engine's ``int32`` (``spiel_game._rules.MAX_MOON_POINTS``); matches played at
  those maxima return exact scores within ``[min_utility, max_utility]``.
* Random parameter dictionaries (known and unknown names, values of every
  type) either load a game whose random playthrough is consistent with its
  ``GameType``/``GameInfo`` or raise a clear error naming a parameter; never
  another exception, never a hang.

``pyspiel.load_game(name, dict)`` converts the dict in pybind before any of our
code runs: an int outside C++ ``int`` (32 bits) raises pybind's bare
``RuntimeError("Unable to cast Python instance ...")``, a list or a numpy
scalar a ``TypeError``. That cannot be intercepted without patching pyspiel;
the tests pin it and check that ``spiel_game.load`` (which checks the
parameters first) names the parameter instead.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import itertools
import math
import re
import signal
import time

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import spiel_game
from spiel_game import PARAMETER_DEFAULTS, GameParameterError, RuleSet
from spiel_game import _engine as E
from spiel_game._deals import (WHOLE_DEAL_LIMIT, count_deals, deal_count_bounds,
                              enumerate_deals, whole_deal_count)
from spiel_game._rules import MAX_HANDS, MAX_MOON_POINTS, MAX_TARGET_SCORE
from spiel_game._simulator import make_rng, rollout

NAME = spiel_game.GAME_NAME
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
INT_PARAMS = [k for k, v in PARAMETER_DEFAULTS.items() if isinstance(v, int)]
STR_PARAMS = [k for k, v in PARAMETER_DEFAULTS.items() if isinstance(v, str)]
BOUNDED = {"moon_points": (0, MAX_MOON_POINTS), "target_score": (0, MAX_TARGET_SCORE),
           "max_hands": (1, MAX_HANDS)}


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Turn a hang into a test failure (SIGALRM; pure-Python loops are interrupted)."""
    def alarm(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@functools.cache
def warm_up() -> None:
    """Compile the engine kernels (pyspiel path, whole deals, compiled rollout)
    before any time limit runs: a cold numba cache takes tens of seconds."""
    for params in ({}, {"target_score": 30, "max_hands": 2}, spiel_game.preset("micro")):
        play_out(spiel_game.load(params), seed=0, max_pyspiel_actions=30)


# ============================================================ deal="whole"
def brute_force_deals(counts, sizes) -> list[tuple]:
    """Every distinct deal, found by choosing each group's multiset in turn
    from the cards left (no counting formula involved)."""
    deck = tuple(sorted(t for t, c in enumerate(counts) for _ in range(int(c))))

    def go(rest: tuple, sizes: tuple) -> list[tuple]:
        if not sizes:
            return [()]
        out = []
        for group in sorted(set(itertools.combinations(rest, sizes[0]))):
            left = list(rest)
            for card in group:
                left.remove(card)
            out += [(group,) + tail for tail in go(tuple(left), sizes[1:])]
        return out

    if sum(sizes) != len(deck):
        return []
    deals = go(deck, tuple(sizes))
    assert len(set(deals)) == len(deals)
    return deals


def labelled_deals(sizes) -> int:
    """Deals of distinguishable cards into groups of ``sizes``: an upper bound
    on the distinct deals (keeps the brute force small)."""
    out = math.factorial(sum(sizes))
    for h in sizes:
        out //= math.factorial(h)
    return out


def deal_key(deal: np.ndarray) -> tuple:
    """An enumerated deal ([groups, 53] copy counts) as sorted card tuples."""
    return tuple(tuple(t for t in range(deal.shape[1]) for _ in range(int(deal[g, t])))
                 for g in range(deal.shape[0]))


@st.composite
def custom_decks(draw, max_cards: int):
    """Parameters of a custom deck of at most ``max_cards`` cards (any players
    that divide it)."""
    packs = draw(st.integers(1, 4))
    suits = draw(st.lists(st.sampled_from("CDHS"), min_size=1, max_size=4, unique=True))
    room = min(13, max_cards // (packs * len(suits)))
    assume(room >= 1)
    ranks = draw(st.lists(st.sampled_from("23456789TJQKA"), min_size=1, max_size=room,
                          unique=True))
    total = packs * len(suits) * len(ranks)
    players = [n for n in range(2, 12) if total % n == 0]
    assume(players)
    return {"deck": "custom", "suits": "".join(suits), "ranks": "".join(ranks),
            "packs": packs, "players": draw(st.sampled_from(players)), "pass_count": 0}


def sizes_of(rules: RuleSet) -> list[int]:
    return [rules.hand_size] * rules.players + ([rules.kitty_size] if rules.kitty_size else [])


@settings(max_examples=60, **SETTINGS)
@given(params=custom_decks(max_cards=12))
def test_count_of_whole_deals_equals_brute_force_on_custom_decks(params):
    rules = RuleSet.from_params(params)
    sizes = sizes_of(rules)
    assume(labelled_deals(sizes) <= 30_000)
    deals = brute_force_deals(rules.deck_counts, sizes)
    assert count_deals(rules.deck_counts, sizes) == len(deals)
    lo, hi = deal_count_bounds(rules.deck_counts, sizes)
    assert lo <= len(deals) <= hi
    assert rules.num_whole_deals() == len(deals)
    # The game's single chance node lists exactly these deals.
    game = pyspiel.load_game(NAME, {**params, "deal": "whole"})
    outcomes = game.new_initial_state().chance_outcomes()
    assert len(outcomes) == len(deals) == game.max_chance_outcomes()
    assert sorted(deal_key(d) for d in game._deals) == sorted(deals)
    assert math.isclose(math.fsum(p for _, p in outcomes), 1.0, rel_tol=1e-12)


@st.composite
def multiset_splits(draw):
    """A multiset deck (1-4 copies of up to 6 card types, at most 11 cards) and
    labelled group sizes adding up to it (some of them 0, like an empty kitty),
    sometimes one card off (no deal at all)."""
    types = draw(st.lists(st.integers(0, 52), min_size=1, max_size=6, unique=True))
    counts = np.zeros(53, np.int64)
    for t in types:
        counts[t] = draw(st.integers(1, 4))
    assume(counts.sum() <= 11)
    groups = draw(st.integers(1, 5))
    cuts = sorted(draw(st.lists(st.integers(0, int(counts.sum())), min_size=groups - 1,
                                max_size=groups - 1)))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [int(counts.sum())])]
    if draw(st.integers(0, 9)) == 0:
        sizes[0] += 1
    return counts, sizes


@settings(max_examples=150, **SETTINGS)
@given(case=multiset_splits())
def test_count_of_whole_deals_equals_brute_force_on_any_multiset(case):
    counts, sizes = case
    assume(labelled_deals(sizes) <= 30_000)
    deals = brute_force_deals(counts, sizes)
    assert count_deals(counts, sizes) == len(deals)
    lo, hi = deal_count_bounds(counts, sizes)
    assert lo <= len(deals) <= hi
    if deals:
        listed, probs = enumerate_deals(counts, sizes)
        assert sorted(deal_key(d) for d in listed) == sorted(deals)
        # The documented order: lexicographic in (split of card type t over the
        # groups, for the present types t in id order); action ids rely on it.
        present = [t for t in range(53) if counts[t]]
        keys = [tuple(tuple(int(x) for x in d[:, t]) for t in present) for d in listed]
        assert keys == sorted(keys)
        assert math.isclose(math.fsum(probs), 1.0, rel_tol=1e-12)


@settings(max_examples=40, **SETTINGS)
@given(case=multiset_splits())
def test_whole_deal_probabilities_are_those_of_a_shuffle_of_labelled_cards(case):
    counts, sizes = case
    cards = [t for t in range(53) for _ in range(int(counts[t]))]
    assume(sum(sizes) == len(cards) and len(cards) <= 7)
    seen = collections.Counter()
    for perm in itertools.permutations(range(len(cards))):
        key, at = [], 0
        for h in sizes:
            key.append(tuple(sorted(cards[i] for i in perm[at:at + h])))
            at += h
        seen[tuple(key)] += 1
    listed, probs = enumerate_deals(counts, sizes)
    assert len(listed) == len(seen)
    total = math.factorial(len(cards))
    for deal, p in zip(listed, probs):
        assert p == pytest.approx(seen[deal_key(deal)] / total, rel=1e-12)


# Every deck of the game that is too big, and a few near the limit. C(24, 12)
# = 2,704,156 is just above it.
BIG_DECKS = ([{"players": n} for n in range(5, 12)] + [{"players": 11, "packs": 3}]
             + [{"deck": "kitty", "players": n} for n in range(5, 12)]
             + [{"deck": "classic", "players": 4, "packs": 1}]
             + [{"deck": "custom", "packs": k, "players": n}
                for k, ns in ((1, (2, 4)), (2, (2, 4, 8)), (3, (2, 3, 4, 6)), (4, (2, 4, 8)))
                for n in ns]
             + [{"deck": "custom", "packs": 3, "players": n, "suits": "CDH"}
                for n in (3, 9)]
             + [{"deck": "custom", "players": 2, "packs": 1, "suits": "CDHS",
                 "ranks": "9TJQKA"}])


@pytest.mark.parametrize("params", BIG_DECKS, ids=lambda p: "-".join(map(str, p.values())))
def test_whole_deal_of_a_big_deck_is_refused_within_a_second_with_count_and_limit(params):
    rules = RuleSet.from_params(params)                # deal="cards": fine
    # CPU time of this thread (threads left running by earlier tests must not
    # count), the best of three tries after a collection: in a long test session
    # a garbage-collection pass once cost more than the refusal itself (1.27 s).
    gc.collect()
    took = math.inf
    for _ in range(3):
        start = time.thread_time()
        with time_limit(60, f"loading {params} with deal='whole'"):
            with pytest.raises(GameParameterError) as info:
                pyspiel.load_game(NAME, {**params, "deal": "whole"})
        took = min(took, time.thread_time() - start)
        if took < 1.0:
            break
    assert took < 1.0, f"{params}: refusing took {took:.2f} s of CPU (best of three)"
    msg = str(info.value)
    assert "deal='whole'" in msg and f"{WHOLE_DEAL_LIMIT:,}" in msg and "deal='cards'" in msg
    sizes = sizes_of(rules)
    lo, hi = deal_count_bounds(rules.deck_counts, sizes)
    assert lo > WHOLE_DEAL_LIMIT or hi > WHOLE_DEAL_LIMIT
    if "at least" in msg:         # counting exactly would take too long: the lower bound
        assert lo > WHOLE_DEAL_LIMIT
        shown = f"at least {lo:,}" if lo < 10 ** 15 else f"at least {lo:.3e}"
        assert shown in msg, msg
    else:
        d = count_deals(rules.deck_counts, sizes)
        assert d > WHOLE_DEAL_LIMIT
        assert (f"{d:,}" if d < 10 ** 15 else f"{d:.3e} (= {d})") in msg, msg


@settings(max_examples=80, **SETTINGS)
@given(params=custom_decks(max_cards=208))
def test_whole_deal_check_answers_within_a_second_for_any_custom_deck(params):
    rules = RuleSet.from_params(params)
    sizes = sizes_of(rules)
    gc_was_on = gc.isenabled()
    gc.disable()              # time the count, not a collection of the session's heap
    try:
        start = time.thread_time()
        with time_limit(60, f"counting the deals of {params}"):
            try:
                d = whole_deal_count(rules.deck_counts, sizes)
            except ValueError as e:
                d = None
                assert f"{WHOLE_DEAL_LIMIT:,}" in str(e)
        took = time.thread_time() - start
    finally:
        if gc_was_on:
            gc.enable()
    assert took < 1.0, f"{params}: counting took {took:.2f} s of CPU"
    lo, hi = deal_count_bounds(rules.deck_counts, sizes)
    if d is None:
        assert hi > WHOLE_DEAL_LIMIT
    else:
        assert lo <= d <= min(hi, WHOLE_DEAL_LIMIT)
        assert d == count_deals(rules.deck_counts, sizes)


# ================================================= integer parameters
def needed_for(name: str) -> dict:
    """Other parameters that make ``name`` matter (a match for max_hands)."""
    return {"target_score": 50} if name == "max_hands" else {}


def loaders():
    return {"RuleSet": RuleSet.from_params, "spiel_game.load": spiel_game.load}


huge_or_edge_ints = st.one_of(
    st.integers(-5, 30),
    st.sampled_from([MAX_MOON_POINTS, MAX_MOON_POINTS + 1, MAX_TARGET_SCORE,
                     MAX_TARGET_SCORE + 1, MAX_HANDS, MAX_HANDS + 1, INT_MAX - 4, INT_MAX,
                     INT_MAX + 1, INT_MIN, INT_MIN - 1, 2 ** 63, -2 ** 63 - 1, 10 ** 30]),
    st.integers(-2 ** 70, 2 ** 70))


@settings(max_examples=120, **SETTINGS)
@given(name=st.sampled_from(sorted(BOUNDED)), value=huge_or_edge_ints)
def test_score_parameters_are_bounded_and_refused_with_name_value_and_range(name, value):
    lo, hi = BOUNDED[name]
    params = {**needed_for(name), name: value}
    for via, load in loaders().items():
        if lo <= value <= hi:
            load(params)
            continue
        with pytest.raises(GameParameterError) as info:
            load(params)
        msg = str(info.value)
        for needle in (name, str(value), f"{lo}..{hi}"):
            assert needle in msg, f"{via}({params}): {msg!r} lacks {needle!r}"
    # pyspiel's own entry: the same answer for any int that fits a C++ int;
    # beyond that pybind refuses before our code runs (documented).
    if INT_MIN <= value <= INT_MAX:
        if lo <= value <= hi:
            pyspiel.load_game(NAME, params)
        else:
            with pytest.raises(GameParameterError, match=re.escape(f"{lo}..{hi}")):
                pyspiel.load_game(NAME, params)
    else:
        with pytest.raises(RuntimeError, match="Unable to cast") as info:
            pyspiel.load_game(NAME, params)
        assert type(info.value) is RuntimeError


@pytest.mark.parametrize("value", [2 ** 31 - 5, 2 ** 31 - 1, 2 ** 20])
def test_moon_points_near_2_to_the_31_are_refused(value):
    # They used to load and wrap the 32-bit scores: returns 2,147,483,644 while
    # max_utility() was 0.
    with pytest.raises(GameParameterError, match=rf"moon_points={value}.*0\.\.{MAX_MOON_POINTS}"):
        pyspiel.load_game(NAME, {"moon_points": value})


@pytest.mark.parametrize("name", INT_PARAMS)
@pytest.mark.parametrize("value", [True, False, 6.0, 6.5, float("nan"), float("inf"), "6",
                                   None, b"6", [6], np.bool_(True), np.float64(6.0)],
                         ids=repr)
def test_integer_parameter_of_the_wrong_type_is_refused_naming_it(name, value):
    params = {**needed_for(name), name: value}
    for via, load in loaders().items():
        with pytest.raises(GameParameterError) as info:
            load(params)
        msg = str(info.value)
        assert name in msg and "int" in msg and "allowed" in msg, f"{via}: {msg!r}"
        assert repr(value) in msg or str(value) in msg, f"{via}: {msg!r}"
    # pyspiel's entry: its own type check (naming the parameter), except for
    # values pybind cannot convert at all.
    with pytest.raises((pyspiel.SpielError, GameParameterError, TypeError)) as info:
        pyspiel.load_game(NAME, params)
    if pybind_cannot_convert(value):
        assert type(info.value) is TypeError
    else:
        assert name in str(info.value)


@pytest.mark.parametrize("name", INT_PARAMS)
def test_numpy_integers_are_ints(name):
    value = dict(RuleSet.from_params(needed_for(name)).params)[name]     # the default
    for np_type in (np.int64, np.int32, np.int16):
        rules = RuleSet.from_params({**needed_for(name), name: np_type(value)})
        got = dict(rules.params)[name]
        assert got == value and type(got) is int
        game = spiel_game.load({**needed_for(name), name: np_type(value)})
        assert game.get_parameters()[name] == value


@pytest.mark.parametrize("name", STR_PARAMS)
@pytest.mark.parametrize("value", [3, 2.5, True, None, b"CD"], ids=repr)
def test_string_parameter_of_the_wrong_type_is_refused_naming_it(name, value):
    for via, load in loaders().items():
        with pytest.raises(GameParameterError) as info:
            load({name: value})
        msg = str(info.value)
        assert name in msg and "str" in msg and "allowed" in msg, f"{via}: {msg!r}"


@pytest.mark.parametrize("params", [[("players", 6)], "players=6", 6])
def test_parameters_that_are_not_a_mapping_are_refused(params):
    with pytest.raises(GameParameterError, match="mapping"):
        RuleSet.from_params(params)
    if not isinstance(params, str):          # a str is a preset name for load()
        with pytest.raises(GameParameterError, match="mapping"):
            spiel_game.load(params)


def test_parameter_names_that_are_not_str_are_refused():
    with pytest.raises(GameParameterError, match=r"unknown parameters 1, None of "
                                                 r"python_cancellation_hearts; allowed: deal, "):
        RuleSet.from_params({1: 2, None: 3})


def test_the_score_bounds_cannot_overflow_int32():
    # The derivation of MAX_MOON_POINTS: the largest |points| of one hand over
    # every deck, times MAX_HANDS, times 11 seats, stays below 2^31 - 1.
    decks = ([{"players": n} for n in range(5, 12)] + [{"players": 11, "packs": 3}]
             + [{"deck": "kitty", "players": n} for n in range(5, 12)]
             + [{"deck": "custom", "packs": 4, "players": n} for n in (2, 4, 8)])
    worst = 0
    for deck in decks:
        for moon in ("add", "subtract", "both", "choose", "off"):
            rules = RuleSet.from_params({**deck, "moon": moon, "moon_points": MAX_MOON_POINTS,
                                         "target_score": MAX_TARGET_SCORE,
                                         "max_hands": MAX_HANDS})
            lo, hi = rules.hand_points_range()
            worst = max(worst, abs(lo), abs(hi))
            assert rules.total_points <= 104
            game = pyspiel.load_game(NAME, dict(rules.params))
            assert max(abs(game.min_utility()), abs(game.max_utility())) <= 2 * worst * MAX_HANDS
            assert game.max_game_length() <= INT_MAX
    assert worst == MAX_MOON_POINTS
    assert 11 * worst * MAX_HANDS < INT_MAX


def play_out(game, seed: int, max_pyspiel_actions: int = 1500):
    """Random play (seeded): through pyspiel for up to ``max_pyspiel_actions``
    actions, then to the end with the compiled rollout. Returns (returns, state)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(max_pyspiel_actions):
        if state.is_terminal():
            return np.array(state.returns()), state
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(actions[int(rng.choice(len(actions), p=np.array(probs)))])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    if state.is_terminal():
        return np.array(state.returns()), state
    out = rollout(state.engine_params, np.array(state.engine_state), make_rng(seed), "uniform")
    return np.asarray(out), None


def check_returns(game, returns):
    gtype = game.get_type()
    lo, hi = game.min_utility(), game.max_utility()
    assert np.all(returns >= lo) and np.all(returns <= hi), (returns, lo, hi, game)
    if gtype.utility == pyspiel.GameType.Utility.ZERO_SUM:
        assert abs(returns.sum()) < 1e-6 * max(1.0, abs(hi))
    elif gtype.utility == pyspiel.GameType.Utility.CONSTANT_SUM:
        assert returns.sum() == pytest.approx(game.utility_sum())


@pytest.mark.parametrize("moon, utility", [("subtract", "points"), ("add", "points"),
                                           ("both", "zero_sum"), ("subtract", "zero_sum")])
def test_a_match_at_the_bounds_scores_exactly_without_overflow(moon, utility):
    # Two hearts, two players, one card each: every hand, whoever wins the only
    # trick takes both hearts and shoots the moon with the largest moon_points.
    params = {"deck": "custom", "players": 2, "packs": 1, "suits": "H", "ranks": "23",
              "pass_count": 0, "moon": moon, "utility": utility,
              "moon_points": MAX_MOON_POINTS, "target_score": MAX_TARGET_SCORE,
              "max_hands": MAX_HANDS}
    game = spiel_game.load(params)
    warm_up()
    with time_limit(120, "a 10,000-hand match"):
        returns, state = play_out(game, seed=3, max_pyspiel_actions=10 ** 6)
    assert state is not None and state.is_terminal()
    hands = len(state.history()) // 4                  # 2 cards dealt, 2 played
    at = int(state.engine_params[E.L_SCORES])
    scores = state.engine_state[at:at + 2].astype(np.int64)
    per_hand_sum = {"subtract": 2 - MAX_MOON_POINTS, "add": 2 + MAX_MOON_POINTS,
                    "both": 2}[moon]
    assert int(scores.sum()) == hands * per_hand_sum
    if moon == "subtract":                 # nobody reaches the target: every hand is played
        assert hands == MAX_HANDS
        assert int(scores.min()) >= MAX_HANDS * (2 - MAX_MOON_POINTS)
    if utility == "points":
        assert list(returns) == [-float(x) for x in scores]
    else:
        assert list(returns) == pytest.approx([float(scores.sum() - 2 * x) for x in scores])
    check_returns(game, returns)


@st.composite
def valid_params(draw):
    scheme = draw(st.sampled_from(["balanced", "kitty", "classic", "custom"]))
    if scheme == "classic":
        p = {"deck": "classic", "players": 4, "packs": 1}
    elif scheme == "custom":
        p = draw(custom_decks(max_cards=40))
        del p["pass_count"]
    else:
        p = {"deck": scheme, "players": draw(st.integers(5, 11))}
    p["moon"] = draw(st.sampled_from(["add", "subtract", "choose", "both", "off"]))
    p["moon_points"] = draw(st.sampled_from([0, 26, 1000, MAX_MOON_POINTS]))
    p["utility"] = draw(st.sampled_from(["points", "zero_sum"]))
    p["void_last_trick"] = draw(st.sampled_from(["leader", "discard"]))
    if draw(st.booleans()):
        p["target_score"] = draw(st.sampled_from([1, 30, 500, MAX_TARGET_SCORE]))
        p["max_hands"] = draw(st.sampled_from([1, 3, 50, MAX_HANDS]))
    return p


@settings(max_examples=30, **SETTINGS)
@given(params=valid_params(), seed=st.integers(0, 2 ** 20))
def test_returns_of_random_games_lie_within_the_game_info(params, seed):
    game = spiel_game.load(params)
    rules = game.rules
    assert game.max_game_length() == rules.decisions_per_hand * rules.num_hands_max
    warm_up()
    with time_limit(60, f"a random game of {params}"):
        returns, _ = play_out(game, seed)
    check_returns(game, returns)


# ===================================== random parameter dictionaries (item 12)
UNKNOWN_NAMES = ["plyers", "seed", "Players", "moon points", "rules"]
PLAUSIBLE = {
    "players": st.integers(1, 12), "packs": st.sampled_from([2, 2, 2, 1, 3, 4, 0, 5]),
    "deck": st.sampled_from(["balanced", "kitty", "classic", "custom", "Balanced"]),
    "suits": st.sampled_from(["CDHS", "CDHS", "HS", "S", "cd", "XY", ""]),
    "ranks": st.sampled_from(["23456789TJQKA", "23456789TJQKA", "QKA", "A", "JQK", "1A"]),
    "pass_count": st.integers(-2, 20), "pass_offset": st.integers(-12, 12),
    "first_lead": st.sampled_from(["scheme", "opening_card", "left_of_dealer", "dealer"]),
    "void_last_trick": st.sampled_from(["leader", "discard", "burn"]),
    "points_on_first_trick": st.sampled_from(["scheme", "allowed", "forbidden", "maybe"]),
    "moon": st.sampled_from(["add", "subtract", "choose", "both", "off", "up"]),
    "moon_points": st.integers(-1, MAX_MOON_POINTS + 1),
    "target_score": st.sampled_from([0, 1, 30, 30, 200, -1, MAX_TARGET_SCORE + 1]),
    "max_hands": st.sampled_from([0, 1, 3, 20, MAX_HANDS + 1]),
    "utility": st.sampled_from(["points", "zero_sum", "money"]),
    "deal": st.sampled_from(["cards", "whole", "shuffle"]),
}
JUNK = st.one_of(
    st.integers(-2 ** 40, 2 ** 40),
    st.sampled_from([INT_MAX, INT_MAX + 1, INT_MIN - 1, 2 ** 63, 10 ** 30]),
    st.booleans(), st.floats(allow_nan=True, allow_infinity=True), st.none(),
    st.text(max_size=4), st.lists(st.integers(0, 9), max_size=2))


@st.composite
def parameter_dicts(draw):
    """Up to 5 known names (sometimes an unknown one too), each with a value of
    the right type (valid or not) five times in six, junk of any type otherwise."""
    names = draw(st.lists(st.sampled_from(sorted(PARAMETER_DEFAULTS)), max_size=5,
                          unique=True))
    if draw(st.integers(0, 7)) == 0:
        names.append(draw(st.sampled_from(UNKNOWN_NAMES)))
    out = {}
    for name in names:
        plausible = PLAUSIBLE.get(name, JUNK)
        if draw(st.integers(0, 5)) == 0:
            out[name] = draw(JUNK)
        else:
            out[name] = draw(plausible)
    return out


def pybind_cannot_convert(value) -> bool:
    """Values that ``pyspiel.load_game(name, dict)`` may refuse in pybind itself
    (an empty list, for one, gets through to pyspiel's own type check)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not INT_MIN <= value <= INT_MAX
    # numpy scalars other than np.float64 (a Python float) are not converted
    return isinstance(value, (list, tuple, dict)) or (
        isinstance(value, np.generic) and not isinstance(value, (float, int, str)))


def assert_names_a_parameter(error: Exception, params: dict):
    msg = str(error)
    assert any(name in msg for name in params), (
        f"{type(error).__name__} for {params} names none of its parameters: {msg!r}")


@settings(max_examples=200, **SETTINGS)
@given(params=parameter_dicts(), seed=st.integers(0, 2 ** 20))
def test_random_parameter_dicts_load_a_consistent_game_or_raise_a_clear_error(params, seed):
    warm_up()
    ours = theirs = None
    with time_limit(60, f"spiel_game.load({params})"):
        try:
            game = spiel_game.load(params)
        except GameParameterError as e:
            assert_names_a_parameter(e, params)
            ours = "refused"
        else:
            ours = "loaded"
            returns, _ = play_out(game, seed, max_pyspiel_actions=600)
            check_returns(game, returns)
    with time_limit(60, f"pyspiel.load_game({params})"):
        try:
            pyspiel.load_game(NAME, params)
        except (GameParameterError, pyspiel.SpielError) as e:
            assert_names_a_parameter(e, params)
            theirs = "refused"
        except (RuntimeError, TypeError) as e:
            # pybind's conversion of the dict, before any code of ours runs
            assert any(map(pybind_cannot_convert, params.values())), (params, e)
            assert ours == "refused"
            theirs = "pybind"
        else:
            theirs = "loaded"
    if theirs != "pybind":
        assert ours == theirs, f"{params}: spiel_game.load {ours}, pyspiel.load_game {theirs}"
