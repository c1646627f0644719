"""The compiled batch simulator: equivalence with the pyspiel game, determinism,
policies, search primitives."""

import numpy as np
import pyspiel
import pytest
from numba import njit

import solvers._base.passing  # noqa: F401  (registers "heuristic" and "pass:*" in the simulator)
from solvers._base.heuristic import heuristic_policy
import spiel_game
from spiel_game import _engine as E
from spiel_game._policies import uniform_action, uniform_policy
from spiel_game._rng import rand_below
from spiel_game._simulator import (POLICIES, STAT_NAMES, bytes_per_game_in_flight, make_rng,
                                  register_policy, rollout, simulate, state_checksum)

NAME = spiel_game.GAME_NAME

CONFIGS = ([{"players": n} for n in (5, 6, 7, 8, 9, 10, 11)]
           + [{"deck": "kitty", "players": n} for n in (5, 6, 7, 9, 11)]
           + [{"players": 11, "packs": 3}, spiel_game.preset("classic"),
              {"deck": "custom", "players": 3, "suits": "HS", "ranks": "TJQKA", "packs": 3},
              {"players": 6, "void_last_trick": "discard", "moon": "subtract", "pass_offset": -1},
              {"players": 5, "target_score": 40, "moon": "choose"}])


def _replay(game, trace):
    st = game.new_initial_state()
    for a in trace:
        if a < 0:
            break
        st.apply_action(int(a))        # raises if the simulator played an illegal move
    return st


