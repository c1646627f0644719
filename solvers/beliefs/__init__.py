"""Beliefs: where the hidden cards probably are, given what the others did.

A search draws the hidden cards from the rules' prior
(:class:`spiel_game.Determinizer`); a *belief* reweighs those
worlds. :mod:`solvers.beliefs._models` holds the plug-in objects an agent
takes (``ISMCTSBot(..., belief=HeuristicBelief(pool=64))``; an agent spec writes
``belief='heuristic(pool=64)'``, :func:`~solvers.beliefs._models.from_spec`);
:mod:`solvers.beliefs._likelihood` weighs a world by replaying the others'
decisions under an opponent model; :mod:`solvers.beliefs._replay` draws the
weighted worlds (SIR, world pools: :class:`WeightedDeterminizer`,
:func:`world_pool`); :mod:`solvers.beliefs._mcmc` moves them
(Metropolis-Hastings, chains carried between decisions);
:mod:`solvers.beliefs._location` is the learned card-location model.
"""

from ._models import (BELIEFS, BeliefModel, HeuristicBelief, LocationBelief, NetworkBelief,
                     OpponentBelief, RandomBelief, from_spec)
from ._replay import WeightedDeterminizer, WorldPool

__all__ = ["BELIEFS", "BeliefModel", "OpponentBelief", "RandomBelief", "HeuristicBelief",
           "NetworkBelief", "LocationBelief", "from_spec", "WeightedDeterminizer", "WorldPool",
           "world_pool"]


def world_pool(weighted: WeightedDeterminizer, size: int, rng, *, min_ess: float = 0.0,
               mcmc: int = 0) -> WorldPool:
    """The :class:`WorldPool` of ``size`` worlds a search with
    ``belief='<model>(pool=size, mcmc=mcmc)'`` plays at the decision of
    ``weighted`` (a :class:`WeightedDeterminizer`: its state, player, opponent
    model and ``epsilon``): candidates drawn by the plain determinizer
    (:class:`spiel_game.Determinizer`), weighted by the likelihood of the others'
    observed decisions, then, with ``mcmc`` > 0, resampled and moved ``mcmc``
    Metropolis-Hastings steps each. ``rng``: a ``uint64[1]`` stream
    (:func:`spiel_game.make_rng_state`). The result's ``pool[:m]`` are the
    worlds (engine states: :func:`spiel_game.seat_hands` reads them), ``logw``
    their log-likelihoods, ``weights`` / ``ess`` / ``accept`` as
    :class:`WorldPool` says. ``min_ess`` tempers the weights."""
    return WorldPool(weighted.P, weighted.root, weighted.det.record, weighted.belief, size, rng,
                     min_ess, mcmc)
