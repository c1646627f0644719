"""Playing a checkpoint of :mod:`solvers.openspiel_rl`: its format, its reading, the agents.

**Checkpoint.** ``NAME.pt`` (written by :func:`solvers.openspiel_rl.save_checkpoint`;
``torch.save`` of plain tensors and values, read back with ``weights_only=True``:
nothing is unpickled) holds the format tag, the algorithm, the game string and
parameters, the tensor kind and size, the layer sizes and every seat's policy
network ``state_dict`` (NFSP: the average network; its Q-networks too).
Reading is bounded (a checkpoint is untrusted input): only a regular file of
at most :data:`MAX_PT_BYTES` is opened, its zip members must be stored
uncompressed (as ``torch.save`` writes them) so nothing inflates, and the
sizes (``input_size``, ``num_actions``, at most :data:`MAX_LAYERS` ``hidden``
layers of at most :data:`MAX_HIDDEN` units, at most
:data:`solvers.net._checkpoint.MAX_PARAMETERS` parameters) and every tensor's
name, dtype (float32: nothing is cast) and shape are checked before a network
is built.

**The agents.** ``dqn(checkpoint='PATH.pt')`` and ``nfsp(checkpoint='PATH.pt',
greedy=False)`` (:func:`dqn_agent`, :func:`nfsp_agent`; built-in agents of
:mod:`solvers._registry`) build an :class:`OpenSpielRLBot` playing the
checkpoint's network for their seat over the legal actions: DQN the legal
action of highest Q-value; NFSP a draw from its average policy (softmax over
the legal actions, the bot's own seeded generator), or its most likely action
with ``greedy=True``. A missing or damaged file, a file that is not such a
checkpoint, one of the other algorithm or one trained for another game
(player count or any other parameter) raises :class:`AgentParameterError`
saying what is wrong.
"""

from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from pathlib import Path

import numpy as np

from spiel_game._checks import shorten

from ._base.bots import Agent, AgentParameterError, check_game, check_seed

__all__ = ["FORMAT", "ALGORITHMS", "OBSERVATIONS", "MAX_PT_BYTES", "MAX_LAYERS", "MAX_HIDDEN",
           "MAX_INPUT", "MAX_ACTIONS", "load_checkpoint", "OpenSpielRLBot", "dqn_agent",
           "nfsp_agent"]

FORMAT = "cancellation-hearts/openspiel-rl/1"
ALGORITHMS = ("dqn", "nfsp")
OBSERVATIONS = ("observation", "info_state")


@contextlib.contextmanager
def _global_rngs(seed: int | None):
    """Seed numpy's and torch's global generators (OpenSpiel's DQN/NFSP use them)
    from ``seed`` (if not None) and restore their previous states afterwards."""
    import torch
    np_state = np.random.get_state()
    torch_state = torch.get_rng_state()
    try:
        if seed is not None:
            ss = np.random.SeedSequence(seed)
            np.random.seed(int(ss.generate_state(1, np.uint32)[0]))
            torch.manual_seed(int(ss.generate_state(2, np.uint64)[1] >> np.uint64(1)))
        yield
    finally:
        np.random.set_state(np_state)
        torch.set_rng_state(torch_state)


def _tensor(state, player: int, observation: str) -> list[float]:
    return (state.observation_tensor(player) if observation == "observation"
            else state.information_state_tensor(player))


def _input_size(game, observation: str) -> int:
    return (game.observation_tensor_size() if observation == "observation"
            else game.information_state_tensor_size())


def _openspiel_torch():
    """OpenSpiel's ``dqn`` and ``nfsp`` PyTorch modules (they need PyTorch and
    ``dm-tree``: the extra ``torch``)."""
    from spiel_game._extras import require
    what = "OpenSpiel's PyTorch DQN/NFSP"
    return (require("open_spiel.python.pytorch.dqn", "torch", what),
            require("open_spiel.python.pytorch.nfsp", "torch", what))


def _make_mlp(input_size: int, hidden, num_actions: int):
    """OpenSpiel's ``dqn.MLP`` (the network class DQN and NFSP use), built without
    touching the caller's global generators (its constructor reseeds them)."""
    dqn, _ = _openspiel_torch()
    with _global_rngs(None):
        return dqn.MLP(input_size, list(hidden), num_actions)


