"""Belief models: the one object an ISMCTS search takes to weigh its worlds.

``ISMCTSBot(game, player, seed, belief=HeuristicBelief(pool=64, min_ess=16))``
searches worlds weighted by what the other players did; ``belief=None`` (the
default) is the plain determinizer (no inference). The models:

* :class:`RandomBelief`, :class:`HeuristicBelief`, :class:`NetworkBelief`:
  worlds weighted by the likelihood of the others' observed decisions under
  an opponent model (uniform among legal actions, the softened rule-based
  player, a learned policy network; :mod:`solvers.beliefs._replay`). Each
  iteration draws its world by sampling-importance-resampling from
  ``worlds`` candidates, or, with ``pool > 0``, from a pool of ``pool``
  candidates weighed once per move (:class:`~solvers.beliefs._replay.WorldPool`),
  tempered to an effective size of at least ``min_ess``, moved ``mcmc``
  Metropolis-Hastings steps, and, with ``persist``, carried from one decision
  to the next within a hand.
* :class:`LocationBelief`: a learned card-location model tilts a root-level
  pool of ``pool`` prior worlds (:class:`~solvers.beliefs._location.LocationPool`).

Every parameter is checked when the object is built
(:class:`solvers._base.bots.AgentParameterError` naming the model, the parameter
and what is allowed). An agent spec writes the same settings as one
``belief`` value, the model's name with its keywords written as an agent's
are, ``ismcts(belief='heuristic(pool=64, min_ess=16)')``; the catalog's
resolver turns it into the object (:func:`from_spec`).
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import ClassVar

import numpy as np

from spiel_game._checks import check_bool

from .._base.bots import AgentParameterError, check_choice, check_int, check_real
from .._base.specs import AgentSpecError, parse_spec
from ._replay import (DEFAULT_EPSILON, MAX_BELIEF_POOL, MAX_BELIEF_WORLDS, Belief, WorldPool,
                     check_network, make_belief)

__all__ = ["BeliefModel", "OpponentBelief", "RandomBelief", "HeuristicBelief", "NetworkBelief",
           "LocationBelief", "BELIEFS", "SPEC_FORM", "from_spec", "flat_keywords_hint",
           "MAX_MCMC"]

#: The most Metropolis-Hastings steps per world and move (``mcmc``).
MAX_MCMC = 10_000


@dataclasses.dataclass(frozen=True)
class BeliefModel:
    """What a search asks of a belief (the base of every model).

    ``name``: the model's name in an agent spec (``belief='heuristic'``).
    Attributes every model has: ``worlds`` and ``epsilon`` (per-iteration
    SIR; unused by pool-only models), ``pool`` (0: weigh every iteration's
    candidates; else the root-level pool size), ``min_ess``, ``mcmc`` and
    ``persist`` (see :class:`OpponentBelief`)."""

    name: ClassVar[str] = ""
    worlds: int = 8
    epsilon: float = DEFAULT_EPSILON
    pool: int = 0
    min_ess: float = 0.0
    mcmc: int = 0
    persist: bool = False

    def _check(self) -> None:
        a = type(self).__name__
        object.__setattr__(self, "worlds", check_int(a, "worlds", self.worlds, 1,
                                                     MAX_BELIEF_WORLDS))
        object.__setattr__(self, "epsilon", check_real(a, "epsilon", self.epsilon, 0.0, 1.0,
                                                       lo_open=True))
        object.__setattr__(self, "pool", check_int(a, "pool", self.pool, 0, MAX_BELIEF_POOL))
        object.__setattr__(self, "min_ess", check_real(a, "min_ess", self.min_ess, 0.0,
                                                       float(MAX_BELIEF_POOL)))
        object.__setattr__(self, "mcmc", check_int(a, "mcmc", self.mcmc, 0, MAX_MCMC))
        object.__setattr__(self, "persist", check_bool("persist", self.persist, a,
                                                       error=AgentParameterError))

    def __post_init__(self):
        self._check()

    def load(self, agent: str, game):
        """The learned model this belief needs for ``game`` (checked to cover
        it), or None; :class:`~solvers._base.bots.AgentParameterError` naming
        ``agent`` when it is missing or does not fit."""
        return None

    def record(self, P, me: int, loaded) -> Belief:
        """The compiled :class:`~solvers.beliefs._replay.Belief` record of one
        search by seat ``me`` under rules ``P``; ``loaded``: :meth:`load`'s result."""
        return make_belief(P, me, self.name, self.worlds, self.epsilon, loaded)

    def weighs_iterations(self) -> bool:
        """Whether a search without a pool (e.g. while passing) weighs every
        iteration's world under this model (True), or draws plain worlds."""
        return True

    def world_pool(self, game, P, root, det_record, bel: Belief, rng, loaded,
                   previous: np.ndarray | None = None):
        """The root-level pool of one search (``pool > 0``, play and moon
        phases): an object with ``pool``, ``cum``, ``m``, ``ess``, ``beta``,
        ``accept``, ``logw`` and ``carried``. ``previous``: the worlds of the
        last decision of the same hand (``persist``), else None."""
        if previous is None:
            return WorldPool(P, root, det_record, bel, self.pool, rng, self.min_ess, self.mcmc)
        return WorldPool(P, root, det_record, bel, self.pool, rng, mcmc=self.mcmc,
                         previous=previous)


