"""Network inputs: the information-state tensor, padded to cover several player counts.

One network serves every game of a *family*: the same rules (``base`` game
parameters) at several player counts (``players``, e.g. 5-11).
:class:`FeatureLayout` builds one input layout for the family: every named
piece of the observer's information-state tensor
(:func:`spiel_game.observers.tensor_layout` with
:data:`~spiel_game.observers.INFO_STATE_OBS_TYPE`) padded to its largest shape
over the family (a piece of shape ``(T, n, 53)`` at 6 players sits in the
corner ``[:17, :6, :]`` of the padded ``(21, 11, 53)``), in the order the
pieces first appear, followed by one extra piece ``players``: a one-hot of
the player count. Seats are relative to the observer (as in the observer), so
relative seat ``r`` is slot ``r`` at every table size. The padded entries are
always zero; removing them gives the observer's tensor exactly
(:meth:`FeatureLayout.unpad`, checked by ``tests/solvers/test_net.py``).

**Hint** (optional, ``FeatureLayout(..., hint='heuristic')``): one more piece
``hint``, a one-hot over the actions of the move the heuristic player
(:func:`solvers._base.heuristic.heuristic_policy`) would make at the state, set only
when the observer is the player to move. The heuristic reads only the mover's
information (its hand, the public plays and the cards it passed), so the hint
is a function of the information state: a network with it is a *heuristic-
guided* network that learns when to depart from the heuristic, not a raw one.
A layout without a hint is unchanged (same pieces, same fingerprint).

Features are computed by the observer's compiled kernel
(``spiel_game.observers.fill_view``) over engine vectors (``state.engine_params``,
``state.engine_state``) and scattered into the padded layout in compiled code,
for a batch of states at once: dense (:meth:`FeatureLayout.dense`) or sparse
(:meth:`FeatureLayout.sparse`: indices, values and per-row offsets, the input
of the model's sparse first layer; a tensor has a few hundred non-zeros out
of about 13,000 entries at 5-11 players).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import numpy as np
import pyspiel
from numba import njit

import spiel_game
from spiel_game import _engine as E
from spiel_game.observers import INFO_STATE_OBS_TYPE, fill_view, make_observer, tensor_layout
from spiel_game._rng import make_rng_state
from spiel_game._simulator import step_legal
from solvers._base.heuristic import heuristic_policy

__all__ = ["FeatureLayout", "GameFamilyError", "game_base_params", "legal_mask", "HINTS"]

K = E.K

#: The allowed ``hint`` values of :class:`FeatureLayout` (None: no hint piece).
HINTS = ("heuristic",)


class GameFamilyError(ValueError):
    """A game that the network's layout does not cover (other rules or player count)."""


def game_base_params(game) -> dict:
    """The game's parameters other than ``players`` (what a family shares)."""
    params = dict(game.get_parameters())
    params.pop("players", None)
    return params


# ---------------------------------------------------------------- compiled kernels
@njit(cache=True)
def hint_index(p, s, player, hint_idx, legal, rng):
    """The padded index of the hint entry of ``s`` seen by ``player``, or -1: no
    hint piece (``hint_idx < 0``), the observer not to move, or no legal action."""
    if hint_idx < 0 or s[E.S_CUR] != player:
        return -1
    k = step_legal(p, s, legal)
    if k == 0:
        return -1
    return hint_idx + heuristic_policy(p, s, legal, k, rng)


# carries: the game and the state seen by a player (p, s, player), the layout's maps (offs,
# scatter, count_idx, hint_idx), the heuristic's work arrays (legal, rng, tmp), the row written
# (idx, val, start)
@njit(cache=True)
def sparse_row(p, s, player, offs, scatter, count_idx, hint_idx, legal, rng, tmp, idx, val,
                start):
    """Write the non-zeros of ``player``'s padded features at ``idx/val[start:]``;
    returns the new end."""
    fill_view(p, s, player, player, offs, tmp)
    m = start
    for i in range(tmp.shape[0]):
        v = tmp[i]
        if v != 0.0:
            idx[m] = scatter[i]
            val[m] = v
            m += 1
    idx[m] = count_idx
    val[m] = 1.0
    m += 1
    h = hint_index(p, s, player, hint_idx, legal, rng)
    if h >= 0:
        idx[m] = h
        val[m] = 1.0
        m += 1
    return m


# carries: the game and the states seen by their players (p, states, players), the layout's maps
# (offs, scatter, count_idx, hint_idx), the heuristic's work arrays (legal, rng, tmp), the rows
# written (idx, val, offsets)
@njit(cache=True)
def _sparse_batch(p, states, players, offs, scatter, count_idx, hint_idx, legal, rng, tmp, idx,
                  val, offsets):
    """Sparse padded features of ``states[b]`` seen by ``players[b]`` (CSR rows)."""
    m = 0
    for b in range(states.shape[0]):
        offsets[b] = m
        m = sparse_row(p, states[b], players[b], offs, scatter, count_idx, hint_idx, legal,
                        rng, tmp, idx, val, m)
    offsets[states.shape[0]] = m
    return m


