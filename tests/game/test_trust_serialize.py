"""Trust in serialized states: no string runs code, no damaged string becomes a state.

* A real payload -- a pickle whose loading runs ``touch <marker>`` -- given to
  every entry point that reads a serialized state (``game.deserialize_state``,
  ``spiel_game.deserialize_game_and_state`` as str and as bytes, inside this
  game's text format, pyspiel's layout, a [Game] section that is not this
  game) never creates the marker file. A spy on ``pickle.loads`` (pyspiel's
  C++ deserializer looks it up at call time, so it is seen too) shows that no
  byte of a user string reaches the unpickler: the only call ever made is the
  resampler's internal constant (an empty dict).
* Generated damage (hypothesis): characters replaced, deleted or inserted,
  the string truncated, lines reordered or duplicated, history items swapped
  -- of strings from ``state.serialize()`` and from
  ``spiel_game.serialize_game_and_state`` for several schemes. Each either
  raises ``CorruptStateError`` or gives a state equal to the original
  (history with players, move number, engine state, ``str``); never another
  exception; the source state is unchanged. pyspiel's own layout (no check
  line) must give ``CorruptStateError`` or a state whose engine state is the
  one its history leads to.
* Every state is rebuilt by replaying its history: forged player ids, move
  numbers and histories are rejected on both paths (ours and pyspiel's C++
  deserializer, which our states reach through ``random_sim_test``).
* ``state.resample_from_infostate``: a non-integer player or a sampler that
  returns a non-number is a clear error naming the argument and what is
  allowed; resampled states carry correct player ids and move numbers (their
  serialization round-trips).
"""

from __future__ import annotations

import os
import pickle
import sys

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import spiel_game
from spiel_game import CorruptStateError
from spiel_game import _engine as E
from spiel_game import _validation as V
from spiel_game import game as G
from spiel_game import _serialization as GS
from spiel_game._playout import play_random

NAME = spiel_game.GAME_NAME
SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
EMPTY_DICT_PICKLE = pickle.dumps({})

#: Schemes whose states are serialized: card-by-card deal, kitty, whole deal
#: with passing, a match with the moon choice.
CONFIGS = [
    {"players": 5},
    {"deck": "kitty", "players": 7},
    {"deck": "custom", "players": 2, "packs": 1, "suits": "HS", "ranks": "QKA",
     "deal": "whole", "pass_count": 1},
    {"deck": "custom", "players": 3, "packs": 1, "suits": "HS", "ranks": "9TJQKA",
     "pass_count": 1, "moon": "choose", "target_score": 30, "max_hands": 4},
]


def play(game, seed: int, steps: int):
    """The state after ``steps`` seeded random actions (fewer if the game ends)."""
    return play_random(game, seed, until=lambda s: len(s.history()) >= steps)


def identity(s):
    """Everything that makes a pyspiel state this state."""
    return ([(x.player, x.action) for x in s.full_history()], s.move_number(),
            np.asarray(s.engine_state).tobytes(), str(s), s.is_terminal())


def _build_states():
    out = []
    for i, params in enumerate(CONFIGS):
        game = pyspiel.load_game(NAME, params)
        n = game.max_game_length() + game.max_chance_nodes_in_history()
        for frac in (0.0, 0.3, 0.7, 1.0):
            out.append(play(game, seed=100 + i, steps=int(frac * n) + (frac > 0)))
    return out


STATES = _build_states()


class Unpickled(Exception):
    """Raised by the pickle spy for any data but the resampler's constant."""


