"""The coarse-correlated-equilibrium gap of a solver's empirical play.

With three or more players, or general-sum payoffs, the average strategy of
CFR need not approach a Nash equilibrium, and its NashConv need not go to
zero. What a no-external-regret learner such as CFR does guarantee is about
the *empirical distribution of play*

    mu_T = sum_t w_t sigma^t / sum_t w_t,

the mixture over iterations ``t`` of the *product* profiles ``sigma^t`` (each
player's current strategy at iteration ``t``, the players independent within
an iteration, correlated through ``t``). Drawing ``t`` from ``mu_T`` and
playing ``sigma^t`` is a correlated strategy profile; it is a coarse
correlated equilibrium (CCE) when no player gains by committing in advance to
a fixed strategy instead (Moulin and Vial 1978; for CFR: Celli et al. 2019,
"Learning to correlate in multi-player general-sum sequential games"; Morrill
et al. 2021, "Hindsight and sequential rationality of correlated play"). Its
gap, per player,

    gap_i = max_{pi_i} E_{t~mu_T} u_i(pi_i, sigma^t_-i) - E_{t~mu_T} u_i(sigma^t),

is exactly player ``i``'s average external regret (weighted by ``w_t``); the
CCE gap is ``max_i gap_i``, and ``sum_i gap_i`` is the quantity comparable to
NashConv. In a two-player zero-sum game the sum of the gaps of the uniform
empirical play equals the NashConv of the uniform average strategy.

:class:`EmpiricalPlay` accumulates ``mu_T`` exactly on a flat tree: per
terminal history ``z`` and player ``i``, the weighted sum over iterations of
``chance(z) * prod_{j != i} reach_j^t(z)``, and the weighted sum of each
player's value. The first term of ``gap_i`` is then a best response to those
opponent weights: one bottom-up pass that keeps counterfactual values (not
normalised), choosing at each of ``i``'s information sets the action with the
largest summed counterfactual value of its histories. This is linear in the
tree: ``8 n Z`` bytes of weights (``Z`` terminals) and one reach pass
(``8 (n + 1) N`` bytes of work) per added profile.

:func:`run_cce` drives any solver of :mod:`solvers.cfr._solvers` and records,
at checkpoints, NashConv of the average strategy, NashConv of the current
iterate and the CCE gap of the empirical play. Two update schemes:

* ``"simultaneous"`` (default): every player's regrets of iteration ``t`` are
  computed against the same product profile ``sigma^t`` and then all players
  update. Each player's external regret against the recorded sequence is then
  bounded by the sum over its information sets of the positive part of the
  largest cumulative counterfactual regret (Zinkevich et al. 2007; for CFR+
  the floored regrets are upper bounds, so the bound holds too): the gap has a
  certificate, :meth:`EmpiricalPlay.regret_bound`. This uses the solvers'
  own per-player hooks and kernels; :mod:`solvers.cfr._solvers` is unchanged.
* ``"alternating"``: the solver's own :meth:`iterate` (the updates
  OpenSpiel's CFR uses); the recorded ``sigma^t`` is the profile at the start
  of iteration ``t``. Player ``p``'s regrets then refer to a profile in which
  players before ``p`` have already moved to ``sigma^{t+1}``, so the bound
  above does not apply to the recorded play (it still converges in practice).

CFR-Jr (Celli et al. 2019), ``play="sampled"``: the regrets are CFR's, but
the recorded play of iteration ``t`` is one joint pure plan drawn from
``sigma^t`` (each player's plan independently, an action per information
set: :func:`sample_pure_profile`). Its empirical distribution is a list of
``T`` joint pure plans -- a compact, directly playable correlation device --
whose gap is the iterates' plus a sampling error of order ``1/sqrt(T)``.

Weighting: ``"uniform"`` (``w_t = 1``, the empirical distribution of the
no-regret guarantee; the default) or ``"solver"`` (``w_t`` = the solver's own
averaging weight: ``t`` for CFR+ and LCFR, ``t^2`` for DCFR and PCFR+).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from numba import njit

from ._best_response import BestResponse, best_response_choice, nash_conv
from ._solvers import SOLVERS, accumulate, reach_and_values, fill_reach, make_solver
from ._tree import TERMINAL, GameTree

__all__ = ["EmpiricalPlay", "CCEGapResult", "simultaneous_iterate", "run_cce",
           "sample_pure_profile", "UPDATES", "WEIGHTINGS", "PLAYS"]

#: Update schemes of :func:`run_cce`.
UPDATES = ("simultaneous", "alternating")
#: Weightings of the empirical distribution in :func:`run_cce`.
WEIGHTINGS = ("uniform", "solver")
#: What :func:`run_cce` records each iteration: the iterate itself, or a joint
#: pure plan drawn from it (CFR-Jr, Celli et al. 2019).
PLAYS = ("iterate", "sampled")


# ================================================================== kernels
# carries: the tree (node_player, node_data, child_start, chance_prob, payoff, seq_start), the
# profile and its weight (policy, weight), the terminals, the work array (reach) and the
# accumulators (opp_weight, value_sum)
@njit(cache=True)
def _add_play(node_player, node_data, child_start, chance_prob, payoff, seq_start, policy,
              weight, terminals, reach, opp_weight, value_sum):
    """Add ``weight`` times the product profile ``policy`` to the accumulators:
    ``opp_weight[i, k] += weight * chance * prod_{j != i} reach_j`` at terminal
    ``terminals[k]``, ``value_sum[i] += weight * u_i(policy)``."""
    n = reach.shape[0] - 1             # players, then chance
    fill_reach(node_player, node_data, child_start, chance_prob, seq_start, policy, reach)
    for t in range(terminals.shape[0]):
        z = terminals[t]
        row = node_data[z]
        for i in range(n):
            w = reach[n, z]
            for j in range(n):
                if j != i:
                    w *= reach[j, z]
            opp_weight[i, t] += weight * w
            value_sum[i] += weight * w * reach[i, z] * payoff[row, i]


@njit(cache=True)
def _sample_pure(policy, seq_start, draws, out):
    """``out``: a pure profile drawing each information set's action from
    ``policy`` with the uniform number ``draws[I]`` (inverse CDF)."""
    for i in range(seq_start.shape[0] - 1):
        a = seq_start[i]
        b = seq_start[i + 1]
        pick = b - 1
        acc = 0.0
        for j in range(a, b):
            out[j] = 0.0
        for j in range(a, b):
            acc += policy[j]
            if draws[i] < acc:
                pick = j
                break
        while policy[pick] <= 0.0 and pick > a:   # rounding at the top: a played action
            pick -= 1
        out[pick] = 1.0


def sample_pure_profile(tree: GameTree, profile: np.ndarray,
                        rng: np.random.Generator) -> np.ndarray:
    """A pure profile ``float64[S]`` (one action per information set) drawn
    from the behavioural ``profile`` independently at every information set --
    by Kuhn's theorem, a draw of a pure plan from the mixed strategy each
    player's ``profile`` is equivalent to (what CFR-Jr samples each iteration)."""
    profile = np.ascontiguousarray(profile, np.float64)
    if profile.shape != (tree.num_sequences,):
        raise ValueError(f"profile: a profile on this tree is float64[{tree.num_sequences}], "
                         f"got shape {profile.shape}")
    out = np.empty(tree.num_sequences)
    _sample_pure(profile, tree.infoset_seq_start, rng.random(tree.num_infosets), out)
    return out


