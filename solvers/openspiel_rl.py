"""OpenSpiel's PyTorch DQN and NFSP trained by self-play on Cancellation Hearts.

Training (:func:`train`, ``python -m solvers.openspiel_rl train ...``) runs
OpenSpiel's own agents, ``open_spiel.python.pytorch.dqn.DQN`` and
``open_spiel.python.pytorch.nfsp.NFSP``, through OpenSpiel's
``rl_environment.Environment`` on ``python_cancellation_hearts`` with any
game parameters. **One agent object per seat** (independent learners, as in
OpenSpiel's examples): seat ``p`` has its own networks and buffers and learns
from its own experience; the checkpoint keeps every seat's network and the
agent for seat ``p`` plays network ``p``.

**Inputs and rewards.** ``observation="observation"`` (default) feeds the
game's observation tensor (916 floats at 6 players: own hand, passed and
received cards, the current trick, every card played so far, voids, points
taken, the pot: the summary a card player keeps); ``"info_state"`` feeds the
information-state tensor (the whole history, 6,312 floats at 6 players, a
network about 7 times larger). Rewards are the game's returns (only at the
end of the hand) times ``1 / reward_scale``; ``reward_scale`` defaults to
the largest absolute utility of the game (52 at 6 players), so the targets
lie in [-1, 1].

**Seeds.** Everything is drawn from ``seed``: the environment's chance
sampler (the deals), the evaluation deals and opponents, and the network
initialisation. OpenSpiel's DQN and NFSP draw their exploration, their
buffer samples and NFSP's policy choice from numpy's and torch's *global*
generators (and reseed them when they build a network); :func:`train` seeds
both from ``seed`` and restores their previous states when it returns, so a
caller's global streams are left as they were. One quirk of OpenSpiel's
NFSP: its inner DQN network is always initialised with OpenSpiel's default
seed 42 (the ``seed`` argument only reaches the average network), so NFSP
runs that differ only in ``seed`` start from the same Q-network but see
different deals and exploration. Same seed, configuration and number of torch
threads (``threads``, default 1) give the same networks on the CPU (tested).

**Learning curve.** Before training and every ``eval_every`` episodes the
current policy (exactly what the registered agent plays: DQN greedy, NFSP's
average policy) plays ``eval_episodes`` fixed deals (the same deals at every
point, seeded by ``seed``) on seat ``e % players`` of episode ``e`` against
``eval_opponent`` (a registry spec, default ``random``) on the other seats;
the curve records its mean return (points per hand, higher is better) and
the mean training loss since the previous point. ``baseline`` is the same
evaluation with a uniformly random player in the learner's place.

**Checkpoint.** :func:`save_checkpoint` writes ``NAME.pt`` (the format and
its bounded reading are :mod:`solvers._openspiel_rl_play`'s) and ``NAME.json``
with the configuration, the learning curve, episodes trained, wall time,
package versions and git commit (:mod:`experiments._base.metadata`).

**The agents.** ``dqn(checkpoint='PATH.pt')`` and ``nfsp(checkpoint='PATH.pt',
greedy=False)`` play a checkpoint (:class:`solvers._openspiel_rl_play.OpenSpielRLBot`).

Not done: OpenSpiel's PPO (its ``PPO`` class is a single learner stepping
vectorised environments, not a turn-based self-play agent); resuming one
training run in the middle (a run is a unit: the runner study
:mod:`experiments.studies.rl_baselines` resumes by skipping finished
(algorithm, seed) units).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

from ._openspiel_rl_play import (ALGORITHMS, FORMAT, OBSERVATIONS, OpenSpielRLBot, _global_rngs,
                                _input_size, _openspiel_torch, _policy, _tensor, dqn_agent,
                                load_checkpoint, nfsp_agent)

__all__ = ["TrainConfig", "ALGORITHMS", "OBSERVATIONS", "FORMAT", "train", "save_checkpoint",
           "load_checkpoint", "OpenSpielRLBot", "dqn_agent", "nfsp_agent", "TrainResult", "main"]


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """One self-play training run of OpenSpiel's DQN or NFSP.

    ``game``: game parameters (``players`` etc.; :func:`spiel_game.load`).
    ``episodes``: hands of self-play. ``hidden``: hidden layer sizes.
    DQN/NFSP hyper-parameters are OpenSpiel's arguments of the same meaning
    (``learn_every``, ``batch_size``, ``min_buffer_size_to_learn`` are in
    steps of one seat's agent; an episode is about 21 steps per seat at 6
    players). ``epsilon_*``: the inner DQN's exploration (exponential decay
    over ``epsilon_decay_duration`` steps). NFSP only: ``anticipatory``,
    ``reservoir_capacity``, ``sl_learning_rate``. ``device``: ``cpu``,
    ``cuda`` or ``auto`` (cuda when available). ``threads``: torch threads.
    """

    algorithm: str = "dqn"
    game: dict = dataclasses.field(default_factory=lambda: {"players": 6})
    episodes: int = 1000
    seed: int = 0
    observation: str = "observation"
    hidden: tuple[int, ...] = (128,)
    batch_size: int = 128
    learning_rate: float = 5e-4
    optimizer: str = "adam"
    replay_capacity: int = 10_000
    min_buffer_size_to_learn: int = 1000
    learn_every: int = 10
    update_target_every: int = 500
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    epsilon_decay_duration: int = 20_000
    anticipatory: float = 0.1
    reservoir_capacity: int = 20_000
    sl_learning_rate: float = 5e-4
    reward_scale: float | None = None
    eval_every: int = 100
    eval_episodes: int = 30
    eval_opponent: str = "random"
    device: str = "cpu"
    threads: int = 1

    def __post_init__(self):
        object.__setattr__(self, "hidden", tuple(self.hidden))
        object.__setattr__(self, "game", dict(self.game))
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r} is not allowed; allowed: "
                             f"{', '.join(ALGORITHMS)}")
        if self.observation not in OBSERVATIONS:
            raise ValueError(f"observation={self.observation!r} is not allowed; allowed: "
                             f"{', '.join(OBSERVATIONS)}")
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer={self.optimizer!r} is not allowed; allowed: "
                             f"'adam', 'sgd'")
        if self.device not in ("cpu", "cuda", "auto"):
            raise ValueError(f"device={self.device!r} is not allowed; allowed: 'cpu', "
                             f"'cuda', 'auto'")
        ints = {"episodes": 0, "batch_size": 1, "replay_capacity": 1,
                "min_buffer_size_to_learn": 1, "learn_every": 1, "update_target_every": 1,
                "epsilon_decay_duration": 1, "reservoir_capacity": 1, "eval_every": 1,
                "eval_episodes": 0, "threads": 1}
        for name, lo in ints.items():
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ValueError(f"{name}={v!r} is not allowed; allowed: an int >= {lo}")
        if self.learn_every < 3:
            # OpenSpiel's DQN.learn() runs before the step's transition is stored and
            # fails on an empty replay buffer when learn_every is 1 or 2.
            raise ValueError(f"learn_every={self.learn_every!r} is not allowed; allowed: an "
                             f"int >= 3 (OpenSpiel's DQN would learn from an empty buffer)")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed={self.seed!r} is not allowed; allowed: an int in "
                             f"[0, 2**63)")
        if not self.hidden or any(not isinstance(h, int) or h < 1 for h in self.hidden):
            raise ValueError(f"hidden={self.hidden!r} is not allowed; allowed: a non-empty "
                             f"tuple of positive ints")
        for name in ("learning_rate", "sl_learning_rate"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name}={v!r} is not allowed; allowed: a finite number > 0")
        if not 0 <= self.epsilon_end <= self.epsilon_start <= 1 or self.epsilon_start <= 0:
            raise ValueError(f"epsilon_start={self.epsilon_start!r}, epsilon_end="
                             f"{self.epsilon_end!r} are not allowed; allowed: "
                             f"0 <= epsilon_end <= epsilon_start <= 1, epsilon_start > 0")
        if not 0 <= self.anticipatory <= 1:
            raise ValueError(f"anticipatory={self.anticipatory!r} is not allowed; allowed: "
                             f"a number in [0, 1]")
        if self.reward_scale is not None and not (
                isinstance(self.reward_scale, (int, float)) and math.isfinite(self.reward_scale)
                and self.reward_scale > 0):
            raise ValueError(f"reward_scale={self.reward_scale!r} is not allowed; allowed: "
                             f"None (the game's largest absolute utility) or a number > 0")

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d


@dataclasses.dataclass
class TrainResult:
    """What :func:`train` returns: the per-seat networks' state dicts (the
    policy the agent plays; NFSP also its Q-networks), the learning curve, the
    random baseline of the evaluation and bookkeeping."""

    config: TrainConfig
    game_string: str
    input_size: int
    num_actions: int
    reward_scale: float
    policy_networks: list[dict]
    q_networks: list[dict] | None
    curve: list[dict]
    baseline: float | None
    episodes: int
    seconds: float
    git_commit: str | None = None    # of the code that trained (None: an installed wheel)


# --------------------------------------------------------------------------- helpers
def _device(name: str) -> str:
    import torch
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' but torch sees no CUDA device; use 'cpu' or 'auto'")
    return name


def _sub_seed(seed: int, *key: int) -> int:
    """A 31-bit seed derived from ``(seed, key)`` (OpenSpiel's RandomState wants < 2**32)."""
    ss = np.random.SeedSequence(entropy=seed, spawn_key=key)
    return int(ss.generate_state(1, np.uint32)[0] >> np.uint32(1))


def load_game(params: dict):
    """``python_cancellation_hearts(params)``; a bad parameter is a ValueError
    naming the parameters and what is wrong."""
    import spiel_game
    try:
        return spiel_game.load(dict(params))
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise ValueError(f"bad game parameters {dict(params)}: {e}") from None


def _evaluate(game, config: TrainConfig, nets, rng_seed: int, learner: str = "net") -> float:
    """Mean return of the learner (``net``: the networks' policy; ``random``) on
    ``config.eval_episodes`` fixed deals against ``config.eval_opponent``."""
    from ._registry import make_agent
    if config.eval_episodes == 0:
        return float("nan")
    n = game.num_players()
    chance = np.random.default_rng(_sub_seed(rng_seed, 0))
    play = np.random.default_rng(_sub_seed(rng_seed, 1))
    total = 0.0
    for e in range(config.eval_episodes):
        seat = e % n
        bots = {p: make_agent(config.eval_opponent, game, p, _sub_seed(rng_seed, 2, e, p))
                for p in range(n) if p != seat}
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(chance.choice(outcomes, p=np.asarray(probs) /
                                                     np.sum(probs))))
                continue
            p = state.current_player()
            if p == seat:
                legal = state.legal_actions(p)
                if learner == "random":
                    a = legal[int(play.integers(len(legal)))]
                else:
                    _, a = _policy(nets[p], _tensor(state, p, config.observation), legal,
                                   config.algorithm, False, play)
            else:
                a = bots[p].step(state)
            state.apply_action(int(a))
        total += state.returns()[seat]
    return total / config.eval_episodes


