"""Cancellation Hearts as an OpenSpiel game.

``import spiel_game`` registers ``python_cancellation_hearts`` with pyspiel::

    import pyspiel, spiel_game
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})

and changes nothing else in pyspiel. Read saved game-and-state strings with
:func:`deserialize_game_and_state` (never unpickles), not pyspiel's function
of that name (which unpickles the ``__dict__`` line of a Python game's state).
"""

from pathlib import Path as _Path

from .numba_cache import engine_sources as _engine_sources, guard as _guard

_guard(_Path(__file__).resolve().parent / "__pycache__", _engine_sources())

from . import cards  # noqa: E402
from .rules import (RuleSet, PARAMETER_DEFAULTS, PRESETS, preset,  # noqa: E402
                    GameParameterError)
from .game import (GAME_NAME, CancellationHeartsGame, CancellationHeartsState,  # noqa: E402
                   IllegalActionError, CorruptStateError)
from .serialization import serialize_game_and_state, deserialize_game_and_state  # noqa: E402

__all__ = ["cards", "RuleSet", "PARAMETER_DEFAULTS", "PRESETS", "preset",
           "GameParameterError", "GAME_NAME", "CancellationHeartsGame",
           "CancellationHeartsState", "IllegalActionError", "CorruptStateError",
           "serialize_game_and_state", "deserialize_game_and_state", "load"]


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
