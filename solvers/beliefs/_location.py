"""A learned card-location model: a tilt of the exact prior, once per decision.

The determinizer (:class:`spiel_game._determinize.Determinizer`) draws the hidden
cards from the prior given the rules. Replaying the others' plays under an
opponent model (:mod:`solvers.beliefs._replay`) costs a replay per world. This
module learns instead *where the hidden cards lie* from the observer's
information state (the idea of Solinas, Rebstock and Buro 2019's card
location inference for Skat) and uses it as a tilt of that exact prior:

* ``q`` = the prior's expected number of copies of card ``c`` held by the
  other seat ``j`` (``N_c`` copies of ``c`` in the deck, so ``p0 = q / N_c``),
  estimated from the ``M`` worlds of a root-level pool;
* the network reads the sparse information-state features
  (:class:`solvers.net._features.FeatureLayout`) and ``p0`` (per other seat
  in turn order after the observer, padded to ``max_players - 1`` rows) and
  outputs a log-odds correction ``z[j, c]``; its prediction is the binomial
  ``N_c`` copies, each held by ``j`` with probability
  ``sigmoid(logit(p0) + z)``; trained by that binomial likelihood of the
  true counts, on the entries the prior is unsure of (``0 < q < N_c``);
* a world ``w`` of the pool is weighted by ``exp(sum_{j,c} n_w[j, c] z[j, c])``
  (:func:`tilt_log_weights`): for independent counts this moves each
  marginal's log-odds by ``z``, so the weighted pool's marginals approach the
  prediction, and the rules' constraints (voids, hand sizes, known cards)
  stay exact because only prior worlds are reweighted. ``z = 0`` is the
  prior: no inference.

:class:`LocationModel` holds the weights in numpy (no torch at play time;
the forward pass takes about 0.5 ms a decision with 256 hidden units, and a
pool of 128 prior worlds about 2 ms: ``python
research/scripts/card_location.py cost``); :func:`train_location` (torch) fits
it;
:func:`prepare_collection` turns recorded decisions
(``research/scripts/card_location.py collect``) into training rows. A checkpoint
is one ``.npz`` (:func:`save_location`): the weights, the layout, the
training config, the learning curve, versions and commit; :func:`load_location`
checks it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._checks import shorten
from spiel_game._determinize import determinize, make_determinization

from spiel_game._provenance import git_commit

from ..net._checkpoint import (MAX_PARAMETERS, CheckpointError, read_npz, versions, write_npz)
from ..net._features import FeatureLayout, GameFamilyError
from ._replay import tempered_weights, weighted_pool

__all__ = ["FORMAT", "LocationModel", "LocationPool", "pool_counts", "tilt_log_weights",
           "prior_counts",
           "prepare_collection", "train_location", "save_location", "load_location",
           "evaluate_location"]

FORMAT = "cancellation-hearts-card-location-mlp/1"
K = E.K
_P_EPS = 1e-3           # p0 clipped to [eps, 1 - eps] before the logit
_PARAMS = ("embed", "b0", "wp", "w1", "b1", "wo", "bo")


# ================================================================ kernels
@njit(cache=True)
def pool_counts(p, pool, m, out):
    """``out[i, q, c]`` = copies of card ``c`` in seat ``q``'s hand in world
    ``pool[i]``, ``i < m`` (``out`` float64[>= m, n, K])."""
    n = p[E.P_N]
    for i in range(m):
        for q in range(n):
            h = E.hand(p, pool[i], q)
            for c in range(K):
                out[i, q, c] = h[c]


@njit(cache=True)
def _draw_counts(p, root, rng, det, m, s, out):
    """Mean hand counts (float64[n, K]) over ``m`` determinizations of ``root``;
    False when the sampler fails."""
    n = p[E.P_N]
    out[:] = 0.0
    for _ in range(m):
        s[:] = root
        if not determinize(p, s, rng, det):
            return False
        for q in range(n):
            h = E.hand(p, s, q)
            for c in range(K):
                out[q, c] += h[c]
    for q in range(n):
        for c in range(K):
            out[q, c] /= m
    return True


def tilt_log_weights(counts: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``log w_i = sum_{q, c} counts[i, q, c] * z[q, c]``: the tilt of each
    world (``counts`` float[m, n, K], ``z`` float[n, K], 0 on the observer's
    row)."""
    m = counts.shape[0]
    return counts.reshape(m, -1) @ z.reshape(-1)