def _make_agents(config: TrainConfig, n: int, input_size: int, num_actions: int, device: str):
    """One OpenSpiel DQN or NFSP agent per seat, with this run's hyper-parameters."""
    dqn, nfsp = _openspiel_torch()
    common = dict(batch_size=config.batch_size, min_buffer_size_to_learn=
                  config.min_buffer_size_to_learn, learn_every=config.learn_every,
                  optimizer_str=config.optimizer, device=device)
    rl = dict(replay_buffer_capacity=config.replay_capacity,
              update_target_network_every=config.update_target_every,
              epsilon_start=config.epsilon_start, epsilon_end=config.epsilon_end,
              epsilon_decay_duration=config.epsilon_decay_duration)
    agents = []
    for p in range(n):
        net_seed = _sub_seed(config.seed, 10, p)
        if config.algorithm == "dqn":
            agents.append(dqn.DQN(p, input_size, num_actions, list(config.hidden),
                                  learning_rate=config.learning_rate, seed=net_seed,
                                  **common, **rl))
        else:
            agents.append(nfsp.NFSP(p, input_size, num_actions, list(config.hidden),
                                    config.reservoir_capacity, config.anticipatory,
                                    rl_learning_rate=config.learning_rate,
                                    sl_learning_rate=config.sl_learning_rate, seed=net_seed,
                                    **common, **rl))
    return agents


