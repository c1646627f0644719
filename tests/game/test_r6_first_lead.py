"""R6 Leading the first trick: B the opening card's holder leads it; A seat 0, no heart/QS."""

import pytest

from spiel_game import GameParameterError

from _rule_helpers import deal, fill_hands, legal, load, play, trick_line

OPENING = {5: "0C", 6: "2C", 7: "0C", 8: "0C", 9: "2C", 10: "2C", 11: "2C"}


@pytest.mark.parametrize("n", sorted(OPENING))
def test_r6_b_holder_of_opening_card_leads_it(n):
    game = load(players=n, pass_count=0)
    holder = (2 * n) // 3
    hands = fill_hands(game, fixed={holder: OPENING[n] + " QS AH 3D"})
    st = deal(game, hands)
    assert st.current_player() == holder
    assert legal(st) == [OPENING[n]]
    with pytest.raises(ValueError, match=f"R6 B \\(the opening card leads the first "
                                         f"trick\\): the first trick must be opened with "
                                         f"{OPENING[n]}"):
        st.apply_action(st.string_to_action("3D"))
    play(st, OPENING[n])
    assert trick_line(st, 1).startswith(f"Trick 1: P{holder}:{OPENING[n]}")
    assert st.current_player() == (holder + 1) % n


def test_r6_b_three_packs_remaining_2c_leads():
    game = load(players=11, packs=3, pass_count=0)
    hands = fill_hands(game, fixed={7: "2C"})
    st = deal(game, hands)
    assert st.current_player() == 7 and legal(st) == ["2C"]


@pytest.mark.parametrize("n,giver,offset", [(6, 0, 1), (5, 4, 1), (8, 2, -1), (9, 5, 3)])
def test_r6_b_opening_card_leads_even_after_being_passed(n, giver, offset):
    game = load(players=n, pass_offset=offset)
    k = game.rules.pass_count
    hands = fill_hands(game, fixed={giver: OPENING[n]})
    passes = []
    for q in range(n):
        own = hands[q].split()
        if q == giver:
            own.remove(OPENING[n])
            passes.append(" ".join([OPENING[n]] + own[: k - 1]))
        else:
            passes.append(" ".join(own[:k]))
    st = deal(game, hands, passes=passes)
    receiver = (giver + offset) % n
    assert st.current_player() == receiver
    assert legal(st) == [OPENING[n]]


def test_r6_b_default_only_with_balanced_deck():
    assert load(players=6).rules.first_lead == "opening_card"
    assert load(deck="kitty", players=6).rules.first_lead == "left_of_dealer"
    # The kitty deck has no unique card dealt to a player (engine choice).
    with pytest.raises(GameParameterError, match="opening_card"):
        load(deck="kitty", players=6, first_lead="opening_card")


KITTY6 = dict(deck="kitty", players=6, pass_count=0)


def test_r6_a_seat0_leads_no_heart_or_black_maria():
    game = load(**KITTY6)
    hands = fill_hands(game, kitty="2C 2D", fixed={0: "QS AH KH 2H 5D 9S", 3: "QS 2S"})
    st = deal(game, hands, kitty="2C 2D")
    assert st.current_player() == 0
    moves = legal(st)
    assert "5D" in moves and "9S" in moves
    assert not any(m.endswith("H") for m in moves) and "QS" not in moves
    assert sorted(moves) == sorted(set(c for c in hands[0].split()
                                       if not c.endswith("H") and c != "QS"))
    for bad in ["QS", "AH", "2H"]:
        with pytest.raises(ValueError, match="R6 A"):
            st.apply_action(st.string_to_action(bad))


def test_r6_a_hand_of_hearts_and_black_maria_may_lead_anything():
    game = load(**KITTY6)
    hearts = " ".join(r + "H" for r in "3456789TJQKA")
    fixed0 = hearts + " 2H 3H 4H QS QS"                        # 17 cards, all points
    hands = fill_hands(game, kitty="2C 2D", fixed={0: fixed0})
    st = deal(game, hands, kitty="2C 2D")
    # Legal actions are sorted by card id (rank * 4 + suit), so QS sorts before KH.
    assert legal(st) == ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH",
                         "QH", "QS", "KH", "AH"]
    play(st, "QS")
    assert trick_line(st, 1) == "Trick 1: P0:QS -> in progress"


def test_r6_a_left_of_dealer_with_the_balanced_deck():
    game = load(players=5, pass_count=0, first_lead="left_of_dealer")
    hands = fill_hands(game, fixed={3: "0C", 0: "3D QS AH"})
    st = deal(game, hands)
    assert st.current_player() == 0            # not P3, the joker's holder
    moves = legal(st)
    assert "3D" in moves and "QS" not in moves and "AH" not in moves
    assert "0C" not in moves


def test_r6_a_restriction_is_only_for_the_first_trick():
    # Custom decks default to R6 A. P0 may not open with QS, but after winning
    # trick 1 it may lead it (R9: the Black Maria may be led at any time).
    game = load(deck="custom", players=3, packs=1, suits="CHS", ranks="2QA",
                pass_count=0)
    st = deal(game, ["AC QS 2H", "2C QC AS", "QH AH 2S"])
    assert st.current_player() == 0 and legal(st) == ["AC"]
    play(st, "AC 2C 2S")
    assert trick_line(st, 1) == "Trick 1: P0:AC P1:2C P2:2S -> won by P0"
    assert legal(st) == ["QS"]       # hearts not broken, but the QS is allowed