def prior_counts(P, root, me, worlds: int, rng) -> np.ndarray:
    """The prior's expected hand counts ``float64[n, K]`` of engine state
    ``root`` seen by ``me``: the mean over ``worlds`` determinizations
    (``rng`` a ``uint64[1]`` stream)."""
    P = np.asarray(P)
    det = make_determinization(P, np.asarray(root, np.int32), int(me))
    out = np.zeros((int(P[E.P_N]), K))
    if not _draw_counts(P, np.asarray(root, np.int32), rng, det, int(worlds),
                        np.empty_like(root), out):
        raise RuntimeError("prior_counts: the determinizer failed")
    return out


def _held_probability(prior, z, deck):
    """``(p0, p)``: the prior's chance that a seat holds each copy
    (``prior / deck``, clipped away from 0 and 1) and the model's, its
    log-odds moved by ``z``."""
    p0 = np.clip(prior / np.maximum(deck, 1.0), _P_EPS, 1 - _P_EPS)
    return p0, 1.0 / (1.0 + np.exp(-(np.log(p0 / (1 - p0)) + z)))


def _relative(P, me: int, rows: int) -> np.ndarray:
    """Seat of each relative row ``r`` (the ``r + 1``-th seat after ``me``), -1 padding."""
    n = int(P[E.P_N])
    seats = np.full(rows, -1, np.int64)
    for r in range(n - 1):
        seats[r] = (me + r + 1) % n
    return seats


# ================================================================ the model
def feature_mask(layout: FeatureLayout, exclude=()) -> np.ndarray:
    """``bool[layout.size]``: the inputs kept when the pieces named in
    ``exclude`` are left out (e.g. ``dealt_hand``, ``hand``: the observer's
    cards identify the deal, so a model trained on a few thousand deals can
    memorise where the cards of each deal lay instead of learning from the
    plays; the prior's input already carries what the observer's cards rule
    out). An unknown name raises ``ValueError`` listing the pieces."""
    names = [name for name, _, _ in layout.pieces]
    bad = [x for x in exclude if x not in names]
    if bad:
        raise ValueError(f"exclude: unknown pieces {bad}; allowed: {', '.join(names)}")
    keep = np.ones(layout.size, bool)
    for name, off, shape in layout.pieces:
        if name in exclude:
            keep[off:off + int(np.prod(shape))] = False
    return keep


def _filtered(prep: dict, keep: np.ndarray) -> dict:
    """``prep``'s sparse features without the inputs ``~keep``."""
    idx, val, offs = prep["indices"], prep["values"], prep["offsets"]
    kept = keep[idx]
    row = np.repeat(np.arange(len(offs) - 1), np.diff(offs))
    counts = np.bincount(row[kept], minlength=len(offs) - 1)
    return {**prep, "indices": idx[kept], "values": val[kept],
            "offsets": np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)}


