"""The model zoo (solvers.net.zoo): shipped networks that load on a fresh
install, checked by SHA-256, and the float16 weights format they use."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import spiel_game
from solvers.net import zoo
from solvers.net._checkpoint import CheckpointError, read_checkpoint, write_npz
from solvers._registry import AgentSpecError, make_agent

from conftest import ROOT


def _play(game, bots, seed):
    gen = np.random.default_rng(seed)
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(gen.choice(acts, p=probs)))
        else:
            a = bots[st.current_player()].step(st)
            assert a in st.legal_actions()
            st.apply_action(a)
    return st.returns()


def test_the_manifest_describes_the_shipped_files():
    cards = zoo.models()
    assert zoo.DEFAULT_MODEL in cards
    for card in cards.values():
        assert card.path.is_file(), card
        assert zoo.file_sha256(card.path) == card.sha256
        assert card.path.stat().st_size == card.size_bytes
        assert card.training.get("command") and card.players
        config, params = read_checkpoint(zoo.model_path(card.name))
        assert config["weights_dtype"] == "float16"
        assert all(v.dtype == np.float32 for v in params.values())   # widened on load
        assert "MB" in repr(card) and card.name in repr(card)


@pytest.mark.parametrize("players", [5, 11])
def test_the_network_agents_play_with_no_checkpoint_given(players):
    """A fresh install needs no training: ``network`` and ``ismcts_bias`` take
    the default shipped model."""
    game = spiel_game.load({"players": players})
    bots = [make_agent("network" if p % 2 else "ismcts_bias(iterations=20)", game, p, p)
            for p in range(players)]
    assert bots[1].evaluator.path == str(zoo.model_path(zoo.DEFAULT_MODEL))
    returns = _play(game, bots, 3)
    assert len(returns) == players


def test_a_model_is_named_by_its_name_and_an_unknown_name_lists_the_models():
    game = spiel_game.load({"players": 6})
    bot = make_agent(f"network(checkpoint='{zoo.DEFAULT_MODEL}')", game, 0, 1)
    assert bot.evaluator.path == str(zoo.model_path(zoo.DEFAULT_MODEL))
    with pytest.raises(AgentSpecError, match=r"no shipped model 'guided-6'.*guided-5-11"):
        make_agent("network(checkpoint='guided-6')", game, 0, 1)


def test_a_damaged_model_is_refused_by_its_sha256(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    shutil.copytree(zoo.MODELS_DIR, folder)
    card = zoo.models()[zoo.DEFAULT_MODEL]
    data = bytearray((folder / card.file).read_bytes())
    data[len(data) // 2] ^= 0x01                     # one bit of one weight
    (folder / card.file).write_bytes(bytes(data))
    monkeypatch.setattr(zoo, "MODELS_DIR", folder)
    with pytest.raises(CheckpointError, match="SHA-256 .* the file is damaged or was replaced"):
        zoo.model_path(zoo.DEFAULT_MODEL)
    with pytest.raises(AgentSpecError, match="network: checkpoint=None: .*SHA-256"):
        make_agent("network", spiel_game.load({"players": 6}), 0, 1)
    (folder / card.file).unlink()
    with pytest.raises(CheckpointError, match="is missing"):
        zoo.model_path(zoo.DEFAULT_MODEL)


def test_weights_dtypes_are_declared_and_checked(tmp_path):
    config, params = read_checkpoint(zoo.model_path(zoo.DEFAULT_MODEL))
    f32 = {k: v for k, v in config.items() if k != "weights_dtype"}
    half = tmp_path / "half.npz"
    write_npz(half, params, config)                 # float16 on disk, declared
    # float16 weights under a config that does not declare them: refused
    z = dict(np.load(half, allow_pickle=False))
    z["config"] = np.array(json.dumps(f32, sort_keys=True))
    np.savez(tmp_path / "undeclared.npz", **z)
    with pytest.raises(CheckpointError, match="has dtype float16; allowed: float32"):
        read_checkpoint(tmp_path / "undeclared.npz")
    # a config naming an unknown dtype: refused, the field named
    z["config"] = np.array(json.dumps({**config, "weights_dtype": "bfloat8"}, sort_keys=True))
    np.savez(tmp_path / "unknown.npz", **z)
    with pytest.raises(CheckpointError, match="weights_dtype' is 'bfloat8'; allowed: float32, "
                                              "float16"):
        read_checkpoint(tmp_path / "unknown.npz")


def test_build_rewrites_a_float32_checkpoint_as_the_shipped_model(tmp_path):
    config, params = read_checkpoint(zoo.model_path(zoo.DEFAULT_MODEL))
    source = write_npz(tmp_path / "round.npz", params,
                       {k: v for k, v in config.items() if k != "weights_dtype"})
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(zoo.MODELS_DIR / "models.json", folder / "models.json")
    card = zoo.build(source, zoo.DEFAULT_MODEL, folder)
    assert card.sha256 == zoo.file_sha256(folder / card.file)
    assert card.quantization["max_abs_weight_change"] == 0.0     # float16 -> 32 -> 16 is exact
    _, rebuilt = read_checkpoint(folder / card.file)
    assert all(np.array_equal(rebuilt[k], params[k]) for k in params)
    with pytest.raises(KeyError, match="no entry 'other'"):
        zoo.build(source, "other", folder)


def test_the_models_command_lists_the_shipped_models():
    out = subprocess.run([sys.executable, "-m", "experiments", "models"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert zoo.DEFAULT_MODEL in out.stdout and "default of network" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "experiments", "models", "nope"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "no shipped model 'nope'" in bad.stderr
