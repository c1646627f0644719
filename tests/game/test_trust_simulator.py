"""Trust in the batch simulator: no policy and no argument
can crash it or corrupt its results.

* A user policy returning an illegal action (a card not in hand, the joker,
  -1, a moon action outside the moon phase, ``legal[k]``, huge integers, a
  value written into ``legal``) is stopped inside the compiled loop: the
  simulator raises ``IllegalPolicyActionError`` naming the policy, the seat, the
  action and what was legal, for exactly the first game in which it happened;
  the process never crashes. Where the policy behaves, results equal a legal
  twin's. The expectation is computed independently, by replaying the twin's
  games through the engine's own ``check_action`` / ``apply_action``.
* Every built-in policy plays many games checked without tripping the check,
  with results identical to unchecked runs: the proof that lets the built-ins
  run unchecked by default.
* Wrong arrays, foreign rules, corrupt states, bad seeds and counts give a
  ``TypeError``/``ValueError`` naming the argument, before any compiled code runs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st
from numba import njit

import solvers._base.passing  # noqa: F401  (registers "heuristic" and "pass:*" in the simulator)
import spiel_game
from spiel_game import _engine as E
from spiel_game import _validation as V
from spiel_game.cards import JD, card_to_string
from spiel_game._rng import rand_below
from spiel_game._rules import RuleSet
from spiel_game._simulator import (BUILTIN_POLICIES, MAX_SEED, MAX_STREAM,
                                  IllegalPolicyActionError, check_params, check_state, clone,
                                  make_rng, rollout, simulate, state_checksum)

SETTINGS = dict(deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CONFIGS = [{}, {"players": 5}, {"players": 11, "packs": 3}, {"deck": "kitty", "players": 7},
           spiel_game.preset("classic"), {"players": 5, "target_score": 40, "moon": "choose"},
           {"deck": "custom", "players": 3, "suits": "HS", "ranks": "TJQKA", "packs": 3},
           {"players": 6, "moon": "choose", "void_last_trick": "discard", "pass_offset": -1}]


# ------------------------------------------------------------ an erratic policy
FIRE = 401          # fires where the state's hash is a multiple of FIRE
N_KINDS = 13
KIND_LEGAL_K = 5    # legal[k]: the value depends on the buffer's leftovers


@njit
def _hash(s):
    acc = np.int64(0)
    for i in range(s.shape[0]):
        acc = (acc * 1000003 + s[i] + 7) % 2147483647
    return acc


@njit
def _illegal_value(p, s, legal, k, kind):
    """A value outside ``legal[:k]`` of the given kind (-1 where the kind's
    value happens to be legal). Kind 12 writes a card not in hand into
    ``legal[0]`` and returns it."""
    seat = s[E.S_CUR]
    absent = np.int64(0)
    for c in range(E.K):
        if E.hand(p, s, seat)[c] == 0:
            absent = np.int64(c)
            break
    v = np.int64(-1)
    if kind == 0 or kind == 12:
        v = absent
    elif kind == 1:
        v = np.int64(52)
    elif kind == 3:
        v = np.int64(53)
    elif kind == 4:
        v = np.int64(54)
    elif kind == KIND_LEGAL_K:
        v = np.int64(legal[k])
    elif kind == 6:
        v = np.int64(2**40)
    elif kind == 7:
        v = np.int64(-2**63)
    elif kind == 8:
        v = np.int64(2**31)
    elif kind == 9:
        v = np.int64(2**32) + legal[0]          # legal[0] if cut to 32 bits
    elif kind == 10:
        v = np.int64(64) + legal[0]             # legal[0] if a shift wrapped at 64
    elif kind == 11:
        v = np.int64(2**63 - 1)
    for j in range(k):
        if legal[j] == v:
            v = np.int64(-1)
    if kind == 12:
        legal[0] = v
        return np.int64(legal[0])
    return v


@njit
def _erratic(p, s, legal, k, rng):
    """Uniform over the listed actions (the same draws as the built-in
    ``uniform``), except an illegal value where the state's hash fires."""
    a = legal[rand_below(rng, k)]
    h = _hash(s)
    if h % FIRE == 0:
        return _illegal_value(p, s, legal, k, (h // FIRE) % N_KINDS)
    return np.int64(a)


def _first_firing(params, n_hands, bad_seats, twin, seed, first_hand):
    """Replay the legal twin's games through the engine and find the first
    decision where ``_erratic`` fires: (game, step, seat, kind, legal, state,
    history) or None, and the twin's result."""
    res = simulate(params, n_hands, twin, seed=seed, record=True, workers=1,
                   first_hand=first_hand)
    p = E.make_params(res.rules)
    for h in range(n_hands):
        s = E.new_state(p)
        for t, a in enumerate(res.trace[h]):
            if a < 0:
                break
            cur = E.current_player(p, s)
            if cur in bad_seats:
                hv = _hash(s)
                if hv % FIRE == 0:
                    return (h, t, cur, (hv // FIRE) % N_KINDS, E.legal_actions(p, s), s,
                            res.trace[h][:t].tolist()), res
            assert E.apply_action(p, s, int(a)) == E.OK
        assert E.current_player(p, s) == E.TERMINAL
    return None, res


def _action_text(a: int) -> str:
    return repr(card_to_string(a)) if 0 <= a < E.K else str(a)


def _check_error(e: IllegalPolicyActionError, fire, twin_res, first_hand, record):
    h, t, seat, kind, legal, s, history = fire
    p = E.make_params(twin_res.rules)
    assert e.game == first_hand + h and e.seat == seat and e.policy == "_erratic"
    assert e.legal == tuple(int(x) for x in legal)
    # The engine itself says the action is illegal there.
    assert E.check_action(p, s, np.int64(e.action)) != E.OK
    assert e.action not in e.legal
    if kind != KIND_LEGAL_K:
        buf = np.full(E.K + 2, -9, np.int32)
        buf[:len(legal)] = legal
        assert e.action == _illegal_value(p, s.copy(), buf, len(legal), kind)
    assert e.history == history
    msg = str(e)
    assert "'_erratic'" in msg and f"seat {seat}" in msg and _action_text(e.action) in msg
    assert f"game {first_hand + h}" in msg
    if h == 0:
        assert e.completed is None
    else:
        assert np.array_equal(e.completed.points, twin_res.points[:h])
        assert np.array_equal(e.completed.stats[:, :8], twin_res.stats[:h, :8])
        assert (e.completed.trace is not None) == record


@settings(max_examples=50, **SETTINGS)
@given(data=st.data(), config=st.integers(0, len(CONFIGS) - 1),
       n_hands=st.integers(1, 40), seed=st.integers(0, MAX_SEED),
       first_hand=st.one_of(st.integers(0, 10**6), st.just(MAX_STREAM - 40)),
       workers=st.integers(1, 2), record=st.booleans(), checked=st.sampled_from([None, True]))
def test_an_illegal_action_of_a_user_policy_is_stopped_and_named(
        data, config, n_hands, seed, first_hand, workers, record, checked):
    params = CONFIGS[config]
    n = RuleSet.from_params(dict(params)).players
    bad = data.draw(st.sets(st.integers(0, n - 1), min_size=1), label="erratic seats")
    others = data.draw(st.lists(st.sampled_from(sorted(BUILTIN_POLICIES)), min_size=n,
                                max_size=n), label="other seats")
    policies = [_erratic if q in bad else others[q] for q in range(n)]
    twin = ["uniform" if q in bad else others[q] for q in range(n)]
    fire, twin_res = _first_firing(params, n_hands, bad, twin, seed, first_hand)
    event("never fired" if fire is None else
          f"fired in game {'0' if fire[0] == 0 else '> 0'}, kind {fire[3]}")
    if fire is None:
        res = simulate(params, n_hands, policies, seed=seed, workers=workers, record=record,
                       first_hand=first_hand, checked=checked)
        assert np.array_equal(res.points, twin_res.points)
        assert np.array_equal(res.stats[:, :8], twin_res.stats[:, :8])
        return
    with pytest.raises(IllegalPolicyActionError) as info:
        simulate(params, n_hands, policies, seed=seed, workers=workers, record=record,
                 first_hand=first_hand, checked=checked)
    _check_error(info.value, fire, twin_res, first_hand, record)


def test_every_kind_of_illegal_value_is_stopped():
    """Each kind of illegal value (not in hand, 52, -1, 53, 54, legal[k], 2**40,
    -2**63, 2**31, 2**32 + a legal card, 64 + a legal card, 2**63 - 1, a value
    written into ``legal``) is caught at least once, from every seat."""
    kinds, seats = set(), set()
    for seed in range(400):
        fire, twin_res = _first_firing({}, 6, set(range(6)), "uniform", seed, 0)
        if fire is None:
            continue
        with pytest.raises(IllegalPolicyActionError) as info:
            simulate({}, 6, _erratic, seed=seed, workers=1)
        _check_error(info.value, fire, twin_res, 0, False)
        kinds.add(fire[3])
        seats.add(fire[2])
        if len(kinds) == N_KINDS and len(seats) == 6:
            break
    assert kinds == set(range(N_KINDS)) and seats == set(range(6))


def _seed_where(params, n_hands, bad, twin, want):
    """The first seed whose first firing (or None) satisfies ``want``."""
    for seed in range(200):
        fire, twin_res = _first_firing(params, n_hands, bad, twin, seed, 0)
        if want(fire):
            return seed, fire, twin_res
    raise AssertionError("no such seed")


FIVE = ["uniform", "heuristic", _erratic, "uniform", "pass:expert+heuristic"]
FIVE_TWIN = ["uniform", "heuristic", "uniform", "uniform", "pass:expert+heuristic"]


def test_the_first_illegal_game_does_not_depend_on_workers():
    """Chunks of a parallel run each stop at their own first illegal action; the
    error is the run's first, whatever the split (here in a later chunk)."""
    seed, fire, twin_res = _seed_where({"players": 5}, 300, {2}, FIVE_TWIN,
                                       lambda f: f is not None and f[0] >= 40)
    for workers in (1, 2, 3):
        with pytest.raises(IllegalPolicyActionError) as info:
            simulate({"players": 5}, 300, FIVE, seed=seed, workers=workers)
        _check_error(info.value, fire, twin_res, 0, False)


def test_checked_false_skips_the_check_of_a_user_policy():
    """``checked=False`` runs a user policy unchecked, with the same results
    where it is legal: games in which the erratic policy never fires (shown by
    the engine replay) are the same checked, unchecked and as the twin's."""
    seed, fire, twin_res = _seed_where({"players": 5}, 60, {2}, FIVE_TWIN, lambda f: f is None)
    for workers in (1, 2):
        a = simulate({"players": 5}, 60, FIVE, seed=seed, workers=workers, checked=False)
        b = simulate({"players": 5}, 60, FIVE, seed=seed, workers=workers)
        for r in (a, b):
            assert np.array_equal(r.points, twin_res.points)
            assert np.array_equal(r.stats[:, :8], twin_res.stats[:, :8])


# ------------------------------------------------------------ built-ins are legal
PROOF_HANDS = 200


@pytest.mark.parametrize("policy", sorted(BUILTIN_POLICIES))
def test_builtin_policy_never_trips_the_check(policy):
    """Proof that the built-in policies may run unchecked: many games in every
    configuration, every action checked, and results identical to unchecked
    runs (so the check changes nothing but the safety)."""
    for i, params in enumerate(CONFIGS):
        a = simulate(params, PROOF_HANDS, policy, seed=1000 + i, workers=2, checked=True)
        b = simulate(params, PROOF_HANDS, policy, seed=1000 + i, workers=2, checked=False)
        c = simulate(params, PROOF_HANDS, policy, seed=1000 + i, workers=2)
        assert np.array_equal(a.points, b.points) and np.array_equal(a.stats, b.stats)
        assert np.array_equal(a.points, c.points) and np.array_equal(a.stats, c.stats)
        assert (a.stat("actions") > a.rules.num_cards).all()


def test_mixed_builtin_table_checked_equals_unchecked_action_by_action():
    pols = sorted(BUILTIN_POLICIES)
    for i, params in enumerate([{"players": 11}, {"players": 11, "packs": 3}, {"players": 5}]):
        n = RuleSet.from_params(params).players
        seats = [pols[(q + 3 * i) % len(pols)] for q in range(n)]
        a = simulate(params, 150, seats, seed=i, workers=2, checked=True, record=True)
        b = simulate(params, 150, seats, seed=i, workers=1, checked=False, record=True)
        assert np.array_equal(a.trace, b.trace) and np.array_equal(a.stats, b.stats)


def test_checked_rollout_of_builtins_equals_unchecked():
    game = spiel_game.load()
    st_ = game.new_initial_state()
    rng = np.random.default_rng(0)
    while st_.is_chance_node() or st_.engine_state[E.S_NPLAYED] < 20:
        la = st_.legal_actions()
        st_.apply_action(la[int(rng.integers(len(la)))])
    p, s = st_.engine_params, np.array(st_.engine_state)
    for pol in ("uniform", "heuristic", "pass:void_short+heuristic"):
        for i in range(20):
            ref = rollout(p, s, make_rng(i), pol)
            assert np.array_equal(rollout(p, s, make_rng(i), pol, checked=True), ref)
            assert np.array_equal(rollout(p, s, make_rng(i), pol, checked=False), ref)


# ------------------------------------------------------------ rollout arguments
def _real_state(config: int, steps: int, seed: int):
    rules = RuleSet.from_params(dict(CONFIGS[config]))
    p = E.make_params(rules)
    s = E.new_state(p)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if E.current_player(p, s) == E.TERMINAL:
            break
        la = E.legal_actions(p, s)
        assert E.apply_action(p, s, int(la[rng.integers(len(la))])) == E.OK
    return p, s


BAD_ROLLOUT = ["s_zeros_float", "s_zeros_int32", "s_list", "s_dtype", "s_2d", "s_strided",
               "s_other_game", "s_card_added", "s_card_removed", "s_phase", "s_dealt",
               "p_other_game", "p_dtype", "p_length", "p_2d", "p_list", "p_layout",
               "p_rules", "rng_dtype", "rng_shape", "rng_readonly", "rng_int",
               "policy_unknown", "policy_count", "policy_function"]


# Bad states that only validation.validate sees (rollout(checked=False) skips it).
NEEDS_VALIDATE = {"s_other_game", "p_other_game", "s_card_added", "s_card_removed", "s_phase",
                  "s_dealt"}


@settings(max_examples=150, **SETTINGS)
@given(kind=st.sampled_from(BAD_ROLLOUT), config=st.integers(0, len(CONFIGS) - 1),
       other=st.integers(0, len(CONFIGS) - 1), steps=st.integers(0, 400),
       seed=st.integers(0, 2**32), data=st.data())
def test_wrong_arrays_for_rollout_give_a_clear_error(kind, config, other, steps, seed, data):
    p, s = _real_state(config, steps, seed)
    rng = make_rng(seed)
    policy = "heuristic"
    n = int(p[E.P_N])
    arg = kind.split("_")[0]
    if kind == "s_zeros_float":
        s = np.zeros(data.draw(st.integers(0, 3000)))
    elif kind == "s_zeros_int32":
        size = data.draw(st.integers(0, 3000).filter(lambda x: x != s.shape[0]))
        s = np.zeros(size, np.int32)
    elif kind == "s_list":
        s = s.tolist()
    elif kind == "s_dtype":
        s = s.astype(data.draw(st.sampled_from([np.int64, np.float64, np.float32, np.uint32,
                                                np.int16, np.bool_])))
    elif kind == "s_2d":
        s = s.reshape(1, -1)
    elif kind == "s_strided":
        s = np.repeat(s, 2)[::2]
    elif kind == "s_other_game":
        p2, s = _real_state(other, steps, seed + 1)
        if p2.tobytes() == p.tobytes():
            s = s[:-1].copy()
        elif s.shape[0] == p[E.L_STATE_SIZE] and V.validate(p, s) == 0:
            return                      # a state of both games
    elif kind in ("s_card_added", "s_card_removed"):
        c = data.draw(st.integers(0, E.K - 1))
        seat = data.draw(st.integers(0, n - 1))
        if kind == "s_card_removed":
            held = [(q, x) for q in range(n) for x in range(E.K)
                    if E.hand(p, s, q)[x] > 0]
            if not held:
                return
            seat, c = held[data.draw(st.integers(0, len(held) - 1))]
        E.hand(p, s, seat)[c] += 1 if kind == "s_card_added" else -1
    elif kind == "s_phase":
        s[E.S_PHASE] = data.draw(st.one_of(st.integers(-2**31, -1), st.integers(5, 2**31 - 1)))
    elif kind == "s_dealt":
        s[E.S_DEALT] = data.draw(st.integers(int(p[E.P_NCARDS]) + 1, 2**31 - 1))
    elif kind == "p_other_game":
        p2, _ = _real_state(other, 0, seed)
        if p2.tobytes() == p.tobytes() or (
                p2[E.L_STATE_SIZE] == p[E.L_STATE_SIZE] and V.validate(p2, s) == 0):
            return                      # the same rules, or a state valid under both
        p = p2
    elif kind == "p_dtype":
        p = p.astype(np.int64)
    elif kind == "p_length":
        p = np.concatenate([p, np.zeros(data.draw(st.integers(1, 5)), np.int32)])
    elif kind == "p_2d":
        p = p.reshape(1, -1)
    elif kind == "p_list":
        p = p.tolist()
    elif kind == "p_layout":
        p = p.copy()
        i = data.draw(st.integers(E.L_UNDEALT, E.L_STATE_SIZE))
        p[i] += data.draw(st.integers(-10**6, 10**6).filter(bool))
    elif kind == "p_rules":
        p = p.copy()
        field, value = data.draw(st.sampled_from([
            (E.P_N, st.integers(-5, 40)), (E.P_HAND, st.integers(-5, 60)),
            (E.P_KITTY, st.integers(-5, 10)), (E.P_NCARDS, st.integers(-5, 300)),
            (E.P_DECK + data.draw(st.integers(0, E.K - 1)), st.integers(-3, 9)),
            (E.P_MOON, st.integers(5, 1000)), (E.P_FIRST_LEAD, st.integers(2, 1000)),
            (E.P_UTILITY, st.integers(2, 10)), (E.P_PENALTY_PTS, st.integers(-100, 100)),
            (E.P_BONUS_PTS, st.integers(-100, 100)),
            (E.P_POINTS + data.draw(st.integers(0, E.K - 1).filter(lambda c: c != JD)),
             st.integers(-30, 30)),
            (E.P_POINTS + JD, st.one_of(st.integers(-2**31, -27), st.integers(1, 2**31 - 1))),
            (E.P_PASS, st.integers(-3, -1)), (E.P_OPENING, st.integers(53, 10**6)),
            (E.P_MAX_HANDS, st.one_of(st.integers(-10, 0), st.integers(10_001, 2**31 - 1))),
            (E.P_MOON_PTS, st.one_of(st.integers(-2**31, -1), st.integers(10_001, 2**31 - 1))),
            (E.P_TARGET, st.one_of(st.integers(-2**31, -1),
                                   st.integers(1_000_001, 2**31 - 1)))]))
        new = data.draw(value.filter(lambda x: x != p[field]))
        p[field] = new
    elif kind == "rng_dtype":
        rng = rng.astype(np.int64)
    elif kind == "rng_shape":
        rng = np.zeros(data.draw(st.sampled_from([0, 2, 5])), np.uint64)
    elif kind == "rng_readonly":
        rng.setflags(write=False)
    elif kind == "rng_int":
        rng = 7
    elif kind == "policy_unknown":
        policy = data.draw(st.text(max_size=12).filter(lambda x: x not in BUILTIN_POLICIES))
    elif kind == "policy_count":
        policy = ["uniform"] * data.draw(st.integers(0, 12).filter(lambda x: x != n))
    elif kind == "policy_function":
        policy = _erratic
    with pytest.raises((TypeError, ValueError)) as info:
        rollout(p, s, rng, policy)
    assert not isinstance(info.value, IllegalPolicyActionError)
    # A state and rules of two games: the state does not belong to the rules.
    names = "p|s" if kind.endswith("other_game") else arg
    assert re.match(rf"({names})\b", str(info.value)), str(info.value)
    if kind not in NEEDS_VALIDATE:
        # checked=False skips validation.validate only: the same error.
        with pytest.raises(type(info.value)) as unchecked:
            rollout(p, s, rng, policy, checked=False)
        assert str(unchecked.value) == str(info.value)


def test_the_issue_examples_give_clear_errors():
    game = spiel_game.load()
    p = game.new_initial_state().engine_params
    with pytest.raises(TypeError, match=r"^s must be .*dtype int32, got dtype float64"):
        rollout(p, np.zeros(10), make_rng(1))
    s11 = spiel_game.load(players=11).new_initial_state().engine_state
    with pytest.raises(ValueError, match=r"^s must be .*length \d+, got length \d+"):
        rollout(p, np.array(s11), make_rng(1))
    p11 = spiel_game.load(players=11).new_initial_state().engine_params
    s6 = np.array(game.new_initial_state().engine_state)
    with pytest.raises(ValueError, match=r"^s must be"):
        rollout(p11, s6, make_rng(1))
    s = s6.copy()
    E.hand(p, s, 0)[3] = 4
    with pytest.raises(ValueError, match=r"^s is not a consistent state.*validate.*\(\w+: "):
        rollout(p, s, make_rng(1))


def test_rollout_from_a_terminal_state_returns_its_returns():
    """A decision: a terminal state is a state of the game; its rollout is its returns."""
    for config in range(len(CONFIGS)):
        p, s = _real_state(config, 10**4, config)
        assert E.current_player(p, s) == E.TERMINAL
        assert np.array_equal(rollout(p, s, make_rng(0)), E.returns(p, s))


@pytest.mark.parametrize("config", [0, 2, 3, 6])
def test_rollout_from_the_middle_of_the_deal_completes_it(config):
    """A chance node in the middle of the deal gets the rest of the deck (it
    used to be dealt a whole deck more: wrong points or a crash)."""
    rules = RuleSet.from_params(dict(CONFIGS[config]))
    p, s = _real_state(config, rules.num_cards // 2 + 3, 5)
    assert E.current_player(p, s) == E.CHANCE and s[E.S_DEALT] > 0
    total = rules.total_points
    seen = set()
    for i in range(200):
        out = rollout(p, s, make_rng(i), "heuristic")
        moon = rules.moon_points * (rules.players - 1) if rules.moon == "add" else 0
        assert -out.sum() in (total, total + moon)
        seen.add(tuple(out))
    assert len(seen) > 20


# ------------------------------------------------------------ simulate arguments
BAD_SIMULATE = {
    "seed": (st.one_of(st.integers(max_value=-1), st.integers(min_value=2**64),
                       st.floats(allow_nan=True), st.text(max_size=4), st.booleans(),
                       st.none()), "0..18446744073709551615"),
    "n_hands": (st.one_of(st.integers(max_value=0), st.floats(), st.text(max_size=3),
                          st.booleans()), "1.."),
    "workers": (st.one_of(st.integers(max_value=0), st.floats(), st.text(max_size=3),
                          st.booleans()), ">= 1"),
    "first_hand": (st.one_of(st.integers(max_value=-1), st.integers(min_value=MAX_STREAM),
                             st.floats()), "0.."),
    "record": (st.one_of(st.integers(), st.text(max_size=3), st.none()), "True or False"),
    "checked": (st.one_of(st.integers(), st.text(max_size=3)), "None"),
    "policies": (st.one_of(st.text(max_size=10).filter(lambda x: x not in BUILTIN_POLICIES),
                           st.lists(st.sampled_from(["uniform", "heuristic"]), max_size=12)
                           .filter(lambda x: len(x) != 6),
                           st.integers(), st.just(print), st.just([len] * 6)), "policies"),
}


@settings(max_examples=120, **SETTINGS)
@given(data=st.data(), arg=st.sampled_from(sorted(BAD_SIMULATE)))
def test_bad_simulate_arguments_are_named(data, arg):
    strategy, allowed = BAD_SIMULATE[arg]
    value = data.draw(strategy, label=arg)
    kwargs = {"n_hands": 2, "seed": 1, "workers": 1, arg: value}
    if arg == "first_hand" and isinstance(value, int):
        kwargs["n_hands"] = 2           # MAX_STREAM + 1 - 2 < value
    with pytest.raises((TypeError, ValueError)) as info:
        simulate({}, **kwargs)
    msg = str(info.value)
    assert re.match(rf"{arg}\b", msg) and allowed in msg, msg


def test_seed_and_stream_limits():
    a = simulate({}, 3, seed=MAX_SEED, workers=1)
    b = simulate({}, 3, seed=np.uint64(MAX_SEED), workers=1)
    assert np.array_equal(a.points, b.points)
    assert np.array_equal(simulate({}, 3, seed=np.int64(5), workers=1).points,
                          simulate({}, 3, seed=5, workers=1).points)
    last = simulate({}, 1, seed=0, first_hand=MAX_STREAM, workers=1)
    assert last.points.shape == (1, 6)
    with pytest.raises(ValueError, match="first_hand"):
        simulate({}, 2, seed=0, first_hand=MAX_STREAM, workers=1)
    for seed, stream in ((-1, 0), (2**64, 0), (0, -1), (0, MAX_STREAM + 1)):
        with pytest.raises(ValueError, match="seed|stream"):
            make_rng(seed, stream)
    with pytest.raises(TypeError, match="seed"):
        make_rng(1.5)


def test_a_policy_that_does_not_compile_is_named():
    @njit
    def _two_arguments(p, s):
        return 0

    with pytest.raises(TypeError, match=r"_two_arguments.*policy\(p, s, legal, k, rng\)"):
        simulate({}, 2, ["uniform"] * 5 + [_two_arguments], workers=1)

    def _plain(p, s, legal, k, rng):
        return legal[0]

    with pytest.raises(TypeError, match=r"policies\[0\].*@numba.njit"):
        simulate({}, 2, _plain, workers=1)


def test_check_params_accepts_every_real_rules_vector():
    for params in CONFIGS + [spiel_game.preset(name) for name in spiel_game.PRESETS]:
        p = E.make_params(RuleSet.from_params(dict(params)))
        check_params(p)
        check_state(p, E.new_state(p))
    p, s = _real_state(0, 150, 3)
    check_state(p, s)
    with pytest.raises(TypeError, match="s must be"):
        state_checksum(s.astype(np.int64))
    assert state_checksum(s) == _hash(s)
    assert np.array_equal(clone(s), s) and clone(s) is not s
    with pytest.raises(TypeError, match="s must be"):
        clone(s.tolist())
