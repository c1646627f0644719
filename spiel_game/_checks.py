"""Helpers every layer's argument checks share (nothing here imports the game).

* ``shorten(value, limit)``: a value cut short for an error message, so a
  huge value is never echoed in full.
* ``check_seed(seed, agent)``: a seed ``0 <= seed < 2**bits`` as an int.
* ``check_bool(name, value)``: ``True`` or ``False`` (numpy's too) as a bool.

Each check raises the exception class its caller passes (``error=``): the
configs raise ``ConfigError``, the agents ``AgentParameterError``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["shorten", "check_seed", "check_bool"]


def shorten(value, limit: int = 120, *, quote: bool = True, count: bool = True,
            head: bool = False) -> str:
    """``repr(value)`` (with ``quote=False``: ``value`` itself, a str) cut to about
    ``limit`` characters for an error message.

    A cut text ends ``... (N characters)``, N being the full length with
    thousands separators, and is then ``limit`` characters plus N's digits at
    most; with ``count=False`` it ends ``...`` and has exactly ``limit``
    characters. ``head=True`` keeps the first ``limit`` characters of the str
    ``value`` instead and quotes those (so a quoted excerpt stays a well-formed
    literal), followed by ``... (N characters)`` (or ``...``), N counting the
    characters of ``value``.
    """
    tail = (lambda n: f"... ({n:,} characters)") if count else (lambda n: "...")
    if head:
        if len(value) <= limit:
            return repr(value) if quote else value
        cut = value[:limit]
        return (repr(cut) if quote else cut) + tail(len(value))
    text = repr(value) if quote else value
    if len(text) <= limit:
        return text
    return text[:limit - (30 if count else 3)] + tail(len(text))


def _prefix(agent: str | None) -> str:
    return f"{agent}: " if agent else ""


def check_seed(seed, agent: str | None = None, *, where: str = "seed", bits: int = 63,
               error: type[Exception] = ValueError) -> int:
    """``seed`` as an int if it is an integer (a numpy one too, not a bool) with
    ``0 <= seed < 2**bits``; else ``error``
    ``"AGENT: WHERE=VALUE is out of range; allowed: an int in [0, 2**BITS)"``
    (``is a str, not an int`` for a value of another type; ``AGENT: `` only with
    ``agent``; ``where`` names the field, default ``seed``)."""
    is_int = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
    if is_int and 0 <= int(seed) < 2**bits:
        return int(seed)
    what = "out of range" if is_int else f"a {type(seed).__name__}, not an int"
    raise error(f"{_prefix(agent)}{where}={shorten(seed, 200)} is {what}; allowed: an int "
                f"in [0, 2**{bits})")


def check_bool(name: str, value, agent: str | None = None, *,
               error: type[Exception] = TypeError) -> bool:
    """``value`` as a bool if it is ``True`` or ``False`` (a numpy bool too); else
    ``error`` ``"AGENT: NAME=VALUE is not allowed; allowed: True or False"``
    (``AGENT: `` only with ``agent``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{_prefix(agent)}{name}={shorten(value)} is not allowed; allowed: True "
                    f"or False")
    return bool(value)
