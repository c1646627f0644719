"""Simulator policies from installed packages: ``simulate`` finds the heuristic
and the passing conventions through the ``cancellation_hearts.policies``
entry-point group without the caller importing ``solvers``, and a package's
module in that group is imported once, with a clear error when it fails."""
import importlib.metadata
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from spiel_game import _simulator as sim


def test_simulate_finds_the_heuristic_without_importing_solvers():
    code = textwrap.dedent("""
        import sys
        from spiel_game import simulate
        assert not any(m == "solvers" or m.startswith("solvers.") for m in sys.modules)
        r = simulate({"players": 5}, n_hands=3, policies="heuristic", seed=7, workers=1)
        print(r.points.shape, "solvers._base.passing" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["(3,", "5)", "True"]


def test_the_project_declares_its_policy_module():
    eps = importlib.metadata.entry_points(group=sim.POLICY_ENTRY_POINT_GROUP)
    assert "solvers._base.passing" in {ep.value for ep in eps}


@pytest.fixture
def fake_group(monkeypatch):
    """Replace the installed entry points of the group by the given ones; the
    table and the loaded flag are restored afterwards."""
    saved_table, saved = dict(sim.POLICIES), dict(sim._PLUGINS)

    def install(*values):
        eps = [importlib.metadata.EntryPoint(name=f"p{i}", value=v,
                                             group=sim.POLICY_ENTRY_POINT_GROUP)
               for i, v in enumerate(values)]
        real = importlib.metadata.entry_points
        monkeypatch.setattr(importlib.metadata, "entry_points",
                            lambda **kw: eps if kw.get("group") == sim.POLICY_ENTRY_POINT_GROUP
                            else real(**kw))
        sim._PLUGINS.update(loaded=False, entry_points=[])

    yield install
    sim.POLICIES.clear()
    sim.POLICIES.update(saved_table)
    sim._PLUGINS.update(saved)


def test_a_plugin_module_registers_a_name_that_simulate_then_plays(fake_group, tmp_path,
                                                                     monkeypatch):
    (tmp_path / "my_policy_plugin.py").write_text(textwrap.dedent("""
        from spiel_game import register_policy
        from spiel_game._simulator import uniform_policy
        register_policy("my_uniform", uniform_policy, proven_legal=True)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    fake_group("my_policy_plugin")
    assert "my_uniform" not in sim.POLICIES
    a = sim.simulate({"players": 5}, n_hands=4, policies="my_uniform", seed=3, workers=1)
    b = sim.simulate({"players": 5}, n_hands=4, policies="uniform", seed=3, workers=1)
    np.testing.assert_array_equal(a.points, b.points)
    assert sim.load_policy_plugins() == ["p0 = my_policy_plugin"]


def test_a_broken_plugin_names_its_entry_point_and_keeps_the_table(fake_group):
    fake_group("no_such_module_for_policies")
    before = dict(sim.POLICIES)
    with pytest.raises(sim.PolicyPluginError,
                       match=r"'p0 = no_such_module_for_policies'.*cancellation_hearts\.policies"):
        sim.simulate({"players": 5}, n_hands=1, policies="not_registered", seed=1, workers=1)
    assert sim.POLICIES == before and sim._PLUGINS["loaded"] is False


def test_an_unknown_name_after_loading_lists_the_registered_ones_once(fake_group):
    fake_group()
    with pytest.raises(ValueError, match=r"unknown policies \['nope'\]; registered: \["):
        sim.simulate({"players": 5}, n_hands=1, policies="nope", seed=1, workers=1)
    assert sim._PLUGINS["loaded"] is True
