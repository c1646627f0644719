"""Expert iteration: a policy-value network trained from ISMCTS self-play.

``python -m experiments run expert_iteration [--profile quick|paper] [--set k=v]``
(``reproduce=False``: ``make reproduce`` does not run it). One unit per
*generation* ``g = 0 .. generations - 1``:

1. self-play: ``hands`` hands at each player count of ``players``, every seat
   played by a search agent: plain ISMCTS (:class:`solvers.ismcts.ISMCTSBot`,
   ``iterations``, ``rollout``) in generation 0 and whenever
   ``search="plain"``; the network-guided ISMCTS of the previous generation's
   checkpoint (:class:`solvers.ismcts_net.NetISMCTSBot`, ``net_iterations``,
   ``c_puct``, leaf value ``value_weight`` x network + the rest a heuristic
   rollout) otherwise. Every decision with a choice records (features,
   legal mask, root visit distribution, acting seat); the hand's returns give
   the value targets (:func:`solvers.net.selfplay.play_hands`);
2. training: the previous generation's network (a fresh one, seeded, in
   generation 0) is trained ``steps`` Adam steps on the samples of the last
   ``replay`` generations (policy cross-entropy to the visit distribution
   sharpened by ``target_temperature``, ``visits ** (1 / T)`` normalised, value
   MSE to the scaled returns);
3. a checkpoint ``gen-XXXX.npz`` (state_dict + JSON config: layout, sizes,
   seed, optimizer steps so far, generation, versions, commit, this
   experiment's config) and the generation's samples ``data-XXXX.npz`` in the
   checkpoint folder;
4. evaluation: the raw network (``network(checkpoint=...)``, argmax) against
   ``heuristic`` in a duplicate-deal tournament (:mod:`experiments.tournament`)
   of ``eval_deals`` deals at ``players[0]`` players, every rotation.

Row per generation (the learning curve, table ``curve``): samples, the
training losses before and after training (on that generation's training
set), the net's zero-sum payoff minus the heuristic's with its 95% interval
and paired p-value, seconds of self-play, training and evaluation, the
checkpoint path and its SHA-256.

The network covers the player counts ``cover`` (its input layout pads each
information-state piece to the largest of those games, see
:mod:`solvers.net.features`); self-play uses ``players`` (a subset).

**Checkpoint folder** (``checkpoints``; empty: ``<the run's results folder, its
--out>/checkpoints/expert_iteration-<first 12 hex of the config's hash>``,
:func:`experiments.runner.run_root`): generation ``g``
reads generation ``g - 1``'s checkpoint and samples from there; a missing or
foreign file (its config hash differs) is recomputed first (deterministically,
the same as the unit that wrote it). Units are sequential by nature: run with
``--workers 1`` (more workers would each recompute the earlier generations).

**Reproducibility.** Every random stream is seeded from the config (numpy
Generators for chance and minibatches, splitmix64 streams of the agents,
``torch.Generator`` for the initial weights), torch runs with ``threads``
threads (default 1): on one machine, a generation recomputed after an
interruption gives bit-identical checkpoints and rows apart from the
``*_seconds`` columns (wall time). Across machines or torch builds the float
arithmetic of training may differ (different kernels), so checkpoints are
then not bit-identical.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from pathlib import Path

import numpy as np

import spiel_game

from ..base.config import ConfigError, config_to_dict, fingerprint
from ..base.registry import Summary, Unit, register

__all__ = ["ExpertIterationConfig", "PROFILES", "units", "run_unit", "summarize",
           "checkpoint_dir", "checkpoint_path", "checkpoint_folder", "summary_checkpoint_folder",
           "CURVE_COLUMNS"]

SEARCHES = ("net", "plain")


@dataclasses.dataclass(frozen=True)
class ExpertIterationConfig:
    """Expert iteration: ISMCTS self-play targets, a policy-value network per generation."""

    players: tuple[int, ...] = (6,)          # self-play player counts
    cover: tuple[int, ...] = (5, 6, 7, 8, 9, 10, 11)   # player counts the network covers
    game: tuple[str, ...] = ()               # other game parameters, "key=value"
    generations: int = 3
    hands: int = 4                           # self-play hands per generation and player count
    iterations: int = 64                     # plain ISMCTS iterations per move
    rollout: str = "heuristic"
    search: str = "net"                      # generations >= 1: "net" (guided) or "plain"
    net_iterations: int = 64
    c_puct: float = 1.5
    value_weight: float = 0.5                # guided search: net value vs heuristic rollout
    hidden: int = 128
    blocks: int = 2
    steps: int = 60                          # training steps per generation
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    replay: int = 2                          # generations of samples trained on
    target_temperature: float = 1.0          # policy target = visits ** (1 / T), normalised
    eval_deals: int = 2
    threads: int = 1                         # torch threads (fixed for reproducibility)
    checkpoints: str = ""                    # folder; "" = under the results root
    seed: int = 20261201

    def __post_init__(self):
        for name in ("generations", "hands", "iterations", "net_iterations", "hidden", "steps",
                     "batch", "replay", "eval_deals", "threads"):
            if getattr(self, name) < 1:
                raise ConfigError(f"expert_iteration: {name} must be >= 1, got "
                                  f"{getattr(self, name)}")
        if self.blocks < 0:
            raise ConfigError(f"expert_iteration: blocks must be >= 0, got {self.blocks}")
        if self.search not in SEARCHES:
            raise ConfigError(f"expert_iteration: search={self.search!r}; allowed: {SEARCHES}")
        if self.rollout not in ("heuristic", "random"):
            raise ConfigError(f"expert_iteration: rollout={self.rollout!r}; allowed: "
                              f"'heuristic', 'random'")
        if not self.players or not set(self.players) <= set(self.cover):
            raise ConfigError(f"expert_iteration: players {list(self.players)} must be a "
                              f"non-empty subset of cover {list(self.cover)}")
        if not 0.0 <= self.target_temperature <= 10.0:
            raise ConfigError(f"expert_iteration: target_temperature={self.target_temperature}"
                              f" must be in [0, 10] (0: one-hot on the most visited)")
        if not 0.0 <= self.value_weight <= 1.0:
            raise ConfigError(f"expert_iteration: value_weight={self.value_weight} must be in "
                              f"[0, 1]")
        if not (self.lr > 0 and self.c_puct >= 0 and self.weight_decay >= 0):
            raise ConfigError("expert_iteration: lr must be > 0, c_puct and weight_decay >= 0")


PROFILES = {
    # Seconds to a minute: 2 generations of 2 hands at 6 players, short searches.
    "quick": ExpertIterationConfig(generations=2, hands=2, iterations=32, net_iterations=32,
                                   steps=30, eval_deals=2),
    # About 45 minutes on the shared 2-core machine (see README).
    # 18 min on the shared 2-core machine. Visit distributions of short ISMCTS
    # searches are nearly uniform (entropy 1.60 against log(legal) 1.66 at 150
    # iterations), so the policy targets are sharpened (T = 0.25).
    "paper": ExpertIterationConfig(generations=8, hands=24, iterations=150,
                                   net_iterations=64, steps=400, replay=3, eval_deals=10,
                                   target_temperature=0.25),
}


def base_params(config) -> dict:
    """The game parameters of ``config.game`` without the player count (the
    networks cover several counts)."""
    from .tournament import TournamentStudyConfig, game_params
    return {k: v for k, v in game_params(TournamentStudyConfig(players=6, game=config.game))
            .items() if k != "players"}


def config_hash(config, ignore=("checkpoints",)) -> str:
    """The hash of what the checkpoints depend on: the config without the fields
    in ``ignore`` (where the files go does not change them)."""
    d = config_to_dict(config)
    for k in ignore:
        d.pop(k, None)
    return fingerprint(d)


def checkpoint_folder(config, prefix: str, ignore=("checkpoints",)) -> Path:
    """``config.checkpoints``, else ``<run root>/checkpoints/<prefix>-<hash>``."""
    if config.checkpoints:
        return Path(config.checkpoints)
    from ..runner import run_root
    return run_root() / "checkpoints" / f"{prefix}-{config_hash(config, ignore)[:12]}"


def valid_files(checkpoint: Path, data: Path, expected_hash: str, key: str, value) -> bool:
    """A checkpoint and its samples exist, and the checkpoint's config has
    ``experiment_hash == expected_hash`` and ``key == value``."""
    from solvers.net.checkpoint import CheckpointError, read_checkpoint
    if not data.is_file():
        return False
    try:
        cfg, _ = read_checkpoint(checkpoint)
    except CheckpointError:
        return False
    return cfg.get("experiment_hash") == expected_hash and cfg.get(key) == value


def checkpoint_dir(config) -> Path:
    """The folder of the checkpoints and samples (module docstring)."""
    return checkpoint_folder(config, "expert_iteration")


def summary_checkpoint_folder(rows, config, folder_of) -> str:
    """The folder the run wrote its checkpoints to, for a summary: the folder of the
    rows' ``checkpoint`` column (so the text is a function of the saved rows, the
    same wherever they are read), else ``folder_of(config)`` (``config.checkpoints``
    or the folder under the results root)."""
    if "checkpoint" in getattr(rows, "columns", ()) and len(rows):
        return str(Path(str(rows["checkpoint"].iloc[0])).parent)
    return str(folder_of(config))


def checkpoint_path(config, generation: int) -> Path:
    """The checkpoint of ``generation``."""
    return checkpoint_dir(config) / f"gen-{generation:04d}.npz"


def _data_path(config, generation: int) -> Path:
    return checkpoint_dir(config) / f"data-{generation:04d}.npz"


def feature_layout(config):
    """The network's :class:`~solvers.net.features.FeatureLayout` for ``config``
    (its game, the player counts it covers)."""
    from solvers.net.features import FeatureLayout
    return FeatureLayout(base_params(config), config.cover,
                         hint=getattr(config, "hint", "") or None)


def _valid(config, generation: int) -> bool:
    """Generation ``generation``'s checkpoint and samples exist and are this config's."""
    return valid_files(checkpoint_path(config, generation), _data_path(config, generation),
                        config_hash(config), "generation", generation)


def unit_seed(config, *words) -> int:
    """A seed below ``2**62`` derived from ``config.seed`` and the ints ``words``
    (``numpy.random.SeedSequence`` spawn key): one independent stream per use."""
    ss = np.random.SeedSequence(entropy=int(config.seed), spawn_key=tuple(int(w) for w in words))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(2))


def start_model(config, layout, prev):
    """The network to train next and its step count: a fresh
    :class:`~solvers.net.model.PolicyValueNet` (``config.hidden``,
    ``config.blocks``, seeded) when ``prev`` is None, else the checkpoint
    ``prev``'s network (shared by expert iteration and distillation)."""
    from solvers.net.model import PolicyValueNet, load_model
    if prev is None:
        return PolicyValueNet(layout.size, layout.num_actions, layout.max_players,
                              hidden=config.hidden, blocks=config.blocks,
                              seed=unit_seed(config, 0, 0, 2000)), 0
    model, pcfg = load_model(prev)
    return model, int(pcfg["step"])


