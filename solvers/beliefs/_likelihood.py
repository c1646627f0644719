"""The likelihood of a world: the current hand replayed under an opponent model.

A world (a complete engine state, :func:`complete_world`) is weighed by the
probability of every decision of every other player that the observer saw,
replayed from the hand's deal (:func:`world_log_likelihood`); the same replay
counts how often a deterministic target policy would have decided otherwise
(:func:`replay_score`, the world model of :mod:`solvers._abr`). The search's use
of the weights (SIR, world pools) is in :mod:`solvers.beliefs._replay`, the
Metropolis-Hastings moves in :mod:`solvers.beliefs._mcmc`.

**Opponent models** (:data:`solvers.beliefs._replay.MODELS`), compiled action probabilities
(:func:`action_probability`):

* ``uniform``: *no inference*: every observed decision has the same
  likelihood in every world, so all weights are equal and the chosen world has
  exactly the plain determinizer's distribution (the agents then skip SIR altogether, so their
  behaviour and speed are those of the plain determinizer, bit for bit).
* ``random``: the other players pick uniformly among their legal actions,
  ``pi = 1 / (number of legal actions)``. Not the same as ``uniform``: how many
  cards a player could have played depends on its hidden hand, so a random
  player's plays are evidence too (the exact posterior against
  :class:`solvers._base.bots.RandomBot`).
* ``heuristic``: the rule-based player of :mod:`solvers._base.heuristic`, softened:
  ``(1 - epsilon)`` on the heuristic's action plus ``epsilon`` spread
  uniformly over the legal actions (``epsilon`` in (0, 1]; > 0 so that no
  consistent world gets weight 0; ``epsilon = 1`` is the ``random`` model).
* ``network``: a learned policy (:mod:`solvers.net`; a checkpoint covering the
  game, :func:`network_for`): ``(1 - epsilon) p(a) + epsilon / k``, ``p``
  the network's policy for the player to move *seeing its own information
  state in the candidate world* (its hand there, what it has seen), the
  compiled forward pass (:func:`solvers.net._inference.net_eval`, about 50 us
  a decision at 6 players, so a weighted world costs 1-4 ms: 30-70 times the
  ``heuristic`` model's). A model of players whose play the network imitates
  (e.g. ISMCTS, whose search targets it was distilled from).

**Which decisions count** (the observer's information, nothing more): every
card another player played this hand (plays are public), and the cards passed
*to the observer* (the giver's pass decision, seen as a multiset when the
passing round completes: its probability is the sum over every distinct order
of choosing them, the giver chooses one card per action). Passes between
other players are never seen: they are drawn uniformly given the hands after
passing (the definition of :mod:`spiel_game._resample`) and their probability
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
(``uint64[1]``, :mod:`spiel_game._rng`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._determinize import determinize
from spiel_game._resample import draw_into
from spiel_game._simulator import step_apply, step_legal

from .._base.heuristic import heuristic_policy
from ..net._inference import net_eval
from .._base.passing import policy_by_code

__all__ = ["MAX_WEIGHED_PASS", "action_probability", "complete_world", "hand_start",
           "replay_start", "replay_pass", "replay_legal", "replay_score",
           "world_log_likelihood", "belief_log_likelihood", "candidate_world"]

K = E.K
#: The pass to the observer is weighed when at most this many cards are passed.
MAX_WEIGHED_PASS = 6

NEG_INF = -np.inf
FAILED = np.inf           # the sampler failed (a log-weight is never +inf)


# ================================================================ compiled kernels
# carries: the opponent model (model, eps), the node and the action (p, s, legal, k, a), the rng,
# the network model's weights and work arrays (net, ng, probs, value)
@njit(cache=True)
def action_probability(model, eps, p, s, legal, k, a, rng, net, ng, probs, value):
    """Probability that the player to move in ``s`` chooses ``a`` among
    ``legal[:k]`` under opponent model ``model`` (a :data:`~solvers.beliefs._replay.MODELS` code);
    0 when ``a`` is not legal. ``uniform`` (no inference) gives 1 to every
    legal action (a constant likelihood, not a distribution). ``net``, ``ng``
    (:class:`solvers.net._inference.NetWeights` / ``NetGame``) and the work
    arrays ``probs`` float64[actions], ``value`` float64[seats] serve the
    ``network`` model (any arrays of those types otherwise)."""
    h = _model_action(model, p, s, legal, k, rng, net, ng, probs, value)
    return _child_probability(model, eps, h, legal, k, a, probs)


@njit(cache=True)
def complete_world(p, w, me, rng, seats, cards, tmp):
    """Make the determinized world ``w`` (play or moon phase: the other seats'
    current hands filled in, see :class:`spiel_game._determinize.Determinizer`) a full,
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