@dataclasses.dataclass(frozen=True)
class OpponentBelief(BeliefModel):
    """Worlds weighted by the likelihood of the other players' observed
    decisions under an opponent model (:mod:`solvers.beliefs._replay`).

    Args (keyword, checked when built):
      worlds: candidate worlds per iteration (sampling-importance-resampling),
        an int in [1, 10**6]; unused with ``pool``.
      epsilon: softening of the ``heuristic`` and ``network`` models, a number
        in (0, 1].
      pool: 0 (default) weighs ``worlds`` candidates at every iteration; an int
        in [1, 65536] weighs that many candidates once per move and draws every
        iteration's world from them by weight (:class:`~solvers.beliefs._replay.WorldPool`).
      min_ess: with ``pool``, temper the weights so that their effective sample
        size is at least this many worlds, a number in [0, 65536] (0: untempered).
      mcmc: with ``pool``, move every world this many Metropolis-Hastings steps
        towards the posterior, an int in [0, 10000].
      persist: with ``pool``, carry the pool's worlds from one decision to the
        next within a hand (persistent chains), moved ``mcmc`` more steps each time.
    """


@dataclasses.dataclass(frozen=True)
class RandomBelief(OpponentBelief):
    """The others pick uniformly among their legal actions (see :class:`OpponentBelief`)."""

    name: ClassVar[str] = "random"


@dataclasses.dataclass(frozen=True)
class HeuristicBelief(OpponentBelief):
    """The others play the rule-based heuristic, softened by ``epsilon``
    (see :class:`OpponentBelief`)."""

    name: ClassVar[str] = "heuristic"


@dataclasses.dataclass(frozen=True)
class NetworkBelief(OpponentBelief):
    """The others play a learned policy network, softened by ``epsilon``:
    ``checkpoint`` (required) is the path of a network checkpoint covering the
    game (:mod:`solvers.net`); the other arguments as :class:`OpponentBelief`."""

    name: ClassVar[str] = "network"
    checkpoint: str | None = None

    def load(self, agent: str, game):
        return check_network(agent, self.name, self.checkpoint, game)


