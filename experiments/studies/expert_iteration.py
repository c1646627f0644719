"""Expert iteration: a policy-value network trained from ISMCTS self-play.

``python -m experiments run expert_iteration [--profile quick|paper] [--set k=v]``
(``reproduce=False``: ``make reproduce`` does not run it). One unit per
*generation* ``g = 0 .. generations - 1``:

1. self-play: ``hands`` hands at each player count of ``players``, every seat
   played by a search agent: plain ISMCTS (:class:`solvers._ismcts.ISMCTSBot`,
   ``iterations``, ``rollout``) in generation 0 and whenever
   ``search="plain"``; the network-guided ISMCTS of the previous generation's
   checkpoint (:class:`solvers._ismcts_net.NetISMCTSBot`, ``net_iterations``,
   ``c_puct``, leaf value ``value_weight`` x network + the rest a heuristic
   rollout) otherwise. Every decision with a choice records (features,
   legal mask, root visit distribution, acting seat); the hand's returns give
   the value targets (:func:`solvers.net._selfplay.play_hands`);
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

The loop is :class:`solvers.net._rounds.Rounds`, shared with
:mod:`experiments.studies.distill`; this module gives its hooks: the self-play
(data), the replay window (training set) and the evaluation.

The network covers the player counts ``cover`` (its input layout pads each
information-state piece to the largest of those games, see
:mod:`solvers.net._features`); self-play uses ``players`` (a subset).

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
import functools
import time
from pathlib import Path

from .._base.config import ConfigError, config_to_dict, fingerprint
from .._base.registry import Summary, Unit, register

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


def feature_layout(config):
    """The network's :class:`~solvers.net._features.FeatureLayout` for ``config``
    (its game, the player counts it covers)."""
    from solvers.net._features import FeatureLayout
    return FeatureLayout(base_params(config), config.cover,
                         hint=getattr(config, "hint", "") or None)


def net_rounds(config, experiment: str, ignore=("checkpoints",), **hooks):
    """The training loop (:class:`solvers.net._rounds.Rounds`) of a study's
    ``config``: its files in :func:`checkpoint_folder`, its game, network and
    training settings from the config's fields, and the study's ``hooks`` (shared
    by expert iteration and distillation)."""
    from solvers.net._rounds import Rounds
    return Rounds(experiment=experiment, experiment_hash=config_hash(config, ignore),
                  experiment_config=config_to_dict(config),
                  folder=checkpoint_folder(config, experiment, ignore),
                  layout=feature_layout(config), game_params=base_params(config),
                  players=config.players, hidden=config.hidden, blocks=config.blocks,
                  batch=config.batch, weight_decay=config.weight_decay,
                  value_coef=getattr(config, "value_coef", 1.0), threads=config.threads,
                  seed=config.seed, **hooks)


def _rounds(config):
    return net_rounds(config, "expert_iteration", play=functools.partial(_selfplay, config),
                      training_set=functools.partial(_replay_window, config),
                      evaluate=functools.partial(_evaluate_row, config),
                      prefix="gen", key="generation")


def _generation(config, g: int) -> list[dict]:
    """Compute generation ``g`` (its predecessors first if missing); returns its row."""
    return _rounds(config).run(g)


def _selfplay(config, g: int, game, layout, rng, prev):
    """The data hook: generation ``g``'s self-play hands at one player count, every
    seat a search agent (plain ISMCTS in generation 0 or with ``search='plain'``,
    else the network-guided search of checkpoint ``prev``)."""
    from solvers._ismcts import ISMCTSBot
    from solvers._ismcts_net import NetISMCTSBot
    from solvers.net._rounds import unit_seed
    from solvers.net._selfplay import play_hands
    n, bots = game.num_players(), []
    for q in range(n):
        seed = unit_seed(config.seed, g, n, q)
        if prev is None or config.search == "plain":
            bots.append(ISMCTSBot(game, q, seed, iterations=config.iterations,
                                  rollout=config.rollout))
        else:
            bots.append(NetISMCTSBot(game, q, seed, checkpoint=str(prev),
                                     iterations=config.net_iterations, c_puct=config.c_puct,
                                     rollout=config.rollout, value_weight=config.value_weight))
    samples, _ = play_hands(game, layout, bots, config.hands, rng)
    return samples, {}


def _replay_window(config, g: int):
    """The training-set hook: the samples of the last ``replay`` generations."""
    from solvers.net._rounds import TrainingSet
    return TrainingSet(steps=config.steps, lr=config.lr,
                       rounds=tuple(range(max(0, g - config.replay + 1), g)),
                       target_temperature=config.target_temperature)


def _evaluate_row(config, g: int, path, row: dict) -> list[dict]:
    """The evaluation hook: the raw network against the heuristic at
    ``players[0]`` players; the generation's row."""
    from solvers.net._rounds import weights_sha256
    t0 = time.perf_counter()
    ev = evaluate(config, path, base_params(config), config.players[0], 0)
    return [{**{k: v for k, v in row.items() if not k.endswith("_seconds")}, **ev,
             "selfplay_seconds": row["data_seconds"], "train_seconds": row["train_seconds"],
             "eval_seconds": time.perf_counter() - t0, "checkpoint": str(path),
             "checkpoint_sha256": weights_sha256(path)}]


