"""Rounds of network training: one loop, with hooks, for the studies that train
the policy-value network round after round (``experiments.studies.distill``:
behaviour cloning then DAgger distillation; ``experiments.studies.expert_iteration``:
ISMCTS self-play generations).

Round ``r = 0, 1, ...`` of a :class:`Rounds`:

1. **data** (hook ``play``): at each player count ``n`` of ``players``,
   ``play(r, game, layout, rng, prev)`` plays hands of ``load_game(game_params,
   n)`` (features of ``layout``, chance from ``rng``, seeded by ``unit_seed(seed,
   r, n, 1000)``; ``prev``: round ``r - 1``'s checkpoint, None in round 0) and
   returns ``(samples, counts)``: labelled samples (:mod:`.selfplay`'s format)
   and ints summed into the round's row (e.g. the teacher searches run). The
   round's samples go to ``data-XXXX.npz`` in ``folder``;
2. **training** (hook ``training_set``): the previous round's network (round 0:
   a fresh :class:`~.model.PolicyValueNet` of ``hidden`` units and ``blocks``
   blocks, initial weights seeded by ``unit_seed(seed, 0, 0, 2000)``) is
   trained on what ``training_set(r)`` names (:class:`TrainingSet`: which
   earlier rounds' samples join this round's, a replay window or all of them;
   an optional extra set mixed into every minibatch; steps, learning rate,
   target temperature) by :func:`.selfplay.train` (minibatches from
   ``unit_seed(seed, r, 0, 3000)``, torch on ``threads`` threads). The losses
   before and after are measured on the training set or on the round's new
   samples (``TrainingSet.losses_on``);
3. **checkpoint**: ``<prefix>-XXXX.npz`` in ``folder`` (:func:`.model.save_checkpoint`;
   its config has the optimizer steps so far, ``generation`` and the round under
   ``key``, ``experiment``, ``experiment_hash``, ``experiment_config``, the
   training-set size, the losses and, with ``store_row``, the round's row);
4. **evaluation** (hook ``evaluate``, optional): ``evaluate(r, checkpoint, row)``
   turns the round's row into the study's rows (default: the row and the
   checkpoint's path).

The round's row: ``{key: r, **TrainingSet.row, "samples", "train_samples",
**counts, "policy_loss_before", "policy_loss_after", "value_loss_before",
"value_loss_after", "data_seconds", "train_seconds"}``.

Round ``r`` reads round ``r - 1``'s checkpoint and the samples its training set
names; when round ``r - 1``'s files are missing or foreign (another
``experiment_hash``) that round is run first, deterministically. A round whose
own files are there and valid, with its row stored (``store_row``), is not
recomputed: :meth:`Rounds.run` hands the stored row to ``evaluate``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ._features import FeatureLayout

__all__ = ["Rounds", "TrainingSet", "unit_seed", "load_game", "weights_sha256"]


def unit_seed(seed: int, *words) -> int:
    """A seed below ``2**62`` derived from ``seed`` and the ints ``words``
    (``numpy.random.SeedSequence`` spawn key): one independent stream per use."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(w) for w in words))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(2))


def load_game(params: dict, n: int):
    """``python_cancellation_hearts`` with parameters ``params`` and ``n`` players."""
    import pyspiel

    import spiel_game
    return pyspiel.load_game(spiel_game.GAME_NAME, {**params, "players": n})


def weights_sha256(path) -> str:
    """SHA-256 of the checkpoint's parameters (not its config, which names the commit)."""
    from ._checkpoint import read_checkpoint
    _, params = read_checkpoint(path)
    h = hashlib.sha256()
    for k in sorted(params):
        h.update(k.encode())
        h.update(np.ascontiguousarray(params[k]).tobytes())
    return h.hexdigest()


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainingSet:
    """What round ``r`` trains on and how (the ``training_set`` hook's answer)."""

    steps: int                               # Adam steps
    lr: float
    rounds: tuple[int, ...] = ()             # earlier rounds whose samples join this round's
    extra_rounds: tuple[int, ...] = ()       # rounds of a set mixed into every minibatch
    extra_share: float = 0.0                 # its share of each minibatch
    target_temperature: float = 1.0          # policy targets = visits ** (1 / T), normalised
    losses_on: str = "train"                 # losses before/after on "train" or "new" samples
    row: dict = dataclasses.field(default_factory=dict)   # fields for the round's row

    def __post_init__(self):
        if self.losses_on not in ("train", "new"):
            raise ValueError(f"TrainingSet: losses_on={self.losses_on!r}; allowed: 'train', "
                             f"'new'")


