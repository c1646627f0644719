"""The pyspiel adapter: GameType, GameInfo, Game, State and registration.

This module only translates between OpenSpiel's API and the compiled rules in
:mod:`spiel_game._engine`; it holds no rules of its own. Game-and-state strings
(``serialize_game_and_state``) are read and written in :mod:`spiel_game._serialization`.
"""

from __future__ import annotations

import base64
import hashlib
import pickle
import re
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from . import cards as C
from . import _engine as E
from . import _validation as V
from . import _resample as _resample
from ._checks import shorten
from ._rules import PARAMETER_DEFAULTS, RuleSet, GameParameterError, clause

__all__ = ["GAME_NAME", "CancellationHeartsGame", "CancellationHeartsState",
           "IllegalActionError", "CorruptStateError", "GAME_TYPE"]

GAME_NAME = "python_cancellation_hearts"


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state; the state is unchanged."""


class CorruptStateError(ValueError):
    """A serialized or assigned state is not a state of this game."""


def _game_type(utility=pyspiel.GameType.Utility.GENERAL_SUM) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Cancellation Hearts",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=11,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETER_DEFAULTS),
    )


GAME_TYPE = _game_type()

_ERR_TEXT = {
    E.ERR_TERMINAL: "the hand is over; no action is legal in a terminal state",
    E.ERR_RANGE: "action {a} is not a card id (0..52)",
    E.ERR_NOT_DEALT: f"{clause('R4')}: {{card}} is not left in the undealt pack",
    E.ERR_NOT_IN_HAND: f"{clause('R7')}: {{card}} is not in player {{p}}'s hand",
    E.ERR_FOLLOW: f"{clause('R7')}: player {{p}} holds {{suit}} and must follow the suit led",
    E.ERR_OPENING: f"{clause('R6 B')}: the first trick must be opened with {{opening}}",
    E.ERR_FIRST_LEAD: f"{clause('R6 A')}: the first lead may not be a heart or the Black Maria "
                      "while the hand holds another card",
    E.ERR_HEARTS: f"{clause('R9')}: hearts are not broken; QS or a non-heart must be led",
    E.ERR_FIRST_TRICK_POINTS: "classic: no points (hearts, QS) on the first trick "
                              "while the hand holds another card",
    E.ERR_MOON: f"{clause('R10')}: the shooter must choose moon:subtract (53) or moon:add (54), "
                "not {a}",
}


class CancellationHeartsGame(pyspiel.Game):
    """Cancellation Hearts (RULES.md R1-R11) for any parameters of :class:`RuleSet`."""

    def __init__(self, params: dict[str, Any] | None = None):
        rules = RuleSet.from_params(params or {})
        self.rules = rules
        self._P = E.make_params(rules)
        self._deals = self._deal_probs = None
        if rules.deal == "whole":
            from ._deals import enumerate_deals
            sizes = [rules.hand_size] * rules.players + (
                [rules.kitty_size] if rules.kitty_size else [])
            try:
                self._deals, self._deal_probs = enumerate_deals(rules.deck_counts, sizes)
            except ValueError as e:
                raise GameParameterError(str(e)) from None
            self._deal_outcomes = list(zip(range(len(self._deal_probs)),
                                           self._deal_probs.tolist()))
        lo, hi = rules.utility_range()
        utype = pyspiel.GameType.Utility.GENERAL_SUM
        usum = None
        if rules.utility == "zero_sum":
            utype, usum = pyspiel.GameType.Utility.ZERO_SUM, 0.0
        elif (rules.moon == "off" or rules.penalty_points == 0) and \
                rules.void_last_trick == "leader" and not rules.is_match:
            utype, usum = pyspiel.GameType.Utility.CONSTANT_SUM, -float(rules.total_points)
        hands = rules.num_hands_max
        info = pyspiel.GameInfo(
            num_distinct_actions=E.NUM_ACTIONS_WITH_MOON if rules.moon == "choose" else E.K,
            max_chance_outcomes=(len(self._deal_probs) if self._deals is not None else E.K),
            num_players=rules.players,
            min_utility=lo,
            max_utility=hi if hi > lo else lo + 1.0,
            utility_sum=usum,
            max_game_length=rules.decisions_per_hand * hands)
        self._max_chance_nodes = (1 if self._deals is not None else rules.num_cards) * hands
        super().__init__(_game_type(utype), info, dict(rules.params))
        self._S0 = E.new_state(self._P)
        self._state_cls = type("CancellationHeartsState", (CancellationHeartsState,),
                               {"_game": self, "_P": self._P})
        self._deal_index: dict[bytes, int] | None = None

    @property
    def engine_params(self) -> np.ndarray:
        """The engine's parameter vector of these rules (see spiel_game._engine)."""
        return self._P

    @property
    def whole_deals(self) -> np.ndarray | None:
        """``deal='whole'``: the table of chance outcomes, ``int8[D, n (+1 kitty), 53]``
        (outcome ``i`` deals ``whole_deals[i][q]`` to seat ``q``); else None.
        Read-only."""
        return self._deals

    def deal_outcome(self, counts) -> int:
        """``deal='whole'``: the chance outcome that deals ``counts[n (+1 kitty), 53]``."""
        if self._deals is None:
            raise ValueError("deal_outcome: this game deals card by card (deal='cards')")
        if self._deal_index is None:
            self._deal_index = {self._deals[i].tobytes(): i for i in range(len(self._deals))}
        key = np.asarray(counts).astype(self._deals.dtype).tobytes()
        if key not in self._deal_index:
            raise ValueError("deal_outcome: no chance outcome deals these hands")
        return self._deal_index[key]

    def new_initial_state(self) -> CancellationHeartsState:
        return self._state_cls(self)

    def max_chance_nodes_in_history(self) -> int:
        return self._max_chance_nodes

    def _observer(self, kind: str):
        """Cached default observers: "info" (information state) or "obs"."""
        cache = self.__dict__.setdefault("_observers", {})
        if kind not in cache:
            from .observers import make_observer
            t = pyspiel.IIGObservationType(perfect_recall=(kind == "info"))
            cache[kind] = make_observer(self, t, None)
        return cache[kind]

    def make_py_observer(self, iig_obs_type=None, params=None):
        from .observers import make_observer
        return make_observer(self, iig_obs_type, params)

    # Convenience for users and tests.
    def state_from_actions(self, actions) -> CancellationHeartsState:
        """A state reached by applying ``actions`` (ints or card strings) from the start."""
        st = self.new_initial_state()
        for a in actions:
            st.apply_action(st.string_to_action(a) if isinstance(a, str) else int(a))
        return st

    def __reduce__(self):
        return (pyspiel.load_game, (GAME_NAME, dict(self.rules.params)))

    def deserialize_state(self, text: str) -> CancellationHeartsState:
        """The state that ``state.serialize()`` wrote, rebuilt by replaying its history.

        Reads this game's text format (see :meth:`CancellationHeartsState.serialize`)
        and pyspiel's own layout of a Python state (``history=`` / ``move_number=``
        / ``__dict__=``, what C++ ``Serialize`` writes), whose ``__dict__`` part is
        never decoded: it must be, as text, the one pyspiel writes for this game
        (any other is refused); no part of ``text`` reaches ``pickle``, ``eval``
        or ``exec``. Every action is replayed through the engine; the recorded player
        of each action and the move number must be the ones the rules give.
        Raises :class:`CorruptStateError` naming the line and what is allowed.
        """
        pairs, move_number, check = self._parse_serialized(text)
        s = self._replay_checked(pairs)
        if move_number != len(pairs):
            raise CorruptStateError(
                f"corrupted serialized state: move_number={move_number}, but the history "
                f"has {len(pairs)} actions (the move number counts every action, "
                f"chance included, so it must be {len(pairs)})")
        if check is not None:
            want = _digest(_state_text(self, pairs, move_number), s)
            if check != want:
                raise CorruptStateError(
                    f"corrupted serialized state: line 5 'check={check}' does not match the "
                    f"content (check={want}): the text was changed after state.serialize() "
                    f"wrote it (or written under rules that give another engine state)")
        players = np.fromiter((p for p, _ in pairs), np.int64, len(pairs))
        actions = np.fromiter((a for _, a in pairs), np.int64, len(pairs))
        return _attach_history(self, players, actions, s)

    def _parse_serialized(self, text) -> tuple[list[tuple[int, int]], int, str | None]:
        """(history as (player, action) pairs, move number, check or None) of a
        serialized state; only the text is parsed, nothing is decoded or evaluated."""
        if not isinstance(text, str):
            raise CorruptStateError(
                f"a serialized state is a str (from state.serialize()), got {type(text).__name__}")
        body = text[:-1] if text.endswith("\n") else text
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in body.split("\n")]
        check = None
        if lines[0] == STATE_FORMAT:
            tags = ("game=", "history=", "move_number=", "check=")
            if len(lines) != 5:
                raise CorruptStateError(
                    f"corrupted serialized state: expected 5 lines ({STATE_FORMAT!r}, "
                    f"'game=...', 'history=...', 'move_number=...', 'check=...'), "
                    f"got {len(lines)}")
            for i, tag in enumerate(tags):
                if not lines[i + 1].startswith(tag):
                    raise CorruptStateError(
                        f"corrupted serialized state: line {i + 2} must start with {tag!r}, "
                        f"got {shorten(lines[i + 1], 40, head=True)}")
            game_text = lines[1][len(tags[0]):]
            if game_text != str(self):
                raise CorruptStateError(
                    f"serialized state of another game: line 2 names "
                    f"{shorten(game_text, 300, head=True)}, "
                    f"this game is {str(self)!r}; deserialize it with that game "
                    f"(pyspiel.load_game of that string)")
            hist_text, move_text = lines[2][len(tags[1]):], lines[3][len(tags[2]):]
            check = lines[4][len(tags[3]):]
            if not _HEX16.fullmatch(check):
                raise CorruptStateError(
                    f"corrupted serialized state: line 5 must be 'check=' and 16 hex digits, "
                    f"got {shorten(lines[4], 40, head=True)}")
        elif lines[0].startswith("history="):
            # pyspiel's layout (C++ State::Serialize); its __dict__ line is compared
            # with what pyspiel writes for this game, never decoded.
            parts = body.split("\n", 2)
            if (len(parts) != 3 or not parts[1].startswith("move_number=")
                    or not parts[2].startswith("__dict__=")):
                raise CorruptStateError(
                    "corrupted serialized state: pyspiel's layout has three lines "
                    "'history=...', 'move_number=...', '__dict__=...'; got "
                    + ", ".join(shorten(p, 20, head=True) for p in parts))
            if parts[2][len("__dict__="):] not in _PYSPIEL_DICTS:
                raise CorruptStateError(
                    f"refused: line 3 of pyspiel's layout must be the '__dict__=' that "
                    f"pyspiel writes for this game's states, got "
                    f"{shorten(parts[2], 40, head=True)}; it "
                    f"is never decoded (unpickling it would run any code it holds)")
            hist_text, move_text = parts[0][len("history="):], parts[1][len("move_number="):]
        else:
            raise CorruptStateError(
                f"corrupted serialized state: line 1 must be {STATE_FORMAT!r} (from "
                f"state.serialize()) or pyspiel's 'history=...', got "
                f"{shorten(lines[0], 40, head=True)}")
        items = hist_text.split(",") if hist_text else []
        limit = self.max_history_length()
        if len(items) > limit:
            raise CorruptStateError(
                f"corrupted serialized state: the history has {len(items)} items, a game "
                f"of these rules has at most {limit}")
        pairs = []
        for i, item in enumerate(items):
            p, sep, a = item.partition(":")
            if not sep or not _INT.fullmatch(p) or not _INT.fullmatch(a):
                raise CorruptStateError(
                    f"corrupted serialized state: history item {i + 1} is "
                    f"{shorten(item, 40, head=True)}; "
                    f"each item must be 'player:action' (two integers), items separated by ','")
            pairs.append((int(p), int(a)))
        if not _INT.fullmatch(move_text):
            raise CorruptStateError(
                f"corrupted serialized state: move_number must be an integer, "
                f"got {shorten(move_text, 40, head=True)}")
        return pairs, int(move_text), check

    def _replay_checked(self, pairs) -> np.ndarray:
        """The engine state reached by ``pairs`` ((player, action)) from the
        start; raises CorruptStateError at the first item the rules reject."""
        P = self._P
        s = self._S0.copy()
        for i, (pl, a) in enumerate(pairs):
            where = f"corrupted serialized state: history item {i + 1} ({pl}:{a})"
            cur = int(E.current_player(P, s))
            if cur == E.TERMINAL:
                raise CorruptStateError(f"{where}: the game is over after {i} actions")
            if pl != cur:
                who = "chance (-1)" if cur == E.CHANCE else f"player {cur}"
                raise CorruptStateError(f"{where}: recorded for player {pl}, but {who} is to move")
            if self._deals is not None and s[E.S_PHASE] == E.PH_DEAL:
                if not 0 <= a < len(self._deals):
                    raise CorruptStateError(
                        f"{where}: deal outcome {a} does not exist; allowed 0.."
                        f"{len(self._deals) - 1}")
                E.apply_whole_deal(P, s, self._deals[a])
                continue
            if not E.NUM_ACTIONS_WITH_MOON > a >= 0:
                raise CorruptStateError(f"{where}: action {a} is not an action of this game "
                                        f"(0..{E.NUM_ACTIONS_WITH_MOON - 1})")
            err = E.apply_action(P, s, a)
            if err:
                probe = self.new_initial_state()
                object.__setattr__(probe, "_b", _Box(s))
                raise CorruptStateError(f"{where}: {probe._explain(err, a)}")
        return s


