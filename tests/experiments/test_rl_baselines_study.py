"""The rl_baselines runner experiment: DQN/NFSP units write checkpoints the agents load,
rows are the learning curves, a rerun resumes without training again, bad configs refused."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="the neural agents need the torch extra")

import spiel_game
from experiments import runner
from experiments._base.config import ConfigError
from experiments._base.registry import get
from solvers._registry import make_agent

GAME = ("deck=custom", "suits=HS", "ranks=9TJQKA", "packs=2", "pass_count=1")
SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "9TJQKA", "packs": 2,
         "pass_count": 1}


def _overrides(tmp_path):
    return {"players": 3, "game": list(GAME), "episodes": 30, "hidden": [8],
            "eval_every": 15, "eval_episodes": 3, "seeds": 1,
            "options": ["min_buffer_size_to_learn=20", "batch_size=8", "anticipatory=0.5"],
            "checkpoint_dir": str(tmp_path / "ckpt")}


def test_units_train_save_and_resume(tmp_path):
    exp = get("rl_baselines")
    assert not exp.reproduce
    ov = _overrides(tmp_path)
    res = runner.run("rl_baselines", overrides=ov, out=tmp_path / "out", workers=1,
                     progress=False, verbose=False)
    rows = res.rows
    assert sorted(set(rows["algorithm"])) == ["dqn", "nfsp"]
    assert list(rows[rows.algorithm == "dqn"]["episode"]) == [0, 15, 30]
    # Same training seed for DQN and NFSP of one seed index (paired deals).
    assert rows.groupby("seed_index")["train_seed"].nunique().max() == 1
    final = res.tables["final"]
    assert set(final["algorithm"]) == {"dqn", "nfsp"} and (final["episodes"] == 30).all()
    game = spiel_game.load(SMALL)
    for alg in ("dqn", "nfsp"):
        path = tmp_path / "ckpt" / f"{alg}-seed0.pt"
        assert set(rows[rows.algorithm == alg]["checkpoint"]) == {str(path)}
        doc = json.loads(path.with_suffix(".json").read_text())
        assert doc["experiment"] == "rl_baselines" and doc["episodes_trained"] == 30
        bot = make_agent(f"{alg}(checkpoint={str(path)!r})", game, 2, 1)
        assert bot.algorithm == alg
    # A rerun of the same configuration trains nothing again (the checkpoints stay).
    stamp = (tmp_path / "ckpt" / "dqn-seed0.pt").stat().st_mtime_ns
    again = runner.run("rl_baselines", overrides=ov, out=tmp_path / "out", workers=1,
                       progress=False, verbose=False)
    assert (tmp_path / "ckpt" / "dqn-seed0.pt").stat().st_mtime_ns == stamp
    assert again.rows.equals(res.rows)


@pytest.mark.parametrize("change, message", [
    ({"algorithms": ["ppo"]}, "allowed dqn, nfsp"),
    ({"options": ["episodes=5"]}, "options entries are key=value"),
    ({"options": ["learning_rate=fast"]}, "option learning_rate needs a float"),
    ({"options": ["learn_every=1"]}, "learn_every=1 is not allowed"),
    ({"eval_opponent": "nobody"}, "unknown agent 'nobody'"),
    ({"game": ["deck=nonsense"]}, "bad game parameters"),
])
def test_bad_configs_are_refused_before_anything_is_written(tmp_path, change, message):
    ov = {**_overrides(tmp_path), **change}
    with pytest.raises(ConfigError, match=message):
        runner.run("rl_baselines", overrides=ov, out=tmp_path / "out", workers=1,
                   progress=False, verbose=False)
    assert not (tmp_path / "out").exists() and not (tmp_path / "ckpt").exists()
