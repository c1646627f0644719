"""Single-observer information-set MCTS (SO-ISMCTS), compiled end to end.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search",
IEEE TCIAIG 4(2), 2012 (Algorithm 2, SO-ISMCTS). One search tree per move,
seen from the player to move (the *observer*). Each iteration:

1. **determinize**: draw the hidden cards uniformly given the observer's
   information state (the distribution of ``state.resample_from_infostate``,
   see :class:`spiel_game._determinize.Determinizer`); with a ``belief``
   model (:mod:`solvers.beliefs`), the world is instead drawn by
   sampling-importance-resampling from ``belief.worlds`` such draws, weighted
   by the likelihood of the other players' observed decisions under that
   opponent model, or, with ``belief.pool > 0``, drawn by weight from a pool
   of candidate worlds weighted once per move (root-level inference; the
   search's glue for beliefs, :func:`search_weighted` and
   :func:`search_pooled`, is here);
2. **select**: from the root, follow the edges compatible with the
   determinization; at each decision the player to move picks the child
   maximising the subset-armed UCB1 of Cowling et al.,
   ``mean reward + uct_c * sqrt(ln(availability) / visits)``, with rewards of
   the *acting* player scaled to [0, 1] by the game's utility range
   (``(u - min_utility) / (max_utility - min_utility)``), so one ``uct_c``
   serves every player count and scoring variant;
   with ``opponents='policy'`` only the observer chooses by UCB: the other
   players play the rollout policy in the tree too (their edges are added as
   they occur, without ending the descent), so the search is a best response
   to that policy in the sampled worlds instead of a game against players
   who optimise their own rewards in each world;
3. **expand** one untried legal action (uniformly at random);
4. **roll out** to the end of the game with the compiled engine and a compiled
   policy (``rollout="random"`` or ``"heuristic"``, see :mod:`spiel_game._policies`
   and :mod:`solvers._base.heuristic`);
5. **back up** the scaled returns along the path.

What the tree branches on (the observer's information, nothing more): its own
actions and every public action (card plays, the moon choice) are edges. Other
players' passes are hidden from the observer, so they are not edges: they are
played by the rollout policy inside the determinization. When the passing
round completes, the cards the observer receives are an observation: the tree
branches on them (one child per distinct received multiset). A new hand of a
match (its deal) ends the tree; the rest is rollout.

Budgets: ``iterations`` per move, or ``time_limit`` seconds per move (checked
between chunks of iterations: 1, 1, 2, 4, ... up to 512 iterations, so a time
budget always completes at least one iteration and overshoots by at most one
chunk). Final move choice as in OpenSpiel's ``ISMCTSBot``: ``max_visit_count``
(default), ``normalized_visit_count`` (sample proportionally to visits) or
``max_value``.

Memory: an iteration adds at most two nodes (64 bytes each; n + 1 with
``opponents="policy"``). The tree starts
small and grows (doubling) as the search adds nodes, so memory follows the
work done, not the budget asked for; it stops growing at ``max_nodes``
(default :data:`DEFAULT_MAX_NODES` = 2**24 nodes, 1.1 GB; at most
:data:`MAX_NODES_LIMIT` = 2**28). A full tree keeps searching: iterations
still select, roll out and back up, they just add no nodes. Every parameter
is checked when the bot is built (:class:`solvers._base.bots.AgentParameterError`
naming the parameter, the value and the allowed range; the ranges are in
:class:`ISMCTSBot`).

Everything random comes from one explicit splitmix64 stream per bot
(:func:`spiel_game._rng.make_rng_state`), seeded by ``seed``.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._policies import uniform_policy
from spiel_game._determinize import Determinizer, deal_shuffled, determinize
from spiel_game._rng import make_rng_state, rand_below, rand_uniform
# Engine steps compiled without reference counting (see spiel_game._simulator):
# inlined, the engine kernels add atomic reference-count updates to every action.
from spiel_game._simulator import step_apply, step_legal, step_uniform

from .beliefs._models import BeliefModel, from_spec
from .beliefs._replay import pool_pick, sir_world
from .net._inference import net_eval
from ._base.bots import Agent, AgentParameterError, check_choice, check_int, check_real
from ._base.heuristic import heuristic_policy

__all__ = ["ISMCTSBot", "belief_pool", "check_budget", "Tree", "NetLeaf", "rollout",
           "search_determinized",
           "search_weighted", "search_pooled",
           "FINAL_POLICIES",
           "ROLLOUT_POLICIES", "MAX_ITERATIONS", "MAX_TIME_LIMIT", "MAX_UCT_C", "MIN_NODES",
           "DEFAULT_MAX_NODES", "MAX_NODES_LIMIT", "CLOCKS"]

K = E.K
ROLLOUT_POLICIES = {"random": 0, "heuristic": 1}
FINAL_POLICIES = ("max_visit_count", "normalized_visit_count", "max_value")

DETERMINIZATIONS = ("compiled", "resample")
#: How the other players move inside the tree (``ISMCTSBot(opponents=...)``): by UCB
#: (SO-ISMCTS) or by the rollout policy (a best response to it).
OPPONENTS = ("search", "policy")
#: What a ``time_limit`` counts (``ISMCTSBot(clock=...)``): elapsed seconds, or the
#: CPU seconds of the searching thread (numba kernels run in the caller's thread).
CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
#: Allowed ranges of the budgets (checked when an ISMCTSBot is built).
MAX_ITERATIONS = 10**9            # iterations per move
MAX_TIME_LIMIT = 3600.0           # seconds per move
MAX_UCT_C = 1e6
MIN_NODES = 64                    # the root and a child for every legal action (<= 55)
DEFAULT_MAX_NODES = 2**24         # 16.8 million nodes, 1.1 GB
MAX_NODES_LIMIT = 2**28
_FIRST_NODES = 8192               # initial tree capacity when the budget is larger
_CHUNK = 4096                     # iterations per compiled call (the tree grows between calls)

_OBS_FLAG = np.int64(1) << np.int64(62)


# ================================================================ compiled kernels
@njit(cache=True)
def rollout_policy(code, p, s, legal, k, rng):
    if code == 1:
        return heuristic_policy(p, s, legal, k, rng)
    return uniform_policy(p, s, legal, k, rng)


@njit(cache=True)
def rollout(p, s, code, rng, legal, deck_buf):
    """Play ``s`` to the end in place (new hands of a match dealt by shuffling)."""
    while s[E.S_PHASE] != E.PH_OVER:
        if s[E.S_PHASE] == E.PH_DEAL:
            deal_shuffled(p, s, rng, deck_buf)
            continue
        if code == 0:
            step_uniform(p, s, rng)
        else:
            k = step_legal(p, s, legal)
            step_apply(p, s, heuristic_policy(p, s, legal, k, rng))


# ---------------------------------------------------------------- the search
@njit(cache=True)
def _obs_key(p, s, me):
    """Key of the cards ``me`` received when the passing round completed."""
    n = p[E.P_N]
    pc = p[E.P_PASS]
    received = E.pass_choices(p, s, (me - s[E.S_PASSOFF]) % n)
    h = np.uint64(0)
    for j in range(pc):
        z = np.uint64(received[j] + 1) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
        h += z ^ (z >> np.uint64(32))
    return np.int64(h >> np.uint64(2)) | _OBS_FLAG


class Tree(NamedTuple):
    """The search tree: node ``i`` is entry ``i`` of every array (capacity =
    their length). Children form a linked list (``child``, ``sibling``)."""

    size: np.ndarray        # int64[1] nodes in use
    child: np.ndarray       # int64[N] first child, -1 = none
    sibling: np.ndarray     # int64[N] next sibling, -1 = none
    key: np.ndarray         # int64[N] action of the edge in (< 64), or an observation key
                            # (bit 62 set, :func:`_obs_key`); -1 at the root
    mover: np.ndarray       # int64[N] player who chose the edge; -1: observation, root
    expanded: np.ndarray    # int64[N] mask of the actions (bits 0..54) that have a child
    visits: np.ndarray      # float64[N]
    avail: np.ndarray       # float64[N] availability: selections it was compatible with
    reward: np.ndarray      # float64[N] sum of the mover's scaled rewards

    def __repr__(self) -> str:
        """One line (the default printed nine arrays of the tree's capacity)."""
        used = int(self.size[0])
        return (f"Tree({used:,} nodes of {self.child.shape[0]:,}, "
                f"root visits {self.visits[0]:g})")


def new_tree(capacity: int) -> Tree:
    """A tree holding only the root."""
    t = Tree(np.ones(1, np.int64), *(np.zeros(capacity, np.int64) for _ in range(5)),
             *(np.zeros(capacity, np.float64) for _ in range(3)))
    t.child[0] = t.sibling[0] = t.key[0] = t.mover[0] = -1
    return t


def root_children(t: Tree, prior: np.ndarray | None = None) -> tuple:
    """The root's children sorted by action: ``(actions, visits, mean_rewards)``
    (mean 0 when unvisited), and their ``prior`` entries when it is given."""
    acts, vis, val, pri = [], [], [], []
    c = int(t.child[0])
    while c >= 0:
        acts.append(int(t.key[c]))
        v = t.visits[c]
        vis.append(v)
        val.append(t.reward[c] / v if v > 0 else 0.0)
        if prior is not None:
            pri.append(prior[c])
        c = int(t.sibling[c])
    order = np.argsort(acts)
    out = (np.array(acts, np.int64)[order], np.array(vis)[order], np.array(val)[order])
    return out if prior is None else out + (np.array(pri)[order],)


def grown(t: Tree, capacity: int) -> Tree:
    """``t`` with room for ``capacity`` nodes (the first ``len(t.child)`` kept)."""
    extra = capacity - t.child.shape[0]
    return Tree(t.size, *(np.concatenate([a, np.zeros(extra, a.dtype)]) for a in t[1:]))


@njit(cache=True)
def new_node(t, parent, key, mover):
    """Append a child of ``parent``; returns its index or -1 when the tree is full."""
    n = t.size[0]
    if n >= t.child.shape[0]:
        return -1
    t.size[0] = n + 1
    t.child[n] = -1
    t.sibling[n] = t.child[parent]
    t.child[parent] = n
    t.key[n] = key
    t.mover[n] = mover
    t.expanded[n] = 0
    t.visits[n] = 0.0
    t.avail[n] = 0.0
    t.reward[n] = 0.0
    if key < 64:
        t.expanded[parent] |= np.int64(1) << key
    return n


class NetLeaf(NamedTuple):
    """The leaf-evaluator hook of :func:`_iteration` for a policy-value network
    (:class:`solvers._ismcts_net.NetISMCTSBot`): a node with untried legal actions
    is expanded whole, each child with the network's prior, and its value is the
    network's (mixed with a rollout's by ``vw``); selection is PUCT. ``None``
    instead of a ``NetLeaf``: plain SO-ISMCTS (UCB, one random expansion, a rollout)."""

    net: tuple              # the network's weights (:class:`solvers.net._inference.NetWeights`)
    ng: tuple               # the game's arrays (:class:`solvers.net._inference.NetGame`)
    prior: np.ndarray       # float64[N] each node's prior (beside the tree's arrays)
    nval: np.ndarray        # float64[N] the network's value of a node's chooser
    probs: np.ndarray       # float64[num_actions] work array: the policy
    value: np.ndarray       # float64[max_players] work array: the value by relative seat
    vabs: np.ndarray        # float64[n] the leaf's scaled value of every seat
    vw: float               # weight of the network's value (the rest: a rollout)
    mix: float              # share of the uniform distribution in a prior


# carries: the game and the root (p, root, me), the budget and the UCB constants
# (n_iter, uct_c, lo, scale), the rollout policy and the rng (code, rng), the tree
# and its work arrays (t, s, legal, deck_buf, path), the determinizer (det), the
# other players' mode (opp) and the hooks (rbias, leaf)
@njit(cache=True)
def search_determinized(p, root, me, n_iter, uct_c, lo, scale, code, rng, t, s, legal,
                        deck_buf, path, det, opp=0, rbias=None, leaf=None):
    """Run ``n_iter`` SO-ISMCTS iterations on the tree ``t``, each on a fresh
    determinization drawn by ``det`` (a :class:`Determinization`). ``rbias``:
    None, or the root's progressive bias per action; ``leaf``: None, or a
    :class:`NetLeaf` (see :func:`_iteration`)."""
    n = p[E.P_N]
    for _ in range(n_iter):
        s[:] = root
        if not determinize(p, s, rng, det):
            return False
        _iteration(p, s, me, uct_c, lo, scale, code, rng, t, legal, deck_buf, path, n, opp,
                   rbias, leaf)
    return True


# carries: the game and the determinized state (p, s, me, n), the UCB constants (uct_c,
# lo, scale), the rollout policy and the rng (code, rng), the tree and its work arrays
# (t, legal, deck_buf, path), the other players' mode (opp) and the hooks (rbias, leaf)
@njit(cache=True)
def _iteration(p, s, me, uct_c, lo, scale, code, rng, t, legal, deck_buf, path, n, opp=0,
               rbias=None, leaf=None):
    # One descent, its leaf evaluated by the hook ``leaf``. None: UCB selection,
    # one random expansion, a rollout's returns. A :class:`NetLeaf`: PUCT
    # selection (``uct_c`` is ``c_puct``), a node with untried actions expanded
    # whole with the network's priors, the network's value (mixed with a rollout's).
    # ``rbias`` (None: plain UCB) adds progressive bias at the root (Chaslot et
    # al. 2008): a visited root child scores ``rbias[action] / (1 + visits)``
    # more (e.g. a weight times a policy's probability of the action).
    # The tree's arrays as locals: the hot loops index them without going
    # through the record each time.
    first_child, sibling, keys, mover = t.child, t.sibling, t.key, t.mover
    expanded_mask = t.expanded
    visits, avail, reward = t.visits, t.avail, t.reward
    node = 0
    depth = 0
    path[0] = 0
    evaluated = False
    while True:
        ph = s[E.S_PHASE]
        if ph == E.PH_OVER or ph == E.PH_DEAL:
            break
        cur = s[E.S_CUR]
        k = step_legal(p, s, legal)
        if ph == E.PH_PASS and cur != me:
            # A hidden move for the observer: played by the policy, no edge.
            step_apply(p, s, rollout_policy(code, p, s, legal, k, rng))
            if s[E.S_PHASE] != E.PH_PASS:
                node = obs_child(p, s, me, node, t)
                if node < 0:
                    break
                depth += 1
                path[depth] = node
            continue
        if opp == 1 and cur != me:
            # ``opponents='policy'``: another player's move is the rollout
            # policy's, not a UCB choice; its edge is followed (added if new)
            # without ending the descent.
            a = rollout_policy(code, p, s, legal, k, rng)
            child = first_child[node]
            while child >= 0 and keys[child] != a:
                child = sibling[child]
            if child < 0:
                child = new_node(t, node, a, cur)
                if child < 0:
                    break
            avail[child] += 1.0
            step_apply(p, s, a)
            depth += 1
            path[depth] = child
            node = child
            continue
        lmask = np.int64(0)
        for i in range(k):
            lmask |= np.int64(1) << legal[i]
        expanded = False
        if leaf is None:
            best = _best_child(node, t, lmask, uct_c, rng, rbias, leaf)
            unexp = lmask & ~expanded_mask[node]
            if unexp != 0:
                cnt = 0
                for i in range(k):
                    if (unexp >> legal[i]) & 1:
                        cnt += 1
                r = rand_below(rng, cnt)
                a = -1
                for i in range(k):
                    if (unexp >> legal[i]) & 1:
                        if r == 0:
                            a = legal[i]
                            break
                        r -= 1
                child = new_node(t, node, a, cur)
                if child < 0:
                    break
                avail[child] = 1.0
                expanded = True
            else:
                child = best
                a = keys[child]
        else:
            if lmask & ~expanded_mask[node] != 0:
                _net_expand(p, s, cur, node, t, legal, k, lmask, leaf)
                evaluated = True
                break
            child = _best_child(node, t, lmask, uct_c, rng, rbias, leaf)
            a = keys[child]
        step_apply(p, s, a)
        depth += 1
        path[depth] = child
        node = child
        if expanded:
            break
        if ph == E.PH_PASS and s[E.S_PHASE] != E.PH_PASS:
            node = obs_child(p, s, me, node, t)
            if node < 0:
                break
            depth += 1
            path[depth] = node
    if leaf is None:
        rollout(p, s, code, rng, legal, deck_buf)
        vals = E.returns(p, s)
        for q in range(n):
            vals[q] = (vals[q] - lo) * scale
    else:
        vals = leaf.vabs
        vw = leaf.vw
        if not evaluated or vw < 1.0:
            rollout(p, s, code, rng, legal, deck_buf)
            ret = E.returns(p, s)
            for q in range(n):
                r = (ret[q] - lo) * scale
                vals[q] = vw * vals[q] + (1.0 - vw) * r if evaluated else r
    visits[0] += 1.0
    for i in range(1, depth + 1):
        v = path[i]
        visits[v] += 1.0
        mv = mover[v]
        if mv >= 0:
            reward[v] += vals[mv]


# carries: the game and the node's state (p, s, cur), the tree and the node (t, node), its legal
# actions (legal, k, lmask) and the network hook (leaf)
@njit(cache=True)
def _net_expand(p, s, cur, node, t, legal, k, lmask, leaf):
    """Expand every legal action of ``node`` that has no child yet, each with the
    network's prior; set the leaf's value of every seat (``leaf.vabs``) and, at a
    fresh node, its value for the player to move (``leaf.nval``)."""
    unexp = lmask & ~t.expanded[node]
    fresh = t.expanded[node] == 0
    probs, value, mix = leaf.probs, leaf.value, leaf.mix
    net_eval(leaf.net, leaf.ng, p, s, cur, probs, value)
    for i in range(k):
        a = legal[i]
        if (unexp >> a) & 1:
            c = new_node(t, node, a, cur)
            if c < 0:
                break
            leaf.prior[c] = (1.0 - mix) * probs[a] + mix / k
    if fresh:
        leaf.nval[node] = value[0]
    n = p[E.P_N]
    for q in range(n):
        leaf.vabs[q] = value[(q - cur + n) % n]


@njit(cache=True)
def _best_child(node, t, lmask, c, rng, rbias, leaf):
    """The child of ``node`` (among those legal here: ``lmask``) of the best score,
    ties broken at random; counts their availability. ``leaf`` None: the
    subset-armed UCB1 (exploration ``c``; ``rbias``: None, or the root's
    progressive bias per action); a :class:`NetLeaf`: the subset-armed PUCT
    (``c`` is ``c_puct``, the priors and values in ``leaf``)."""
    first_child, sibling, keys = t.child, t.sibling, t.key
    visits, avail, reward = t.visits, t.avail, t.reward
    if leaf is not None:
        # PUCT: availability first, and the first-play urgency of unvisited children.
        sv = 0.0
        sr = 0.0
        ch = first_child[node]
        while ch >= 0:
            key = keys[ch]
            if key < 64 and (lmask >> key) & 1:
                avail[ch] += 1.0
                sv += visits[ch]
                sr += reward[ch]
            ch = sibling[ch]
        fpu = sr / sv if sv > 0 else leaf.nval[node]
    best = -1
    best_v = -1e300
    ch = first_child[node]
    while ch >= 0:
        key = keys[ch]
        if key < 64 and (lmask >> key) & 1:
            if leaf is None:
                # Availability: every existing child compatible with this determinization.
                avail[ch] += 1.0
                vis = visits[ch]
                if vis > 0:
                    v = reward[ch] / vis + c * math.sqrt(math.log(avail[ch]) / vis)
                    if rbias is not None:
                        if node == 0:
                            v += rbias[key] / (1.0 + vis)
                else:
                    v = 1e299
            else:
                vis = visits[ch]
                q = reward[ch] / vis if vis > 0 else fpu
                v = q + c * leaf.prior[ch] * math.sqrt(avail[ch]) / (1.0 + vis)
            v += rand_uniform(rng) * 1e-9          # random tie-breaking
            if v > best_v:
                best_v = v
                best = ch
        ch = sibling[ch]
    return best


# ---------------------------------------------------------------- beliefs: the search's glue
# carries: the game and the root (p, root, me), the budget and the UCB constants (n_iter, uct_c,
# lo, scale), the rollout policy and the rng (code, rng), the tree and its work arrays (t, s,
# legal, deck_buf, path), the determinizer and the belief (det, bel), the other players' mode
# (opp)
@njit(cache=True)
def search_weighted(p, root, me, n_iter, uct_c, lo, scale, code, rng, t, s, legal, deck_buf,
                    path, det, bel, opp=0):
    """:func:`search_determinized` with every iteration's world drawn by
    :func:`solvers.beliefs._replay.sir_world` (a ``belief`` weighing every iteration)."""
    n = p[E.P_N]
    for _ in range(n_iter):
        if not sir_world(p, root, s, rng, det, bel):
            return False
        _iteration(p, s, me, uct_c, lo, scale, code, rng, t, legal, deck_buf, path, n, opp)
    return True


# carries: the game and the root (p, root, me), the budget and the UCB constants (n_iter, uct_c,
# lo, scale), the rollout policy and the rng (code, rng), the tree and its work arrays (t, s,
# legal, deck_buf, path), the weighted world pool (pool, cum, m), the other players' mode (opp)
@njit(cache=True)
def search_pooled(p, root, me, n_iter, uct_c, lo, scale, code, rng, t, s, legal, deck_buf,
                  path, pool, cum, m, opp=0):
    """:func:`search_determinized` with every iteration's world drawn from
    the weighted pool ``pool[:m]`` (:class:`solvers.beliefs._replay.WorldPool`), with
    replacement."""
    n = p[E.P_N]
    for _ in range(n_iter):
        s[:] = pool[pool_pick(cum, m, rng)]
        _iteration(p, s, me, uct_c, lo, scale, code, rng, t, legal, deck_buf, path, n, opp)


@njit(cache=True)
def obs_child(p, s, me, node, t):
    key = _obs_key(p, s, me)
    c = t.child[node]
    while c >= 0:
        if t.key[c] == key:
            return c
        c = t.sibling[c]
    return new_node(t, node, key, -1)


# ================================================================ the bot
def check_budget(agent: str, iterations, time_limit, clock) -> tuple[int, float | None, str]:
    """A search's budget checked (:class:`~solvers._base.bots.AgentParameterError` naming
    ``agent`` and the parameter): ``iterations`` an int in [1, 10**9],
    ``time_limit`` None or a number in (0, 3600], ``clock`` one of :data:`CLOCKS`."""
    iterations = check_int(agent, "iterations", iterations, 1, MAX_ITERATIONS)
    time_limit = (None if time_limit is None else
                  check_real(agent, "time_limit", time_limit, 0.0, MAX_TIME_LIMIT,
                             lo_open=True))
    return iterations, time_limit, check_choice(agent, "clock", clock, tuple(CLOCKS))


class ISMCTSBot(Agent):
    """SO-ISMCTS: one UCT search tree over information sets per move, on sampled worlds
    (see the module docstring).

    ``NAME``: the registered name its parameter errors give (subclasses set theirs).

    Keyword-only arguments with defaults, checked when the bot is built.

    Args:
      iterations: iterations per move, an int in [1, 10**9] (ignored when
        ``time_limit`` is set).
      time_limit: seconds per move, a number in (0, 3600], or None for an
        iteration budget. At least one iteration is always run.
      clock: what ``time_limit`` counts: ``wall`` (default, elapsed seconds)
        or ``cpu`` (CPU seconds of the searching thread, ``time.thread_time``:
        unaffected by other processes on the machine, the clock of
        equal-CPU-time comparisons).
      uct_c: UCB exploration constant on rewards scaled to [0, 1], a finite
        number in [0, 10**6].
      final_policy: ``max_visit_count`` | ``normalized_visit_count`` | ``max_value``.
      rollout: rollout policy, ``random`` or ``heuristic``.
      determinization: ``compiled`` (the :class:`~spiel_game._determinize.Determinizer`, default) or
        ``resample`` (call ``state.resample_from_infostate`` every iteration:
        the reference, about 100 times slower).
      max_nodes: the most nodes the tree may grow to, an int in [64, 2**28],
        or None for :data:`DEFAULT_MAX_NODES` (2**24). The tree grows on
        demand; a full tree keeps searching without adding nodes.
      belief: None (default: no inference, the plain determinizer, unchanged)
        or a belief model of :mod:`solvers.beliefs` weighting the worlds the
        search draws: :class:`~solvers.beliefs.HeuristicBelief`,
        :class:`~solvers.beliefs.RandomBelief`,
        :class:`~solvers.beliefs.NetworkBelief` (an opponent model; SIR per
        iteration, or a root-level pool with ``pool``, ``min_ess``, ``mcmc``,
        ``persist``) or :class:`~solvers.beliefs.LocationBelief` (a learned
        card-location model tilting a root-level pool). A belief needs
        ``determinization='compiled'``. It may also be written as an agent
        spec writes it, one string with the model's name and keywords
        (``belief='heuristic(pool=64)'``, :func:`solvers.beliefs.from_spec`;
        ``'uniform'``: None).
      opponents: how the other players move inside the tree: ``search``
        (default, SO-ISMCTS: each picks by UCB on its own rewards, over what
        the observer knows) or ``policy`` (each plays the rollout policy in
        the tree as well, so only the observer's own decisions are searched:
        a best response to that policy under the sampled worlds, e.g.
        against a field of ``heuristic`` players with
        ``rollout='heuristic'``).
    """

    NAME = "ismcts"

    def __init__(self, game, player: int, seed: int = 0, *, iterations: int = 1000,
                 time_limit: float | None = None, uct_c: float = 0.4,
                 final_policy: str = "max_visit_count", rollout: str = "random",
                 determinization: str = "compiled", max_nodes: int | None = None,
                 belief: BeliefModel | str | None = None, opponents: str = "search",
                 clock: str = "wall"):
        super().__init__(game, player, seed)
        a = self.NAME
        self.iterations, self.time_limit, self.clock = check_budget(a, iterations,
                                                                    time_limit, clock)
        self._now = CLOCKS[self.clock]
        self.uct_c = check_real(a, "uct_c", uct_c, 0.0, MAX_UCT_C)
        self.final_policy = check_choice(a, "final_policy", final_policy, FINAL_POLICIES)
        self.rollout = check_choice(a, "rollout", rollout, tuple(ROLLOUT_POLICIES))
        self.determinization = check_choice(a, "determinization", determinization,
                                            DETERMINIZATIONS)
        self.max_nodes = (None if max_nodes is None else
                          check_int(a, "max_nodes", max_nodes, MIN_NODES, MAX_NODES_LIMIT))
        belief = from_spec(a, belief)
        self.belief = belief
        self._chains = None             # (hand key, worlds) of the last search
        self.opponents = check_choice(a, "opponents", opponents, OPPONENTS)
        self._opp = OPPONENTS.index(self.opponents)
        if belief is not None and self.determinization != "compiled":
            raise AgentParameterError(
                f"{a}: belief={belief.name!r} with determinization="
                f"{self.determinization!r} is not allowed; allowed: determinization="
                f"'compiled' with a belief other than 'uniform'")
        #: The belief's learned model: the policy network of NetworkBelief, the
        #: card-location model of LocationBelief, else None.
        self._belief_model = None if belief is None else belief.load(a, game)
        lo, hi = game.min_utility(), game.max_utility()
        self._lo, self._scale = float(lo), 1.0 / float(hi - lo)
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        #: Statistics of the last search: iterations, seconds, nodes.
        self.last_search: dict = {}

    # -------------------------------------------------------------- search
    def search(self, state):
        """Run one search from ``state`` (the bot's turn); returns the root's
        children as arrays ``(actions, visits, mean_rewards)``."""
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("ISMCTS searches from a decision node (passing, play or moon "
                             "choice), not a chance or terminal node")
        me = state.current_player()
        P = np.asarray(state.engine_params)
        det = Determinizer(state, me) if self.determinization == "compiled" else None
        bel = pool = None
        root = np.array(state.engine_state)
        now = self._now
        t0 = now()
        rbias = self._root_bias(P, root, me)        # inside the time budget
        if self.belief is not None:
            bel = self.belief.record(P, me, self._belief_model)
            if self.belief.pool and root[E.S_PHASE] in (E.PH_PLAY, E.PH_MOON):
                pool = self._world_pool(state, P, root, det, bel)
                bel = None
            elif not self.belief.weighs_iterations():   # e.g. location while passing
                bel = None
        budget = self.iterations if self.time_limit is None else None
        limit = self.max_nodes or DEFAULT_MAX_NODES
        # Nodes an iteration may add: its expansion and a received-cards
        # observation; with ``opponents='policy'`` also the other players'
        # new edges before it (at most n - 1 in a row: the observer's next
        # decision under a new edge is an expansion).
        per = 2 if self._opp == 0 else int(P[E.P_N]) + 1
        # Start small; grow (doubling) before each chunk to what it may add, up to ``limit``.
        cap = min(limit, per * budget + 64 if budget is not None else _FIRST_NODES, _FIRST_NODES)
        tree = new_tree(cap)
        s = np.empty_like(root)
        legal = np.empty(K + 2, np.int32)
        deck_buf = np.empty(int(P[E.P_NCARDS]), np.int32)
        path = np.empty(4 * int(P[E.P_N]) * int(P[E.P_HAND]) + 8, np.int64)
        code = ROLLOUT_POLICIES[self.rollout]
        done = 0
        gen = None
        while True:
            if budget is not None:
                chunk = min(budget - done, _CHUNK)
                if chunk <= 0:
                    break
            else:
                # At least one iteration, then chunks of 1, 2, 4, ... 512 while time is left.
                if done > 0 and now() - t0 >= self.time_limit:
                    break
                chunk = min(512, max(1, done))
            need = min(limit, int(tree.size[0]) + per * chunk + 2)
            if need > tree.child.shape[0]:
                tree = grown(tree, min(limit, max(need, 2 * tree.child.shape[0])))
            if pool is not None:
                search_pooled(P, root, me, chunk, self.uct_c, self._lo, self._scale, code,
                              self._rng, tree, s, legal, deck_buf, path, pool.pool, pool.cum,
                              pool.m, self._opp)
            elif bel is not None:
                if not search_weighted(P, root, me, chunk, self.uct_c, self._lo, self._scale,
                                       code, self._rng, tree, s, legal, deck_buf, path,
                                       det.record, bel, self._opp):
                    raise RuntimeError("ISMCTS: weighted determinization failed")
            elif det is not None:
                if not search_determinized(P, root, me, chunk, self.uct_c, self._lo,
                                           self._scale, code, self._rng, tree, s, legal,
                                           deck_buf, path, det.record, self._opp, rbias):
                    raise RuntimeError("ISMCTS: determinization failed")
            else:
                if gen is None:
                    gen = np.random.default_rng(int(self._rng[0] & np.uint64(2**62)))
                for _ in range(chunk):
                    d = state.resample_from_infostate(me, gen)
                    s[:] = d.engine_state
                    _iteration(P, s, me, self.uct_c, self._lo, self._scale, code, self._rng,
                               tree, legal, deck_buf, path, int(P[E.P_N]), self._opp)
            done += chunk
        self.last_search = {"iterations": done, "seconds": now() - t0, "clock": self.clock,
                            "nodes": int(tree.size[0]), "capacity": int(tree.child.shape[0])}
        if bel is not None and bel.stats[0] > 0:
            self.last_search["belief_mean_ess"] = float(bel.stats[1] / bel.stats[0])
        if pool is not None:
            self.last_search["belief_pool_ess"] = pool.ess
            self.last_search["belief_pool_kept"] = pool.m
            self.last_search["belief_pool_beta"] = pool.beta
            if self.belief.persist:
                self.last_search["belief_carried"] = getattr(pool, "carried", 0)
            if self.belief.mcmc:
                self.last_search["belief_mcmc_accept"] = pool.accept
                self.last_search["belief_pool_loglik"] = float(np.mean(pool.logw))
        return root_children(tree)

    def _root_bias(self, P, root, me):
        """The root's progressive bias per action (an array indexed by action),
        or None for plain UCB (here). Subclasses may override it (e.g.
        ``ismcts_bias``: a network's policy); used with the compiled
        determinizer and no belief."""
        return None

    def _world_pool(self, state, P, root, det, bel):
        """The root-level world pool of one search (``belief.pool > 0``, play
        and moon phases): the belief's pool (:meth:`solvers.beliefs.BeliefModel.world_pool`,
        chains carried within a hand with ``belief.persist``), or any object
        with its ``pool``, ``cum``, ``m``, ``ess``, ``beta`` and ``accept``.
        Called once per search, inside the time budget. Subclasses may override
        it (e.g. ``research/scripts/oracle_worlds.py`` gives the search the true
        world, an upper bound on what inference can buy)."""
        pool, self._chains = belief_pool(self.belief, self.game, P, root, det.record, bel,
                                         self._rng, loaded=self._belief_model,
                                         chains=self._chains)
        return pool

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        acts, vis, val = self.search(state)
        if len(acts) == 0:      # cannot happen: the first iteration expands a root child
            raise RuntimeError(f"ISMCTS: the search ended without a root child "
                               f"({self.last_search})")
        probs = dict.fromkeys(legal, 0.0)
        if self.final_policy == "normalized_visit_count":
            for a, v in zip(acts, vis):
                probs[int(a)] = v / vis.sum()
            ps = np.array([probs[a] for a in legal])
            action = legal[int(self._choice(ps))]
        else:
            score = vis if self.final_policy == "max_visit_count" else \
                np.where(vis > 0, val, -np.inf)
            best = np.flatnonzero(score == score.max())
            for i in best:
                probs[int(acts[i])] = 1.0 / len(best)
            action = int(acts[best[rand_below(self._rng, len(best))]])
        return list(probs.items()), action

    def _choice(self, ps):
        u = rand_uniform(self._rng) * ps.sum()
        return min(int(np.searchsorted(np.cumsum(ps), u, side="right")), len(ps) - 1)


def belief_pool(belief: BeliefModel, game, P, root, det_record, bel, rng, *, loaded, chains):
    """The root-level world pool of one search by ``belief`` (``belief.pool > 0``,
    play and moon phases; :meth:`solvers.beliefs.BeliefModel.world_pool`) and the
    chains to carry to the next search: with ``belief.persist``, ``chains`` (the
    last search's, or None) are carried forward within a hand and the new ones
    returned; else None. ``loaded``: the belief's learned model."""
    if not belief.persist:
        return belief.world_pool(game, P, root, det_record, bel, rng, loaded), chains
    # The same hand: the observer's dealt hand and the hand number match.
    key = (int(root[E.S_HANDNO]), E.dealt_hand(P, root, bel.me).tobytes())
    prev = chains[1] if chains and chains[0] == key else None
    pool = belief.world_pool(game, P, root, det_record, bel, rng, loaded, previous=prev)
    return pool, (key, pool.pool[:pool.m].copy())
