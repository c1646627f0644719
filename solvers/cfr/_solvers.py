"""The CFR family on a flat :class:`~solvers.cfr._tree.GameTree`.

Every solver keeps three arrays over the tree's sequences (``S`` = number of
(information set, action) pairs): ``regret float64[S]`` (cumulative
counterfactual regrets), ``policy float64[S]`` (the current strategy, a
distribution over the actions of each information set) and
``avg_numerator float64[S]`` (the weighted sum of reach-weighted strategies
whose normalisation is the average strategy). One iteration runs, for each
player ``p`` in turn (alternating updates), one pass over the tree:

1. top down, the reach probability of every node for every player and chance
   (``reach float64[n + 1, N]``, chance last);
2. bottom up, the value of every node to ``p`` under the current profile
   (``value float64[N]``);
3. over ``p``'s decision nodes in breadth-first order, regret and average
   updates; then ``p``'s information sets get their new strategy.

This is OpenSpiel's alternating-update CFR (``pyspiel.CFRSolver``), the same
products. The sums are also in the same order **only when every information
set's histories lie at one depth** (``GameTree.infosets_level_consistent``;
true of every Cancellation Hearts single-hand tree, Kuhn and Leduc poker):
then vanilla CFR reproduces OpenSpiel's iterates to the last bit or nearly
(the tests compare NashConv iteration by iteration, to 1e-9). When a set's
histories lie at several depths, its regrets and average are summed in
breadth-first order here and in depth-first order by OpenSpiel: the iterates
agree to rounding at first, but the rounding differences grow, and the
discounted variants (LCFR, DCFR) were seen to drift visibly apart after about
150 iterations. Variants differ only in how regrets are kept and how
iterations are weighted:

=====================  ====================================  ===================
solver                 regrets after iteration ``t``         average weight
=====================  ====================================  ===================
:class:`CFR`           ``R + r``                             1
:class:`CFRPlus`       ``max(R + r, 0)``                     ``t``
:class:`LinearCFR`     ``(R + r) * t / (t + 1)``             ``t``
:class:`DCFR`          ``(R + r) * t^a / (t^a + 1)`` if      ``t^gamma``
                       ``>= 0`` else ``* t^b / (t^b + 1)``
:class:`PCFRPlus`      ``max(R + r, 0)``; the strategy       ``t^2`` (default)
                       is RM of ``R + m``, ``m = r``
=====================  ====================================  ===================

References: Zinkevich et al. 2007 (CFR); Tammelin 2014 (CFR+); Brown and
Sandholm 2019, "Solving Imperfect-Information Games via Discounted Regret
Minimization" (Linear CFR, DCFR with alpha=1.5, beta=0, gamma=2); Farina,
Kroer and Sandholm 2021, "Faster Game Solving via Predictive Blackwell
Approachability" (Predictive CFR+). CFR+ follows ``pyspiel.CFRPlusSolver``;
Linear CFR and DCFR follow OpenSpiel's ``discounted_cfr`` (discount after
adding the iteration's regrets).

Memory while iterating: ``8 (n + 2) N`` bytes of work arrays plus ``24 S``
(``32 S`` for PCFR+) bytes of tables; see :func:`solver_nbytes`.

Several cores: every solver takes ``threads=T`` (default 1). With ``T > 1``
the tree is cut into ``T`` independent subtree blocks that one numba parallel
pass runs at once (:mod:`solvers.cfr._parallel`); the results are bit for bit
the one-core ones, whatever ``T`` and the cores present. Work arrays then take
``17 N + 4 I`` bytes more (plus 8 per history of an information set that spans
blocks).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ._kernels import reach_range, regret_matching_range, terms_range, value_range
from ._parallel import cfr_pass, make_plan, regret_matching_parallel
from ._tree import GameTree

__all__ = ["CFR", "CFRPlus", "LinearCFR", "DCFR", "PCFRPlus", "SOLVERS", "UnknownSolverError",
           "make_solver", "average_policy", "regret_matching", "solver_nbytes"]


# ================================================================== kernels
@njit(cache=True)
def fill_reach(node_player, node_data, child_start, chance_prob, seq_start, policy, reach):
    """Fill ``reach[q, u]`` top down: each player's own reach probability of node
    ``u`` under ``policy`` (rows ``0 .. n-1``) and chance's (the last row)."""
    for q in range(reach.shape[0]):
        reach[q, 0] = 1.0
    reach_range(0, node_player.shape[0], -1, node_player, node_data, child_start, chance_prob,
                seq_start, policy, reach)


