"""Optional dependencies: one-line messages naming the extra that installs them.

The package's optional features come with extras of the distribution
``cancellation-hearts`` (``pyproject.toml``): ``torch`` (the neural agents),
``play`` (the browser app, Flask), ``distributed`` (the Ray backend),
``pettingzoo`` (the RL environments), ``paper`` and ``notebooks``
(matplotlib, ipywidgets). :func:`require` imports a module of one and, when it
is missing, raises :class:`MissingExtra`, an ``ImportError`` whose one-line
message names the feature, the missing module and the command that installs
it, for a wheel (``pip install 'cancellation-hearts[torch]'``) and for a
source checkout (``make venv``). The command lines print it as
``error: ...`` (exit status 2), not as a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingExtra", "require", "install_hint", "DISTRIBUTION"]

#: The distribution users install (``pip install cancellation-hearts``).
DISTRIBUTION = "cancellation-hearts"


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names its extra."""

    def __init__(self, message: str, extra: str):
        super().__init__(message)
        self.extra = extra

    def __str__(self) -> str:
        return self.args[0]


def install_hint(extra: str) -> str:
    """The commands that install ``extra``: from the wheel, and in a source checkout."""
    return (f"pip install '{DISTRIBUTION}[{extra}]' (in a source checkout: make venv, "
            f"which installs every extra)")


def require(module: str, extra: str, feature: str) -> ModuleType:
    """``import module``; if it (or one of its own imports) is missing, raise
    :class:`MissingExtra`: "``feature`` needs ``module``, which is not installed:
    pip install 'cancellation-hearts[extra]' ..."."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = getattr(err, "name", None) or module
        raise MissingExtra(f"{feature} needs {missing}, which is not installed (extra "
                           f"'{extra}'): {install_hint(extra)}", extra) from None
