"""Bad input: clear errors for bad parameters, illegal actions and corrupted
serialized states; pickle round trips of games and states.

* Parameters: every rejected value raises ``pyspiel.SpielError`` (pyspiel's own
  checks: unknown names, wrong types) or ``GameParameterError`` (our checks,
  a ``ValueError``) whose message names the parameter and what is allowed.
* Illegal actions raise ``IllegalActionError`` naming the rule (R4, R6, R7,
  R9, R10, ...) and leave the state exactly as it was.
* ``game.deserialize_state`` of a corrupted string raises ``CorruptStateError``
  naming what is wrong instead of returning a broken state.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pyspiel
import pytest

import spiel_game
from spiel_game import CorruptStateError, GameParameterError, IllegalActionError
from spiel_game import _engine as E
from spiel_game import _validation as V
from spiel_game._playout import play_random
from spiel_game._scenarios import state_from_hands

NAME = spiel_game.GAME_NAME
PARAM_ERRORS = (pyspiel.SpielError, GameParameterError)


def load(**params):
    return pyspiel.load_game(NAME, params)


def random_state(game, seed: int, steps: int):
    """The state after ``steps`` random actions (fewer if the game ends)."""
    return play_random(game, seed, until=lambda st: len(st.history()) >= steps)


def play_to_end(state, seed: int):
    """Random play (seeded) from ``state`` to the end, in place."""
    return play_random(state, seed, in_place=True)


# ====================================================== game parameters
def assert_param_error(params: dict, *needles: str):
    """Loading ``params`` fails with a message containing every needle."""
    with pytest.raises(PARAM_ERRORS) as info:
        pyspiel.load_game(NAME, params)
    msg = str(info.value)
    for needle in needles:
        assert needle in msg, f"{params}: message {msg!r} does not mention {needle!r}"
    return msg


def test_unknown_parameter_name_is_rejected_with_the_allowed_names():
    msg = assert_param_error({"plyers": 6}, "plyers")
    for name in spiel_game.PARAMETER_DEFAULTS:
        assert name in msg, f"allowed parameter {name!r} not listed in {msg!r}"


def test_unknown_parameter_name_is_rejected_by_the_rule_set_too():
    with pytest.raises(GameParameterError, match=r"plyers.*allowed.*players"):
        spiel_game.RuleSet.from_params({"plyers": 6})


@pytest.mark.parametrize("deck, players, allowed", [
    ("balanced", 4, "5..11"), ("balanced", 12, "5..11"),
    ("kitty", 4, "5..11"), ("kitty", 12, "5..11"),
    ("custom", 1, "2..11"), ("custom", 12, "2..11"),
])
def test_r1_impossible_player_count_for_the_scheme_is_rejected(deck, players, allowed):
    assert_param_error({"deck": deck, "players": players}, "players", str(players),
                       deck, allowed)


def test_classic_deck_with_five_players_is_rejected_naming_four_players_one_pack():
    assert_param_error({"deck": "classic", "players": 5, "packs": 1},
                       "classic", "players=5", "players=4", "packs=1")


def test_classic_deck_needs_players_and_packs_spelled_out():
    # pyspiel fills in players=6, packs=2; the message says what to pass.
    assert_param_error({"deck": "classic"}, "classic", "players=4", "packs=1")


@pytest.mark.parametrize("params, allowed", [
    ({"packs": 1}, "allowed 2"),
    ({"packs": 5}, "allowed 2"),
    ({"players": 6, "packs": 3}, "11"),               # R3 B: three packs only for 11
    ({"deck": "kitty", "players": 7, "packs": 3}, "allowed 2"),
    ({"deck": "custom", "players": 4, "packs": 0}, "1..4"),
    ({"deck": "custom", "players": 4, "packs": 5}, "1..4"),
    ({"deck": "classic", "players": 4, "packs": 2}, "packs=1"),
])
def test_r2_bad_number_of_packs_is_rejected(params, allowed):
    assert_param_error(params, "packs", allowed)


@pytest.mark.parametrize("suits, ranks, packs, players", [
    ("CD", "23", 2, 5),        # 8 cards for 5 players
    ("CDHS", "A", 1, 3),       # 4 cards for 3 players
    ("H", "23456789TJQKA", 1, 2),   # 13 cards for 2 players
])
def test_r3_custom_deck_that_cannot_be_dealt_evenly_is_rejected(suits, ranks, packs, players):
    total = len(suits) * len(ranks) * packs
    assert_param_error({"deck": "custom", "suits": suits, "ranks": ranks,
                        "packs": packs, "players": players},
                       "custom", str(total), f"{players} players", "evenly")


@pytest.mark.parametrize("params, hand", [
    ({"players": 6, "pass_count": 18}, 17),
    ({"players": 6, "pass_count": -2}, 17),
    ({"deck": "kitty", "players": 10, "pass_count": 11}, 10),
    ({"deck": "custom", "players": 2, "packs": 1, "suits": "HS", "ranks": "QKA",
      "pass_count": 4}, 3),
])
def test_r5_pass_count_out_of_range_is_rejected(params, hand):
    assert_param_error(params, "pass_count", f"0..{hand}", "-1")


def test_r5_pass_offset_out_of_range_is_rejected():
    assert_param_error({"players": 6, "pass_offset": 6}, "pass_offset", "-5..5")


@pytest.mark.parametrize("name, value", [
    ("deck", "huge"), ("first_lead", "dealer"), ("void_last_trick", "burn"),
    ("points_on_first_trick", "maybe"), ("moon", "sideways"),
    ("utility", "money"), ("deal", "shuffle"),
])
def test_bad_string_choice_is_rejected_with_the_allowed_values(name, value):
    msg = assert_param_error({name: value}, name, value, "allowed")
    allowed = re.search(r"allowed: (.*)$", msg)
    assert allowed and allowed.group(1).count("'") >= 4, msg   # at least two choices listed


@pytest.mark.parametrize("params, needles", [
    ({"deck": "custom", "players": 2, "suits": "XY", "ranks": "A"}, ("suits", "CDHS")),
    ({"deck": "custom", "players": 2, "suits": "CC", "ranks": "A"}, ("suits", "distinct")),
    ({"deck": "custom", "players": 2, "suits": "C", "ranks": "1A"}, ("ranks", "23456789TJQKA")),
    ({"deck": "custom", "players": 2, "suits": "C", "ranks": ""}, ("ranks",)),
    ({"players": 6, "suits": "CD"}, ("suits", "custom")),
    ({"deck": "kitty", "players": 7, "first_lead": "opening_card"},
     ("opening_card", "left_of_dealer")),
    ({"moon_points": -1}, ("moon_points", ">= 0")),
    ({"target_score": -5}, ("target_score",)),
    ({"target_score": 50, "max_hands": 0}, ("max_hands", ">= 1")),
    ({"deck": "custom", "players": 2, "packs": 1, "suits": "CDHS", "ranks": "9TJQKA",
      "deal": "whole"}, ("deal", "limit")),           # C(24, 12) = 2,704,156 deals
])
def test_other_bad_parameter_values_are_rejected(params, needles):
    assert_param_error(params, *needles)


@pytest.mark.parametrize("params, needle", [
    ({"players": "six"}, "players"), ({"players": 6.5}, "players"),
    ({"moon": 3}, "moon"),
])
def test_wrong_parameter_type_is_rejected(params, needle):
    assert_param_error(params, needle)


# ======================================================= illegal actions
SMALL = {"deck": "custom", "players": 4, "packs": 1, "suits": "CDHS", "ranks": "TJQKA",
         "pass_count": 0}
#  P0 leads first (R6 A, seat left of the dealer); 5 cards each, no pass.
SMALL_HANDS = ["TC JC QH KH AS", "QC TD JD QD TH", "KC KD AD JH AH", "AC TS JS QS KS"]


def snapshot(state):
    return (str(state), state.history(), state.legal_actions(), state.current_player(),
            state.is_terminal(), state.serialize(), np.asarray(state.engine_state).tobytes())


def assert_illegal(state, action, *needles, errors=(IllegalActionError,)):
    """Applying ``action`` raises, the message has every needle, the state is unchanged."""
    before = snapshot(state)
    with pytest.raises(errors) as info:
        state.apply_action(action)
    msg = str(info.value)
    for needle in needles:
        assert needle in msg, f"message {msg!r} does not mention {needle!r}"
    assert snapshot(state) == before, "an illegal action changed the state"
    # The state still plays on normally.
    if not state.is_terminal():
        clone = state.clone()
        clone.apply_action(clone.legal_actions()[0])
    return msg


def card(state, text):
    return state.string_to_action(text)


def test_r7_card_not_in_hand_is_rejected():
    st = state_from_hands(load(**SMALL), SMALL_HANDS)
    assert st.current_player() == 0
    assert_illegal(st, card(st, "AD"), "R7", "AD", "hand")


def test_r7_failure_to_follow_suit_is_rejected():
    st = state_from_hands(load(**SMALL), SMALL_HANDS, plays="TC")
    assert st.current_player() == 1
    assert_illegal(st, card(st, "TD"), "R7", "follow", "C")


def test_r9_leading_hearts_before_they_are_broken_is_rejected():
    # P0 wins trick 1 with AS (no heart, no QS played), then may not lead a heart.
    st = state_from_hands(load(**SMALL), SMALL_HANDS, plays="AS TD KD TS")
    assert st.current_player() == 0
    assert_illegal(st, card(st, "QH"), "R9", "hearts")


def test_r6_a_first_lead_of_a_heart_is_rejected():
    st = state_from_hands(load(**SMALL), SMALL_HANDS)
    assert_illegal(st, card(st, "QH"), "R6")


def test_r6_b_first_lead_other_than_the_opening_card_is_rejected():
    st = state_from_hands(load(**SMALL, first_lead="opening_card"), SMALL_HANDS)
    assert st.legal_actions() == [card(st, "TC")]
    assert_illegal(st, card(st, "JC"), "R6", "TC")


def test_r6_b_balanced_deck_must_open_with_the_joker():
    game = load(players=5)                     # R3 B: 5 players, one joker added
    st = random_state(game, seed=3, steps=game.rules.num_cards + 25)   # dealt and passed
    assert st.legal_actions() == [spiel_game.cards.JOKER]
    mine = E.hand(st.engine_params, st.engine_state, st.current_player())
    other = [c for c in range(53) if mine[c] > 0 and c != 52][0]
    assert_illegal(st, other, "R6", "0C")


def test_points_on_the_first_trick_are_rejected_when_forbidden():
    st = state_from_hands(load(**SMALL, points_on_first_trick="forbidden"), SMALL_HANDS,
                          plays="AS")
    assert st.current_player() == 1                   # no spade: discards, but not TH
    assert_illegal(st, card(st, "TH"), "first trick")


def test_r10_moon_choice_other_than_subtract_or_add_is_rejected():
    game = load(deck="custom", players=2, packs=1, suits="HS", ranks="QKA",
                pass_count=0, moon="choose")
    st = state_from_hands(game, ["AH KH AS", "QH QS KS"], plays="AS QS AH QH KH KS")
    assert st.current_player() == 0 and st.legal_actions() == [53, 54]
    assert_illegal(st, card(st, "AH"), "R10", "moon")


def test_r4_dealing_a_card_that_is_not_left_is_rejected():
    game = load(**SMALL)
    st = game.new_initial_state()
    st.apply_action(card(st, "TC"))
    assert_illegal(st, card(st, "TC"), "R4", "TC")
    assert_illegal(st, card(st, "2C"), "R4", "2C")         # not in this custom deck


def test_r5_passing_a_card_not_in_hand_is_rejected():
    game = load(deck="custom", players=4, packs=1, suits="CDHS", ranks="TJQKA",
                pass_count=1)
    st = state_from_hands(game, SMALL_HANDS)
    assert st.current_player() == 0
    msg = assert_illegal(st, card(st, "AD"), "AD", "not in")
    assert re.search(r"\bR\d+\b", msg), f"no rule named in {msg!r}"


@pytest.mark.parametrize("action", [0, 42, 52, 53, 99])
def test_action_after_the_end_of_the_game_is_rejected(action):
    st = play_to_end(load(**SMALL).new_initial_state(), seed=5)
    assert st.is_terminal()
    assert_illegal(st, action, "terminal")


@pytest.mark.parametrize("action", [53, 54, 99, 10**6])
def test_out_of_range_action_is_rejected(action):
    st = state_from_hands(load(**SMALL), SMALL_HANDS)
    assert_illegal(st, action, str(action), "not a card id")
    st = load(**SMALL).new_initial_state()             # at a chance node too
    assert_illegal(st, action, str(action), "not a card id")


def test_negative_action_is_rejected_by_pyspiel():
    st = state_from_hands(load(**SMALL), SMALL_HANDS)
    assert_illegal(st, -1, errors=(pyspiel.SpielError, IllegalActionError))
    assert_illegal(st, -7, errors=(pyspiel.SpielError, IllegalActionError))


def test_illegal_actions_never_change_random_states():
    """At random states of several schemes, every non-legal action 0..54 raises
    and leaves the state unchanged."""
    for params, seed in [({"players": 6}, 1), ({"deck": "kitty", "players": 7}, 2),
                         ({"players": 11, "packs": 3}, 3),
                         ({"deck": "classic", "players": 4, "packs": 1}, 4)]:
        game = pyspiel.load_game(NAME, params)
        st = random_state(game, seed, game.rules.num_cards + 40)
        legal = set(st.legal_actions())
        before = snapshot(st)
        for a in range(55):
            if a not in legal:
                with pytest.raises(IllegalActionError):
                    st.apply_action(a)
        assert snapshot(st) == before


# ========================================= corrupted serialized states
# ``state.serialize()`` is plain text (format line, game=, history=,
# move_number=, check=); ``deserialize_state`` replays the history through the
# engine and never decodes a pickle (tests/game/test_trust_serialize.py generates
# many more damaged strings, and checks that no code in a string runs).
GAME_FOR_SERIAL = {"players": 5}


@pytest.fixture(scope="module")
def serial_game():
    return pyspiel.load_game(NAME, GAME_FOR_SERIAL)


@pytest.fixture(scope="module")
def mid_game_state(serial_game):
    st = random_state(serial_game, seed=11, steps=serial_game.rules.num_cards + 30)
    assert st.engine_state[E.S_PHASE] == E.PH_PLAY and st.engine_state[E.S_TRICK] >= 1
    return st


def lines_of(text: str) -> dict[str, str]:
    """The ``tag=value`` lines of a serialized state, by tag."""
    out = {}
    for line in text.split("\n")[1:]:
        tag, sep, value = line.partition("=")
        assert sep, f"line {line!r} is not 'tag=value'"
        out[tag] = value
    return out


def with_line(text: str, tag: str, value: str) -> str:
    """``text`` with the value of line ``tag=`` replaced."""
    return "\n".join(f"{tag}={value}" if line.startswith(tag + "=") else line
                     for line in text.split("\n"))


def assert_corrupt(game, text, *needles):
    with pytest.raises(CorruptStateError) as info:
        game.deserialize_state(text)
    msg = str(info.value)
    for needle in needles:
        assert needle in msg, f"message {msg!r} does not mention {needle!r}"
    return msg


def test_serialize_round_trip_of_random_states(serial_game):
    for seed in range(5):
        st = random_state(serial_game, seed, steps=40 * seed + 30)
        back = serial_game.deserialize_state(st.serialize())
        assert snapshot(back)[:5] == snapshot(st)[:5]
        assert np.array_equal(back.engine_state, st.engine_state)
        assert back.move_number() == st.move_number()
        assert [(x.player, x.action) for x in back.full_history()] == \
            [(x.player, x.action) for x in st.full_history()]


def test_serialized_state_is_plain_text_without_a_pickle(mid_game_state):
    text = mid_game_state.serialize()
    assert text.split("\n")[0] == spiel_game.game.STATE_FORMAT
    assert list(lines_of(text)) == ["game", "history", "move_number", "check"]
    assert "__dict__" not in text
    assert lines_of(text)["move_number"] == str(len(mid_game_state.history()))


@pytest.mark.parametrize("cut", ["history_line", "no_check", "no_move_number", "empty",
                                 "format_line_only"])
def test_truncated_serialization_is_rejected(serial_game, mid_game_state, cut):
    text = mid_game_state.serialize()
    lines = text.split("\n")
    short = {"history_line": "\n".join(lines[:3])[:-4] + "\n" + "\n".join(lines[3:]),
             "no_check": "\n".join(lines[:4]), "no_move_number": "\n".join(lines[:3]),
             "empty": "", "format_line_only": lines[0]}[cut]
    assert_corrupt(serial_game, short, "corrupted serialized state")


def test_state_of_another_parameter_set_is_rejected(serial_game):
    other = random_state(pyspiel.load_game(NAME, {"players": 7}), seed=1, steps=150)
    assert_corrupt(serial_game, other.serialize(), "another game", "players=7")


def test_history_with_a_wrong_player_id_is_rejected(serial_game, mid_game_state):
    text = mid_game_state.serialize()
    items = lines_of(text)["history"].split(",")
    p, a = items[-1].split(":")
    items[-1] = f"{(int(p) + 1) % 5}:{a}"
    assert_corrupt(serial_game, with_line(text, "history", ",".join(items)),
                   f"item {len(items)}", f"player {p} is to move")


def test_wrong_move_number_is_rejected(serial_game, mid_game_state):
    text = mid_game_state.serialize()
    n = len(mid_game_state.history())
    for bad in (n - 1, n + 1, 0, -3):
        assert_corrupt(serial_game, with_line(text, "move_number", str(bad)), "move_number")


def test_illegal_action_in_the_history_is_rejected(serial_game, mid_game_state):
    text = mid_game_state.serialize()
    items = lines_of(text)["history"].split(",")
    # The last action again: a card the player no longer holds (or out of turn).
    items.append(items[-1])
    msg = assert_corrupt(serial_game, with_line(text, "history", ",".join(items)),
                         f"item {len(items)}")
    assert "illegal" in msg or "to move" in msg, msg


def test_changed_history_with_the_old_check_is_rejected(serial_game, mid_game_state):
    # An earlier position's history (legal, and consistent with its move number)
    # under this position's check line: the check names the change.
    earlier = random_state(serial_game, seed=11, steps=len(mid_game_state.history()) - 7)
    text = with_line(earlier.serialize(), "check", lines_of(mid_game_state.serialize())["check"])
    assert_corrupt(serial_game, text, "check")


# ------------------------------------------ engine vectors handed to a state
# The one remaining way to hand a state an engine vector is to assign '_b'
# (pyspiel's C++ deserializer does that): the vector is checked by
# validation.validate and must be the one the state's history leads to.
def _corruptions(P, arr):
    """(name, corrupted copy) pairs of an engine vector in the play phase."""
    n = int(P[E.P_N])
    hands = P[E.L_HANDS]
    held0 = [c for c in range(53) if arr[hands + c] > 0]
    held1 = [c for c in range(53) if arr[hands + 53 + c] > 0]
    out = []

    a = arr.copy()
    a[hands + held0[0]] = -1
    out.append(("card count made negative", a))
    a = arr.copy()
    a[hands + held0[0]] -= 1
    out.append(("card removed from a hand", a))
    a = arr.copy()
    a[hands + 53 + held0[0]] += 1
    out.append(("card duplicated into another hand", a))
    a = arr.copy()
    a[hands + held0[0]] -= 1
    a[hands + held1[0]] += 1
    out.append(("card swapped for a copy of another", a))
    a = arr.copy()
    a[E.S_PHASE] = 9
    out.append(("phase out of range", a))
    a = arr.copy()
    a[E.S_CUR] = n
    out.append(("current player out of range", a))
    a = arr.copy()
    E.all_trick_cards(P, a)[0] = 60
    out.append(("trick card id out of range", a))
    a = arr.copy()
    E.points(P, a)[0] += 5
    out.append(("points taken out of thin air", a))
    a = arr.copy()
    a[E.S_DEALT] -= 1
    out.append(("deal counter changed", a))
    a = arr.copy()
    E.undealt(P, a)[held0[0]] += 1
    out.append(("extra undealt card", a))
    a = arr.copy()
    a[E.S_CUR] = (a[E.S_CUR] + 1) % n
    out.append(("another player to move", a))
    out.append(("wrong size", arr[:-1].copy()))
    out.append(("wrong dtype", arr.astype(np.int64)))
    out.append(("not an array", list(arr)))
    return out


CORRUPTIONS = ["card count made negative", "card removed from a hand",
               "card duplicated into another hand", "card swapped for a copy of another",
               "phase out of range", "current player out of range",
               "trick card id out of range", "points taken out of thin air",
               "deal counter changed", "extra undealt card", "another player to move",
               "wrong size", "wrong dtype", "not an array"]


@pytest.mark.parametrize("case", CORRUPTIONS, ids=lambda s: s.replace(" ", "_"))
def test_inconsistent_state_vector_is_rejected(serial_game, mid_game_state, case):
    st = mid_game_state.clone()
    bad = dict(_corruptions(st.engine_params, np.array(st.engine_state)))[case]
    before = snapshot(st)
    with pytest.raises(CorruptStateError, match="corrupt"):
        st._b = bad
    assert snapshot(st) == before, f"{case}: a rejected engine vector changed the state"


def test_engine_state_of_another_deal_is_rejected(serial_game, mid_game_state):
    # Every count consistent (validation.validate accepts it), but not where this
    # state's history leads.
    st = mid_game_state.clone()
    other = random_state(serial_game, seed=12, steps=len(st.history()))
    assert V.validate(st.engine_params, other.engine_state) == 0
    with pytest.raises(CorruptStateError, match="history"):
        st._b = np.array(other.engine_state)
    assert np.array_equal(st.engine_state, mid_game_state.engine_state)


def test_the_engine_vector_the_history_leads_to_is_accepted(mid_game_state):
    st = mid_game_state.clone()
    st._b = np.array(mid_game_state.engine_state)
    assert str(st) == str(mid_game_state)


# ================================================================ pickle
@pytest.mark.parametrize("params", [
    {"players": 5}, {"deck": "kitty", "players": 9},
    {"deck": "classic", "players": 4, "packs": 1, "moon": "both"},
    {"players": 6, "target_score": 30, "moon": "choose", "max_hands": 3},
    {"deck": "custom", "players": 2, "packs": 1, "suits": "HS", "ranks": "QKA",
     "deal": "whole", "pass_count": 1},
])
def test_pickle_round_trip_of_game_and_states(params):
    game = pyspiel.load_game(NAME, params)
    game2 = pickle.loads(pickle.dumps(game))
    assert str(game2) == str(game)
    assert game2.get_parameters() == game.get_parameters()
    assert game2.rules == game.rules
    rng = np.random.default_rng(17)
    st = game.new_initial_state()
    while True:
        st2 = pickle.loads(pickle.dumps(st))
        assert snapshot(st2)[:5] == snapshot(st)[:5]
        assert np.array_equal(st2.engine_state, st.engine_state)
        assert st2.get_game().get_parameters() == game.get_parameters()
        if st.is_terminal():
            assert st2.returns() == st.returns()
            break
        stop = len(st.history()) + int(rng.integers(1, 30))
        play_random(st, rng, until=lambda s, stop=stop: len(s.history()) >= stop, in_place=True)


def test_pickled_state_plays_on_like_the_original():
    game = pyspiel.load_game(NAME, {"players": 7})
    st = random_state(game, seed=21, steps=150)
    st2 = pickle.loads(pickle.dumps(st))
    play_to_end(st, seed=22)
    play_to_end(st2, seed=22)
    assert st.history() == st2.history()
    assert st.returns() == st2.returns()