class CancellationHeartsState(pyspiel.State):
    """A state of Cancellation Hearts: one int32 vector ``_s`` (see engine)."""

    _game: CancellationHeartsGame
    _P: np.ndarray

    def __init__(self, game: CancellationHeartsGame):
        super().__init__(game)
        object.__setattr__(self, "_b", _Box(game._S0.copy()))

    @classmethod
    def from_history(cls, game: CancellationHeartsGame, history, *,
                     players=None) -> CancellationHeartsState:
        """The state of ``game`` that ``history`` reaches: the actions from the
        start, chance outcomes included, as ``state.history()`` lists them.

        The engine runs the actions in one compiled loop and pyspiel's history
        is attached in one step (about 25 us for a 228-action history; applying
        them one by one through pyspiel costs about 1.4 ms). ``players``
        (optional): the player of each action (chance = -1), checked against
        the rules. Raises :class:`IllegalActionError` naming the first action
        the rules reject (or the first wrong player)."""
        if not isinstance(game, CancellationHeartsGame):
            raise TypeError(f"from_history: game must be a Cancellation Hearts game, got "
                            f"{type(game).__name__}")
        actions = np.asarray(history)
        if actions.ndim != 1 or (actions.size and actions.dtype.kind not in "iu"):
            raise TypeError("from_history: history must be a sequence of int actions")
        actions = actions.astype(np.int64, copy=False)
        s = game._S0.copy()
        who = np.empty(actions.shape[0], np.int64)
        whole = game._deals is not None
        deals = game._deals if whole else _NO_DEALS
        i, err = _replay_history(game._P, s, actions, deals, whole, who)
        if i >= 0:
            a = int(actions[i])
            if whole and s[E.S_PHASE] == E.PH_DEAL:
                why = (f"{clause('R4')}: deal outcome {a} does not exist; allowed 0.."
                       f"{len(game._deals) - 1}")
            else:
                why = _attach_history(game, who[:i], actions[:i], s)._explain(int(err), a)
            raise IllegalActionError(f"history item {i + 1}: {why}")
        if players is not None:
            players = np.asarray(players, np.int64)
            if players.shape != who.shape:
                raise ValueError(f"from_history: {players.shape[0]} players for "
                                 f"{who.shape[0]} actions")
            bad = np.flatnonzero(players != who)
            if bad.size:
                j = int(bad[0])
                mover = "chance (-1)" if who[j] == E.CHANCE else f"player {who[j]}"
                raise IllegalActionError(
                    f"history item {j + 1} ({players[j]}:{actions[j]}): recorded for player "
                    f"{players[j]}, but {mover} is to move")
        return _attach_history(game, who, actions, s)

    # pyspiel clones a Python state by deep-copying its ``__dict__`` (``{"_b": box}``):
    # a box that comes out of ``deepcopy`` is trusted. Any other value of ``_b``
    # (pyspiel's C++ ``Deserialize`` unpickles one, see ``_Box.__reduce__``) is
    # replaced by the engine state that replaying the state's pyspiel history
    # gives; a value that carries a different engine state is rejected.
    def __setattr__(self, name, value):
        if name == "_b":
            if type(value) is not _Box:
                value = _Box(self._rebuilt_from_history(value))
        elif not name.startswith("__"):
            raise CorruptStateError(
                f"a Cancellation Hearts state has no attribute {name!r}; "
                f"its only attribute is '_b' (the engine state vector)")
        object.__setattr__(self, name, value)

    def _rebuilt_from_history(self, value) -> np.ndarray:
        game = self._game
        pairs = [(int(x.player), int(x.action)) for x in self.full_history()]
        s = game._replay_checked(pairs)
        if self.move_number() != len(pairs):
            raise CorruptStateError(
                f"corrupted state: move number {self.move_number()} with a history of "
                f"{len(pairs)} actions (they must be equal)")
        if type(value) is not _FromHistory:
            given = _checked_state(self._P, getattr(value, "a", value))
            if not np.array_equal(given, s):
                raise CorruptStateError(
                    "corrupted state: the engine state given for '_b' is not the one this "
                    f"state's history ({len(pairs)} actions) leads to")
        return s

    def serialize(self) -> str:
        """This state as plain text, five lines: the format name
        (``STATE_FORMAT``), ``game=`` (the game string), ``history=``
        (``player:action`` items, chance = -1), ``move_number=`` and ``check=``
        (a 64-bit BLAKE2b digest of the lines above and the engine state, to
        detect a changed or damaged string; not a signature).
        ``game.deserialize_state`` and ``spiel_game.deserialize_game_and_state``
        rebuild the state by replaying
        the history. The text holds no pickle, and pyspiel's C++ deserializer
        refuses it at line 1 (it expects 'history=')."""
        pairs = [(x.player, x.action) for x in self.full_history()]
        head = _state_text(self._game, pairs, self.move_number())
        return f"{head}\ncheck={_digest(head, self._b.a)}"

    @property
    def _s(self) -> np.ndarray:
        return self._b.a

    # -------------------------------------------------------------- queries
    @property
    def rules(self) -> RuleSet:
        return self._game.rules

    def current_player(self) -> int:
        return int(E.current_player(self._P, self._b.a))

    def _legal_actions(self, player: int) -> list[int]:
        if player != E.current_player(self._P, self._b.a):
            return []
        return E.legal_actions(self._P, self._b.a).tolist()

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Same as pyspiel's ``State.legal_actions``, answered without a C++ round trip."""
        s = self._b.a
        cur = E.current_player(self._P, s)
        if player is not None and player != cur:
            return []
        if cur == E.TERMINAL:
            return []
        if cur == E.CHANCE and self._game._deals is not None:
            return list(range(len(self._game._deals)))
        return E.legal_actions(self._P, s).tolist()

    def is_chance_node(self) -> bool:
        return bool(self._b.a[E.S_PHASE] == E.PH_DEAL)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._s[E.S_PHASE] != E.PH_DEAL:
            return []
        if self._game._deals is not None:
            return list(self._game._deal_outcomes)
        acts, probs = E.chance_probabilities(self._P, self._s)
        return list(zip(acts.tolist(), probs.tolist()))

    def is_terminal(self) -> bool:
        return bool(self._b.a[E.S_PHASE] == E.PH_OVER)

    def returns(self) -> list[float]:
        return E.returns(self._P, self._s).tolist()

    def rewards(self) -> list[float]:
        return self.returns()

    # -------------------------------------------------------------- actions
    def _apply_action(self, action: int) -> None:
        s = self._b.a
        if self._game._deals is not None and s[E.S_PHASE] == E.PH_DEAL:
            if not 0 <= action < len(self._game._deals):
                raise IllegalActionError(
                    f"{clause('R4')}: deal outcome {action} does not exist; allowed 0.."
                    f"{len(self._game._deals) - 1}")
            E.apply_whole_deal(self._P, s, self._game._deals[action])
            return
        err = E.apply_action(self._P, s, action)
        if err:
            raise IllegalActionError(self._explain(err, action))

    def _explain(self, err: int, action: int) -> str:
        p = self.current_player()
        card = C.card_to_string(action) if 0 <= action < E.K else str(action)
        suit = ""
        if err == E.ERR_FOLLOW:
            suit = "CDHS"[int(E.led_suit(self._P, self._s))]
        opening = C.card_to_string(int(self._P[E.P_OPENING])) if self._P[E.P_OPENING] >= 0 else ""
        text = _ERR_TEXT.get(err, "illegal action {a}")
        if err == E.ERR_NOT_IN_HAND and self._b.a[E.S_PHASE] == E.PH_PASS:
            text = f"{clause('R5')}: {{card}} is not in player {{p}}'s hand to pass"
        msg = text.format(
            a=action, card=card, p=p, suit=suit, opening=opening)
        legal = [self._action_to_string(p, a) for a in self.legal_actions()]
        return f"illegal action {action} ({card}) for player {p}: {msg}; legal: {legal}"

    def _action_to_string(self, player: int, action: int) -> str:
        if self._game._deals is not None and player == pyspiel.PlayerId.CHANCE:
            return _deal_string(self._game, action)
        if action == E.MOON_SUBTRACT_ACTION:
            return "moon:subtract"
        if action == E.MOON_ADD_ACTION:
            return "moon:add"
        return C.card_to_string(action) if 0 <= action < E.K else f"action:{action}"

    def string_to_action(self, text: str) -> int:
        t = text.strip()
        if t == "moon:subtract":
            return E.MOON_SUBTRACT_ACTION
        if t == "moon:add":
            return E.MOON_ADD_ACTION
        return C.string_to_card(t)

    # The observer views answered in Python (no C++ round trip). Tensors come
    # back as lists of floats, as pyspiel's do; for speed use an observer's
    # float32 buffer directly (game.make_py_observer(...).set_from / .tensor).
    def _view_player(self, player):
        if player is None:
            player = self.current_player()
            if player < 0:
                raise RuntimeError(
                    "no player given and none to move (chance or terminal node): "
                    "pass the player explicitly")
        n = self._game.rules.players
        if player < 0:
            raise RuntimeError(f"expected player >= 0 (a seat 0..{n - 1}), got {player}")
        if player >= n:
            raise RuntimeError(f"expected player < {n} (a seat 0..{n - 1}), got {player}")
        return player

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        obs = self._game._observer("info")
        obs.set_from(self, self._view_player(player))
        return obs.tensor.tolist()

    def observation_tensor(self, player: int | None = None) -> list[float]:
        obs = self._game._observer("obs")
        obs.set_from(self, self._view_player(player))
        return obs.tensor.tolist()

    def information_state_string(self, player: int | None = None) -> str:
        return self._game._observer("info").string_from(self, self._view_player(player))

    def observation_string(self, player: int | None = None) -> str:
        return self._game._observer("obs").string_from(self, self._view_player(player))

    def resample_from_infostate(self, player_id: int,
                                probability_sampler) -> CancellationHeartsState:
        """A state ``player_id`` cannot tell from this one, hidden cards drawn
        uniformly (see :mod:`spiel_game._resample`). ``probability_sampler``: a
        numpy Generator, a seed, or OpenSpiel's ``UniformProbabilitySampler``."""
        return _resample.resample_from_infostate(self, player_id, probability_sampler)

    # -------------------------------------------------------------- views
    def __str__(self) -> str:
        from ._render import state_to_text
        return state_to_text(self)

    def __reduce__(self):
        return (_restore_state, (dict(self._game.rules.params), self.history()))

    # Engine-level access for solvers (documented kernel API).
    @property
    def engine_state(self) -> np.ndarray:
        """A read-only view of the engine state vector (see spiel_game._engine)."""
        v = self._b.a.view()
        v.setflags(write=False)
        return v

    @property
    def engine_params(self) -> np.ndarray:
        return self._P


