"""Play against the agents: a browser app (:mod:`experiments.play.app`, Flask)
and a Jupyter widget (:mod:`experiments.play.widget`, ipywidgets).

``python -m experiments.play --help`` (or ``python -m experiments play``)
starts the browser app. The app's names are exported here; the widget, which
needs ipywidgets, is imported from :mod:`experiments.play.widget`.
"""

from .app import (DEFAULT_RECORDS, IDLE_SECONDS, MAX_BODY_BYTES, MAX_GAMES, PlayError,
                  PlaySession, check_settings, create_app, fresh_seed, main)

__all__ = ["DEFAULT_RECORDS", "PlayError", "PlaySession", "check_settings", "create_app", "main",
           "fresh_seed", "MAX_BODY_BYTES", "MAX_GAMES", "IDLE_SECONDS"]
