"""The policy-value network in PyTorch: model, losses, training step, checkpoints.

:class:`PolicyValueNet`: input = the padded information-state features of
:class:`solvers.net._features.FeatureLayout` as sparse rows (indices, values,
offsets); a sparse first layer (``EmbeddingBag`` in ``sum`` mode with the
values as weights, plus a bias: the same as a dense linear layer on the
features, at the cost of the non-zeros only), ReLU, ``blocks`` residual blocks
``h = relu(h + W2 relu(W1 h + b1) + b2)``, then two heads:

* policy: logits over the game's distinct actions; with a legal mask the
  illegal ones are ``-inf`` (so a softmax gives them probability 0 and an
  argmax never picks them);
* value: ``max_players`` outputs through a sigmoid, the *scaled* return
  ``(u - min_utility) / (max_utility - min_utility)`` of every seat relative
  to the player to move (output 0: the player itself; output ``r``: the seat
  ``r`` places to its left). Outputs ``r >= n`` are unused at ``n`` players.

Runs on CPU; ``device="cuda"`` (or ``"auto"``) uses a GPU when one is present.
Parameters are initialised from a seeded ``torch.Generator`` (never the global
RNG). Checkpoints: :func:`save_checkpoint` / :func:`load_model`
(:mod:`solvers.net._checkpoint`, ``.npz`` + JSON config).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from spiel_game._extras import require
from spiel_game._provenance import git_commit

from ._checkpoint import read_checkpoint, versions, write_checkpoint
from ._features import FeatureLayout

torch = require("torch", "torch", "training and loading the policy-value network "
                "(solvers.net._model)")
nn = torch.nn

__all__ = ["PolicyValueNet", "losses", "to_batch", "sharpen", "save_checkpoint", "load_model",
           "pick_device", "torch_threads"]


def pick_device(device: str = "cpu") -> torch.device:
    """``"cpu"``, ``"cuda"`` or ``"auto"`` (a GPU when one is present)."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device={device!r}; allowed: 'cpu', 'cuda', 'auto'")
    return torch.device(device)


class PolicyValueNet(nn.Module):
    """The network (module docstring). ``forward(idx, val, offsets, mask=None)``
    returns ``(logits float[B, num_actions], value float[B, max_players])``."""

    def __init__(self, input_size: int, num_actions: int, max_players: int, *,
                 hidden: int = 128, blocks: int = 2, seed: int = 0):
        super().__init__()
        for name, v, lo in (("input_size", input_size, 1), ("num_actions", num_actions, 1),
                            ("max_players", max_players, 1), ("hidden", hidden, 1),
                            ("blocks", blocks, 0)):
            if not isinstance(v, int) or v < lo:
                raise ValueError(f"PolicyValueNet: {name}={v!r}; allowed: an int >= {lo}")
        self.sizes = {"input_size": input_size, "num_actions": num_actions,
                      "max_players": max_players, "hidden": hidden, "blocks": blocks}
        self.seed = int(seed)
        self.embed = nn.EmbeddingBag(input_size, hidden, mode="sum", include_last_offset=True)
        self.bias0 = nn.Parameter(torch.zeros(hidden))
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(hidden, hidden),
                                                  nn.Linear(hidden, hidden))
                                    for _ in range(blocks))
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, max_players)
        gen = torch.Generator().manual_seed(self.seed)
        with torch.no_grad():
            # The first layer sums ~100-300 active inputs: small weights keep it O(1).
            self.embed.weight.uniform_(-0.05, 0.05, generator=gen)
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    b = 1.0 / math.sqrt(m.in_features)
                    m.weight.uniform_(-b, b, generator=gen)
                    m.bias.zero_()
            for blk in self.blocks:          # residual branches start near zero
                blk[1].weight.mul_(0.1)

    def forward(self, idx, val, offsets, mask=None):
        h = torch.relu(self.embed(idx, offsets, per_sample_weights=val) + self.bias0)
        for blk in self.blocks:
            h = torch.relu(h + blk[1](torch.relu(blk[0](h))))
        logits = self.policy(h)
        if mask is not None:
            logits = logits.masked_fill(~mask, float("-inf"))
        return logits, torch.sigmoid(self.value(h))


