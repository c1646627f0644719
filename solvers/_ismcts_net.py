"""ISMCTS guided by the policy-value network (PUCT prior, value at the leaves), compiled.

The search of :mod:`solvers._ismcts` (its compiled descent, with the network as
the leaf evaluator: :class:`solvers._ismcts.NetLeaf`; single-observer ISMCTS over
determinizations drawn by its :class:`~spiel_game._determinize.Determinizer`, the same
tree arrays, hidden passes of the others played by the rollout policy,
received cards as observation children), with AlphaZero-style selection and
evaluation instead of UCB and random expansion:

* **expansion and evaluation**: when the walk reaches a node whose legal
  actions (under this determinization) are not all children yet, the network
  is evaluated once on the determinized state, seen by the player to move
  there (:func:`solvers.net._inference.net_eval`, compiled, inside the same
  loop): every missing legal action becomes a child with its policy
  probability as its prior (mixed with uniform by ``prior_mix``: ``(1 - mix) *
  p + mix / #legal``), and the iteration ends at this leaf. Its value is
  the network's value of every seat (``value_weight = 1``, default), or
  ``value_weight * network + (1 - value_weight) * rollout`` with a compiled
  rollout from the leaf (``rollout='heuristic'`` or ``'random'``); ``0`` is
  plain rollouts with the network only as the prior.
* **selection** (subset-armed PUCT): among the children legal in this
  determinization, maximise ``Q + c_puct * prior * sqrt(availability) /
  (1 + visits)``, where ``Q`` is the mean scaled reward of the player who
  chooses (an unvisited child takes the visit-weighted mean of its visited
  siblings, or the network's value of the node when none is visited) and the
  availability counts the selections the child was legal in.
* **back-up**: the leaf's scaled returns of every seat along the path, each
  node crediting the player who chose its edge (terminal states: the real
  returns).

One network call per iteration (one state, microseconds; batching is not
needed inside the compiled loop). The final move: most visits (ties at
random), or ``normalized_visit_count`` (sample by visits). Statistics of the
last search are in ``last_search``.
"""

from __future__ import annotations


import numpy as np

from spiel_game import _engine as E
from spiel_game._determinize import Determinizer
from spiel_game._rng import make_rng_state, rand_below, rand_uniform

from ._base.bots import Agent, check_choice, check_int, check_real
from ._ismcts import (CLOCKS, DEFAULT_MAX_NODES, MAX_NODES_LIMIT, MIN_NODES, ROLLOUT_POLICIES,
                      ISMCTSBot, NetLeaf, check_budget, grown, new_tree, root_children,
                      search_determinized)
from .net._agents import evaluator_for
from .net._inference import net_eval

__all__ = ["NetISMCTSBot", "BiasISMCTSBot", "FINAL_POLICIES", "MAX_C_PUCT", "MAX_BIAS"]

K = E.K
FINAL_POLICIES = ("max_visit_count", "normalized_visit_count")
MAX_C_PUCT = 1e6
MAX_BIAS = 1e6
_CHUNK = 1024