class LocationModel:
    """The trained card-location network in numpy (module docstring).

    ``z(game, root, me, prior)``: the log-odds correction ``float64[n, K]``
    (0 on the observer's row and where the prior is sure) of the engine state
    ``root`` seen by ``me``, ``prior`` the prior's expected counts
    (float[n, K], e.g. a pool's mean); ``predict(...)``: the predicted
    expected counts. ``layout``: its :class:`FeatureLayout` (the player
    counts it covers); ``prior_worlds``: the pool size it was trained with;
    ``config``: its training config and learning curve."""

    def __init__(self, params: dict, layout: FeatureLayout, config: dict):
        self.params = {k: np.ascontiguousarray(params[k], np.float64) for k in _PARAMS}
        self.layout = layout
        self.config = config
        self.rows = layout.max_players - 1
        self.exclude = tuple(config.get("exclude", ()))
        self.keep = feature_mask(layout, self.exclude)
        self.prior_worlds = int(config.get("prior_worlds", 128))
        self.hidden = int(self.params["b0"].shape[0])

    def _inputs(self, P, me, prior):
        deck = E.deck(np.asarray(P)).astype(np.float64)
        seats = _relative(P, me, self.rows)
        p0 = np.zeros((self.rows, K))
        live = np.zeros((self.rows, K), bool)
        with np.errstate(divide="ignore", invalid="ignore"):
            for r, q in enumerate(seats):
                if q < 0:
                    continue
                frac = np.where(deck > 0, prior[q] / np.maximum(deck, 1.0), 0.0)
                p0[r] = frac
                live[r] = (prior[q] > 0) & (prior[q] < deck)
        return seats, p0, live

    def z(self, game, root, me, prior) -> np.ndarray:
        P = self.layout.view(game).P
        seats, p0, live = self._inputs(P, me, np.asarray(prior, np.float64))
        idx, val, _ = self.layout.sparse(game, np.asarray(root, np.int32)[None], [int(me)])
        if self.exclude:
            kept = self.keep[idx]
            idx, val = idx[kept], val[kept]
        zr = self._forward(idx, val.astype(np.float64), p0.reshape(-1))
        zr = np.where(live.reshape(-1), zr, 0.0).reshape(self.rows, K)
        out = np.zeros((int(P[E.P_N]), K))
        for r, q in enumerate(seats):
            if q >= 0:
                out[q] = zr[r]
        return out

    def _forward(self, idx, val, p0):
        w = self.params
        h = val @ w["embed"][idx] + w["b0"] + w["wp"] @ p0
        np.maximum(h, 0.0, out=h)
        h2 = w["w1"] @ h + w["b1"]
        np.maximum(h2, 0.0, out=h2)
        return w["wo"] @ h2 + w["bo"]

    def predict(self, game, root, me, prior, z=None) -> np.ndarray:
        """Predicted expected counts ``float64[n, K]`` (the prior's where it is
        sure); ``z``: the correction when already computed (:meth:`z`)."""
        P = self.layout.view(game).P
        prior = np.asarray(prior, np.float64)
        if z is None:
            z = self.z(game, root, me, prior)
        deck = E.deck(P).astype(np.float64)
        _, p = _held_probability(prior, z, deck)
        sure = (prior <= 0) | (prior >= deck) | (z == 0)
        return np.where(sure, prior, p * deck)

    def __repr__(self) -> str:
        return (f"LocationModel(players={list(self.layout.players)}, hidden={self.hidden}, "
                f"prior_worlds={self.prior_worlds})")


# ================================================================ the pool
class LocationPool:
    """Root-level inference with a card-location model (ISMCTS's
    ``belief='location'``): ``size`` prior worlds drawn once per decision
    (:func:`solvers.beliefs._replay.weighted_pool` under the ``uniform`` belief
    ``belief``: plain determinizations, completed), the model's correction
    ``z`` computed from their mean counts, each world weighted by
    :func:`tilt_log_weights` (tempered to an effective size of at least
    ``min_ess``, :func:`solvers.beliefs._replay.tempered_weights`); the search draws
    every iteration's world from them by weight. The observer is ``belief.me``. The attributes of
    :class:`solvers.beliefs._replay.WorldPool` (``pool``, ``cum``, ``m``, ``ess``,
    ``beta``, ``accept``, ``logw``, ``carried``) and ``z``."""

    def __init__(self, model: LocationModel, game, P, root, det_record, belief, size, rng,
                 *, min_ess: float = 0.0):
        self.pool = np.empty((size, root.shape[0]), root.dtype)
        logw = np.empty(size)
        m = int(weighted_pool(P, root, rng, det_record, belief, self.pool, logw))
        if m <= 0:
            raise RuntimeError("location pool: the sampler failed")
        cnt = np.empty((m, int(P[E.P_N]), K))
        pool_counts(P, self.pool, m, cnt)
        self.z = model.z(game, root, belief.me, cnt.mean(axis=0))
        self.m = m
        self.logw = tilt_log_weights(cnt, self.z)
        self.weights, self.beta = tempered_weights(self.logw, min_ess)
        self.cum = np.cumsum(self.weights)
        self.cum[-1] = 1.0
        self.ess = float(1.0 / np.sum(self.weights ** 2))
        self.accept = float("nan")
        self.carried = 0


