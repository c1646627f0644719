"""The distillation study (experiments/studies/distill.py): end to end on its smallest
config, resume after interruptions with identical rows, labelled play, config errors."""

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers the game)
from experiments import runner
from experiments.base.config import ConfigError
from experiments.studies import distill as ds
from solvers.base.bots import HeuristicBot
from solvers.net.checkpoint import read_checkpoint
from solvers.net.features import FeatureLayout
from solvers.net.selfplay import size

_TINY = {"bc_hands": 2, "bc_steps": 4, "rounds": 1, "hands": 1, "teacher_iterations": 8,
         "steps": 4, "batch": 32, "hidden": 8, "blocks": 1, "eval_deals": 2,
         "cover": "6", "label_fraction": 1.0}


def test_distill_runs_and_resumes_with_identical_rows(tmp_path, monkeypatch):
    a = runner.run("distill", overrides={**_TINY, "checkpoints": str(tmp_path / "ca")},
                   out=tmp_path / "ra", workers=1, progress=False, verbose=False)
    assert list(a.rows["round"]) == [0, 1]
    assert list(a.rows.phase) == ["bc", "distill"]
    r0, r1 = a.rows.iloc[0], a.rows.iloc[1]
    assert r0.teacher_searches == 0 and r1.teacher_searches == r1.samples > 0
    assert r1.train_samples == r1.samples           # round 1 trains on its own samples
    assert r0.policy_loss_after < r0.policy_loss_before
    assert ((a.rows.net_minus_heuristic_lo <= a.rows.net_minus_heuristic)
            & (a.rows.net_minus_heuristic <= a.rows.net_minus_heuristic_hi)).all()
    # Interrupted twice: before round 1's checkpoint, then after it (unit not finished).
    real_round, real_eval = ds._round, ds.evaluate
    calls = {"round": 0, "eval": 0}

    def failing_round(config, r):
        if r == 1 and calls["round"] == 0:
            calls["round"] += 1
            raise RuntimeError("killed before round 1")
        return real_round(config, r)

    def failing_eval(config, path, base, n, seed_word):
        calls["eval"] += 1
        if calls["eval"] == 2:
            raise RuntimeError("killed after the checkpoint of round 1")
        return real_eval(config, path, base, n, seed_word)

    monkeypatch.setattr(ds, "_round", failing_round)
    monkeypatch.setattr(ds, "evaluate", failing_eval)
    over = {**_TINY, "checkpoints": str(tmp_path / "cb")}
    for _ in range(2):
        with pytest.raises(RuntimeError, match="killed"):
            runner.run("distill", overrides=over, out=tmp_path / "rb", workers=1,
                       progress=False, verbose=False)
    assert (tmp_path / "cb" / "round-0001.npz").is_file()
    b = runner.run("distill", overrides=over, out=tmp_path / "rb", workers=1, progress=False,
                   verbose=False)
    drop = [c for c in a.rows.columns if c.endswith("_seconds") or c == "checkpoint"]
    assert a.rows.drop(columns=drop).equals(b.rows.drop(columns=drop))
    assert "curve" in b.tables and len(b.tables["curve"]) == 2
    cfg, _ = read_checkpoint(tmp_path / "cb" / "round-0001.npz")
    assert cfg["round"] == 1 and cfg["step"] == 8 and cfg["experiment"] == "distill"
    # A longer run on the same checkpoints trains only the new round.
    played = []
    real_play = ds.play_labelled

    def counting_play(game, layout, actors, teachers, hands, rng, label_fraction=1.0):
        played.append(teachers[0] != "self")
        return real_play(game, layout, actors, teachers, hands, rng, label_fraction)

    monkeypatch.setattr(ds, "play_labelled", counting_play)
    c = runner.run("distill", overrides={**over, "rounds": 2}, out=tmp_path / "rc", workers=1,
                   progress=False, verbose=False)
    assert list(c.rows["round"]) == [0, 1, 2]
    assert len(played) == _TINY["hands"] and all(played)      # round 2's hands only
    x, y = c.rows.drop(columns=drop).iloc[:2], b.rows.drop(columns=drop)
    assert x.equals(y)


