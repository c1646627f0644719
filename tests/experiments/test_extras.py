"""A missing optional dependency is one line naming its extra and the command a
user of the wheel types (spiel_game._extras), never a traceback."""

from __future__ import annotations

import sys

import pytest

from spiel_game._extras import MissingExtra, install_hint, require


def test_require_names_the_feature_the_module_and_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "flask", None)        # import flask fails
    with pytest.raises(MissingExtra) as err:
        require("flask", "play", "the browser play app")
    msg = str(err.value)
    assert msg.startswith("the browser play app needs flask, which is not installed "
                          "(extra 'play'): pip install 'cancellation-hearts[play]'"), msg
    assert "\n" not in msg and err.value.extra == "play"
    assert isinstance(err.value, ImportError)
    assert require("json", "play", "x") is sys.modules["json"]
    assert "make venv" in install_hint("torch")


def test_the_play_app_and_the_rl_agents_name_their_extras(monkeypatch):
    from experiments.play import _app as app
    from solvers import openspiel_rl
    monkeypatch.setitem(sys.modules, "flask", None)
    with pytest.raises(MissingExtra, match=r"cancellation-hearts\[play\]"):
        app.create_app(["random"], 5)
    monkeypatch.setitem(sys.modules, "open_spiel.python.pytorch.dqn", None)
    with pytest.raises(MissingExtra, match=r"DQN/NFSP needs .*cancellation-hearts\[torch\]"):
        openspiel_rl._openspiel_torch()


def test_the_ray_backend_names_its_extra(monkeypatch):
    from experiments import runner
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(runner.RunError, match=r"pip install 'cancellation-hearts\[distributed\]'"):
        list(runner._backends._ray_backend(None, None, [object()], 1, None))


def test_the_command_line_prints_one_line(monkeypatch, capsys):
    from experiments import __main__ as cli

    def missing(args):
        require("no_such_module_for_this_test", "torch", "this command")
    monkeypatch.setattr(cli, "cmd_list", missing)
    assert cli.main(["list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: this command needs no_such_module_for_this_test")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