# ================================================================ data
def _hands(P, s, n: int) -> np.ndarray:
    """Every seat's hand in engine state ``s``: counts ``[n, K]``."""
    return np.stack([E.hand(P, s, q) for q in range(n)])


def prepare_collection(data: dict, prior_worlds: int = 128, seed: int = 0,
                       layout: FeatureLayout | None = None) -> dict:
    """Training rows of a recorded collection
    (``collect`` of ``research/scripts/card_location.py``): for every decision the
    sparse features of the observer, ``p0`` (prior fraction held by each other
    seat, relative rows, from ``prior_worlds`` determinizations seeded by
    ``seed``), ``truth`` (true counts, relative rows), ``deck`` and ``live``
    (the entries the prior is unsure of), ``hand``."""
    import pyspiel

    import spiel_game
    from spiel_game._rng import make_rng_state
    n = int(data["meta"]["config"]["players"])
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    layout = layout or FeatureLayout(players=(n,))
    P = np.asarray(game.new_initial_state().engine_params)
    rows = layout.max_players - 1
    states, obs = data["states"], data["observers"]
    B = len(obs)
    deck = E.deck(P).astype(np.float64)
    p0 = np.zeros((B, rows, K), np.float32)
    truth = np.zeros((B, rows, K), np.float32)
    live = np.zeros((B, rows, K), bool)
    prior = np.zeros((B, n, K))
    rng = make_rng_state(np.uint64(seed), 7)
    for b in range(B):
        s, me = states[b], int(obs[b])
        pc = prior_counts(P, s, me, prior_worlds, rng)
        prior[b] = pc
        hands = _hands(P, s, n)
        for r, q in enumerate(_relative(P, me, rows)):
            if q < 0:
                continue
            p0[b, r] = np.where(deck > 0, pc[q] / np.maximum(deck, 1.0), 0.0)
            truth[b, r] = hands[q]
            live[b, r] = (pc[q] > 0) & (pc[q] < deck)
    idx, val, offsets = layout.sparse(game, states, obs)
    return {"indices": idx, "values": val, "offsets": offsets, "p0": p0, "truth": truth,
            "live": live, "deck": deck.astype(np.float32), "hand": data["hand"].copy(),
            "prior": prior, "players": n, "layout": layout, "states": states,
            "observers": obs}


# ================================================================ training (torch)
def _torch_model(input_size, rows, hidden, seed):
    import torch
    from torch import nn

    class LocationNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.EmbeddingBag(input_size, hidden, mode="sum",
                                         include_last_offset=True)
            self.b0 = nn.Parameter(torch.zeros(hidden))
            self.wp = nn.Linear(rows * K, hidden, bias=False)
            self.l1 = nn.Linear(hidden, hidden)
            self.out = nn.Linear(hidden, rows * K)
            gen = torch.Generator().manual_seed(seed)
            with torch.no_grad():
                self.embed.weight.uniform_(-0.05, 0.05, generator=gen)
                for m in (self.wp, self.l1):
                    b = 1.0 / np.sqrt(m.in_features)
                    m.weight.uniform_(-b, b, generator=gen)
                self.l1.bias.zero_()
                self.out.weight.zero_()       # z = 0 at the start: the prior
                self.out.bias.zero_()

        def forward(self, idx, val, offsets, p0):
            h = torch.relu(self.embed(idx, offsets, per_sample_weights=val) + self.b0
                           + self.wp(p0))
            return self.out(torch.relu(self.l1(h)))

    return LocationNet()


def _batch(prep, rows_idx):
    import torch
    offs = prep["offsets"]
    starts, ends = offs[rows_idx], offs[rows_idx + 1]
    idx = np.concatenate([prep["indices"][a:b] for a, b in zip(starts, ends)])
    val = np.concatenate([prep["values"][a:b] for a, b in zip(starts, ends)])
    new_offs = np.concatenate([[0], np.cumsum(ends - starts)])
    B = len(rows_idx)
    return (torch.from_numpy(idx), torch.from_numpy(val), torch.from_numpy(new_offs),
            torch.from_numpy(prep["p0"][rows_idx].reshape(B, -1)),
            torch.from_numpy(prep["truth"][rows_idx].reshape(B, -1)),
            torch.from_numpy(prep["live"][rows_idx].reshape(B, -1)))


