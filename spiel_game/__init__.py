"""Cancellation Hearts as an OpenSpiel game.

``import spiel_game`` registers ``python_cancellation_hearts`` with pyspiel::

    import pyspiel, spiel_game
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})

and changes nothing else in pyspiel. Read saved game-and-state strings with
:func:`deserialize_game_and_state` (never unpickles), not pyspiel's function
of that name (which unpickles the ``__dict__`` line of a Python game's state).

The names of ``__all__`` are the documented API: :func:`load` and the rule
sets, the game and its states, the observers (the information-state and
observation tensors, :mod:`spiel_game.observers`), random playouts, positions
from given hands, resampling from an information state, the simulator and
the HTML and text renderings, and the pieces of a search over the hidden
cards: :class:`Determinizer` (worlds consistent with a player's information
state), :func:`seat_hands` (who holds what in a state or a world) and
:func:`make_rng_state` (the seeded random streams they draw from).
``observers``, ``simulate``, ``play_random``, ``cards_played``,
``state_from_hands``, ``Determinizer`` and ``make_rng_state`` are imported
when first used.
"""

from pathlib import Path as _Path

from ._numba_cache import engine_sources as _engine_sources, guard as _guard

_guard(_Path(__file__).resolve().parent / "__pycache__", _engine_sources())

from . import cards  # noqa: E402
from ._rules import (RuleSet, PARAMETER_DEFAULTS, PRESETS, preset,  # noqa: E402
                    GameParameterError)
from .game import (GAME_NAME, CancellationHeartsGame, CancellationHeartsState,  # noqa: E402
                   IllegalActionError, CorruptStateError)
from ._serialization import serialize_game_and_state, deserialize_game_and_state  # noqa: E402
from ._render import hand_replay_html, render_text_replay, state_to_html  # noqa: E402
from ._resample import resample_from_infostate  # noqa: E402

__all__ = ["cards", "RuleSet", "PARAMETER_DEFAULTS", "PRESETS", "preset",
           "GameParameterError", "GAME_NAME", "CancellationHeartsGame",
           "CancellationHeartsState", "IllegalActionError", "CorruptStateError",
           "serialize_game_and_state", "deserialize_game_and_state", "load",
           "observers", "play_random", "cards_played", "state_from_hands",
           "resample_from_infostate", "simulate", "state_to_html", "hand_replay_html",
           "render_text_replay", "Determinizer", "seat_hands", "make_rng_state",
           "register_policy", "POLICY_ENTRY_POINT_GROUP"]

#: The names imported when first used: name -> its module (None: the submodule
#: of that name).
_LAZY = {"observers": None, "play_random": "_playout", "cards_played": "_playout",
         "state_from_hands": "_scenarios", "simulate": "_simulator",
         "register_policy": "_simulator", "POLICY_ENTRY_POINT_GROUP": "_policy_plugins",
         "Determinizer": "_determinize", "make_rng_state": "_rng"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        if _LAZY[name] is None:
            return importlib.import_module(f".{name}", __name__)
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'spiel_game' has no attribute {name!r}")


def load(name_or_params=None, **overrides):
    """``load("classic")`` or ``load({"players": 7})`` or ``load(players=7)``.

    The parameters are checked (``RuleSet.from_params``) before they reach
    pyspiel, so every bad value, including ints that do not fit a C++ ``int``
    (which ``pyspiel.load_game`` turns into pybind's "Unable to cast Python
    instance" RuntimeError before any of this package's code runs), raises
    ``GameParameterError`` naming the parameter and what is allowed."""
    import pyspiel
    from collections.abc import Mapping
    if isinstance(name_or_params, str):
        params = preset(name_or_params)
    elif name_or_params is None or isinstance(name_or_params, Mapping):
        params = dict(name_or_params or {})
    else:
        raise GameParameterError(
            f"load() takes a preset name ({sorted(PRESETS)}) or a mapping of game "
            f"parameters, got {type(name_or_params).__name__}")
    params.update(overrides)
    RuleSet.from_params(params)
    # The given parameters only (pyspiel fills in the rest), numpy ints as ints.
    return pyspiel.load_game(GAME_NAME, {k: v if isinstance(v, str) else int(v)
                                         for k, v in params.items()})


def seat_hands(state, world=None):
    """The cards each seat holds: ``int64[num_players, cards.NUM_CARD_TYPES]``,
    row ``q`` the copies of each card id in seat ``q``'s hand.

    In ``state`` (a state of this game), or, given ``world``, in that engine
    state of the same game: a world a determinizer drew for a player of
    ``state`` (:meth:`Determinizer.sample`,
    :class:`solvers.beliefs.WeightedDeterminizer`), where the cards the player
    cannot see are filled in. ``seat_hands(state)`` is the truth, which the
    player does not see::

        det = spiel_game.Determinizer(state, player)
        world = det.sample(spiel_game.make_rng_state(seed, 0))
        spiel_game.seat_hands(state, world)[other, spiel_game.cards.QS]  # copies of QS"""
    import numpy as np

    from . import _engine as E
    params = np.asarray(state.engine_params)
    s = np.array(state.engine_state if world is None else world)
    size = int(params[E.L_STATE_SIZE])
    if s.ndim != 1 or s.shape[0] != size or s.dtype.kind not in "iu":
        raise ValueError(
            f"seat_hands: world must be an engine state of this game (int32[{size}], what "
            f"Determinizer.sample returns), got {s.dtype}{list(s.shape)}")
    s = s.astype(np.int32, copy=False)
    return np.stack([np.asarray(E.hand(params, s, q), np.int64)
                     for q in range(int(params[E.P_N]))])