@pytest.fixture
def no_unpickling(monkeypatch):
    """Fail on any ``pickle.loads`` except of ``pickle.dumps({})`` (the constant
    that ``game._attach_history`` hands pyspiel's parser); record the calls.
    numba's own cache reads (the caller is a numba module) are not counted."""
    calls = []
    real = pickle.loads

    def spy(data, *args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not caller.startswith("numba"):
            calls.append(bytes(data)[:80])
            if bytes(data) != EMPTY_DICT_PICKLE:
                raise Unpickled(f"pickle.loads reached with {bytes(data)[:60]!r}")
        return real(data, *args, **kwargs)

    monkeypatch.setattr(pickle, "loads", spy)
    return calls


# =========================================================== no code runs
class _Touch:
    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def _payload(marker) -> str:
    import base64
    return base64.b64encode(pickle.dumps({"_b": _Touch(marker)})).decode()


def _game_and_state(game, state_text: str, game_text: str | None = None) -> str:
    return (f"# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\n"
            f"Version: 1\n\n[Game]\n{game_text or game.serialize()}\n[State]\n{state_text}\n")


def _attacks(game, state, marker):
    """(name, entry point) pairs that each feed the payload to a deserializer."""
    hist = ",".join(f"{x.player}:{x.action}" for x in state.full_history())
    legacy = f"history={hist}\nmove_number={state.move_number()}\n__dict__={_payload(marker)}"
    ours = state.serialize()
    ours_plus = ours + f"\n__dict__={_payload(marker)}"
    ours_in_check = G.STATE_FORMAT + "\n" + "\n".join(ours.split("\n")[1:4]) + \
        f"\ncheck={_payload(marker)}"
    gs_legacy = _game_and_state(game, legacy)
    return [
        ("deserialize_state, pyspiel layout", lambda: game.deserialize_state(legacy)),
        ("deserialize_state, payload after our lines", lambda: game.deserialize_state(ours_plus)),
        ("deserialize_state, payload as the check", lambda: game.deserialize_state(ours_in_check)),
        ("deserialize_state, bytes", lambda: game.deserialize_state(legacy.encode())),
        ("deserialize_game_and_state, pyspiel layout",
         lambda: spiel_game.deserialize_game_and_state(gs_legacy)),
        ("deserialize_game_and_state, bytes",
         lambda: spiel_game.deserialize_game_and_state(gs_legacy.encode())),
        ("deserialize_game_and_state, no [Meta] section",
         lambda: spiel_game.deserialize_game_and_state(gs_legacy.replace("[Meta]\n", ""))),
        ("deserialize_game_and_state, a wrapper game",
         lambda: spiel_game.deserialize_game_and_state(_game_and_state(
             game, legacy, f"misere(game={game.serialize()})"))),
        ("deserialize_game_and_state, another game's section (tic_tac_toe)",
         lambda: spiel_game.deserialize_game_and_state(_game_and_state(
             game, legacy, "tic_tac_toe()"))),
        ("deserialize_game_and_state, a [Game] section that does not load",
         lambda: spiel_game.deserialize_game_and_state(_game_and_state(
             game, legacy, game.serialize()[:-3]))),
    ]


@pytest.mark.parametrize("index", range(10))
def test_a_pickle_payload_never_runs(tmp_path, index):
    game = pyspiel.load_game(NAME, {"players": 5})
    state = play(game, seed=1, steps=140)
    marker = tmp_path / "payload_ran"
    name, attack = _attacks(game, state, marker)[index]
    before = identity(state)
    try:
        back = attack()
    except CorruptStateError as e:
        assert str(e) and "\n" not in str(e), name
    else:
        back = back[1] if isinstance(back, tuple) else back
        # pyspiel's layout is accepted by replaying its history; the pickled
        # __dict__ is never decoded.
        assert identity(back) == before, f"{name}: another state came back"
    assert not marker.exists(), f"{name}: the payload in the string ran"
    assert identity(state) == before


def test_no_string_reaches_the_unpickler(no_unpickling, tmp_path):
    """Every attack, every entry point: pickle.loads is never called with the
    string's bytes (pyspiel's C++ deserializer would call it)."""
    game = pyspiel.load_game(NAME, {"players": 5})
    state = play(game, seed=1, steps=140)
    for name, attack in _attacks(game, state, tmp_path / "x"):
        try:
            attack()
        except CorruptStateError:
            pass
        assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling), name
    for s in STATES:
        g = s.get_game()
        assert identity(g.deserialize_state(s.serialize())) == identity(s)
        _, back = spiel_game.deserialize_game_and_state(spiel_game.serialize_game_and_state(g, s))
        assert identity(back) == identity(s)
    assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling)


