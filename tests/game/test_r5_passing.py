"""R5 Passing: how many (A: 3, B: a quarter of the hand), to whom, simultaneously."""

import pytest

from spiel_game import GameParameterError

from _rule_helpers import deal, fill_hands, hand_counts, hand_of, legal, load

B_COUNTS = {5: 5, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2, 11: 2}


@pytest.mark.parametrize("n", sorted(B_COUNTS))
def test_r5_balanced_scheme_passes_a_quarter_of_the_hand(n):
    r = load(players=n).rules
    assert r.pass_count == B_COUNTS[n]
    assert r.pass_count <= r.hand_size // 4


def test_r5_three_pack_eleven_passes_two():
    assert load(players=11, packs=3).rules.pass_count == 2


@pytest.mark.parametrize("n", range(5, 12))
def test_r5_kitty_scheme_passes_three(n):
    assert load(deck="kitty", players=n).rules.pass_count == 3


@pytest.mark.parametrize("n,deck", [(5, "balanced"), (7, "balanced"), (11, "balanced"),
                                    (6, "kitty"), (9, "kitty")])
def test_r5_each_seat_passes_its_count_in_turn(n, deck):
    game = load(players=n, deck=deck)
    k = game.rules.pass_count
    kitty = " ".join(["AH", "AS", "AD", "AC", "KH"][: game.rules.kitty_size])
    hands = fill_hands(game, kitty=kitty)
    st = deal(game, hands, kitty=kitty)
    order = []
    while "phase pass" in str(st):
        q = st.current_player()
        order.append(q)
        st.apply_action(st.legal_actions()[0])
    assert order == [q for q in range(n) for _ in range(k)]
    assert "phase play" in str(st)


# A one-pack custom deck: every card unique, so where each card went is clear.
UNIQUE4 = dict(deck="custom", players=4, packs=1, suits="CDHS", ranks="TJQKA",
               pass_count=2)
UNIQUE4_HANDS = ["TC JC QC KC AC", "TD JD QD KD AD", "TH JH QH KH AH", "TS JS QS KS AS"]
UNIQUE4_PASSES = ["AC KC", "AD KD", "AH KH", "AS KS"]


@pytest.mark.parametrize("offset", [1, -1, 2, 3, -3])
def test_r5_pass_direction_is_a_seat_offset(offset):
    game = load(pass_offset=offset, **UNIQUE4)
    st = deal(game, UNIQUE4_HANDS, passes=UNIQUE4_PASSES)
    for q in range(4):
        giver = (q - offset) % 4
        expected = hand_counts(UNIQUE4_HANDS[q])
        for c in UNIQUE4_PASSES[q].split():
            del expected[c]
        for c in UNIQUE4_PASSES[giver].split():
            expected[c] = 1
        assert hand_counts(hand_of(st, q)) == expected, (offset, q)
    assert f"pass offset {offset % 4} x 2" in str(st)


def test_r5_left_is_plus_one_right_is_minus_one():
    left = deal(load(pass_offset=1, **UNIQUE4), UNIQUE4_HANDS, passes=UNIQUE4_PASSES)
    right = deal(load(pass_offset=-1, **UNIQUE4), UNIQUE4_HANDS, passes=UNIQUE4_PASSES)
    assert hand_of(left, 1) == "KC AC TD JD QD"
    assert hand_of(right, 1) == "TD JD QD KH AH"
    assert hand_of(left, 0) == "TC JC QC KS AS"
    assert hand_of(right, 0) == "TC JC QC KD AD"


def test_r5_offset_zero_means_no_passing():
    game = load(players=6, pass_offset=0)
    assert game.rules.pass_count == 4 and not game.rules.passes
    hands = fill_hands(game)
    st = deal(game, hands)
    assert "phase play" in str(st)
    assert [hand_counts(hand_of(st, q)) for q in range(6)] == [hand_counts(h) for h in hands]