# carries: the opponent model (model), the node (p, s, legal, k), the rng, the network model's
# weights and work arrays (net, ng, probs, value)
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
def _is_legal(legal, k, a):
    """Whether ``a`` is one of ``legal[:k]``."""
    for i in range(k):
        if legal[i] == a:
            return True
    return False


@njit(cache=True)
def _child_probability(model, eps, h, legal, k, a, probs):
    """:func:`action_probability` of ``a`` from a node's legal actions and its
    :func:`_model_action` ``h`` (``probs``: the network's policy there)."""
    if not _is_legal(legal, k, a):
        return 0.0
    if model == 0:
        return 1.0
    if model == 1:
        return 1.0 / k
    if model == 3:
        return (1.0 - eps) * probs[a] + eps / k
    return (1.0 - eps) * (1.0 if a == h else 0.0) + eps / k


# carries: the opponent model (model, eps), the replay and the cards passed (p, r, choices, pc),
# the walk's work arrays (bufs, legals, work), the rng, the network model's weights and work
# arrays (net, ng, nprobs, nvalue)
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


# carries: the world and the observer (p, w, me), the replay's work arrays (fresh, r,
# deal, legal, seats, cards), the rng and the scoring hook (lik or miss)
@njit(cache=True)
def replay_score(p, w, me, fresh, r, deal, legal, seats, cards, rng, lik=None, miss=None):
    """Replay the current hand of the complete world ``w`` from its deal in ``r``
    and score the decisions of the other players that ``me`` saw (every card
    they played this hand, and the cards passed to ``me``), with one of two hooks:

    * ``lik`` = ``(model, eps, bufs, legals, work, net, ng, nprobs, nvalue)``:
      their log-likelihood under an opponent model (:func:`world_log_likelihood`
      documents the arguments); -inf when ``w`` contradicts the plays; 0 for the
      ``uniform`` model;
    * ``miss`` = ``(tcode, cap, scratch)``: how many of them differ from what the
      deterministic policy ``tcode`` (:func:`solvers._base.passing.policy_by_code`, >= 1)
      would have done: each play, plus, for the cards passed to ``me``, the size
      of the multiset difference between them and the giver's own passes under
      ``tcode`` (not counted for the ``random`` convention, code 2); -1 when
      ``w`` contradicts the plays, a number > ``cap`` as soon as the count exceeds
      ``cap`` (``scratch`` int32[state_size]).

    0 outside the play and moon phases. On return ``r`` has replayed every
    play it reached. Work arrays as :func:`world_log_likelihood`."""
    ph = w[E.S_PHASE]
    if ph != E.PH_PLAY and ph != E.PH_MOON:
        return 0.0
    # Each hook's code is guarded by its own ``is not None`` (numba drops the
    # branches of the hook that is None).
    bad = NEG_INF
    if lik is not None:
        model, eps, bufs, legals, work, net, ng, nprobs, nvalue = lik
        if model == 0:
            return 0.0
    if miss is not None:
        tcode, cap, scratch = miss
        want = np.zeros(K, np.int64)
        bad = -1.0
    pc = p[E.P_PASS]
    giver = replay_start(p, w, me, fresh, r, deal)
    total = 0.0
    while r[E.S_PHASE] == E.PH_PASS:
        cur = r[E.S_CUR]
        j = r[E.S_NPASS] % pc
        row = E.pass_choices(p, w, cur)
        if cur == giver and j == 0:
            if lik is not None:
                if pc <= MAX_WEIGHED_PASS:
                    pr = _received_probability(model, eps, p, r, row, pc, bufs, legals, work,
                                               rng, net, ng, nprobs, nvalue)
                    if pr <= 0.0:
                        return NEG_INF
                    total += math.log(pr)
            if miss is not None and tcode != 2:         # 2: the random convention
                total += _pass_mismatches(p, r, row, pc, tcode, scratch, legal, want, rng)
                if total > cap:
                    return total
        if not replay_pass(p, r, row, j):
            return bad
    m = E.plays(p, w, seats, cards)
    for i in range(m):
        q = seats[i]
        a = cards[i]
        k = replay_legal(p, r, q, legal)
        if k < 0:
            return bad
        if lik is not None:
            # own play: a constant factor (the ``uniform`` model's 1)
            pr = action_probability(model if q != me else 0, eps, p, r, legal, k, a, rng, net,
                                    ng, nprobs[0], nvalue)
            if pr <= 0.0:
                return NEG_INF                  # an illegal play: inconsistent world
            total += math.log(pr)
        if miss is not None:
            if not _is_legal(legal, k, a):
                return bad
            if q != me and policy_by_code(tcode, p, r, legal, k, rng) != a:
                total += 1.0
                if total > cap:
                    return total
        step_apply(p, r, a)
    return total


