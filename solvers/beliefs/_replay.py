"""Inference-weighted determinization: worlds weighted by what the others did.

The determinizer of :mod:`solvers._ismcts` (the distribution of
``state.resample_from_infostate``) draws the hidden cards from the posterior
of the shuffle given the *rules*: every assignment consistent with what the
observer saw, regardless of how plausible the other players' decisions were
with those cards. This module adds the *behaviour*: a world is weighted by
the likelihood of every decision of every other player that the observer saw,
under an **opponent model** ``pi(action | engine state)``, and the search
uses a world drawn by sampling-importance-resampling (SIR):

1. draw ``M`` candidate worlds from the exact constrained sampler
   (:func:`spiel_game._determinize.determinize`);
2. complete each into a full, consistent engine state
   (:func:`~solvers.beliefs._likelihood.complete_world`: the passes the observer
   never saw are drawn uniformly, as
   :mod:`spiel_game._resample` does);
3. weight it by ``exp(world_log_likelihood)``
   (:func:`~solvers.beliefs._likelihood.world_log_likelihood`: the current hand
   replayed from its deal);
4. pick one candidate with probability proportional to its weight (a one-pass
   weighted reservoir, the same distribution as normalising
   ``exp(loglik - max)`` over the ``M`` candidates).

The likelihood (the opponent models, which decisions count, the cost) is
:mod:`solvers.beliefs._likelihood`; the Metropolis-Hastings moves of a
pool are :mod:`solvers.beliefs._mcmc`.

Everything random comes from the caller's explicit splitmix64 stream
(``uint64[1]``, :mod:`spiel_game._rng`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._determinize import Determinizer, determinize
from spiel_game._rng import rand_uniform

from .._base.bots import AgentParameterError, check_choice, check_int, check_real
from ..net._inference import NetGame, NetWeights
from ._likelihood import (FAILED, MAX_WEIGHED_PASS, NEG_INF, belief_log_likelihood,
                         candidate_world, complete_world)
from ._mcmc import advance_pool, move_pool

__all__ = ["MODELS", "POOL_MODELS", "DEFAULT_EPSILON", "MAX_BELIEF_WORLDS", "MAX_WEIGHED_PASS",
           "Belief", "make_belief", "check_belief", "network_for", "check_network",
           "sir_world", "WeightedDeterminizer", "WorldPool", "tempered_weights",
           "weighted_pool", "pool_pick", "MAX_BELIEF_POOL"]

K = E.K
#: Opponent models: name -> compiled code (see the module docstring).
MODELS = {"uniform": 0, "random": 1, "heuristic": 2, "network": 3}
#: Beliefs that weigh a root-level pool without replaying the hand (ISMCTS
#: with a ``pool`` only): ``location``, a learned card-location model's
#: tilt of the prior (:mod:`solvers.beliefs._location`).
POOL_MODELS = ("location",)
DEFAULT_EPSILON = 0.1
#: Most candidate worlds per SIR draw.
MAX_BELIEF_WORLDS = 1_000_000
#: Most worlds in a root-level pool (:class:`WorldPool`; each a full engine state).
MAX_BELIEF_POOL = 65_536


# ================================================================ compiled kernels
class Belief(NamedTuple):
    """What the compiled SIR draw reads: the opponent model and work arrays
    (built by :func:`make_belief` for one rule set)."""

    model: int              # a MODELS code
    eps: float              # softening of the heuristic model
    worlds: int             # candidates per draw (M)
    me: int                 # the observer
    fresh: np.ndarray       # int32[state_size] a new state (the replay's template)
    cand: np.ndarray        # int32[state_size] the candidate world
    replay: np.ndarray      # int32[state_size] the replay
    bufs: np.ndarray        # int32[pc + 1, state_size] pass-order walk
    legals: np.ndarray      # int32[pc + 1, K + 2] pass-order walk
    legal: np.ndarray       # int32[K + 2]
    seats: np.ndarray       # int64[n * t]
    cards: np.ndarray       # int64[n * t]
    deal: np.ndarray        # int32[n + 1, K]
    work: np.ndarray        # int64[7, max(pc, 1)] pass-order walk
    tmp: np.ndarray         # int64[number of cards + K]
    stats: np.ndarray       # float64[5]: SIR draws, sum of effective sample sizes,
                            # candidates with weight 0, MCMC steps, accepted steps
    net: NetWeights         # the network model's weights (other models: a stand-in)
    ng: NetGame             # its arrays for this game (other models: a stand-in)
    nprobs: np.ndarray      # float64[pc + 1, actions] its policies (pass-order walk)
    nvalue: np.ndarray      # float64[seats] its values (unused)

    def __repr__(self) -> str:
        """One line (the default printed every work array)."""
        name = {v: k for k, v in MODELS.items()}[self.model]
        return (f"Belief(model {name}, epsilon {self.eps:g}, {self.worlds} worlds per draw, "
                f"observer {self.me}, {int(self.stats[0])} draws)")



@njit(cache=True)
def sir_world(p, root, s, rng, det, bel):
    """Draw one world into ``s`` by sampling-importance-resampling: ``bel.worlds``
    candidates from the determinizer ``det`` (a
    :class:`spiel_game._determinize.Determinization` of ``root``), each completed
    (:func:`~solvers.beliefs._likelihood.complete_world`) and weighted by
    ``exp(world_log_likelihood)``,
    one kept with probability proportional to its weight (one-pass weighted
    reservoir). With the ``uniform`` model, one candidate, or outside the play
    and moon phases, this is one plain determinization. Returns False when the
    sampler fails or every candidate had weight 0."""
    ph = root[E.S_PHASE]
    if bel.model == 0 or bel.worlds == 1 or (ph != E.PH_PLAY and ph != E.PH_MOON):
        s[:] = root
        return determinize(p, s, rng, det)
    cand = bel.cand
    log_w = NEG_INF                           # log of the sum of weights so far
    log_w2 = NEG_INF                          # log of the sum of squared weights
    for _ in range(bel.worlds):
        lw = candidate_world(p, root, cand, rng, det, bel)
        if lw == FAILED:
            return False
        if lw == NEG_INF:
            continue
        if log_w == NEG_INF:
            log_w = lw
            log_w2 = 2.0 * lw
            s[:] = cand
            continue
        hi = max(log_w, lw)
        new = hi + math.log(math.exp(log_w - hi) + math.exp(lw - hi))
        hi2 = max(log_w2, 2.0 * lw)
        log_w2 = hi2 + math.log(math.exp(log_w2 - hi2) + math.exp(2.0 * lw - hi2))
        if rand_uniform(rng) < math.exp(lw - new):
            s[:] = cand
        log_w = new
    if log_w == NEG_INF:
        return False
    bel.stats[0] += 1.0
    bel.stats[1] += math.exp(2.0 * log_w - log_w2)
    return True


@njit(cache=True)
def weighted_pool(p, root, rng, det, bel, pool, logw):
    """Draw ``pool.shape[0]`` candidate worlds of ``root`` (the determinizer
    ``det``, each completed by :func:`~solvers.beliefs._likelihood.complete_world`)
    into ``pool`` with their log-weights
    (:func:`~solvers.beliefs._likelihood.world_log_likelihood`) in ``logw``;
    candidates of weight 0 are dropped. Returns how many were kept (``pool[:m]``,
    ``logw[:m]``), or -1 when the sampler fails. The root-level form of SIR (:class:`WorldPool`)."""
    m = 0
    for _ in range(pool.shape[0]):
        lw = candidate_world(p, root, pool[m], rng, det, bel)
        if lw == FAILED:
            return -1
        if lw == NEG_INF:
            continue
        logw[m] = lw
        m += 1
    return m


@njit(cache=True)
def pool_pick(cum, m, rng):
    """An index in ``[0, m)`` with probability ``cum[i] - cum[i - 1]`` (``cum``
    the normalised cumulative weights, ``cum[m - 1] == 1``): binary search."""
    u = rand_uniform(rng)
    lo, hi = 0, m - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


def tempered_weights(logw: np.ndarray, min_ess: float = 0.0) -> tuple[np.ndarray, float]:
    """Normalised weights ``w_i ~ exp(beta * logw_i)`` and the exponent ``beta``.

    ``beta = 1`` (the posterior weights) when their effective sample size
    ``(sum w)^2 / sum w^2`` is at least ``min_ess`` (capped at ``len(logw)``);
    otherwise the largest ``beta`` in [0, 1) found by bisection (40 halvings)
    whose weights have that effective size (0, equal weights, when ``min_ess``
    is the whole pool): a tempered posterior, between the
    prior (``beta = 0``: equal weights) and the posterior. With few candidates
    and a sharp opponent model the posterior weights put nearly all mass on one
    candidate, which is not a sample of the posterior but the best of a few
    prior draws; tempering keeps ``min_ess`` distinct worlds in play (the
    adaptive tempering of sequential Monte Carlo)."""
    lw = np.asarray(logw, np.float64)
    if lw.ndim != 1 or lw.size == 0 or not np.all(np.isfinite(lw)):
        raise ValueError("tempered_weights: logw must be a non-empty vector of finite numbers")
    lw = lw - lw.max()

    def weights(beta):
        w = np.exp(beta * lw)
        return w / w.sum()

    def ess(w):
        return 1.0 / float(np.sum(w * w))

    target = min(float(min_ess), float(lw.size))
    w = weights(1.0)
    if ess(w) >= target:
        return w, 1.0
    if target >= lw.size:        # only equal weights have the pool's full size
        return np.full(lw.size, 1.0 / lw.size), 0.0
    lo, hi = 0.0, 1.0            # ess(weights(lo)) >= target > ess(weights(hi))
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if ess(weights(mid)) >= target:
            lo = mid
        else:
            hi = mid
    return weights(lo), lo


class WorldPool:
    """Root-level inference: ``size`` candidate worlds drawn once per decision,
    weighted once by the opponent model, then every world the search plays is
    drawn from them by weight (with replacement). Each draw has the
    distribution of SIR with ``M = size`` candidates (:func:`sir_world`), but
    the likelihoods are computed ``size`` times per decision instead of ``M``
    times per iteration, so the search keeps nearly all of its iterations; the
    price is that the iterations share ``size`` worlds (``ess``: the effective
    number of distinct worlds, ``(sum w)^2 / sum w^2``).

    ``min_ess`` > 0 tempers the weights (:func:`tempered_weights`) so that at
    least that many worlds are in play (``beta``: the exponent used, 1 when no
    tempering was needed).

    ``mcmc`` > 0 (resample-move): the pool is first resampled by those weights
    (``size`` draws), then every world takes ``mcmc`` Metropolis-Hastings
    steps towards the untempered posterior (:func:`~solvers.beliefs._mcmc.mh_step`: two other
    players swap a card), and the worlds are weighted equally. Weighting
    alone cannot help when no candidate is close to the worlds the plays
    point to (``python research/scripts/belief_quality.py gap``); the moves
    bring them closer. ``accept``: the share of steps accepted; ``ess`` is
    then the effective size of the resampling weights.

    ``cum``: the normalised cumulative weights of ``pool[:m]``."""

    def __init__(self, P, root: np.ndarray, det_record, belief: Belief, size: int,
                 rng: np.ndarray, min_ess: float = 0.0, mcmc: int = 0, *,
                 previous: np.ndarray | None = None):
        self.carried = 0
        if previous is not None:
            self._carry(P, root, det_record, belief, previous, rng, mcmc)
            return
        self.pool = np.empty((size, root.shape[0]), root.dtype)
        logw = np.empty(size)
        m = int(weighted_pool(P, root, rng, det_record, belief, self.pool, logw))
        if m <= 0:
            raise RuntimeError("world pool: the sampler failed or every candidate world had "
                               "weight 0")
        self.m = m
        self.weights, self.beta = tempered_weights(logw[:m], min_ess)
        self.cum = np.cumsum(self.weights)
        self.cum[-1] = 1.0
        self.ess = float(1.0 / np.sum(self.weights ** 2))
        self.accept = float("nan")
        self.logw = logw[:m].copy()
        if mcmc > 0:
            idx = np.array([pool_pick(self.cum, m, rng) for _ in range(size)], np.int64)
            self.pool = np.ascontiguousarray(self.pool[idx])
            self.logw = np.ascontiguousarray(self.logw[idx])
            self.m = size
            self._move(P, belief, rng, mcmc)

    def _move(self, P, belief, rng, mcmc):
        """Move every world ``mcmc`` MH steps (:func:`~solvers.beliefs._mcmc.move_pool`;
        ``accept``: the share accepted) and weigh the worlds equally."""
        m = self.m
        if mcmc > 0:
            before = belief.stats[3:5].copy()
            move_pool(np.asarray(P), self.pool, self.logw, m, belief.me, int(mcmc), rng,
                      belief)
            steps, acc = belief.stats[3:5] - before
            self.accept = float(acc / steps) if steps else float("nan")
        self.weights = np.full(m, 1.0 / m)
        self.cum = np.cumsum(self.weights)
        self.cum[-1] = 1.0

    def _carry(self, P, root, det_record, belief, previous, rng, mcmc):
        """Persistent chains: the worlds ``previous`` (this pool's worlds at an
        earlier decision of the same hand) carried forward to ``root``
        (:func:`~solvers.beliefs._mcmc.advance_pool`), then moved ``mcmc`` steps each;
        equal weights.
        ``carried``: how many were carried rather than redrawn."""
        m = previous.shape[0]
        self.pool = np.empty((m, root.shape[0]), root.dtype)
        self.logw = np.empty(m)
        carried = int(advance_pool(np.asarray(P), previous, root, belief.me, self.pool,
                                   self.logw, rng, det_record, belief))
        if carried < 0:
            raise RuntimeError("world pool: the sampler failed while carrying the chains "
                               "forward")
        self.carried = carried
        self.m = m
        self.beta = 1.0
        self.ess = float(m)
        self.accept = float("nan")
        self._move(P, belief, rng, mcmc)


# ================================================================ Python side
def check_belief(agent: str, belief, worlds, epsilon,
                 extra: tuple = ()) -> tuple[str, int, float]:
    """A belief's model name, ``worlds`` and ``epsilon`` checked:
    ``belief`` one of :data:`MODELS` (or of ``extra``, e.g. :data:`POOL_MODELS`
    for an agent that supports them), ``worlds`` an int in
    [1, :data:`MAX_BELIEF_WORLDS`], ``epsilon`` a number in (0, 1];
    else :class:`solvers._base.bots.AgentParameterError` naming the parameter."""
    belief = check_choice(agent, "belief", belief, tuple(MODELS) + tuple(extra))
    worlds = check_int(agent, "worlds", worlds, 1, MAX_BELIEF_WORLDS)
    epsilon = check_real(agent, "epsilon", epsilon, 0.0, 1.0, lo_open=True)
    return belief, worlds, epsilon


def _no_network() -> tuple[NetWeights, NetGame]:
    """A stand-in network (never evaluated) with the array types of a real one,
    so that every :class:`Belief` has one compiled type."""
    f1, f2, f3 = (np.zeros((1,), np.float32), np.zeros((1, 1), np.float32),
                  np.zeros((0, 1, 1), np.float32))
    net = NetWeights(f2, f1, f3, np.zeros((0, 1), np.float32), f3.copy(),
                     np.zeros((0, 1), np.float32), f2.copy(), f1.copy(), f2.copy(), f1.copy())
    i1 = np.zeros(1, np.int64)
    ng = NetGame(np.zeros(32, np.int64), i1, 0, f1.copy(), i1.copy(), f1.copy(), f1.copy(),
                 f1.copy(), np.zeros(K + 2, np.int32), -1, np.zeros(1, np.uint64))
    return net, ng


def network_for(agent: str, checkpoint, game, keyword: str = "checkpoint"):
    """``(NetWeights, NetGame)`` of the network checkpoint ``checkpoint`` for
    ``game``: the ``network`` opponent model's argument to :func:`make_belief`.
    A missing, damaged or mismatched checkpoint (another rule set, an uncovered
    player count) is an :class:`~solvers._base.bots.AgentParameterError` naming
    ``keyword``. Needs numpy and numba only (no torch)."""
    from ..net._agents import evaluator_for
    ev = evaluator_for(agent, checkpoint, game, keyword=keyword)
    return ev.weights, ev.game_arrays(game)


def check_network(agent: str, belief: str, checkpoint, game):
    """The opponent models' ``checkpoint``: required with ``belief='network'``
    (returns :func:`network_for`), refused with the other opponent models
    (returns None). The card-location model's checkpoint (``belief='location'``)
    is checked by :func:`solvers.beliefs._location.check_location`."""
    if belief == "network":
        if checkpoint is None:
            raise AgentParameterError(
                f"{agent}: belief='network' needs a checkpoint, "
                f"belief='network(checkpoint=PATH)' (a network checkpoint covering this game, "
                f"e.g. from `python -m experiments run distill`)")
        return network_for(agent, checkpoint, game)
    if checkpoint is not None:
        raise AgentParameterError(
            f"{agent}: checkpoint={checkpoint!r} is only used with belief='network' "
            f"or 'location' (got belief={belief!r}); allowed: leave it out, or one of those")
    return None


def make_belief(P, me: int, model: str = "heuristic", worlds: int = 8,
                epsilon: float = DEFAULT_EPSILON, network=None) -> Belief:
    """The :class:`Belief` record for rules ``P`` (``state.engine_params``) and
    observer ``me``; arguments checked as :func:`check_belief` does (raises
    :class:`~solvers._base.bots.AgentParameterError`). ``network``: the ``network``
    model's ``(NetWeights, NetGame)`` (:func:`network_for`), required with that
    model and refused with the others."""
    model, worlds, epsilon = check_belief("belief", model, worlds, epsilon)
    P = np.asarray(P)
    n, t, pc = int(P[E.P_N]), int(P[E.P_HAND]), int(P[E.P_PASS])
    if not (isinstance(me, (int, np.integer)) and 0 <= me < n):
        raise AgentParameterError(f"belief: observer {me!r} is not a seat; allowed 0..{n - 1}")
    if (model == "network") != (network is not None):
        raise AgentParameterError(
            "belief: the 'network' model needs network=(NetWeights, NetGame) "
            "(solvers.beliefs._replay.network_for) and the other models take none; got model "
            f"{model!r} with network={'given' if network is not None else None}")
    if network is None:
        net, ng = _no_network()
        actions, seats = 1, 1
    else:
        net, ng = network
        if not (isinstance(net, NetWeights) and isinstance(ng, NetGame)):
            raise AgentParameterError("belief: network must be (NetWeights, NetGame), from "
                                      "solvers.beliefs._replay.network_for")
        if int(net.w0.shape[0]) <= int(ng.scatter.max(initial=0)):
            raise AgentParameterError("belief: network: the weights and the game arrays "
                                      "come from different layouts")
        actions, seats = int(net.bp.shape[0]), int(net.bv.shape[0])
    fresh = E.new_state(P)
    return Belief(MODELS[model], float(epsilon), int(worlds), int(me), fresh,
                  np.empty_like(fresh), np.empty_like(fresh),
                  np.empty((pc + 1, fresh.shape[0]), np.int32),
                  np.empty((pc + 1, K + 2), np.int32),
                  np.empty(K + 2, np.int32), np.empty(n * t, np.int64),
                  np.empty(n * t, np.int64), np.zeros((n + 1, K), np.int32),
                  np.zeros((7, max(pc, 1)), np.int64),
                  np.empty(int(E.deck(P).sum()) + K, np.int64), np.zeros(5), net, ng,
                  np.zeros((pc + 1, actions)), np.zeros(seats))


class WeightedDeterminizer:
    """Worlds consistent with ``player``'s information state in ``state``,
    drawn by SIR under an opponent model (see the module docstring).

    ``sample_into(s, rng)`` / ``sample(rng)``: one SIR draw (``rng`` a
    ``uint64[1]`` stream); ``candidate(rng)``: one completed, unweighted
    candidate world; ``log_likelihood(world)``: its weight's log;
    ``mean_ess()``: the mean effective sample size of the draws so far
    (``M`` when all weights are equal, 1 when one candidate takes all).
    ``checkpoint``: the network checkpoint of the ``network`` model (required
    with it, refused with the others).
    """

    def __init__(self, state, player: int, *, model: str = "heuristic", worlds: int = 8,
                 epsilon: float = DEFAULT_EPSILON, method: str = "auto", checkpoint=None):
        self.det = Determinizer(state, player, method=method)
        self.P, self.root, self.player = self.det.P, self.det.root, self.det.player
        network = check_network("WeightedDeterminizer", model, checkpoint, state.get_game())
        self.belief = make_belief(self.P, self.player, model, worlds, epsilon, network)

    def sample_into(self, s: np.ndarray, rng: np.ndarray) -> np.ndarray:
        if not sir_world(self.P, self.root, s, rng, self.det.record, self.belief):
            raise RuntimeError("weighted determinization: the sampler failed or every "
                               "candidate world had weight 0")
        return s

    def sample(self, rng: np.ndarray) -> np.ndarray:
        return self.sample_into(np.empty_like(self.root), rng)

    def candidate(self, rng: np.ndarray) -> np.ndarray:
        """One plain determinization, completed by
        :func:`~solvers.beliefs._likelihood.complete_world`."""
        w = self.det.sample(rng)
        b = self.belief
        if not complete_world(self.P, w, self.player, rng, b.seats, b.cards, b.tmp):
            raise RuntimeError("weighted determinization: an inconsistent candidate world")
        return w

    def log_likelihood(self, world: np.ndarray, rng: np.ndarray | None = None) -> float:
        """:func:`~solvers.beliefs._likelihood.world_log_likelihood` of a complete world
        under this model."""
        b = self.belief
        rng = np.zeros(1, np.uint64) if rng is None else rng
        return float(belief_log_likelihood(self.P, np.asarray(world, np.int32), self.player, b,
                                           rng))

    def mean_ess(self) -> float:
        st = self.belief.stats
        return float(st[1] / st[0]) if st[0] else float("nan")
