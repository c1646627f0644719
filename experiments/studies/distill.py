"""Distillation: a raw policy-value network trained to beat the heuristic player.

``python -m experiments run distill [--profile quick|paper] [--set k=v]``
(``reproduce=False``: ``make reproduce`` does not run it). Two phases, one
runner unit each, every unit one *round* ``r = 0 .. rounds``:

* **round 0, behaviour cloning** (warm start): ``bc_hands`` hands of heuristic
  self-play at each player count of ``players``; every decision with a choice
  is a sample whose policy target is one-hot on the heuristic's move and whose
  value target is the hand's scaled returns (:mod:`solvers.net._selfplay`'s
  sample format). A fresh network (seeded) is trained ``bc_steps`` Adam steps
  on them. The labels cost nothing (the compiled heuristic plays anyway), so
  this phase gives a network that plays close to the heuristic cheaply.
* **rounds r >= 1, distillation of a stronger teacher** (DAgger): ``hands``
  hands at each player count in which every seat is, independently with
  probability ``net_share`` (at least one seat), the previous round's raw
  network (argmax) and otherwise the heuristic player. At each decision of a
  network seat with a choice, with probability ``label_fraction``, the
  *teacher* ``ismcts(iterations=teacher_iterations, rollout=teacher_rollout)``
  searches the same information state; its root visit distribution is the
  policy target (sharpened by ``target_temperature`` at training time, 0 =
  one-hot on the most visited); the value target is the hand's outcome. The
  network's own move is played (DAgger: the states are the ones the network
  reaches). The previous network is trained ``steps`` Adam steps on all the
  distillation samples so far plus the behaviour-cloning samples, which make
  up a share ``bc_mix * bc_decay ** (r - 1)`` of every minibatch (the rest is
  drawn uniformly from the distillation samples).

The loop is :class:`solvers.net._rounds.Rounds`, shared with
:mod:`experiments.studies.expert_iteration`; this module gives its hooks: the
labelled play (data), the training set of each phase and the evaluation.

Each round saves ``round-XXXX.npz`` (the checkpoint: state_dict + JSON config
with this experiment's config and hash) and its samples ``data-XXXX.npz`` in
the checkpoint folder, then evaluates the raw network (``network(checkpoint=
..., policy='argmax')``) against ``heuristic`` in a duplicate-deal tournament
(:mod:`experiments.tournament`, every rotation) of ``eval_deals`` deals at
each count of ``eval_players`` (default: ``players[0]``). Rows (the learning
curve, table ``curve``): one per (round, evaluation player count): samples
(new and trained on), policy cross-entropy and value MSE before and after
training (on the round's new samples), the net's zero-sum payoff minus the
heuristic's with its 95% interval and paired p-value, the teacher's labels
and seconds of play and labelling, training and evaluation.

**Checkpoint folder** (``checkpoints``; empty: ``<the run's --out>/checkpoints/
distill-<first 12 hex of the config's hash>``, :func:`experiments.runner.run_root`):
round ``r`` reads round ``r - 1``'s checkpoint and every earlier round's
samples; a missing or foreign one (another config hash) is recomputed first,
deterministically. A round whose own checkpoint is there and valid is not
recomputed: its row (stored in the checkpoint's config, with the original
``data_seconds`` and ``train_seconds``) is re-evaluated only. The hash leaves
out ``rounds``, ``eval_players`` and ``eval_deals``, so a longer run (or
another evaluation) reuses the rounds already trained. Units are sequential by
nature: run with ``--workers 1``.

**Reproducibility.** Every random stream is seeded from the config (numpy
Generators for chance, seat draws, labelling draws and minibatches;
splitmix64 streams of the agents; a ``torch.Generator`` for the initial
weights); torch runs with ``threads`` threads. On one machine a round
recomputed after an interruption gives bit-identical checkpoints and rows
apart from the ``*_seconds`` columns.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from pathlib import Path

import numpy as np

from .._base.config import ConfigError
from .._base.registry import Summary, Unit, register
from .expert_iteration import (base_params, checkpoint_folder, config_hash, curve_summary,
                               evaluate, feature_layout, net_rounds)

__all__ = ["DistillConfig", "PROFILES", "units", "run_unit", "summarize", "checkpoint_dir",
           "checkpoint_path", "play_labelled", "CURVE_COLUMNS"]

ROLLOUTS = ("heuristic", "random")


@dataclasses.dataclass(frozen=True)
class DistillConfig:
    """Behaviour cloning of the heuristic, then DAgger distillation of an ISMCTS teacher."""

    players: tuple[int, ...] = (6,)          # training player counts
    cover: tuple[int, ...] = (5, 6, 7, 8, 9, 10, 11)   # player counts the network covers
    game: tuple[str, ...] = ()               # other game parameters, "key=value"
    bc_hands: int = 4                        # heuristic self-play hands per player count
    bc_steps: int = 20
    rounds: int = 2                          # distillation rounds after behaviour cloning
    hands: int = 2                           # DAgger hands per round and player count
    net_share: float = 0.5                   # chance that a seat is the network
    label_fraction: float = 0.5              # network decisions labelled by the teacher
    teacher_iterations: int = 32
    teacher_rollout: str = "heuristic"
    target_temperature: float = 0.0          # teacher target = visits ** (1 / T); 0: one-hot
    steps: int = 20                          # training steps per distillation round
    bc_mix: float = 0.25                     # share of each minibatch from the BC samples
    bc_decay: float = 1.0                    # round r >= 1 uses bc_mix * bc_decay ** (r - 1)
    bc_lr: float = 0.0                       # learning rate of round 0 (0: lr)
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_coef: float = 1.0
    hidden: int = 64
    blocks: int = 1
    hint: str = ""                           # "heuristic": the heuristic's move as an input
    eval_players: tuple[int, ...] = ()       # () = players[0]
    eval_deals: int = 2
    threads: int = 1                         # torch threads (fixed for reproducibility)
    checkpoints: str = ""                    # folder; "" = under the run's results folder
    seed: int = 20261202

    def __post_init__(self):
        for name in ("bc_hands", "bc_steps", "hands", "teacher_iterations", "steps", "batch",
                     "hidden", "eval_deals", "threads"):
            if getattr(self, name) < 1:
                raise ConfigError(f"distill: {name} must be >= 1, got {getattr(self, name)}")
        for name in ("rounds", "blocks"):
            if getattr(self, name) < 0:
                raise ConfigError(f"distill: {name} must be >= 0, got {getattr(self, name)}")
        if not self.players or not set(self.players) <= set(self.cover):
            raise ConfigError(f"distill: players {list(self.players)} must be a non-empty "
                              f"subset of cover {list(self.cover)}")
        if not set(self.eval_players) <= set(self.cover):
            raise ConfigError(f"distill: eval_players {list(self.eval_players)} must be a "
                              f"subset of cover {list(self.cover)}")
        from solvers.net._features import HINTS
        if self.hint not in ("", *HINTS):
            raise ConfigError(f"distill: hint={self.hint!r}; allowed: '' (none), "
                              + ", ".join(repr(h) for h in HINTS))
        if self.teacher_rollout not in ROLLOUTS:
            raise ConfigError(f"distill: teacher_rollout={self.teacher_rollout!r}; allowed: "
                              f"{ROLLOUTS}")
        for name in ("net_share", "label_fraction"):
            if not 0.0 < getattr(self, name) <= 1.0:
                raise ConfigError(f"distill: {name}={getattr(self, name)} must be in (0, 1]")
        if not 0.0 <= self.bc_mix < 1.0:
            raise ConfigError(f"distill: bc_mix={self.bc_mix} must be in [0, 1)")
        if not 0.0 <= self.target_temperature <= 10.0:
            raise ConfigError(f"distill: target_temperature={self.target_temperature} must "
                              f"be in [0, 10] (0: one-hot on the most visited)")
        if not 0.0 < self.bc_decay <= 1.0:
            raise ConfigError(f"distill: bc_decay={self.bc_decay} must be in (0, 1]")
        if not (self.lr > 0 and self.bc_lr >= 0 and self.weight_decay >= 0
                and self.value_coef >= 0):
            raise ConfigError("distill: lr must be > 0, bc_lr, weight_decay and value_coef "
                              ">= 0")


PROFILES = {
    # Seconds: a tiny network, a few hands, short teacher searches.
    "quick": DistillConfig(),
    # The run of research/distill/ (about an hour on the shared 2-core machine, see there).
    "paper": DistillConfig(bc_hands=1500, bc_steps=3000, bc_lr=2e-3, rounds=24, hands=50,
                           label_fraction=1.0, teacher_iterations=300,
                           target_temperature=0.5, steps=400, bc_mix=0.5, bc_decay=0.85,
                           batch=256, hidden=128, blocks=2, eval_deals=60),
}
# Classic 4-player Hearts (one pack, spiel_game's preset "classic"), with the 3-card
# pass to the left and without passing: one heuristic-guided network each (the
# layout is per rule set). The network makes every decision, its passes included
# (the teacher searches them like plays). ``rounds`` is a ceiling: the run of
# research/classic_net/ is stopped when its time is up, and every round's
# checkpoint is usable (and a longer run reuses it: ``rounds`` is not hashed).
_CLASSIC = ("deck=classic", "packs=1", "moon=both")
PROFILES["classic"] = dataclasses.replace(
    PROFILES["paper"], players=(4,), cover=(4,), game=_CLASSIC, hint="heuristic",
    bc_hands=3000, rounds=60, hands=100, teacher_iterations=1000, eval_deals=100)
PROFILES["classic_nopass"] = dataclasses.replace(PROFILES["classic"],
                                                 game=_CLASSIC + ("pass_count=0",))


#: Config fields the checkpoints do not depend on (a longer run reuses them).
_NOT_HASHED = ("checkpoints", "rounds", "eval_players", "eval_deals")


def _ignored(config) -> tuple[str, ...]:
    """The fields left out of the hash; ``hint`` too when empty, so that a config
    without a hint keeps the hash (and checkpoint folder) it had before the field."""
    return _NOT_HASHED + (() if config.hint else ("hint",))


def _hash(config) -> str:
    """The hash of what the checkpoints and samples depend on: not where they go,
    how many rounds follow, nor the evaluation (a longer run reuses them)."""
    return config_hash(config, _ignored(config))


def checkpoint_dir(config) -> Path:
    """The folder of the checkpoints and samples (module docstring)."""
    return checkpoint_folder(config, "distill", _ignored(config))


def checkpoint_path(config, r: int) -> Path:
    """The checkpoint of round ``r`` (0: behaviour cloning)."""
    return checkpoint_dir(config) / f"round-{r:04d}.npz"


# ------------------------------------------------------------------ data
def play_labelled(game, layout, actors, teachers, hands: int, rng: np.random.Generator,
                  label_fraction: float = 1.0):
    """Play ``hands`` hands of ``game``, seat ``q`` played by ``actors[q]`` (agents
    with ``step``), and record samples (:mod:`solvers.net._selfplay` format).

    ``teachers[q]``: ``None`` (seat ``q`` is not labelled), ``"self"`` (the
    target is one-hot on the actor's own move: behaviour cloning) or an object
    with ``search(state) -> (actions, visits, ...)`` (the target is the visit
    distribution; the search runs only on decisions drawn with probability
    ``label_fraction`` from ``rng``). Decisions with one legal action are not
    recorded. Chance draws from ``rng``. Returns ``(samples, returns
    float[hands, n], searches)`` (``searches``: the teacher searches run)."""
    from solvers.net._selfplay import record_hands
    A = layout.num_actions
    searches = 0

    def decide(st, me):
        nonlocal searches
        teacher = teachers[me]
        pol = None
        if teacher is not None and teacher != "self" and rng.random() < label_fraction:
            acts, vis = teacher.search(st)[:2]
            searches += 1
            pol = np.zeros(A, np.float32)
            pol[acts] = vis / vis.sum()
        action = int(actors[me].step(st))
        if teacher == "self":
            pol = np.zeros(A, np.float32)
            pol[action] = 1.0
        return action, pol

    samples, rets = record_hands(game, layout, hands, rng, decide)
    return samples, rets, searches


# ------------------------------------------------------------------ rounds
def _round(config, r: int) -> list[dict]:
    """Compute round ``r`` (its predecessors first if missing); returns its rows."""
    return net_rounds(config, "distill", _ignored(config),
                      play=functools.partial(_play, config),
                      training_set=functools.partial(_training_set, config),
                      evaluate=functools.partial(_evaluate_rows, config),
                      store_row=True).run(r)


def _play(config, r: int, game, layout, rng, prev):
    """The data hook: round ``r``'s hands at one player count: heuristic self-play
    labelled by its own moves (round 0), else DAgger hands with network seats
    (checkpoint ``prev``) labelled by the teacher."""
    from solvers._base.bots import HeuristicBot
    from solvers._ismcts import ISMCTSBot
    from solvers.net._agents import NetworkBot
    from solvers.net._rounds import unit_seed
    from solvers.net._selfplay import concat
    n = game.num_players()
    if r == 0:
        actors = [HeuristicBot(game, q, unit_seed(config.seed, r, n, q)) for q in range(n)]
        samples, _, _ = play_labelled(game, layout, actors, ["self"] * n, config.bc_hands, rng)
        return samples, {"teacher_searches": 0}
    parts, searches = [], 0
    for h in range(config.hands):           # a fresh draw of network seats per hand
        net = rng.random(n) < config.net_share
        if not net.any():
            net[rng.integers(n)] = True
        actors, teachers = [], []
        for q in range(n):
            seed = unit_seed(config.seed, r, n, q, h)
            if net[q]:
                actors.append(NetworkBot(game, q, seed, checkpoint=str(prev)))
                teachers.append(ISMCTSBot(game, q, seed ^ 1,
                                          iterations=config.teacher_iterations,
                                          rollout=config.teacher_rollout))
            else:
                actors.append(HeuristicBot(game, q, seed))
                teachers.append(None)
        samples, _, k = play_labelled(game, layout, actors, teachers, 1, rng,
                                      config.label_fraction)
        parts.append(samples)
        searches += k
    return concat(parts), {"teacher_searches": searches}


def _training_set(config, r: int):
    """The training-set hook: round 0 trains on its behaviour-cloning samples;
    round ``r >= 1`` on every distillation round's samples so far, with the
    behaviour-cloning samples mixed into each minibatch. Losses on the round's
    new samples."""
    from solvers.net._rounds import TrainingSet
    if r == 0:
        return TrainingSet(steps=config.bc_steps, lr=config.bc_lr or config.lr,
                           losses_on="new", row={"phase": "bc"})
    return TrainingSet(steps=config.steps, lr=config.lr, rounds=tuple(range(1, r)),
                       extra_rounds=(0,), extra_share=config.bc_mix * config.bc_decay ** (r - 1),
                       target_temperature=config.target_temperature, losses_on="new",
                       row={"phase": "distill"})


def _evaluate_rows(config, r: int, path, row: dict) -> list[dict]:
    """The evaluation hook: the round's rows, ``row`` (what training recorded, fresh
    or stored in the checkpoint) with the raw network against the heuristic at
    each count of ``eval_players``."""
    from solvers.net._rounds import weights_sha256
    keys = ("round", "phase", "samples", "train_samples", "teacher_searches",
            "policy_loss_before", "policy_loss_after", "value_loss_before", "value_loss_after",
            "data_seconds", "train_seconds")     # one column order, fresh or stored
    common = {**{k: row[k] for k in keys}, "checkpoint": str(path),
              "checkpoint_sha256": weights_sha256(path)}
    base, rows = base_params(config), []
    for n in (config.eval_players or config.players[:1]):
        t0 = time.perf_counter()
        ev = evaluate(config, path, base, n, n)
        rows.append({**common, **ev, "eval_seconds": time.perf_counter() - t0})
    return rows


# ------------------------------------------------------------------ runner experiment
def units(config: DistillConfig) -> list[dict]:
    """One unit per round (0: behaviour cloning); checks the game family first."""
    try:
        feature_layout(config)
    except ValueError as err:
        raise ConfigError(f"distill: {err}") from None
    return [{"round": r} for r in range(config.rounds + 1)]


def run_unit(config: DistillConfig, unit: Unit) -> list[dict]:
    """Round ``unit.params['round']``: its learning-curve rows."""
    return _round(config, int(unit.params["round"]))


CURVE_COLUMNS = ("round", "phase", "eval_players", "samples", "train_samples",
                 "teacher_searches", "policy_loss_before", "policy_loss_after",
                 "value_loss_before", "value_loss_after", "net_minus_heuristic",
                 "net_minus_heuristic_lo", "net_minus_heuristic_hi", "net_minus_heuristic_p",
                 "data_seconds", "train_seconds", "eval_seconds")


def summarize(config: DistillConfig, rows) -> Summary:
    """The learning curve (table ``curve``) and a text table."""
    header = [f"distill: behaviour cloning of the heuristic ({config.bc_hands} hands), then "
              f"{config.rounds} DAgger rounds labelled by ismcts(iterations="
              f"{config.teacher_iterations}, rollout={config.teacher_rollout}); self-play at "
              f"{list(config.players)} players; raw net (argmax) vs heuristic, "
              f"{config.eval_deals} duplicate deals (zero-sum payoff difference, 95% CI)",
              "round phase    n  samples  policy CE before->after  value MSE before->after"
              "  net - heuristic [95% CI]     p  data/train s"]

    def line(r) -> str:
        return (f"{r.round:>5} {r.phase:<7} {r.eval_players:>2}  {r.samples:>7}  "
                f"{r.policy_loss_before:.3f} -> {r.policy_loss_after:.3f}        "
                f"{r.value_loss_before:.4f} -> {r.value_loss_after:.4f}        "
                f"{r.net_minus_heuristic:+.2f} [{r.net_minus_heuristic_lo:+.2f}, "
                f"{r.net_minus_heuristic_hi:+.2f}]  {r.net_minus_heuristic_p:.1g}  "
                f"{r.data_seconds:.0f}/{r.train_seconds:.0f}")
    return curve_summary(config, rows, CURVE_COLUMNS, ["round", "eval_players"], header, line,
                         checkpoint_dir)


register("distill", DistillConfig, units, run_unit, summarize, profiles=PROFILES,
         reproduce=False,
         description="raw network vs heuristic: behaviour cloning + ISMCTS distillation")
