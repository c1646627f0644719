"""The agent registry: agents by name, with keyword parameters, and plug-ins.

An agent is named by a *spec* string, a name with optional keyword
parameters whose values are Python literals::

    "random"
    "heuristic"
    "pimc(worlds=16, rollouts=2)"
    "ismcts(iterations=2000, uct_c=0.4, rollout='heuristic')"

Specs are parsed with :mod:`ast` (values by ``ast.literal_eval``; nothing is
executed); a wrong spec raises :class:`AgentSpecError` saying what is wrong.
``make_agent(spec, game, player, seed)`` builds a ``pyspiel.Bot``.

A *factory* is any callable ``factory(game, player, seed, **params) ->
pyspiel.Bot`` (an agent class of :mod:`solvers.bots` is one). Built in (the
catalog :data:`solvers.catalog.BUILTIN_AGENTS`, also the package's entry points):

====================== ==========================================================
``random``             :class:`solvers.bots.RandomBot`
``heuristic``          :class:`solvers.bots.HeuristicBot`
``pimc``               :class:`solvers.pimc.PIMCBot`
``ismcts``             :class:`solvers.ismcts.ISMCTSBot` (:func:`solvers.ismcts.ismcts_agent`)
``openspiel_ismcts``   OpenSpiel's Python ``ISMCTSBot`` with random rollouts
``openspiel_uniform``  OpenSpiel's ``PolicyBot`` over ``UniformRandomPolicy``
``dqn``                OpenSpiel's PyTorch DQN, a checkpoint of :mod:`solvers.openspiel_rl`
``nfsp``               OpenSpiel's PyTorch NFSP, a checkpoint of :mod:`solvers.openspiel_rl`
``network``            :class:`solvers.net.agents.NetworkBot` (policy network; ``checkpoint=``)
``ismcts_net``         :class:`solvers.net.search.NetISMCTSBot` (ISMCTS with the network)
``ismcts_bias``        :class:`solvers.net.search.BiasISMCTSBot` (ISMCTS, network bias at the root)
``convention``         :func:`solvers.abr.convention_agent` (a passing convention, then heuristic)
``abr``                :class:`solvers.abr.ABRBot` (approximate best response to a known target)
``xinxin``             :class:`solvers.xinxin.XinxinBot` (Sturtevant's xinxin, classic game;
                       build it first: ``make xinxin XINXIN_SRC=...``, see ``docs/xinxin.md``)
====================== ==========================================================

**The factory contract.** ``make_agent`` calls ``factory(game, player, seed,
**params)`` with

* ``game``: the pyspiel game (``python_cancellation_hearts``);
* ``player``: the seat, an int in ``[0, game.num_players())``;
* ``seed``: an int in ``[0, 2**63)``, passed on unchanged (tournaments draw
  them below ``2**62``); a negative, too large or non-int seed is rejected by
  ``make_agent`` (:class:`solvers.bots.AgentParameterError` naming ``seed``),
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
:class:`solvers.bots.AgentParameterError` (or :class:`AgentSpecError`) for a
bad parameter value is an :class:`AgentSpecError` (a ``ValueError``) that
says what is wrong and what is allowed. Anything else a factory raises, or a
factory returning something that is not a ``pyspiel.Bot``, is an
:class:`AgentFactoryError` ("factory of agent X failed: ...", a
``RuntimeError``, with the original exception as its cause): a bug in the
factory, not in the spec. Plug-ins should raise ``AgentParameterError`` (the
checkers ``solvers.bots.check_int`` etc. do) for bad parameters.

**Plug-ins.** A third-party package adds agents through the entry-point group
``cancellation_hearts.agents``; each entry point names a factory. In its
``pyproject.toml``::

    [project.entry-points."cancellation_hearts.agents"]
    lowest = "my_agents:make_lowest_bot"

Once the package is installed, ``make_agent("lowest", ...)`` and every
tournament find it (``tests/example_agent_pkg`` is a complete example).
Built-in names take precedence over plug-ins. A plug-in that fails to load
(its import raises anything, ``SystemExit`` included, or it names no
callable, or its name cannot be written in a spec) is skipped with a
``RuntimeWarning`` naming the entry point and its package, once per process;
the built-in agents and the other plug-ins still load. Only
``KeyboardInterrupt`` propagates.

**Any module or file, without packaging.** A spec may name a factory (or a
``pyspiel.Bot`` subclass taking ``(game, player, seed, **params)``) by where
it lives, ``TARGET:ATTRIBUTE(key=literal, ...)``::

    "mypkg.mymod:make_bot(depth=2)"     # an importable module (on sys.path)
    "path/to/bot.py:make_bot"           # a Python file (relative to the working folder)
    "bots/greedy.py:GreedyBot(k=3)"     # a pyspiel.Bot subclass

A target ending in ``.py`` or containing a path separator is a file, imported
by path under a module name unique to its resolved path (so two ``bot.py``
files never collide), with the file's folder first on ``sys.path`` while it is
imported (and removed after), so the file may import a module beside it
(``import helper`` for ``path/to/helper.py``; imports made later, inside
functions, do not see the folder); anything else is a dotted module name. The
parameters
are literals, as for every spec, and get the same checks (unknown keywords,
parameter errors, the seed). A missing module or file, a missing attribute,
an attribute that is not callable, or a signature that cannot be called as
``f(game, player, seed, **params)`` is an :class:`AgentSpecError` saying
which; an error raised while importing the module is an
:class:`AgentSpecError` too, with the original exception as its cause.

**Discovering agents.** :func:`agents` lists every agent (built-in,
registered, plug-in) as :class:`AgentInfo` (parameters with their defaults,
one-line description); :func:`describe` prints one;
``python -m experiments agents [NAME]`` shows both from the shell.
:func:`effective_params` is what an agent is built with (defaults included:
bare ``ismcts`` is ``iterations=1000``), :func:`short_label` a short name for
tables.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from .bots import (AgentParameterError, check_choice, check_game, check_int, check_real,
                   check_seed)

__all__ = ["ENTRY_POINT_GROUP", "unregister", "AgentSpec", "AgentSpecError", "AgentFactoryError",
           "AgentParameterError", "parse_spec", "register", "factories", "factory",
           "make_agent",
           "describe", "openspiel_seed", "openspiel_ismcts", "openspiel_uniform",
           "MAX_SPEC_LENGTH", "AgentInfo", "agent_info", "agents", "effective_params",
           "effective_spec", "short_label", "short_labels"]

ENTRY_POINT_GROUP = "cancellation_hearts.agents"
MAX_SPEC_LENGTH = 10_000

Factory = Callable[..., "pyspiel.Bot"]


class AgentSpecError(ValueError):
    """An agent spec that cannot be parsed, names no agent, or has a wrong parameter."""


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


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: ``name`` and keyword ``params`` (in the given order)."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params)})"


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _short(text: str, limit: int = 120, quote: bool = True) -> str:
    """``text`` for an error message: repr'd (if ``quote``), cut to about ``limit`` characters."""
    if len(text) <= limit:
        return repr(text) if quote else text
    cut = text[:limit]
    return (repr(cut) if quote else cut) + f"... ({len(text):,} characters)"