def _generation(config, g: int) -> dict:
    """Compute generation ``g`` (its predecessors first if missing); returns its row."""

    from solvers.ismcts import ISMCTSBot
    from solvers.net.model import save_checkpoint
    from solvers.ismcts_net import NetISMCTSBot
    from solvers.net.selfplay import (concat, evaluate_losses, load_samples, play_hands,
                                      save_samples, size, train)

    if g > 0 and not _valid(config, g - 1):
        _generation(config, g - 1)
    layout = feature_layout(config)
    base = base_params(config)
    prev = checkpoint_path(config, g - 1) if g > 0 else None
    # 1. self-play
    t0 = time.perf_counter()
    parts = []
    for n in config.players:
        game = load_game(base, n)
        bots = []
        for q in range(n):
            seed = unit_seed(config, g, n, q)
            if prev is None or config.search == "plain":
                bots.append(ISMCTSBot(game, q, seed, iterations=config.iterations,
                                      rollout=config.rollout))
            else:
                bots.append(NetISMCTSBot(game, q, seed, checkpoint=str(prev),
                                         iterations=config.net_iterations,
                                         c_puct=config.c_puct, rollout=config.rollout,
                                         value_weight=config.value_weight))
        rng = np.random.default_rng(unit_seed(config, g, n, 1000))
        samples, _ = play_hands(game, layout, bots, config.hands, rng)
        parts.append(samples)
    new = concat(parts)
    save_samples(_data_path(config, g), new)
    selfplay_s = time.perf_counter() - t0
    # 2. training
    t0 = time.perf_counter()
    from solvers.net.model import torch_threads
    with torch_threads(config.threads):
        model, step0 = start_model(config, layout, prev)
        data = concat([load_samples(_data_path(config, h))
                       for h in range(max(0, g - config.replay + 1), g)] + [new])
        tt = config.target_temperature
        before = evaluate_losses(model, data, target_temperature=tt)
        train(model, data, steps=config.steps, batch_size=config.batch, lr=config.lr,
              weight_decay=config.weight_decay, seed=unit_seed(config, g, 0, 3000),
              target_temperature=tt)
        after = evaluate_losses(model, data, target_temperature=tt)
        path = save_checkpoint(checkpoint_path(config, g), model, layout,
                               step=step0 + config.steps, generation=g,
                               experiment="expert_iteration", experiment_hash=config_hash(config),
                               experiment_config=config_to_dict(config),
                               train_samples=size(data), losses_before=list(before),
                               losses_after=list(after))
    train_s = time.perf_counter() - t0
    # 3. evaluation: the raw network against the heuristic
    t0 = time.perf_counter()
    ev = evaluate(config, path, base, config.players[0], 0)
    eval_s = time.perf_counter() - t0
    return {"generation": g, "samples": size(new), "train_samples": size(data),
            "policy_loss_before": before[0], "policy_loss_after": after[0],
            "value_loss_before": before[1], "value_loss_after": after[1],
            **ev, "selfplay_seconds": selfplay_s, "train_seconds": train_s,
            "eval_seconds": eval_s, "checkpoint": str(path),
            "checkpoint_sha256": weights_sha256(path)}


