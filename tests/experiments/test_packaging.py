"""Packaging conventions of pyproject.toml: one extra per use, ``all`` = every user extra,
the supported Python versions stated consistently."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS = PROJECT["optional-dependencies"]
USES = ("notebooks", "paper", "distributed", "torch", "pettingzoo", "play")
#: Extras outside ``all``: ``dev`` (tests, lint), ``docs`` (the documentation site; ``dev``
#: includes it) and ``bench`` (benchmark anchors that compile C++ or pull in large stacks,
#: e.g. liteefg; ``make test`` must not build them).
OUTSIDE_ALL = ("dev", "docs", "bench")


def test_one_extra_per_use():
    assert set(EXTRAS) == {"all", *OUTSIDE_ALL, *USES}, sorted(EXTRAS)
    for name in USES:
        assert EXTRAS[name], f"extra {name!r} is empty"


def test_all_is_every_user_extra_but_dev():
    (req,) = EXTRAS["all"]
    m = re.fullmatch(r"(?P<name>[A-Za-z0-9_.-]+)\[(?P<extras>[a-z,]+)\]", req)
    assert m, f"extra 'all' should be one self-reference, got {req!r}"
    assert m["name"] == PROJECT["name"]
    assert sorted(m["extras"].split(",")) == sorted(USES)


def test_requires_python_matches_the_classifiers():
    versions = sorted(c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"]
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions, "no 'Programming Language :: Python :: 3.x' classifiers"
    m = re.fullmatch(r">=3\.(\d+),<3\.(\d+)", PROJECT["requires-python"].replace(" ", ""))
    assert m, PROJECT["requires-python"]
    assert versions == [f"3.{v}" for v in range(int(m[1]), int(m[2]))]


def test_dev_includes_the_documentation_tools():
    """``make test`` installs ``dev``, and tests/test_docs.py builds the site."""
    assert f"{PROJECT['name']}[docs]" in EXTRAS["dev"]
    assert {re.match(r"[A-Za-z0-9_.-]+", r)[0] for r in EXTRAS["docs"]} >= {"sphinx",
                                                                            "myst-parser"}
