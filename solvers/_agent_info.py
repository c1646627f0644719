"""Agents described for people: parameters with defaults, documentation, labels.

:func:`agents` lists every agent of the catalog (:mod:`solvers._catalog`) as
:class:`AgentInfo` (parameters with their defaults, a one-line description,
where it comes from, what it needs); :func:`describe` is one agent's text
(``python -m experiments agents [NAME]`` prints both). Both come from the
factory itself: its signature and its docstring. :func:`effective_params` is
what an agent is built with (defaults included: bare ``ismcts`` is
``iterations=1000``), :func:`short_label` and :func:`short_labels` short
names for tables.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from pathlib import Path
from typing import Any

from ._catalog import factories, factory_name, factory_parameters, resolve, source
from ._base.specs import AgentSpec, AgentSpecError, is_file_target, parse_spec

__all__ = ["AgentInfo", "BUILTIN_NEEDS", "agent_info", "agents", "describe", "effective_params",
           "effective_spec", "short_label", "short_labels"]

#: What a built-in agent needs beyond a plain install before it plays (every other
#: one plays as installed, the networks from the shipped models): ``python -m
#: experiments agents`` prints it under the agent. A plug-in says it with a
#: ``needs`` attribute (a string) on its factory.
BUILTIN_NEEDS: dict[str, str] = {
    "dqn": ("a checkpoint from your own training run (none ships): python -m "
            "solvers.openspiel_rl train --algorithm dqn --out dqn.pt, then "
            "dqn(checkpoint='dqn.pt'); the extra 'torch'"),
    "nfsp": ("a checkpoint from your own training run (none ships): python -m "
             "solvers.openspiel_rl train --algorithm nfsp --out nfsp.pt, then "
             "nfsp(checkpoint='nfsp.pt'); the extra 'torch'"),
    "xinxin": ("the xinxin driver program (GPL, not shipped), built once in a source "
               "checkout: make xinxin XINXIN_SRC=/path/to/hearts (docs/xinxin.md), or named "
               "with $XINXIN_BINARY or binary=...; plays the classic game only"),
}

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
    built-ins :data:`BUILTIN_NEEDS`, else the factory's ``needs``
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
    names, var = factory_parameters(factory)
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


def agent_info(name: str) -> AgentInfo:
    """The :class:`AgentInfo` of agent ``name`` (a catalog name or ``TARGET:factory``);
    :class:`AgentSpecError` (with a suggestion) for an unknown one."""
    f = resolve(AgentSpec(name)).factory
    params, var = _defaults(f)
    where = source(name)
    needs = BUILTIN_NEEDS.get(name, "") if where == "built-in" else getattr(f, "needs", "")
    return AgentInfo(name=name, params=params, var_keyword=var, summary=_summary(f),
                     source=where, factory=factory_name(f),
                     needs=needs if isinstance(needs, str) else "")


def agents() -> list[AgentInfo]:
    """Every known agent (built-in, registered in this process, plug-in), by name."""
    return [agent_info(name) for name in factories()]


def describe(name: str) -> str:
    """The parameters (with defaults), source and documentation of agent ``name``:
    a line such as ``ismcts(iterations=1000, time_limit=None, uct_c=0.4, ...)``,
    then where it comes from (``built-in; factory solvers._ismcts.ISMCTSBot``),
    then its factory's docstring."""
    info = agent_info(name)
    doc = inspect.getdoc(resolve(AgentSpec(name)).factory) or "(no description)"
    needs = f"\nneeds: {info.needs}" if info.needs else ""
    return f"{info.signature()}\n{info.source}; factory {info.factory}{needs}\n\n{doc}"


# ---------------------------------------------------------------- effective parameters, labels
def effective_params(spec: str | AgentSpec) -> dict[str, Any]:
    """The keyword parameters agent ``spec`` is built with: every default of its
    factory, overridden by the spec's own (``effective_params("ismcts")["iterations"]
    == 1000``); a parameter without default is ``"<required>"``. Raises
    :class:`AgentSpecError` for a bad spec (unknown agent or keyword)."""
    r = resolve(spec)
    params, _ = _defaults(r.factory)
    return {**dict(params), **r.kwargs}


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
    name = f"{Path(target).name}:{attr}" if sep and is_file_target(target) else sp.name
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