# carries: the player (p), the tree (node_player, node_data, child_start, chance_prob, payoff,
# seq_start), the policy, the reach and values written (reach, value)
@njit(cache=True)
def reach_and_values(p, node_player, node_data, child_start, chance_prob, payoff,
                      seq_start, policy, reach, value):
    """Fill ``reach[q, u]`` (players then chance) top down and ``value[u]``,
    the value to player ``p``, bottom up."""
    fill_reach(node_player, node_data, child_start, chance_prob, seq_start, policy, reach)
    value_range(0, node_player.shape[0], p, node_player, node_data, child_start, chance_prob,
                payoff, seq_start, policy, value)


# carries: the player (p), the tree (node_player, node_data, child_start, seq_start), the policy
# with its reach and values (policy, reach, value), the accumulators (regret, avg, avg_weight)
@njit(cache=True)
def accumulate(p, node_player, node_data, child_start, seq_start, policy, reach, value,
                regret, avg, avg_weight):
    """Over ``p``'s decision nodes in order: ``regret += cf_reach * (v(child) - v)``
    and ``avg += reach_p * policy * avg_weight``."""
    no_slots = np.empty(0, np.int64)        # every term straight into the tables
    no_edges = np.empty(0)
    terms_range(0, node_player.shape[0], p, node_player, node_data, child_start, seq_start,
                policy, reach, value, regret, avg, avg_weight, no_slots, no_edges, no_edges)


@njit(cache=True)
def _regret_matching(regret, seq_start, i0, i1, policy):
    """``policy`` of information sets ``i0 .. i1 - 1`` proportional to the
    positive part of ``regret`` (uniform when none is positive)."""
    regret_matching_range(regret, seq_start, i0, i1, policy)


@njit(cache=True)
def _normalise(weights, seq_start, out):
    for i in range(seq_start.shape[0] - 1):
        a = seq_start[i]
        b = seq_start[i + 1]
        total = 0.0
        for j in range(a, b):
            total += weights[j]
        for j in range(a, b):
            out[j] = weights[j] / total if total != 0.0 else 1.0 / (b - a)


def regret_matching(tree: GameTree, regret: np.ndarray) -> np.ndarray:
    """The regret-matching strategy of cumulative regrets ``regret float64[S]``."""
    out = np.empty(tree.num_sequences)
    _regret_matching(np.asarray(regret, np.float64), tree.infoset_seq_start, 0,
                     tree.num_infosets, out)
    return out


def average_policy(tree: GameTree, avg_numerator: np.ndarray) -> np.ndarray:
    """Normalise ``avg_numerator float64[S]`` per information set (uniform where
    it sums to zero). Returns ``float64[S]``."""
    out = np.empty(tree.num_sequences)
    _normalise(np.asarray(avg_numerator, np.float64), tree.infoset_seq_start, out)
    return out


def solver_nbytes(tree: GameTree, tables: int = 3) -> int:
    """Bytes of work arrays and tables a solver holds on ``tree``."""
    return 8 * (tree.num_players + 2) * tree.num_nodes + 8 * tables * tree.num_sequences