def _policy_net(agent, algorithm: str):
    """The network an agent plays with (OpenSpiel keeps it in an attribute:
    DQN's Q-network, NFSP's average-policy network)."""
    return agent._q_network if algorithm == "dqn" else agent._avg_network


def _state_dict(net) -> dict:
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


def _losses(agent, algorithm: str) -> tuple[float | None, float | None]:
    """The agent's last training losses ``(loss, rl_loss)``: DQN ``(its TD loss,
    None)``, NFSP ``(the supervised loss of its average network, its inner DQN's
    TD loss)``; None before the first update."""
    if algorithm == "dqn":
        pair = (agent.loss, None)
    else:
        pair = agent.loss
    return tuple(None if v is None else float(v) for v in pair)


# --------------------------------------------------------------------------- training
def train(config: TrainConfig, *, progress=None) -> TrainResult:
    """Train ``config.algorithm`` by self-play (one agent per seat) for
    ``config.episodes`` hands through ``rl_environment.Environment``; returns
    the networks and the learning curve (module docstring). ``progress``: an
    optional callable ``progress(curve_point)`` called at every curve point."""
    from open_spiel.python import rl_environment
    game = load_game(config.game)
    n = game.num_players()
    if config.game.get("players", 6) != n:
        config = dataclasses.replace(config, game={**config.game, "players": n})
    input_size = _input_size(game, config.observation)
    num_actions = game.num_distinct_actions()
    scale = config.reward_scale or max(abs(game.min_utility()), abs(game.max_utility()), 1.0)
    device = _device(config.device)
    kind = (rl_environment.ObservationType.OBSERVATION if config.observation == "observation"
            else rl_environment.ObservationType.INFORMATION_STATE)
    from spiel_game._provenance import git_commit
    commit = git_commit()
    t0 = time.perf_counter()
    curve: list[dict] = []
    eval_seed = _sub_seed(config.seed, 1)
    from .net._model import torch_threads
    with torch_threads(config.threads), _global_rngs(_sub_seed(config.seed, 2)):
        agents = _make_agents(config, n, input_size, num_actions, device)
        nets = [_policy_net(a, config.algorithm) for a in agents]
        # OpenSpiel reseeds the global generators when it builds a network: seed them
        # again so training draws from this run's seed.
        with _global_rngs(_sub_seed(config.seed, 3)):
            baseline = (_evaluate(game, config, nets, eval_seed, learner="random")
                        if config.eval_episodes else None)
            env = rl_environment.Environment(game, observation_type=kind)
            env.seed(_sub_seed(config.seed, 4))
            losses: list[float] = []
            rl_losses: list[float] = []

            def point(episode: int):
                for net in nets:
                    net.eval()
                ret = _evaluate(game, config, nets, eval_seed)
                for net in nets:
                    net.train()
                pt = {"episode": episode, "mean_return": ret,
                      "loss": float(np.mean(losses)) if losses else None,
                      "rl_loss": float(np.mean(rl_losses)) if rl_losses else None,
                      "seconds": time.perf_counter() - t0}
                losses.clear()
                rl_losses.clear()
                curve.append(pt)
                if progress:
                    progress(pt)

            def scaled(ts):
                if ts.rewards is None:
                    return ts
                return ts._replace(rewards=[r / scale for r in ts.rewards])

            if config.eval_episodes:
                point(0)
            for episode in range(1, config.episodes + 1):
                ts = env.reset()
                while not ts.last():
                    p = ts.observations["current_player"]
                    out = agents[p].step(scaled(ts))
                    if out is None or out.action is None:
                        raise RuntimeError(f"OpenSpiel's {config.algorithm} agent of seat {p} "
                                           f"returned no action in episode {episode} (a NaN "
                                           f"loss?); lower learning_rate")
                    ts = env.step([out.action])
                last = scaled(ts)
                for a in agents:
                    a.step(last)
                for a in agents:
                    v, w = _losses(a, config.algorithm)
                    if v is not None:
                        losses.append(v)
                    if w is not None:
                        rl_losses.append(w)
                if config.eval_episodes and (episode % config.eval_every == 0
                                             or episode == config.episodes):
                    point(episode)
        policy = [_state_dict(net) for net in nets]
        qnets = ([_state_dict(a._rl_agent._q_network) for a in agents]
                 if config.algorithm == "nfsp" else None)
    return TrainResult(config=config, game_string=str(game), input_size=input_size,
                       num_actions=num_actions, reward_scale=float(scale),
                       policy_networks=policy, q_networks=qnets, curve=curve,
                       baseline=baseline, episodes=config.episodes,
                       seconds=time.perf_counter() - t0, git_commit=commit)