def test_the_spy_sees_pyspiels_unpickling(no_unpickling):
    """The spy is not blind: pyspiel's C++ deserializer (the path our wrappers
    keep strings away from) does call it."""
    game = pyspiel.load_game(NAME, {"players": 5})
    text = pyspiel.State.serialize(play(game, seed=1, steps=20))   # C++ layout
    with pytest.raises(Unpickled):
        pyspiel.Game.deserialize_state(game, text)


def test_serialized_text_cannot_be_loaded_by_pyspiels_deserializer(no_unpickling):
    """Our format stops pyspiel's C++ deserializer at line 1, before any pickle."""
    game = pyspiel.load_game(NAME, {"players": 5})
    text = play(game, seed=1, steps=120).serialize()
    with pytest.raises(pyspiel.SpielError):
        pyspiel.Game.deserialize_state(game, text)
    with pytest.raises(pyspiel.SpielError):
        pyspiel.deserialize_game_and_state(_game_and_state(game, text))
    assert no_unpickling == []


# ======================================================= round trips
def test_round_trips_on_both_paths():
    for s in STATES:
        g = s.get_game()
        text = s.serialize()
        assert "__dict__" not in text and text.split("\n")[0] == G.STATE_FORMAT
        assert identity(g.deserialize_state(text)) == identity(s)
        g2, back = spiel_game.deserialize_game_and_state(spiel_game.serialize_game_and_state(g, s))
        assert str(g2) == str(g) and identity(back) == identity(s)
        # pyspiel's own layout (what its C++ Serialize writes) is read by replay.
        assert identity(g.deserialize_state(pyspiel.State.serialize(s))) == identity(s)
        assert identity(s.clone()) == identity(s)


def test_other_games_are_written_by_pyspiel_and_never_read():
    """Writing another game's state is pyspiel's; reading one is refused
    (pyspiel's readers trust their input), before that game is loaded."""
    game = pyspiel.load_game("tic_tac_toe")
    s = game.new_initial_state()
    s.apply_action(4)
    text = spiel_game.serialize_game_and_state(game, s)
    assert text == GS._PYSPIEL_SERIALIZE(game, s)
    with pytest.raises(CorruptStateError, match=f"reads {NAME} only"):
        spiel_game.deserialize_game_and_state(text)


# ================================================ forged histories, both paths
def _cpp_layout(s, history=None, move_number=None) -> str:
    """pyspiel's C++ layout of ``s`` with the history / move number replaced."""
    text = pyspiel.State.serialize(s)
    lines = text.split("\n", 2)
    if history is not None:
        lines[0] = "history=" + ",".join(f"{p}:{a}" for p, a in history)
    if move_number is not None:
        lines[1] = f"move_number={move_number}"
    return "\n".join(lines)


def _forgeries(s):
    h = [(x.player, x.action) for x in s.full_history()]
    n = len(h)
    (p, a) = h[-1]
    yield "wrong player id", h[:-1] + [(p + 1, a)], n
    yield "chance id for a player", h[:-1] + [(-1, a)], n
    yield "move number too small", h, n - 1
    yield "move number too large", h, n + 5
    yield "action repeated", h + [h[-1]], n + 1
    yield "out-of-range action", h[:-1] + [(p, 99)], n