def _policy(net, tensor, legal, algorithm: str, greedy: bool, rng: np.random.Generator):
    """The network's policy over ``legal`` and the action it plays: DQN (or
    ``greedy``) the legal action of highest output, else a draw from the
    softmax of the outputs over the legal actions (NFSP's average policy)."""
    import torch
    with torch.inference_mode():
        x = torch.as_tensor(np.asarray(tensor, dtype=np.float32)).reshape(1, -1)
        out = net(x).squeeze(0).double().cpu().numpy()[list(legal)]
    if algorithm == "dqn" or greedy:
        i = int(np.argmax(out))
        return [(a, 1.0 if j == i else 0.0) for j, a in enumerate(legal)], legal[i]
    z = np.exp(out - out.max())
    p = z / z.sum()
    i = int(rng.choice(len(legal), p=p))
    return [(a, float(q)) for a, q in zip(legal, p)], legal[i]


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8
#: The longest ``.pt`` checkpoint file read.
MAX_PT_BYTES = 1 << 28
#: The most hidden layers, and the most units in one, of a checkpoint's network.
MAX_LAYERS, MAX_HIDDEN = 16, 8192
#: The largest input and action counts of a checkpoint's network.
MAX_INPUT, MAX_ACTIONS = 1 << 20, 1 << 16


def _mlp_shapes(input_size: int, hidden, num_actions: int) -> dict:
    """``{name: shape}`` of the state_dict of :func:`_make_mlp` for these sizes, built
    on torch's ``meta`` device (nothing allocated)."""
    import torch
    with torch.device("meta"):
        net = _make_mlp(input_size, hidden, num_actions)
    return {k: tuple(v.shape) for k, v in net.state_dict().items()}


def _check_networks(blob: dict) -> str | None:
    """What is wrong with the sizes and seat networks of a loaded checkpoint (None:
    nothing): sizes within :data:`MAX_INPUT`, :data:`MAX_ACTIONS`,
    :data:`MAX_LAYERS` x :data:`MAX_HIDDEN` and the parameter limit, and every
    seat's ``state_dict`` exactly the network's names, shapes and float32."""
    import torch

    from .net._checkpoint import MAX_PARAMETERS
    D, A, hidden = blob["input_size"], blob["num_actions"], blob["hidden"]
    if not 1 <= D <= MAX_INPUT:
        return f"field 'input_size' is {D}; allowed: 1..{MAX_INPUT}"
    if not 1 <= A <= MAX_ACTIONS:
        return f"field 'num_actions' is {A}; allowed: 1..{MAX_ACTIONS}"
    if (not 1 <= len(hidden) <= MAX_LAYERS or not all(
            isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_HIDDEN
            for h in hidden)):
        return (f"field 'hidden' is {shorten(hidden)}; allowed: 1..{MAX_LAYERS} layer sizes, "
                f"each an integer 1..{MAX_HIDDEN}")
    widths = [D, *hidden, A]
    count = sum(a * b + b for a, b in zip(widths, widths[1:]))
    if count > MAX_PARAMETERS:
        return (f"its sizes (input_size={D}, hidden={hidden}, num_actions={A}) ask for "
                f"{count:,} parameters; the limit is {MAX_PARAMETERS:,}")
    want = _mlp_shapes(D, hidden, A)
    nets = blob["policy_networks"]
    if len(nets) > 64:
        return f"{len(nets)} seat networks; allowed: at most 64"
    for q, sd in enumerate(nets):
        if not isinstance(sd, dict):
            return f"seat {q}'s network is a {type(sd).__name__}, not a state_dict"
        if set(sd) != set(want):
            return (f"seat {q}'s network does not fit {hidden} hidden units: it has tensors "
                    f"{shorten(sorted(map(str, sd)))}, expected {sorted(want)}")
        for k, shape in want.items():
            t = sd[k]
            if not isinstance(t, torch.Tensor) or t.dtype != torch.float32:
                what = t.dtype if isinstance(t, torch.Tensor) else type(t).__name__
                return f"seat {q}'s {k} is {what}; allowed: float32 (nothing is cast)"
            if tuple(t.shape) != shape:
                return (f"seat {q}'s network does not fit {hidden} hidden units: {k} has "
                        f"shape {tuple(t.shape)}, expected {shape}")
            if not bool(torch.isfinite(t).all()):
                return f"seat {q}'s {k} holds NaN or infinity"
    return None


