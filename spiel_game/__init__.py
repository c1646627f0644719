"""Cancellation Hearts as an OpenSpiel game.

``import spiel_game`` registers ``python_cancellation_hearts`` with pyspiel::

    import pyspiel, spiel_game
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})
"""

import hashlib as _hashlib
from pathlib import Path as _Path


def _numba_cache_guard() -> None:
    """numba's on-disk cache does not notice edits to *called* functions in
    other modules, so a stale kernel could run old rules. Drop the cache when
    any source file of this package changed since it was written."""
    here = _Path(__file__).resolve().parent
    digest = _hashlib.sha256()
    for f in sorted(here.glob("*.py")):
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    stamp = here / "__pycache__" / "numba_sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        stamp.parent.mkdir(exist_ok=True)
        for f in list(stamp.parent.glob("*.nbi")) + list(stamp.parent.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass


_numba_cache_guard()

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
