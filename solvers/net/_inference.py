"""The policy-value network without torch: numpy weights and a compiled forward pass.

:class:`NetEvaluator` reads a checkpoint (:mod:`solvers.net._checkpoint`),
rebuilds its :class:`~solvers.net._features.FeatureLayout` (refusing a
checkpoint whose layout differs from what this code builds) and evaluates the
network on engine states: :meth:`NetEvaluator.evaluate` for a batch (policy
probabilities over the legal actions and every seat's scaled value), and the
compiled :func:`net_eval` that the search calls inside its own compiled loop
(features by the observer's kernel, a sparse first layer, residual blocks,
masked softmax; one state at a time, in microseconds). The forward pass is the
same function as :class:`solvers.net._model.PolicyValueNet` (a test compares
them).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._checks import shorten
from spiel_game._simulator import step_legal

from ._checkpoint import CheckpointError, read_checkpoint
from ._features import FeatureLayout, GameFamilyError, sparse_row

__all__ = ["NetWeights", "NetGame", "NetEvaluator", "net_eval"]

K = E.K


class NetWeights(NamedTuple):
    """The network's arrays (float32, C order) for the compiled forward pass."""

    w0: np.ndarray      # [D, H] sparse first layer (rows indexed by input)
    b0: np.ndarray      # [H]
    w1: np.ndarray      # [blocks, H, H] (out, in)
    b1: np.ndarray      # [blocks, H]
    w2: np.ndarray      # [blocks, H, H]
    b2: np.ndarray      # [blocks, H]
    wp: np.ndarray      # [A, H] policy head
    bp: np.ndarray      # [A]
    wv: np.ndarray      # [V, H] value head
    bv: np.ndarray      # [V]


class NetGame(NamedTuple):
    """One covered game's feature maps and work arrays for :func:`net_eval`."""

    offs: np.ndarray      # int64[32] observer piece offsets
    scatter: np.ndarray   # int64[tensor size] padded index of each tensor entry
    count_idx: int        # padded index of this player count's one-hot
    tmp: np.ndarray       # float32[tensor size]
    idx: np.ndarray       # int64[tensor size + 2] non-zero inputs
    val: np.ndarray       # float32[tensor size + 2]
    h: np.ndarray         # float32[H] hidden state
    g: np.ndarray         # float32[H] block work array
    legal: np.ndarray     # int32[K + 2]
    hint_idx: int         # start of the hint piece (-1: the layout has none)
    rng: np.ndarray       # an rng state for the heuristic (it draws nothing)


def _weights(params: dict, blocks: int) -> NetWeights:
    f = {k: np.ascontiguousarray(v, np.float32) for k, v in params.items()}
    H = f["bias0"].shape[0]

    def stack(name):
        if blocks == 0:
            shape = (0, H, H) if name.endswith("weight") else (0, H)
            return np.zeros(shape, np.float32)
        return np.ascontiguousarray(np.stack([f[f"blocks.{b}.{name}"] for b in range(blocks)]))

    return NetWeights(f["embed.weight"], f["bias0"], stack("0.weight"), stack("0.bias"),
                      stack("1.weight"), stack("1.bias"), f["policy.weight"], f["policy.bias"],
                      f["value.weight"], f["value.bias"])


@njit(cache=True, fastmath=True)
def _matvec_add(w, b, x, out):
    """``out = w @ x + b`` (``w``: [m, n])."""
    for i in range(w.shape[0]):
        acc = b[i]
        row = w[i]
        for j in range(x.shape[0]):
            acc += row[j] * x[j]
        out[i] = acc


@njit(cache=True)
def net_eval(net, ng, p, s, player, probs, value):
    """Evaluate the network on engine state ``s`` seen by ``player`` (the player
    to move): ``probs[a]`` = the policy over the legal actions (0 elsewhere;
    ``probs`` has the network's ``num_actions`` entries), ``value[r]`` = the
    scaled return of relative seat ``r``. Returns the number of legal actions."""
    # Features: the observer's kernel, the non-zeros mapped to the padded layout
    # (the same row as FeatureLayout.sparse, hint included).
    idx, val = ng.idx, ng.val
    m = sparse_row(p, s, player, ng.offs, ng.scatter, ng.count_idx, ng.hint_idx, ng.legal,
                    ng.rng, ng.tmp, idx, val, 0)
    h, g = ng.h, ng.g
    H = h.shape[0]
    for j in range(H):
        h[j] = net.b0[j]
    for t in range(m):
        row = net.w0[idx[t]]
        v = val[t]
        for j in range(H):
            h[j] += v * row[j]
    for j in range(H):
        if h[j] < 0.0:
            h[j] = 0.0
    for b in range(net.w1.shape[0]):
        _matvec_add(net.w1[b], net.b1[b], h, g)
        for j in range(H):
            if g[j] < 0.0:
                g[j] = 0.0
        # h = relu(h + w2 g + b2), row by row (g is not overwritten)
        for i in range(H):
            acc = net.b2[b, i]
            row = net.w2[b, i]
            for j in range(H):
                acc += row[j] * g[j]
            ng.tmp[i] = acc          # tmp is free again: the features are in idx/val
        for i in range(H):
            x = h[i] + ng.tmp[i]
            h[i] = x if x > 0.0 else 0.0
    # Policy over the legal actions (masked softmax).
    legal = ng.legal
    k = step_legal(p, s, legal)
    probs[:] = 0.0
    mx = -1e300
    for i in range(k):
        a = legal[i]
        acc = net.bp[a]
        row = net.wp[a]
        for j in range(H):
            acc += row[j] * h[j]
        probs[a] = acc
        if acc > mx:
            mx = acc
    tot = 0.0
    for i in range(k):
        a = legal[i]
        e = math.exp(probs[a] - mx)
        probs[a] = e
        tot += e
    for i in range(k):
        probs[legal[i]] /= tot
    for r in range(value.shape[0]):
        acc = net.bv[r]
        row = net.wv[r]
        for j in range(H):
            acc += row[j] * h[j]
        value[r] = 1.0 / (1.0 + math.exp(-acc))
    return k


