"""The pyspiel adapter: GameType, GameInfo, Game, State and registration.

This module only translates between OpenSpiel's API and the compiled rules in
:mod:`spiel_game.engine`; it holds no rules of its own.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel

from . import cards as C
from . import engine as E
from .rules import PARAMETER_DEFAULTS, RuleSet, GameParameterError

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
    E.ERR_NOT_DEALT: "R4: {card} is not left in the undealt pack",
    E.ERR_NOT_IN_HAND: "R7: {card} is not in player {p}'s hand",
    E.ERR_FOLLOW: "R7: player {p} holds {suit} and must follow the suit led",
    E.ERR_OPENING: "R6 B: the first trick must be opened with {opening}",
    E.ERR_FIRST_LEAD: "R6 A: the first lead may not be a heart or the Black Maria "
                      "while the hand holds another card",
    E.ERR_HEARTS: "R9: hearts are not broken; QS or a non-heart must be led",
    E.ERR_FIRST_TRICK_POINTS: "classic: no points (hearts, QS) on the first trick "
                              "while the hand holds another card",
    E.ERR_MOON: "R10: the shooter must choose moon:subtract (53) or moon:add (54), not {a}",
}


class CancellationHeartsGame(pyspiel.Game):
    """Cancellation Hearts (RULES.md R1-R11) for any parameters of :class:`RuleSet`."""

    def __init__(self, params: dict[str, Any] | None = None):
        rules = RuleSet.from_params(params or {})
        self.rules = rules
        self._P = E.make_params(rules)
        self._deals = self._deal_probs = None
        if rules.deal == "whole":
            from .deals import enumerate_deals
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
        elif (rules.moon == "off" or rules.total_points == 0) and \
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

    def new_initial_state(self) -> "CancellationHeartsState":
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
    def state_from_actions(self, actions) -> "CancellationHeartsState":
        """A state reached by applying ``actions`` (ints or card strings) from the start."""
        st = self.new_initial_state()
        for a in actions:
            st.apply_action(st.string_to_action(a) if isinstance(a, str) else int(a))
        return st

    def __reduce__(self):
        return (pyspiel.load_game, (GAME_NAME, dict(self.rules.params)))

    def deserialize_state(self, text: str) -> "CancellationHeartsState":
        """pyspiel's ``deserialize_state`` with errors that say what is wrong.

        Checks the three sections (``history=``, ``move_number=``, ``__dict__=``),
        decodes and validates the engine state, and checks that replaying the
        history reproduces it; raises :class:`CorruptStateError` otherwise.
        """
        if not isinstance(text, str):
            raise CorruptStateError(f"a serialized state is a str, got {type(text).__name__}")
        parts = text.split("\n", 2)
        tags = ("history=", "move_number=", "__dict__=")
        if len(parts) != 3 or not all(pt.startswith(t) for pt, t in zip(parts, tags)):
            raise CorruptStateError(
                "corrupted serialized state: expected three lines 'history=...', "
                "'move_number=...', '__dict__=...' (from state.serialize())")
        try:
            hist = [tuple(int(x) for x in item.split(":"))
                    for item in parts[0][len(tags[0]):].split(",") if item]
            if any(len(h) != 2 for h in hist):
                raise ValueError
            int(parts[1][len(tags[1]):])
        except ValueError:
            raise CorruptStateError(
                "corrupted serialized state: the history must be 'player:action' pairs "
                "separated by commas and the move number an integer") from None
        import base64, binascii, pickle
        try:
            d = pickle.loads(base64.b64decode(parts[2][len(tags[2]):], validate=True))
        except (binascii.Error, ValueError, pickle.UnpicklingError, EOFError,
                AttributeError, TypeError, IndexError) as e:
            raise CorruptStateError(
                f"corrupted serialized state: the state payload does not decode "
                f"({type(e).__name__}: {e})") from None
        if not isinstance(d, dict) or set(d) != {"_b"}:
            raise CorruptStateError(
                "corrupted serialized state: the payload must hold exactly the engine "
                f"state '_b', got {sorted(d) if isinstance(d, dict) else type(d).__name__}")
        value = _checked_state(self._P, getattr(d["_b"], "a", d["_b"]))
        replay = self.new_initial_state()
        try:
            for _, a in hist:
                replay.apply_action(a)
        except (IllegalActionError, pyspiel.SpielError) as e:
            raise CorruptStateError(
                f"corrupted serialized state: its history is not a legal game ({e})") from None
        if not np.array_equal(replay._b.a, value):
            raise CorruptStateError(
                "corrupted serialized state: the engine state does not match the history")
        return super().deserialize_state(text)


class CancellationHeartsState(pyspiel.State):
    """A state of Cancellation Hearts: one int32 vector ``_s`` (see engine)."""

    _game: CancellationHeartsGame
    _P: np.ndarray

    def __init__(self, game: CancellationHeartsGame):
        super().__init__(game)
        object.__setattr__(self, "_b", _Box(game._S0.copy()))

    # pyspiel clones a Python state by deep-copying its ``__dict__`` (``{"_b": box}``)
    # and deserializes it by unpickling that dict. A box that comes out of
    # ``deepcopy`` is trusted; one that comes out of ``pickle`` is an
    # ``_UntrustedBox`` and is checked by ``engine.validate`` before use.
    def __setattr__(self, name, value):
        if name == "_b":
            if type(value) is not _Box:
                value = _Box(_checked_state(self._P, getattr(value, "a", value)))
        elif not name.startswith("__"):
            raise CorruptStateError(
                f"a Cancellation Hearts state has no attribute {name!r}; "
                f"its only attribute is '_b' (the engine state vector)")
        object.__setattr__(self, name, value)

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
                    f"R4: deal outcome {action} does not exist; allowed 0.."
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
            suit = "CDHS"[int(E._led_suit(self._P, self._s))]
        opening = C.card_to_string(int(self._P[E.P_OPENING])) if self._P[E.P_OPENING] >= 0 else ""
        text = _ERR_TEXT.get(err, "illegal action {a}")
        if err == E.ERR_NOT_IN_HAND and self._b.a[E.S_PHASE] == E.PH_PASS:
            text = "R5: {card} is not in player {p}'s hand to pass"
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

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "CancellationHeartsState":
        """A state ``player_id`` cannot tell from this one, hidden cards drawn
        uniformly (see :mod:`spiel_game.resample`). ``probability_sampler``: a
        numpy Generator, a seed, or OpenSpiel's ``UniformProbabilitySampler``."""
        from .resample import resample_from_infostate
        return resample_from_infostate(self, player_id, probability_sampler)

    # -------------------------------------------------------------- views
    def __str__(self) -> str:
        from .render import state_to_text
        return state_to_text(self)

    def __reduce__(self):
        return (_restore_state, (dict(self._game.rules.params), self.history()))

    # Engine-level access for solvers (documented kernel API).
    @property
    def engine_state(self) -> np.ndarray:
        """A read-only view of the engine state vector (see spiel_game.engine)."""
        v = self._b.a.view()
        v.setflags(write=False)
        return v

    @property
    def engine_params(self) -> np.ndarray:
        return self._P


