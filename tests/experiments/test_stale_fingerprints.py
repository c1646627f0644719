"""A rerun says "same code" only when everything the result depends on is
unchanged: a file bot's helper modules (imported at the top, inside a
function, or through another helper) and the shipped model a network agent
loads are part of the fingerprint, so editing either recomputes the units and
names what changed."""

from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest

from experiments.tournament import TournamentConfig, agent_sources, run_tournament
from solvers.net import zoo

SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}

BOT = '''
import pyspiel
import {helper}


class Bot(pyspiel.Bot):
    def __init__(self):
        pyspiel.Bot.__init__(self)

    def step(self, state):
        import {lazy}                     # imported only when it plays
        legal = state.legal_actions()
        return legal[({helper}.PICK + {lazy}.EXTRA) % len(legal)]

    def restart_at(self, state):
        pass


def make(game, player, seed):
    return Bot()
'''


@pytest.fixture
def filebot(tmp_path, monkeypatch):
    """``bots/bot.py:make`` importing ``helper_<id>`` (which imports ``deep_<id>``)
    at its top and ``lazy_<id>`` inside ``step``; the folder is on sys.path."""
    tag = abs(hash(str(tmp_path))) % 10**8
    names = {"helper": f"helper_{tag}", "deep": f"deep_{tag}", "lazy": f"lazy_{tag}"}
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT.format(**names))
    files = {k: folder / f"{v}.py" for k, v in names.items()}
    files["helper"].write_text(f"from {names['deep']} import BASE\nPICK = BASE + 0\n")
    files["deep"].write_text("BASE = 0\n")
    files["lazy"].write_text("EXTRA = 0\n")
    monkeypatch.syspath_prepend(str(folder))

    def forget():                       # as a new process would: import the files again
        for m in [*names.values()] + [m for m in sys.modules
                                      if m.startswith("_cancellation_hearts_agent_bot_")]:
            sys.modules.pop(m, None)

    forget()
    yield f"{folder / 'bot.py'}:make", files, forget
    forget()


def _run(out, capsys, spec):
    cfg = TournamentConfig(agents=("random", spec), game=SMALL, deals=3, seed=4)
    res = run_tournament(cfg, out, progress=False)
    meta = json.loads((out / "metadata.json").read_text())
    return res, meta["units_run_this_session"], capsys.readouterr().err


@pytest.mark.parametrize("which", ["helper", "deep", "lazy"])
def test_editing_only_a_file_bots_helper_module_recomputes(tmp_path, filebot, capsys, which):
    spec, files, forget = filebot
    out = tmp_path / "t"
    first, ran, _ = _run(out, capsys, spec)
    assert ran == 3
    forget()
    _, ran, err = _run(out, capsys, spec)           # nothing edited: reused
    assert ran == 0 and "3 of 3 units reused (same code), 0 recomputed" in err
    text = files[which].read_text()
    files[which].write_text(text.replace("= 0", "= 1").replace("BASE + 0", "BASE + 1"))
    forget()
    changed, ran, err = _run(out, capsys, spec)
    assert ran == 3, err
    assert "0 of 3 units reused (same code), 3 recomputed" in err
    assert f"imported module {files[which].resolve()}" in err
    assert "agent module" not in err and "package code" not in err
    assert changed.records != first.records         # the edited helper plays other moves


def test_what_a_file_bot_depends_on_is_listed(filebot):
    spec, files, forget = filebot
    from solvers import _registry as registry
    registry.factory(spec.rsplit(":", 1)[0] + ":make")   # imports the file (as check_agents)
    src = agent_sources(["random", spec])
    imported = sorted(k.removeprefix("imported module ") for k in src
                      if k.startswith("imported module "))
    assert imported == sorted(str(f.resolve()) for f in files.values())
    assert any(k.startswith("agent module ") and k.endswith("bot.py") for k in src)
    # the standard library, installed packages and this package are not listed
    assert not any("site-packages" in k or "/spiel_game/" in k for k in src)


@pytest.fixture
def models(tmp_path, monkeypatch):
    """A copy of the model zoo in ``tmp_path``, used in place of the shipped one."""
    folder = tmp_path / "models"
    shutil.copytree(zoo.MODELS_DIR, folder)
    monkeypatch.setattr(zoo, "MODELS_DIR", folder)
    zoo._VERIFIED.clear()
    yield folder
    zoo._VERIFIED.clear()


def _rebuild(folder, name=zoo.DEFAULT_MODEL):
    """What ``zoo build`` does: another float16 file in place, the manifest updated."""
    from solvers.net._checkpoint import read_checkpoint, write_npz
    card = zoo.models()[name]
    config, params = read_checkpoint(card.path)
    first = sorted(params)[0]
    params[first] = params[first] + np.float32(0.25)
    src = write_npz(folder / "retrained.npz", params, {**config, "weights_dtype": "float32"})
    return zoo.build(src, name, models_dir=folder)


def test_a_shipped_model_rebuilt_in_place_is_another_model(models):
    before = agent_sources(["network", "ismcts_net(checkpoint='guided-5-11')"])
    assert [k for k in before if k.startswith("model ")] == [f"model {zoo.DEFAULT_MODEL}"]
    assert before[f"model {zoo.DEFAULT_MODEL}"] == zoo.models()[zoo.DEFAULT_MODEL].sha256
    card = _rebuild(models)
    after = agent_sources(["network"])
    assert after[f"model {zoo.DEFAULT_MODEL}"] == card.sha256 != \
        before[f"model {zoo.DEFAULT_MODEL}"]
    # a file that no longer matches its manifest is not fingerprinted: building refuses it
    (models / card.file).write_bytes((models / card.file).read_bytes() + b"x")
    assert f"model {zoo.DEFAULT_MODEL}" not in agent_sources(["network"])


def test_a_tournament_of_a_rebuilt_model_recomputes_naming_it(tmp_path, models, capsys):
    cfg = TournamentConfig(agents=("random", "network"), game={"players": 5}, deals=1,
                           seed=3)
    out = tmp_path / "t"
    run_tournament(cfg, out, progress=False)
    capsys.readouterr()
    run_tournament(cfg, out, progress=False)
    assert "1 of 1 units reused (same code)" in capsys.readouterr().err
    _rebuild(models)
    run_tournament(cfg, out, progress=False)
    err = capsys.readouterr().err
    assert "0 of 1 units reused (same code), 1 recomputed" in err
    assert f"model {zoo.DEFAULT_MODEL} differ(s)" in err


def test_an_explicit_checkpoint_path_is_hashed_by_content(tmp_path, models):
    path = tmp_path / "mine.npz"
    shutil.copy(zoo.models()[zoo.DEFAULT_MODEL].path, path)
    src = agent_sources([f"network(checkpoint={str(path)!r})"])
    assert src[f"checkpoint {path}"] == zoo.file_sha256(path)
    assert not any(k.startswith("model ") for k in src)
