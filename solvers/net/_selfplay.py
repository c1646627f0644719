"""Self-play with search, recording training samples; training the network on them.

:func:`play_hands` plays whole hands in which every seat is played by a search
agent (a :class:`solvers._ismcts.ISMCTSBot` or
:class:`solvers._ismcts_net.NetISMCTSBot`, one per seat) that records, at each
decision with more than one legal action, a sample: the information-state
features of the player to move (sparse, :class:`~solvers.net._features.FeatureLayout`),
the legal mask, the root's visit distribution (the policy target) and, once
the hand is over, every seat's scaled return relative to that player (the
value target; ``value_mask`` marks the seats that exist). The move played is
the most visited (ties broken by the seeded stream). Chance (the deal) draws
from a numpy Generator.

Samples are a dict of arrays (CSR features): ``indices``, ``values``,
``offsets`` (rows), ``mask``, ``policy``, ``value``, ``value_mask``,
``players`` (player count), ``seat``; :func:`concat`, :func:`save_samples`
and :func:`load_samples` (``.npz``). :func:`train` fits the network
(:func:`solvers.net._model.losses`: policy cross-entropy plus value MSE, Adam,
minibatches drawn by a seeded generator, optionally mixing in a second set);
:mod:`solvers.net._rounds` runs the rounds of data, training and checkpoints
around it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ._features import FeatureLayout

__all__ = ["play_hand", "record_hands", "play_hands", "concat", "save_samples", "load_samples",
           "train", "evaluate_losses"]

_KEYS = ("indices", "values", "offsets", "mask", "policy", "value", "value_mask", "players",
         "seat")


def _chance(state, rng) -> int:
    outcomes, probs = zip(*state.chance_outcomes())
    return int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / np.sum(probs))])


def play_hand(game, rng: np.random.Generator, decide) -> np.ndarray:
    """Play one hand of ``game``: chance draws from ``rng``, a decision with one
    legal action is taken, and at every other decision ``decide(state, player)``
    returns the action to play (it must not change ``state``). Returns the
    hand's returns ``float64[n]``. The one hand loop of self-play, of
    :func:`experiments.studies.distill.play_labelled` and of the label benchmark."""
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(_chance(st, rng))
            continue
        legal = st.legal_actions()
        if len(legal) == 1:
            st.apply_action(legal[0])
            continue
        st.apply_action(int(decide(st, st.current_player())))
    return np.asarray(st.returns(), np.float64)


def record_hands(game, layout: FeatureLayout, hands: int, rng: np.random.Generator, decide):
    """Play ``hands`` hands (:func:`play_hand`) with ``decide(state, player) ->
    (action, policy)``: where ``policy`` (``float32[num_actions]``) is not None
    a sample is recorded with it as the policy target (the player's features
    and legal mask at ``state``, and once the hand is over every seat's scaled
    return relative to the player as the value target). Returns ``(samples,
    returns float[hands, n])``."""
    n = game.num_players()
    lo, hi = game.min_utility(), game.max_utility()
    A, V = layout.num_actions, layout.max_players
    rows, rets, hand_rows = [], [], []

    def pick(st, me):
        action, pol = decide(st, me)
        if pol is not None:
            s = np.asarray(st.engine_state)
            idx, val, _ = layout.sparse(game, s, [me])
            hand_rows.append((idx, val, layout.mask(game, s)[0], pol, me))
        return action

    for _ in range(hands):
        hand_rows.clear()
        ret = play_hand(game, rng, pick)
        rets.append(ret)
        scaled = (ret - lo) / (hi - lo)
        for idx, val, mask, pol, me in hand_rows:
            value = np.zeros(V, np.float32)
            vmask = np.zeros(V, np.float32)
            for r in range(n):
                value[r] = scaled[(me + r) % n]
                vmask[r] = 1.0
            rows.append((idx, val, mask, pol, value, vmask, n, me))
    return _pack(rows, A, V), np.array(rets).reshape(hands, n)


def play_hands(game, layout: FeatureLayout, bots, hands: int, rng: np.random.Generator):
    """Play ``hands`` hands of ``game`` with ``bots[seat]`` (search agents with a
    ``search(state)`` method); returns ``(samples, returns float[hands, n])``."""
    A = layout.num_actions

    def decide(st, me):
        out = bots[me].search(st)
        acts, vis = out[0], out[1]
        pol = np.zeros(A, np.float32)
        if vis.sum() > 0:
            pol[acts] = vis / vis.sum()
        else:                                   # no visit yet: the prior
            pol[acts] = out[3] / out[3].sum()
        best = np.flatnonzero(pol == pol.max())
        return int(best[rng.integers(len(best))]), pol

    return record_hands(game, layout, hands, rng, decide)


def _pack(rows, A: int, V: int) -> dict:
    lens = [len(r[0]) for r in rows]
    return {"indices": np.concatenate([r[0] for r in rows]) if rows else np.zeros(0, np.int64),
            "values": (np.concatenate([r[1] for r in rows]).astype(np.float32) if rows
                       else np.zeros(0, np.float32)),
            "offsets": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
            "mask": np.array([r[2] for r in rows], np.bool_).reshape(len(rows), A),
            "policy": np.array([r[3] for r in rows], np.float32).reshape(len(rows), A),
            "value": np.array([r[4] for r in rows], np.float32).reshape(len(rows), V),
            "value_mask": np.array([r[5] for r in rows], np.float32).reshape(len(rows), V),
            "players": np.array([r[6] for r in rows], np.int64),
            "seat": np.array([r[7] for r in rows], np.int64)}


def size(samples: dict) -> int:
    """Number of samples."""
    return int(samples["offsets"].shape[0] - 1)


def concat(parts) -> dict:
    """One sample set from several (in order)."""
    parts = list(parts)
    out = {k: np.concatenate([p[k] for p in parts]) for k in _KEYS if k != "offsets"}
    offs, base = [np.zeros(1, np.int64)], 0
    for p in parts:
        offs.append(p["offsets"][1:] + base)
        base += int(p["offsets"][-1])
    out["offsets"] = np.concatenate(offs)
    return out


def save_samples(path, samples: dict) -> Path:
    """Write ``samples`` to ``path`` (``.npz``) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **{k: samples[k] for k in _KEYS})
    os.replace(tmp, path)
    return path