def _loss(net, prep, rows_idx, deck_t, total: bool = False):
    """Mean binomial negative log-likelihood of the true counts over the live
    entries (``total``: the sum and the number of live entries instead)."""
    import torch
    idx, val, offs, p0, truth, live = _batch(prep, rows_idx)
    z = net(idx, val, offs, p0)
    q = p0.clamp(_P_EPS, 1 - _P_EPS)
    logit = torch.log(q) - torch.log1p(-q) + z
    N = deck_t.repeat(p0.shape[1] // deck_t.shape[0]).expand_as(p0)
    ll = truth * torch.nn.functional.logsigmoid(logit) + \
        (N - truth) * torch.nn.functional.logsigmoid(-logit)
    lv = live.float()
    if total:
        return -float((ll * lv).sum()), float(lv.sum())
    return -(ll * lv).sum() / lv.sum().clamp(min=1.0)


def _merge(preps):
    """One training set of several preparations of the same layout."""
    out = {"indices": [], "values": [], "offsets": [np.zeros(1, np.int64)], "p0": [],
           "truth": [], "live": []}
    base = 0
    for p in preps:
        out["indices"].append(p["indices"])
        out["values"].append(p["values"])
        out["offsets"].append(p["offsets"][1:] + base)
        base += int(p["offsets"][-1])
        for k in ("p0", "truth", "live"):
            out[k].append(p[k])
    return {k: np.concatenate(v) for k, v in out.items()}


def train_location(preps, *, hidden: int = 256, steps: int = 4000, batch_size: int = 256,
                   lr: float = 1e-3, seed: int = 0, valid_share: float = 0.1,
                   threads: int = 1, eval_every: int = 500, early_stop: bool = False,
                   weight_decay: float = 0.0, exclude=()):
    """Fit a :class:`LocationModel` on prepared collections (one layout, the
    player counts of ``preps``; rows of every count padded to the same
    relative-seat rows). The last ``valid_share`` of each collection's hands
    is held out for the learning curve. Returns ``(model, curve)``: the curve
    lists ``step``, ``loss`` (mean of the last 200 training batches) and
    ``valid`` (held-out loss per live entry) at step 0 (``z = 0``: the
    prior's loss), every ``eval_every`` steps and at the end. ``early_stop``:
    return the weights of the step with the lowest held-out loss (step 0, the
    prior itself, included) instead of the last; the config's ``best_step``
    says which. ``weight_decay``: Adam's L2 penalty; ``exclude``: feature
    pieces left out (:func:`feature_mask`)."""
    import torch
    players = sorted({int(p["players"]) for p in preps})
    layout = FeatureLayout(players=players)
    keep = feature_mask(layout, tuple(exclude))
    if any(p["layout"].fingerprint != layout.fingerprint for p in preps):
        preps = [prepare_again(p, layout) for p in preps]
    train_parts, valid_parts = [], []
    for p in preps:
        hands = np.unique(p["hand"])
        cut = hands[int(len(hands) * (1 - valid_share))] if valid_share > 0 else hands[-1] + 1
        tr, va = np.flatnonzero(p["hand"] < cut), np.flatnonzero(p["hand"] >= cut)
        train_parts.append(_subset(p, tr))
        if len(va):
            valid_parts.append(_subset(p, va))
    train, valid = _merge(train_parts), (_merge(valid_parts) if valid_parts else None)
    if exclude:
        train = _filtered(train, keep)
        valid = _filtered(valid, keep) if valid is not None else None
    rows = layout.max_players - 1
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        net = _torch_model(layout.size, rows, hidden, seed)
        opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
        deck_t = torch.from_numpy(preps[0]["deck"])
        gen = np.random.default_rng(seed)
        B = len(train["p0"])
        def held_out() -> float:
            V = len(valid["p0"])
            with torch.no_grad():
                parts = [_loss(net, valid, np.arange(a, min(a + 2048, V)), deck_t, total=True)
                         for a in range(0, V, 2048)]
            return sum(s for s, _ in parts) / max(sum(c for _, c in parts), 1.0)

        def snapshot():
            return {k: v.detach().clone().numpy() for k, v in net.state_dict().items()}

        curve, recent = [], []
        best = (float("inf"), 0, None)
        if valid is not None:
            v0 = held_out()
            curve.append({"step": 0, "valid": v0})
            best = (v0, 0, snapshot())
        for step in range(1, steps + 1):
            rows_idx = gen.integers(0, B, size=min(batch_size, B))
            loss = _loss(net, train, rows_idx, deck_t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            recent = (recent + [loss.item()])[-200:]
            if step % eval_every == 0 or step == steps:
                point = {"step": step, "loss": float(np.mean(recent))}
                if valid is not None:
                    point["valid"] = held_out()
                    if point["valid"] < best[0]:
                        best = (point["valid"], step, snapshot())
                curve.append(point)
        sd = snapshot()
        best_step = steps
        if early_stop and best[2] is not None:
            sd, best_step = best[2], best[1]
    finally:
        torch.set_num_threads(old)
    params = {"embed": sd["embed.weight"], "b0": sd["b0"], "wp": sd["wp.weight"],
              "w1": sd["l1.weight"], "b1": sd["l1.bias"], "wo": sd["out.weight"],
              "bo": sd["out.bias"]}
    config = {"hidden": hidden, "steps": steps, "batch": batch_size, "lr": lr, "seed": seed,
              "valid_share": valid_share, "train_rows": int(B), "eval_every": eval_every,
              "early_stop": early_stop, "weight_decay": weight_decay,
              "exclude": list(exclude),
              "best_step": best_step,
              "valid_rows": int(len(valid["p0"])) if valid is not None else 0}
    return LocationModel(params, layout, config), curve


def _subset(p, rows_idx):
    offs = p["offsets"]
    parts_i = [p["indices"][offs[r]:offs[r + 1]] for r in rows_idx]
    parts_v = [p["values"][offs[r]:offs[r + 1]] for r in rows_idx]
    lens = np.array([len(x) for x in parts_i], np.int64)
    return {"indices": np.concatenate(parts_i) if parts_i else np.zeros(0, np.int64),
            "values": np.concatenate(parts_v) if parts_v else np.zeros(0, np.float32),
            "offsets": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
            "p0": p["p0"][rows_idx], "truth": p["truth"][rows_idx],
            "live": p["live"][rows_idx]}


def prepare_again(prep, layout):
    """``prep`` with its features and relative rows re-made for ``layout`` (a
    layout covering several counts: wider features, more padded rows)."""
    import pyspiel

    import spiel_game
    n = int(prep["players"])
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    rows = layout.max_players - 1
    B, r0 = prep["p0"].shape[:2]
    out = dict(prep)
    for k in ("p0", "truth", "live"):
        a = np.zeros((B, rows, K), prep[k].dtype)
        a[:, :r0] = prep[k]
        out[k] = a
    out["indices"], out["values"], out["offsets"] = layout.sparse(game, prep["states"],
                                                                  prep["observers"])
    out["layout"] = layout
    return out


# ================================================================ checkpoints
def save_location(path, model: LocationModel, config: dict, curve) -> Path:
    """Write the model (weights, layout, ``config``, learning ``curve``,
    versions, commit) to ``path`` (``.npz``, atomically)."""
    path = Path(path)
    full = {**model.config, **config, "format": FORMAT, "layout": model.layout.to_dict(),
            "layout_fingerprint": model.layout.fingerprint, "curve": list(curve),
            "versions": versions(), "commit": git_commit()}
    write_npz(path, model.params, full)
    model.config = full
    return path


def check_location(agent: str, checkpoint, game) -> LocationModel:
    """The card-location model at ``checkpoint`` (``belief='location(checkpoint=...)'``),
    checked to cover ``game``; a missing path, a
    damaged file or a model of other rules is an
    :class:`~solvers._base.bots.AgentParameterError` naming ``agent``."""
    from .._base.bots import AgentParameterError
    from ..net._features import GameFamilyError
    if checkpoint is None:
        raise AgentParameterError(
            f"{agent}: belief='location' needs a checkpoint, "
            f"belief='location(checkpoint=PATH)' (a card-location model, from "
            f"`python research/scripts/card_location.py train`)")
    try:
        model = load_location(checkpoint)
        model.layout.view(game)
    except (CheckpointError, GameFamilyError) as err:
        raise AgentParameterError(f"{agent}: belief checkpoint: {err}") from None
    return model


def load_location(path) -> LocationModel:
    """The :class:`LocationModel` of a checkpoint written by :func:`save_location`;
    a missing, damaged or other file raises :class:`CheckpointError` naming it.
    Read within the bounds of :mod:`solvers.net._checkpoint`: the config (format,
    layout, ``hidden``) is checked and every parameter's shape known before any
    parameter is read."""
    where = f"card-location checkpoint {path}"
    built = {}

    def shapes(config: dict) -> dict:
        if config.get("format") != FORMAT:
            raise CheckpointError(f"checkpoint {path} has format {shorten(config.get('format'))}"
                                  f"; a card-location model has {FORMAT!r}")
        lay = config.get("layout")
        if (not isinstance(lay, dict) or not isinstance(lay.get("players", ()), list)
                or len(lay.get("players", ())) > 64 or len(lay) > 8):
            raise CheckpointError(f"{where}: config field 'layout' is {shorten(lay)}; allowed: "
                                  f"an object with base and players (at most 64 counts)")
        try:
            layout = FeatureLayout(**lay)
        except (GameFamilyError, TypeError, AttributeError, ValueError, KeyError,
                OverflowError) as err:
            raise CheckpointError(f"{where}: its layout {shorten(lay)} cannot be rebuilt: "
                                  f"{shorten(str(err))}") from None
        if layout.fingerprint != config.get("layout_fingerprint"):
            raise CheckpointError(f"{where}: its layout does not match this code's features "
                                  f"(fingerprint differs)")
        H = config.get("hidden")
        if isinstance(H, bool) or not isinstance(H, int) or not 1 <= H <= 8192:
            raise CheckpointError(f"{where}: config field 'hidden' is {shorten(H)}; allowed: an "
                                  f"integer 1..8192")
        rows = layout.max_players - 1
        want = {"embed": (layout.size, H), "b0": (H,), "wp": (H, rows * K), "w1": (H, H),
                "b1": (H,), "wo": (rows * K, H), "bo": (rows * K,)}
        count = sum(int(np.prod(s)) for s in want.values())
        if count > MAX_PARAMETERS:
            raise CheckpointError(f"{where}: its config asks for {count:,} parameters; the "
                                  f"limit is {MAX_PARAMETERS:,}")
        built["layout"] = layout
        return want

    config, params = read_npz(path, "card-location checkpoint",
                              "python research/scripts/card_location.py train", shapes=shapes)
    layout = built["layout"]
    if not all(np.isfinite(v).all() for v in params.values()):
        raise CheckpointError(f"card-location checkpoint {path}: parameters hold NaN or "
                              f"infinity")
    return LocationModel(params, layout, config)


# ================================================================ evaluation
def evaluate_location(model: LocationModel, prep: dict, pool_worlds: int | None = None,
                      seed: int = 3, min_ess: float = 32.0) -> dict:
    """What the model knows on prepared decisions of other hands: the mean
    squared error of the expected counts held by each other seat (every seat
    and card) for the prior, the model's prediction and the *tilted pool*
    (a fresh pool of ``pool_worlds`` prior worlds weighted by
    :func:`tilt_log_weights`, what the search sees), their share of the
    prior's error removed, the Brier score of "the seat holds the card"
    (prior pool and tilted pool), the tilted pool's mean effective size, the
    same for the pool tempered to an effective size of at least ``min_ess``
    (:func:`solvers.beliefs._replay.tempered_weights`, what ``min_ess``
    plays; keys ``..._tempered``), and the binomial log-likelihood per live
    entry (prior and model)."""
    import pyspiel

    import spiel_game
    from spiel_game._rng import make_rng_state
    n = int(prep["players"])
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    P = np.asarray(game.new_initial_state().engine_params)
    M = int(pool_worlds or model.prior_worlds)
    deck = E.deck(P).astype(np.float64)
    rng = make_rng_state(np.uint64(seed), 11)
    sums = dict.fromkeys(("se_prior", "se_model", "se_pool", "se_tilt", "se_temp", "br_pool",
                          "br_tilt", "br_temp", "ll_prior", "ll_model"), 0.0)
    cells = live_cells = 0
    ess = []
    for b in range(len(prep["observers"])):
        s, me = prep["states"][b], int(prep["observers"][b])
        prior = prep["prior"][b]
        truth = _hands(P, s, n).astype(np.float64)
        others = np.ones(n, bool)
        others[me] = False
        z = model.z(game, s, me, prior)
        pred = model.predict(game, s, me, prior, z=z)
        # a fresh pool, tilted as the search would
        det = make_determinization(P, s, me)
        pool = np.empty((M, s.shape[0]), np.int32)
        for i in range(M):
            pool[i] = s
            if not determinize(P, pool[i], rng, det):
                raise RuntimeError("evaluate_location: the determinizer failed")
        cnt = np.empty((M, n, K))
        pool_counts(P, pool, M, cnt)
        zp = model.z(game, s, me, cnt.mean(axis=0))
        lw = tilt_log_weights(cnt, zp)
        w = np.exp(lw - lw.max())
        w /= w.sum()
        ess.append(1.0 / float(np.sum(w * w)))
        wt, _ = tempered_weights(lw, min_ess)
        pool_mean = cnt.mean(axis=0)
        tilt_mean = np.tensordot(w, cnt, axes=1)
        held = (cnt > 0).astype(np.float64)
        t_any = (truth > 0).astype(np.float64)
        sel = others[:, None] & (deck[None, :] > 0)
        sums["se_prior"] += float(((prior - truth) ** 2)[sel].sum())
        sums["se_model"] += float(((pred - truth) ** 2)[sel].sum())
        sums["se_pool"] += float(((pool_mean - truth) ** 2)[sel].sum())
        sums["se_tilt"] += float(((tilt_mean - truth) ** 2)[sel].sum())
        sums["br_pool"] += float(((held.mean(axis=0) - t_any) ** 2)[sel].sum())
        sums["br_tilt"] += float(((np.tensordot(w, held, axes=1) - t_any) ** 2)[sel].sum())
        sums["se_temp"] += float(((np.tensordot(wt, cnt, axes=1) - truth) ** 2)[sel].sum())
        sums["br_temp"] += float(((np.tensordot(wt, held, axes=1) - t_any) ** 2)[sel].sum())
        cells += int(sel.sum())
        live = sel & (prior > 0) & (prior < deck)
        p0, pm = _held_probability(prior, z, deck)
        pm = np.clip(pm, 1e-12, 1 - 1e-12)
        N = np.broadcast_to(deck, truth.shape)
        for key, pp in (("ll_prior", p0), ("ll_model", pm)):
            ll = truth * np.log(pp) + (N - truth) * np.log1p(-pp)
            sums[key] += float(ll[live].sum())
        live_cells += int(live.sum())
    out = {"decisions": int(len(prep["observers"])), "cells": cells, "live_cells": live_cells,
           "pool_worlds": M}
    for k in ("prior", "model", "pool", "tilt"):
        out[f"mse_{k}"] = sums[f"se_{k}"] / cells
    out["brier_pool"] = sums["br_pool"] / cells
    out["brier_tilt"] = sums["br_tilt"] / cells
    out["min_ess"] = float(min_ess)
    out["mse_tilt_tempered"] = sums["se_temp"] / cells
    out["brier_tilt_tempered"] = sums["br_temp"] / cells
    out["share_removed_tempered"] = 1.0 - out["mse_tilt_tempered"] / out["mse_pool"]
    out["share_removed"] = 1.0 - out["mse_model"] / out["mse_prior"]
    out["share_removed_tilt"] = 1.0 - out["mse_tilt"] / out["mse_pool"]
    out["brier_share_removed_tilt"] = 1.0 - out["brier_tilt"] / out["brier_pool"]
    out["ll_prior"] = sums["ll_prior"] / max(live_cells, 1)
    out["ll_model"] = sums["ll_model"] / max(live_cells, 1)
    out["mean_ess"] = float(np.mean(ess)) if ess else float("nan")
    return out
