"""The heuristic player plays as documented (``solvers/_base/heuristic.py``).

Every documented rule is pinned on a constructed state: passing order,
ducking (with cancellation), shedding when every card wins, never feeding a
Black Maria into one's own trick, the discard order, leading low, the
Aardvark (with the K/A of *spades*, not clubs), and the moon choice. A last
test checks that the player uses only what its seat knows: its choice is the
same in every state its information state cannot tell apart.

Deck of the constructed states: 4 players, two packs of 9-A in all suits
(48 cards, 12 each), no passing unless stated, seat 0 leads the first trick
(R6 A: any card but a heart or the Black Maria).
"""

from __future__ import annotations

import collections

import numpy as np
import pyspiel
import pytest

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game.cards import AS, KS
from spiel_game._playout import play_random
from spiel_game._rng import make_rng_state
from solvers._base.heuristic import heuristic_policy, unseen_copies
from spiel_game._scenarios import parse_cards, state_from_hands

SMALL = dict(deck="custom", players=4, suits="CDHS", ranks="9TJQKA", packs=2, pass_count=0)


def test_named_spades_are_spades():
    assert C.card_to_string(KS) == "KS" and C.card_to_string(AS) == "AS"
    assert C.card_to_string(E.QS) == "QS"


def _game(**over):
    return spiel_game.load({**SMALL, **over})


def _deal(game, fixed: dict[int, str], kitty: str = ""):
    """Hands with ``fixed[seat]`` exactly (and the kitty ``kitty``); the other
    seats get the rest of the deck in card-id order."""
    r = game.rules
    left = collections.Counter()
    for c, m in enumerate(r.deck_counts):
        left[c] += m
    for c in parse_cards(kitty):
        left[c] -= 1
    hands = {}
    for q, text in fixed.items():
        cards = parse_cards(text)
        assert len(cards) == r.hand_size, (q, len(cards))
        for c in cards:
            left[c] -= 1
            assert left[c] >= 0, f"too many {C.card_to_string(c)}"
        hands[q] = cards
    pool = [c for c in sorted(left) for _ in range(left[c])]
    for q in range(r.players):
        if q not in hands:
            hands[q], pool = pool[:r.hand_size], pool[r.hand_size:]
    return [hands[q] for q in range(r.players)]


def _choice(state):
    """The heuristic's action for the player to move in ``state``."""
    p, s = state.engine_params, np.array(state.engine_state)
    legal = np.empty(E.K + 2, np.int32)
    k = E.legal_into(p, s, legal)
    return int(heuristic_policy(p, s, legal, k, make_rng_state(np.uint64(1), 0)))


def _play(fixed, plays, **over):
    """Deal ``fixed`` (other seats filled), then ``plays``: card strings, or
    None for the lowest legal card of the player to move."""
    game = _game(**over)
    st = state_from_hands(game, _deal(game, fixed))
    for i, c in enumerate(plays):
        st.apply_action(st.legal_actions()[0] if c is None else st.string_to_action(c))
        if i == 3:
            assert st.current_player() == 0, "seat 0 should win the first trick"
    assert not st.is_chance_node() and not st.is_terminal()
    return st


def _name(a):
    return C.card_to_string(a) if a < E.K else {53: "moon:subtract", 54: "moon:add"}[a]


# Seat 0 leads AC to the first trick, seat 1 follows with 9C, seats 2 and 3
# play their lowest legal card; seat 0 wins it and leads the second trick.
T1 = ["AC", "9C", None, None]


# ---------------------------------------------------------------- passing
def test_passing_order_maria_then_spade_honours_then_hearts_keeps_low_minors():
    game = _game(pass_count=4, pass_offset=1)
    hands = _deal(game, {0: "QS AS KH 9H 9C TC JC 9D TD JD QD KD"})
    st = state_from_hands(game, hands)
    chosen = []
    for _ in range(4):
        assert st.current_player() == 0
        a = _choice(st)
        chosen.append(_name(a))
        st.apply_action(a)
    # A Black Maria, then the A of spades, then the high hearts; then the
    # highest other card (KD), never a low club or diamond.
    assert chosen == ["QS", "AS", "KH", "9H"]


def test_passing_prefers_spade_honours_to_hearts():
    game = _game(pass_count=2, pass_offset=1)
    st = state_from_hands(game, _deal(game, {0: "KS AH AH 9C TC JC 9D TD JD QD KD AD"}))
    first = _choice(st)
    assert _name(first) == "KS"


# ---------------------------------------------------------------- following suit
def test_ducks_with_the_highest_card_that_does_not_win():
    # Trick 2: seat 0 leads KD; seat 1 holds 9D QD AD and plays QD.
    st = _play({0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
                1: "9C QD AD 9D QC QC KC KC TH JH QH QH"}, T1 + ["KD"])
    assert st.current_player() == 1
    assert _name(_choice(st)) == "QD"


