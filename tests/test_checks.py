"""spiel_game.checks.shorten: the one helper every layer's error messages cut
long values with; each form checked against its exact text."""

import pytest

from spiel_game.checks import shorten


def test_short_values_are_whole():
    assert shorten("abc") == "'abc'"
    assert shorten([1, 2], 6) == "[1, 2]"
    assert shorten("abc", quote=False) == "abc"
    assert shorten("abc", 3, head=True) == "'abc'"
    assert shorten("abc", 3, quote=False, head=True) == "abc"


def test_a_long_repr_names_its_length():
    v = "x" * 5000
    out = shorten(v, 120)
    assert out == "'" + "x" * 89 + "... (5,002 characters)"
    assert len(out) <= 120


@pytest.mark.parametrize("quote", [True, False])
def test_count_false_keeps_exactly_limit_characters(quote):
    v = "y" * 100
    out = shorten(v, 60, quote=quote, count=False)
    assert len(out) == 60 and out.endswith("...")
    assert out == (repr(v) if quote else v)[:57] + "..."


def test_head_quotes_the_excerpt():
    v = "ab'c" * 20
    assert shorten(v, 10, head=True) == repr(v[:10]) + "... (80 characters)"
    assert shorten(v, 10, head=True, quote=False) == v[:10] + "... (80 characters)"
    assert shorten(v, 10, head=True, count=False) == repr(v[:10]) + "..."