@dataclasses.dataclass(frozen=True)
class LocationBelief(BeliefModel):
    """A learned card-location model tilting a root-level pool of prior worlds
    (:class:`solvers.beliefs._location.LocationPool`).

    Args: ``checkpoint`` (required), a card-location model covering the game
    (from ``python research/scripts/card_location.py train``); ``pool``, the
    pool size, an int in [1, 65536]; ``min_ess`` as :class:`OpponentBelief`.
    ``mcmc`` and ``persist`` are not allowed (they replay the hand under an
    opponent model); while passing the search draws plain worlds."""

    name: ClassVar[str] = "location"
    checkpoint: str | None = None

    def _check(self) -> None:
        super()._check()
        a = type(self).__name__
        bad = [f"{k}={v!r}" for k, v, ok in (("pool", self.pool, self.pool > 0),
                                            ("mcmc", self.mcmc, self.mcmc == 0),
                                            ("persist", self.persist, not self.persist))
               if not ok]
        if bad:
            raise AgentParameterError(
                f"{a}: {', '.join(bad)} is not allowed; allowed: pool >= 1 (the model weighs "
                f"a root-level pool), no mcmc and no persist (they move worlds by replaying "
                f"the hand under an opponent model)")

    def load(self, agent: str, game):
        from ._location import check_location
        return check_location(agent, self.checkpoint, game)

    def record(self, P, me: int, loaded) -> Belief:
        return make_belief(P, me, "uniform", self.worlds, self.epsilon, None)

    def weighs_iterations(self) -> bool:
        return False

    def world_pool(self, game, P, root, det_record, bel: Belief, rng, loaded, previous=None):
        from ._location import LocationPool
        return LocationPool(loaded, game, P, root, det_record, bel, self.pool, rng,
                            min_ess=self.min_ess)


#: The belief models by their name in an agent spec (``None``: ``'uniform'``).
BELIEFS: dict[str, type[BeliefModel] | None] = {
    "uniform": None, "random": RandomBelief, "heuristic": HeuristicBelief,
    "network": NetworkBelief, "location": LocationBelief}


#: The spec form of a belief, for messages.
SPEC_FORM = ("belief='NAME' or belief='NAME(key=value, ...)', e.g. "
             "belief='heuristic(pool=64, mcmc=2)'")


def from_spec(agent: str, value) -> BeliefModel | None:
    """The belief model of an agent spec's ``belief`` value, or None for no inference.

    ``value``: None, a :class:`BeliefModel` (returned as is), or a string naming
    a model of :data:`BELIEFS` with its keywords written as an agent's are,
    ``'heuristic'``, ``'heuristic(pool=64, min_ess=16, mcmc=2)'``,
    ``'network(checkpoint=PATH)'`` (``'uniform'``: None). Errors name ``agent``
    and say what is allowed (:class:`~solvers._base.bots.AgentParameterError`)."""
    if value is None or isinstance(value, BeliefModel):
        return value
    if not isinstance(value, str):
        raise AgentParameterError(f"{agent}: belief={value!r} is not allowed; allowed: None, "
                                  f"a belief model of solvers.beliefs (e.g. "
                                  f"HeuristicBelief(pool=64)) or its spec, {SPEC_FORM}")
    try:
        sp = parse_spec(value)
    except AgentSpecError as e:
        raise AgentParameterError(f"{agent}: belief={value!r}: {e}; allowed: "
                                  f"{SPEC_FORM}") from None
    name = check_choice(agent, "belief", sp.name, tuple(BELIEFS))
    cls = BELIEFS[name]
    if cls is None:
        if sp.params:
            raise AgentParameterError(f"{agent}: belief={value!r}: 'uniform' (no inference) "
                                      f"takes no keywords")
        return None
    fields = [f.name for f in dataclasses.fields(cls)]
    for k, _ in sp.params:
        if k not in fields:
            close = difflib.get_close_matches(k, fields, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise AgentParameterError(f"{agent}: belief={value!r}: {name!r} has no keyword "
                                      f"{k!r}{hint}; its keywords: {', '.join(fields)}")
    try:
        return cls(**sp.kwargs)
    except AgentParameterError as e:
        raise AgentParameterError(f"{agent}: belief={value!r}: {e}") from None


def flat_keywords_hint(agent: str, params: dict) -> str | None:
    """A one-line refusal of the former flat belief keywords (``belief='heuristic',
    belief_pool=64``) among ``params``, giving the spec's ``belief`` value in
    the one form (``belief='heuristic(pool=64)'``); None when there are none."""
    flat = [k for k in params if k.startswith("belief_")]
    if not flat:
        return None
    inner = ", ".join(f"{k[len('belief_'):]}={params[k]!r}" for k in flat)
    name = params.get("belief", "heuristic")
    name = name if isinstance(name, str) and name.isidentifier() else "heuristic"
    return (f"agent {agent!r} has no parameter {flat[0]!r}: a belief's options go inside "
            f"its one value (did you mean belief={f'{name}({inner})'!r}?)")