class _Box:
    """Holds the engine state vector. ``deepcopy`` (pyspiel's ``clone``) copies it
    (trusted); ``pickle`` (pyspiel's C++ ``Serialize`` of the state's ``__dict__``)
    writes a :class:`_FromHistory` marker and no engine state at all."""

    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def __deepcopy__(self, memo):
        return _Box(self.a.copy())

    def __reduce__(self):
        return (_FromHistory, ())


class _FromHistory:
    """Unpickled in place of a state's engine vector: the state rebuilds it by
    replaying its pyspiel history (``CancellationHeartsState.__setattr__``)."""

    __slots__ = ()


def _checked_state(P: np.ndarray, value) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype != np.int32 or value.ndim != 1:
        raise CorruptStateError(
            f"corrupted state: '_s' must be a 1-D int32 numpy array, got "
            f"{type(value).__name__} {getattr(value, 'dtype', '')}")
    if value.shape[0] != P[E.L_STATE_SIZE]:
        raise CorruptStateError(
            f"corrupted state: '_s' has {value.shape[0]} entries, this game's states "
            f"have {int(P[E.L_STATE_SIZE])} (a state of another game's parameters?)")
    msg = V.validate_message(P, value)
    if msg:
        raise CorruptStateError(f"corrupted state: {msg}")
    return value


