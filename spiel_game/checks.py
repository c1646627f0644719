"""Helpers every layer's argument checks share (nothing here imports the game).

* ``shorten(value, limit)``: a value cut short for an error message, so a
  huge value is never echoed in full.
"""

from __future__ import annotations

__all__ = ["shorten"]


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