# ================================================================== solvers
class CFR:
    """Vanilla CFR with alternating updates (``pyspiel.CFRSolver``).

    Args:
      tree: the game's :class:`~solvers.cfr._tree.GameTree`.
      threads: subtree blocks run in parallel (1: the one-core kernels;
        ``T > 1``: :mod:`solvers.cfr._parallel`, on up to ``T`` of numba's
        threads, ``numba.set_num_threads`` lowers it; bit for bit the same
        numbers).

    Attributes: ``iteration`` (completed iterations), ``regret``,
    ``policy`` (current strategy) and ``avg_numerator``, all ``float64[S]``;
    ``seconds`` (time spent in :meth:`iterate`).
    """

    name = "CFR"
    #: Extra per-sequence tables beyond regret, policy and average.
    _extra_tables = 0

    def __init__(self, tree: GameTree, *, threads: int = 1):
        self.tree = tree
        S, N, n = tree.num_sequences, tree.num_nodes, tree.num_players
        self.iteration = 0
        self.seconds = 0.0
        self.regret = np.zeros(S)
        self.policy = np.empty(S)
        self.avg_numerator = np.zeros(S)
        _regret_matching(self.regret, tree.infoset_seq_start, 0, tree.num_infosets,
                         self.policy)
        self._plan = make_plan(tree, threads)     # validates threads
        self.threads = self._plan.blocks
        if self.threads == 1:
            self._plan = None
        else:
            self._edge_terms = np.empty((2, N))     # regret and average terms per edge
            # Parallel passes recompute only the reach row of the player updated
            # since the previous pass, across iterate calls too; a policy changed
            # in between (compared with this copy) recomputes every row.
            self._stale_row = -1
            self._policy_seen = np.full(S, np.nan)
        self._reach = np.empty((n + 1, N))
        self._value = np.empty(N)

    def __repr__(self) -> str:
        """One line: the variant, iterations, time and the tree's size (not the tables)."""
        tr = self.tree
        return (f"{type(self).__name__}(iterations={self.iteration:,}, "
                f"seconds={self.seconds:.2f}, threads={self.threads}, "
                f"infosets={tr.num_infosets:,}, sequences={tr.num_sequences:,})")

    # ---- hooks of the variants
    def _avg_weight(self, t: int) -> float:
        return 1.0

    def _update_player(self, p: int, t: int) -> None:
        """Turn ``p``'s accumulated regrets into its next strategy."""
        self._match(self.regret, p)

    def _match(self, regrets: np.ndarray, p: int) -> None:
        """Regret matching of ``p``'s information sets: ``policy`` from ``regrets``."""
        t_ = self.tree
        i0, i1 = t_.player_infoset_start[p], t_.player_infoset_start[p + 1]
        if self._plan is None:
            _regret_matching(regrets, t_.infoset_seq_start, i0, i1, self.policy)
        else:
            regret_matching_parallel(regrets, t_.infoset_seq_start, i0, i1, self.policy,
                                     self.threads)

    # ---- main loop
    def iterate(self, iterations: int = 1) -> CFR:
        """Run ``iterations`` more iterations; returns ``self``."""
        t0 = time.perf_counter()
        tr = self.tree
        if self._plan is not None and not np.array_equal(self.policy, self._policy_seen):
            self._stale_row = -1      # the policy changed outside iterate: every reach row
        for _ in range(iterations):
            self.iteration += 1
            t = self.iteration
            w = self._avg_weight(t)
            for p in range(tr.num_players):
                if self._plan is None:
                    reach_and_values(p, tr.node_player, tr.node_data, tr.child_start,
                                      tr.chance_prob, tr.payoff_table, tr.infoset_seq_start,
                                      self.policy, self._reach, self._value)
                    accumulate(p, tr.node_player, tr.node_data, tr.child_start,
                                tr.infoset_seq_start, self.policy, self._reach, self._value,
                                self._regret_target(p), self.avg_numerator, w)
                else:
                    self._parallel_pass(p, w)
                self._update_player(p, t)
        if self._plan is not None:    # the reach rows of the next call's first pass
            self._policy_seen[:] = self.policy
        self.seconds += time.perf_counter() - t0
        return self

    def _parallel_pass(self, p: int, w: float) -> None:
        """Player ``p``'s reach, value and update pass on the subtree blocks."""
        tr, plan = self.tree, self._plan
        cfr_pass(p, self._stale_row, plan.split, plan.bounds, plan.level_consistent, tr.node_player,
                 tr.node_data, tr.child_start, tr.level_start, tr.chance_prob, tr.payoff_table,
                 tr.infoset_seq_start, self.policy, self._reach, self._value,
                 self._regret_target(p), self.avg_numerator, w, plan.owned_node,
                 self._edge_terms[0], self._edge_terms[1], plan.shared_infoset,
                 plan.shared_start, plan.shared_nodes, plan.player_shared_start[p],
                 plan.player_shared_start[p + 1])
        self._stale_row = p           # the caller updates p's strategy next

    def _regret_target(self, p: int) -> np.ndarray:
        """The array this iteration's regrets of ``p`` are added to."""
        return self.regret

    def average_policy(self) -> np.ndarray:
        """The average strategy ``float64[S]`` (uniform where never reached)."""
        return average_policy(self.tree, self.avg_numerator)

    def current_policy(self) -> np.ndarray:
        return self.policy.copy()

    def nbytes(self) -> int:
        """Bytes of this solver's work arrays and tables."""
        if self._plan is None:
            return solver_nbytes(self.tree, 3 + self._extra_tables)
        return (solver_nbytes(self.tree, 3 + self._extra_tables) + self._edge_terms.nbytes
                + self._policy_seen.nbytes
                + self._plan.nbytes)