# ------------------------------------------------------------ serialization
#: Line 1 of ``state.serialize()``.
STATE_FORMAT = "python_cancellation_hearts state v1"
_INT = re.compile(r"-?[0-9]{1,10}", re.ASCII)
_HEX16 = re.compile(r"[0-9a-f]{16}", re.ASCII)
_EMPTY_DICT = base64.b64encode(pickle.dumps({})).decode()
#: The ``__dict__=`` values pyspiel's C++ ``Serialize`` writes for a state of
#: this game (its one attribute ``_b``, pickled as a ``_FromHistory`` marker,
#: in every pickle protocol), and the empty dict. Compared as text, never decoded.
_PYSPIEL_DICTS = frozenset(
    [_EMPTY_DICT] + [base64.b64encode(pickle.dumps({"_b": _Box(None)}, protocol=p)).decode()
                     for p in range(2, pickle.HIGHEST_PROTOCOL + 1)])


def _state_text(game, pairs, move_number: int) -> str:
    """Lines 1-4 of ``state.serialize()``."""
    hist = ",".join(f"{p}:{a}" for p, a in pairs)
    return f"{STATE_FORMAT}\ngame={game}\nhistory={hist}\nmove_number={move_number}"


def _digest(head: str, s: np.ndarray) -> str:
    h = hashlib.blake2b(head.encode(), digest_size=8)
    h.update(np.ascontiguousarray(s, dtype="<i4").tobytes())
    return h.hexdigest()


