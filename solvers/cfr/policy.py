"""Profiles on a flat tree (``float64[S]``) to and from OpenSpiel policies.

* :func:`to_tabular_policy`: a ``open_spiel.python.policy.TabularPolicy``
  (what ``exploitability.nash_conv`` and the other OpenSpiel tools take);
* :func:`from_policy`: a profile from a python ``TabularPolicy``, any
  ``open_spiel.python.policy.Policy``, a C++ ``pyspiel.Policy`` (e.g.
  ``pyspiel.CFRSolver.average_policy()``), or a dict
  ``{information_state_string: {action: prob} | [(action, prob), ...]}``;
* :class:`FlatPolicy`: a lightweight ``policy.Policy`` over a profile, for
  games too large for ``TabularPolicy`` (which enumerates every state).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

from .tree import GameTree

__all__ = ["to_tabular_policy", "from_policy", "FlatPolicy", "uniform_profile",
           "random_profile"]


def uniform_profile(tree: GameTree) -> np.ndarray:
    """Every information set's actions equally likely. ``float64[S]``."""
    k = np.diff(tree.infoset_seq_start)
    return np.repeat(1.0 / k, k)


def random_profile(tree: GameTree, rng: np.random.Generator | int) -> np.ndarray:
    """Independent Dirichlet(1) strategies at every information set. ``float64[S]``."""
    rng = np.random.default_rng(rng)
    w = rng.exponential(size=tree.num_sequences)
    sums = np.add.reduceat(w, tree.infoset_seq_start[:-1]) if tree.num_infosets else w
    return w / np.repeat(sums, np.diff(tree.infoset_seq_start))


def to_tabular_policy(tree: GameTree, profile: np.ndarray,
                      base: os_policy.TabularPolicy | None = None) -> os_policy.TabularPolicy:
    """``profile float64[S]`` as a ``TabularPolicy`` of ``tree.game``.

    ``base``: a ``TabularPolicy`` of the same game to fill (a copy is
    returned); by default one is created (OpenSpiel enumerates every state).
    """
    if tree.game is None:
        raise ValueError("the tree has no game; build it with build_tree(game)")
    tab = (base.__copy__() if base is not None else os_policy.TabularPolicy(tree.game))
    keys = tree.infoset_keys()
    arr = tab.action_probability_array
    for i, key in enumerate(keys):
        row = tab.state_lookup.get(key)
        if row is None:
            raise KeyError(f"information state {key!r} is not in the TabularPolicy")
        a, b = tree.infoset_seq_start[i], tree.infoset_seq_start[i + 1]
        arr[row, :] = 0.0
        arr[row, tree.sequence_action[a:b]] = profile[a:b]
    return tab


def from_policy(tree: GameTree, policy, *, missing: str = "error") -> np.ndarray:
    """A profile ``float64[S]`` from an OpenSpiel policy or a dict (see module doc).

    Actions a policy leaves out get probability 0. ``missing``: what to do with
    an information state a dict (or an object with a ``table`` dict, such as
    :class:`~solvers.cfr.mccfr.MCCFRPolicy`) lacks: ``"error"`` (KeyError,
    the default) or ``"uniform"``.
    """
    S = tree.num_sequences
    out = np.zeros(S)
    if isinstance(policy, np.ndarray):
        if policy.shape != (S,):
            raise ValueError(f"expected float64[{S}], got shape {policy.shape}")
        return policy.astype(np.float64, copy=True)
    if isinstance(getattr(policy, "table", None), Mapping):
        policy = policy.table
    if missing not in ("error", "uniform"):
        raise ValueError(f"missing={missing!r}: expected 'error' or 'uniform'")
    keys = None
    if isinstance(policy, os_policy.TabularPolicy) or isinstance(policy, Mapping):
        keys = tree.infoset_keys()
    for i in range(tree.num_infosets):
        a, b = int(tree.infoset_seq_start[i]), int(tree.infoset_seq_start[i + 1])
        actions = tree.sequence_action[a:b]
        if isinstance(policy, os_policy.TabularPolicy):
            out[a:b] = policy.policy_for_key(keys[i])[actions]
            continue
        if isinstance(policy, Mapping):
            probs = policy.get(keys[i])
            if probs is None:
                if missing == "error":
                    raise KeyError(f"information state {keys[i]!r} is not in the policy")
                out[a:b] = 1.0 / (b - a)
                continue
        elif isinstance(policy, os_policy.Policy):
            probs = policy.action_probabilities(tree.state(int(tree.infoset_node[i])),
                                                int(tree.infoset_player[i]))
        elif isinstance(policy, pyspiel.Policy):
            probs = policy.get_state_policy(tree.infoset_keys()[i])
        else:
            raise TypeError(f"cannot read a profile from {type(policy).__name__}")
        d = dict(probs.items() if hasattr(probs, "items") else probs)
        out[a:b] = [d.get(int(x), 0.0) for x in actions]
    return out


class FlatPolicy(os_policy.Policy):
    """An OpenSpiel ``Policy`` answering from a profile on ``tree``.

    Information states are looked up by ``information_state_string``; the
    tree's keys are made once, when first needed.
    """

    def __init__(self, tree: GameTree, profile: np.ndarray):
        super().__init__(tree.game, list(range(tree.num_players)))
        self._tree = tree
        self._profile = np.asarray(profile, np.float64)
        self._index = None

    def action_probabilities(self, state, player_id=None):
        if self._index is None:
            self._index = self._tree.infoset_index()
        p = state.current_player() if player_id is None else player_id
        i = self._index[state.information_state_string(p)]
        a, b = self._tree.infoset_seq_start[i], self._tree.infoset_seq_start[i + 1]
        return dict(zip(self._tree.sequence_action[a:b].tolist(),
                        self._profile[a:b].tolist()))