@pytest.mark.parametrize("which", range(6))
def test_forged_histories_are_rejected_on_both_paths(which):
    game = pyspiel.load_game(NAME, {"players": 5})
    s = play(game, seed=3, steps=150)
    name, hist, mn = list(_forgeries(s))[which]
    ours = G._state_text(game, hist, mn)
    ours += "\ncheck=" + G._digest(ours, s.engine_state)   # a correct-looking check
    with pytest.raises(CorruptStateError):
        game.deserialize_state(ours)
    # pyspiel's C++ deserializer (reached by random_sim_test): the state it
    # builds is rebuilt by replay when '_b' is set, so the forgery is refused.
    with pytest.raises(CorruptStateError):
        pyspiel.Game.deserialize_state(game, _cpp_layout(s, hist, mn))
    with pytest.raises(CorruptStateError):
        pyspiel.deserialize_game_and_state(_game_and_state(game, _cpp_layout(s, hist, mn)))


def test_error_messages_name_the_line_and_what_is_allowed():
    game = pyspiel.load_game(NAME, {"players": 5})
    s = play(game, seed=3, steps=150)
    text = s.serialize()
    lines = text.split("\n")
    cases = [
        ("\n".join([lines[0], lines[2], lines[1]] + lines[3:]), ["line 2", "'game='"]),
        (text.replace("history=-1:", "history=-1;", 1), ["history item 1", "'player:action'"]),
        (text.replace("move_number=", "move_number=x"), ["move_number", "integer"]),
        ("garbage\n" + text, ["line 1", G.STATE_FORMAT]),
        (text[:-1] + ("0" if text[-1] != "0" else "1"), ["check"]),
        ("\n".join(lines[:4]), ["5 lines", "check"]),
        (text.replace("players=5", "players=6"), ["another game", "players=6"]),
    ]
    for bad, needles in cases:
        with pytest.raises(CorruptStateError) as info:
            game.deserialize_state(bad)
        for needle in needles:
            assert needle in str(info.value), (needle, str(info.value))


def test_an_overlong_history_is_refused_before_replay():
    game = pyspiel.load_game(NAME, {"deck": "custom", "players": 2, "packs": 1,
                                    "suits": "HS", "ranks": "QKA", "pass_count": 0})
    n = game.max_history_length() + 1
    text = G._state_text(game, [(-1, 0)] * n, n) + "\ncheck=0000000000000000"
    with pytest.raises(CorruptStateError, match="at most"):
        game.deserialize_state(text)


# ==================================================== generated damage
_ALPHABET = st.sampled_from(list("0123456789:,-=\n\r abcdefx_()") + ["\x00", "é", "١"])


@st.composite
def damaged(draw, texts):
    """(original index, damaged text, what was done)."""
    i = draw(st.integers(0, len(texts) - 1))
    text = texts[i]
    kind = draw(st.sampled_from(["replace", "delete", "insert", "truncate", "swap_lines",
                                 "duplicate_line", "swap_items", "digit"]))
    n = len(text)
    if kind == "replace":
        k = draw(st.integers(0, n - 1))
        out = text[:k] + draw(_ALPHABET) + text[k + 1:]
    elif kind == "delete":
        k = draw(st.integers(0, n - 1))
        out = text[:k] + text[k + draw(st.integers(1, 12)):]
    elif kind == "insert":
        k = draw(st.integers(0, n))
        out = text[:k] + "".join(draw(st.lists(_ALPHABET, min_size=1, max_size=6))) + text[k:]
    elif kind == "truncate":
        out = text[:draw(st.integers(0, n - 1))]
    elif kind in ("swap_lines", "duplicate_line"):
        lines = text.split("\n")
        a = draw(st.integers(0, len(lines) - 1))
        b = draw(st.integers(0, len(lines) - 1))
        if kind == "swap_lines":
            lines[a], lines[b] = lines[b], lines[a]
        else:
            lines.insert(b, lines[a])
        out = "\n".join(lines)
    elif kind == "swap_items":
        k = text.index("history=") + len("history=")
        end = text.index("\n", k)
        items = text[k:end].split(",")
        a = draw(st.integers(0, len(items) - 1))
        b = draw(st.integers(0, len(items) - 1))
        items[a], items[b] = items[b], items[a]
        out = text[:k] + ",".join(items) + text[end:]
    else:                                     # one digit of the history changed
        k = text.index("history=") + len("history=")
        end = text.index("\n", k)
        digits = [j for j in range(k, end) if text[j].isdigit()] or [k]
        j = draw(st.sampled_from(digits))
        out = text[:j] + str(draw(st.integers(0, 9))) + text[j + 1:]
    return i, out, kind