class _Box:
    """Holds the engine state vector; ``deepcopy`` copies it (trusted), while
    ``pickle`` turns it into an :class:`_UntrustedBox` that is validated on load."""

    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def __deepcopy__(self, memo):
        return _Box(self.a.copy())

    def __reduce__(self):
        return (_UntrustedBox, (self.a,))


class _UntrustedBox:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


def _checked_state(P: np.ndarray, value) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype != np.int32 or value.ndim != 1:
        raise CorruptStateError(
            f"corrupted state: '_s' must be a 1-D int32 numpy array, got "
            f"{type(value).__name__} {getattr(value, 'dtype', '')}")
    if value.shape[0] != P[E.L_STATE_SIZE]:
        raise CorruptStateError(
            f"corrupted state: '_s' has {value.shape[0]} entries, this game's states "
            f"have {int(P[E.L_STATE_SIZE])} (a state of another game's parameters?)")
    code = E.validate(P, value)
    if code:
        raise CorruptStateError(
            f"corrupted state: consistency check {code} failed "
            f"(see spiel_game.engine.validate)")
    return value


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


from .render import install_repr_html  # noqa: E402  (render imports no adapter code)
install_repr_html(CancellationHeartsState)

pyspiel.register_game(GAME_TYPE, CancellationHeartsGame)
