"""Cancellation Hearts as an OpenSpiel game.

``import spiel_game`` registers ``python_cancellation_hearts`` with pyspiel::

    import pyspiel, spiel_game
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})
"""

from . import cards
from .rules import RuleSet, PARAMETER_DEFAULTS, PRESETS, preset, GameParameterError
from .game import (GAME_NAME, CancellationHeartsGame, CancellationHeartsState,
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