class NetEvaluator:
    """A checkpoint, ready to evaluate on states of the games it covers.

    ``NetEvaluator(path)``; attributes ``config`` (the checkpoint's),
    ``layout``, ``weights`` (:class:`NetWeights`). A checkpoint whose layout
    this code would build differently raises :class:`CheckpointError`.
    """

    def __init__(self, checkpoint):
        self.path = str(checkpoint)
        self.config, params = read_checkpoint(checkpoint)
        lay = self.config["layout"]
        base, players = lay.get("base"), lay.get("players", ())
        if (not isinstance(base, (dict, type(None))) or len(base or {}) > 64
                or not isinstance(players, list) or len(players) > 64):
            raise CheckpointError(f"checkpoint {checkpoint}: config field 'layout' is "
                                  f"{shorten(lay)}; allowed: base (an object of game "
                                  f"parameters) and players (a list of at most 64 counts)")
        try:
            self.layout = FeatureLayout(base, players, hint=lay.get("hint"))
        except (GameFamilyError, TypeError, AttributeError, ValueError, KeyError,
                OverflowError) as err:
            raise CheckpointError(f"checkpoint {checkpoint}: its layout {shorten(lay)} cannot "
                                  f"be rebuilt: {shorten(str(err))}") from None
        if self.layout.fingerprint != self.config["layout_fingerprint"]:
            raise CheckpointError(f"checkpoint {checkpoint} was made for another input layout "
                                  f"than this code builds for {lay!r} (fingerprints differ)")
        for key, want in (("input_size", self.layout.size),
                          ("num_actions", self.layout.num_actions),
                          ("max_players", self.layout.max_players)):
            if self.config[key] != want:
                raise CheckpointError(f"checkpoint {checkpoint}: {key}={self.config[key]}, but "
                                      f"its layout has {want}")
        self.weights = _weights(params, int(self.config["blocks"]))
        self._games: dict[int, NetGame] = {}

    def game_arrays(self, game) -> NetGame:
        """The :class:`NetGame` of ``game`` (:class:`GameFamilyError` if not covered)."""
        v = self.layout.view(game)
        n = int(v.P[E.P_N])
        if n not in self._games:
            H = self.weights.b0.shape[0]
            size = v.tensor_size
            self._games[n] = NetGame(v.offs, v.scatter, v.count_idx,
                                     np.zeros(max(size, H), np.float32),
                                     np.zeros(v.row_cap, np.int64),
                                     np.zeros(v.row_cap, np.float32),
                                     np.zeros(H, np.float32), np.zeros(H, np.float32),
                                     np.zeros(K + 2, np.int32), v.hint_idx, v.rng)
        return self._games[n]

    def evaluate(self, game, states, players=None) -> tuple[np.ndarray, np.ndarray]:
        """``(probs float64[B, num_actions], values float64[B, max_players])`` of engine
        states of ``game`` (default player: the one to move); ``values[b, r]`` is the
        scaled return of the seat ``r`` places left of ``players[b]``."""
        ng = self.game_arrays(game)
        P = np.asarray(self.layout.view(game).P)
        states = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
        if players is None:
            players = states[:, E.S_CUR]
        players = np.broadcast_to(np.asarray(players, np.int64), (states.shape[0],))
        n = int(P[E.P_N])
        B = states.shape[0]
        probs = np.zeros((B, self.layout.num_actions))
        values = np.zeros((B, self.layout.max_players))
        for b in range(B):
            if not 0 <= players[b] < n:
                raise ValueError(f"player {players[b]} is not a seat of the {n}-player game (a "
                                 f"chance or terminal state has no player to move)")
            net_eval(self.weights, ng, P, states[b], int(players[b]), probs[b], values[b])
        return probs, values