def load_checkpoint(path: str | Path, agent: str = "openspiel_rl") -> dict:
    """The checkpoint at ``path`` (a dict, see :func:`save_checkpoint`), checked;
    :class:`AgentParameterError` if it is missing, damaged or not one of ours.
    Cached by (path, size, mtime)."""
    try:
        import torch
    except ImportError:
        from spiel_game._extras import install_hint
        raise AgentParameterError(f"{agent}: needs PyTorch, which is not installed (extra "
                                  f"'torch'): {install_hint('torch')}") from None
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise AgentParameterError(f"{agent}: checkpoint={path!r} is not allowed; allowed: "
                                  f"the path of a .pt file written by solvers.openspiel_rl "
                                  f"(none ships: train one with python -m "
                                  f"solvers.openspiel_rl train --algorithm "
                                  f"{agent if agent in ALGORITHMS else 'dqn|nfsp'} --out "
                                  f"PATH.pt)")
    p = Path(path)
    from .net._checkpoint import CheckpointError, open_regular_file, zip_members
    try:
        p.stat()
    except OSError as e:
        raise AgentParameterError(f"{agent}: checkpoint {str(p)!r} cannot be read "
                                  f"({e.strerror or e}); train one with python -m "
                                  f"solvers.openspiel_rl train") from None
    try:
        f = open_regular_file(p, "checkpoint", "python -m solvers.openspiel_rl train",
                              MAX_PT_BYTES)
    except CheckpointError as e:
        raise AgentParameterError(f"{agent}: {e}") from None
    with f:
        st = os.fstat(f.fileno())
        key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
        try:
            zip_members(f, st.st_size, f"checkpoint {str(p)!r}", max_total=st.st_size,
                        label="torch checkpoint",
                        methods=(0,)).close()
            f.seek(0)
            blob = torch.load(f, map_location="cpu", weights_only=True)
        except CheckpointError as e:
            raise AgentParameterError(f"{agent}: {e}") from None
        except Exception as e:      # truncated, not a zip, pickled code refused, ...
            raise AgentParameterError(f"{agent}: checkpoint {str(p)!r} is damaged or not a "
                                      f"torch checkpoint ({type(e).__name__}: "
                                      f"{str(e).splitlines()[0][:200] if str(e) else ''})"
                                      ) from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        got = blob.get("format") if isinstance(blob, dict) else type(blob).__name__
        raise AgentParameterError(f"{agent}: {str(p)!r} is not a checkpoint of "
                                  f"solvers.openspiel_rl (format {shorten(got)}, expected "
                                  f"{FORMAT!r})")
    need = {"algorithm": str, "game": str, "observation": str, "input_size": int,
            "num_actions": int, "hidden": list, "policy_networks": list}
    for k, t in need.items():
        if not isinstance(blob.get(k), t) or isinstance(blob.get(k), bool):
            raise AgentParameterError(f"{agent}: checkpoint {str(p)!r} is damaged: field "
                                      f"{k!r} missing or not a {t.__name__} (got "
                                      f"{shorten(blob.get(k))})")
    if blob["algorithm"] not in ALGORITHMS or blob["observation"] not in OBSERVATIONS:
        raise AgentParameterError(f"{agent}: checkpoint {str(p)!r} is damaged: algorithm "
                                  f"{shorten(blob['algorithm'])} / observation "
                                  f"{shorten(blob['observation'])} unknown")
    problem = _check_networks(blob)
    if problem:
        raise AgentParameterError(f"{agent}: checkpoint {str(p)!r} is damaged: {problem}")
    _CACHE[key] = blob
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return blob


