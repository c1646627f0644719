"""Perfect-information Monte Carlo (PIMC), compiled.

For the player to move: draw ``worlds`` determinizations of the hidden cards
(the distribution of ``state.resample_from_infostate``, via
:class:`spiel_game._determinize.Determinizer`); in each world evaluate every legal
action by ``rollouts`` playouts to the end of the game with a compiled policy
(``heuristic`` by default, or ``random``), using the same random numbers for
every action of a world and playout (common random numbers, so the
comparison between actions is paired); play the action with the best mean
reward (ties: the heuristic's choice if among them, else the lowest action id).
Cost per move: ``worlds * rollouts *
(number of legal actions)`` playouts.

Other players' hidden passes during the passing phase are played by the
rollout policy inside each world. Everything random comes from ``seed``.

With a ``belief`` model (:mod:`solvers.beliefs`, the interface ISMCTS takes)
each world is drawn by sampling-importance-resampling from ``worlds``
candidates weighted by the likelihood of the other players' observed decisions
under that opponent model (:mod:`solvers.beliefs._replay`), or, with
``belief.pool > 0`` (in the play and moon phases), by weight from a root-level
pool of candidate worlds weighted once per move (every model: the opponent
models with ``min_ess``, ``mcmc`` and ``persist``, and the card-location
model); no belief (the default, ``'uniform'``) is the plain determinizer,
unchanged.

Parameters are checked when the bot is built (:class:`solvers._base.bots.AgentParameterError`
naming the parameter, the value and the allowed range): ``worlds`` and
``rollouts`` are ints in [1, 10**6] with ``worlds * rollouts <= 10**9``
(:data:`MAX_PLAYOUTS_PER_ACTION`). Memory does not depend on them.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._determinize import Determinizer
from spiel_game._rng import make_rng_state
from spiel_game._simulator import step_apply

from ._base.heuristic import heuristic_policy
from ._base.bots import Agent, AgentParameterError, check_choice, check_int
from ._ismcts import ROLLOUT_POLICIES, belief_pool, rollout
from .beliefs._models import BeliefModel, from_spec
from .beliefs._replay import DEFAULT_EPSILON, make_belief, pool_pick, sir_world

__all__ = ["PIMCBot", "MAX_WORLDS", "MAX_ROLLOUTS", "MAX_PLAYOUTS_PER_ACTION"]

MAX_WORLDS = 10**6
MAX_ROLLOUTS = 10**6
MAX_PLAYOUTS_PER_ACTION = 10**9

K = E.K

# carries: the root and the observer (p, root, me), the legal actions (legal, k), the
# budget (worlds, rollouts), the rollout policy and the rng (code, rng), the work
# arrays and the result (s, s2, lbuf, deck_buf, sums), the determinizer and the belief
# (det, bel) and an optional weighted world pool (pool, cum, m)
@njit(cache=True)
def _pimc_values(p, root, me, legal, k, worlds, rollouts, code, rng, s, s2, lbuf, deck_buf,
                 sums, det, bel, pool=None, cum=None, m=0):
    """``sums[i]``: total reward of ``me`` over every world and playout after
    ``legal[i]``; each world drawn by :func:`solvers.beliefs._replay.sir_world`
    from ``det`` (a :class:`spiel_game._determinize.Determinization`) and the
    belief ``bel`` (with the ``uniform`` model: one plain determinization), or,
    with ``pool``, from the weighted pool ``pool[:m]`` (normalised cumulative
    weights ``cum``, :class:`solvers.beliefs._replay.WorldPool`), with replacement."""
    crn = np.empty(1, np.uint64)
    for _ in range(worlds):
        if pool is not None:
            s[:] = pool[pool_pick(cum, m, rng)]
        elif not sir_world(p, root, s, rng, det, bel):
            return False
        for _r in range(rollouts):
            rng[0] += np.uint64(0x9E3779B97F4A7C15)
            start = rng[0]
            for i in range(k):
                s2[:] = s
                step_apply(p, s2, legal[i])
                crn[0] = start
                rollout(p, s2, code, crn, lbuf, deck_buf)
                sums[i] += E.returns(p, s2)[me]
    return True


class PIMCBot(Agent):
    """PIMC: for each legal move, the mean of rollouts in sampled worlds of the hidden
    cards (see the module docstring).

    Keyword-only arguments with defaults, checked when the bot is built.

    Args:
      worlds: determinizations per move, an int in [1, 10**6].
      rollouts: playouts per world and legal action, an int in [1, 10**6];
        ``worlds * rollouts`` at most 10**9.
      rollout: playout policy, ``heuristic`` or ``random``.
      belief: None (default: no inference, the plain determinizer) or a belief
        model of :mod:`solvers.beliefs` weighting the worlds, as
        :class:`~solvers._ismcts.ISMCTSBot` takes it:
        :class:`~solvers.beliefs.RandomBelief`,
        :class:`~solvers.beliefs.HeuristicBelief`,
        :class:`~solvers.beliefs.NetworkBelief` (SIR per world, or a root-level
        pool with ``pool``, ``min_ess``, ``mcmc``, ``persist``) or
        :class:`~solvers.beliefs.LocationBelief` (a root-level pool). It may
        also be written as an agent spec writes it, one string with the model's
        name and keywords (``belief='heuristic(pool=64, mcmc=2)'``,
        :func:`solvers.beliefs.from_spec`; ``'uniform'``: None).
    """

    NAME = "pimc"

    def __init__(self, game, player: int, seed: int = 0, *, worlds: int = 16,
                 rollouts: int = 2, rollout: str = "heuristic",
                 belief: BeliefModel | str | None = None):
        super().__init__(game, player, seed)
        worlds = check_int("pimc", "worlds", worlds, 1, MAX_WORLDS)
        rollouts = check_int("pimc", "rollouts", rollouts, 1, MAX_ROLLOUTS)
        if worlds * rollouts > MAX_PLAYOUTS_PER_ACTION:
            raise AgentParameterError(
                f"pimc: worlds={worlds} x rollouts={rollouts} = {worlds * rollouts:,} playouts "
                f"per legal action; allowed: at most {MAX_PLAYOUTS_PER_ACTION:,}")
        rollout = check_choice("pimc", "rollout", rollout, tuple(ROLLOUT_POLICIES))
        self.worlds, self.rollouts, self.rollout = worlds, rollouts, rollout
        belief = from_spec(self.NAME, belief)
        #: The belief model (None: no inference).
        self.belief = belief
        #: Its learned model (the network of NetworkBelief, the card-location
        #: model of LocationBelief), else None.
        self._belief_model = None if belief is None else belief.load(self.NAME, game)
        self._chains = None             # (hand key, worlds) of the last pool (persist)
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        self._legal = np.empty(K + 2, np.int32)
        self.last_search: dict = {}

    def action_values(self, state):
        """(legal actions, mean reward of the player to move after each)."""
        me = state.current_player()
        P = np.asarray(state.engine_params)
        legal = np.array(state.legal_actions(), np.int32)
        det = Determinizer(state, me)
        root = det.root
        sums = np.zeros(len(legal))
        t0 = time.perf_counter()
        args = (P, root, me, legal, len(legal), self.worlds, self.rollouts,
                ROLLOUT_POLICIES[self.rollout], self._rng, np.empty_like(root),
                np.empty_like(root), np.empty(K + 2, np.int32),
                np.empty(int(P[E.P_NCARDS]), np.int32), sums, det.record)
        b = self.belief
        if b is None:
            bel = make_belief(P, me, "uniform", 8, DEFAULT_EPSILON, None)
        else:
            bel = b.record(P, me, self._belief_model)
        pool = None
        if b is not None and b.pool and root[E.S_PHASE] in (E.PH_PLAY, E.PH_MOON):
            pool, self._chains = belief_pool(b, state.get_game(), P, root, det.record, bel,
                                             self._rng, loaded=self._belief_model,
                                             chains=self._chains)
            ok = _pimc_values(*args, bel, pool.pool, pool.cum, pool.m)
        else:
            if b is not None and not b.weighs_iterations():    # e.g. location while passing
                bel = make_belief(P, me, "uniform", 8, DEFAULT_EPSILON, None)
            ok = _pimc_values(*args, bel)
        if not ok:
            raise RuntimeError("PIMC: determinization failed")
        self.last_search = {"seconds": time.perf_counter() - t0,
                            "playouts": self.worlds * self.rollouts * len(legal)}
        if bel.stats[0] > 0:
            self.last_search["belief_mean_ess"] = float(bel.stats[1] / bel.stats[0])
        if pool is not None:
            self.last_search["belief_pool_ess"] = pool.ess
            self.last_search["belief_pool_kept"] = pool.m
        return legal, sums / (self.worlds * self.rollouts)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        acts, vals = self.action_values(state)
        ties = acts[vals >= vals.max() - 1e-9]
        # Exact ties are common (deterministic heuristic playouts): prefer the
        # heuristic's own choice among them, else the lowest action id.
        s = np.array(state.engine_state)
        k = E.legal_into(state.engine_params, s, self._legal)
        h = int(heuristic_policy(state.engine_params, s, self._legal, k, self._rng))
        a = h if h in ties else int(ties[0])
        return [(int(b), 1.0 if b == a else 0.0) for b in acts], a