@njit(cache=True)
def _history_ascii(players, actions, buf):
    """``"p:a,p:a,..."`` of int arrays as ASCII into ``buf``; returns its length."""
    k = 0
    digits = np.empty(20, np.uint8)
    for i in range(players.shape[0]):
        if i:
            buf[k] = 44                             # ','
            k += 1
        for j in range(2):
            v = players[i] if j == 0 else actions[i]
            if v < 0:
                buf[k] = 45                         # '-'
                k += 1
                v = -v
            m = 0
            while True:
                digits[m] = 48 + v % 10
                m += 1
                v //= 10
                if v == 0:
                    break
            for d in range(m - 1, -1, -1):
                buf[k] = digits[d]
                k += 1
            if j == 0:
                buf[k] = 58                         # ':'
                k += 1
    return k


_NO_DEALS = np.zeros((1, 1, E.K), np.int8)      # the deal table's type, for deal='cards'


@njit(cache=True)
def _replay_history(p, s, actions, deals, whole, players):
    """Apply ``actions`` to ``s`` (whole deals from ``deals`` when ``whole``);
    ``players[i]``: the player to move before action ``i``. Returns (index of
    the first action the rules reject, its engine error), or (-1, 0); the
    state is left as it was before that action."""
    for i in range(actions.shape[0]):
        a = actions[i]
        cur = E.current_player(p, s)
        players[i] = cur
        if whole and s[E.S_PHASE] == E.PH_DEAL:
            if a < 0 or a >= deals.shape[0]:
                return i, E.ERR_RANGE
            E.apply_whole_deal(p, s, deals[a])
            continue
        if a < 0 or a >= E.NUM_ACTIONS_WITH_MOON:
            return i, E.ERR_RANGE
        err = E.apply_action(p, s, a)
        if err:
            return i, err
    return -1, 0


