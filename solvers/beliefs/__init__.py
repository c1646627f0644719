"""Beliefs: where the hidden cards probably are, given what the others did.

A search draws the hidden cards from the rules' prior
(:class:`spiel_game.determinize.Determinizer`); a *belief* reweighs those
worlds. :mod:`solvers.beliefs.models` holds the plug-in objects an agent
takes (``ISMCTSBot(..., belief=HeuristicBelief(pool=64))``; an agent spec writes
``belief='heuristic(pool=64)'``, :func:`~solvers.beliefs.models.from_spec`);
:mod:`solvers.beliefs.likelihood` weighs a world by replaying the others'
decisions under an opponent model; :mod:`solvers.beliefs.replay` draws the
weighted worlds (SIR, world pools); :mod:`solvers.beliefs.mcmc` moves them
(Metropolis-Hastings, chains carried between decisions);
:mod:`solvers.beliefs.location` is the learned card-location model.
"""

from .models import (BELIEFS, BeliefModel, HeuristicBelief, LocationBelief, NetworkBelief,
                     OpponentBelief, RandomBelief, from_spec)

__all__ = ["BELIEFS", "BeliefModel", "OpponentBelief", "RandomBelief", "HeuristicBelief",
           "NetworkBelief", "LocationBelief", "from_spec"]
