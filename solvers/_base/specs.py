"""Agent specs: the strings that name an agent and its parameters.

A *spec* is a name with optional keyword parameters whose values are Python
literals, ``"pimc(worlds=16, rollouts=2)"``, or a factory named by where it
lives, ``"TARGET:ATTRIBUTE(key=literal, ...)"`` (a dotted module or a path to a
``.py`` file before the colon). Specs are parsed with :mod:`ast` (values by
``ast.literal_eval``; nothing is executed); a wrong spec raises
:class:`AgentSpecError` saying what is wrong. What a name stands for is
:mod:`solvers._catalog`'s business.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from typing import Any

from spiel_game._checks import shorten

__all__ = ["MAX_SPEC_LENGTH", "AgentSpec", "AgentSpecError", "parse_spec", "is_file_target"]

MAX_SPEC_LENGTH = 10_000


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
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


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
    shown = shorten(spec, head=True)
    text = spec.strip()
    if not text:
        raise AgentSpecError("empty agent spec; expected a name like 'heuristic' or "
                             "'ismcts(iterations=1000)'")
    target, text = _split_target(text, shown)
    head = text.split("(", 1)[0].strip()
    if target is None and is_file_target(head):
        raise AgentSpecError(f"agent spec {shown} names the file {shorten(head, head=True)} "
                             f"but not its factory; name the factory: FILE.py:FUNCTION, e.g. "
                             f"{shorten(head + ':make_bot', head=True)}")
    sp = _parse_plain(text, shown)
    return sp if target is None else AgentSpec(f"{target}:{sp.name}", sp.params)


def is_file_target(target: str) -> bool:
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
    if not is_file_target(target) and not all(p.isidentifier() for p in target.split(".")):
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
            first = shorten(ast.get_source_segment(text, tree.args[0]) or "?", quote=False,
                            head=True)
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
            src = shorten(ast.get_source_segment(text, kw.value) or "?", quote=False,
                          head=True)
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