# --------------------------------------------------------------------------- checkpoints
def save_checkpoint(result: TrainResult, path: str | Path, extra: dict | None = None) -> Path:
    """Write ``path`` (``.pt``: the networks) and ``path`` with ``.json`` (config,
    curve, provenance); both atomically. Returns the ``.pt`` path."""
    import torch
    from spiel_game._provenance import metadata
    path = Path(path)
    if path.suffix != ".pt":
        path = path.with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = {"format": FORMAT, "algorithm": result.config.algorithm,
            "game": result.game_string, "game_params": dict(result.config.game),
            "observation": result.config.observation, "input_size": result.input_size,
            "num_actions": result.num_actions, "hidden": list(result.config.hidden),
            "players": len(result.policy_networks), "episodes": result.episodes,
            "policy_networks": result.policy_networks}
    if result.q_networks is not None:
        blob["q_networks"] = result.q_networks
    tmp = path.with_name("." + path.name + ".tmp")
    torch.save(blob, tmp)
    os.replace(tmp, path)
    meta = metadata(result.config.to_dict(), result.config.seed)
    meta["git_commit_at_save"] = meta["git_commit"]
    meta["git_commit"] = result.git_commit
    try:
        import torch as _t
        meta["versions"]["torch"] = _t.__version__
    except ImportError:     # pragma: no cover
        pass
    doc = {"format": FORMAT, "checkpoint": path.name, "algorithm": result.config.algorithm,
           "game": result.game_string, "config": result.config.to_dict(),
           "seats": "one agent object per seat; seat p plays policy_networks[p]",
           "input_size": result.input_size, "num_actions": result.num_actions,
           "reward_scale": result.reward_scale, "episodes_trained": result.episodes,
           "train_seconds": result.seconds, "eval_baseline_random": result.baseline,
           "curve": result.curve, "metadata": meta, **(extra or {})}
    jpath = path.with_suffix(".json")
    jtmp = jpath.with_name("." + jpath.name + ".tmp")
    jtmp.write_text(json.dumps(doc, indent=1, default=str))
    os.replace(jtmp, jpath)
    return path


