"""Cancellation Hearts as an OpenSpiel game.

``import spiel_game`` registers ``python_cancellation_hearts`` with pyspiel::

    import pyspiel, spiel_game
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})
"""

from pathlib import Path as _Path

from .numba_cache import engine_sources as _engine_sources, guard as _guard

_guard(_Path(__file__).resolve().parent / "__pycache__", _engine_sources())

from . import cards  # noqa: E402
from .rules import (RuleSet, PARAMETER_DEFAULTS, PRESETS, preset,  # noqa: E402
                    GameParameterError)
from .game import (GAME_NAME, CancellationHeartsGame, CancellationHeartsState,  # noqa: E402
                   IllegalActionError, CorruptStateError)

__all__ = ["cards", "RuleSet", "PARAMETER_DEFAULTS", "PRESETS", "preset",
           "GameParameterError", "GAME_NAME", "CancellationHeartsGame",
           "CancellationHeartsState", "IllegalActionError", "CorruptStateError",
           "load"]


def load(name_or_params=None, **overrides):
    """``load("classic")`` or ``load({"players": 7})`` or ``load(players=7)``."""
    import pyspiel
    if isinstance(name_or_params, str):
        params = preset(name_or_params)
    else:
        params = dict(name_or_params or {})
    params.update(overrides)
    return pyspiel.load_game(GAME_NAME, params)
