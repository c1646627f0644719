"""Multi-core CFR passes: the tree split into independent subtrees, bit for bit
the one-core results.

In the flat :class:`~solvers.cfr._tree.GameTree` (breadth-first order, the
children of a node contiguous), the descendants of a contiguous range of
nodes at one depth form a contiguous range at every deeper depth. A *plan*
cuts one depth (the *split level*: the first with at least
``MIN_SPLIT_NODES_PER_BLOCK * blocks`` nodes; in whole-deal presets the chance
root's children, one per deal) into ``blocks`` contiguous ranges of about
equal subtree size; block ``t`` owns, at every depth ``d >= split``, the nodes
``bounds[t, d] .. bounds[t + 1, d] - 1``. An information set is *owned* by a
block when all its histories lie in that block (the levels above the split
count as one more block); the others are *shared* (an information set of a
whole-deal preset spans the deals that agree on the player's hand: about 10%
of the decision histories of ``small3`` and ``medium3`` with 2 blocks, none
in 2-player presets, where one hand determines the other).

One pass for player ``p`` (:func:`cfr_pass`) runs

1. top down over the levels above the split (one thread), the reach of every
   node for every player and chance, exactly as the one-core kernel; only the
   row of the player updated since the previous pass is recomputed (the other
   rows hold the same numbers already: a pass changes one player's strategy,
   chance never changes; the solver carries this across ``iterate`` calls and
   recomputes every row when its policy was changed in between), which cuts
   the bytes written top down from ``8 (n + 1)`` to 8 per history;
2. on every block at once (numba ``prange``; compiled code, no GIL): the
   block's reaches top down, its values to ``p`` bottom up, and at ``p``'s
   decision nodes CFR's regret and average terms (``cf * (v(child) - v)``,
   ``reach_p * policy * weight``). A block adds the terms of the information
   sets it owns straight into the tables, in increasing node order, and so
   does the *first* block of a shared set when every set lies at one depth
   (its histories there precede all the set's others in node order); it
   writes the terms of the other (*deferred*) histories of shared sets into
   scratch arrays, at slots laid out in node order (sequential writes);
3. the levels above the split bottom up (one thread), then the shared
   information sets, in parallel ranges: each adds its deferred histories'
   terms from the scratch arrays in increasing node order.

Every term is the same product as in :mod:`solvers.cfr._solvers`, and every
sequence receives its terms in the one-core order (increasing node index), so
the results are bit for bit those of ``threads=1`` for any number of blocks
and any number of threads running them (the tests compare with ``==``).

Memory: the one-core work arrays (``(n + 2) N`` doubles) plus ``2 N``
doubles of scratch terms and the plan: ``8 N + 4 I`` bytes of owners and
slots and ``8`` bytes per history of a shared information set.

Importing this module sets ``OMP_WAIT_POLICY=PASSIVE`` unless it is set
already (``OMP_WAIT_POLICY=ACTIVE`` in the environment keeps spinning): numba's
OpenMP workers otherwise spin between parallel regions, and on a machine with
more runnable threads than cores (load 8 on 2 cores) a 2-thread iteration on
``small3`` measured 10x slower than one core and a seconds-long test 40x
slower; passive, the same as one thread. It takes effect only if no OpenMP
runtime has started in the process yet (numba starts its own at the first
parallel call, not at import).
"""

from __future__ import annotations

import dataclasses
import os

import numba
import numpy as np
from numba import njit, prange

from ._kernels import reach_range, regret_matching_range, terms_range, value_range
from ._tree import GameTree

__all__ = ["ParallelPlan", "make_plan", "cfr_pass", "regret_matching_parallel",
           "MIN_SPLIT_NODES_PER_BLOCK", "available_threads"]

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")    # see the module docstring

#: The split level is the first depth with at least this many nodes per block.
MIN_SPLIT_NODES_PER_BLOCK = 16


def available_threads() -> int:
    """The size of numba's thread pool (``NUMBA_NUM_THREADS``, default: the cores)."""
    return int(numba.config.NUMBA_NUM_THREADS)


