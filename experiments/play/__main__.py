"""``python -m experiments.play``: the browser play app (:func:`experiments.play._app.main`)."""

from ._app import main

raise SystemExit(main())