# --------------------------------------------------------------------------- CLI
def _game_arg(text: str) -> dict:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"--game must be JSON like '{{\"players\": 6}}': "
                                         f"{e}") from None
    if not isinstance(d, dict):
        raise argparse.ArgumentTypeError("--game must be a JSON object like "
                                         "'{\"players\": 6}'")
    return d


def main(argv=None) -> int:
    """``python -m solvers.openspiel_rl train --algorithm dqn --episodes 2000 --out
    results/rl/dqn6.pt`` (every :class:`TrainConfig` field is an option)."""
    ap = argparse.ArgumentParser(prog="python -m solvers.openspiel_rl",
                                 description="train OpenSpiel's DQN/NFSP on Cancellation "
                                             "Hearts by self-play and save a checkpoint")
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train", help="train and write OUT.pt and OUT.json")
    tr.add_argument("--out", required=True, help="checkpoint path (.pt)")
    tr.add_argument("--game", type=_game_arg, default={"players": 6},
                    help='game parameters as JSON (default \'{"players": 6}\')')
    defaults = TrainConfig()
    for f in dataclasses.fields(TrainConfig):
        if f.name == "game":
            continue
        opt = "--" + f.name.replace("_", "-")
        d = getattr(defaults, f.name)
        if f.name == "hidden":
            tr.add_argument(opt, type=int, nargs="+", default=list(d))
        elif f.name == "reward_scale":
            tr.add_argument(opt, type=float, default=None)
        elif f.name in ("algorithm", "observation", "optimizer", "device"):
            choices = {"algorithm": ALGORITHMS, "observation": OBSERVATIONS,
                       "optimizer": ("adam", "sgd"), "device": ("cpu", "cuda", "auto")}
            tr.add_argument(opt, choices=choices[f.name], default=d)
        else:
            tr.add_argument(opt, type=type(d), default=d)
    args = ap.parse_args(argv)
    kw = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)}
    kw["hidden"] = tuple(kw["hidden"])
    try:
        config = TrainConfig(**kw)
    except ValueError as e:
        ap.error(str(e))

    def show(pt):
        loss = "-" if pt["loss"] is None else f"{pt['loss']:.4f}"
        print(f"episode {pt['episode']:>7}  mean return vs {config.eval_opponent} "
              f"{pt['mean_return']:8.3f}  loss {loss}  {pt['seconds']:8.1f} s", flush=True)

    try:
        result = train(config, progress=show)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    path = save_checkpoint(result, args.out)
    print(f"random learner on the same evaluation deals: {result.baseline}")
    print(f"wrote {path} and {path.with_suffix('.json')} ({result.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