# carries: the game and the states seen by their players (p, states, players), the layout's maps
# (offs, scatter, count_idx, hint_idx), the heuristic's work arrays (legal, rng, tmp), the rows
# written (out)
@njit(cache=True)
def _dense_batch(p, states, players, offs, scatter, count_idx, hint_idx, legal, rng, tmp, out):
    """Dense padded features of ``states[b]`` seen by ``players[b]`` into ``out[b]``."""
    for b in range(states.shape[0]):
        fill_view(p, states[b], players[b], players[b], offs, tmp)
        row = out[b]
        row[:] = 0.0
        for i in range(tmp.shape[0]):
            v = tmp[i]
            if v != 0.0:
                row[scatter[i]] = v
        row[count_idx] = 1.0
        h = hint_index(p, states[b], players[b], hint_idx, legal, rng)
        if h >= 0:
            row[h] = 1.0


@njit(cache=True)
def _mask_batch(p, states, out, legal):
    """``out[b, a] = True`` for the legal actions of ``states[b]``."""
    for b in range(states.shape[0]):
        out[b, :] = False
        k = step_legal(p, states[b], legal)
        for i in range(k):
            out[b, legal[i]] = True


def legal_mask(P, states, num_actions: int) -> np.ndarray:
    """``bool[B, num_actions]``: the legal actions of each engine state (one game)."""
    states = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
    out = np.zeros((states.shape[0], num_actions), np.bool_)
    _mask_batch(np.asarray(P), states, out, np.empty(K + 2, np.int32))
    return out


# ---------------------------------------------------------------- the layout
class _GameView:
    """What the kernels need for one player count: the observer's piece offsets,
    the scatter map to the padded layout, the index of the count one-hot and the
    start of the hint piece (-1: none)."""

    def __init__(self, game, scatter: np.ndarray, count_idx: int, hint_idx: int = -1):
        self.game = game
        self.P = np.asarray(game.new_initial_state().engine_params)
        self.offs = make_observer(game, INFO_STATE_OBS_TYPE)._offs
        self.scatter = scatter
        self.count_idx = int(count_idx)
        self.hint_idx = int(hint_idx)
        self.tensor_size = int(scatter.shape[0])
        self.tmp = np.zeros(self.tensor_size, np.float32)
        self.legal = np.zeros(K + 2, np.int32)
        self.rng = make_rng_state(np.uint64(0), 0)   # the heuristic draws nothing
        #: Most non-zeros of one row: the tensor, the count one-hot, the hint.
        self.row_cap = self.tensor_size + 2