def _param_diff(a: str, b: str) -> str:
    """The parameters that differ between two game strings, as text."""
    def parse(s):
        inner = s[s.find("(") + 1:s.rfind(")")] if "(" in s else ""
        return dict(kv.split("=", 1) for kv in inner.split(",") if "=" in kv)
    pa, pb = parse(a), parse(b)
    diffs = [f"{k}={pa.get(k, '?')} (checkpoint) vs {pb.get(k, '?')} (this game)"
             for k in sorted(set(pa) | set(pb)) if pa.get(k) != pb.get(k)]
    return "; ".join(diffs) or f"{a!r} vs {b!r}"


# --------------------------------------------------------------------------- the agents
class OpenSpielRLBot(Agent):
    """Plays a trained checkpoint's network of OpenSpiel's DQN or NFSP for its seat
    (module docstring)."""

    def __init__(self, game, player: int, seed: int = 0, *, checkpoint: str,
                 algorithm: str, greedy: bool = False):
        name = f"{algorithm}"
        check_game(game, player, name)
        check_seed(seed, name)
        if not isinstance(greedy, bool):
            raise AgentParameterError(f"{name}: greedy={greedy!r} is not allowed; allowed: "
                                      f"True, False")
        blob = load_checkpoint(checkpoint, name)
        if blob["algorithm"] != algorithm:
            raise AgentParameterError(
                f"{name}: checkpoint {str(checkpoint)!r} holds a {blob['algorithm']} policy; "
                f"use the agent {blob['algorithm']}(checkpoint=...)")
        if blob["game"] != str(game):
            raise AgentParameterError(
                f"{name}: checkpoint {str(checkpoint)!r} was trained for another game: "
                f"{_param_diff(blob['game'], str(game))}")
        nets = blob["policy_networks"]
        if len(nets) != game.num_players() or not 0 <= player < len(nets):
            raise AgentParameterError(f"{name}: checkpoint {str(checkpoint)!r} is damaged: "
                                      f"{len(nets)} seat networks for a "
                                      f"{game.num_players()}-player game")
        super().__init__(game, player, seed)
        size = _input_size(game, blob["observation"])
        if size != blob["input_size"] or game.num_distinct_actions() != blob["num_actions"]:
            raise AgentParameterError(f"{name}: checkpoint {str(checkpoint)!r} expects "
                                      f"{blob['input_size']} inputs and {blob['num_actions']} "
                                      f"actions; this game has {size} and "
                                      f"{game.num_distinct_actions()}")
        self.net = _make_mlp(size, blob["hidden"], blob["num_actions"])
        try:
            self.net.load_state_dict(nets[player])
        except (RuntimeError, KeyError, TypeError, AttributeError) as e:
            raise AgentParameterError(f"{name}: checkpoint {str(checkpoint)!r} is damaged: "
                                      f"seat {player}'s network does not fit "
                                      f"{blob['hidden']} hidden units "
                                      f"({str(e).splitlines()[0][:200]})") from None
        self.net.eval()
        self.algorithm = algorithm
        self.observation = blob["observation"]
        self.greedy = greedy
        self.checkpoint = str(checkpoint)
        self._rng = np.random.default_rng(self.seed)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        return _policy(self.net, _tensor(state, self.player, self.observation), legal,
                       self.algorithm, self.greedy, self._rng)

    def __repr__(self) -> str:
        return (f"OpenSpielRLBot({self.algorithm}, checkpoint={self.checkpoint!r}, "
                f"player={self.player}, seed={self.seed})")


def dqn_agent(game, player, seed=0, *, checkpoint: str = ""):
    """OpenSpiel's DQN trained by :mod:`solvers.openspiel_rl`: the greedy policy of
    the checkpoint's Q-network for this seat, over the legal actions. ``checkpoint``:
    the ``.pt`` file (trained for this very game, else AgentParameterError)."""
    return OpenSpielRLBot(game, player, seed, checkpoint=checkpoint, algorithm="dqn")


def nfsp_agent(game, player, seed=0, *, checkpoint: str = "", greedy: bool = False):
    """OpenSpiel's NFSP trained by :mod:`solvers.openspiel_rl`: the average policy of
    the checkpoint for this seat over the legal actions, sampled with the agent's
    seed (``greedy=True``: its most likely action). ``checkpoint``: the ``.pt`` file
    (trained for this very game, else AgentParameterError)."""
    return OpenSpielRLBot(game, player, seed, checkpoint=checkpoint, algorithm="nfsp",
                      greedy=greedy)