def test_ducking_counts_cancellation():
    # KD led; seat 1 holds the twin KD, plus AD and 9D: playing KD cancels the
    # leader's KD, nobody wins with a diamond, so KD (higher than 9D) ducks.
    st = _play({0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
                1: "9C KD AD 9D QC QC KC KC TH JH QH QH"}, T1 + ["KD"])
    assert _name(_choice(st)) == "KD"


def test_when_every_card_wins_an_early_player_plays_low():
    st = _play({0: "AC 9D 9S TS JS 9H TH JH KC TD JD QD",
                1: "9C TD QD AD QC QC KC AC TH JH QH QH"}, T1 + ["9D"])
    assert _name(_choice(st)) == "TD"


def test_when_every_card_wins_the_last_player_sheds_its_highest():
    # Seat 3 holds the high diamonds; the others can play at most a TD.
    st = _play({0: "AC 9D 9S TS JS 9H TH JH KC TD QC KS",
                3: "AD AD KD KD QD QD JD JD QS QH JH TH"}, T1 + ["9D", None, None])
    assert st.current_player() == 3
    assert _name(_choice(st)) == "AD"


def test_never_feeds_its_own_black_maria_when_a_lower_card_loses():
    # JS led; seat 1 holds QS, KS and 9S: 9S ducks (QS would win its own 13 points).
    st = _play({0: "AC JS 9D TS 9H TH JH KC TD JD QD 9S",
                1: "9C QS KS 9S QC QC KC AC TH JH QH QH"}, T1 + ["JS"])
    assert _name(_choice(st)) == "9S"


def test_plays_low_spade_not_maria_when_every_card_wins():
    # JS led; seat 1 holds QS and KS only in spades: both win; not last, so it
    # plays low but never the Black Maria into its own trick: KS.
    st = _play({0: "AC JS 9D TS 9H TH JH KC TD JD QD 9S",
                1: "9C QS KS TC QC QC KC AC TH JH QH QH"}, T1 + ["JS"])
    assert _name(_choice(st)) == "KS"


def test_dumps_maria_under_a_higher_spade():
    # KS led; seat 1 holds QS and AS: only the Black Maria loses, so it plays it.
    st = _play({0: "AC KS 9D TS 9H TH JH KC TD JD QD 9S",
                1: "9C QS AS TC QC QC KC AC TH JH QH QH"}, T1 + ["KS"])
    assert _name(_choice(st)) == "QS"


# ---------------------------------------------------------------- discarding
VOID_LEAD = T1 + ["KD"]      # seat 1 holds no diamond


def test_discards_maria_first():
    st = _play({0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
                1: "9C QS KS AH QC QC KC AC TC JC TH 9H"}, VOID_LEAD)
    assert _name(_choice(st)) == "QS"


def test_discards_highest_heart_before_spade_honours():
    st = _play({0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
                1: "9C KS AS AH QC QC KC AC TC JC TH 9H"}, VOID_LEAD)
    assert _name(_choice(st)) == "AH"


def test_discards_spade_honours_while_a_maria_is_out():
    st = _play({0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
                1: "9C KS JS TS QC QC KC AC TC JC KC 9S"}, VOID_LEAD)
    # A Black Maria is unseen by seat 1: KS goes before AC and KC.
    assert unseen_copies(st.engine_params, st.engine_state, 1, E.QS) >= 1
    assert _name(_choice(st)) == "KS"


# Seat 1 holds eleven clubs and the KS; seats 2 and 3 are void in clubs.
NO_DIAMONDS = {0: "AC KD 9S TS JS 9H TH JH 9D TD JD QD",
               1: "9C 9C QC QC KC KC AC TC TC JC JC KS",
               2: "QS AS AS JS TS 9S AH AH KH KH QH QH",
               3: "QS KS 9H TH JH 9D TD JD QD KD AD AD"}


def test_spade_honours_are_ordinary_once_no_maria_is_out():
    # Both Black Marias are discarded to the first trick: seat 1, void in
    # diamonds, sheds its highest card (AC), not the KS.
    st = _play(NO_DIAMONDS, ["AC", "9C", "QS", "QS", "KD"])
    assert st.current_player() == 1
    assert unseen_copies(st.engine_params, st.engine_state, 1, E.QS) == 0
    assert _name(_choice(st)) == "AC"


def test_spade_honours_go_first_while_a_maria_is_out():
    # Seat 3 keeps its Black Maria (discards 9H): it is out, so the KS goes.
    st = _play(NO_DIAMONDS, ["AC", "9C", "QS", "9H", "KD"])
    assert unseen_copies(st.engine_params, st.engine_state, 1, E.QS) == 1
    assert _name(_choice(st)) == "KS"


