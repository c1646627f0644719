"""R3 Deck composition: the balanced table (B), three packs for 11, the joker, the kitty (A)."""

import numpy as np
import pytest

from spiel_game import GameParameterError
from spiel_game import cards as C

from _rule_helpers import (deal, fill_hands, hand_points, legal, load, play,
                           random_playout, set_aside_line, trick_line)

# players: (jokers added, {card: copies removed}, cards, per player, opening card)
BALANCED_TABLE = {
    5: (1, {}, 105, 21, "0C"),
    6: (0, {"2C": 1, "2D": 1}, 102, 17, "2C"),
    7: (1, {}, 105, 15, "0C"),
    8: (1, {"2C": 1}, 104, 13, "0C"),
    9: (0, {"2C": 1, "2D": 2, "2S": 2}, 99, 11, "2C"),
    10: (0, {"2C": 1, "2D": 2, "2S": 1}, 100, 10, "2C"),
    11: (0, {"2C": 1, "2D": 2, "2S": 2}, 99, 9, "2C"),
}


@pytest.mark.parametrize("n", sorted(BALANCED_TABLE))
def test_r3_balanced_deck_table(n):
    jokers, removed, total, each, opening = BALANCED_TABLE[n]
    r = load(players=n).rules          # deck="balanced" is the default
    assert r.deck == "balanced"
    expected = [2] * 52 + [jokers]
    for card, k in removed.items():
        expected[C.string_to_card(card)] -= k
    assert list(r.deck_counts) == expected
    assert r.num_cards == total == sum(expected)
    assert r.hand_size == each
    assert r.kitty_size == 0
    assert each * n == total
    assert C.card_to_string(r.opening_card) == opening
    assert r.deck_counts[r.opening_card] == 1          # the opening card is unique
    assert f"{total} cards, {each} each" in r.describe()


@pytest.mark.parametrize("n", sorted(BALANCED_TABLE))
def test_r3_balanced_first_trick_opened_with_unique_card(n):
    # Deal at random (seeded); the player to move first holds the opening
    # card and may only lead it.
    game = load(players=n, pass_count=0)
    st = game.new_initial_state()
    rng = np.random.default_rng(n)
    while st.is_chance_node():
        acts, probs = zip(*st.chance_outcomes())
        st.apply_action(int(rng.choice(acts, p=np.asarray(probs))))
    assert legal(st) == [BALANCED_TABLE[n][4]]


def test_r3_eleven_players_three_packs():
    r = load(players=11, packs=3).rules
    expected = [3] * 52 + [0]
    expected[C.TWO_CLUBS] = 1
    assert list(r.deck_counts) == expected
    assert r.num_cards == 154
    assert r.hand_size == 14
    assert C.card_to_string(r.opening_card) == "2C"
    assert r.pass_count == 2
    st = random_playout(load(players=11, packs=3, pass_count=0, moon="off"), seed=3)
    assert trick_line(st, 1).startswith("Trick 1: P")
    assert trick_line(st, 1).split()[2].endswith(":2C")      # opened with the 2C
    assert sum(st.returns()) == -78                          # 39 hearts + 3 x 13


@pytest.mark.parametrize("n", [5, 6, 10])
def test_r3_three_packs_only_for_eleven_players(n):
    with pytest.raises(GameParameterError, match="packs=3"):
        load(players=n, packs=3)


def test_r3_joker_is_zero_of_clubs():
    assert C.card_suit(C.JOKER) == C.CLUBS
    assert C.card_rank(C.JOKER) == 0 < C.card_rank(C.TWO_CLUBS)
    counts = np.zeros(C.NUM_CARD_TYPES, int)
    counts[[C.JOKER, C.TWO_CLUBS, C.card("A", "C"), C.card("2", "D")]] = 1
    assert C.cards_to_string(counts) == "0C 2C AC 2D"


def test_r3_joker_led_everyone_follows_clubs_and_lowest_club_loses():
    game = load(players=5, pass_count=0, moon="off")
    hands = fill_hands(game, fixed={2: "0C", 3: "5C 9H", 4: "9C", 0: "3C", 1: "7C"})
    st = deal(game, hands)
    assert st.current_player() == 2 and legal(st) == ["0C"]
    play(st, "0C")
    # P3 holds clubs, so only clubs are legal (never its 9H).
    assert all(a.endswith("C") for a in legal(st)) and "5C" in legal(st)
    play(st, "5C 9C 3C 7C")
    assert trick_line(st, 1) == "Trick 1: P2:0C P3:5C P4:9C P0:3C P1:7C -> won by P4"