@dataclasses.dataclass(frozen=True, eq=False)
class ParallelPlan:
    """How a tree is cut into ``blocks`` independent subtree blocks.

    * ``split``: the depth that is cut; ``bounds int64[blocks + 1, L]`` (``L``
      levels): block ``t`` owns nodes ``bounds[t, d] .. bounds[t + 1, d] - 1``
      of every depth ``d >= split`` (columns above the split are unused);
      ``block_nodes int64[blocks]``: the nodes each block owns;
    * ``owner int32[I]``: the block owning each information set (``blocks``:
      the levels above the split; -1: shared); ``owned_node int64[N]``: -1 at
      histories whose terms go straight into the tables (owned sets, a shared
      set's first block when ``level_consistent``, chance and terminal
      histories), else the deferred history's first slot in the scratch arrays
      (what the kernels read, in node order, where ``owner`` would be one more
      scattered read); empty when no history is deferred (2-player whole-deal
      presets), so the kernels skip the lookups;
    * the shared information sets, ascending (``shared_infoset int64[K]``), and
      their histories, ascending within each (``shared_nodes int64[...]`` from
      ``shared_start int64[K + 1]``); ``player_shared_start int64[n + 1]``:
      player ``p``'s shared sets are ``player_shared_start[p] ..
      player_shared_start[p + 1] - 1``;
    * ``level_consistent``: every information set lies at one depth (the
      terms are then added during the bottom-up sweep instead of a third one);
      ``decision_nodes``: the tree's decision histories.
    """

    blocks: int
    split: int
    bounds: np.ndarray
    block_nodes: np.ndarray
    owner: np.ndarray
    owned_node: np.ndarray
    shared_infoset: np.ndarray
    shared_start: np.ndarray
    shared_nodes: np.ndarray
    player_shared_start: np.ndarray
    level_consistent: bool
    decision_nodes: int

    @property
    def imbalance(self) -> float:
        """Largest block over the mean block (1.0: perfectly even)."""
        return float(self.block_nodes.max() / max(self.block_nodes.mean(), 1.0))

    @property
    def shared_fraction(self) -> float:
        """The fraction of decision histories in shared information sets."""
        return float(self.shared_nodes.shape[0]) / max(1, self.decision_nodes)

    @property
    def nbytes(self) -> int:
        return int(self.bounds.nbytes + self.owner.nbytes + self.owned_node.nbytes
                   + self.shared_infoset.nbytes
                   + self.shared_start.nbytes + self.shared_nodes.nbytes)


@njit(cache=True)
def _subtree_sizes(child_start, n_nodes):
    size = np.ones(n_nodes, np.int64)
    for u in range(n_nodes - 1, -1, -1):
        for c in range(child_start[u], child_start[u + 1]):
            size[u] += size[c]
    return size


@njit(cache=True)
def _owners(node_player, node_data, level_start, split, bounds, n_infosets):
    """``owner[I]``: the one block holding all of ``I``'s histories, else -1."""
    blocks = bounds.shape[0] - 1
    owner = np.full(n_infosets, -2, np.int32)        # -2: not seen yet
    for u in range(level_start[split]):
        if node_player[u] >= 0:
            i = node_data[u]
            owner[i] = blocks if owner[i] == -2 or owner[i] == blocks else -1
    for t in range(blocks):
        for d in range(split, bounds.shape[1]):
            for u in range(bounds[t, d], bounds[t + 1, d]):
                if node_player[u] >= 0:
                    i = node_data[u]
                    owner[i] = t if owner[i] == -2 or owner[i] == t else -1
    return owner


