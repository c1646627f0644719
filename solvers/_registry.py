"""Agents by spec: ``make_agent(spec, game, player, seed)`` builds a ``pyspiel.Bot``.

An agent is named by a *spec* string, a name with optional keyword
parameters whose values are Python literals (:mod:`solvers._base.specs`)::

    "random"
    "heuristic"
    "pimc(worlds=16, rollouts=2)"
    "ismcts(iterations=2000, uct_c=0.4, rollout='heuristic')"

The names are the catalog's (:mod:`solvers._catalog`): the built-in agents,
which are this package's entry points in the group ``cancellation_hearts.agents``
(``python -m experiments agents`` lists them with their parameters), agents
registered in this process (:func:`register`) and other packages' plug-ins. A
spec may also name a factory by where it lives, ``"mypkg.bots:make_bot(depth=2)"``
or ``"path/to/bot.py:make_bot"``, and ``make_agent`` takes a factory itself;
``docs/agents.md`` shows every way.

A *factory* is any callable ``factory(game, player, seed, **params) ->
pyspiel.Bot`` (an agent class of :mod:`solvers._base.bots` is one).

**The factory contract.** ``make_agent`` calls ``factory(game, player, seed,
**params)`` with

* ``game``: the pyspiel game (``python_cancellation_hearts``);
* ``player``: the seat, an int in ``[0, game.num_players())``;
* ``seed``: an int in ``[0, 2**63)``, passed on unchanged (tournaments draw
  them below ``2**62``); a negative, too large or non-int seed is rejected by
  ``make_agent`` (:class:`solvers._base.bots.AgentParameterError` naming ``seed``),
  never folded silently. The factory must take all its randomness from it.
  OpenSpiel's bots want smaller seeds (``numpy.random.RandomState`` below
  ``2**32``, the C++ bots a C ``int``): a factory wrapping one passes
  :func:`openspiel_seed` ``(seed)``, a fixed hash of the seed into
  ``[0, 2**31)``, as ``openspiel_ismcts`` and ``openspiel_uniform`` do;
* ``params``: the spec's keywords (Python literals). Only the keyword
  parameters after the first three may be set (or any, if the factory takes
  ``**kwargs``); an unknown keyword is an :class:`AgentSpecError` listing the
  allowed ones.

Errors: a malformed spec, an unknown agent or keyword, or a factory raising
:class:`solvers._base.bots.AgentParameterError` (or :class:`AgentSpecError`) for a
bad parameter value is an :class:`AgentSpecError` (a ``ValueError``) that
says what is wrong and what is allowed. Anything else a factory raises, or a
factory returning something that is not a ``pyspiel.Bot``, is an
:class:`AgentFactoryError` ("factory of agent X failed: ...", a
``RuntimeError``, with the original exception as its cause): a bug in the
factory, not in the spec. Plug-ins should raise ``AgentParameterError`` (the
checkers ``solvers._base.bots.check_int`` etc. do) for bad parameters.

This module is the agents' public face: it also re-exports the catalog's
:func:`register`, :func:`factories` and :func:`factory`, the specs'
:func:`parse_spec`, and :func:`agents`, :func:`describe`,
:func:`effective_params`, :func:`short_label` of :mod:`solvers._agent_info`.
"""

from __future__ import annotations

import pyspiel

from ._agent_info import (AgentInfo, agent_info, agents, describe, effective_params,
                         effective_spec, short_label, short_labels)
from ._base.bots import AgentParameterError, check_seed
from ._catalog import (ENTRY_POINT_GROUP, Factory, factories, factory, factory_name, refresh,
                      register, resolve, unregister)
from ._base.specs import MAX_SPEC_LENGTH, AgentSpec, AgentSpecError, parse_spec

__all__ = ["ENTRY_POINT_GROUP", "unregister", "AgentSpec", "AgentSpecError", "AgentFactoryError",
           "AgentParameterError", "parse_spec", "register", "refresh", "factories", "factory",
           "make_agent", "describe", "openspiel_seed", "MAX_SPEC_LENGTH", "AgentInfo",
           "agent_info", "agents", "effective_params", "effective_spec", "short_label",
           "short_labels"]


class AgentFactoryError(RuntimeError):
    """A factory raised (something other than a parameter error) or did not
    return a ``pyspiel.Bot``: the factory's fault, not the spec's."""


_M64 = (1 << 64) - 1


def openspiel_seed(seed: int) -> int:
    """Fold an agent seed (an int in ``[0, 2**63)``) into ``[0, 2**31)`` for OpenSpiel.

    A fixed hash (the splitmix64 output function of ``seed + 0x9E3779B97F4A7C15``,
    top 31 bits), the same on every platform and numpy version: distinct seeds
    give unrelated OpenSpiel seeds, and the result suits
    ``numpy.random.RandomState``, OpenSpiel's C++ bots (a C ``int``) and
    ``pyspiel`` samplers. Raises :class:`AgentParameterError` for a seed outside
    ``[0, 2**63)``.
    """
    z = (check_seed(seed, "openspiel_seed") + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return (z ^ (z >> 31)) >> 33


def make_agent(spec: str | AgentSpec | Factory, game, player: int, seed: int = 0):
    """Build the agent ``spec`` for seat ``player`` of ``game``, seeded by ``seed``.

    ``spec`` is a spec string, an :class:`AgentSpec`, or a factory
    ``f(game, player, seed)`` (e.g. a function returning one of OpenSpiel's bots).
    ``seed`` is an int in ``[0, 2**63)`` and is passed to the factory unchanged
    (see the module docstring for the factory contract and the errors).
    """
    seed = check_seed(seed, "make_agent")
    r = resolve(spec)
    label = (f"factory {factory_name(r.factory)}" if r.spec is None
             else f"agent {str(r.spec)!r} (factory {factory_name(r.factory)})")
    try:
        bot = r.factory(game, player, seed, **r.call_kwargs)
    except (AgentParameterError, AgentSpecError) as e:
        if r.spec is not None:
            raise AgentSpecError(f"agent spec {str(r.spec)!r}: {e}") from e
        raise
    except Exception as e:
        hint = ""
        if "seed" in str(e).lower():
            hint = (" (agent seeds are ints in [0, 2**63); a factory wrapping an OpenSpiel "
                    "bot must fold them with solvers._registry.openspiel_seed(seed))")
        raise AgentFactoryError(f"{label} failed for player {player!r}, seed {seed}: "
                                f"{type(e).__name__}: {e}{hint}") from e
    if not isinstance(bot, pyspiel.Bot):
        raise AgentFactoryError(f"{label} built a {type(bot).__name__}, not a pyspiel.Bot")
    return bot
