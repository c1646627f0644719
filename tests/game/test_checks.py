"""spiel_game._checks: ``shorten``, the one helper every layer's error messages cut
long values with, and the seed and bool checks the configs, the agents and the
simulator share; each form checked against its exact text."""

import numpy as np
import pytest

from spiel_game._checks import check_bool, check_seed, shorten


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


class _Refused(ValueError):
    pass


@pytest.mark.parametrize("seed", [0, 5, 2**63 - 1, np.uint64(7), np.int64(2**62)])
def test_seeds_in_range_come_back_as_ints(seed):
    out = check_seed(seed)
    assert type(out) is int and out == int(seed)


def test_a_bad_seed_names_the_agent_the_field_and_the_range():
    with pytest.raises(_Refused) as e:
        check_seed(-1, "ismcts", error=_Refused)
    assert str(e.value) == "ismcts: seed=-1 is out of range; allowed: an int in [0, 2**63)"
    with pytest.raises(ValueError) as e:
        check_seed(2**32, where="DemoConfig.seed", bits=32)
    assert str(e.value) == ("DemoConfig.seed=4294967296 is out of range; allowed: an int in "
                            "[0, 2**32)")
    for bad, kind in ((True, "bool"), (np.bool_(False), "bool"), (1.0, "float"), ("3", "str")):
        with pytest.raises(ValueError) as e:
            check_seed(bad)
        assert str(e.value) == (f"seed={bad!r} is a {kind}, not an int; allowed: an int in "
                                f"[0, 2**63)")


def test_a_huge_seed_is_cut_in_the_message():
    with pytest.raises(ValueError) as e:
        check_seed(10**400)
    assert "... (401 characters) is out of range" in str(e.value) and len(str(e.value)) < 300


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_bools_come_back_as_bools(value):
    out = check_bool("record", value)
    assert type(out) is bool and out == bool(value)


def test_a_bad_bool_names_the_agent_and_the_parameter():
    with pytest.raises(TypeError) as e:
        check_bool("record", 1)
    assert str(e.value) == "record=1 is not allowed; allowed: True or False"
    with pytest.raises(_Refused) as e:
        check_bool("persist", "yes", "ismcts", error=_Refused)
    assert str(e.value) == "ismcts: persist='yes' is not allowed; allowed: True or False"