def evaluate(config, path, base, n: int, seed_word: int) -> dict:
    """Raw network (argmax) against the heuristic: ``config.eval_deals`` duplicate
    deals at ``n`` players, seeded by ``unit_seed(config.seed, 0, seed_word, 4000)``
    (shared by expert iteration and distillation)."""
    from solvers.net._rounds import unit_seed

    from ..tournament import TournamentConfig, run_tournament, summarize as tsum
    agents = (f"network(checkpoint={str(path)!r})", "heuristic")
    tc = TournamentConfig(agents=agents, game={**base, "players": n},
                          deals=config.eval_deals,
                          seed=unit_seed(config.seed, 0, seed_word, 4000))
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
    return _generation(config, int(unit.params["generation"]))


CURVE_COLUMNS = ("generation", "samples", "train_samples", "policy_loss_before",
                 "policy_loss_after", "value_loss_before", "value_loss_after",
                 "net_minus_heuristic", "net_minus_heuristic_lo", "net_minus_heuristic_hi",
                 "net_minus_heuristic_p", "selfplay_seconds", "train_seconds", "eval_seconds")


def summarize(config: ExpertIterationConfig, rows) -> Summary:
    """The learning curve (table ``curve``) and a text table."""
    header = [f"expert iteration, self-play at {list(config.players)} players, network covers "
              f"{list(config.cover)}; net vs heuristic at {config.players[0]} players, "
              f"{config.eval_deals} duplicate deals (zero-sum payoff difference, 95% CI)",
              "gen  samples  policy CE before->after  value MSE before->after  "
              "net - heuristic [95% CI]  selfplay/train s"]

    def line(r) -> str:
        return (f"{r.generation:>3}  {r.samples:>7}  {r.policy_loss_before:.3f} -> "
                f"{r.policy_loss_after:.3f}        {r.value_loss_before:.4f} -> "
                f"{r.value_loss_after:.4f}        {r.net_minus_heuristic:+.2f} "
                f"[{r.net_minus_heuristic_lo:+.2f}, {r.net_minus_heuristic_hi:+.2f}]"
                f"  {r.selfplay_seconds:.1f}/{r.train_seconds:.1f}")
    return curve_summary(config, rows, CURVE_COLUMNS, "generation", header, line,
                         checkpoint_dir)


def curve_summary(config, rows, columns, sort, header: list[str], line, folder_of) -> Summary:
    """A learning curve's summary: table ``curve`` (``rows``' ``columns`` sorted
    by ``sort``) and a text of ``header``, ``line(row)`` for each row of the curve
    and the checkpoint folder (:func:`summary_checkpoint_folder`; shared by expert
    iteration and distillation)."""
    curve = rows[list(columns)].sort_values(sort).reset_index(drop=True)
    lines = [*header, *(line(r) for r in curve.itertuples())]
    folder = summary_checkpoint_folder(rows, config, folder_of)
    lines.append(f"checkpoints: {folder} (the rows' checkpoint column)")
    return Summary(tables={"curve": curve}, text="\n".join(lines))


register("expert_iteration", ExpertIterationConfig, units, run_unit, summarize,
         profiles=PROFILES, reproduce=False,
         description="expert iteration: policy-value network from ISMCTS self-play")
