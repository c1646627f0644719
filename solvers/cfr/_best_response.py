"""Exact best responses and NashConv on a flat tree, for n-player general-sum games.

A profile is one ``float64[S]`` array of action probabilities over the tree's
sequences (see :mod:`solvers.cfr._tree`); :mod:`solvers.cfr._policy` converts
OpenSpiel policies to it.

Best response of player ``i`` (the others fixed): one top-down pass computes
the counterfactual reach of every node (chance and the other players), then
nodes are valued bottom up, choosing at each of ``i``'s information sets the
action maximising ``sum_h cf_reach(h) * value(child)`` over its histories.
When every information set lies at one depth (all games here) this is one
bottom-up pass, level by level; otherwise one pass per depth of ``i``'s own
sequences, deepest first.

``NashConv(sigma) = sum_i (BR_i(sigma_-i) - v_i(sigma))``
(Lanctot et al. 2017), the value OpenSpiel's ``exploitability.nash_conv`` returns.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from ._tree import CHANCE, TERMINAL, GameTree

__all__ = ["policy_values", "best_response", "nash_conv", "NashConvResult", "BestResponse"]


@njit(cache=True, inline='always')
def _expectation(u, k, node_data, child_start, chance_prob, seq_start, policy, value):
    """Expected child value of a chance node (``k == CHANCE``) or of a decision
    node played by ``policy``."""
    c0 = child_start[u]
    v = 0.0
    if k == CHANCE:
        b = node_data[u] - c0
        for c in range(c0, child_start[u + 1]):
            v += chance_prob[b + c] * value[c]
    else:
        b = seq_start[node_data[u]] - c0
        for c in range(c0, child_start[u + 1]):
            v += policy[b + c] * value[c]
    return v


# carries: the player (p), the tree (node_player, node_data, child_start, chance_prob, payoff,
# seq_start), the policy, the values written
@njit(cache=True)
def _values(p, node_player, node_data, child_start, chance_prob, payoff, seq_start,
            policy, value):
    """``value[u]``: value to player ``p`` of every node under ``policy``."""
    for u in range(node_player.shape[0] - 1, -1, -1):
        k = node_player[u]
        if k == TERMINAL:
            value[u] = payoff[node_data[u], p]
        else:
            value[u] = _expectation(u, k, node_data, child_start, chance_prob, seq_start,
                                    policy, value)


@njit(cache=True)
def cf_reach(p, node_player, node_data, child_start, chance_prob, seq_start, policy, reach):
    """``reach[u]``: probability of reaching ``u`` by chance and players other than ``p``."""
    reach[0] = 1.0
    for u in range(node_player.shape[0]):
        k = node_player[u]
        if k == TERMINAL:
            continue
        c0 = child_start[u]
        if k == CHANCE:
            b = node_data[u] - c0
            for c in range(c0, child_start[u + 1]):
                reach[c] = reach[u] * chance_prob[b + c]
        elif k == p:
            for c in range(c0, child_start[u + 1]):
                reach[c] = reach[u]
        else:
            b = seq_start[node_data[u]] - c0
            for c in range(c0, child_start[u + 1]):
                reach[c] = reach[u] * policy[b + c]


# carries: the player and the node (p, u), the tree (node_player, node_data,
# child_start, chance_prob, payoff, seq_start), the others' policy, the player's
# choices and the node values (choice, value)
@njit(cache=True)
def _node_value(p, u, node_player, node_data, child_start, chance_prob, payoff,
                seq_start, policy, choice, value):
    """Value of node ``u`` to ``p`` from its children's: the chosen child at
    ``p``'s nodes, the expectation under ``chance_prob`` and ``policy`` elsewhere,
    ``payoff`` at a terminal. With ``policy`` None the values are counterfactual
    (the weights are in the leaves): a terminal keeps ``value[u]`` and the other
    nodes sum their children."""
    k = node_player[u]
    if k == TERMINAL:
        if policy is None:
            return value[u]
        return payoff[node_data[u], p]
    if k == p:
        return value[child_start[u] + choice[node_data[u]]]
    if policy is None:
        v = 0.0
        for c in range(child_start[u], child_start[u + 1]):
            v += value[c]
        return v
    return _expectation(u, k, node_data, child_start, chance_prob, seq_start, policy, value)


@njit(cache=True)
def best_action(i, seq_start, q, choice):
    """Set ``choice[i]`` to the action (an index within information set ``i``'s
    sequences ``seq_start[i]:seq_start[i + 1]``) of the largest ``q``, the first on ties."""
    best = 0
    bv = q[seq_start[i]]
    for j in range(1, seq_start[i + 1] - seq_start[i]):
        if q[seq_start[i] + j] > bv:
            bv = q[seq_start[i] + j]
            best = j
    choice[i] = best


# carries: the player (p), the tree by depth (node_player, node_data, child_start,
# level_start, chance_prob, payoff, seq_start), the others' policy and their reach
# (policy, reach; None: counterfactual values in ``value``), the work and the result
# (q, choice, value)
@njit(cache=True)
def _br_by_level(p, node_player, node_data, child_start, level_start, chance_prob, payoff,
                 seq_start, policy, reach, q, choice, value):
    """Best response of ``p`` when every information set lies at one depth
    (``policy`` None: ``value`` holds the weighted terminal values on entry)."""
    for d in range(level_start.shape[0] - 2, -1, -1):
        a, b = level_start[d], level_start[d + 1]
        for u in range(a, b):
            if node_player[u] == p:
                c0 = child_start[u]
                s0 = seq_start[node_data[u]] - c0
                for c in range(c0, child_start[u + 1]):
                    if reach is None:
                        q[s0 + c] += value[c]
                    else:
                        q[s0 + c] += reach[u] * value[c]
        for u in range(a, b):
            if node_player[u] == p and choice[node_data[u]] < 0:
                best_action(node_data[u], seq_start, q, choice)
        for u in range(a, b):
            value[u] = _node_value(p, u, node_player, node_data, child_start, chance_prob,
                                   payoff, seq_start, policy, choice, value)


# carries: the player and the depth of this pass (p, depth_now, own_depth), the tree
# (node_player, node_data, child_start, chance_prob, payoff, seq_start), the others'
# policy and their reach (policy, reach; None: counterfactual values in ``value``),
# the work and the result (q, choice, value)
@njit(cache=True)
def _br_pass(p, depth_now, own_depth, node_player, node_data, child_start, chance_prob,
             payoff, seq_start, policy, reach, q, choice, value):
    """One bottom-up pass (any tree): information sets of own depth ``depth_now``
    collect their action values in ``q``; deeper ones play ``choice``; shallower
    ones play their first action (their values are not used yet)."""
    for u in range(node_player.shape[0] - 1, -1, -1):
        k = node_player[u]
        if k == p:
            i = node_data[u]
            c0 = child_start[u]
            if own_depth[i] == depth_now:
                s0 = seq_start[i] - c0
                for c in range(c0, child_start[u + 1]):
                    if reach is None:
                        q[s0 + c] += value[c]
                    else:
                        q[s0 + c] += reach[u] * value[c]
            value[u] = value[c0 + max(choice[i], 0)]
        else:
            value[u] = _node_value(p, u, node_player, node_data, child_start, chance_prob,
                                   payoff, seq_start, policy, choice, value)


def best_response_choice(tree: GameTree, player: int, value: np.ndarray,
                         policy: np.ndarray | None = None,
                         reach: np.ndarray | None = None) -> np.ndarray:
    """The pure best response of ``player``, bottom up: returns ``choice int64[I]``
    (-1 at the other players' sets) and leaves every node's value under it in
    ``value float64[N]``. Against ``policy float64[S]`` with the counterfactual
    ``reach`` of :func:`cf_reach`; or, with ``policy`` None, on counterfactual
    values (``value`` holds the weighted terminal values on entry)."""
    tr = tree
    q = np.zeros(tr.num_sequences)
    choice = np.full(tr.num_infosets, -1, np.int64)
    cp, pay = (None, None) if policy is None else (tr.chance_prob, tr.payoff_table)
    if tr.infosets_level_consistent:
        _br_by_level(player, tr.node_player, tr.node_data, tr.child_start, tr.level_start,
                     cp, pay, tr.infoset_seq_start, policy, reach, q, choice, value)
        return choice
    own_depth = own_depths(tr)
    mine = slice(tr.player_infoset_start[player], tr.player_infoset_start[player + 1])
    top = int(own_depth[mine].max()) if mine.stop > mine.start else -1
    for d in range(top, -1, -1):
        _br_pass(player, d, own_depth, tr.node_player, tr.node_data, tr.child_start,
                 cp, pay, tr.infoset_seq_start, policy, reach, q, choice, value)
        for i in range(mine.start, mine.stop):
            if own_depth[i] == d:
                best_action(i, tr.infoset_seq_start, q, choice)
    _br_pass(player, -1, own_depth, tr.node_player, tr.node_data, tr.child_start,
             cp, pay, tr.infoset_seq_start, policy, reach, q, choice, value)
    return choice


@dataclasses.dataclass(frozen=True)
class BestResponse:
    """A pure best response of ``player``: ``value`` (its expected value
    against the others' policy) and ``choice int64[I]`` (action index chosen
    at each information set, -1 at the other players' sets)."""
    player: int
    value: float
    choice: np.ndarray

    def __repr__(self) -> str:
        """One line: the player, the value and the size of the choice table."""
        return (f"BestResponse(player={self.player}, value={self.value:.6g}, "
                f"infosets chosen={int(np.count_nonzero(self.choice >= 0)):,})")

    def as_policy(self, tree: GameTree, base: np.ndarray) -> np.ndarray:
        """``base float64[S]`` with this player's sets replaced by the pure choice."""
        out = np.array(base, np.float64)
        tr = tree
        for i in range(tr.player_infoset_start[self.player],
                       tr.player_infoset_start[self.player + 1]):
            a, b = tr.infoset_seq_start[i], tr.infoset_seq_start[i + 1]
            out[a:b] = 0.0
            out[a + self.choice[i]] = 1.0
        return out


@dataclasses.dataclass(frozen=True)
class NashConvResult:
    """``nash_conv`` = ``sum(player_improvements)``; ``player_improvements[i]``
    = ``best_response_values[i] - on_policy_values[i]`` (all ``float64[n]``)."""
    nash_conv: float
    player_improvements: np.ndarray
    best_response_values: np.ndarray
    on_policy_values: np.ndarray

    def __repr__(self) -> str:
        def v(a):
            return "[" + ", ".join(f"{x:.4g}" for x in np.asarray(a).tolist()) + "]"
        return (f"NashConvResult(nash_conv={self.nash_conv:.6g}, "
                f"player_improvements={v(self.player_improvements)}, "
                f"best_response_values={v(self.best_response_values)}, "
                f"on_policy_values={v(self.on_policy_values)})")


def _checked(tree: GameTree, policy) -> np.ndarray:
    policy = np.ascontiguousarray(policy, np.float64)
    if policy.shape != (tree.num_sequences,):
        raise ValueError(f"a profile on this tree is float64[{tree.num_sequences}], "
                         f"got shape {policy.shape}")
    return policy


def policy_values(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Expected value of every player when all follow ``policy float64[S]``.
    Returns ``float64[n]``."""
    policy = _checked(tree, policy)
    value = np.empty(tree.num_nodes)
    out = np.empty(tree.num_players)
    for p in range(tree.num_players):
        _values(p, tree.node_player, tree.node_data, tree.child_start, tree.chance_prob,
                tree.payoff_table, tree.infoset_seq_start, policy, value)
        out[p] = value[0]
    return out


def best_response(tree: GameTree, policy: np.ndarray, player: int) -> BestResponse:
    """Exact best response of ``player`` to the others' part of ``policy float64[S]``."""
    policy = _checked(tree, policy)
    tr = tree
    reach = np.empty(tr.num_nodes)
    value = np.empty(tr.num_nodes)
    cf_reach(player, tr.node_player, tr.node_data, tr.child_start, tr.chance_prob,
             tr.infoset_seq_start, policy, reach)
    choice = best_response_choice(tr, player, value, policy, reach)
    return BestResponse(player=player, value=float(value[0]), choice=choice)


def own_depths(tree: GameTree) -> np.ndarray:
    """Number of the player's own earlier decisions before each information set."""
    depth = np.full(tree.num_infosets, -1, np.int64)
    parent_infoset = np.where(tree.infoset_parent_seq >= 0,
                              tree.sequence_infoset[np.maximum(tree.infoset_parent_seq, 0)], -1)
    for i in range(tree.num_infosets):        # parents have smaller first histories
        chain, j = [], i
        while j >= 0 and depth[j] < 0:
            chain.append(j)
            j = parent_infoset[j]
        base = depth[j] if j >= 0 else -1
        for k in reversed(chain):
            base += 1
            depth[k] = base
    return depth


def nash_conv(tree: GameTree, policy: np.ndarray, *,
              return_details: bool = False) -> float | NashConvResult:
    """``sum_i (BR_i - v_i)`` of ``policy float64[S]``; with
    ``return_details`` a :class:`NashConvResult`."""
    policy = _checked(tree, policy)
    on = policy_values(tree, policy)
    br = np.array([best_response(tree, policy, p).value for p in range(tree.num_players)])
    imp = br - on
    if not return_details:
        return float(imp.sum())
    return NashConvResult(nash_conv=float(imp.sum()), player_improvements=imp,
                          best_response_values=br, on_policy_values=on)