class NetISMCTSBot(Agent):
    """ISMCTS with the network (module docstring); registered as ``ismcts_net``.

    Keyword-only arguments, checked when the bot is built.

    Args:
      checkpoint: path of a network checkpoint (``.npz``) covering this game.
      iterations: iterations per move, an int in [1, 10**9] (the budget unless
        ``time_limit`` is set).
      time_limit: seconds per move, a number in (0, 3600], or None for an
        iteration budget. At least one iteration runs; then chunks of 1, 2, 4, ...
        64 iterations while time is left (a move may overrun by one chunk).
      clock: what ``time_limit`` counts: ``wall`` (default) or ``cpu`` (the
        searching thread's CPU seconds), as in :class:`~solvers._ismcts.ISMCTSBot`.
      c_puct: PUCT exploration constant (rewards scaled to [0, 1]), in [0, 10**6].
      prior_mix: share of the uniform distribution in each node's prior, in [0, 1]
        (0: the network's policy; a sharp policy otherwise leaves its unlikely
        moves unexplored).
      value_weight: weight of the network's value at a leaf, in [0, 1]; the rest
        is a rollout's return (0: rollouts only, the network as the prior).
      rollout: ``heuristic`` or ``random``: the rollout policy (for
        ``value_weight < 1``) and the policy of the others' hidden passes.
      final_policy: ``max_visit_count`` or ``normalized_visit_count``.
      max_nodes: tree size limit, an int in [64, 2**28], or None (2**24).
    """

    def __init__(self, game, player: int, seed: int = 0, *, checkpoint: str | None = None,
                 iterations: int = 200, time_limit: float | None = None,
                 c_puct: float = 1.0, prior_mix: float = 0.0, value_weight: float = 1.0,
                 rollout: str = "heuristic", final_policy: str = "max_visit_count",
                 max_nodes: int | None = None, clock: str = "wall"):
        super().__init__(game, player, seed)
        a = "ismcts_net"
        self.evaluator = evaluator_for(a, checkpoint, game)
        self.ng = self.evaluator.game_arrays(game)
        self.iterations, self.time_limit, self.clock = check_budget(a, iterations,
                                                                    time_limit, clock)
        self._now = CLOCKS[self.clock]
        self.c_puct = check_real(a, "c_puct", c_puct, 0.0, MAX_C_PUCT)
        self.prior_mix = check_real(a, "prior_mix", prior_mix, 0.0, 1.0)
        self.value_weight = check_real(a, "value_weight", value_weight, 0.0, 1.0)
        self.rollout = check_choice(a, "rollout", rollout, tuple(ROLLOUT_POLICIES))
        self.final_policy = check_choice(a, "final_policy", final_policy, FINAL_POLICIES)
        self.max_nodes = (None if max_nodes is None else
                          check_int(a, "max_nodes", max_nodes, MIN_NODES, MAX_NODES_LIMIT))
        lo, hi = game.min_utility(), game.max_utility()
        self._lo, self._scale = float(lo), 1.0 / float(hi - lo)
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        self.last_search: dict = {}

    def search(self, state):
        """One search from ``state`` (a decision node); returns the root's children as
        ``(actions, visits, mean_rewards, priors)``, sorted by action."""
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("ismcts_net searches from a decision node, not a chance or "
                             "terminal node")
        me = state.current_player()
        P = np.asarray(state.engine_params)
        det = Determinizer(state, me)
        root = np.array(state.engine_state)
        limit = self.max_nodes or DEFAULT_MAX_NODES
        # An iteration adds at most K + 1 nodes (a full expansion and an observation).
        cap = min(limit, 4096)
        tree = new_tree(cap)
        prior = np.zeros(cap)
        nval = np.zeros(cap)
        legal = np.empty(K + 2, np.int32)
        deck_buf = np.empty(int(P[E.P_NCARDS]), np.int32)
        path = np.empty(4 * int(P[E.P_N]) * int(P[E.P_HAND]) + 8, np.int64)
        probs = np.zeros(self.evaluator.layout.num_actions)
        value = np.zeros(self.evaluator.layout.max_players)
        vabs = np.zeros(int(P[E.P_N]))
        s = np.empty_like(root)
        code = ROLLOUT_POLICIES[self.rollout]
        now = self._now
        t0 = now()
        done = 0
        while True:
            if self.time_limit is None:
                chunk = min(self.iterations - done, _CHUNK)
                if chunk <= 0:
                    break
            elif done > 0 and now() - t0 >= self.time_limit:
                break
            else:
                chunk = min(64, max(1, done))
            need = min(limit, int(tree.size[0]) + (K + 2) * chunk + 2)
            if need > tree.child.shape[0]:
                new = min(limit, max(need, 2 * tree.child.shape[0]))
                extra = new - tree.child.shape[0]
                tree = grown(tree, new)
                prior = np.concatenate([prior, np.zeros(extra)])
                nval = np.concatenate([nval, np.zeros(extra)])
            leaf = NetLeaf(self.evaluator.weights, self.ng, prior, nval, probs, value, vabs,
                           self.value_weight, self.prior_mix)
            if not search_determinized(P, root, me, chunk, self.c_puct, self._lo, self._scale,
                                       code, self._rng, tree, s, legal, deck_buf, path,
                                       det.record, 0, None, leaf):
                raise RuntimeError("ismcts_net: determinization failed")
            done += chunk
        self.last_search = {"iterations": done, "seconds": now() - t0, "clock": self.clock,
                            "nodes": int(tree.size[0])}
        return root_children(tree, prior)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        acts, vis, _, pri = self.search(state)
        probs = dict.fromkeys(legal, 0.0)
        score = vis if vis.sum() > 0 else pri        # one iteration: the prior decides
        if self.final_policy == "normalized_visit_count":
            ps = score / score.sum()
            for a, q in zip(acts, ps):
                probs[int(a)] = float(q)
            u = rand_uniform(self._rng)
            i = min(int(np.searchsorted(np.cumsum(ps), u, side="right")), len(ps) - 1)
            return list(probs.items()), int(acts[i])
        best = np.flatnonzero(score == score.max())
        for i in best:
            probs[int(acts[i])] = 1.0 / len(best)
        return list(probs.items()), int(acts[best[rand_below(self._rng, len(best))]])