@pytest.mark.parametrize("n", range(5, 12))
def test_r3_kitty_deck_sizes(n):
    r = load(deck="kitty", players=n).rules
    assert r.num_cards == 104 and list(r.deck_counts) == [2] * 52 + [0]
    assert r.kitty_size == 104 % n
    assert r.hand_size == 104 // n
    assert r.hand_size * n + r.kitty_size == 104
    assert r.first_lead == "left_of_dealer"       # R6 A default with the kitty
    assert r.pass_count == 3                      # R5 A default with the kitty


KITTY6 = dict(deck="kitty", players=6, pass_count=0, moon="off")


def test_r3_kitty_goes_to_first_trick_winner_with_its_points():
    game = load(**KITTY6)
    hands = fill_hands(game, kitty="KH QS",
                       fixed={0: "3C", 1: "4C", 2: "5C", 3: "6C", 4: "AC", 5: "7C"})
    st = deal(game, hands, kitty="KH QS")
    assert "Kitty [KH QS] (with the pot)" in str(st)
    play(st, "3C 4C 5C 6C AC 7C")
    assert trick_line(st, 1) == "Trick 1: P0:3C P1:4C P2:5C P3:6C P4:AC P5:7C -> won by P4"
    assert hand_points(st) == [0, 0, 0, 0, 14, 0]
    assert "Kitty [KH QS]\n" in str(st) and "(with the pot)" not in str(st)
    assert st.current_player() == 4
    # The kitty's points are part of the 52 in play (R10).
    random_playout(game, seed=1, state=st)
    assert sum(st.returns()) == -52


def test_r3_kitty_travels_past_a_void_first_trick():
    game = load(**KITTY6)
    hands = fill_hands(
        game, kitty="KH QS",
        fixed={0: "3D 4D", 1: "3D 5D", 2: "AH 2H", 3: "AH 2H", 4: "QS 3H", 5: "2C 3C"},
        avoid={2: "D", 3: "D", 4: "D", 5: "D"})
    st = deal(game, hands, kitty="KH QS")
    play(st, "3D 3D AH AH QS 2C")            # both 3D cancel: no diamond left, void
    assert trick_line(st, 1).endswith("-> void, set aside")
    assert hand_points(st) == [0] * 6
    assert set_aside_line(st) == "Set aside: [2C 3D 3D AH AH QS] (29 points in the pot)"
    assert "Kitty [KH QS] (with the pot)" in str(st)
    assert st.current_player() == 0          # R8: the void trick's leader leads again
    play(st, "4D 5D 2H 2H 3H 3C")
    assert trick_line(st, 2) == "Trick 2: P0:4D P1:5D P2:2H P3:2H P4:3H P5:3C -> won by P1"
    # 14 (kitty) + 15 (void trick) + 3 (this trick)
    assert hand_points(st) == [0, 32, 0, 0, 0, 0]
    assert set_aside_line(st) == "Set aside: [] (0 points in the pot)"
    assert "(with the pot)" not in str(st)


def _views(state, player):
    return (state.information_state_string(player), state.observation_string(player),
            list(state.information_state_tensor(player)), list(state.observation_tensor(player)))


def test_r3_nobody_sees_the_kitty_until_it_is_taken():
    # Two deals that differ only in where one QS lies: in the kitty (A) or in
    # P3's hand (B, which has a 9D in the kitty instead). Everyone but P3 sees
    # the same thing until the first trick is won.
    game = load(**KITTY6)
    fixed = {0: "3C", 1: "4C", 2: "5C", 3: "6C 9D", 4: "AC", 5: "7C"}
    hands_a = fill_hands(game, kitty="KH QS", fixed=fixed)
    hands_b = list(hands_a)
    hands_b[3] = hands_a[3].replace("9D", "QS", 1)
    st_a = deal(game, hands_a, kitty="KH QS")
    st_b = deal(game, hands_b, kitty="KH 9D")
    for played in "3C 4C 5C 6C AC".split():
        for q in (0, 1, 2, 4, 5):
            assert _views(st_a, q) == _views(st_b, q), (played, q)
        play(st_a, played)
        play(st_b, played)
    play(st_a, "7C")
    play(st_b, "7C")
    # P4 took the kitty: from now on it is face up (this model's choice).
    assert hand_points(st_a)[4] == 14 and hand_points(st_b)[4] == 1
    for q in (0, 4):
        assert _views(st_a, q)[0] != _views(st_b, q)[0]
