"""OpenSpiel's neural baselines (PyTorch DQN and NFSP) trained by self-play, as a runner experiment.

A tool like ``tournament`` (``make reproduce`` does not run it): ``python -m
experiments run rl_baselines --profile paper --set seeds=2 --workers 1``. One
unit per (algorithm, seed index): :func:`solvers.openspiel_rl.train` with the
game of ``players`` and ``game`` (``"key=value"`` strings, as in the
``tournament`` experiment), ``episodes`` of self-play, then the checkpoint
``<checkpoint_dir>/<algorithm>-seed<i>.pt`` (and its ``.json``). The training
seed of index ``i`` is drawn from ``(seed, i)``, so DQN and NFSP of the same
index see the same training and evaluation deals. A killed run resumes with the
same command: finished units are not trained again (the runner's shards).

``checkpoint_dir`` (default ``""``): ``<results root>/rl_baselines-checkpoints/
<8 hex of the configuration>``, so different configurations never share
checkpoints; the rows name each file. The checkpoints play as agents
``dqn(checkpoint='PATH')`` and ``nfsp(checkpoint='PATH')`` in tournaments.
``options``: further :class:`solvers.openspiel_rl.TrainConfig` fields as
``"key=value"`` (e.g. ``("learning_rate=0.001", "observation=info_state")``).

Rows: one per learning-curve point: ``algorithm``, ``seed_index``,
``train_seed``, ``episode``, ``mean_return`` (points per hand of the learner
against ``eval_opponent`` on the fixed evaluation deals; higher is better),
``loss``, ``rl_loss`` (NFSP's inner DQN), ``seconds`` (since the start of
training), ``baseline`` (a uniformly random learner on the same deals) and
``checkpoint``. Tables: ``final`` (per algorithm: the last point's mean
return over seeds, the baseline, training seconds).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np

from .._base.config import ConfigError
from .._base.registry import Summary, Unit, register
from .tournament import TournamentStudyConfig, game_params

__all__ = ["RLBaselinesConfig", "PROFILES", "train_config", "checkpoint_path", "units",
           "run_unit", "summarize"]


@dataclasses.dataclass(frozen=True)
class RLBaselinesConfig:
    """Self-play training of OpenSpiel's DQN/NFSP; one unit per (algorithm, seed index)."""

    algorithms: tuple[str, ...] = ("dqn", "nfsp")
    seeds: int = 1
    players: int = 6
    game: tuple[str, ...] = ()
    episodes: int = 5000
    hidden: tuple[int, ...] = (128,)
    eval_every: int = 500
    eval_episodes: int = 60
    eval_opponent: str = "random"
    options: tuple[str, ...] = ()
    checkpoint_dir: str = ""
    seed: int = 0

    def __post_init__(self):
        if self.seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {self.seeds}")


PROFILES = {
    # 5 players, 40 episodes, a small network: about a minute on one core.
    "quick": RLBaselinesConfig(players=5, episodes=40, hidden=(32,), eval_every=20,
                               eval_episodes=6, options=("min_buffer_size_to_learn=200",
                                                         "batch_size=32")),
    "paper": RLBaselinesConfig(),
}


def _train_seed(config: RLBaselinesConfig, index: int) -> int:
    ss = np.random.SeedSequence(entropy=config.seed, spawn_key=(index,))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def train_config(config: RLBaselinesConfig, algorithm: str, index: int):
    """The :class:`solvers.openspiel_rl.TrainConfig` of unit (algorithm, seed index)."""
    from solvers.openspiel_rl import TrainConfig
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    kw = {}
    for item in config.options:
        key, sep, value = str(item).partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in fields or key in ("algorithm", "game", "seed", "episodes",
                                                    "hidden", "eval_every", "eval_episodes",
                                                    "eval_opponent"):
            allowed = sorted(set(fields) - {"algorithm", "game", "seed", "episodes", "hidden",
                                            "eval_every", "eval_episodes", "eval_opponent"})
            raise ConfigError(f"rl_baselines: options entries are key=value with key one of "
                              f"{', '.join(allowed)} (the others are fields of the "
                              f"experiment); got {item!r}")
        default = getattr(TrainConfig(), key)
        try:
            if isinstance(default, bool):
                kw[key] = value.lower() in ("1", "true", "yes")
            elif isinstance(default, int):
                kw[key] = int(value)
            elif isinstance(default, float) or default is None:
                kw[key] = float(value)
            else:
                kw[key] = value
        except ValueError:
            raise ConfigError(f"rl_baselines: option {key} needs a "
                              f"{type(default).__name__}, got {value!r}") from None
    game = game_params(TournamentStudyConfig(players=config.players, game=config.game))
    try:
        return TrainConfig(algorithm=algorithm, game=game, episodes=config.episodes,
                           seed=_train_seed(config, index), hidden=tuple(config.hidden),
                           eval_every=config.eval_every, eval_episodes=config.eval_episodes,
                           eval_opponent=config.eval_opponent, **kw)
    except ValueError as e:
        raise ConfigError(f"rl_baselines: {e}") from None