def weights_sha256(path) -> str:
    """SHA-256 of the checkpoint's parameters (not its config, which names the commit)."""
    from solvers.net.checkpoint import read_checkpoint
    _, params = read_checkpoint(path)
    h = hashlib.sha256()
    for k in sorted(params):
        h.update(k.encode())
        h.update(np.ascontiguousarray(params[k]).tobytes())
    return h.hexdigest()


def load_game(base: dict, n: int):
    """``python_cancellation_hearts`` with parameters ``base`` and ``n`` players."""
    import pyspiel
    return pyspiel.load_game(spiel_game.GAME_NAME, {**base, "players": n})


def evaluate(config, path, base, n: int, seed_word: int) -> dict:
    """Raw network (argmax) against the heuristic: ``config.eval_deals`` duplicate
    deals at ``n`` players, seeded by ``unit_seed(config, 0, seed_word, 4000)``
    (shared by expert iteration and distillation)."""
    from ..tournament import TournamentConfig, run_tournament, summarize as tsum
    agents = (f"network(checkpoint={str(path)!r})", "heuristic")
    tc = TournamentConfig(agents=agents, game={**base, "players": n},
                          deals=config.eval_deals, seed=unit_seed(config, 0, seed_word, 4000))
    s = tsum(tc, run_tournament(tc, None, progress=False).records)
    d = s["pairs"][0]["payoff_difference"]
    return {"eval_players": n, "eval_deals": config.eval_deals,
            "net_points_per_hand": s["agents"][0]["points_per_hand"]["mean"],
            "heuristic_points_per_hand": s["agents"][1]["points_per_hand"]["mean"],
            "net_minus_heuristic": d["mean"], "net_minus_heuristic_lo": d["lo"],
            "net_minus_heuristic_hi": d["hi"], "net_minus_heuristic_p": d["p_value"]}