def test_r5_simultaneous_received_cards_join_after_everyone_passed():
    game = load(pass_offset=1, **UNIQUE4)
    st = deal(game, UNIQUE4_HANDS, passes=UNIQUE4_PASSES[:1])   # P0 passed AC KC
    assert st.current_player() == 1
    # P1 has not received AC/KC yet: its hand and its legal passes are its own.
    assert hand_of(st, 1) == "TD JD QD KD AD"
    assert legal(st) == ["TD", "JD", "QD", "KD", "AD"]
    with pytest.raises(ValueError, match="not in player 1's hand"):
        st.apply_action(st.string_to_action("AC"))
    assert hand_of(st, 0) == "TC JC QC"          # what P0 kept
    assert "passed [AC KC]" in str(st)
    for chosen in UNIQUE4_PASSES[1:3]:
        for c in chosen.split():
            st.apply_action(st.string_to_action(c))
    # P3 passes last; only then do the passed cards join the hands.
    assert hand_of(st, 1) == "TD JD QD"
    st.apply_action(st.string_to_action("AS"))
    assert "phase pass" in str(st)
    st.apply_action(st.string_to_action("KS"))
    assert "phase play" in str(st)
    assert hand_of(st, 1) == "KC AC TD JD QD"
    assert hand_of(st, 0) == "TC JC QC KS AS"


@pytest.mark.parametrize("count", [0, 1, 17])
def test_r5_any_count_up_to_the_hand_size(count):
    game = load(players=6, pass_count=count)
    assert game.rules.pass_count == count
    hands = fill_hands(game)
    passes = [" ".join(h.split()[:count]) for h in hands]
    st = deal(game, hands, passes=passes if count else ())
    assert "phase play" in str(st)
    if count == 17:   # everyone passes the whole hand: hands move one seat left
        for q in range(6):
            assert hand_counts(hand_of(st, q)) == hand_counts(hands[(q - 1) % 6])


@pytest.mark.parametrize("params", [dict(players=6, pass_count=18),
                                    dict(players=6, pass_count=-2),
                                    dict(players=6, pass_offset=6),
                                    dict(players=6, pass_offset=-6)])
def test_r5_out_of_range_counts_and_offsets_rejected(params):
    with pytest.raises(GameParameterError):
        load(**params)


def test_r5_a_seat_passes_only_cards_it_holds_copies_included():
    game = load(deck="custom", players=2, packs=2, suits="S", ranks="AK", pass_count=2)
    st = deal(game, ["AS AS", "KS KS"])           # P0 holds both AS
    st.apply_action(st.string_to_action("AS"))
    assert legal(st) == ["AS"]                    # the second copy, still legal
    st.apply_action(st.string_to_action("AS"))
    assert st.current_player() == 1 and legal(st) == ["KS"]


def test_r5_simultaneous_choice_hides_earlier_passes():
    # What P0 chose to pass is invisible to P1, P2 and P3 while they choose.
    game = load(pass_offset=1, **UNIQUE4)
    st_a = deal(game, UNIQUE4_HANDS, passes=["AC KC"])
    st_b = deal(game, UNIQUE4_HANDS, passes=["TC JC"])
    for seat in (1, 2, 3):
        assert st_a.current_player() == st_b.current_player() == seat
        for q in (1, 2, 3):
            assert st_a.information_state_string(q) == st_b.information_state_string(q)
            assert st_a.information_state_tensor(q) == st_b.information_state_tensor(q)
            assert st_a.observation_tensor(q) == st_b.observation_tensor(q)
        for c in UNIQUE4_PASSES[seat].split():
            st_a.apply_action(st_a.string_to_action(c))
            st_b.apply_action(st_b.string_to_action(c))
    # Once everyone has passed, P1 sees what it received.
    assert "phase play" in str(st_a)
    assert st_a.information_state_string(1) != st_b.information_state_string(1)
    assert st_a.information_state_string(2) == st_b.information_state_string(2)