class FeatureLayout:
    """The padded information-state layout of a family of games (module docstring).

    Args:
      base: game parameters other than ``players`` (missing ones take the
        game's defaults; ``players`` must not be given).
      players: the player counts covered (each valid for these rules).
      hint: None, or ``'heuristic'`` (:data:`HINTS`): add the heuristic's move
        as a one-hot piece ``hint`` (module docstring).

    Attributes: ``pieces`` (``[(name, offset, shape)]`` of the padded layout),
    ``size`` (input width), ``num_actions`` (the most distinct actions of a
    covered game), ``max_players``, ``players``, ``base`` (the full parameters
    other than ``players``), ``fingerprint`` (SHA-256 of the layout: a
    checkpoint records it, so one made for another layout is refused).
    """

    def __init__(self, base: Mapping | None = None, players: Sequence[int] = (6,),
                 hint: str | None = None):
        if hint is not None and hint not in HINTS:
            raise GameFamilyError(f"FeatureLayout: hint={hint!r}; allowed: None, "
                                  + ", ".join(repr(h) for h in HINTS))
        self.hint = hint
        base = dict(base or {})
        if "players" in base:
            raise GameFamilyError("FeatureLayout: give the player counts in players=, not in "
                                  "the base game parameters")
        players = [int(n) for n in players]
        if not players or len(set(players)) != len(players):
            raise GameFamilyError(f"FeatureLayout: players must be distinct player counts, "
                                  f"got {players!r}")
        self.players = tuple(sorted(players))
        games = {}
        for n in self.players:
            try:
                games[n] = pyspiel.load_game(spiel_game.GAME_NAME, {**base, "players": n})
            except Exception as err:   # pyspiel's parameter errors: say which count failed
                raise GameFamilyError(f"FeatureLayout: no game with players={n} and "
                                      f"{base}: {err}") from None
        self.base = game_base_params(games[self.players[0]])
        layouts = {n: tensor_layout(g, INFO_STATE_OBS_TYPE) for n, g in games.items()}
        shapes: dict[str, tuple] = {}
        for n in self.players:
            for name, _, shape in layouts[n]:
                old = shapes.get(name)
                if old is None:
                    shapes[name] = shape
                elif len(old) != len(shape):
                    raise GameFamilyError(f"FeatureLayout: piece {name!r} has shapes {old} and "
                                          f"{shape} of different ranks")
                else:
                    shapes[name] = tuple(max(a, b) for a, b in zip(old, shape))
        shapes["players"] = (len(self.players),)
        self.num_actions = max(g.num_distinct_actions() for g in games.values())
        if hint is not None:
            shapes["hint"] = (self.num_actions,)
        self.pieces, off = [], 0
        starts = {}
        for name, shape in shapes.items():
            self.pieces.append((name, off, shape))
            starts[name] = off
            off += int(np.prod(shape))
        self.size = off
        self.max_players = max(self.players)
        self._views: dict[int, _GameView] = {}
        for i, n in enumerate(self.players):
            parts = []
            for name, _, shape in layouts[n]:
                padded = shapes[name]
                idx = np.indices(shape).reshape(len(shape), -1)
                parts.append(starts[name] + np.ravel_multi_index(idx, padded))
            scatter = np.concatenate(parts).astype(np.int64)
            self._views[n] = _GameView(games[n], scatter, starts["players"] + i,
                                       starts.get("hint", -1))
        key = {"base": self.base, "players": self.players, "pieces": self.pieces}
        if hint is not None:
            key["hint"] = hint
        text = json.dumps(key, sort_keys=True, default=list)
        self.fingerprint = hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        hint = f", hint={self.hint!r}" if self.hint else ""
        return (f"FeatureLayout(players={list(self.players)}, size={self.size}, "
                f"num_actions={self.num_actions}{hint})")

    def to_dict(self) -> dict:
        """What rebuilds the layout: ``FeatureLayout(**d)``."""
        d = {"base": dict(self.base), "players": list(self.players)}
        if self.hint is not None:
            d["hint"] = self.hint
        return d

    # ------------------------------------------------------------ games
    def view(self, game_or_players) -> _GameView:
        """The covered game with these rules (a game, or a player count); a game
        with other rules or an uncovered player count raises :class:`GameFamilyError`."""
        if isinstance(game_or_players, (int, np.integer)):
            n = int(game_or_players)
        else:
            game = game_or_players
            n = game.num_players()
            base = game_base_params(game)
            if base != self.base:
                diff = sorted(k for k in set(base) | set(self.base)
                              if base.get(k) != self.base.get(k))
                raise GameFamilyError(
                    "the network was made for other rules: parameters "
                    + ", ".join(f"{k}={base.get(k)!r} (network: {self.base.get(k)!r})"
                                for k in diff))
        if n not in self._views:
            raise GameFamilyError(f"the network covers players {list(self.players)}, not "
                                  f"{n}")
        return self._views[n]

    # ------------------------------------------------------------ features
    def _batch(self, game, states, players):
        v = self.view(game)
        states = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
        if players is None:
            players = states[:, E.S_CUR]
        players = np.ascontiguousarray(np.broadcast_to(np.asarray(players, np.int64),
                                                       (states.shape[0],)))
        n = int(v.P[E.P_N])
        if ((players < 0) | (players >= n)).any():
            raise ValueError(f"players {players.tolist()} must be seats of the {n}-player game "
                             f"(a chance or terminal state has no player to move)")
        return v, states, players

    def dense(self, game, states, players=None) -> np.ndarray:
        """``float32[B, size]``: the padded information-state tensor of ``states[b]``
        (engine vectors of ``game``) seen by ``players[b]`` (default: the player to
        move)."""
        v, states, players = self._batch(game, states, players)
        out = np.empty((states.shape[0], self.size), np.float32)
        _dense_batch(v.P, states, players, v.offs, v.scatter, v.count_idx, v.hint_idx, v.legal,
                     v.rng, v.tmp, out)
        return out

    def sparse(self, game, states, players=None):
        """``(indices int64[nnz], values float32[nnz], offsets int64[B + 1])``: the
        non-zeros of :meth:`dense`, row ``b`` at ``offsets[b]:offsets[b + 1]``."""
        v, states, players = self._batch(game, states, players)
        B = states.shape[0]
        cap = B * v.row_cap
        idx, val = np.empty(cap, np.int64), np.empty(cap, np.float32)
        offsets = np.empty(B + 1, np.int64)
        m = _sparse_batch(v.P, states, players, v.offs, v.scatter, v.count_idx, v.hint_idx,
                          v.legal, v.rng, v.tmp, idx, val, offsets)
        return idx[:m].copy(), val[:m].copy(), offsets

    def mask(self, game, states) -> np.ndarray:
        """``bool[B, num_actions]``: the legal actions of ``states[b]``."""
        v = self.view(game)
        return legal_mask(v.P, states, self.num_actions)

    def unpad(self, game, features: np.ndarray) -> np.ndarray:
        """The observer's information-state tensor(s) inside padded ``features``."""
        return np.asarray(features)[..., self.view(game).scatter]