def test_a_maria_face_down_in_the_kitty_is_out():
    # Kitty deck, 7 players (14 cards each, 6 in the kitty). Both Black Marias
    # lie face down in the kitty. Seat 1, void in clubs on the first trick,
    # holds the KS and aces of diamonds: a Black Maria is still out (seat 1
    # cannot know where), so it sheds the KS. A player peeking at the hidden
    # cards would see that no hand holds a Black Maria and shed an AD.
    game = spiel_game.load(deck="kitty", players=7, pass_count=0)
    kitty = "QS QS 2C 2C 3C 3C"
    hands = _deal(game, {0: "AC AC KC KC QC QC JC JC TC TC 9C 9C 8C 8C",
                         1: "KS AD AD KD KD QD QD JD JD TD TD 9D 9D 8D"}, kitty)
    st = state_from_hands(game, hands, kitty=parse_cards(kitty), plays=["AC"])
    assert st.current_player() == 1
    assert unseen_copies(st.engine_params, st.engine_state, 1, E.QS) == 2
    assert _name(_choice(st)) == "KS"


# ---------------------------------------------------------------- leading
def test_aardvark_leads_the_maria_without_a_higher_spade():
    # Seat 0 holds one QS, the twin is out, no KS/AS; it does hold KC (the
    # card the old code mistook for the King of Spades).
    st = _play({0: "AC KC QS 9S TS JS 9D TD JD QD TH JH",
                1: "9C AC 9H 9H KD KD AD AD QH QH KH KH"}, T1)
    assert _name(_choice(st)) == "QS"


def test_no_aardvark_with_a_higher_spade():
    # Same, but with KS and no club honour: lead low instead (9D, then 9S).
    st = _play({0: "AC KS QS 9S TS JS 9D TD JD QD TH JH",
                1: "9C AC 9H 9H KD KD AD AD QH QH KH KH"}, T1)
    assert _name(_choice(st)) == "9D"


def test_no_aardvark_once_the_twin_is_seen():
    # Seat 1, void in clubs, discards the twin QS to the first trick.
    st = _play({0: "AC KC QS 9S TS JS 9D TD JD QD TH JH",
                1: "QS 9H 9H KD KD AD AD QH QH KH KH AH"}, ["AC", "QS", None, None])
    assert st.current_player() == 0
    assert _name(_choice(st)) == "9D"


def test_leads_low_avoiding_hearts_and_high_spades():
    st = _play({0: "AC QC 9H TH KS AS KD AD JD TD TC JC"}, T1)
    # Lowest card that is neither a heart nor a spade above the jack: TC and
    # TD tie (rank 10); the first in card-id order (TC) is led.
    assert _name(_choice(st)) == "TC"


def test_lead_avoids_a_spade_honour_even_below_an_ace():
    # Hearts unbroken: legal leads KS, AD, AC. KS ranks below the aces but a
    # high spade is avoided: AC.
    st = _play({0: "AC KS KS AD AD AC AH AH KH KH QH QH"}, T1)
    assert _name(_choice(st)) == "AC"


# ---------------------------------------------------------------- moon choice
def test_moon_choice_is_subtract():
    game = spiel_game.load(deck="custom", players=2, suits="HS", ranks="QKA", pass_count=0,
                           moon="choose")
    rng = np.random.default_rng(7)
    seen = 0

    def moon_choice(st):
        return (not st.is_chance_node()
                and st.legal_actions() == [E.MOON_SUBTRACT_ACTION, E.MOON_ADD_ACTION])

    for _ in range(200):
        st = game.new_initial_state()
        while not play_random(st, rng, until=moon_choice, in_place=True).is_terminal():
            assert _choice(st) == E.MOON_SUBTRACT_ACTION
            seen += 1
            st.apply_action(E.MOON_SUBTRACT_ACTION)
    assert seen > 10


# ---------------------------------------------------------------- no peeking
@pytest.mark.parametrize("params", [{"deck": "kitty", "players": 7},
                                    {"players": 6},
                                    {"deck": "kitty", "players": 9, "pass_count": 0}])
def test_choice_depends_only_on_the_information_state(params):
    """In states the player to move cannot tell apart (resampled from its
    information state), the heuristic makes the same choice. With the kitty
    deck the Black Maria may lie face down in the kitty, which only a player
    peeking at the hidden cards could tell from a Black Maria in a hand."""
    game = pyspiel.load_game("python_cancellation_hearts", params)
    rng = np.random.default_rng(2026)
    checked = differ = 0
    for _ in range(25):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                acts, probs = zip(*st.chance_outcomes())
                st.apply_action(int(rng.choice(acts, p=probs)))
                continue
            me = st.current_player()
            if len(st.legal_actions()) > 1 and rng.random() < 0.3:
                a = _choice(st)
                for _ in range(3):
                    other = st.resample_from_infostate(me, rng)
                    assert other.information_state_string(me) == st.information_state_string(me)
                    b = _choice(other)
                    differ += a != b
                    checked += 1
            st.apply_action(int(rng.choice(st.legal_actions())))
    assert checked > 300
    assert differ == 0, f"{differ} of {checked} resampled states changed the heuristic's choice"