def load_samples(path) -> dict:
    """Samples written by :func:`save_samples` (a missing key raises ``ValueError``)."""
    with np.load(path, allow_pickle=False) as z:
        missing = [k for k in _KEYS if k not in z.files]
        if missing:
            raise ValueError(f"{path}: not a sample file (missing {missing})")
        return {k: z[k] for k in _KEYS}


def evaluate_losses(model, samples: dict, batch_size: int = 512,
                    target_temperature: float = 1.0) -> tuple[float, float]:
    """Mean ``(policy cross-entropy, value MSE)`` of ``model`` over ``samples``
    (policy targets sharpened by ``target_temperature``), on the model's device."""
    import torch

    from ._model import losses, to_batch
    n = size(samples)
    ce_sum = mse_sum = 0.0
    with torch.no_grad():
        for a in range(0, n, batch_size):
            rows = np.arange(a, min(n, a + batch_size))
            ce, mse = losses(model, to_batch(samples, rows, device=_device(model),
                                             target_temperature=target_temperature))
            ce_sum += float(ce) * len(rows)
            mse_sum += float(mse) * len(rows)
    return ce_sum / max(n, 1), mse_sum / max(n, 1)


def train(model, samples: dict, *, steps: int, batch_size: int = 128, lr: float = 1e-3,
          weight_decay: float = 1e-4, value_coef: float = 1.0, seed: int = 0,
          target_temperature: float = 1.0, device: str = "cpu", extra: dict | None = None,
          extra_share: float = 0.0) -> list[dict]:
    """``steps`` Adam steps on minibatches of ``samples`` (rows drawn with replacement
    from ``numpy.random.default_rng(seed)``; policy targets = the visit distributions
    sharpened by ``target_temperature``, :func:`solvers.net._model.sharpen`); returns
    the per-step losses. ``extra`` (optional, e.g. the behaviour-cloning samples of
    distillation): each minibatch then has ``round(extra_share * batch_size)`` rows of
    it (targets as they are, temperature 1) and the rest from ``samples``, the losses
    weighted by rows. ``device``: ``cpu``, ``cuda`` or ``auto`` (a GPU when one is
    present; the model is moved there and stays there)."""
    import torch

    from ._model import losses, pick_device, to_batch
    model.to(pick_device(device))
    n, n_extra = size(samples), (size(extra) if extra is not None else 0)
    if n == 0:
        raise ValueError("train: no samples")
    k_extra = int(round(extra_share * batch_size)) if n_extra else 0
    k_main = max(1, batch_size - k_extra)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    model.train()
    log = []
    for _ in range(steps):
        rows = rng.integers(0, n, size=min(k_main, n))
        ce, mse = losses(model, to_batch(samples, rows, device=_device(model),
                                         target_temperature=target_temperature))
        if k_extra:
            w = len(rows)
            xrows = rng.integers(0, n_extra, size=k_extra)
            ce2, mse2 = losses(model, to_batch(extra, xrows, device=_device(model)))
            ce = (ce * w + ce2 * k_extra) / (w + k_extra)
            mse = (mse * w + mse2 * k_extra) / (w + k_extra)
        loss = ce + value_coef * mse
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append({"policy_loss": ce.item(), "value_loss": mse.item()})
    model.eval()
    return log


def _device(model):
    return next(model.parameters()).device