# ============================================================== accumulator
@dataclasses.dataclass(frozen=True)
class CCEGapResult:
    """The CCE gap of an empirical distribution of play (all arrays ``float64[n]``).

    ``gaps[i]`` = ``best_response_values[i] - values[i]`` (player ``i``'s
    average external regret); ``cce_gap = max(gaps)``; ``gap_sum =
    sum(gaps)`` (comparable to NashConv); ``iterations`` profiles were added
    with total weight ``total_weight``."""
    cce_gap: float
    gap_sum: float
    gaps: np.ndarray
    best_response_values: np.ndarray
    values: np.ndarray
    iterations: int
    total_weight: float

    def __repr__(self) -> str:
        gaps = ", ".join(f"{g:.4g}" for g in np.asarray(self.gaps).tolist())
        return (f"CCEGapResult(cce_gap={self.cce_gap:.6g}, gap_sum={self.gap_sum:.6g}, "
                f"gaps=[{gaps}], iterations={self.iterations:,})")


class EmpiricalPlay:
    """The empirical distribution of play ``mu = sum_t w_t sigma^t / sum_t w_t``
    over product profiles ``sigma^t`` on ``tree``, accumulated exactly.

    Feed it each iterate with :meth:`add`; :meth:`gaps` returns the CCE gap.
    Memory: ``8 n Z`` bytes of weights plus ``8 (n + 1) N`` of work
    (``Z`` terminals, ``N`` histories, ``n`` players).
    """

    def __init__(self, tree: GameTree):
        self.tree = tree
        n = tree.num_players
        self.terminals = np.flatnonzero(tree.node_player == TERMINAL).astype(np.int64)
        self._opp_weight = np.zeros((n, self.terminals.shape[0]))
        self._value_sum = np.zeros(n)
        self._reach = np.empty((n + 1, tree.num_nodes))
        self.iterations = 0
        self.total_weight = 0.0
        self.seconds = 0.0

    def nbytes(self) -> int:
        """Bytes held by the accumulators and the work array."""
        return int(self._opp_weight.nbytes + self._value_sum.nbytes + self._reach.nbytes
                   + self.terminals.nbytes)

    def add(self, profile: np.ndarray, weight: float = 1.0) -> EmpiricalPlay:
        """Add the product profile ``profile float64[S]`` with weight ``weight``
        (> 0, finite). Returns ``self``."""
        t0 = time.perf_counter()
        tr = self.tree
        profile = np.ascontiguousarray(profile, np.float64)
        if profile.shape != (tr.num_sequences,):
            raise ValueError(f"profile: a profile on this tree is float64[{tr.num_sequences}], "
                             f"got shape {profile.shape}")
        weight = float(weight)
        if not (np.isfinite(weight) and weight > 0):
            raise ValueError(f"weight={weight!r}: must be finite and > 0")
        _add_play(tr.node_player, tr.node_data, tr.child_start, tr.chance_prob,
                  tr.payoff_table, tr.infoset_seq_start, profile, weight, self.terminals,
                  self._reach, self._opp_weight, self._value_sum)
        self.iterations += 1
        self.total_weight += weight
        self.seconds += time.perf_counter() - t0
        return self

    def _need_play(self) -> None:
        if self.iterations == 0:
            raise ValueError("no profile added yet: call add() with at least one iterate")

    def values(self) -> np.ndarray:
        """``E_{t~mu} u_i(sigma^t)`` for every player, ``float64[n]``."""
        self._need_play()
        return self._value_sum / self.total_weight

    def best_response(self, player: int) -> BestResponse:
        """A pure best response of ``player`` to the others' play under ``mu``
        (they play ``sigma^t_-i`` with ``t ~ mu``, unknown to ``player``);
        its ``value`` is ``max_pi E_{t~mu} u_i(pi, sigma^t_-i)``."""
        self._need_play()
        tr = self.tree
        if not (isinstance(player, (int, np.integer)) and 0 <= player < tr.num_players):
            raise ValueError(f"player={player!r}: expected an int in 0..{tr.num_players - 1}")
        player = int(player)
        cv = np.zeros(tr.num_nodes)
        cv[self.terminals] = (self._opp_weight[player]
                              * tr.payoff_table[tr.node_data[self.terminals], player])
        choice = best_response_choice(tr, player, cv)
        return BestResponse(player=player, value=float(cv[0] / self.total_weight),
                            choice=choice)

    def gaps(self) -> CCEGapResult:
        """The CCE gap of the accumulated play, per player and overall."""
        on = self.values()
        br = np.array([self.best_response(p).value for p in range(self.tree.num_players)])
        g = br - on
        return CCEGapResult(cce_gap=float(g.max()), gap_sum=float(g.sum()), gaps=g,
                            best_response_values=br, values=on, iterations=self.iterations,
                            total_weight=self.total_weight)

    @staticmethod
    def regret_bound(tree: GameTree, regret: np.ndarray, total_weight: float) -> np.ndarray:
        """``float64[n]``: per player, ``sum_I max(0, max_a regret[I, a]) /
        total_weight`` -- the counterfactual-regret bound on the average
        external regret (Zinkevich et al. 2007) when ``regret`` holds the
        cumulative counterfactual regrets (or CFR+'s floored ones, which bound
        them) of updates against the recorded profiles, weighted as recorded."""
        regret = np.asarray(regret, np.float64)
        if regret.shape != (tree.num_sequences,):
            raise ValueError(f"regret: expected float64[{tree.num_sequences}], "
                             f"got shape {regret.shape}")
        pos = np.maximum(np.maximum.reduceat(regret, tree.infoset_seq_start[:-1]), 0.0)
        out = np.empty(tree.num_players)
        for p in range(tree.num_players):
            a, b = tree.player_infoset_start[p], tree.player_infoset_start[p + 1]
            out[p] = pos[a:b].sum()
        return out / float(total_weight)