def parse_spec(spec: str | AgentSpec) -> AgentSpec:
    """``"name(key=literal, ...)"`` (or ``"TARGET:factory(key=literal, ...)"``, the
    name then being ``"TARGET:factory"``) -> :class:`AgentSpec`;
    :class:`AgentSpecError` if malformed."""
    if isinstance(spec, AgentSpec):
        return spec
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec is a string like 'ismcts(iterations=1000)', "
                             f"got {type(spec).__name__}")
    if len(spec) > MAX_SPEC_LENGTH:
        raise AgentSpecError(f"agent spec of {len(spec):,} characters; at most "
                             f"{MAX_SPEC_LENGTH:,} allowed")
    shown = _short(spec)
    text = spec.strip()
    if not text:
        raise AgentSpecError("empty agent spec; expected a name like 'heuristic' or "
                             "'ismcts(iterations=1000)'")
    target, text = _split_target(text, shown)
    head = text.split("(", 1)[0].strip()
    if target is None and _is_file_target(head):
        raise AgentSpecError(f"agent spec {shown} names the file {_short(head)} but not its "
                             f"factory; name the factory: FILE.py:FUNCTION, e.g. "
                             f"{_short(head + ':make_bot')}")
    sp = _parse_plain(text, shown)
    return sp if target is None else AgentSpec(f"{target}:{sp.name}", sp.params)


def _is_file_target(target: str) -> bool:
    """Whether the part before ``:`` of a spec names a Python file (else a module)."""
    return target.endswith(".py") or "/" in target or "\\" in target or os.sep in target


def _split_target(text: str, shown: str) -> tuple[str | None, str]:
    """``"TARGET:rest"`` -> ``(TARGET, rest)`` (the last ``:`` before any ``(``),
    ``(None, text)`` without one."""
    head = text.split("(", 1)[0]
    if ":" not in head:
        return None, text
    i = head.rindex(":")
    target, rest = text[:i].strip(), text[i + 1:].strip()
    form = "expected MODULE:FACTORY or path/to/file.py:FACTORY, e.g. 'mypkg.bots:make_bot'"
    if not target:
        raise AgentSpecError(f"agent spec {shown}: nothing before ':'; {form}")
    if not rest:
        raise AgentSpecError(f"agent spec {shown}: nothing after ':' (the factory's name); "
                             f"{form}")
    if not _is_file_target(target) and not all(p.isidentifier() for p in target.split(".")):
        raise AgentSpecError(f"agent spec {shown}: {target!r} is neither a dotted module name "
                             f"(e.g. 'mypkg.bots') nor a Python file (a path ending in .py); "
                             f"{form}")
    return target, rest