def make_plan(tree: GameTree, blocks: int) -> ParallelPlan:
    """Cut ``tree`` into ``blocks`` subtree blocks of about equal size.

    Raises ``ValueError`` if ``blocks`` is not a positive integer.
    """
    if isinstance(blocks, bool) or not isinstance(blocks, int | np.integer) or blocks < 1:
        raise ValueError(f"threads must be a positive integer, got {blocks!r}")
    blocks = int(blocks)
    ls = tree.level_start
    n_levels = ls.shape[0] - 1
    split = n_levels - 1
    for d in range(n_levels):
        if ls[d + 1] - ls[d] >= MIN_SPLIT_NODES_PER_BLOCK * blocks:
            split = d
            break
    sizes = _subtree_sizes(tree.child_start, tree.num_nodes)[ls[split]:ls[split + 1]]
    cum = np.concatenate([[0], np.cumsum(sizes)])
    # block t starts at the split-level node whose prefix size is nearest t/blocks of the total
    cuts = [0]
    for t in range(1, blocks):
        k = int(np.searchsorted(cum, cum[-1] * t / blocks))
        cuts.append(min(max(k, cuts[-1]), len(sizes)))
    cuts.append(len(sizes))
    bounds = np.zeros((blocks + 1, n_levels), np.int64)
    for t, k in enumerate(cuts):
        u = int(ls[split]) + k
        for d in range(split, n_levels):
            bounds[t, d] = u
            u = int(tree.child_start[u])
    block_nodes = np.array([cum[cuts[t + 1]] - cum[cuts[t]] for t in range(blocks)], np.int64)
    owner = _owners(tree.node_player, tree.node_data, ls, split, bounds, tree.num_infosets)
    decision = np.flatnonzero(tree.node_player >= 0)
    in_shared = decision[owner[tree.node_data[decision]] == -1]
    order = np.argsort(tree.node_data[in_shared], kind="stable")   # by set, then node
    shared_nodes = in_shared[order].astype(np.int64)
    sets = tree.node_data[shared_nodes].astype(np.int64)
    shared_infoset, counts = np.unique(sets, return_counts=True)
    shared_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    player_shared_start = np.searchsorted(shared_infoset, tree.player_infoset_start)
    # Deferred histories: those a block cannot add straight into the tables.
    # When every set lies at one depth, the blocks' ranges at that depth are in
    # node order, so the set's histories in its *first* block precede all the
    # others in the one-core order: that block adds them directly, and only the
    # later blocks' histories are deferred (about half of the shared ones with
    # 2 blocks). Otherwise (sets spanning depths, whose top-level histories the
    # pass adds after the blocks) every shared history is deferred.
    if tree.infosets_level_consistent and shared_nodes.shape[0]:
        depth = np.searchsorted(ls, shared_nodes, side="right") - 1
        block = np.zeros(shared_nodes.shape[0], np.int64)
        for t in range(1, blocks):
            block += shared_nodes >= bounds[t, depth]
        first = np.repeat(block[shared_start[:-1]], counts)
        deferred = np.sort(shared_nodes[block != first])
    else:
        deferred = np.sort(shared_nodes)
    # scratch slots in node order: the blocks write them sequentially, the
    # gather reads each deferred history's slot
    fan = tree.child_start[deferred + 1] - tree.child_start[deferred]
    owned_node = np.full(tree.num_nodes, -1, np.int64)
    owned_node[deferred] = np.concatenate([[0], np.cumsum(fan)[:-1]]).astype(np.int64)
    if deferred.shape[0] == 0:
        owned_node = np.empty(0, np.int64)    # no slots: the kernels skip the lookups
    return ParallelPlan(blocks, split, bounds, block_nodes, owner, owned_node, shared_infoset,
                        shared_start, shared_nodes, player_shared_start.astype(np.int64),
                        bool(tree.infosets_level_consistent), int(decision.shape[0]))


# ================================================================== kernels
# carries: the block and the player (t, p, stale, split, bounds, fused), the tree (node_player,
# node_data, child_start, chance_prob, payoff, seq_start), the policy with its reach and values
# (policy, reach, value), the accumulators (regret, avg, avg_weight) and the per-edge terms of
# shared sets (owned_node, edge_regret, edge_avg)
@njit(cache=True)
def _block(t, p, stale, split, bounds, fused, node_player, node_data, child_start, chance_prob,
           payoff, seq_start, policy, reach, value, regret, avg, avg_weight, owned_node,
           edge_regret, edge_avg):
    """Block ``t``: reaches top down; values bottom up; ``p``'s terms in
    increasing node order (level by level in the bottom-up sweep when every
    information set lies at one depth, else in a third, top-down sweep). The
    sweeps are :mod:`solvers.cfr._kernels`' on the block's range at each depth."""
    n_levels = bounds.shape[1]
    for d in range(split, n_levels):
        reach_range(bounds[t, d], bounds[t + 1, d], stale, node_player, node_data, child_start,
                    chance_prob, seq_start, policy, reach)
    for d in range(n_levels - 1, split - 1, -1):
        value_range(bounds[t, d], bounds[t + 1, d], p, node_player, node_data, child_start,
                    chance_prob, payoff, seq_start, policy, value)
        if fused:                                   # p's terms at this depth
            terms_range(bounds[t, d], bounds[t + 1, d], p, node_player, node_data, child_start,
                        seq_start, policy, reach, value, regret, avg, avg_weight, owned_node,
                        edge_regret, edge_avg)
    if fused:
        return
    for d in range(split, n_levels):
        terms_range(bounds[t, d], bounds[t + 1, d], p, node_player, node_data, child_start,
                    seq_start, policy, reach, value, regret, avg, avg_weight, owned_node,
                    edge_regret, edge_avg)


