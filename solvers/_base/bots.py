"""The agent interface and the baseline agents.

**The plug-in interface.** An agent is a :class:`pyspiel.Bot` playing one
seat of one game. Anything built on ``pyspiel.Bot`` plays in our tournaments
(OpenSpiel's own bots included), and every agent here plays in OpenSpiel's
``pyspiel.evaluate_bots``. :class:`Agent` is a convenient base class: a
subclass implements one method,

    _policy_and_action(state) -> (policy, action)

where ``policy`` is a list of ``(action, probability)`` over the legal actions
and ``action`` the one chosen; :class:`Agent` provides ``step``,
``step_with_policy``, ``get_policy``, ``provides_policy`` and the no-op
``restart``/``restart_at``/``inform_action`` that ``evaluate_bots`` calls.
Agents are built by a *factory* ``factory(game, player, seed, **params)``
(see :mod:`solvers._registry`); all randomness comes from ``seed``.

**The seed contract.** A seed is an int in ``[0, 2**63)`` (Python ``int`` or
a numpy integer; not ``bool``): tournaments draw them from
``numpy.random.SeedSequence`` below ``2**62``, and
:func:`solvers._registry.make_agent` passes them on unchanged. A negative or
larger seed is an error (:class:`AgentParameterError` naming ``seed``), never
folded silently. A factory that wraps one of OpenSpiel's bots must not hand
the seed on as it is (``numpy.random.RandomState`` wants seeds below
``2**32``, OpenSpiel's C++ bots a C ``int``): fold it with
:func:`solvers._registry.openspiel_seed`, a fixed hash to ``[0, 2**31)``, as the
built-in ``openspiel_*`` factories do.

**Parameters.** Every keyword of a built-in agent is checked when the agent
is built: a wrong type or a value out of range raises
:class:`AgentParameterError` (a ``ValueError``) naming the agent, the
parameter, the value and what is allowed (helpers :func:`check_int`,
:func:`check_real`, :func:`check_choice`, :func:`check_seed`, usable by
plug-ins too). :func:`solvers._registry.make_agent` reports an
:class:`AgentParameterError` as a spec error; anything else a factory raises
is reported as a failure of that factory.

An agent is called only at its own decision nodes: the passing phase (one
card per decision), trick play, and the moon choice of ``moon="choose"``.

Agents here:

* :class:`RandomBot` (``random``): uniform over the legal actions.
* :class:`HeuristicBot` (``heuristic``): the rule-based player
  :func:`solvers._base.heuristic.heuristic_policy`, the same compiled function the
  batch simulator and the search rollouts use, so its logic lives in one
  place. In words: it passes the most dangerous cards (a Black Maria, then
  the A/K of spades, then high hearts, then other high cards); following
  suit it ducks under the card currently winning, counting cancellation (a
  card whose twin is already in the trick cannot win, and playing the twin
  of the winning card cancels it); void in the suit led it dumps a Black
  Maria, then its highest heart, then A/K of spades while a Black Maria is
  out; it leads low in safe suits, or plays the Aardvark (leads its Black
  Maria when the twin is still out and it holds no higher spade); it takes
  the moon by subtracting.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import pyspiel

from spiel_game import _engine as E
from spiel_game._checks import check_seed as _check_seed
from spiel_game._rng import make_rng_state, rand_below

from .heuristic import heuristic_policy

__all__ = ["Agent", "RandomBot", "HeuristicBot", "AgentParameterError", "SEED_LIMIT",
           "check_int", "check_real", "check_choice", "check_seed", "check_game"]

#: Seeds are ints in ``[0, SEED_LIMIT)`` (see the module docstring).
SEED_LIMIT = 2**63


class AgentParameterError(ValueError):
    """A parameter of an agent (a keyword, the seed, the seat or the game) has
    the wrong type or is out of range; the message names the agent, the
    parameter, the value and what is allowed."""


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_int(agent: str, name: str, value, lo: int, hi: int, *,
              also: tuple = ()) -> int:
    """``value`` as an int in ``[lo, hi]`` (or one of the special values ``also``);
    else :class:`AgentParameterError`."""
    if _is_int(value) and (lo <= value <= hi or value in also):
        return int(value)
    extra = "".join(f" or {a!r}" for a in also)
    what = "out of range" if _is_int(value) else f"a {type(value).__name__}, not an int"
    raise AgentParameterError(f"{agent}: {name}={value!r} is {what}; allowed: an int in "
                              f"[{lo}, {hi}]{extra}")


def check_real(agent: str, name: str, value, lo: float, hi: float, *,
               lo_open: bool = False) -> float:
    """``value`` (an int or float, not bool) as a finite float in ``[lo, hi]``
    (``(lo, hi]`` with ``lo_open``); else :class:`AgentParameterError`."""
    ok_type = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if ok_type:
        v = float(value)
        if math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi:
            return v
    rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}]"
    what = "out of range" if ok_type else f"a {type(value).__name__}, not a number"
    raise AgentParameterError(f"{agent}: {name}={value!r} is {what}; allowed: a finite "
                              f"number in {rng}")


def check_choice(agent: str, name: str, value, allowed) -> str:
    """``value`` if it is one of the strings ``allowed``; else :class:`AgentParameterError`."""
    if isinstance(value, str) and value in allowed:
        return value
    raise AgentParameterError(f"{agent}: {name}={value!r} is not allowed; allowed: "
                              f"{', '.join(repr(a) for a in allowed)}")


#: ``check_seed(seed, agent)``: ``seed`` as an int in ``[0, 2**63)``; else
#: :class:`AgentParameterError` (:func:`spiel_game._checks.check_seed`).
check_seed = functools.partial(_check_seed, error=AgentParameterError)


def check_game(game, player, agent: str = "agent") -> int:
    """``game`` must be a Cancellation Hearts game and ``player`` one of its seats;
    returns the seat as an int."""
    from spiel_game.game import CancellationHeartsGame
    if not isinstance(game, CancellationHeartsGame):
        raise AgentParameterError(
            f"{agent}: game must be a python_cancellation_hearts game (pyspiel.load_game("
            f"'python_cancellation_hearts', ...) or spiel_game.load(...)), got "
            f"{type(game).__name__} {str(game)[:80]!r}")
    return check_int(agent, "player", player, 0, game.num_players() - 1)


class Agent(pyspiel.Bot):
    """Base class of our agents: a seeded ``pyspiel.Bot`` for one seat.

    Subclasses implement ``_policy_and_action(state)``. ``game`` is the
    pyspiel game, ``player`` the seat, ``seed`` the only source of randomness.
    """

    def __init__(self, game, player: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        name = type(self).__name__
        self.player = check_game(game, player, name)
        self.game = game
        self.seed = check_seed(seed, name)

    # The methods pyspiel.evaluate_bots and our tournaments call.
    def step(self, state) -> int:
        return int(self.step_with_policy(state)[1])

    def step_with_policy(self, state):
        if state.is_chance_node() or state.is_terminal():
            return [], pyspiel.INVALID_ACTION
        policy, action = self._policy_and_action(state)
        return policy, int(action)

    def get_policy(self, state):
        return self.step_with_policy(state)[0]

    def provides_policy(self) -> bool:
        return True

    def restart(self) -> None:
        pass

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def _policy_and_action(self, state):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(player={self.player}, seed={self.seed})"


class RandomBot(Agent):
    """Uniform over the legal actions (a splitmix64 stream seeded by ``seed``)."""

    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(game, player, seed)
        self._rng = make_rng_state(np.uint64(self.seed), 0)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal], legal[rand_below(self._rng, len(legal))]


class HeuristicBot(Agent):
    """The compiled rule-based player :func:`solvers._base.heuristic.heuristic_policy`
    (documented in this module's docstring); deterministic."""

    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(game, player, seed)
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        self._legal = np.empty(E.K + 2, np.int32)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        P = state.engine_params
        s = np.array(state.engine_state)
        k = E.legal_into(P, s, self._legal)
        a = int(heuristic_policy(P, s, self._legal, k, self._rng))
        return [(b, 1.0 if b == a else 0.0) for b in legal], a
