"""Classic 4-player Hearts, card for card against OpenSpiel's C++ ``hearts``.

RULES.md ("Not from the sources"): ``deck="classic"`` is one pack, 4 players,
2C leads, no points on the first trick, 13 cards each, matching OpenSpiel's
``hearts`` defaults. Card ids are ``rank * 4 + suit`` in both games, both deal
card ``i`` of the pack to seat ``i mod 4``, and both pass 3 cards seat 0 first.

C++ ``hearts`` starts with a chance node choosing the pass direction
(0 no pass, 1 left, 2 across, 3 right), which is our ``pass_offset``; we apply
it to the C++ state first. C++ returns ``26 - points`` and always shoots the
moon "both ways" (shooter -26, others +26), which is ``moon="both"`` here;
our returns are ``-points``.

``deck="classic"`` needs ``players=4, packs=1`` spelled out: pyspiel fills
every missing parameter with its registered default (players 6, packs 2)
before our constructor sees it (see spiel_game/_rules.py).
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers python_cancellation_hearts)
from spiel_game import cards as C

GAMES_PER_DIRECTION = 2_500          # 10,000 uniformly random games in all
MOON_GAMES_PER_DIRECTION = 250       # plus games biased towards shooting the moon
PASS_DIRECTIONS = (0, 1, 2, 3)       # C++: no pass, left, across, right
CPP_TOTAL_POINTS = 26


def classic_params(pass_offset: int) -> dict:
    return {"deck": "classic", "players": 4, "packs": 1, "moon": "both",
            "pass_offset": pass_offset}


@pytest.fixture(scope="module")
def cpp_hearts():
    return pyspiel.load_game("hearts")


def _uniform_policy(legal, plays, passing, player, rng):
    return legal[int(rng.integers(len(legal)))]


def _make_moon_policy(hog: int, eps: float = 0.05):
    """Seat ``hog`` leads and follows with its highest card; the others follow
    low and discard non-point cards; non-hogs pass their highest cards, the
    hog its lowest. With probability ``eps`` a move is uniformly random."""
    def policy(legal, plays, passing, player, rng):
        if len(legal) == 1:
            return legal[0]
        if rng.random() < eps:
            return legal[int(rng.integers(len(legal)))]
        ranked = sorted(legal, key=lambda c: (c // 4, c % 4))
        safe = [c for c in ranked if C.POINTS_OF[c] == 0] or ranked
        me = player == hog
        if passing:
            return ranked[0] if me else ranked[-1]
        in_trick = len(plays) % 4
        if in_trick == 0:                       # leading
            return ranked[-1] if me else safe[0]
        following = legal[0] % 4 == plays[-in_trick] % 4
        if following:
            return ranked[-1] if me else ranked[0]
        return safe[0]
    return policy


def _stacked_deal(rng, hog: int, top: int = 20) -> list[int]:
    """A deal (card for each of positions 0..51) giving seat ``hog`` 13 of the
    ``top`` highest card ids (ids grow with rank) and the rest at random."""
    high = rng.permutation(np.arange(52 - top, 52))[:13]
    low = rng.permutation(np.setdiff1d(np.arange(52), high))
    deal = np.empty(52, np.int64)
    seat = np.arange(52) % 4
    deal[seat == hog] = high
    deal[seat != hog] = low
    return deal.tolist()


def _play_one_game(cpp_game, our_game, pass_dir, rng, policy, deal=None,
                   check_chance=False):
    """Deal the same pack (``deal``, default a random one) to both games and
    play the same moves, chosen by ``policy``; assert agreement at every node.
    Returns our terminal returns (= -points)."""
    cpp = cpp_game.new_initial_state()
    cpp.apply_action(pass_dir)
    ours = our_game.new_initial_state()
    if deal is None:
        deal = rng.permutation(52).tolist()
    for card in deal:
        assert cpp.is_chance_node() and ours.is_chance_node()
        if check_chance:
            ours_outcomes, cpp_outcomes = ours.chance_outcomes(), cpp.chance_outcomes()
            assert [a for a, _ in ours_outcomes] == [a for a, _ in cpp_outcomes]
            assert [p for _, p in ours_outcomes] == pytest.approx([p for _, p in cpp_outcomes])
        cpp.apply_action(card)
        ours.apply_action(card)
    passes_left = 12 if pass_dir else 0
    plays = []
    while not cpp.is_terminal():
        player = cpp.current_player()
        legal = cpp.legal_actions()
        assert ours.current_player() == player, (
            f"current player differs after {ours.history()}: ours "
            f"{ours.current_player()}, C++ {player}")
        ours_legal = ours.legal_actions()
        assert ours_legal == legal, (
            f"legal actions differ for player {player} after history "
            f"{ours.history()}:\nours {ours_legal}\nC++  {legal}")
        action = policy(legal, plays, passes_left > 0, player, rng)
        if passes_left:
            passes_left -= 1
        else:
            plays.append(action)
        cpp.apply_action(action)
        ours.apply_action(action)
    assert ours.is_terminal()
    assert ours.current_player() == pyspiel.PlayerId.TERMINAL
    ours_returns = ours.returns()
    cpp_points = [CPP_TOTAL_POINTS - r for r in cpp.returns()]
    assert ours_returns == [-p for p in cpp_points], (
        f"points differ after {ours.history()}: ours {[-r for r in ours_returns]}, "
        f"C++ {cpp_points}")
    return ours_returns


def _moon_shot(returns) -> bool:
    # With moon="both" the shooter ends at 26 - 26 = 0 points, the others at 26.
    return sorted(returns) == [-26.0, -26.0, -26.0, 0.0]


@pytest.mark.parametrize("pass_dir", PASS_DIRECTIONS)
def test_classic_matches_openspiel_hearts_card_for_card(cpp_hearts, pass_dir):
    """2,500 uniformly random games per pass direction (10,000 in all):
    same current player, same legal actions at every decision, same points."""
    our_game = pyspiel.load_game("python_cancellation_hearts", classic_params(pass_dir))
    rng = np.random.default_rng(20_000 + pass_dir)
    start = time.perf_counter()
    for i in range(GAMES_PER_DIRECTION):
        _play_one_game(cpp_hearts, our_game, pass_dir, rng, _uniform_policy,
                       check_chance=i < 5)
    elapsed = time.perf_counter() - start
    print(f"pass_dir={pass_dir}: {GAMES_PER_DIRECTION} games in {elapsed:.2f} s")


@pytest.mark.parametrize("pass_dir", PASS_DIRECTIONS)
def test_classic_moon_shots_score_like_openspiel_hearts(cpp_hearts, pass_dir):
    """Games biased so one seat takes every point: the moon rule (shooter -26,
    others +26) agrees with C++, and moon shots really occur."""
    our_game = pyspiel.load_game("python_cancellation_hearts", classic_params(pass_dir))
    rng = np.random.default_rng(30_000 + pass_dir)
    shots = 0
    for i in range(MOON_GAMES_PER_DIRECTION):
        hog = i % 4
        deal = _stacked_deal(rng, hog) if i % 2 else None
        returns = _play_one_game(cpp_hearts, our_game, pass_dir, rng,
                                 _make_moon_policy(hog), deal=deal)
        shots += _moon_shot(returns)
    print(f"pass_dir={pass_dir}: {shots} moon shots")
    assert shots >= 20, f"only {shots} moon shots in {MOON_GAMES_PER_DIRECTION} biased games"


def test_classic_action_to_string_matches_openspiel_for_all_52_cards(cpp_hearts):
    our_game = pyspiel.load_game("python_cancellation_hearts", classic_params(1))
    ours = our_game.new_initial_state()
    cpp = cpp_hearts.new_initial_state()
    cpp.apply_action(1)      # C++ names the pass direction while its history is empty
    deal = list(range(52))
    for card in deal:
        assert ours.action_to_string(pyspiel.PlayerId.CHANCE, card) == \
            cpp.action_to_string(pyspiel.PlayerId.CHANCE, card)
    for card in deal:
        cpp.apply_action(card)
        ours.apply_action(card)
    for player in range(4):
        for card in range(52):
            text = cpp.action_to_string(player, card)
            assert ours.action_to_string(player, card) == text, card
            assert C.card_to_string(card) == text
            assert ours.string_to_action(text) == card
    # Spot checks of the shared notation (R2).
    assert [ours.action_to_string(0, a) for a in (0, 3, 42, 51)] == ["2C", "2S", "QH", "AS"]
    assert C.card_to_string(C.QS) == cpp.action_to_string(0, C.QS) == "QS"