def _parse_plain(text: str, shown: str) -> AgentSpec:
    """``"name(key=literal, ...)"`` (no ``TARGET:``) -> :class:`AgentSpec`."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        at = f" (at column {e.offset})" if e.offset else ""
        raise AgentSpecError(
            f"agent spec {shown} is not valid: {e.msg}{at}; expected "
            f"name or name(key=value, ...), e.g. 'ismcts(iterations=1000, uct_c=0.4)'") from None
    except (ValueError, MemoryError, RecursionError) as e:   # e.g. a NUL character
        raise AgentSpecError(
            f"agent spec {shown} is not valid: {e}; expected name or name(key=value, ...), "
            f"e.g. 'ismcts(iterations=1000, uct_c=0.4)'") from None
    if isinstance(tree, ast.Call):
        name = _dotted(tree.func)
        if name is None:
            raise AgentSpecError(f"agent spec {shown}: the agent name must be an identifier "
                                 f"(optionally dotted), e.g. 'ismcts(...)'")
        if tree.args:
            first = _short(ast.get_source_segment(text, tree.args[0]) or "?", quote=False)
            example = (f"e.g. {name}(iterations={first})"
                       if not isinstance(tree.args[0], ast.Starred) else "write key=value")
            raise AgentSpecError(
                f"agent spec {shown}: positional argument {first} is not allowed; parameters "
                f"are keyword-only, {example}")
        params = []
        for kw in tree.keywords:
            if kw.arg is None:
                raise AgentSpecError(f"agent spec {shown}: '**' is not allowed; write "
                                     f"each parameter as key=value")
            src = _short(ast.get_source_segment(text, kw.value) or "?", quote=False)
            try:
                value = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                hint = (f" (did you mean the string {src!r}? quote it: {kw.arg}={src!r})"
                        if isinstance(kw.value, ast.Name) else "")
                raise AgentSpecError(
                    f"agent spec {shown}: the value of {kw.arg!r} must be a Python literal "
                    f"(number, string, True/False/None, tuple, list, dict), got {src}{hint}"
                ) from None
            if any(k == kw.arg for k, _ in params):
                raise AgentSpecError(f"agent spec {shown}: parameter {kw.arg!r} is given twice")
            params.append((kw.arg, value))
        return AgentSpec(name, tuple(params))
    name = _dotted(tree)
    if name is None:
        raise AgentSpecError(f"agent spec {shown} is not valid: expected name or "
                             f"name(key=value, ...), e.g. 'ismcts(iterations=1000)'")
    return AgentSpec(name)


# ---------------------------------------------------------------- factories
def openspiel_ismcts(game, player, seed=0, *, iterations: int = 1000, uct_c: float = 0.4,
                      final_policy: str = "max_visit_count", max_world_samples: int = -1,
                      n_rollouts: int = 1):
    """OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``)
    with ``RandomRolloutEvaluator(n_rollouts)``, seeded (its resampler through
    ``set_resampler``; OpenSpiel's ``RandomState`` by :func:`openspiel_seed`).
    ``uct_c`` is on the same scale as ours (rewards scaled to [0, 1]): the bot
    gets ``uct_c * (max_utility - min_utility)`` because it works on raw
    returns. Ranges (checked when built): ``iterations`` an int in [2, 10**9]
    (OpenSpiel's first simulation only expands the root, so one simulation
    leaves no visited action and its final policy fails),
    ``uct_c`` a finite number in [0, 10**6], ``max_world_samples`` -1
    (unlimited) or an int in [1, 10**6], ``n_rollouts`` an int in [1, 10**6]."""
    from open_spiel.python.algorithms import ismcts, mcts
    a = "openspiel_ismcts"
    check_game(game, player, a)
    seed = check_seed(seed, a)
    iterations = check_int(a, "iterations", iterations, 2, 10**9)
    uct_c = check_real(a, "uct_c", uct_c, 0.0, 1e6)
    max_world_samples = check_int(a, "max_world_samples", max_world_samples, 1, 10**6,
                                  also=(-1,))
    n_rollouts = check_int(a, "n_rollouts", n_rollouts, 1, 10**6)
    fp = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
          "normalized_visit_count": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
          "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE}
    final_policy = check_choice(a, "final_policy", final_policy, tuple(fp))
    rs = np.random.RandomState(openspiel_seed(seed))
    ev = mcts.RandomRolloutEvaluator(n_rollouts, rs)
    span = game.max_utility() - game.min_utility()
    bot = ismcts.ISMCTSBot(game, ev, uct_c * span, iterations,
                           max_world_samples=max_world_samples, random_state=rs,
                           final_policy_type=fp[final_policy])
    # Its default resampler uses an unseeded sampler: seed it through OpenSpiel's hook.
    gen = np.random.default_rng(seed)
    bot.set_resampler(lambda state, p: state.resample_from_infostate(p, gen))
    return bot


def openspiel_uniform(game, player, seed=0):
    """OpenSpiel's ``PolicyBot`` over ``policy.UniformRandomPolicy(game)``, its
    ``RandomState`` seeded by :func:`openspiel_seed`. One fix: OpenSpiel's
    ``PolicyBot.step_with_policy`` tests ``if not any(action_list)``, so a
    lone legal action 0 (the card ``2C``, e.g. when its holder must lead it)
    is taken for "no action" and it returns ``INVALID_ACTION``; ours tests
    for an empty list."""
    from open_spiel.python import policy
    from open_spiel.python.bots.policy import PolicyBot

    class UniformPolicyBot(PolicyBot):
        def step_with_policy(self, state):
            probs = self._policy.action_probabilities(state, self._player_id)
            if not probs:
                return [], pyspiel.INVALID_ACTION
            action = self._rng.choice(list(probs.keys()), p=list(probs.values()))
            return list(probs.items()), int(action)

    a = "openspiel_uniform"
    player = check_game(game, player, a)
    rs = np.random.RandomState(openspiel_seed(check_seed(seed, a)))
    return UniformPolicyBot(player, rs, policy.UniformRandomPolicy(game))


def network(game, player, seed=0, *, checkpoint: str | None = None, policy: str = "argmax",
            temperature: float = 1.0):
    """The raw policy network (:class:`solvers.net.agents.NetworkBot`; imported on use);
    ``checkpoint``: a path or a shipped model's name (None: the shipped model made
    for the game's rules and player count, :func:`solvers.net.zoo.default_for`)."""
    from .net.agents import NetworkBot
    return NetworkBot(game, player, seed, checkpoint=checkpoint, policy=policy,
                      temperature=temperature)


def ismcts_net(game, player, seed=0, *, checkpoint: str | None = None, iterations: int = 200,
               time_limit: float | None = None, c_puct: float = 1.0, prior_mix: float = 0.0,
               value_weight: float = 1.0, rollout: str = "heuristic",
               final_policy: str = "max_visit_count", max_nodes: int | None = None,
               clock: str = "wall"):
    """ISMCTS with the network (:class:`solvers.net.search.NetISMCTSBot`; imported on use);
    ``checkpoint`` as ``network``'s (None: the shipped model made for the game)."""
    from .net.search import NetISMCTSBot
    return NetISMCTSBot(game, player, seed, checkpoint=checkpoint, iterations=iterations,
                        time_limit=time_limit, c_puct=c_puct, prior_mix=prior_mix,
                        value_weight=value_weight, rollout=rollout,
                        final_policy=final_policy, max_nodes=max_nodes, clock=clock)


def ismcts_bias(game, player, seed=0, *, checkpoint: str | None = None, bias: float = 1.0,
                iterations: int = 1000, time_limit: float | None = None, uct_c: float = 0.4,
                final_policy: str = "max_visit_count", rollout: str = "random",
                max_nodes: int | None = None, opponents: str = "search", clock: str = "wall"):
    """ISMCTS with the network's policy as progressive bias at the root
    (:class:`solvers.net.search.BiasISMCTSBot`; imported on use); ``checkpoint``
    as ``network``'s (None: the shipped model made for the game); the other keywords and
    their defaults are ``ismcts``'s."""
    from .net.search import BiasISMCTSBot
    return BiasISMCTSBot(game, player, seed, checkpoint=checkpoint, bias=bias,
                         iterations=iterations, time_limit=time_limit, uct_c=uct_c,
                         final_policy=final_policy, rollout=rollout, max_nodes=max_nodes,
                         opponents=opponents, clock=clock)


def load_factory(target: str) -> Factory:
    """The factory named ``"module:attr"`` (an entry of
    :data:`solvers.catalog.BUILTIN_AGENTS`), imported on use."""
    import importlib
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _builtins() -> dict[str, Factory]:
    from .catalog import BUILTIN_AGENTS
    return {name: load_factory(target) for name, target in BUILTIN_AGENTS.items()}


_REGISTERED: dict[str, Factory] = {}
_LOADED: dict[tuple[str, str], Factory] = {}
_FAILED: dict[tuple[str, str], str] = {}        # entry points skipped (warned once)
_PLUGIN_PACKAGE: dict[str, str] = {}            # plug-in name -> its package


def _name_problem(name) -> str | None:
    """Why ``name`` cannot name an agent in a spec (None if it can)."""
    if not isinstance(name, str):
        return f"an agent name is a string, got {type(name).__name__}"
    try:
        sp = parse_spec(name)
    except AgentSpecError as e:
        return str(e)
    if sp.params or sp.name != name.strip() or name != name.strip() or ":" in name:
        return (f"{name!r} is not a plain (optionally dotted) identifier such as "
                f"'my_agent' or 'pkg.agent'")
    return None


def register(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Register ``factory(game, player, seed, **params)`` under ``name`` (this process only;
    packages use the ``cancellation_hearts.agents`` entry-point group)."""
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable, got {type(factory).__name__}")
    problem = _name_problem(name)
    if problem:
        raise AgentSpecError(f"cannot register agent {name!r}: {problem}")
    if not replace and (name in _REGISTERED or name in _builtins()):
        raise AgentSpecError(f"an agent named {name!r} exists; pass replace=True to replace it")
    _REGISTERED[name] = factory


def unregister(name: str) -> None:
    """Remove an agent registered in this process by :func:`register`; a
    ``KeyError`` naming it if none is."""
    if name not in _REGISTERED:
        raise KeyError(f"no agent {name!r} is registered in this process")
    del _REGISTERED[name]


def _skip(key: tuple[str, str], why: str) -> None:
    if key not in _FAILED:
        _FAILED[key] = why
        warnings.warn(why, RuntimeWarning, stacklevel=4)


def _entry_points() -> dict[str, Factory]:
    """The plug-ins' factories by name. A broken plug-in never breaks the others or
    the built-ins: it is skipped with a RuntimeWarning (once per process)."""
    out: dict[str, Factory] = {}
    try:
        eps = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except KeyboardInterrupt:
        raise
    except BaseException as e:          # broken package metadata
        _skip(("", ""), f"agent plug-ins of the entry-point group {ENTRY_POINT_GROUP!r} "
                        f"could not be listed ({type(e).__name__}: {e}); using the built-in "
                        f"agents only")
        return out
    owner: dict[str, str] = {}
    for ep in eps:
        key = (ep.name, ep.value)
        dist = getattr(ep, "dist", None)
        pkg = getattr(dist, "name", None) or "an unknown package"
        where = f"agent plug-in {ep.name!r} = {ep.value!r} (package {pkg})"
        if key in _FAILED:
            continue
        if key not in _LOADED:
            problem = _name_problem(ep.name)
            if problem:
                _skip(key, f"{where} skipped: its name cannot be used in an agent spec: "
                           f"{problem}")
                continue
            try:
                f = ep.load()
            except KeyboardInterrupt:
                raise
            except BaseException as e:   # SystemExit included: a plug-in must not end the run
                _skip(key, f"{where} skipped: importing it raised {type(e).__name__}: {e}")
                continue
            if not callable(f):
                _skip(key, f"{where} skipped: it names a {type(f).__name__}, not a callable "
                           f"factory(game, player, seed, **params)")
                continue
            _LOADED[key] = f
        if ep.name in out and out[ep.name] is not _LOADED[key]:
            warnings.warn(f"agent plug-in name {ep.name!r} is declared twice ({owner[ep.name]} "
                          f"and {where}); using the latter", RuntimeWarning, stacklevel=3)
        out[ep.name] = _LOADED[key]
        owner[ep.name] = where
        _PLUGIN_PACKAGE[ep.name] = pkg
    return out


def factories() -> dict[str, Factory]:
    """Every known agent name -> factory: built-ins, then registered, then plug-ins."""
    out = dict(_entry_points())
    builtins = _builtins()
    for name in set(out) & set(builtins):
        if out[name] is not builtins[name]:
            warnings.warn(f"agent plug-in {name!r} is shadowed by the built-in agent of that "
                          f"name", RuntimeWarning, stacklevel=2)
    out.update(_REGISTERED)
    out.update(builtins)
    return dict(sorted(out.items()))


def _params_of(factory) -> tuple[list[str], bool]:
    """(keyword parameters a spec may set, whether it takes **kwargs)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return [], True
    names, var = [], False
    ps = list(sig.parameters.values())
    for i, p in enumerate(ps):
        if p.kind is p.VAR_KEYWORD:
            var = True
        elif i >= 3 and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return names, var


_REQUIRED = "<required>"


@dataclasses.dataclass(frozen=True)
class AgentInfo:
    """What :func:`agent_info` knows of an agent: its ``name``, the keyword
    ``params`` a spec may set with their defaults (``"<required>"`` where there is
    none), whether it takes any other keyword (``var_keyword``), a one-line
    ``summary`` (the first line of its docstring), its ``source``
    (``"built-in"``, ``"registered"``, ``"plug-in (package P)"``, ``"module"``
    or ``"file"``), the dotted name of its ``factory`` and what it ``needs``
    beyond a plain install before it can play (``""``: nothing; for the
    built-ins :data:`solvers.catalog.BUILTIN_NEEDS`, else the factory's ``needs``
    attribute, a string)."""

    name: str
    params: tuple[tuple[str, Any], ...]
    var_keyword: bool
    summary: str
    source: str
    factory: str
    needs: str = ""

    def signature(self) -> str:
        """``name(key=default, ...)``: the spec with every default written out."""
        ps = [k if v is _REQUIRED else f"{k}={v!r}" for k, v in self.params]
        ps += ["**params"] if self.var_keyword else []
        return f"{self.name}({', '.join(ps)})"


def _defaults(factory) -> tuple[tuple[tuple[str, Any], ...], bool]:
    names, var = _params_of(factory)
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return (), True
    out = []
    for k in names:
        d = sig.parameters[k].default
        out.append((k, _REQUIRED if d is inspect.Parameter.empty else d))
    return tuple(out), var


def _summary(factory) -> str:
    """The first paragraph of the factory's docstring, on one line, without reST roles."""
    doc = inspect.getdoc(factory) or ""
    first = " ".join(doc.strip().split("\n\n", 1)[0].split())
    first = re.sub(r":[a-z]+:`~?([^`<]+?)(?: <[^`]*>)?`", r"\1", first)
    return first.replace("``", "")


def _source(name: str) -> str:
    if ":" in name:
        return "file" if _is_file_target(name.rpartition(":")[0]) else "module"
    if name in _builtins():
        return "built-in"
    if name in _REGISTERED:
        return "registered"
    return f"plug-in (package {_PLUGIN_PACKAGE.get(name, 'unknown')})"


def agent_info(name: str) -> AgentInfo:
    """The :class:`AgentInfo` of agent ``name`` (a registry name or ``TARGET:factory``);
    :class:`AgentSpecError` (with a suggestion) for an unknown one."""
    f = _lookup(name)
    params, var = _defaults(f)
    from .catalog import BUILTIN_NEEDS
    needs = BUILTIN_NEEDS.get(name, "") if name in _builtins() else getattr(f, "needs", "")
    return AgentInfo(name=name, params=params, var_keyword=var, summary=_summary(f),
                     source=_source(name), factory=_factory_name(f),
                     needs=needs if isinstance(needs, str) else "")


def agents() -> list[AgentInfo]:
    """Every known agent (built-in, registered in this process, plug-in), by name."""
    return [agent_info(name) for name in factories()]


def describe(name: str) -> str:
    """The parameters (with defaults), source and documentation of agent ``name``:
    a line such as ``ismcts(iterations=1000, time_limit=None, uct_c=0.4, ...)``,
    then where it comes from (``built-in; factory solvers.ismcts.ismcts_agent``),
    then its factory's docstring."""
    info = agent_info(name)
    doc = inspect.getdoc(_lookup(name)) or "(no description)"
    needs = f"\nneeds: {info.needs}" if info.needs else ""
    return f"{info.signature()}\n{info.source}; factory {info.factory}{needs}\n\n{doc}"


def factory(name: str) -> Factory:
    """The factory of agent ``name`` (a registry name, or ``TARGET:attribute`` for a
    module or file); :class:`AgentSpecError` saying what is wrong if there is none."""
    return _lookup(name)


def _lookup(name: str) -> Factory:
    if ":" in name:
        return _external(name)
    fs = factories()
    if name not in fs:
        close = difflib.get_close_matches(name, list(fs), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AgentSpecError(f"unknown agent {_short(name)}{hint}; known agents: "
                             f"{', '.join(fs)}; "
                             f"packages add agents through the entry-point group "
                             f"{ENTRY_POINT_GROUP!r}, and a spec may name any factory as "
                             f"'mymodule:make_bot' or 'path/to/bot.py:make_bot'")
    return fs[name]


# ---------------------------------------------------------------- factories by location
def _import_file(target: str, name: str):
    """The module of the Python file ``target``, imported once per process under a
    name unique to its resolved path."""
    path = Path(target).expanduser()
    if not path.is_file():
        where = "" if path.is_absolute() else f" (relative to {os.getcwd()})"
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise AgentSpecError(f"agent spec {_short(name)}: the file {target!r}{where} {what}; "
                             f"expected path/to/file.py:FACTORY")
    if path.suffix != ".py":
        raise AgentSpecError(f"agent spec {_short(name)}: {target!r} is not a Python file "
                             f"(expected a name ending in .py)")
    resolved = path.resolve()
    stem = "".join(c if c.isalnum() else "_" for c in resolved.stem)
    modname = (f"_cancellation_hearts_agent_{stem}_"
               f"{hashlib.sha256(str(resolved).encode()).hexdigest()[:12]}")
    if modname in sys.modules:
        return sys.modules[modname]
    spec = importlib.util.spec_from_file_location(modname, resolved)
    if spec is None or spec.loader is None:
        raise AgentSpecError(f"agent spec {_short(name)}: {target!r} cannot be imported as a "
                             f"Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    folder = str(resolved.parent)       # the file's folder, for its sibling imports only
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        del sys.modules[modname]
        raise
    except BaseException as e:          # SystemExit too: a user's file must not end the run
        del sys.modules[modname]
        raise AgentSpecError(f"agent spec {_short(name)}: importing the file {target!r} "
                             f"raised {type(e).__name__}: {e}") from e
    finally:
        if sys.path and sys.path[0] == folder:
            del sys.path[0]
        elif folder in sys.path:
            sys.path.remove(folder)
    return module


def _import_module(target: str, name: str):
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name and (target == e.name or target.startswith(e.name + ".")):
            raise AgentSpecError(
                f"agent spec {_short(name)}: no module named {e.name!r} (not installed and "
                f"not on sys.path); for a file write path/to/file.py:FACTORY") from None
        raise AgentSpecError(f"agent spec {_short(name)}: importing module {target!r} raised "
                             f"{type(e).__name__}: {e}") from e
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        raise AgentSpecError(f"agent spec {_short(name)}: importing module {target!r} raised "
                             f"{type(e).__name__}: {e}") from e


def _external(name: str) -> Factory:
    """The factory (or ``pyspiel.Bot`` subclass) named ``"TARGET:attribute"``."""
    target, _, attr = name.rpartition(":")
    is_file = _is_file_target(target)
    module = _import_file(target, name) if is_file else _import_module(target, name)
    where = f"the file {target!r}" if is_file else f"module {target!r}"
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = sorted(k for k, v in vars(obj).items()
                           if callable(v) and not k.startswith("_")
                           and getattr(v, "__module__", None) == module.__name__)
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise AgentSpecError(f"agent spec {_short(name)}: {where} has no attribute "
                                 f"{part!r}{hint}; what it defines: "
                                 f"{', '.join(names) or 'no functions or classes'}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentSpecError(f"agent spec {_short(name)}: {attr!r} of {where} is a "
                             f"{type(obj).__name__}, not a factory f(game, player, seed, "
                             f"**params) or a pyspiel.Bot subclass")
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):     # e.g. a pybind class: checked when called
        return obj
    try:
        sig.bind(None, None, None)
    except TypeError as e:
        raise AgentSpecError(f"agent spec {_short(name)}: {attr}{sig} cannot be called as "
                             f"{attr}(game, player, seed, **params) ({e}); a factory takes "
                             f"the game, the seat and the seed first") from None
    return obj


# ---------------------------------------------------------------- effective parameters, labels
def effective_params(spec: str | AgentSpec) -> dict[str, Any]:
    """The keyword parameters agent ``spec`` is built with: every default of its
    factory, overridden by the spec's own (``effective_params("ismcts")["iterations"]
    == 1000``); a parameter without default is ``"<required>"``. Raises
    :class:`AgentSpecError` for a bad spec (unknown agent or keyword)."""
    sp = parse_spec(spec)
    f = _lookup(sp.name)
    _check_keywords(sp, f)
    params, _ = _defaults(f)
    return {**dict(params), **sp.kwargs}


def effective_spec(spec: str | AgentSpec) -> str:
    """``spec`` with every parameter written out (:func:`effective_params`), e.g.
    ``"ismcts"`` -> ``"ismcts(iterations=1000, time_limit=None, uct_c=0.4, ...)"``."""
    sp = parse_spec(spec)
    ps = effective_params(sp)
    inner = ", ".join(k if v is _REQUIRED else f"{k}={v!r}" for k, v in ps.items())
    return f"{sp.name}({inner})" if ps else sp.name


def _looks_like_path(v: Any) -> bool:
    return isinstance(v, str) and ("/" in v or "\\" in v or os.sep in v)


def _label_parts(spec) -> tuple[str, list[tuple[str, str]]] | None:
    """``(name, [(key, shown value)])`` of a spec for labels (paths by file name),
    None for a string that is not a spec."""
    try:
        sp = parse_spec(spec)
    except AgentSpecError:
        return None
    target, sep, attr = sp.name.rpartition(":")
    name = f"{Path(target).name}:{attr}" if sep and _is_file_target(target) else sp.name
    return name, [(k, Path(v).name if _looks_like_path(v) else repr(v)) for k, v in sp.params]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def short_label(spec: str | AgentSpec, limit: int = 48) -> str:
    """A short name of agent ``spec`` for tables: path values (checkpoints) and a
    file target shown by their file name, the rest as written, cut to about
    ``limit`` characters. ``"ismcts_bias(checkpoint='results/x/round-0024.npz')"``
    -> ``"ismcts_bias(checkpoint=round-0024.npz)"``. Pure: it reads no file and
    accepts any string (one that is not a spec is only cut). Labels need not be
    unique: :func:`short_labels` makes a list of them so, keeping what tells
    variants apart."""
    parts = _label_parts(spec)
    if parts is None:
        return _cut(str(spec), limit)
    name, ps = parts
    text = f"{name}({', '.join(f'{k}={v}' for k, v in ps)})" if ps else name
    return _cut(text, limit)


def _variant_label(name: str, ps, differing: set, limit: int) -> str:
    """``name(...)`` with every parameter in ``differing`` and as many of the
    others (in order) as fit in ``limit``; ``...`` stands for those left out."""
    keep = [k in differing for k, _ in ps]
    for i in range(len(ps)):
        if keep[i]:
            continue
        trial = keep[:i] + [True] + keep[i + 1:]
        if len(_render(name, ps, trial)) <= limit:
            keep = trial
    return _render(name, ps, keep)


def _render(name: str, ps, keep) -> str:
    shown = [f"{k}={v}" for (k, v), on in zip(ps, keep) if on]
    if len(shown) < len(ps):
        shown.append("...")
    return f"{name}({', '.join(shown)})" if ps else name


def short_labels(specs, limit: int = 48) -> list[str]:
    """Labels of the specs for one table, all different, about ``limit``
    characters where that keeps them apart. A spec whose :func:`short_label`
    form is longer keeps its name and the parameters in which it differs from
    the other specs of that name, then as many of the others as fit (``...``
    for the rest): ``ismcts_bias(checkpoint=r24.npz, iterations=200, bias=1.0)``
    and ``... bias=10.0)`` become ``ismcts_bias(bias=1.0, ...)`` and
    ``ismcts_bias(bias=10.0, ...)``. A label is cut to ``limit`` only if the cut
    one is still unique; labels that are still shared (the same spec twice, two
    checkpoints of one file name in different folders) get ``#i`` (``i`` the
    entry's index), e.g. ``network(checkpoint=best.npz)#0`` and ``...#1``."""
    specs = list(specs)
    parts = [_label_parts(s) for s in specs]
    full = [short_label(s, limit=10**9) for s in specs]
    labels = []
    for i, pt in enumerate(parts):
        if len(full[i]) <= limit or pt is None:
            labels.append(full[i])
            continue
        name, ps = pt
        others = [dict(o[1]) for o in parts if o is not None and o[0] == name and o is not pt]
        differing = {k for k, v in ps if any(o.get(k) != v for o in others)}
        differing |= {k for o in others for k in o if k not in dict(ps)}
        labels.append(_variant_label(name, ps, differing, limit))
    cut = [_cut(lab, limit) for lab in labels]
    counts: dict[str, int] = {}
    for lab in cut:
        counts[lab] = counts.get(lab, 0) + 1
    fulls: dict[str, int] = {}
    for lab in labels:
        fulls[lab] = fulls.get(lab, 0) + 1
    labels = [c if counts[c] == fulls[lab] else lab for c, lab in zip(cut, labels)]
    counts = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return [f"{lab}#{i}" if counts[lab] > 1 else lab for i, lab in enumerate(labels)]


def _check_keywords(sp: AgentSpec, f: Factory) -> None:
    names, var = _params_of(f)
    for k in sp.kwargs:
        if k not in names and not var:
            close = difflib.get_close_matches(k, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            allowed = ", ".join(names) if names else "none"
            raise AgentSpecError(f"agent {sp.name!r} has no parameter {k!r}{hint}; its "
                                 f"parameters: {allowed}")


def _factory_name(f) -> str:
    mod = getattr(f, "__module__", None)
    q = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return f"{mod}.{q}" if mod else q


def make_agent(spec: str | AgentSpec | Factory, game, player: int, seed: int = 0):
    """Build the agent ``spec`` for seat ``player`` of ``game``, seeded by ``seed``.

    ``spec`` is a spec string, an :class:`AgentSpec`, or a factory
    ``f(game, player, seed)`` (e.g. a function returning one of OpenSpiel's bots).
    ``seed`` is an int in ``[0, 2**63)`` and is passed to the factory unchanged
    (see the module docstring for the factory contract and the errors).
    """
    seed = check_seed(seed, "make_agent")
    if callable(spec) and not isinstance(spec, (str, AgentSpec)):
        f, kwargs = spec, {}
        label = f"factory {_factory_name(spec)}"
    else:
        sp = parse_spec(spec)
        f = _lookup(sp.name)
        _check_keywords(sp, f)
        kwargs = sp.kwargs
        label = f"agent {str(sp)!r} (factory {_factory_name(f)})"
    try:
        bot = f(game, player, seed, **kwargs)
    except (AgentParameterError, AgentSpecError) as e:
        if isinstance(spec, (str, AgentSpec)):
            raise AgentSpecError(f"agent spec {str(sp)!r}: {e}") from e
        raise
    except Exception as e:
        hint = ""
        if "seed" in str(e).lower():
            hint = (" (agent seeds are ints in [0, 2**63); a factory wrapping an OpenSpiel "
                    "bot must fold them with solvers.registry.openspiel_seed(seed))")
        raise AgentFactoryError(f"{label} failed for player {player!r}, seed {seed}: "
                                f"{type(e).__name__}: {e}{hint}") from e
    if not isinstance(bot, pyspiel.Bot):
        raise AgentFactoryError(f"{label} built a {type(bot).__name__}, not a pyspiel.Bot")
    return bot
