"""What knowing the hidden cards is worth to ISMCTS: the oracle-world upper bound.

Inference (:mod:`solvers.beliefs._replay`) can at best give the search the true
world. This script measures that bound: it registers the agent
``ismcts_oracle`` (this process only), an :class:`solvers._ismcts.ISMCTSBot`
whose root-level world pool (``_world_pool``) is the **true** engine state of
the game being played: it cheats, and exists only to bound what any belief
could buy. With ``noise=S`` the pool is instead ``worlds`` copies of the true
world, each perturbed by ``S`` random card swaps between two other players
(never a card a seat provably lacks, :func:`spiel_game._hidden.proven_absent`,
nor one the observer knows it holds): worlds centred on the truth with a
chosen share of the hidden cards in the right hand, which separates *how
accurate* the worlds are from *how they were found*. The remaining arguments
are a tournament's (``python -m experiments.tournament``; ``--workers 1``: the
agent is registered in this process only), so the run pairs with a plain run
by ``python research/scripts/field_pair.py``::

    python research/scripts/oracle_worlds.py --agents heuristic \\
        "ismcts_oracle(time_limit=0.05, rollout='heuristic', opponents='policy')" \\
        --lineup 1 0 0 0 0 0 --game '{"players": 6}' --deals 100 --seed 0 --out RUNS

With ``source='posterior'`` no truth is used: the pool is ``worlds`` chains
from the determinizer's prior moved ``steps`` Metropolis-Hastings steps each
under the heuristic model (:func:`solvers.beliefs.world_pool`), a far better
approximation of the posterior than a move's budget allows. Every pool is
built before the move's clock starts (not charged to ``time_limit``): these
runs measure what the worlds are worth, not what they cost.

Agent parameters: ``source`` (``truth``, default, or ``posterior``),
``noise`` (swaps per world, an int in [0, 1000], default 0: the true world
itself), ``worlds`` (pool size with noise or the posterior, an int in
[1, 4096], default 16), ``steps`` (MH steps per chain with the posterior, an
int in [0, 100000], default 200) and every :class:`~solvers._ismcts.ISMCTSBot`
parameter except the ``belief*`` ones. At the end the script prints the
worlds' mean accuracy: the share of the other players' cards that each world
puts in the right hand.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from solvers.beliefs import HeuristicBelief
from solvers._base.bots import AgentParameterError, check_choice, check_int
from solvers._ismcts import ISMCTSBot
from spiel_game import _engine as E
from spiel_game._hidden import hidden_cards
from spiel_game._rng import make_rng_state, rand_below

__all__ = ["OracleISMCTS", "perturb", "world_accuracy", "main"]


@njit(cache=True)
def perturb(p, w, seats, forbid, forced, rng, swaps):
    """``swaps`` random swaps, in place, of one uniform physical card between
    two holders ``seats[i] >= 0`` (the other players, as in
    :class:`spiel_game._hidden.HiddenCards`), keeping hand sizes and suit
    counts; a swap that would give a holder a card type in ``forbid[i]`` or
    move a card of ``forced[i]`` is redrawn (at most 50 tries per swap).
    Returns the number of swaps made."""
    sc = p[E.L_SUITCNT]
    H = seats.shape[0]
    done = 0
    tries = 0
    while done < swaps and tries < 50 * swaps and H >= 2:
        tries += 1
        i1 = np.int64(rand_below(rng, H))
        i2 = np.int64(rand_below(rng, H - 1))
        if i2 >= i1:
            i2 += 1
        q1 = seats[i1]
        q2 = seats[i2]
        if q1 < 0 or q2 < 0:
            continue
        h1 = E.hand(p, w, q1)
        h2 = E.hand(p, w, q2)
        n1 = h1.sum()
        n2 = h2.sum()
        if n1 == 0 or n2 == 0:
            continue
        r = np.int64(rand_below(rng, n1))
        c1 = 0
        while r >= h1[c1]:
            r -= h1[c1]
            c1 += 1
        r = np.int64(rand_below(rng, n2))
        c2 = 0
        while r >= h2[c2]:
            r -= h2[c2]
            c2 += 1
        if c1 == c2 or forbid[i2, c1] or forbid[i1, c2] or forced[i1, c1] > 0 \
                or forced[i2, c2] > 0:
            continue
        h1[c1] -= 1
        h1[c2] += 1
        h2[c2] -= 1
        h2[c1] += 1
        w[sc + q1 * 4 + E.SUIT_OF[c1]] -= 1
        w[sc + q1 * 4 + E.SUIT_OF[c2]] += 1
        w[sc + q2 * 4 + E.SUIT_OF[c2]] -= 1
        w[sc + q2 * 4 + E.SUIT_OF[c1]] += 1
        done += 1
    return done


def world_accuracy(P, world, truth, me: int) -> float:
    """Share of the other players' cards (copies) that ``world`` puts in the
    hand that holds them in ``truth``."""
    num = den = 0
    for q in range(int(P[E.P_N])):
        if q != me:
            h = E.hand(P, truth, q)
            num += int(np.minimum(E.hand(P, world, q), h).sum())
            den += int(h.sum())
    return num / den if den else 1.0


class _Pool:
    """The attributes of :class:`solvers.beliefs._replay.WorldPool` that the search reads."""

    def __init__(self, pool: np.ndarray):
        self.pool = pool
        self.m = pool.shape[0]
        self.cum = np.arange(1, self.m + 1, dtype=np.float64) / self.m
        self.cum[-1] = 1.0
        self.ess = float(self.m)
        self.beta = 1.0
        self.accept = float("nan")
        self.logw = np.zeros(self.m)


class OracleISMCTS(ISMCTSBot):
    """ISMCTS whose worlds are given, built before the move's clock starts.

    ``source='truth'``: the true world (``noise=0``) or ``worlds`` copies of it
    perturbed by ``noise`` swaps each: a cheating upper bound, not an agent
    for play. ``source='posterior'``: no truth is used; ``worlds`` chains
    start from the determinizer's prior and take ``steps`` Metropolis-Hastings
    moves (:func:`solvers.beliefs.world_pool`, heuristic model, epsilon
    0.1): the posterior approximated far better than a move's budget allows,
    at no cost to the search (what inference would buy if it were free).
    ``accuracy``: the mean world accuracy of each search."""

    def __init__(self, game, player: int, seed: int = 0, *, source: str = "truth",
                 noise: int = 0, worlds: int = 16, steps: int = 200, **kw):
        bad = sorted(k for k in kw if k.startswith("belief"))
        if bad:
            raise AgentParameterError(f"ismcts_oracle: {bad[0]} is not allowed (the oracle sets "
                                      f"the worlds); allowed: source, noise, worlds, steps and "
                                      f"ismcts's other parameters")
        super().__init__(game, player, seed, belief=HeuristicBelief(pool=1), **kw)
        self.source = check_choice("ismcts_oracle", "source", source, ("truth", "posterior"))
        self.noise = check_int("ismcts_oracle", "noise", noise, 0, 1000)
        self.worlds = check_int("ismcts_oracle", "worlds", worlds, 1, 4096)
        self.steps = check_int("ismcts_oracle", "steps", steps, 0, 100_000)
        self._noise_rng = make_rng_state(np.uint64(self.seed), 7)
        self._given = None
        self.accuracy: list[float] = []

    def _build(self, state) -> np.ndarray:
        P = np.asarray(state.engine_params)
        truth = np.array(state.engine_state)
        me = state.current_player()
        if self.source == "posterior":
            from solvers.beliefs import WeightedDeterminizer, world_pool
            wd = WeightedDeterminizer(state, me, model="heuristic", epsilon=0.1)
            pool = world_pool(wd, self.worlds, self._noise_rng, min_ess=self.worlds,
                              mcmc=self.steps).pool
        elif self.noise == 0:
            return truth[None, :].copy()
        else:
            hc = hidden_cards(P, truth, me)
            pool = np.ascontiguousarray(np.repeat(truth[None, :], self.worlds, axis=0))
            for i in range(self.worlds):
                perturb(P, pool[i], hc.seats, hc.forbid, hc.forced, self._noise_rng,
                        self.noise)
        self.accuracy.append(float(np.mean([world_accuracy(P, w, truth, me)
                                            for w in pool[:16]])))
        return pool

    def search(self, state):
        s = state.engine_state
        self._given = (self._build(state) if s[E.S_PHASE] in (E.PH_PLAY, E.PH_MOON)
                       else None)
        return super().search(state)

    def _world_pool(self, state, P, root, det, bel):
        if self._given is None:           # called outside search(): build it now
            self._given = self._build(state)
        pool, self._given = self._given, None
        return _Pool(pool)


_BOTS: list[OracleISMCTS] = []


def _factory(game, player, seed=0, **kw):
    bot = OracleISMCTS(game, player, seed, **kw)
    _BOTS.append(bot)
    return bot


def main(argv=None) -> int:
    from experiments.tournament._cli import main as tournament_main
    from solvers._registry import register, unregister
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--workers" in argv and argv[argv.index("--workers") + 1:][:1] != ["1"]:
        print("oracle_worlds: --workers must be 1 (the oracle agent is registered in this "
              "process only)", file=sys.stderr)
        return 2
    register("ismcts_oracle", _factory, replace=True)
    try:
        rc = tournament_main(argv + ([] if "--workers" in argv else ["--workers", "1"]))
    finally:                 # the cheat leaves the registry as it found it
        unregister("ismcts_oracle")
    acc = [a for b in _BOTS for a in b.accuracy]
    if acc:
        print(f"oracle worlds: mean accuracy {np.mean(acc):.3f} over {len(acc)} searches")
    else:
        print("oracle worlds: the true world (accuracy 1)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