def _no_evaluation(r: int, checkpoint: Path, row: dict) -> list[dict]:
    return [{**row, "checkpoint": str(checkpoint)}]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Rounds:
    """The training loop of a study (module docstring): its files, its network,
    its training settings and its hooks."""

    experiment: str                          # the study's name (checkpoints, errors)
    experiment_hash: str                     # what the files depend on (validity)
    experiment_config: dict                  # the study's config, kept in the checkpoints
    folder: Path                             # checkpoints and samples
    layout: FeatureLayout
    game_params: dict                        # the game without its player count
    players: tuple[int, ...]                 # the player counts of the data
    play: Callable                           # (r, game, layout, rng, prev) -> (samples, counts)
    training_set: Callable[[int], TrainingSet]
    evaluate: Callable[[int, Path, dict], list[dict]] = _no_evaluation
    prefix: str = "round"                    # checkpoint files: <prefix>-XXXX.npz
    key: str = "round"                       # the checkpoint config's field of the round
    store_row: bool = False                  # keep the row in the checkpoint (no recompute)
    hidden: int = 128
    blocks: int = 2
    batch: int = 128
    weight_decay: float = 1e-4
    value_coef: float = 1.0
    threads: int = 1                         # torch threads (fixed for reproducibility)
    seed: int = 0

    def checkpoint(self, r: int) -> Path:
        """Round ``r``'s checkpoint."""
        return Path(self.folder) / f"{self.prefix}-{r:04d}.npz"

    def data(self, r: int) -> Path:
        """Round ``r``'s samples."""
        return Path(self.folder) / f"data-{r:04d}.npz"

    def valid(self, r: int) -> bool:
        """Round ``r``'s checkpoint and samples exist, and the checkpoint's config
        has this ``experiment_hash`` and round ``r`` (under ``key``)."""
        from ._checkpoint import CheckpointError, read_checkpoint
        if not self.data(r).is_file():
            return False
        try:
            cfg, _ = read_checkpoint(self.checkpoint(r))
        except CheckpointError:
            return False
        return cfg.get("experiment_hash") == self.experiment_hash and cfg.get(self.key) == r

    def run(self, r: int) -> list[dict]:
        """Round ``r`` (its predecessor first if missing): its rows (``evaluate``)."""
        from ._checkpoint import read_checkpoint
        if self.valid(r):
            cfg, _ = read_checkpoint(self.checkpoint(r))
            if "row" in cfg:                 # done before: evaluate only
                return self.evaluate(r, self.checkpoint(r), cfg["row"])
        if r > 0 and not self.valid(r - 1):
            self.run(r - 1)
        prev = self.checkpoint(r - 1) if r > 0 else None
        t0 = time.perf_counter()
        new, counts = self._play(r, prev)
        data_s = time.perf_counter() - t0
        path, row = self._train(r, prev, new, counts, data_s)
        return self.evaluate(r, path, row)

    def _play(self, r: int, prev) -> tuple[dict, dict]:
        """The data of round ``r`` (the ``play`` hook at each player count), saved."""
        from ._selfplay import concat, save_samples
        parts, counts = [], {}
        for n in self.players:
            rng = np.random.default_rng(unit_seed(self.seed, r, n, 1000))
            samples, more = self.play(r, load_game(self.game_params, n), self.layout, rng,
                                      prev)
            parts.append(samples)
            for k, v in more.items():
                counts[k] = counts.get(k, 0) + v
        new = concat(parts)
        save_samples(self.data(r), new)
        return new, counts

    def _train(self, r: int, prev, new: dict, counts: dict, data_s: float):
        """Train round ``r``'s network and save its checkpoint: ``(path, row)``."""
        from ._model import PolicyValueNet, load_model, save_checkpoint, torch_threads
        from ._selfplay import concat, evaluate_losses, load_samples, size, train
        t0 = time.perf_counter()
        with torch_threads(self.threads):
            if prev is None:
                model, step0 = PolicyValueNet(
                    self.layout.size, self.layout.num_actions, self.layout.max_players,
                    hidden=self.hidden, blocks=self.blocks,
                    seed=unit_seed(self.seed, 0, 0, 2000)), 0
            else:
                model, pcfg = load_model(prev)
                step0 = int(pcfg["step"])
            if size(new) == 0:
                raise RuntimeError(f"{self.experiment}: {self.key} {r} recorded no samples "
                                   f"(raise hands, or label_fraction where there is one)")
            ts = self.training_set(r)
            main = concat([load_samples(self.data(h)) for h in ts.rounds] + [new])
            extra = (concat([load_samples(self.data(h)) for h in ts.extra_rounds])
                     if ts.extra_rounds else None)
            tt = ts.target_temperature
            measured = main if ts.losses_on == "train" else new
            before = evaluate_losses(model, measured, target_temperature=tt)
            train(model, main, steps=ts.steps, batch_size=self.batch, lr=ts.lr,
                  weight_decay=self.weight_decay, value_coef=self.value_coef,
                  seed=unit_seed(self.seed, r, 0, 3000), target_temperature=tt,
                  extra=extra, extra_share=ts.extra_share)
            after = evaluate_losses(model, measured, target_temperature=tt)
            row = {self.key: r, **ts.row, "samples": size(new), "train_samples": size(main),
                   **counts, "policy_loss_before": before[0], "policy_loss_after": after[0],
                   "value_loss_before": before[1], "value_loss_after": after[1],
                   "data_seconds": data_s, "train_seconds": time.perf_counter() - t0}
            path = save_checkpoint(
                self.checkpoint(r), model, self.layout, step=step0 + ts.steps, generation=r,
                **({self.key: r} if self.key != "generation" else {}),
                experiment=self.experiment, experiment_hash=self.experiment_hash,
                experiment_config=self.experiment_config, train_samples=size(main),
                losses_before=list(before), losses_after=list(after),
                **({"row": row} if self.store_row else {}))
        return path, row
