"""The training loop of the network studies (solvers.net._rounds): files and their
naming, the row, the hooks' arguments, predecessors recomputed when missing or
foreign, stored rows not recomputed, the training set's window and extra set,
and the minibatch mixing of selfplay.train."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spiel_game  # noqa: E402,F401  (registers the game)
from solvers._base.bots import HeuristicBot  # noqa: E402
from solvers.net._checkpoint import read_checkpoint  # noqa: E402
from solvers.net._features import FeatureLayout  # noqa: E402
from solvers.net._model import PolicyValueNet  # noqa: E402
from solvers.net._rounds import Rounds, TrainingSet, load_game, unit_seed  # noqa: E402
from solvers.net._selfplay import load_samples, record_hands, size, train  # noqa: E402

LAYOUT = FeatureLayout({}, (5, 6))


def _heuristic_play(calls, hands=1):
    """A data hook: heuristic self-play, every move labelled one-hot."""
    def play(r, game, layout, rng, prev):
        n = game.num_players()
        calls.append((r, n, prev))
        bots = [HeuristicBot(game, q, unit_seed(7, r, n, q)) for q in range(n)]

        def decide(st, me):
            action = int(bots[me].step(st))
            pol = np.zeros(layout.num_actions, np.float32)
            pol[action] = 1.0
            return action, pol
        samples, _ = record_hands(game, layout, hands, rng, decide)
        return samples, {"hands": hands, "decisions": size(samples)}
    return play


def _rounds(folder, calls, **kw):
    kw = {"experiment": "test", "experiment_hash": "h1", "experiment_config": {"a": 1},
          "folder": folder, "layout": LAYOUT, "game_params": {}, "players": (5, 6),
          "play": _heuristic_play(calls),
          "training_set": lambda r: TrainingSet(steps=3, lr=1e-3, rounds=tuple(range(r)),
                                                row={"phase": f"p{r}"}),
          "hidden": 8, "blocks": 1, "batch": 16, "seed": 11, **kw}
    return Rounds(**kw)


def test_a_round_runs_its_missing_predecessor_and_names_its_files(tmp_path):
    calls = []
    loop = _rounds(tmp_path, calls)
    rows = loop.run(1)
    # round 0 first (no checkpoint yet), then round 1 from round 0's checkpoint
    assert calls == [(0, 5, None), (0, 6, None), (1, 5, loop.checkpoint(0)),
                     (1, 6, loop.checkpoint(0))]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "data-0000.npz", "data-0001.npz", "round-0000.npz", "round-0001.npz"]
    (row,) = rows
    assert list(row) == ["round", "phase", "samples", "train_samples", "hands", "decisions",
                         "policy_loss_before", "policy_loss_after", "value_loss_before",
                         "value_loss_after", "data_seconds", "train_seconds", "checkpoint"]
    assert row["round"] == 1 and row["phase"] == "p1" and row["hands"] == 2
    n0, n1 = size(load_samples(loop.data(0))), size(load_samples(loop.data(1)))
    assert row["samples"] == row["decisions"] == n1
    assert row["train_samples"] == n0 + n1           # the window: rounds 0 and 1
    cfg, _ = read_checkpoint(loop.checkpoint(1))
    assert (cfg["round"], cfg["generation"], cfg["step"]) == (1, 1, 6)
    assert (cfg["experiment"], cfg["experiment_hash"], cfg["experiment_config"]) == (
        "test", "h1", {"a": 1})
    assert cfg["train_samples"] == n0 + n1 and "row" not in cfg
    assert loop.valid(0) and loop.valid(1) and not loop.valid(2)


def test_rounds_are_reproducible_and_stored_rows_are_not_recomputed(tmp_path):
    calls = []
    a = _rounds(tmp_path / "a", calls, store_row=True).run(1)
    b = _rounds(tmp_path / "b", [], store_row=True).run(1)
    drop = ("data_seconds", "train_seconds", "checkpoint")
    assert {k: v for k, v in a[0].items() if k not in drop} == {
        k: v for k, v in b[0].items() if k not in drop}
    wa = read_checkpoint(tmp_path / "a" / "round-0001.npz")[1]
    wb = read_checkpoint(tmp_path / "b" / "round-0001.npz")[1]
    assert all(np.array_equal(wa[k], wb[k]) for k in wa)
    cfg, _ = read_checkpoint(tmp_path / "a" / "round-0001.npz")
    assert cfg["row"] == {k: v for k, v in a[0].items() if k != "checkpoint"}
    calls.clear()
    assert _rounds(tmp_path / "a", calls, store_row=True).run(1) == a     # evaluated only
    assert calls == []
    # Without a stored row the round is recomputed (the same rows).
    _rounds(tmp_path / "c", [], store_row=False).run(0)
    again = []
    _rounds(tmp_path / "c", again, store_row=False).run(0)
    assert [c[0] for c in again] == [0, 0]


def test_foreign_predecessors_are_recomputed_and_the_naming_follows_the_key(tmp_path):
    _rounds(tmp_path, []).run(0)
    calls = []
    loop = _rounds(tmp_path, calls, experiment_hash="h2", prefix="gen", key="generation")
    assert not loop.valid(0)                         # another hash, another file name
    loop.run(1)
    assert [c[0] for c in calls] == [0, 0, 1, 1]
    cfg, _ = read_checkpoint(tmp_path / "gen-0001.npz")
    assert cfg["generation"] == 1 and "round" not in cfg and cfg["experiment_hash"] == "h2"


def test_the_evaluation_hook_gets_the_row_and_the_checkpoint(tmp_path):
    seen = []

    def evaluate(r, path, row):
        seen.append((r, path, row["round"]))
        return [{"r": r}, {"r": r}]
    assert _rounds(tmp_path, [], evaluate=evaluate).run(0) == [{"r": 0}, {"r": 0}]
    assert seen == [(0, tmp_path / "round-0000.npz", 0)]


def test_the_extra_set_and_losses_on_new(tmp_path):
    calls = []
    loop = _rounds(tmp_path, calls, training_set=lambda r: TrainingSet(
        steps=2, lr=1e-3, extra_rounds=(0,) if r else (), extra_share=0.5, losses_on="new"))
    (row,) = loop.run(1)
    assert row["train_samples"] == row["samples"]    # the extra set is not the training set
    with pytest.raises(ValueError, match="losses_on='all'; allowed: 'train', 'new'"):
        TrainingSet(steps=1, lr=1e-3, losses_on="all")


def test_a_round_without_samples_is_an_error(tmp_path):
    def play(r, game, layout, rng, prev):
        samples, _ = record_hands(game, layout, 1, rng,
                                  lambda st, me: (st.legal_actions()[0], None))
        return samples, {}
    with pytest.raises(RuntimeError, match="test: round 0 recorded no samples"):
        _rounds(tmp_path, [], play=play).run(0)


def test_train_mixes_the_extra_set_into_each_minibatch():
    game = load_game({}, 6)
    samples = {}
    for name, seed in (("main", 1), ("extra", 2)):
        samples[name], _ = _heuristic_play([])(0, game, LAYOUT, np.random.default_rng(seed),
                                               None)

    def run(**kw):
        model = PolicyValueNet(LAYOUT.size, LAYOUT.num_actions, LAYOUT.max_players, hidden=8,
                               blocks=1, seed=3)
        log = train(model, samples["main"], steps=3, batch_size=16, seed=5, **kw)
        return log, [p.detach().clone() for p in model.parameters()]
    plain, p0 = run()
    none_share, p1 = run(extra=samples["extra"], extra_share=0.0)
    mixed, p2 = run(extra=samples["extra"], extra_share=0.5)
    assert plain == none_share and all(torch.equal(a, b) for a, b in zip(p0, p1))
    assert mixed != plain and not all(torch.equal(a, b) for a, b in zip(p0, p2))
    empty = {k: v[:1] if k == "offsets" else v[:0] for k, v in samples["main"].items()}
    with pytest.raises(ValueError, match="train: no samples"):
        train(PolicyValueNet(LAYOUT.size, LAYOUT.num_actions, LAYOUT.max_players, hidden=8,
                             blocks=1), empty, steps=1, extra=samples["extra"], extra_share=0.5)