# carries: the player and the plan (p, stale, split, bounds, fused), the tree (node_player,
# node_data, child_start, level_start, chance_prob, payoff, seq_start), the policy with its reach
# and values (policy, reach, value), the accumulators (regret, avg, avg_weight), the per-edge
# terms of shared sets (owned_node, edge_regret, edge_avg, shared_infoset, shared_start,
# shared_nodes) and the sequence range (k0, k1)
@njit(cache=True, parallel=True)
def cfr_pass(p, stale, split, bounds, fused, node_player, node_data, child_start, level_start,
             chance_prob, payoff, seq_start, policy, reach, value, regret, avg, avg_weight,
             owned_node, edge_regret, edge_avg, shared_infoset, shared_start, shared_nodes, k0, k1):
    """One CFR pass for player ``p`` on the blocks of a plan (see the module
    docstring): ``regret`` and ``avg`` receive ``p``'s terms, bit for bit as
    ``solvers.reach_and_values`` then ``solvers.accumulate``. ``k0 .. k1 - 1``:
    ``p``'s shared information sets (indices into ``shared_infoset``).
    ``stale``: -1 recomputes every reach row; ``q >= 0`` only player ``q``'s
    (the others still hold this profile's reaches: each pass changes only the
    updated player's strategy, and chance never changes)."""
    blocks = bounds.shape[0] - 1
    top = level_start[split]
    for q in range(reach.shape[0]):
        reach[q, 0] = 1.0
    reach_range(0, top, stale, node_player, node_data, child_start, chance_prob, seq_start,
                policy, reach)
    for t in prange(blocks):
        _block(t, p, stale, split, bounds, fused, node_player, node_data, child_start, chance_prob,
               payoff, seq_start, policy, reach, value, regret, avg, avg_weight, owned_node,
               edge_regret, edge_avg)
    value_range(0, top, p, node_player, node_data, child_start, chance_prob, payoff, seq_start,
                policy, value)
    terms_range(0, top, p, node_player, node_data, child_start, seq_start, policy, reach, value,
                regret, avg, avg_weight, owned_node, edge_regret, edge_avg)
    chunk = (k1 - k0 + blocks - 1) // blocks
    for t in prange(blocks):
        for k in range(k0 + t * chunk, min(k1, k0 + (t + 1) * chunk)):
            i = shared_infoset[k]
            s = seq_start[i]
            w = seq_start[i + 1] - s
            for j in range(shared_start[k], shared_start[k + 1]):
                pos = owned_node[shared_nodes[j]] if owned_node.shape[0] > 0 else -1
                if pos < 0:                           # added by its block already
                    continue
                for a in range(w):
                    regret[s + a] += edge_regret[pos + a]
                    avg[s + a] += edge_avg[pos + a]


@njit(cache=True, parallel=True)
def regret_matching_parallel(regret, seq_start, i0, i1, policy, blocks):
    """Regret matching of information sets ``i0 .. i1 - 1`` (as
    :func:`solvers.cfr._solvers.regret_matching`, bit for bit), ``blocks``
    ranges in parallel."""
    chunk = (i1 - i0 + blocks - 1) // blocks
    for t in prange(blocks):
        regret_matching_range(regret, seq_start, i0 + t * chunk, min(i1, i0 + (t + 1) * chunk),
                              policy)