def sharpen(policy: np.ndarray, temperature: float) -> np.ndarray:
    """Rows of ``policy`` raised to ``1 / temperature`` and renormalised (1: unchanged;
    0: one-hot on the largest entry, ties shared)."""
    policy = np.asarray(policy, np.float64)
    if temperature == 1.0:
        return policy.astype(np.float32)
    if temperature == 0.0:
        out = (policy == policy.max(axis=1, keepdims=True)).astype(np.float64)
    else:
        out = policy ** (1.0 / temperature)
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def to_batch(samples: dict, rows, device="cpu", target_temperature: float = 1.0) -> dict:
    """Tensors of the samples ``rows`` (a training set: see :mod:`solvers.net._selfplay`);
    the policy targets sharpened by ``target_temperature`` (:func:`sharpen`)."""
    rows = np.asarray(rows, np.int64)
    offs = samples["offsets"]
    starts, ends = offs[rows], offs[rows + 1]
    idx = np.concatenate([samples["indices"][a:b] for a, b in zip(starts, ends)])
    val = np.concatenate([samples["values"][a:b] for a, b in zip(starts, ends)])
    new_offs = np.concatenate([[0], np.cumsum(ends - starts)])
    t = {"idx": torch.from_numpy(idx), "val": torch.from_numpy(val),
         "offsets": torch.from_numpy(new_offs.astype(np.int64)),
         "mask": torch.from_numpy(samples["mask"][rows]),
         "policy": torch.from_numpy(sharpen(samples["policy"][rows], target_temperature)),
         "value": torch.from_numpy(samples["value"][rows]),
         "value_mask": torch.from_numpy(samples["value_mask"][rows])}
    return {k: v.to(device) for k, v in t.items()}


def losses(model: PolicyValueNet, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """``(policy cross-entropy to the target distribution, value MSE over the
    seats that exist)``, means over the batch."""
    logits, value = model(batch["idx"], batch["val"], batch["offsets"], batch["mask"])
    logp = torch.log_softmax(logits, dim=1)
    target = batch["policy"]
    # 0 * -inf is NaN: illegal actions have target 0 and contribute nothing.
    ce = -torch.where(target > 0, target * logp, torch.zeros_like(logp)).sum(1).mean()
    vm = batch["value_mask"]
    mse = (((value - batch["value"]) ** 2) * vm).sum() / vm.sum().clamp(min=1)
    return ce, mse


def save_checkpoint(path, model: PolicyValueNet, layout: FeatureLayout, **extra):
    """Write ``model`` with its config (:mod:`solvers.net._checkpoint`); ``extra``
    (``step``, ``generation``, anything JSON) goes into the config."""
    params = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
    config = {**model.sizes, "seed": model.seed, "layout": layout.to_dict(),
              "layout_fingerprint": layout.fingerprint, "versions": versions(),
              "commit": git_commit(), **extra}
    config.setdefault("step", 0)
    config.setdefault("generation", 0)
    return write_checkpoint(path, params, config)


def load_model(path, device="cpu") -> tuple[PolicyValueNet, dict]:
    """``(model, config)`` of a checkpoint (checked; see :func:`read_checkpoint`)."""
    config, params = read_checkpoint(path)
    model = PolicyValueNet(**{k: config[k] for k in model_sizes()}, seed=config.get("seed", 0))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()})
    return model.to(pick_device(device) if isinstance(device, str) else device), config


def model_sizes() -> tuple[str, ...]:
    return ("input_size", "num_actions", "max_players", "hidden", "blocks")


@contextlib.contextmanager
def torch_threads(n: int):
    """Run the block with torch on ``n`` threads, restoring the count after (the
    training steps of expert iteration, distillation and OpenSpiel's RL baselines)."""
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)