# carries: the replay and the cards passed (p, r, row, pc), the target policy (tcode), the work
# arrays (scratch, legal, want), the rng
@njit(cache=True)
def _pass_mismatches(p, r, row, pc, tcode, scratch, legal, want, rng):
    """How many of the cards ``row[:pc]`` that the seat to move in ``r`` passes
    are not among the passes policy ``tcode`` would make there (the multiset
    difference); ``scratch`` int32[state_size], ``want`` int64[K] work arrays."""
    for c in range(K):
        want[c] = 0
    for i in range(scratch.shape[0]):
        scratch[i] = r[i]
    for _ in range(pc):
        k = step_legal(p, scratch, legal)
        a = policy_by_code(tcode, p, scratch, legal, k, rng)
        want[a] += 1
        step_apply(p, scratch, a)
    miss = 0.0
    for i in range(pc):
        c = row[i]
        if c >= 0 and want[c] > 0:
            want[c] -= 1
        else:
            miss += 1.0
    return miss


# carries: the world and the observer (p, w, me), the opponent model (model, eps), the
# replay's work arrays (fresh, r, bufs, legals, legal, seats, cards, deal, work), the
# rng, the network model's weights and work arrays (net, ng, nprobs, nvalue)
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
    state, :func:`spiel_game._engine.new_state`), ``bufs`` int32[pc + 1,
    state_size], ``legals`` int32[pc + 1, K + 2], ``legal`` int32[K + 2],
    ``seats``/``cards`` int64[n * t], ``deal`` int32[n + 1, K], ``work``
    int64[7, max(pc, 1)]; for the ``network`` model its weights ``net`` and
    arrays ``ng`` (:mod:`solvers.net._inference`), ``nprobs`` float64[pc + 1,
    actions], ``nvalue`` float64[seats] (other models: any arrays of those
    types, :func:`~solvers.beliefs._replay.make_belief` supplies them). The pass to
    ``me`` is weighed when at most :data:`MAX_WEIGHED_PASS` cards are passed
    (every scheme's rule passes at most 5); with more it is not (its distinct
    orders are too many)."""
    return replay_score(p, w, me, fresh, r, deal, legal, seats, cards, rng,
                        (model, eps, bufs, legals, work, net, ng, nprobs, nvalue), None)

@njit(cache=True)
def belief_log_likelihood(p, w, me, bel, rng):
    """:func:`world_log_likelihood` of world ``w`` for observer ``me`` under the
    opponent model and with the work arrays of :class:`~solvers.beliefs._replay.Belief` ``bel``."""
    return world_log_likelihood(p, w, me, bel.model, bel.eps, bel.fresh, bel.replay, bel.bufs,
                                bel.legals, bel.legal, bel.seats, bel.cards, bel.deal,
                                bel.work, rng, bel.net, bel.ng, bel.nprobs, bel.nvalue)



@njit(cache=True)
def candidate_world(p, root, cand, rng, det, bel):
    """One candidate world of ``root`` into ``cand`` (a determinization by ``det``,
    completed by :func:`complete_world`) and its log-weight; ``-inf`` (counted in
    ``bel.stats[2]``) for weight 0, ``FAILED`` (+inf) when the sampler fails."""
    cand[:] = root
    if not determinize(p, cand, rng, det):
        return FAILED
    if not complete_world(p, cand, bel.me, rng, bel.seats, bel.cards, bel.tmp):
        bel.stats[2] += 1.0
        return NEG_INF
    lw = belief_log_likelihood(p, cand, bel.me, bel, rng)
    if lw == NEG_INF:
        bel.stats[2] += 1.0
    return lw
