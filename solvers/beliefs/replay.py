"""Inference-weighted determinization: worlds weighted by what the others did.

The determinizer of :mod:`solvers.ismcts` (the distribution of
``state.resample_from_infostate``) draws the hidden cards from the posterior
of the shuffle given the *rules*: every assignment consistent with what the
observer saw, regardless of how plausible the other players' decisions were
with those cards. This module adds the *behaviour*: a world is weighted by
the likelihood of every decision of every other player that the observer saw,
under an **opponent model** ``pi(action | engine state)``, and the search
uses a world drawn by sampling-importance-resampling (SIR):

1. draw ``M`` candidate worlds from the exact constrained sampler
   (:func:`spiel_game.determinize.determinize`);
2. complete each into a full, consistent engine state (:func:`complete_world`:
   the passes the observer never saw are drawn uniformly, as
   :mod:`spiel_game.resample` does);
3. weight it by ``exp(world_log_likelihood)`` (:func:`world_log_likelihood`:
   the current hand replayed from its deal);
4. pick one candidate with probability proportional to its weight (a one-pass
   weighted reservoir, the same distribution as normalising
   ``exp(loglik - max)`` over the ``M`` candidates).

**Opponent models** (:data:`MODELS`), compiled action probabilities
(:func:`action_probability`):

* ``uniform``: *no inference*: every observed decision has the same
  likelihood in every world, so all weights are equal and the chosen world has
  exactly the plain determinizer's distribution (the agents then skip SIR altogether, so their
  behaviour and speed are those of the plain determinizer, bit for bit).
* ``random``: the other players pick uniformly among their legal actions,
  ``pi = 1 / (number of legal actions)``. Not the same as ``uniform``: how many
  cards a player could have played depends on its hidden hand, so a random
  player's plays are evidence too (the exact posterior against
  :class:`solvers.bots.RandomBot`).
* ``heuristic``: the rule-based player of :mod:`solvers.heuristic`, softened:
  ``(1 - epsilon)`` on the heuristic's action plus ``epsilon`` spread
  uniformly over the legal actions (``epsilon`` in (0, 1]; > 0 so that no
  consistent world gets weight 0; ``epsilon = 1`` is the ``random`` model).
* ``network``: a learned policy (:mod:`solvers.net`; a checkpoint covering the
  game, :func:`network_for`): ``(1 - epsilon) p(a) + epsilon / k``, ``p``
  the network's policy for the player to move *seeing its own information
  state in the candidate world* (its hand there, what it has seen), the
  compiled forward pass (:func:`solvers.net.inference.net_eval`, about 50 us
  a decision at 6 players, so a weighted world costs 1-4 ms: 30-70 times the
  ``heuristic`` model's). A model of players whose play the network imitates
  (e.g. ISMCTS, whose search targets it was distilled from).

**Which decisions count** (the observer's information, nothing more): every
card another player played this hand (plays are public), and the cards passed
*to the observer* (the giver's pass decision, seen as a multiset when the
passing round completes: its probability is the sum over every distinct order
of choosing them, the giver chooses one card per action). Passes between
other players are never seen: they are drawn uniformly given the hands after
passing (the definition of :mod:`spiel_game.resample`) and their probability
under the model is not used; so with passing the target is the posterior over
the extended world (hands and unseen passes), prior x likelihood, whose
marginal on the hands weights each hand by the likelihood averaged over the
unseen passes. The observer's own decisions and chance contribute the same
factor to every world. Only the current hand is replayed (earlier hands of a
match are not weighed). During the passing phase nothing of the others'
decisions has been seen yet, so weights are equal and SIR is skipped.

**Cost.** A weighted world costs one plain determinization plus a replay of
the hand so far: one policy evaluation per observed play and, for the pass
to the observer, one per distinct proper prefix of the orders of the
received cards (41 for 4 distinct cards, 206 for 5);
``python -m experiments.bench.inference`` measures it. SIR with finite ``M``
is biased towards the prior (the bias shrinks as ``1/M`` times the spread of
the weights); ``M = 1`` is the plain determinizer.

Everything random comes from the caller's explicit splitmix64 stream
(``uint64[1]``, :mod:`spiel_game.rng`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from spiel_game import engine as E
from spiel_game.resample import draw_into
from spiel_game.hidden import played_counts, proven_absent
from spiel_game.rng import rand_below, rand_uniform
from spiel_game.simulator import step_apply, step_legal

from ..bots import AgentParameterError, check_choice, check_int, check_real
from ..heuristic import heuristic_policy
from spiel_game.determinize import Determinizer, determinize

from ..net.inference import NetGame, NetWeights, net_eval

__all__ = ["MODELS", "POOL_MODELS", "DEFAULT_EPSILON", "MAX_BELIEF_WORLDS", "MAX_WEIGHED_PASS",
           "Belief",
           "make_belief", "check_belief", "action_probability", "complete_world",
           "world_log_likelihood", "belief_log_likelihood", "network_for", "check_network",
           "sir_world", "WeightedDeterminizer",
           "WorldPool", "tempered_weights", "mh_step", "move_pool", "move_constraints",
           "advance_world", "advance_pool",
           "weighted_pool", "pool_pick", "MAX_BELIEF_POOL"]

K = E.K
#: Opponent models: name -> compiled code (see the module docstring).
MODELS = {"uniform": 0, "random": 1, "heuristic": 2, "network": 3}
#: Beliefs that weigh a root-level pool without replaying the hand (ISMCTS
#: with ``belief_pool`` only): ``location``, a learned card-location model's
#: tilt of the prior (:mod:`solvers.beliefs.location`).
POOL_MODELS = ("location",)
DEFAULT_EPSILON = 0.1
#: Most candidate worlds per SIR draw.
MAX_BELIEF_WORLDS = 1_000_000
#: Most worlds in a root-level pool (:class:`WorldPool`; each a full engine state).
MAX_BELIEF_POOL = 65_536
#: The pass to the observer is weighed when at most this many cards are passed.
MAX_WEIGHED_PASS = 6

_NEG_INF = -np.inf
_FAILED = np.inf          # the sampler failed (a log-weight is never +inf)


# ================================================================ compiled kernels
@njit(cache=True)
def action_probability(model, eps, p, s, legal, k, a, rng, net, ng, probs, value):
    """Probability that the player to move in ``s`` chooses ``a`` among
    ``legal[:k]`` under opponent model ``model`` (a :data:`MODELS` code);
    0 when ``a`` is not legal. ``uniform`` (no inference) gives 1 to every
    legal action (a constant likelihood, not a distribution). ``net``, ``ng``
    (:class:`solvers.net.inference.NetWeights` / ``NetGame``) and the work
    arrays ``probs`` float64[actions], ``value`` float64[seats] serve the
    ``network`` model (any arrays of those types otherwise)."""
    h = _model_action(model, p, s, legal, k, rng, net, ng, probs, value)
    return _child_probability(model, eps, h, legal, k, a, probs)


@njit(cache=True)
def complete_world(p, w, me, rng, seats, cards, tmp):
    """Make the determinized world ``w`` (play or moon phase: the other seats'
    current hands filled in, see :class:`spiel_game.determinize.Determinizer`) a full,
    consistent engine state in place: the passes ``me`` never saw (between
    other players) are drawn uniformly from each receiver's hand after passing
    (current hand plus the cards it played), and every other seat's dealt
    hand and passed cards follow. ``me``'s own passes and the cards passed to
    ``me`` are kept. Work arrays: ``seats``, ``cards`` int64[n * t],
    ``tmp`` int64[number of cards + K]. Returns False if the world is
    inconsistent (a negative dealt count), else True."""
    n, pc = p[E.P_N], p[E.P_PASS]
    ph = w[E.S_PHASE]
    if ph != E.PH_PLAY and ph != E.PH_MOON:
        return True
    m = E.plays(p, w, seats, cards)
    after = np.zeros((n, K), np.int64)          # hand after passing: now + played
    for q in range(n):
        h = E.hand(p, w, q)
        for c in range(K):
            after[q, c] = h[c]
    for i in range(m):
        after[seats[i], cards[i]] += 1
    off = w[E.S_PASSOFF] % n
    if pc == 0 or off == 0:
        for q in range(n):
            if q != me:
                dealt = E.dealt_hand(p, w, q)
                for c in range(K):
                    dealt[c] = after[q, c]
        return True
    giver = (me - off) % n
    passed = np.zeros((n, K), np.int64)
    buf = np.empty(pc, np.int64)
    for q in range(n):
        row = E.pass_choices(p, w, q)
        if q != me and q != giver:
            draw_into(after[(q + off) % n], pc, rng, tmp, buf, 0)
            for j in range(pc):
                row[j] = buf[j]
        for j in range(pc):
            passed[q, row[j]] += 1
    for q in range(n):
        if q == me:
            continue
        g = (q - off) % n                      # q received what g passed
        dealt = E.dealt_hand(p, w, q)
        pr = E.passed(p, w, q)
        for c in range(K):
            v = after[q, c] + passed[q, c] - passed[g, c]
            if v < 0:
                return False
            dealt[c] = v
            pr[c] = passed[q, c]
    return True


@njit(cache=True)
def _model_action(model, p, s, legal, k, rng, net, ng, probs, value):
    """What the model needs from node ``s`` once for all its children: the
    heuristic's action (``heuristic`` model); for the ``network`` model its
    policy of the player to move (seeing its own information state in ``s``),
    written into ``probs``; else -1."""
    if model == 2:
        return heuristic_policy(p, s, legal, k, rng)
    if model == 3:
        net_eval(net, ng, p, s, s[E.S_CUR], probs, value)
    return -1


@njit(cache=True)
def _child_probability(model, eps, h, legal, k, a, probs):
    """:func:`action_probability` of ``a`` from a node's legal actions and its
    :func:`_model_action` ``h`` (``probs``: the network's policy there)."""
    found = False
    for i in range(k):
        if legal[i] == a:
            found = True
            break
    if not found:
        return 0.0
    if model == 0:
        return 1.0
    if model == 1:
        return 1.0 / k
    if model == 3:
        return (1.0 - eps) * probs[a] + eps / k
    return (1.0 - eps) * (1.0 if a == h else 0.0) + eps / k


@njit(cache=True)
def _received_probability(model, eps, p, r, choices, pc, bufs, legals, work, rng, net, ng,
                          nprobs, nvalue):
    """Probability that the seat to move in ``r`` (passing, its first card)
    passes the multiset ``choices[:pc]`` in some order: the sum over every
    distinct order of the product of the model's probabilities of each card.
    A depth-first walk over distinct prefixes (one model evaluation per
    prefix): ``bufs`` int32[pc + 1, state_size], ``legals`` int32[pc + 1, K + 2],
    ``work`` int64[7, max(pc, 1)]; ``net``, ``ng``, ``nprobs`` float64[pc + 1,
    actions] and ``nvalue`` for the ``network`` model (row ``j``: the policy at
    depth ``j``)."""
    types, rem, idx, chosen, kk, hh = work[0], work[1], work[2], work[3], work[4], work[5]
    prefix = np.empty(pc + 1, np.float64)
    nt = 0
    for j in range(pc):                        # distinct cards and their counts
        c = choices[j]
        u = 0
        while u < nt and types[u] != c:
            u += 1
        if u == nt:
            types[nt] = c
            rem[nt] = 0
            nt += 1
        rem[u] += 1
    b0 = bufs[0]
    for i in range(b0.shape[0]):          # (explicit loops: 2-D row slices copy slowly)
        b0[i] = r[i]
    prefix[0] = 1.0
    kk[0] = step_legal(p, bufs[0], legals[0])
    hh[0] = _model_action(model, p, bufs[0], legals[0], kk[0], rng, net, ng, nprobs[0], nvalue)
    idx[0] = 0
    total = 0.0
    j = 0
    while j >= 0:
        u = idx[j]
        while u < nt and rem[u] == 0:
            u += 1
        if u == nt:                            # this prefix is done: back up
            j -= 1
            if j >= 0:
                rem[chosen[j]] += 1
                idx[j] = chosen[j] + 1
            continue
        c = types[u]
        pr = prefix[j] * _child_probability(model, eps, hh[j], legals[j], kk[j], c, nprobs[j])
        if pr == 0.0 or j == pc - 1:
            total += pr
            idx[j] = u + 1
            continue
        chosen[j] = u
        rem[u] -= 1
        src = bufs[j]
        dst = bufs[j + 1]
        for i in range(dst.shape[0]):
            dst[i] = src[i]
        step_apply(p, dst, c)
        prefix[j + 1] = pr
        kk[j + 1] = step_legal(p, bufs[j + 1], legals[j + 1])
        hh[j + 1] = _model_action(model, p, bufs[j + 1], legals[j + 1], kk[j + 1], rng, net, ng,
                                  nprobs[j + 1], nvalue)
        idx[j + 1] = 0
        j += 1
    return total


@njit(cache=True)
def hand_start(p, w, fresh, r, deal):
    """Write into ``r`` the start of world ``w``'s current hand: ``fresh`` (a new
    state) carrying the match's position (hand number, dealer, pass offset,
    scores, R-flags), with every seat's dealt hand (and the kitty) of ``w`` dealt
    whole. ``deal`` int32[n + 1, K] is work space."""
    n = p[E.P_N]
    r[:] = fresh
    r[E.S_HANDNO] = w[E.S_HANDNO]
    r[E.S_DEALER] = w[E.S_DEALER]
    r[E.S_PASSOFF] = w[E.S_PASSOFF]
    for f in (E.S_VOIDS, E.S_CANCELS, E.S_AARD_TRY, E.S_AARD_WIN, E.S_POT_AT_LAST,
              E.S_MOONS):
        r[f] = w[f]
    E.scores(p, r)[:] = E.scores(p, w)
    E.hand_points(p, r)[:] = E.hand_points(p, w)
    for q in range(n):
        d = E.dealt_hand(p, w, q)
        for c in range(K):
            deal[q, c] = d[c]
    if p[E.P_KITTY] > 0:
        kit = E.kitty(p, w)
        for c in range(K):
            deal[n, c] = kit[c]
    E.apply_whole_deal(p, r, deal)


@njit(cache=True)
def replay_start(p, w, me, fresh, r, deal):
    """:func:`hand_start` of world ``w`` into ``r``; returns the seat whose pass
    reaches ``me`` this hand (-1 when none does: no passing, or a hold hand)."""
    hand_start(p, w, fresh, r, deal)
    n, pc = p[E.P_N], p[E.P_PASS]
    off = w[E.S_PASSOFF] % n
    return (me - off) % n if pc > 0 and off != 0 else -1


@njit(cache=True)
def replay_pass(p, r, row, j):
    """Pass, in the replay ``r``, the ``j``-th of the cards ``row`` that the
    seat to move passes in the world. False (nothing applied) when that card
    is missing or not in the seat's hand: the world is inconsistent."""
    a = row[j]
    if a < 0 or E.hand(p, r, r[E.S_CUR])[a] <= 0:
        return False
    step_apply(p, r, a)
    return True


@njit(cache=True)
def replay_legal(p, r, q, legal):
    """The replay's legal moves into ``legal`` (their count) when it is seat
    ``q``'s play, the next recorded one; -1 when it is not (a world that
    contradicts the record)."""
    if r[E.S_PHASE] != E.PH_PLAY or r[E.S_CUR] != q:
        return -1
    return step_legal(p, r, legal)


@njit(cache=True)
def world_log_likelihood(p, w, me, model, eps, fresh, r, bufs, legals, legal, seats, cards,
                         deal, work, rng, net, ng, nprobs, nvalue):
    """Log-likelihood of the decisions of the other players that ``me`` saw,
    in the complete world ``w`` (an engine state with every hidden field
    filled in consistently, e.g. by :func:`complete_world`), under opponent
    model ``model`` (softening ``eps``); see the module docstring for which
    decisions count. Replays the current hand from its deal in ``r``
    (int32[state_size]; on return it has replayed every play, so it equals
    ``w`` in hands, tricks and points). 0 for the ``uniform`` model and
    outside the play and moon phases; -inf when ``w`` is inconsistent with
    the plays (a play that would be illegal). Work arrays: ``fresh`` (a new
    state, :func:`spiel_game.engine.new_state`), ``bufs`` int32[pc + 1,
    state_size], ``legals`` int32[pc + 1, K + 2], ``legal`` int32[K + 2],
    ``seats``/``cards`` int64[n * t], ``deal`` int32[n + 1, K], ``work``
    int64[7, max(pc, 1)]; for the ``network`` model its weights ``net`` and
    arrays ``ng`` (:mod:`solvers.net.inference`), ``nprobs`` float64[pc + 1,
    actions], ``nvalue`` float64[seats] (other models: any arrays of those
    types, :func:`make_belief` supplies them). The pass to ``me`` is weighed when at most
    :data:`MAX_WEIGHED_PASS` cards are passed (every scheme's rule passes at
    most 5); with more it is not (its distinct orders are too many)."""
    ph = w[E.S_PHASE]
    if model == 0 or (ph != E.PH_PLAY and ph != E.PH_MOON):
        return 0.0
    pc = p[E.P_PASS]
    giver = replay_start(p, w, me, fresh, r, deal)
    ll = 0.0
    while r[E.S_PHASE] == E.PH_PASS:
        cur = r[E.S_CUR]
        j = r[E.S_NPASS] % pc
        row = E.pass_choices(p, w, cur)
        if cur == giver and j == 0 and pc <= MAX_WEIGHED_PASS:
            pr = _received_probability(model, eps, p, r, row, pc, bufs, legals, work, rng, net,
                                       ng, nprobs, nvalue)
            if pr <= 0.0:
                return _NEG_INF
            ll += math.log(pr)
        if not replay_pass(p, r, row, j):
            return _NEG_INF
    m = E.plays(p, w, seats, cards)
    for i in range(m):
        q = seats[i]
        a = cards[i]
        k = replay_legal(p, r, q, legal)
        if k < 0:
            return _NEG_INF
        if q == me:                             # own play: a constant factor
            pr = action_probability(0, eps, p, r, legal, k, a, rng, net, ng, nprobs[0], nvalue)
        else:
            pr = action_probability(model, eps, p, r, legal, k, a, rng, net, ng, nprobs[0],
                                    nvalue)
        if pr <= 0.0:
            return _NEG_INF                     # an illegal play: inconsistent world
        ll += math.log(pr)
        step_apply(p, r, a)
    return ll


@njit(cache=True)
def belief_log_likelihood(p, w, me, bel, rng):
    """:func:`world_log_likelihood` of world ``w`` for observer ``me`` under the
    opponent model and with the work arrays of :class:`Belief` ``bel``."""
    return world_log_likelihood(p, w, me, bel.model, bel.eps, bel.fresh, bel.replay, bel.bufs,
                                bel.legals, bel.legal, bel.seats, bel.cards, bel.deal,
                                bel.work, rng, bel.net, bel.ng, bel.nprobs, bel.nvalue)


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
def _candidate(p, root, cand, rng, det, bel):
    """One candidate world of ``root`` into ``cand`` (a determinization by ``det``,
    completed by :func:`complete_world`) and its log-weight; ``-inf`` (counted in
    ``bel.stats[2]``) for weight 0, :data:`_FAILED` when the sampler fails."""
    cand[:] = root
    if not determinize(p, cand, rng, det):
        return _FAILED
    if not complete_world(p, cand, bel.me, rng, bel.seats, bel.cards, bel.tmp):
        bel.stats[2] += 1.0
        return _NEG_INF
    lw = belief_log_likelihood(p, cand, bel.me, bel, rng)
    if lw == _NEG_INF:
        bel.stats[2] += 1.0
    return lw


@njit(cache=True)
def sir_world(p, root, s, rng, det, bel):
    """Draw one world into ``s`` by sampling-importance-resampling: ``bel.worlds``
    candidates from the determinizer ``det`` (a
    :class:`spiel_game.determinize.Determinization` of ``root``), each completed
    (:func:`complete_world`) and weighted by ``exp(world_log_likelihood)``,
    one kept with probability proportional to its weight (one-pass weighted
    reservoir). With the ``uniform`` model, one candidate, or outside the play
    and moon phases, this is one plain determinization. Returns False when the
    sampler fails or every candidate had weight 0."""
    ph = root[E.S_PHASE]
    if bel.model == 0 or bel.worlds == 1 or (ph != E.PH_PLAY and ph != E.PH_MOON):
        s[:] = root
        return determinize(p, s, rng, det)
    cand = bel.cand
    log_w = _NEG_INF                           # log of the sum of weights so far
    log_w2 = _NEG_INF                          # log of the sum of squared weights
    for _ in range(bel.worlds):
        lw = _candidate(p, root, cand, rng, det, bel)
        if lw == _FAILED:
            return False
        if lw == _NEG_INF:
            continue
        if log_w == _NEG_INF:
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
    if log_w == _NEG_INF:
        return False
    bel.stats[0] += 1.0
    bel.stats[1] += math.exp(2.0 * log_w - log_w2)
    return True


@njit(cache=True)
def weighted_pool(p, root, rng, det, bel, pool, logw):
    """Draw ``pool.shape[0]`` candidate worlds of ``root`` (the determinizer
    ``det``, each completed by :func:`complete_world`) into ``pool`` with their
    log-weights (:func:`world_log_likelihood`) in ``logw``; candidates of weight
    0 are dropped. Returns how many were kept (``pool[:m]``, ``logw[:m]``), or -1
    when the sampler fails. The root-level form of SIR (:class:`WorldPool`)."""
    m = 0
    for _ in range(pool.shape[0]):
        lw = _candidate(p, root, pool[m], rng, det, bel)
        if lw == _FAILED:
            return -1
        if lw == _NEG_INF:
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


@njit(cache=True)
def move_constraints(p, root, me):
    """What a card swap between two other players must respect, from the
    observer's root state: ``(played, known)``, int64[n, K] each: the copies of
    each card every seat played this hand
    (:func:`spiel_game.hidden.played_counts`), and the copies the observer
    knows a seat holds (the cards ``me`` passed that the receiver has not
    played yet: ``max(0, passed - played)``, the determinizer's forced cards).
    Both are the same in every world of the information set."""
    n, pc = p[E.P_N], p[E.P_PASS]
    played = np.zeros((n, K), np.int64)
    played_counts(p, root, played)
    known = np.zeros((n, K), np.int64)
    off = root[E.S_PASSOFF] % n
    if pc > 0 and off != 0:
        rcv = (me + off) % n
        mine = E.passed(p, root, me)
        for c in range(K):
            known[rcv, c] = max(0, mine[c] - played[rcv, c])
    return played, known


@njit(cache=True)
def _movers(p, w, me):
    """The other seats that still hold cards (``live``, int64) and every seat's
    hand size (``sizes``, int64[n]): what :func:`mh_step` draws from. Swaps
    keep both, so :func:`move_pool` computes them once per pool."""
    n = p[E.P_N]
    sizes = np.zeros(n, np.int64)
    k = 0
    for q in range(n):
        sizes[q] = E.hand(p, w, q).sum()
        if q != me and sizes[q] > 0:
            k += 1
    live = np.empty(k, np.int64)
    j = 0
    for q in range(n):
        if q != me and sizes[q] > 0:
            live[j] = q
            j += 1
    return live, sizes


@njit(cache=True)
def _log_holdings(k, pl):
    """log C(k + pl, k): a holder of ``k`` unseen and ``pl`` played copies of a
    card type is drawn with weight ``1 / C(k + pl, k)`` (the determinizer's
    number-of-physical-deals factor)."""
    return math.lgamma(k + pl + 1.0) - math.lgamma(k + 1.0) - math.lgamma(pl + 1.0)


@njit(cache=True)
def _pick_card(h, size, rng):
    """A card type drawn with probability ``h[c] / size`` (a uniform physical card
    of the hand ``h``)."""
    r = rand_below(rng, size)
    for c in range(K):
        if r < h[c]:
            return c
        r -= h[c]
    return -1


@njit(cache=True)
def mh_step(p, w, ll, me, played, known, live, sizes, cand, rng, bel):
    """One Metropolis-Hastings step on the complete world ``w`` (log-likelihood
    ``ll``) targeting the posterior prior x likelihood: two other seats and a
    uniform physical card of each are drawn and swapped (a symmetric proposal
    on physical assignments), the unseen passes are drawn again from their
    prior (:func:`complete_world`), and the result is accepted with
    probability ``min(1, prior ratio x likelihood ratio)``; the prior ratio is
    the product of the determinizer's factors ``C(k + pl, k)`` of the changed
    holdings. Swaps that would touch a card the observer knows a seat holds
    (``known``), leave a play illegal or a pass impossible are rejected (their
    target is 0 or they are excluded in both directions). On acceptance ``w``
    becomes the new world. ``live`` and ``sizes``: the other seats holding cards
    and every seat's hand size (:func:`_movers`; swaps keep them). Returns the
    world's log-likelihood after the step
    (``ll`` when rejected) and counts the step in ``bel.stats[3:5]`` (steps,
    accepted)."""
    bel.stats[3] += 1.0
    k = live.shape[0]
    if k < 2:
        return ll
    i1 = rand_below(rng, k)
    i2 = rand_below(rng, k - 1)
    if i2 >= i1:
        i2 += 1
    q1 = live[int(i1)]
    q2 = live[int(i2)]
    h1 = E.hand(p, w, q1)
    h2 = E.hand(p, w, q2)
    c1 = _pick_card(h1, sizes[q1], rng)
    c2 = _pick_card(h2, sizes[q2], rng)
    if c1 == c2:
        bel.stats[4] += 1.0                    # the same type: the world is unchanged
        return ll
    if known[q1, c1] + known[q1, c2] + known[q2, c1] + known[q2, c2] > 0:
        return ll
    log_prior = (_log_holdings(h1[c1], played[q1, c1]) + _log_holdings(h1[c2], played[q1, c2])
                 + _log_holdings(h2[c1], played[q2, c1]) + _log_holdings(h2[c2], played[q2, c2])
                 - _log_holdings(h1[c1] - 1, played[q1, c1])
                 - _log_holdings(h1[c2] + 1, played[q1, c2])
                 - _log_holdings(h2[c1] + 1, played[q2, c1])
                 - _log_holdings(h2[c2] - 1, played[q2, c2]))
    cand[:] = w
    g1 = E.hand(p, cand, q1)
    g2 = E.hand(p, cand, q2)
    g1[c1] -= 1
    g1[c2] += 1
    g2[c2] -= 1
    g2[c1] += 1
    sc = p[E.L_SUITCNT]
    cand[sc + q1 * 4 + E.SUIT_OF[c1]] -= 1
    cand[sc + q1 * 4 + E.SUIT_OF[c2]] += 1
    cand[sc + q2 * 4 + E.SUIT_OF[c2]] -= 1
    cand[sc + q2 * 4 + E.SUIT_OF[c1]] += 1
    if not complete_world(p, cand, me, rng, bel.seats, bel.cards, bel.tmp):
        return ll
    new = belief_log_likelihood(p, cand, me, bel, rng)
    if new == _NEG_INF:
        return ll
    if rand_uniform(rng) < math.exp(min(0.0, log_prior + new - ll)):
        w[:] = cand
        bel.stats[4] += 1.0
        return new
    return ll


@njit(cache=True)
def move_pool(p, pool, logw, m, me, steps, rng, bel):
    """``steps`` :func:`mh_step` moves of each world ``pool[:m]`` (log-likelihoods
    ``logw[:m]``, updated in place)."""
    played, known = move_constraints(p, pool[0], me)
    live, sizes = _movers(p, pool[0], me)
    cand = bel.cand
    for i in range(m):
        ll = logw[i]
        for _ in range(steps):
            ll = mh_step(p, pool[i], ll, me, played, known, live, sizes, cand, rng, bel)
        logw[i] = ll


@njit(cache=True)
def _movable(target, known, forbid, q, to, avoid):
    """A card type ``q`` can hand to seat ``to``: held beyond what the observer
    knows ``q`` holds, not proven absent from ``to``, not ``avoid``; drawn
    uniformly over such physical cards by the caller's ``k``. Returns the
    number of such cards (the caller draws among them with :func:`_nth_movable`)."""
    cnt = 0
    for d in range(K):
        if d != avoid and not forbid[to, d]:
            v = target[q, d] - known[q, d]
            if v > 0:
                cnt += v
    return cnt


@njit(cache=True)
def _nth_movable(target, known, forbid, q, to, avoid, k):
    for d in range(K):
        if d != avoid and not forbid[to, d]:
            v = target[q, d] - known[q, d]
            if v > 0:
                if k < v:
                    return d
                k -= v
    return -1


@njit(cache=True)
def _swap_out(target, known, forbid, q, c, me, n, rng):
    """Give one copy of ``c`` away from ``q`` to another seat ``r`` (not the
    observer, ``c`` not proven absent from ``r``) in exchange for a card ``r``
    can give ``q``; the partner is drawn uniformly among those that can.
    Returns False when no seat can."""
    start = np.int64(rand_below(rng, n))
    for j in range(n):
        r = (start + j) % n
        if r == me or r == q or forbid[r, c]:
            continue
        cnt = _movable(target, known, forbid, r, q, c)
        if cnt == 0:
            continue
        d = _nth_movable(target, known, forbid, r, q, c, np.int64(rand_below(rng, cnt)))
        _swap(target, q, r, c, d)
        return True
    return False


@njit(cache=True)
def _swap(target, a, b, ca, cb):
    """Seat ``a`` gives one ``ca`` to seat ``b``, which gives one ``cb`` back."""
    target[a, ca] -= 1
    target[b, ca] += 1
    target[b, cb] -= 1
    target[a, cb] += 1


@njit(cache=True)
def advance_world(p, old, root, me, out, rng, det, bel, seats, cards, forbid, known):
    """Carry the complete world ``old`` (a world of an earlier decision of the
    same hand) forward to the observer's current ``root``, into ``out``: every
    other seat keeps its cards in ``old`` minus what it has played since. A
    play of a card ``old`` put in another seat's hand is repaired by a swap
    (the player had that copy after all: the seat that had it in ``old`` takes
    one of the player's cards instead), and a card a seat has since been
    proven not to hold (``forbid``, :func:`spiel_game.hidden.proven_absent`
    at ``root``) is swapped with a seat that may hold it; no swap moves a
    card the observer knows a seat holds (``known``, :func:`move_constraints`).
    The result is completed (:func:`complete_world`) and weighed; if a repair
    is impossible or the world still contradicts the plays, ``out`` is a
    fresh determinization of ``root`` instead (a fresh chain). Returns
    ``(log-likelihood, carried)``; the log-likelihood is :data:`_FAILED` when
    even the fresh draw failed. Work arrays ``seats``, ``cards``: int64[n * t]."""
    n = p[E.P_N]
    out[:] = root
    if not determinize(p, out, rng, det):
        return _FAILED, False
    target = np.zeros((n, K), np.int64)
    for q in range(n):
        if q != me:
            h = E.hand(p, old, q)
            for c in range(K):
                target[q, c] = h[c]
    m0 = E.plays(p, old, seats, cards)
    m1 = E.plays(p, root, seats, cards)
    ok = m1 >= m0
    for i in range(m0, m1):
        if not ok:
            break
        q = seats[i]
        c = cards[i]
        if q == me:
            continue
        if target[q, c] == 0:
            # q held that copy: the seat that had it in ``old`` gets one of q's.
            r = -1
            start = np.int64(rand_below(rng, n))
            for j in range(n):
                x = (start + j) % n
                if x != me and x != q and target[x, c] > known[x, c]:
                    r = x
                    break
            if r < 0:
                ok = False
                break
            cnt = _movable(target, known, forbid, q, r, c)
            if cnt == 0:
                ok = False
                break
            d = _nth_movable(target, known, forbid, q, r, c, np.int64(rand_below(rng, cnt)))
            _swap(target, r, q, c, d)
        target[q, c] -= 1
    for q in range(n):
        if not ok:
            break
        if q == me:
            continue
        for c in range(K):
            while ok and forbid[q, c] and target[q, c] > 0:
                ok = _swap_out(target, known, forbid, q, c, me, n, rng)
    if ok:                                       # the same unseen cards, the same sizes
        for q in range(n):
            if q == me:
                continue
            h = E.hand(p, out, q)
            tot = 0
            for c in range(K):
                tot += h[c] - target[q, c]
            if tot != 0:
                ok = False
        for c in range(K):
            if not ok:
                break
            v = 0
            for q in range(n):
                if q != me:
                    v += E.hand(p, out, q)[c] - target[q, c]
            if v != 0:
                ok = False
    if ok:
        bel.cand[:] = out
        sc = p[E.L_SUITCNT]
        for q in range(n):
            if q == me:
                continue
            h = E.hand(p, bel.cand, q)
            for u in range(4):
                bel.cand[sc + q * 4 + u] = 0
            for c in range(K):
                h[c] = target[q, c]
                bel.cand[sc + q * 4 + E.SUIT_OF[c]] += target[q, c]
        if complete_world(p, bel.cand, me, rng, bel.seats, bel.cards, bel.tmp):
            ll = belief_log_likelihood(p, bel.cand, me, bel, rng)
            if ll != _NEG_INF:
                out[:] = bel.cand
                return ll, True
    if not complete_world(p, out, me, rng, bel.seats, bel.cards, bel.tmp):
        return _NEG_INF, False
    ll = belief_log_likelihood(p, out, me, bel, rng)
    return ll, False


@njit(cache=True)
def advance_pool(p, old, root, me, new, logw, rng, det, bel):
    """:func:`advance_world` for every world of ``old`` into ``new`` (same
    shape), log-likelihoods into ``logw``. A world whose carried and fresh
    versions both have weight 0 is replaced by further fresh draws (up to
    100). Returns how many worlds were carried (not redrawn), or -1 when the
    sampler failed."""
    n, t = p[E.P_N], p[E.P_HAND]
    seats = np.empty(n * t, np.int64)
    cards = np.empty(n * t, np.int64)
    forbid = np.zeros((n, K), np.bool_)
    proven_absent(p, root, forbid)
    _, known = move_constraints(p, root, me)
    carried = 0
    for i in range(old.shape[0]):
        ll, kept = advance_world(p, old[i], root, me, new[i], rng, det, bel, seats, cards,
                                 forbid, known)
        tries = 0
        while ll == _NEG_INF and tries < 100:
            ll = _candidate(p, root, new[i], rng, det, bel)
            tries += 1
        if ll == _FAILED or ll == _NEG_INF:
            return -1
        logw[i] = ll
        if kept:
            carried += 1
    return carried


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
    steps towards the untempered posterior (:func:`mh_step`: two other
    players swap a card), and the worlds are weighted equally. Weighting
    alone cannot help when no candidate is close to the worlds the plays
    point to (``python research/scripts/belief_quality.py gap``); the moves
    bring them closer. ``accept``: the share of steps accepted; ``ess`` is
    then the effective size of the resampling weights.

    ``cum``: the normalised cumulative weights of ``pool[:m]``."""

    def __init__(self, P, root: np.ndarray, det_record, belief: Belief, size: int,
                 rng: np.ndarray, min_ess: float = 0.0, mcmc: int = 0,
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
        """Move every world ``mcmc`` MH steps (:func:`move_pool`; ``accept``: the
        share accepted) and weigh the worlds equally."""
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
        (:func:`advance_pool`), then moved ``mcmc`` steps each; equal weights.
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
    """The agents' ``belief``, ``belief_worlds`` and ``belief_epsilon`` checked:
    ``belief`` one of :data:`MODELS` (or of ``extra``, e.g. :data:`POOL_MODELS`
    for an agent that supports them), ``belief_worlds`` an int in
    [1, :data:`MAX_BELIEF_WORLDS`], ``belief_epsilon`` a number in (0, 1];
    else :class:`solvers.bots.AgentParameterError` naming the parameter."""
    belief = check_choice(agent, "belief", belief, tuple(MODELS) + tuple(extra))
    worlds = check_int(agent, "belief_worlds", worlds, 1, MAX_BELIEF_WORLDS)
    epsilon = check_real(agent, "belief_epsilon", epsilon, 0.0, 1.0, lo_open=True)
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


def network_for(agent: str, checkpoint, game, keyword: str = "belief_checkpoint"):
    """``(NetWeights, NetGame)`` of the network checkpoint ``checkpoint`` for
    ``game``: the ``network`` opponent model's argument to :func:`make_belief`.
    A missing, damaged or mismatched checkpoint (another rule set, an uncovered
    player count) is an :class:`~solvers.bots.AgentParameterError` naming
    ``keyword``. Needs numpy and numba only (no torch)."""
    from ..net.agents import evaluator_for
    ev = evaluator_for(agent, checkpoint, game, keyword=keyword)
    return ev.weights, ev.game_arrays(game)


def check_network(agent: str, belief: str, checkpoint, game):
    """The agents' ``belief_checkpoint``: required with ``belief='network'``
    (returns :func:`network_for`), refused with the other opponent models
    (returns None). The card-location model's checkpoint (``belief='location'``)
    is checked by :func:`solvers.beliefs.location.check_location`."""
    if belief == "network":
        if checkpoint is None:
            raise AgentParameterError(
                f"{agent}: belief='network' needs belief_checkpoint=PATH (a network "
                f"checkpoint covering this game, e.g. from `python -m experiments run distill`)")
        return network_for(agent, checkpoint, game)
    if checkpoint is not None:
        raise AgentParameterError(
            f"{agent}: belief_checkpoint={checkpoint!r} is only used with belief='network' "
            f"or 'location' (got belief={belief!r}); allowed: leave it out, or one of those")
    return None


def make_belief(P, me: int, model: str = "heuristic", worlds: int = 8,
                epsilon: float = DEFAULT_EPSILON, network=None) -> Belief:
    """The :class:`Belief` record for rules ``P`` (``state.engine_params``) and
    observer ``me``; arguments checked as :func:`check_belief` does (raises
    :class:`~solvers.bots.AgentParameterError`). ``network``: the ``network``
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
            "(solvers.beliefs.replay.network_for) and the other models take none; got model "
            f"{model!r} with network={'given' if network is not None else None}")
    if network is None:
        net, ng = _no_network()
        actions, seats = 1, 1
    else:
        net, ng = network
        if not (isinstance(net, NetWeights) and isinstance(ng, NetGame)):
            raise AgentParameterError("belief: network must be (NetWeights, NetGame), from "
                                      "solvers.beliefs.replay.network_for")
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
        """One plain determinization, completed by :func:`complete_world`."""
        w = self.det.sample(rng)
        b = self.belief
        if not complete_world(self.P, w, self.player, rng, b.seats, b.cards, b.tmp):
            raise RuntimeError("weighted determinization: an inconsistent candidate world")
        return w

    def log_likelihood(self, world: np.ndarray, rng: np.ndarray | None = None) -> float:
        """:func:`world_log_likelihood` of a complete world under this model."""
        b = self.belief
        rng = np.zeros(1, np.uint64) if rng is None else rng
        return float(belief_log_likelihood(self.P, np.asarray(world, np.int32), self.player, b,
                                           rng))

    def mean_ess(self) -> float:
        st = self.belief.stats
        return float(st[1] / st[0]) if st[0] else float("nan")
