"""The distillation study (experiments/studies/distill.py): end to end on its smallest
config, labelled play, config errors; and for both studies that train the network
with solvers.net._rounds (distill, expert_iteration), resumption after interruptions
with identical rows."""

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers the game)
from experiments import runner
from experiments._base.config import ConfigError
from experiments.studies import distill as ds
from experiments.studies import expert_iteration as ei
from solvers._base.bots import HeuristicBot
from solvers.net._checkpoint import read_checkpoint
from solvers.net._features import FeatureLayout
from solvers.net._selfplay import size

_TINY = {"bc_hands": 2, "bc_steps": 4, "rounds": 1, "hands": 1, "teacher_iterations": 8,
         "steps": 4, "batch": 32, "hidden": 8, "blocks": 1, "eval_deals": 2,
         "cover": "6", "label_fraction": 1.0}


#: The studies that train the network with solvers.net._rounds: (module, its unit
#: function, tiny overrides, unit 1's checkpoint, its config field of the unit,
#: optimizer steps after unit 1).
_STUDIES = {
    "distill": (ds, "_round", _TINY, "round-0001.npz", "round", 8),
    "expert_iteration": (ei, "_generation",
                         {"generations": 2, "hands": 1, "iterations": 8, "net_iterations": 8,
                          "steps": 5, "eval_deals": 2, "hidden": 16, "blocks": 1,
                          "cover": "6,11"},
                         "gen-0001.npz", "generation", 10),
}
_DROP = ("checkpoint",)


def _run(study, overrides, out):
    return runner.run(study, overrides=overrides, out=out, workers=1, progress=False,
                      verbose=False)


def _timeless(rows):
    return rows.drop(columns=[c for c in rows.columns
                              if c.endswith("_seconds") or c in _DROP])


@pytest.mark.parametrize("study", sorted(_STUDIES))
def test_an_interrupted_study_resumes_with_identical_rows(study, tmp_path, monkeypatch):
    """Interrupted twice, before unit 1's checkpoint and then after it (unit not
    finished): the resumed run's rows are the uninterrupted run's."""
    mod, unit_fn, tiny, ckpt, key, steps = _STUDIES[study]
    a = _run(study, {**tiny, "checkpoints": str(tmp_path / "ca")}, tmp_path / "ra")
    assert list(a.rows[key]) == [0, 1]
    real_unit, real_eval = getattr(mod, unit_fn), mod.evaluate
    calls = {"unit": 0, "eval": 0}

    def failing_unit(config, r):
        if r == 1 and calls["unit"] == 0:
            calls["unit"] += 1
            raise RuntimeError("killed before unit 1")
        return real_unit(config, r)

    def failing_eval(config, path, base, n, seed_word):
        calls["eval"] += 1
        if calls["eval"] == 2:
            raise RuntimeError("killed after the checkpoint of unit 1")
        return real_eval(config, path, base, n, seed_word)

    monkeypatch.setattr(mod, unit_fn, failing_unit)
    monkeypatch.setattr(mod, "evaluate", failing_eval)
    over = {**tiny, "checkpoints": str(tmp_path / "cb")}
    for _ in range(2):
        with pytest.raises(RuntimeError, match="killed"):
            _run(study, over, tmp_path / "rb")
    assert (tmp_path / "cb" / ckpt).is_file()
    b = _run(study, over, tmp_path / "rb")
    assert _timeless(a.rows).equals(_timeless(b.rows))
    assert "curve" in b.tables and len(b.tables["curve"]) == 2
    cfg, _ = read_checkpoint(tmp_path / "cb" / ckpt)
    assert cfg[key] == 1 and cfg["step"] == steps and cfg["experiment"] == study


def test_distill_rows_and_a_longer_run_trains_only_the_new_round(tmp_path, monkeypatch):
    over = {**_TINY, "checkpoints": str(tmp_path / "c")}
    a = _run("distill", over, tmp_path / "ra")
    assert list(a.rows["round"]) == [0, 1]
    assert list(a.rows.phase) == ["bc", "distill"]
    r0, r1 = a.rows.iloc[0], a.rows.iloc[1]
    assert r0.teacher_searches == 0 and r1.teacher_searches == r1.samples > 0
    assert r1.train_samples == r1.samples           # round 1 trains on its own samples
    assert r0.policy_loss_after < r0.policy_loss_before
    assert ((a.rows.net_minus_heuristic_lo <= a.rows.net_minus_heuristic)
            & (a.rows.net_minus_heuristic <= a.rows.net_minus_heuristic_hi)).all()
    # A longer run on the same checkpoints trains only the new round.
    played = []
    real_play = ds.play_labelled

    def counting_play(game, layout, actors, teachers, hands, rng, label_fraction=1.0):
        played.append(teachers[0] != "self")
        return real_play(game, layout, actors, teachers, hands, rng, label_fraction)

    monkeypatch.setattr(ds, "play_labelled", counting_play)
    c = _run("distill", {**over, "rounds": 2}, tmp_path / "rc")
    assert list(c.rows["round"]) == [0, 1, 2]
    assert len(played) == _TINY["hands"] and all(played)      # round 2's hands only
    assert _timeless(c.rows).iloc[:2].equals(_timeless(a.rows))


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

    from experiments._base.config import config_to_dict, fingerprint
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
