"""The agent registry: spec parsing, clear errors, built-ins, and plug-ins
discovered through the ``cancellation_hearts.agents`` entry-point group."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers import _catalog as catalog, _registry as registry
from solvers._registry import AgentSpec, AgentSpecError, make_agent, parse_spec

EXAMPLE = Path(__file__).resolve().parents[1] / "example_agent_pkg"


def test_parse_spec_names_and_literal_keywords():
    assert parse_spec("heuristic") == AgentSpec("heuristic")
    s = parse_spec(" ismcts(iterations=2000, uct_c=2.0, rollout='heuristic', time_limit=None) ")
    assert s.name == "ismcts"
    assert s.kwargs == {"iterations": 2000, "uct_c": 2.0, "rollout": "heuristic",
                        "time_limit": None}
    assert str(s) == "ismcts(iterations=2000, uct_c=2.0, rollout='heuristic', time_limit=None)"
    assert parse_spec(str(s)) == s
    assert parse_spec("acme.greedy(depth=-3, weights=(1, 2.5), on=True)").kwargs == {
        "depth": -3, "weights": (1, 2.5), "on": True}
    assert parse_spec(s) is s


@pytest.mark.parametrize("spec, message", [
    ("", "empty agent spec"),
    ("ismcts(iterations=)", "is not valid"),
    ("ismcts(2000)", "positional argument 2000 is not allowed; parameters are keyword-only, "
                     "e.g. ismcts\\(iterations=2000\\)"),
    ("ismcts(rollout=heuristic)", "did you mean the string 'heuristic'"),
    ("ismcts(iterations=10**9)", "must be a Python literal"),
    ("ismcts(iterations=__import__('os').getpid())", "must be a Python literal"),
    ("ismcts(**{'iterations': 3})", "'\\*\\*' is not allowed"),
    ("ismcts(iterations=1, iterations=2)", "parameter 'iterations' is given twice"),
    ("3 + 4", "expected name or name\\(key=value, ...\\)"),
    ("ismcts()(iterations=1)", "must be an identifier"),
])
def test_parse_errors_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_spec(spec)


def test_unknown_agents_and_parameters_are_named_with_suggestions():
    game = spiel_game.load(players=6)
    with pytest.raises(AgentSpecError, match="unknown agent 'ismtcs' \\(did you mean 'ismcts'\\?\\)"
                                             ".*known agents: .*heuristic"):
        make_agent("ismtcs", game, 0)
    with pytest.raises(AgentSpecError, match="agent 'ismcts' has no parameter 'iteration' "
                                             "\\(did you mean 'iterations'\\?\\); its parameters: "
                                             "iterations, time_limit, uct_c"):
        make_agent("ismcts(iteration=5)", game, 0)
    with pytest.raises(AgentSpecError, match="'random' has no parameter 'x'; its parameters: none"):
        make_agent("random(x=1)", game, 0)
    with pytest.raises(AgentSpecError, match="ismcts\\(iterations=-1\\).*iterations=-1 is out "
                                             "of range; allowed: an int in \\[1, 1000000000\\]"):
        make_agent("ismcts(iterations=-1)", game, 0)
    with pytest.raises(AgentSpecError, match="final_policy"):
        make_agent("openspiel_ismcts(final_policy='best')", game, 0)


def _declared_entry_points() -> dict[str, str]:
    import tomllib
    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    return meta["project"]["entry-points"][registry.ENTRY_POINT_GROUP]


def test_the_installed_entry_points_are_the_declared_builtins():
    """The built-ins are what pyproject.toml declares; the catalog reads the
    installed metadata, so an install older than pyproject.toml is caught here."""
    import importlib.metadata
    declared = _declared_entry_points()
    dist = importlib.metadata.distribution(catalog.DISTRIBUTION)
    installed = {ep.name: ep.value for ep in dist.entry_points
                 if ep.group == registry.ENTRY_POINT_GROUP}
    assert installed == declared, (
        f"the installed metadata of {catalog.DISTRIBUTION} differs from pyproject.toml's "
        f"[project.entry-points.\"{registry.ENTRY_POINT_GROUP}\"]: reinstall it "
        f"(pip install -e .)")
    builtins = {i.name for i in registry.agents() if i.source == "built-in"}
    assert builtins == set(declared) and "ismcts_bias" in declared


def test_every_builtin_loads_through_its_entry_point():
    """Each declared entry point, loaded as an installed package's would be, is
    the factory the registry uses for that name."""
    from importlib.metadata import EntryPoint
    fs = registry.factories()
    for name, value in _declared_entry_points().items():
        factory = EntryPoint(name, value, registry.ENTRY_POINT_GROUP).load()
        assert callable(factory) and fs[name] is factory, name


def test_builtins_build_pyspiel_bots():
    game = spiel_game.load(players=6)
    names = registry.factories()
    for name in ("random", "heuristic", "pimc", "ismcts", "openspiel_ismcts", "openspiel_uniform"):
        assert name in names
        bot = make_agent(name, game, 2, seed=1)
        assert isinstance(bot, pyspiel.Bot)
    assert "iterations=1000" in registry.describe("ismcts")
    # A plain factory is accepted as it is (OpenSpiel's bots, unchanged).
    from open_spiel.python.bots.uniform_random import UniformRandomBot
    bot = make_agent(lambda g, p, s: UniformRandomBot(p, np.random.RandomState(s)), game, 0, 3)
    assert isinstance(bot, pyspiel.Bot)
    with pytest.raises(registry.AgentFactoryError, match="not a pyspiel.Bot"):
        make_agent(lambda g, p, s: object(), game, 0)


def test_register_in_process():
    game = spiel_game.load(players=5)
    from solvers._base.bots import RandomBot
    registry.register("test_only_random", lambda g, p, s, **kw: RandomBot(g, p, s))
    try:
        assert isinstance(make_agent("test_only_random(anything=1)", game, 0), RandomBot)
        with pytest.raises(AgentSpecError, match="exists"):
            registry.register("test_only_random", RandomBot)
        with pytest.raises(AgentSpecError, match="exists"):
            registry.register("heuristic", RandomBot)
    finally:
        registry.unregister("test_only_random")


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory):
    """pip-install tests/example_agent_pkg (no deps) into a temporary target on sys.path."""
    tmp = tmp_path_factory.mktemp("plugin")
    src = tmp / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                "__pycache__"))
    target = tmp / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input",
           "--disable-pip-version-check", "--target", str(target), str(src)]
    if importlib.util.find_spec("wheel") and importlib.util.find_spec("setuptools"):
        cmd.insert(4, "--no-build-isolation")       # quick, offline (make test installs both)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    registry.refresh()                  # the entry points are read once per process
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        sys.modules.pop("ch_example_agents", None)
        importlib.invalidate_caches()
        registry.refresh()


def test_plugin_package_is_discovered_through_its_entry_point(installed_example):
    assert (installed_example / "ch_example_agents" / "__init__.py").exists()
    assert "lowest" in registry.factories()
    game = spiel_game.load(players=6)
    bots = [make_agent("lowest(prefer_suit='S')" if q % 2 else "heuristic", game, q, seed=q)
            for q in range(6)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert len(returns) == 6
    with pytest.raises(AgentSpecError, match="prefer_suit"):
        make_agent("lowest(prefer_suit='X')", game, 0)
    with pytest.raises(AgentSpecError, match="has no parameter 'depth'"):
        make_agent("lowest(depth=2)", game, 0)


def test_plugin_agents_play_in_tournaments(installed_example, tmp_path):
    from experiments.tournament import TournamentConfig, run_tournament
    cfg = TournamentConfig(agents=("lowest", "random"), game={"players": 5}, deals=2, seed=1)
    res = run_tournament(cfg, tmp_path / "t", progress=False)
    assert res.summary["deals"] == 2
    assert [a["agent"] for a in res.summary["agents"]] == ["lowest", "random"]