class CFRPlus(CFR):
    """CFR+ (``pyspiel.CFRPlusSolver``): regret matching+ (cumulative regrets
    floored at zero after each update), alternating updates, and linear
    averaging (iteration ``t`` weighted by ``t``)."""

    name = "CFR+"

    def _avg_weight(self, t):
        return float(t)

    def _update_player(self, p, t):
        r = self.regret[self.tree.player_sequences(p)]
        np.maximum(r, 0.0, out=r)
        super()._update_player(p, t)


class DCFR(CFR):
    """Discounted CFR (Brown and Sandholm 2019).

    After adding iteration ``t``'s regrets, positive cumulative regrets are
    multiplied by ``t^alpha / (t^alpha + 1)`` and negative ones by
    ``t^beta / (t^beta + 1)``; iteration ``t`` enters the average with weight
    ``t^gamma``.

    Args:
      tree: the game tree.
      alpha: discount exponent of positive regrets (default 1.5).
      beta: discount exponent of negative regrets (default 0: halved each time).
      gamma: exponent of the average's weights (default 2).
      threads: subtree blocks run in parallel (see :class:`CFR`).
    """

    name = "DCFR"

    def __init__(self, tree: GameTree, *, alpha: float = 1.5, beta: float = 0.0,
                 gamma: float = 2.0, threads: int = 1):
        super().__init__(tree, threads=threads)
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)

    def _avg_weight(self, t):
        return float(t) ** self.gamma

    def _update_player(self, p, t):
        r = self.regret[self.tree.player_sequences(p)]
        ta, tb = float(t) ** self.alpha, float(t) ** self.beta
        r *= np.where(r >= 0, ta / (ta + 1), tb / (tb + 1))
        super()._update_player(p, t)


class LinearCFR(DCFR):
    """Linear CFR (Brown and Sandholm 2019): iteration ``t``'s regrets and
    strategy are weighted by ``t`` (DCFR with alpha = beta = gamma = 1)."""

    name = "LCFR"

    def __init__(self, tree: GameTree, *, threads: int = 1):
        super().__init__(tree, alpha=1.0, beta=1.0, gamma=1.0, threads=threads)


class PCFRPlus(CFR):
    """Predictive CFR+ (Farina, Kroer and Sandholm 2021), alternating updates.

    Cumulative regrets follow regret matching+ (``R = max(R + r, 0)``); the
    next strategy is regret matching on ``max(R + m, 0)`` with the prediction
    ``m`` = the last instantaneous regret ``r``.

    Args:
      tree: the game tree.
      average_exponent: iteration ``t`` enters the average with weight
        ``t^average_exponent`` (default 2, the quadratic averaging used with
        PCFR+ in that paper's experiments).
      threads: subtree blocks run in parallel (see :class:`CFR`).
    """

    name = "PCFR+"
    _extra_tables = 1

    def __init__(self, tree: GameTree, *, average_exponent: float = 2.0, threads: int = 1):
        super().__init__(tree, threads=threads)
        self.average_exponent = float(average_exponent)
        self._instant = np.zeros(tree.num_sequences)   # r, then R + r (the prediction)

    def _regret_target(self, p):
        self._instant[self.tree.player_sequences(p)] = 0.0
        return self._instant

    def _avg_weight(self, t):
        return float(t) ** self.average_exponent

    def _update_player(self, p, t):
        tr = self.tree
        sl = tr.player_sequences(p)
        r, m = self.regret[sl], self._instant[sl]
        r += m
        np.maximum(r, 0.0, out=r)                 # R = max(R + r, 0)
        m += r                                    # R + m with m = r
        self._match(self._instant, p)


#: Solver classes by name (as used in experiments and result files).
SOLVERS = {"CFR": CFR, "CFR+": CFRPlus, "LCFR": LinearCFR, "DCFR": DCFR,
           "PCFR+": PCFRPlus}


class UnknownSolverError(ValueError, KeyError):
    """No solver by that name in :data:`SOLVERS` (a ``ValueError`` and a ``KeyError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def make_solver(name: str, tree: GameTree, **hyperparameters):
    """A solver from :data:`SOLVERS` by name; :class:`UnknownSolverError` (with the
    closest name and the list) for an unknown one."""
    if name not in SOLVERS:
        import difflib
        close = difflib.get_close_matches(str(name), list(SOLVERS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownSolverError(f"unknown solver {name!r}{hint}; the solvers: "
                                 f"{', '.join(SOLVERS)}")
    return SOLVERS[name](tree, **hyperparameters)