@pytest.mark.parametrize("params", CONFIGS,
                         ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
@pytest.mark.parametrize("policy", ["uniform", "heuristic"])
def test_simulator_and_pyspiel_give_identical_hands_and_points(params, policy):
    game = pyspiel.load_game(NAME, params)
    res = simulate(params, 12, policy, seed=7, workers=1, record=True)
    for h in range(12):
        st = _replay(game, res.trace[h])
        assert st.is_terminal()
        s = st.engine_state
        P = st.engine_params
        scores = E.scores(P, s)
        assert res.points[h].tolist() == scores.tolist()
        assert res.stat("state_checksum")[h] == state_checksum(np.asarray(s))
        assert res.stat("actions")[h] == len(st.history())
        if game.rules.utility == "points":
            assert st.returns() == [0.0 - x for x in res.points[h]]


def test_results_do_not_depend_on_the_number_of_workers():
    a = simulate({"players": 7, "deck": "kitty"}, 300, "heuristic", seed=11, workers=1)
    b = simulate({"players": 7, "deck": "kitty"}, 300, "heuristic", seed=11, workers=2)
    assert np.array_equal(a.points, b.points) and np.array_equal(a.stats, b.stats)


def test_chunks_reproduce_one_run():
    whole = simulate({}, 200, seed=3, workers=2)
    first = simulate({}, 120, seed=3, workers=1)
    rest = simulate({}, 80, seed=3, workers=2, first_hand=120)
    assert np.array_equal(whole.points, np.vstack([first.points, rest.points]))


def test_different_seeds_give_different_games():
    a = simulate({}, 50, seed=1, workers=1, record=True)
    b = simulate({}, 50, seed=2, workers=1, record=True)
    assert not np.array_equal(a.stat("state_checksum"), b.stat("state_checksum"))


def test_the_heuristic_beats_uniform_random_play():
    res = simulate({}, 3000, ["heuristic", "uniform"] * 3, seed=5)
    heur = res.points[:, 0::2].mean()
    unif = res.points[:, 1::2].mean()
    assert heur < 0.5 * unif


@njit
def _lowest_card(p, s, legal, k, rng):
    return legal[0]


def test_policy_table_takes_registered_names_and_functions():
    """A policy registered by name plays exactly as the function passed
    directly; a registered name with a passing policy uses it only while
    passing (here the convention 'low' then the heuristic player)."""
    register_policy("test:lowest", _lowest_card)
    try:
        by_name = simulate({}, 40, ["test:lowest"] + ["heuristic"] * 5, seed=4, workers=1,
                           record=True)
        by_function = simulate({}, 40, [_lowest_card] + ["heuristic"] * 5, seed=4, workers=1,
                               record=True)
        assert np.array_equal(by_name.trace, by_function.trace)
    finally:
        del POLICIES["test:lowest"]
    from solvers._base.passing import pass_low
    register_policy("test:low+heuristic", heuristic_policy, passing=pass_low)
    try:
        a = simulate({}, 40, "test:low+heuristic", seed=4, workers=1, record=True)
        b = simulate({}, 40, "pass:low+heuristic", seed=4, workers=1, record=True)
        assert np.array_equal(a.trace, b.trace) and np.array_equal(a.points, b.points)
    finally:
        del POLICIES["test:low+heuristic"]
    with pytest.raises(TypeError, match="not an @numba.njit function"):
        register_policy("test:plain", _lowest_card.py_func)


def test_custom_compiled_policy_plugs_in():
    res = simulate({}, 200, [_lowest_card, "uniform", "uniform", "heuristic", "uniform", "uniform"],
                   seed=9, workers=1, record=True)
    game = pyspiel.load_game(NAME)
    st = _replay(game, res.trace[0])
    assert st.is_terminal()
    # Seat 0 always played its lowest-id legal card: check it on the replay.
    st = game.new_initial_state()
    for a in res.trace[0]:
        if a < 0:
            break
        if st.current_player() == 0:
            assert a == st.legal_actions()[0]
        st.apply_action(int(a))


def test_simulator_statistics_are_consistent():
    res = simulate({"players": 6}, 2000, seed=4)
    assert set(STAT_NAMES) >= {"void_tricks", "moons", "cancelled_pairs", "aardvark_attempts",
                               "aardvark_successes", "pot_at_last_trick"}
    assert (res.stat("aardvark_successes") <= res.stat("aardvark_attempts")).all()
    assert res.stat("cancelled_pairs").mean() > 1          # two packs: cancellation is common
    # Points per hand: 52 in play, plus 26 for each other player on a moon (add).
    total = res.points.sum(axis=1)
    assert np.array_equal(total, 52 + 26 * 5 * res.stat("moons"))


def test_rollout_from_a_resampled_state_reaches_the_end():
    game = pyspiel.load_game(NAME)
    rng = np.random.default_rng(0)
    st = game.new_initial_state()
    while st.is_chance_node() or st.engine_state[E.S_NPLAYED] < 30:
        la = st.legal_actions()
        st.apply_action(la[int(rng.integers(len(la)))])
    det = st.resample_from_infostate(st.current_player(), rng)
    s = np.array(det.engine_state)
    out = rollout(det.engine_params, s, make_rng(5), "heuristic")
    assert out.shape == (6,)
    assert out.sum() in (-52.0, -52.0 - 26 * 5)          # 52 points, or a moon (add)
    assert np.array_equal(s, det.engine_state)            # the input state is not modified


def test_bad_simulator_input_is_rejected():
    with pytest.raises(ValueError, match="unknown policies"):
        simulate({}, 1, "nonsense")
    with pytest.raises(ValueError, match="one policy per seat"):
        simulate({}, 1, ["uniform"] * 5)
    with pytest.raises(ValueError, match="n_hands"):
        simulate({}, -1)
    with pytest.raises(spiel_game.GameParameterError):
        simulate({"players": 4}, 1)


def test_memory_per_game_is_stated():
    b6 = bytes_per_game_in_flight({"players": 6})
    b11 = bytes_per_game_in_flight({"players": 11})
    assert 1000 < b6 < b11 < 20000


@njit
def _uniform_from_the_list(p, s, legal, k, rng):
    return legal[rand_below(rng, k)]


@pytest.mark.parametrize("params", [{}, {"deck": "kitty", "players": 7},
                                    {"players": 5, "target_score": 40, "moon": "choose"}],
                         ids=["default", "kitty7", "match-choose"])
def test_uniform_draw_without_the_list_plays_the_same_games(params):
    """The game loop draws uniform seats from the legal mask (``uniform_action``);
    a policy drawing from the listed actions must play exactly the same games."""
    fast = simulate(params, 300, "uniform", seed=21, workers=2, record=True)
    listed = simulate(params, 300, _uniform_from_the_list, seed=21, workers=1, record=True)
    assert np.array_equal(fast.trace, listed.trace)
    assert np.array_equal(fast.points, listed.points) and np.array_equal(fast.stats, listed.stats)


@pytest.mark.parametrize("params", [{}, {"players": 11, "packs": 3}, spiel_game.preset("classic"),
                                    {"deck": "kitty", "players": 5, "moon": "choose",
                                     "points_on_first_trick": "forbidden"}],
                         ids=["default", "11p3packs", "classic", "kitty5-choose"])
def test_legal_mask_and_uniform_action_agree_with_the_legal_actions(params):
    game = pyspiel.load_game(NAME, params)
    rng = np.random.default_rng(3)
    seen = 0
    for g in range(6):
        st = game.new_initial_state()
        while not st.is_terminal():
            P, s = st.engine_params, np.array(st.engine_state)
            legal = E.legal_actions(P, s)
            mask = E.legal_mask(P, s)
            assert [c for c in range(E.K) if mask >> c & 1] == [a for a in legal if a < E.K]
            assert E.popcount(mask) == sum(a < E.K for a in legal)
            assert all((E.check_action(P, s, a) == E.OK) == (a in legal)
                       for a in range(E.NUM_ACTIONS_WITH_MOON))
            r1, r2 = make_rng(g, seen), make_rng(g, seen)
            assert uniform_action(P, s, r1) == uniform_policy(P, s, legal, len(legal), r2)
            assert r1[0] == r2[0]                         # one draw, the same one
            seen += 1
            st.apply_action(int(legal[int(rng.integers(len(legal)))]))
    assert seen > 500


@njit
def _bits(x):
    return E.popcount(x), E.lowest_bit(x), E.nth_bit(x, 2)


def test_bit_helpers_compiled_and_in_python_agree():
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = int(rng.integers(1, 2**53)) | 0b111
        assert _bits(x) == (E.popcount(x), E.lowest_bit(x), E.nth_bit.py_func(x, 2))
        assert E.popcount(x) == bin(x).count("1")
        assert E.nth_bit.py_func(x, 2) == [i for i in range(53) if x >> i & 1][2]