def checkpoint_path(config: RLBaselinesConfig, algorithm: str, index: int) -> Path:
    """Where unit (algorithm, seed index) writes its checkpoint (module docstring)."""
    from ..runner import results_root
    if config.checkpoint_dir:
        root = Path(config.checkpoint_dir)
    else:
        d = dataclasses.asdict(config)
        d.pop("checkpoint_dir")
        h = hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:8]
        root = results_root() / "rl_baselines-checkpoints" / h
    return root / f"{algorithm}-seed{index}.pt"


def units(config: RLBaselinesConfig) -> list[dict]:
    """One unit per (algorithm, seed index); every training config and the game are
    checked first (:class:`ConfigError`)."""
    from solvers.openspiel_rl import ALGORITHMS, load_game
    from solvers._registry import AgentSpecError, make_agent
    bad = [a for a in config.algorithms if a not in ALGORITHMS]
    if bad or not config.algorithms:
        raise ConfigError(f"rl_baselines: algorithms {list(config.algorithms)}: allowed "
                          f"{', '.join(ALGORITHMS)} (at least one)")
    tc = train_config(config, config.algorithms[0], 0)
    try:
        game = load_game(tc.game)
        make_agent(config.eval_opponent, game, 0, 0)
    except (ValueError, AgentSpecError) as e:
        raise ConfigError(f"rl_baselines: {e}") from None
    return [{"algorithm": a, "seed_index": i} for a in config.algorithms
            for i in range(config.seeds)]


def run_unit(config: RLBaselinesConfig, unit: Unit) -> list[dict]:
    """Train one (algorithm, seed index), save its checkpoint; the curve as rows."""
    from solvers.openspiel_rl import save_checkpoint, train
    alg, index = unit.params["algorithm"], unit.params["seed_index"]
    tc = train_config(config, alg, index)
    result = train(tc)
    path = save_checkpoint(result, checkpoint_path(config, alg, index),
                           extra={"experiment": "rl_baselines",
                                  "experiment_config": dataclasses.asdict(config)})
    return [{"algorithm": alg, "seed_index": index, "train_seed": tc.seed,
             "episode": p["episode"], "mean_return": p["mean_return"], "loss": p["loss"],
             "rl_loss": p["rl_loss"], "seconds": p["seconds"], "baseline": result.baseline,
             "checkpoint": str(path)} for p in result.curve]


def summarize(config: RLBaselinesConfig, rows) -> Summary:
    """Per algorithm: the final evaluation's mean return over seeds (and its range),
    the random baseline, training seconds."""
    import pandas as pd
    df = pd.DataFrame(rows)
    out, lines = [], [f"{'algorithm':<10} {'seeds':>5} {'episodes':>8} {'return':>8} "
                      f"{'min':>8} {'max':>8} {'random':>8} {'train s':>8}"]
    if len(df):
        last = df.loc[df.groupby(["algorithm", "seed_index"])["episode"].idxmax()]
        for alg, g in last.groupby("algorithm", sort=False):
            r = {"algorithm": alg, "seeds": len(g), "episodes": int(g["episode"].max()),
                 "mean_return": float(g["mean_return"].mean()),
                 "min_return": float(g["mean_return"].min()),
                 "max_return": float(g["mean_return"].max()),
                 "baseline": float(g["baseline"].mean()),
                 "train_seconds": float(g["seconds"].mean())}
            out.append(r)
            lines.append(f"{alg:<10} {r['seeds']:>5} {r['episodes']:>8} "
                         f"{r['mean_return']:>8.3f} {r['min_return']:>8.3f} "
                         f"{r['max_return']:>8.3f} {r['baseline']:>8.3f} "
                         f"{r['train_seconds']:>8.1f}")
    text = (f"mean return per hand (points, higher is better) vs {config.eval_opponent} on "
            f"{config.eval_episodes} fixed deals after training\n" + "\n".join(lines))
    return Summary(tables={"final": pd.DataFrame(out)}, text=text)


register("rl_baselines", RLBaselinesConfig, units, run_unit, summarize, profiles=PROFILES,
         description="OpenSpiel's DQN and NFSP trained by self-play (checkpoints for the "
                     "dqn/nfsp agents)", reproduce=False)