_TEXTS = [s.serialize() for s in STATES]
_GS_TEXTS = [spiel_game.serialize_game_and_state(s.get_game(), s) for s in STATES]
_CPP_TEXTS = [pyspiel.State.serialize(s) for s in STATES]
_BEFORE = [identity(s) for s in STATES]


def _sources_unchanged():
    assert [identity(s) for s in STATES] == _BEFORE


@settings(max_examples=400, **SETTINGS)
@given(case=damaged(_TEXTS))
def test_damaged_serializations_are_rejected_or_harmless(no_unpickling, case):
    i, text, kind = case
    s = STATES[i]
    try:
        back = s.get_game().deserialize_state(text)
    except CorruptStateError as e:
        assert str(e)
    else:
        assert identity(back) == _BEFORE[i], f"{kind}: another state from {text!r}"
    assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling)
    _sources_unchanged()


@settings(max_examples=200, **SETTINGS)
@given(case=damaged(_GS_TEXTS))
def test_damaged_game_and_state_strings_are_rejected_or_harmless(no_unpickling, case):
    i, text, kind = case
    try:
        game, back = spiel_game.deserialize_game_and_state(text)
    except CorruptStateError as e:
        assert str(e) and "\n" not in str(e), (kind, str(e))
    else:
        assert str(game) == str(STATES[i].get_game())
        assert identity(back) == _BEFORE[i], f"{kind}: another state from {text!r}"
    assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling)
    _sources_unchanged()


@settings(max_examples=150, **SETTINGS)
@given(case=damaged(_CPP_TEXTS))
def test_damaged_pyspiel_layout_gives_an_error_or_a_consistent_state(no_unpickling, case):
    # pyspiel's layout has no check line: a legal change of the history gives
    # another legal state, but never one whose engine state is not the one
    # its history leads to.
    i, text, kind = case
    game = STATES[i].get_game()
    try:
        back = game.deserialize_state(text)
    except CorruptStateError as e:
        assert str(e)
    else:
        replay = game.new_initial_state()
        for a in back.history():
            replay.apply_action(a)
        assert identity(replay) == identity(back), kind
        assert V.validate(back.engine_params, back.engine_state) == 0
    assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling)
    _sources_unchanged()


# ====================================================== resample arguments
@pytest.fixture(scope="module")
def mid_hand():
    s = play(pyspiel.load_game(NAME, {"players": 6}), seed=5, steps=102 + 24 + 30)
    assert s.engine_state[E.S_PHASE] == E.PH_PLAY
    return s


@pytest.mark.parametrize("bad", [2.5, 2.0, "2", None, True, [2], np.float64(1.0)])
def test_resample_player_must_be_an_int_seat(mid_hand, bad):
    before = identity(mid_hand)
    with pytest.raises(TypeError) as info:
        mid_hand.resample_from_infostate(bad, np.random.default_rng(0))
    msg = str(info.value)
    assert "player" in msg and "0..5" in msg and repr(bad) in msg, msg
    assert identity(mid_hand) == before


def test_resample_player_as_numpy_int_is_accepted(mid_hand):
    me = mid_hand.current_player()
    r = mid_hand.resample_from_infostate(np.int64(me), np.random.default_rng(0))
    assert r.information_state_string(me) == mid_hand.information_state_string(me)