def _attach_history(game: CancellationHeartsGame, players: np.ndarray,
                    actions: np.ndarray, s: np.ndarray) -> CancellationHeartsState:
    """A pyspiel state with history ``zip(players, actions)`` (int arrays) and
    engine state ``s``, made without replaying the history through pyspiel.

    Internal to this module (:meth:`CancellationHeartsState.from_history` and
    the deserializer, each after its own replay of the history): pyspiel sets a
    Python state's history only through its C++ parser of
    ``history=/move_number=/__dict__=``, whose last part it always unpickles.
    The only text it parses here is written from the integers, its
    ``__dict__`` part is the constant ``pickle.dumps({})`` of this module (no
    data), and ``s`` is attached after."""
    n = int(actions.shape[0])
    if n == 0:
        st = game.new_initial_state()
    else:
        buf = np.empty(n * 44 + 1, np.uint8)
        k = _history_ascii(players.astype(np.int64, copy=False),
                           actions.astype(np.int64, copy=False), buf)
        text = (f"history={buf[:k].tobytes().decode('ascii')}\nmove_number={n}"
                f"\n__dict__={_EMPTY_DICT}")
        st = pyspiel.Game.deserialize_state(game, text)
    object.__setattr__(st, "_b", _Box(s))
    return st



def _restore_state(params, history):
    game = pyspiel.load_game(GAME_NAME, params)
    st = game.new_initial_state()
    for a in history:
        st.apply_action(a)
    return st


def _deal_string(game: CancellationHeartsGame, action: int) -> str:
    if not 0 <= action < len(game._deals):
        return f"deal:{action}"
    d = game._deals[action]
    parts = [f"P{q}[{C.cards_to_string(d[q])}]" for q in range(game.rules.players)]
    if game.rules.kitty_size:
        parts.append(f"kitty[{C.cards_to_string(d[game.rules.players])}]")
    return f"deal:{action} " + " ".join(parts)


from ._render import install_repr_html  # noqa: E402  (render imports no adapter code)
install_repr_html(CancellationHeartsState)

pyspiel.register_game(GAME_TYPE, CancellationHeartsGame)
