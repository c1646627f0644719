"""The agent catalog: the package's entry points are the one list of the built-ins,
read once per process; an agent's module is imported only when that agent is
built; every way to name an agent goes through one resolver."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import spiel_game
from solvers import _catalog as catalog, _registry as registry
from solvers._base.bots import HeuristicBot, RandomBot
from solvers._registry import make_agent

ROOT = Path(__file__).resolve().parents[2]


def _declared() -> dict[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return meta["project"]["entry-points"][catalog.ENTRY_POINT_GROUP]


@pytest.fixture
def scans(monkeypatch):
    """Counts the catalog's reads of the metadata: ``{"plug-ins": n, "built-ins": n}``."""
    counts = {"plug-ins": 0, "built-ins": 0}
    entry_points, distribution = importlib.metadata.entry_points, importlib.metadata.distribution

    def counting_entry_points(**kw):
        if kw.get("group") == catalog.ENTRY_POINT_GROUP:
            counts["plug-ins"] += 1
        return entry_points(**kw)

    def counting_distribution(name):
        if name == catalog.DISTRIBUTION:
            counts["built-ins"] += 1
        return distribution(name)

    monkeypatch.setattr(importlib.metadata, "entry_points", counting_entry_points)
    monkeypatch.setattr(importlib.metadata, "distribution", counting_distribution)
    registry.refresh()
    yield counts
    registry.refresh()


def test_the_entry_points_are_read_once_per_process(scans):
    game = spiel_game.load(players=6)
    for deal in range(3):
        for seat in range(6):
            make_agent("random", game, seat, deal)
            make_agent("heuristic", game, seat, deal)
    registry.effective_spec("ismcts")
    registry.factory("pimc")
    assert scans == {"plug-ins": 1, "built-ins": 1}
    registry.register("test_only_catalog", lambda g, p, s: RandomBot(g, p, s))
    try:
        assert scans == {"plug-ins": 1, "built-ins": 1}     # invalidated, not read yet
        assert isinstance(make_agent("test_only_catalog", game, 0), RandomBot)
        make_agent("heuristic", game, 1)
        assert scans == {"plug-ins": 2, "built-ins": 2}
    finally:
        registry.unregister("test_only_catalog")
    with pytest.raises(registry.AgentSpecError, match="unknown agent 'test_only_catalog'"):
        make_agent("test_only_catalog", game, 0)
    assert scans == {"plug-ins": 3, "built-ins": 3}


def test_the_builtins_are_the_declared_entry_points():
    declared = _declared()
    infos = {i.name: i for i in registry.agents()}
    assert {n for n, i in infos.items() if i.source == "built-in"} == set(declared)
    for name, target in declared.items():
        module, _, attr = target.partition(":")
        assert infos[name].factory == f"{module}.{attr}", name


def test_the_docs_table_lists_every_builtin():
    text = (ROOT / "docs" / "agents.md").read_text()
    table = text.split("## Built-in agents", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", "\n".join(
        line.split("|")[1] for line in table.splitlines() if line.startswith("| `"))))
    assert listed == set(_declared())


def test_only_the_requested_agents_module_is_imported():
    script = textwrap.dedent("""
        import json, sys
        import spiel_game
        from solvers._registry import make_agent
        game = spiel_game.load(players=6)
        seen = {}
        for spec in ("random", "ismcts(iterations=5)"):
            make_agent(spec, game, 0, 1)
            seen[spec] = sorted(m for m in sys.modules
                                if m.startswith("solvers") or m.split(".")[0] == "torch")
        print(json.dumps(seen))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, env=os.environ)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    others = {"solvers._ismcts", "solvers._pimc", "solvers._abr", "solvers.xinxin",
              "solvers._openspiel_bots", "solvers._openspiel_rl_play", "solvers.net._agents",
              "solvers._ismcts_net", "torch"}
    assert "solvers._base.bots" in seen["random"]
    assert not others & set(seen["random"]), others & set(seen["random"])
    assert "solvers._ismcts" in seen["ismcts(iterations=5)"]
    assert not (others - {"solvers._ismcts"}) & set(seen["ismcts(iterations=5)"])


def test_every_way_to_name_an_agent_goes_through_the_one_resolver(tmp_path, monkeypatch):
    (tmp_path / "my_bots.py").write_text(
        "from solvers._base.bots import HeuristicBot\n\n"
        "def make(game, player, seed, *, unused=0):\n"
        "    return HeuristicBot(game, player, seed)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []
    resolve = catalog.resolve

    def spy(spec):
        calls.append(spec)
        return resolve(spec)

    monkeypatch.setattr(registry, "resolve", spy)
    game = spiel_game.load(players=5)

    def factory(g, p, s):
        return HeuristicBot(g, p, s)

    ways = ["heuristic", "my_bots:make(unused=1)", f"{tmp_path / 'my_bots.py'}:make",
            "solvers._base.bots:HeuristicBot", factory]
    moves = set()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for way in ways:
        bot = make_agent(way, game, state.current_player(), 3)
        assert isinstance(bot, HeuristicBot)
        moves.add(bot.step(state))
    assert calls == ways and len(moves) == 1
    r = catalog.resolve("my_bots:make(unused=2)")
    assert r.factory.__name__ == "make" and r.kwargs == {"unused": 2}
    assert catalog.resolve(factory).factory is factory and catalog.resolve(factory).spec is None
    with pytest.raises(registry.AgentSpecError, match="has no parameter 'depth'"):
        catalog.resolve("my_bots:make(depth=1)")


def test_a_builtin_that_cannot_be_loaded_says_to_reinstall(monkeypatch):
    """An install older than the code (its entry points naming what moved) is named as such."""
    stale = importlib.metadata.EntryPoint("network", "solvers._registry:network",
                                          catalog.ENTRY_POINT_GROUP)
    monkeypatch.setattr(catalog, "_builtin_points", lambda: [stale])
    registry.refresh()
    try:
        with pytest.raises(RuntimeError, match=r"built-in agent 'network' = 'solvers._registry:"
                                               r"network' cannot be loaded \(AttributeError: .*"
                                               r"reinstall it \(pip install -e \.\)"):
            make_agent("network", spiel_game.load(players=5), 0)
    finally:
        monkeypatch.undo()
        registry.refresh()
    assert make_agent("network", spiel_game.load(players=5), 0).__class__.__name__ == "NetworkBot"