def test_behaviour_cloning_labels_are_the_heuristic_moves():
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})
    layout = FeatureLayout({}, (6,))
    actors = [HeuristicBot(game, q, q) for q in range(6)]
    s, rets, k = ds.play_labelled(game, layout, actors, ["self"] * 6, 1,
                                  np.random.default_rng(3))
    assert k == 0 and rets.shape == (1, 6)
    n = size(s)
    assert n > 50
    # one-hot targets on a legal action
    assert np.array_equal(s["policy"].sum(1), np.ones(n, np.float32))
    assert (s["policy"].max(1) == 1.0).all()
    assert s["mask"][np.arange(n), s["policy"].argmax(1)].all()
    # value target of the seat itself is its scaled return
    lo, hi = game.min_utility(), game.max_utility()
    np.testing.assert_allclose(s["value"][:, 0], (rets[0][s["seat"]] - lo) / (hi - lo),
                               rtol=1e-6)


def test_unlabelled_seats_record_nothing():
    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})
    layout = FeatureLayout({}, (6,))
    actors = [HeuristicBot(game, q, q) for q in range(6)]
    s, _, _ = ds.play_labelled(game, layout, actors, ["self"] + [None] * 5, 1,
                               np.random.default_rng(3))
    assert size(s) > 0 and set(s["seat"].tolist()) == {0}


def test_distill_config_errors():
    with pytest.raises(ConfigError, match="subset of cover"):
        ds.DistillConfig(players=(4,))
    with pytest.raises(ConfigError, match="eval_players"):
        ds.DistillConfig(eval_players=(12,))
    with pytest.raises(ConfigError, match="teacher_rollout"):
        ds.DistillConfig(teacher_rollout="pimc")
    with pytest.raises(ConfigError, match="bc_mix"):
        ds.DistillConfig(bc_mix=1.0)
    with pytest.raises(ConfigError, match="net_share"):
        ds.DistillConfig(net_share=0.0)
    with pytest.raises(ConfigError, match="teacher_iterations"):
        ds.DistillConfig(teacher_iterations=0)
    with pytest.raises(ConfigError, match="bc_decay"):
        ds.DistillConfig(bc_decay=0.0)
    with pytest.raises(ConfigError, match="hint='oracle'; allowed: '' \\(none\\), 'heuristic'"):
        ds.DistillConfig(hint="oracle")


def test_hinted_distill_records_the_hint_and_keeps_old_hashes(tmp_path):
    """hint='heuristic': the checkpoints' layout has the hint piece; an unhinted
    config keeps the hash (and checkpoint folder) it had before the field existed:
    the hash of its fields other than hint."""
    import dataclasses

    from experiments.base.config import config_to_dict, fingerprint
    plain = ds.PROFILES["paper"]
    before = {k: v for k, v in config_to_dict(plain).items()
              if k not in (*ds._NOT_HASHED, "hint")}
    assert ds._hash(plain) == fingerprint(before)
    hinted = dataclasses.replace(plain, hint="heuristic")
    assert ds._hash(hinted) != ds._hash(plain)
    assert ds.checkpoint_dir(hinted) != ds.checkpoint_dir(plain)
    run = runner.run("distill", overrides={**_TINY, "rounds": 0, "hint": "heuristic",
                                           "checkpoints": str(tmp_path / "c")},
                     out=tmp_path / "r", workers=1, progress=False, verbose=False)
    cfg, _ = read_checkpoint(tmp_path / "c" / "round-0000.npz")
    assert cfg["layout"]["hint"] == "heuristic"
    assert cfg["input_size"] == FeatureLayout({}, (6,), hint="heuristic").size
    assert list(run.rows["round"]) == [0]
