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
pyspiel.Bot`` (an agent class of :mod:`solvers.bots` is one). Built in:

=================== ===========================================================
``random``          :class:`solvers.bots.RandomBot`
``heuristic``       :class:`solvers.bots.HeuristicBot`
``pimc``            :class:`solvers.pimc.PIMCBot`
``ismcts``          :class:`solvers.ismcts.ISMCTSBot`
``openspiel_ismcts`` OpenSpiel's Python ``ISMCTSBot`` with random rollouts
``openspiel_uniform`` OpenSpiel's ``PolicyBot`` over ``UniformRandomPolicy``
=================== ===========================================================

**Plug-ins.** A third-party package adds agents through the entry-point group
``cancellation_hearts.agents``; each entry point names a factory. In its
``pyproject.toml``::

    [project.entry-points."cancellation_hearts.agents"]
    lowest = "my_agents:make_lowest_bot"

Once the package is installed, ``make_agent("lowest", ...)`` and every
tournament find it (``tests/example_agent_pkg`` is a complete example).
Built-in names take precedence over plug-ins.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import importlib.metadata
import inspect
import warnings
from typing import Any, Callable

import numpy as np
import pyspiel

__all__ = ["ENTRY_POINT_GROUP", "AgentSpec", "AgentSpecError", "parse_spec", "register",
           "factories", "make_agent", "describe", "openspiel_ismcts", "openspiel_uniform"]

ENTRY_POINT_GROUP = "cancellation_hearts.agents"

Factory = Callable[..., "pyspiel.Bot"]


class AgentSpecError(ValueError):
    """An agent spec that cannot be parsed, names no agent, or has a wrong parameter."""


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
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def parse_spec(spec: str | AgentSpec) -> AgentSpec:
    """``"name(key=literal, ...)"`` -> :class:`AgentSpec`; :class:`AgentSpecError` if malformed."""
    if isinstance(spec, AgentSpec):
        return spec
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec is a string like 'ismcts(iterations=1000)', "
                             f"got {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise AgentSpecError("empty agent spec; expected a name like 'heuristic' or "
                             "'ismcts(iterations=1000)'")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise AgentSpecError(
            f"agent spec {spec!r} is not valid: {e.msg} (at column {e.offset}); expected "
            f"name or name(key=value, ...), e.g. 'ismcts(iterations=1000, uct_c=0.4)'") from None
    if isinstance(tree, ast.Call):
        name = _dotted(tree.func)
        if name is None:
            raise AgentSpecError(f"agent spec {spec!r}: the agent name must be an identifier "
                                 f"(optionally dotted), e.g. 'ismcts(...)'")
        if tree.args:
            first = ast.get_source_segment(text, tree.args[0])
            raise AgentSpecError(
                f"agent spec {spec!r}: positional argument {first} is not allowed; parameters "
                f"are keyword-only, e.g. {name}(iterations={first})")
        params = []
        for kw in tree.keywords:
            if kw.arg is None:
                raise AgentSpecError(f"agent spec {spec!r}: '**' is not allowed; write "
                                     f"each parameter as key=value")
            src = ast.get_source_segment(text, kw.value)
            try:
                value = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                hint = (f" (did you mean the string {src!r}? quote it: {kw.arg}={src!r})"
                        if isinstance(kw.value, ast.Name) else "")
                raise AgentSpecError(
                    f"agent spec {spec!r}: the value of {kw.arg!r} must be a Python literal "
                    f"(number, string, True/False/None, tuple, list, dict), got {src}{hint}"
                ) from None
            if any(k == kw.arg for k, _ in params):
                raise AgentSpecError(f"agent spec {spec!r}: parameter {kw.arg!r} is given twice")
            params.append((kw.arg, value))
        return AgentSpec(name, tuple(params))
    name = _dotted(tree)
    if name is None:
        raise AgentSpecError(f"agent spec {spec!r} is not valid: expected name or "
                             f"name(key=value, ...), e.g. 'ismcts(iterations=1000)'")
    return AgentSpec(name)


