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

from ._tree import GameTree

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


def from_policy(tree: GameTree, policy, *, missing: str = "uniform") -> np.ndarray:
    """A profile ``float64[S]`` from an OpenSpiel policy or a dict (see module doc).

    Actions a policy leaves out get probability 0. An information set the
    policy does not cover is *missing*: a key absent from a dict (or from the
    ``table`` dict of an object such as :class:`~solvers.cfr._mccfr.MCCFRPolicy`),
    a C++ policy that answers no entry or "no policy found" (e.g. a
    ``pyspiel.TabularPolicy`` made from part of the game), a Python policy
    whose ``action_probabilities`` raises ``KeyError``/``LookupError`` or gives
    no positive, finite probability to any legal action. ``missing``:
    ``"uniform"`` (the default: OpenSpiel's own MCCFR average policies are
    uniform where unvisited) or ``"error"`` (KeyError naming the information
    state).

    C++ policies are read by information-state key when they implement it
    (``pyspiel.CFRSolver``'s average policy) and otherwise by state (the
    average policies of ``pyspiel.OutcomeSamplingMCCFRSolver`` and
    ``ExternalSamplingMCCFRSolver`` implement only ``GetStatePolicy(state)``).
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
    if not isinstance(policy, (os_policy.TabularPolicy, Mapping, os_policy.Policy,
                               pyspiel.Policy)):
        raise TypeError(f"cannot read a profile from {type(policy).__name__}")
    keys = tree.infoset_keys()
    by_state = False                    # C++ policies without GetStatePolicy(key)
    for i in range(tree.num_infosets):
        a, b = int(tree.infoset_seq_start[i]), int(tree.infoset_seq_start[i + 1])
        actions = tree.sequence_action[a:b]
        probs = None
        if isinstance(policy, os_policy.TabularPolicy):
            try:
                out[a:b] = policy.policy_for_key(keys[i])[actions]
                continue
            except (KeyError, LookupError):
                pass
        elif isinstance(policy, Mapping):
            probs = policy.get(keys[i])
        elif isinstance(policy, os_policy.Policy):
            try:
                probs = policy.action_probabilities(tree.state(int(tree.infoset_node[i])),
                                                    int(tree.infoset_player[i]))
            except (KeyError, LookupError):
                probs = None
        else:
            probs, by_state = _cpp_policy(policy, tree, i, keys[i], by_state)
        if probs:
            d = dict(probs.items() if hasattr(probs, "items") else probs)
            row = np.array([d.get(int(x), 0.0) for x in actions], np.float64)
            if np.all(np.isfinite(row)) and row.max() > 0:
                out[a:b] = row
                continue
        if missing == "error":
            raise KeyError(f"information state {keys[i]!r} (player "
                           f"{int(tree.infoset_player[i])}) is not in the policy "
                           f"(pass missing='uniform' to play uniformly there)")
        out[a:b] = 1.0 / (b - a)
    return out


def _cpp_policy(policy, tree: GameTree, i: int, key: str, by_state: bool):
    """``(probabilities or None, by_state)`` of a C++ ``pyspiel.Policy`` at
    information set ``i``: by key, or by state once the key form turned out
    unimplemented. None: the policy has no entry there."""
    if not by_state:
        try:
            return policy.get_state_policy(key), False
        except pyspiel.SpielError as e:
            if "unimplemented" not in str(e).lower():
                return None, False          # e.g. "No policy found, and no default policy"
        except TypeError:
            pass
    try:
        return policy.get_state_policy(tree.state(int(tree.infoset_node[i]))), True
    except pyspiel.SpielError:
        return None, True


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
