"""The sweeps of a CFR pass over a range of nodes, shared by the one-core
kernels (:mod:`solvers.cfr._solvers`, over the whole tree) and the block
kernels (:mod:`solvers.cfr._parallel`, over one block's nodes at one depth).

Each function loops over a node range itself: a numba call per node (plain
or ``inline="always"``) was measured 6-15x slower than the written-out loop
on ``small3``, while one call per range costs nothing measurable. Both kernel
families run the same code, so every product and every sum is the same, in
the same order: ``threads=T`` stays bit for bit equal to one core.

numba's on-disk cache does not track imports; the package's guard
(``solvers/cfr/__init__.py``) drops every cached kernel of ``solvers/cfr``
when any of its sources changes, so an edit here is always recompiled.
"""

from __future__ import annotations

from numba import njit

from ._tree import CHANCE, TERMINAL


# carries: the node range (u0, u1, stale), the tree (node_player, node_data, child_start,
# chance_prob, seq_start), the policy, the reach written
@njit(cache=True)
def reach_range(u0, u1, stale, node_player, node_data, child_start, chance_prob, seq_start,
                policy, reach):
    """The reaches of the children of nodes ``u0 .. u1 - 1`` from theirs
    (``reach[q, u]``: players' rows, then chance's last): every row when
    ``stale < 0``, else only player ``stale``'s row."""
    m = reach.shape[0]
    for u in range(u0, u1):
        k = node_player[u]
        if k == TERMINAL:
            continue
        c0 = child_start[u]
        c1 = child_start[u + 1]
        if stale >= 0:                                  # one player's row
            if k == stale:
                b = seq_start[node_data[u]] - c0
                for c in range(c0, c1):
                    reach[stale, c] = reach[stale, u] * policy[b + c]
            else:
                for c in range(c0, c1):
                    reach[stale, c] = reach[stale, u]
        elif k == CHANCE:
            b = node_data[u] - c0
            for c in range(c0, c1):
                for q in range(m):
                    reach[q, c] = reach[q, u]
                reach[m - 1, c] = reach[m - 1, u] * chance_prob[b + c]
        else:
            b = seq_start[node_data[u]] - c0
            for c in range(c0, c1):
                for q in range(m):
                    reach[q, c] = reach[q, u]
                reach[k, c] = reach[k, u] * policy[b + c]


# carries: the node range and the player (u0, u1, p), the tree (node_player, node_data,
# child_start, chance_prob, payoff, seq_start), the policy, the values written
@njit(cache=True)
def value_range(u0, u1, p, node_player, node_data, child_start, chance_prob, payoff, seq_start,
                policy, value):
    """``value[u]``, the value to ``p``, of nodes ``u1 - 1`` down to ``u0``
    (their children's values must be set): a terminal's payoff, else the
    chance- or policy-weighted sum of the children's values."""
    for u in range(u1 - 1, u0 - 1, -1):
        k = node_player[u]
        if k == TERMINAL:
            value[u] = payoff[node_data[u], p]
            continue
        c0 = child_start[u]
        c1 = child_start[u + 1]
        v = 0.0
        if k == CHANCE:
            b = node_data[u] - c0
            for c in range(c0, c1):
                v += chance_prob[b + c] * value[c]
        else:
            b = seq_start[node_data[u]] - c0
            for c in range(c0, c1):
                v += policy[b + c] * value[c]
        value[u] = v


# carries: the node range and the player (u0, u1, p), the tree (node_player, node_data,
# child_start, seq_start), the policy with its reach and values (policy, reach, value), the
# accumulators (regret, avg, avg_weight) and the per-edge terms of shared sets (owned_node,
# edge_regret, edge_avg)
@njit(cache=True)
def terms_range(u0, u1, p, node_player, node_data, child_start, seq_start, policy, reach, value,
                regret, avg, avg_weight, owned_node, edge_regret, edge_avg):
    """CFR's terms at ``p``'s histories among ``u0 .. u1 - 1``, in increasing
    node order: ``cf_reach * (v(child) - v)`` and ``reach_p * policy *
    avg_weight``. Added into ``regret`` and ``avg`` when ``owned_node`` is
    empty or ``owned_node[u] < 0``; else written to the scratch arrays
    ``edge_regret`` and ``edge_avg`` from slot ``owned_node[u]`` on."""
    m = reach.shape[0]
    slotted = owned_node.shape[0] > 0
    for u in range(u0, u1):
        if node_player[u] != p:
            continue
        cf = 1.0
        for q in range(m):
            if q != p:
                cf *= reach[q, u]
        own = reach[p, u]
        v = value[u]
        c0 = child_start[u]
        c1 = child_start[u + 1]
        b = seq_start[node_data[u]] - c0
        slot = owned_node[u] if slotted else -1
        if slot < 0:
            for c in range(c0, c1):
                regret[b + c] += cf * (value[c] - v)
                avg[b + c] += own * policy[b + c] * avg_weight
        else:
            for c in range(c0, c1):
                edge_regret[slot + c - c0] = cf * (value[c] - v)
                edge_avg[slot + c - c0] = own * policy[b + c] * avg_weight


@njit(cache=True)
def regret_matching_range(regret, seq_start, i0, i1, policy):
    """``policy`` of information sets ``i0 .. i1 - 1`` proportional to the
    positive part of ``regret`` (uniform when none is positive)."""
    for i in range(i0, i1):
        a = seq_start[i]
        b = seq_start[i + 1]
        total = 0.0
        for j in range(a, b):
            if regret[j] > 0:
                total += regret[j]
        for j in range(a, b):
            if total > 0:
                policy[j] = regret[j] / total if regret[j] > 0 else 0.0
            else:
                policy[j] = 1.0 / (b - a)