class BiasISMCTSBot(ISMCTSBot):
    """Plain ISMCTS with the network's policy as progressive bias at the root;
    registered as ``ismcts_bias``.

    The search is :class:`solvers._ismcts.ISMCTSBot`'s (UCB everywhere, random
    expansion, rollouts), except that a visited child of the root scores
    ``bias * p(a) / (1 + visits)`` more, ``p`` being the network's policy at the
    root (progressive bias, Chaslot et al. 2008). The network is evaluated once
    per move, inside the time budget, so the search keeps almost all of plain
    ISMCTS's iterations (``ismcts_net`` evaluates it at every expansion); the
    bias fades as a move's visits grow, so rollouts decide among well-visited
    moves. ``bias=0`` is plain ISMCTS with the same seed, move for move.

    Keyword-only arguments, checked when the bot is built.

    Args:
      checkpoint: as ``network``'s: a checkpoint's path (``.npz``) covering this
        game, a shipped model's name, or None (the shipped model made for the game).
      bias: the weight of the network's policy, a number in [0, 10**6] (rewards
        are scaled to [0, 1]).
      iterations, time_limit, uct_c, final_policy, rollout, max_nodes, opponents,
        clock: :class:`~solvers._ismcts.ISMCTSBot`'s, with its defaults. It takes no
        belief and no ``determinization``: the search uses the compiled
        determinizer without inference.
    """

    NAME = "ismcts_bias"

    def __init__(self, game, player: int, seed: int = 0, *, checkpoint: str | None = None,
                 bias: float = 1.0, iterations: int = 1000, time_limit: float | None = None,
                 uct_c: float = 0.4, final_policy: str = "max_visit_count",
                 rollout: str = "random", max_nodes: int | None = None,
                 opponents: str = "search", clock: str = "wall"):
        a = self.NAME
        super().__init__(game, player, seed, iterations=iterations, time_limit=time_limit,
                         uct_c=uct_c, final_policy=final_policy, rollout=rollout,
                         max_nodes=max_nodes, opponents=opponents, clock=clock)
        self.evaluator = evaluator_for(a, checkpoint, game)
        self.ng = self.evaluator.game_arrays(game)
        self.bias = check_real(a, "bias", bias, 0.0, MAX_BIAS)
        self._probs = np.zeros(self.evaluator.layout.num_actions)
        self._value = np.zeros(self.evaluator.layout.max_players)

    def _root_bias(self, P, root, me):
        net_eval(self.evaluator.weights, self.ng, P, root, me, self._probs, self._value)
        return self.bias * self._probs
