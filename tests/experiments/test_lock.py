"""requirements.lock, the locked environment ``make venv`` installs, agrees with
pyproject.toml: every requirement of the package and of its extras ``dev`` and
``all`` is pinned there at a version its specifier allows, nothing is pinned
that no requirement needs, and the running environment is the locked one."""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

LOCK = ROOT / "requirements.lock"
PROJECT = "cancellation-hearts"
#: The extras the lock covers (``bench`` is outside ``all`` and outside the lock).
LOCKED_EXTRAS = ("dev", "all")


def read_lock(text: str) -> dict[str, str]:
    """``{canonical name: version}`` of a lock file's ``name==version`` lines."""
    pins = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        assert m, f"requirements.lock line {n} is not 'name==version': {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"requirements.lock pins {name} twice"
        pins[name] = m.group(2)
    return pins


def direct_requirements(pyproject: dict) -> list[Requirement]:
    """The package's dependencies and those of the locked extras, self-references
    (``cancellation-hearts[docs]``) expanded."""
    project = pyproject["project"]
    extras = project["optional-dependencies"]
    out = [Requirement(r) for r in project["dependencies"]]
    todo, seen = list(LOCKED_EXTRAS), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for r in map(Requirement, extras[extra]):
            if canonicalize_name(r.name) == PROJECT:
                todo += sorted(r.extras)
            else:
                out.append(r)
    return out


def _applies(req: Requirement, extra: str = "") -> bool:
    env = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.0",
           "sys_platform": "linux", "platform_system": "Linux", "extra": extra}
    return req.marker is None or req.marker.evaluate(env)


def closure(reqs: list[Requirement]) -> set[str]:
    """Every distribution ``reqs`` need, transitively, by the installed metadata."""
    need, todo = set(), [(r, "") for r in reqs]
    while todo:
        req, extra = todo.pop()
        if not _applies(req, extra):
            continue
        name = canonicalize_name(req.name)
        wanted_extras = sorted(req.extras)
        key = (name, tuple(wanted_extras))
        if key in need:
            continue
        need.add(key)
        for dep in md.requires(name) or []:
            dep = Requirement(dep)
            for e in [""] + wanted_extras:
                if _applies(dep, e):
                    todo.append((dep, e))
                    break
    return {n for n, _ in need}


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PINS = read_lock(LOCK.read_text())


def test_every_requirement_is_pinned_at_an_allowed_version():
    bad = []
    for req in direct_requirements(PYPROJECT):
        if not _applies(req):
            continue
        name = canonicalize_name(req.name)
        if name not in PINS:
            bad.append(f"{req} is not in requirements.lock")
        elif not req.specifier.contains(PINS[name], prereleases=True):
            bad.append(f"{req}: the lock pins {PINS[name]}")
    assert not bad, "pyproject.toml and requirements.lock disagree (make lock):\n" + \
        "\n".join(bad)


def test_the_lock_pins_exactly_what_the_requirements_need():
    need = closure(direct_requirements(PYPROJECT))
    # build tools pip keeps in every environment the lock records
    need |= {"setuptools", "wheel"}
    extra = sorted(set(PINS) - need)
    missing = sorted(need - set(PINS))
    assert not extra, f"requirements.lock pins what nothing requires (make lock): {extra}"
    assert not missing, f"requirements.lock lacks required distributions (make lock): {missing}"


def test_the_running_environment_is_the_locked_one():
    """What make venv installed: every pinned distribution at its pinned version
    (torch's local label, ``+cpu``, aside)."""
    wrong = []
    for name, version in PINS.items():
        try:
            have = md.version(name)
        except md.PackageNotFoundError:
            wrong.append(f"{name}: not installed (lock {version})")
            continue
        if have.split("+")[0] != version:
            wrong.append(f"{name}: installed {have}, lock {version}")
    assert not wrong, "the environment is not the locked one (make venv):\n" + "\n".join(wrong)


def test_the_lock_check_fails_on_a_disagreement():
    """The checks above can fail: a pin outside a specifier and a missing pin."""
    text = LOCK.read_text()
    numpy = PINS["numpy"]
    assert read_lock(text.replace(f"numpy=={numpy}", "numpy==1.0.0"))["numpy"] == "1.0.0"
    req = next(r for r in direct_requirements(PYPROJECT) if canonicalize_name(r.name) == "numpy")
    assert not req.specifier.contains("1.0.0")
    with pytest.raises(AssertionError, match="not 'name==version'"):
        read_lock("numpy>=1\n")