# ---------------------------------------------------------------- factories
def openspiel_ismcts(game, player, seed=0, *, iterations: int = 1000, uct_c: float = 0.4,
                      final_policy: str = "max_visit_count", max_world_samples: int = -1,
                      n_rollouts: int = 1):
    """OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``)
    with ``RandomRolloutEvaluator(n_rollouts)``, seeded (its resampler through
    ``set_resampler``). ``uct_c`` is on the same scale as ours (rewards
    scaled to [0, 1]): the bot gets ``uct_c * (max_utility - min_utility)``
    because it works on raw returns."""
    from open_spiel.python.algorithms import ismcts, mcts
    rs = np.random.RandomState(seed % 2**32)
    ev = mcts.RandomRolloutEvaluator(n_rollouts, rs)
    fp = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
          "normalized_visit_count": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
          "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE}
    if final_policy not in fp:
        raise ValueError(f"final_policy={final_policy!r}; allowed: {sorted(fp)}")
    span = game.max_utility() - game.min_utility()
    bot = ismcts.ISMCTSBot(game, ev, uct_c * span, iterations,
                           max_world_samples=max_world_samples, random_state=rs,
                           final_policy_type=fp[final_policy])
    # Its default resampler uses an unseeded sampler: seed it through OpenSpiel's hook.
    gen = np.random.default_rng(seed)
    bot.set_resampler(lambda state, p: state.resample_from_infostate(p, gen))
    return bot


def openspiel_uniform(game, player, seed=0):
    """OpenSpiel's ``PolicyBot`` over ``policy.UniformRandomPolicy(game)``."""
    from open_spiel.python import policy
    from open_spiel.python.bots.policy import PolicyBot
    return PolicyBot(player, np.random.RandomState(seed % 2**32), policy.UniformRandomPolicy(game))


def _builtins() -> dict[str, Factory]:
    from .bots import HeuristicBot, RandomBot
    from .ismcts import ISMCTSBot
    from .pimc import PIMCBot
    return {"random": RandomBot, "heuristic": HeuristicBot, "pimc": PIMCBot,
            "ismcts": ISMCTSBot, "openspiel_ismcts": openspiel_ismcts,
            "openspiel_uniform": openspiel_uniform}


_REGISTERED: dict[str, Factory] = {}
_LOADED: dict[tuple[str, str], Factory] = {}


def register(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Register ``factory(game, player, seed, **params)`` under ``name`` (this process only;
    packages use the ``cancellation_hearts.agents`` entry-point group)."""
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable")
    parse_spec(name)                     # a valid (dotted) identifier
    if not replace and (name in _REGISTERED or name in _builtins()):
        raise AgentSpecError(f"an agent named {name!r} exists; pass replace=True to replace it")
    _REGISTERED[name] = factory


def _entry_points() -> dict[str, Factory]:
    out: dict[str, Factory] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        key = (ep.name, ep.value)
        if key not in _LOADED:
            try:
                _LOADED[key] = ep.load()
            except Exception as e:          # a broken plug-in must not break the others
                warnings.warn(f"agent plug-in {ep.name!r} ({ep.value}) failed to load: "
                              f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=3)
                continue
        out[ep.name] = _LOADED[key]
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


def describe(name: str) -> str:
    """The parameters and documentation of agent ``name``."""
    f = _lookup(name)
    names, _ = _params_of(f)
    doc = inspect.getdoc(f) or ""
    try:
        sig = inspect.signature(f)
        defaults = ", ".join(f"{p}={sig.parameters[p].default!r}" for p in names)
    except (TypeError, ValueError):
        defaults = ""
    return f"{name}({defaults})\n{doc}"


def _lookup(name: str) -> Factory:
    fs = factories()
    if name not in fs:
        close = difflib.get_close_matches(name, list(fs), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AgentSpecError(f"unknown agent {name!r}{hint}; known agents: {', '.join(fs)}; "
                             f"packages add agents through the entry-point group "
                             f"{ENTRY_POINT_GROUP!r}")
    return fs[name]


def make_agent(spec: str | AgentSpec | Factory, game, player: int, seed: int = 0):
    """Build the agent ``spec`` for seat ``player`` of ``game``, seeded by ``seed``.

    ``spec`` is a spec string, an :class:`AgentSpec`, or a factory
    ``f(game, player, seed)`` (e.g. a function returning one of OpenSpiel's bots).
    """
    if callable(spec) and not isinstance(spec, (str, AgentSpec)):
        bot = spec(game, player, seed)
        label = getattr(spec, "__name__", repr(spec))
    else:
        sp = parse_spec(spec)
        f = _lookup(sp.name)
        names, var = _params_of(f)
        for k in sp.kwargs:
            if k not in names and not var:
                close = difflib.get_close_matches(k, names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                allowed = ", ".join(names) if names else "none"
                raise AgentSpecError(f"agent {sp.name!r} has no parameter {k!r}{hint}; its "
                                     f"parameters: {allowed}")
        try:
            bot = f(game, player, seed, **sp.kwargs)
        except (TypeError, ValueError) as e:
            raise AgentSpecError(f"agent spec {str(sp)!r}: {e}") from e
        label = str(sp)
    if not isinstance(bot, pyspiel.Bot):
        raise AgentSpecError(f"agent {label!r} built a {type(bot).__name__}, not a pyspiel.Bot")
    return bot
