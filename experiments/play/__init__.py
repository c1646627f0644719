"""Play against the agents: a browser app (:mod:`experiments.play._app`, Flask)
and a Jupyter widget (:mod:`experiments.play.widget`, ipywidgets).

``python -m experiments.play --help`` (or ``python -m experiments play``)
starts the browser app. Both play the games of :mod:`experiments.play._session`
(the settings' checks and :class:`PlaySession`, one game each), seeded by
:mod:`experiments.play._seeds` (the server's key and each game's seed); the
app serves the page of :mod:`experiments.play._page`. The app's names are
exported here; the widget, which needs ipywidgets, is imported from
:mod:`experiments.play.widget`.
"""

from ._app import IDLE_SECONDS, MAX_BODY_BYTES, MAX_GAMES, create_app, main
from ._seeds import fresh_seed
from ._session import DEFAULT_RECORDS, PlayError, PlaySession, check_settings

__all__ = ["DEFAULT_RECORDS", "PlayError", "PlaySession", "check_settings", "create_app", "main",
           "fresh_seed", "MAX_BODY_BYTES", "MAX_GAMES", "IDLE_SECONDS"]