# ------------------------------------------------------------------ runner experiment
def units(config: ExpertIterationConfig) -> list[dict]:
    """One unit per generation (checks the game family first)."""
    try:
        feature_layout(config)
    except ValueError as err:
        raise ConfigError(f"expert_iteration: {err}") from None
    return [{"generation": g} for g in range(config.generations)]


def run_unit(config: ExpertIterationConfig, unit: Unit) -> list[dict]:
    """Generation ``unit.params['generation']``: its learning-curve row."""
    return [_generation(config, int(unit.params["generation"]))]


CURVE_COLUMNS = ("generation", "samples", "train_samples", "policy_loss_before",
                 "policy_loss_after", "value_loss_before", "value_loss_after",
                 "net_minus_heuristic", "net_minus_heuristic_lo", "net_minus_heuristic_hi",
                 "net_minus_heuristic_p", "selfplay_seconds", "train_seconds", "eval_seconds")


def summarize(config: ExpertIterationConfig, rows) -> Summary:
    """The learning curve (table ``curve``) and a text table."""
    curve = rows[list(CURVE_COLUMNS)].sort_values("generation").reset_index(drop=True)
    lines = [f"expert iteration, self-play at {list(config.players)} players, network covers "
             f"{list(config.cover)}; net vs heuristic at {config.players[0]} players, "
             f"{config.eval_deals} duplicate deals (zero-sum payoff difference, 95% CI)",
             "gen  samples  policy CE before->after  value MSE before->after  "
             "net - heuristic [95% CI]  selfplay/train s"]
    for r in curve.itertuples():
        lines.append(f"{r.generation:>3}  {r.samples:>7}  {r.policy_loss_before:.3f} -> "
                     f"{r.policy_loss_after:.3f}        {r.value_loss_before:.4f} -> "
                     f"{r.value_loss_after:.4f}        {r.net_minus_heuristic:+.2f} "
                     f"[{r.net_minus_heuristic_lo:+.2f}, {r.net_minus_heuristic_hi:+.2f}]"
                     f"  {r.selfplay_seconds:.1f}/{r.train_seconds:.1f}")
    folder = summary_checkpoint_folder(rows, config, checkpoint_dir)
    lines.append(f"checkpoints: {folder} (the rows' checkpoint column)")
    return Summary(tables={"curve": curve}, text="\n".join(lines))


register("expert_iteration", ExpertIterationConfig, units, run_unit, summarize,
         profiles=PROFILES, reproduce=False,
         description="expert iteration: policy-value network from ISMCTS self-play")
