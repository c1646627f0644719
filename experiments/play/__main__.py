"""``python -m experiments.play``: the browser play app (:func:`experiments.play.app.main`)."""

from .app import main

raise SystemExit(main())