# =================================================================== driver
def simultaneous_iterate(solver, iterations: int = 1, play: EmpiricalPlay | None = None,
                         weighting: str = "uniform", rng: np.random.Generator | None = None):
    """Run ``iterations`` iterations of ``solver`` (any class of
    :data:`~solvers.cfr._solvers.SOLVERS`) with simultaneous updates: every
    player's regrets of iteration ``t`` against the same profile ``sigma^t``,
    then every player's update with the solver's own rule. With ``play``, each
    ``sigma^t`` is added to it (weight 1, or the solver's averaging weight
    with ``weighting="solver"``); with ``rng`` too, a joint pure plan drawn
    from ``sigma^t`` (:func:`sample_pure_profile`, CFR-Jr) is added instead.
    Returns ``solver``."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r}: expected one of {WEIGHTINGS}")
    tr = solver.tree
    for _ in range(int(iterations)):
        t = solver.iteration + 1
        w = solver._avg_weight(t)
        if play is not None:
            _record(play, solver, w if weighting == "solver" else 1.0, rng)
        t1 = time.perf_counter()
        for p in range(tr.num_players):
            reach_and_values(p, tr.node_player, tr.node_data, tr.child_start, tr.chance_prob,
                              tr.payoff_table, tr.infoset_seq_start, solver.policy,
                              solver._reach, solver._value)
            accumulate(p, tr.node_player, tr.node_data, tr.child_start, tr.infoset_seq_start,
                        solver.policy, solver._reach, solver._value, solver._regret_target(p),
                        solver.avg_numerator, w)
        for p in range(tr.num_players):
            solver._update_player(p, t)
        solver.iteration = t
        solver.seconds += time.perf_counter() - t1
    return solver


def _record(play: EmpiricalPlay, solver, weight: float, rng) -> None:
    """Add the solver's current iterate to ``play``, or a pure plan drawn from
    it when ``rng`` is given."""
    if rng is None:
        play.add(solver.policy, weight)
    else:
        play.add(sample_pure_profile(solver.tree, solver.policy, rng), weight)


def _checkpoints(iterations: int, checkpoints) -> list[int]:
    if isinstance(checkpoints, (int, np.integer)):
        if checkpoints < 1:
            raise ValueError(f"checkpoints={checkpoints}: must be >= 1")
        pts = np.geomspace(1, iterations, int(checkpoints))
        return sorted({int(x) for x in np.round(pts)} | {iterations})
    pts = sorted({int(x) for x in checkpoints})
    if not pts or pts[0] < 1 or pts[-1] > iterations:
        raise ValueError(f"checkpoints={list(checkpoints)!r}: iteration numbers in "
                         f"1..{iterations} (at least one)")
    return pts


def run_cce(tree: GameTree, solver: str = "CFR", iterations: int = 100, checkpoints=10, *,
            updates: str = "simultaneous", weighting: str = "uniform",
            play: str = "iterate", seed: int | None = None,
            **hyperparameters) -> list[dict]:
    """Run ``solver`` (a name of :data:`~solvers.cfr._solvers.SOLVERS`) for
    ``iterations`` iterations on ``tree``, feeding every iterate to an
    :class:`EmpiricalPlay`, and return one row per checkpoint.

    Args:
      checkpoints: a count (about that many log-spaced iteration numbers, the
        last included) or the iteration numbers themselves.
      updates: ``"simultaneous"`` or ``"alternating"`` (see the module docstring).
      weighting: ``"uniform"`` or ``"solver"`` (the solver's averaging weights).
      play: ``"iterate"`` (the empirical play is the mixture of the iterates) or
        ``"sampled"`` (CFR-Jr: of joint pure plans drawn from them, one per
        iteration, with ``numpy.random.default_rng(seed)``; ``seed`` required).
      hyperparameters: passed to the solver's constructor.

    Each row: ``solver, updates, weighting, play, players, histories, iteration,
    nash_conv_avg, nash_conv_current, cce_gap, cce_gap_sum, gap_<i>,
    improvement_avg_<i>`` (NashConv terms of the average), ``regret_bound``
    (the max over players of :meth:`EmpiricalPlay.regret_bound`; a certificate
    only for CFR, CFR+ and PCFR+ with simultaneous updates and uniform
    weighting, else NaN), ``solver_seconds`` and ``cce_seconds`` (time spent
    accumulating the empirical play; evaluation at checkpoints excluded).
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver={solver!r}: expected one of {sorted(SOLVERS)}")
    if updates not in UPDATES:
        raise ValueError(f"updates={updates!r}: expected one of {UPDATES}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r}: expected one of {WEIGHTINGS}")
    if play not in PLAYS:
        raise ValueError(f"play={play!r}: expected one of {PLAYS}")
    if play == "sampled" and seed is None:
        raise ValueError("play='sampled' draws pure plans: pass an int seed")
    if int(iterations) < 1:
        raise ValueError(f"iterations={iterations}: must be >= 1")
    iterations = int(iterations)
    rng = np.random.default_rng(seed) if play == "sampled" else None
    pts = _checkpoints(iterations, checkpoints)
    s = make_solver(solver, tree, **hyperparameters)
    emp = EmpiricalPlay(tree)
    # The regret bound certifies the recorded play only when the stored regrets are
    # CFR's, or the floored ones of CFR+ / PCFR+ (Q >= R per action, any strategies),
    # against the recorded profiles, weighted uniformly; DCFR and LCFR discount them.
    certified = (updates == "simultaneous" and weighting == "uniform" and play == "iterate"
                 and solver in ("CFR", "CFR+", "PCFR+"))
    rows = []
    for it in pts:
        todo = it - s.iteration
        if updates == "simultaneous":
            simultaneous_iterate(s, todo, emp, weighting, rng)
        else:
            for _ in range(todo):
                w = s._avg_weight(s.iteration + 1) if weighting == "solver" else 1.0
                _record(emp, s, w, rng)
                s.iterate(1)
        res = emp.gaps()
        avg = nash_conv(tree, s.average_policy(), return_details=True)
        cur = nash_conv(tree, s.current_policy())
        bound = (float(EmpiricalPlay.regret_bound(tree, s.regret, emp.total_weight).max())
                 if certified else float("nan"))
        row = {"solver": solver, "updates": updates, "weighting": weighting, "play": play,
               "players": tree.num_players, "histories": tree.num_nodes, "iteration": it,
               "nash_conv_avg": avg.nash_conv, "nash_conv_current": float(cur),
               "cce_gap": res.cce_gap, "cce_gap_sum": res.gap_sum, "regret_bound": bound,
               "solver_seconds": s.seconds, "cce_seconds": emp.seconds}
        row.update({f"gap_{p}": float(g) for p, g in enumerate(res.gaps)})
        row.update({f"improvement_avg_{p}": float(g)
                    for p, g in enumerate(avg.player_improvements)})
        rows.append(row)
    return rows