@pytest.mark.parametrize("value, error", [
    ("0.5", TypeError), (None, TypeError), (b"x", TypeError), ([0.5], TypeError),
    (True, TypeError), (1.5, ValueError), (-0.1, ValueError), (float("nan"), ValueError),
    (1.0, ValueError)])
def test_resample_sampler_must_return_a_number_in_0_1(mid_hand, value, error):
    before = identity(mid_hand)
    with pytest.raises(error) as info:
        mid_hand.resample_from_infostate(0, lambda: value)
    msg = str(info.value)
    assert "probability_sampler" in msg and "[0, 1)" in msg, msg
    assert identity(mid_hand) == before


def test_resample_accepts_openspiels_sampler_and_a_seed(mid_hand):
    me = mid_hand.current_player()
    for rng in (pyspiel.UniformProbabilitySampler(7, 0.0, 1.0), 7, lambda: 0.25):
        r = mid_hand.resample_from_infostate(me, rng)
        assert r.information_state_string(me) == mid_hand.information_state_string(me)
    with pytest.raises(ValueError, match="negative seed"):
        mid_hand.resample_from_infostate(me, -1)


def test_resampled_states_have_true_histories(no_unpickling):
    """The resampler's trusted path: player ids, move number and engine state
    agree with a replay (a serialization round trip checks all three), on the
    compiled path (single hand) and the Python path (match, whole deal)."""
    rng = np.random.default_rng(0)
    for s in STATES:
        for me in range(s.get_game().num_players()):
            r = s.resample_from_infostate(me, rng)
            back = r.get_game().deserialize_state(r.serialize())
            assert identity(back) == identity(r)
            assert r.move_number() == len(r.history()) == len(s.history())
    assert no_unpickling and all(c == EMPTY_DICT_PICKLE for c in no_unpickling)


# ================================================ the public constructor
def test_from_history_rebuilds_every_state(no_unpickling):
    """``CancellationHeartsState.from_history`` (the resampler's constructor):
    same history, player ids, move number and engine state as the original,
    on card-by-card deals, whole deals and matches."""
    for s in STATES:
        g = s.get_game()
        pairs = [(x.player, x.action) for x in s.full_history()]
        for players in (None, [p for p, _ in pairs]):
            r = type(s).from_history(g, [a for _, a in pairs], players=players)
            assert identity(r) == identity(s)
            assert r.move_number() == s.move_number()
    assert all(c == EMPTY_DICT_PICKLE for c in no_unpickling)


def test_from_history_names_the_first_rejected_item():
    game = pyspiel.load_game(NAME, {"players": 5})
    s = play(game, seed=3, steps=150)
    cls = type(s)
    pairs = [(x.player, x.action) for x in s.full_history()]
    hist = [a for _, a in pairs]
    n = len(hist)
    with pytest.raises(spiel_game.IllegalActionError,
                       match=rf"history item {n}: illegal action 99 .*not a card id"):
        cls.from_history(game, hist[:-1] + [99])
    players = [p for p, _ in pairs]
    players[-1] = (players[-1] + 1) % 5
    with pytest.raises(spiel_game.IllegalActionError, match=rf"history item {n} .*recorded for "
                                                            rf"player"):
        cls.from_history(game, hist, players=players)
    with pytest.raises(TypeError, match="history"):
        cls.from_history(game, [0.5, 1.5])
    with pytest.raises(TypeError, match="game"):
        cls.from_history(pyspiel.load_game("tic_tac_toe"), hist)


def test_from_history_refuses_a_missing_whole_deal():
    game = spiel_game.load({"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA",
                            "deal": "whole", "pass_count": 1})
    n = len(game.whole_deals)
    with pytest.raises(spiel_game.IllegalActionError, match=rf"deal outcome {n} does not exist"):
        type(game.new_initial_state()).from_history(game, [n])
    assert game.deal_outcome(game.whole_deals[3]) == 3
