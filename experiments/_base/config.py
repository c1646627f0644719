"""Typed, closed experiment configurations.

A configuration is a frozen dataclass with a ``seed: int`` field. This module
builds one from a base value plus overrides that come from a Python dict, a
TOML file (:func:`load_config_file`: errors name the file, the line and column
of a syntax error, the unknown key and the allowed ones, or the key whose value
has the wrong type) or ``--set key=value`` strings
(:func:`parse_assignments`); unknown keys are rejected with the list of the
allowed ones, and every value is converted to (or checked against) the field's
annotated type::

    cfg = make_config(RulesStatsConfig, RulesStatsConfig(),
                      parse_assignments(["hands=2000", "policy=heuristic"]))
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import tomllib
import types
import typing
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any

from spiel_game._checks import check_seed as _check_seed, shorten

__all__ = ["ConfigError", "config_fields", "make_config", "config_from_dict", "convert_fields",
           "load_toml", "load_config_file", "parse_assignments",
           "config_to_dict", "fingerprint", "check_config_class", "check_names",
           "check_seed", "seed_bits", "check_unit_count", "check_output_dir",
           "SEED_LIMIT", "MAX_UNITS"]

#: Seeds are integers ``0 <= seed < SEED_LIMIT``.
SEED_LIMIT = 2**32
#: The longest config file (TOML) read; a config is a few lines.
MAX_CONFIG_BYTES = 1 << 20
#: The most units of work one run may list (each unit is a dict in memory and a
#: shard file on disk); a config asking for more is refused before listing them.
MAX_UNITS = 100_000


class ConfigError(ValueError):
    """An unknown key, or a value that does not fit the field's type."""


#: ``check_seed(seed, where="seed", bits=32)``: ``seed`` as an int if
#: ``0 <= seed < 2**bits`` (default :data:`SEED_LIMIT`, ``2**32``); else
#: :class:`ConfigError` ``"WHERE=VALUE is out of range; allowed: an int in [0, 2**32)"``
#: (:func:`spiel_game._checks.check_seed`). Tournaments take ``bits=63``: the
#: studies derive their tournaments' seeds below ``2**62`` from their own seed.
check_seed = functools.partial(_check_seed, bits=32, error=ConfigError)


def check_unit_count(count: int, what: str) -> None:
    """Raise :class:`ConfigError` if ``count`` units of work (asked for by ``what``,
    e.g. ``"hands=10**12, chunk=1"``) exceed :data:`MAX_UNITS`."""
    if count > MAX_UNITS:
        raise ConfigError(f"{what} asks for {count:,} units of work; a run has at most "
                          f"{MAX_UNITS:,} (make the chunks larger)")


def check_output_dir(path) -> Path:
    """``path`` as a :class:`Path` if it is a folder that can be created and written
    (its first existing ancestor is a writable folder); otherwise
    :class:`ConfigError` ``"cannot write to PATH: ..."``. Nothing is created."""
    import os
    path = Path(path)
    probe = path
    while not probe.exists():
        if probe.is_symlink():
            raise ConfigError(f"cannot write to {path}: {probe} is a dangling link")
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"cannot write to {path}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write to {path}: no permission to write in {probe}")
    return path


def seed_bits(cls) -> int:
    """How many bits a config class's ``seed`` may have: its ``SEED_BITS`` class
    attribute (tournaments: 63), else 32."""
    return int(getattr(cls, "SEED_BITS", 32))


def _check_config_seed(config):
    if "seed" in {f.name for f in dataclasses.fields(config)}:
        check_seed(config.seed, where=f"{type(config).__name__}.seed", bits=seed_bits(type(config)))
    return config


def check_names(kind: str, names, known) -> None:
    """Raise :class:`ConfigError` naming the unknown ``names`` and the ``known`` ones."""
    bad = [x for x in names if x not in known]
    if bad:
        raise ConfigError(f"unknown {kind}(s) {bad}; known: {list(known)}")


def check_config_class(cls) -> None:
    """Raise unless ``cls`` is a frozen dataclass with an ``int`` field ``seed``."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass")
    if not cls.__dataclass_params__.frozen:
        raise TypeError(f"{cls.__name__} must be a frozen dataclass (@dataclass(frozen=True))")
    if "seed" not in config_fields(cls):
        raise TypeError(f"{cls.__name__} needs a field 'seed: int' (the experiment's seed)")


def config_fields(cls) -> dict[str, Any]:
    """``{name: resolved type}`` of the dataclass fields of ``cls``, in order."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def config_to_dict(config) -> dict:
    """A JSON-ready dict of a configuration (tuples become lists)."""
    return json.loads(json.dumps(dataclasses.asdict(config), default=_json_default))


def fingerprint(obj) -> str:
    """A stable SHA-256 of a JSON-serializable value (configs, unit lists)."""
    text = json.dumps(obj, sort_keys=True, default=_json_default, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _json_default(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.asdict(x)
    if isinstance(x, (tuple, set, frozenset)):
        return list(x)
    item = getattr(x, "item", None)          # numpy scalars
    if callable(item):
        return item()
    tolist = getattr(x, "tolist", None)      # numpy arrays
    if callable(tolist):
        return tolist()
    raise TypeError(f"not JSON-serializable: {type(x).__name__}")


def make_config(cls, base=None, overrides: Mapping[str, Any] | None = None):
    """``base`` (default ``cls()``) with ``overrides`` applied, types converted.

    String values (from the command line) are parsed into the field's type;
    other values are checked and converted (a list for a tuple field, an int
    for a float field).
    """
    base = cls() if base is None else base
    if not isinstance(base, cls):
        raise ConfigError(f"base config is a {type(base).__name__}, expected {cls.__name__}")
    changes = convert_fields(cls, overrides or {})
    if "seed" in changes:
        check_seed(changes["seed"], where=f"{cls.__name__}.seed", bits=seed_bits(cls))
    try:
        config = dataclasses.replace(base, **changes)
    except ConfigError:
        raise
    except (TypeError, ValueError) as err:   # __post_init__ validation
        msg = str(err)
        if len(msg) > 600:
            msg = f"{msg[:570]}... ({len(msg):,} characters)"
        raise ConfigError(f"{cls.__name__}: {msg}") from None
    return _check_config_seed(config)


def config_from_dict(cls, data: Mapping[str, Any], *, error: type[Exception] = ConfigError):
    """``cls(**data)`` with the keys checked and the values converted to the fields'
    types (:func:`convert_fields`); fields without a default must be given. Every
    problem raises ``error`` (default :class:`ConfigError`) naming the key and
    the allowed ones. The one way to build a configuration from a dict (JSON,
    TOML, ``--set``): the runner's configs, tournaments and ladders use it."""
    names = list(config_fields(cls))
    if not isinstance(data, Mapping):
        raise error(f"a {cls.__name__} is a mapping of {names}, got {data!r}")
    try:
        values = convert_fields(cls, data)
    except ConfigError as err:
        raise error(str(err)) from None
    missing = [f.name for f in dataclasses.fields(cls) if f.name not in values
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise error(f"{cls.__name__} needs {missing}; allowed: {', '.join(names)}")
    if "seed" in values:
        try:
            check_seed(values["seed"], where=f"{cls.__name__}.seed", bits=seed_bits(cls))
        except ConfigError as err:
            raise error(str(err)) from None
    return cls(**values)


def convert_fields(cls, data: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """``data`` with every key checked against the fields of ``cls`` and every value
    converted to its field's annotated type (:func:`convert`); raises
    :class:`ConfigError` naming the unknown key (and the allowed ones) or the
    key whose value does not fit. ``where``: a prefix for the message (a file)."""
    fields = config_fields(cls)
    pre = f"{where}: " if where else ""
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{pre}unknown config key(s) {shorten(unknown, 200)} for {cls.__name__}; "
                          f"allowed: {', '.join(fields)}")
    out = {}
    for key, value in data.items():
        try:
            out[key] = convert(value, fields[key])
        except (TypeError, ValueError) as err:
            if where:
                raise ConfigError(f"{pre}{key} = {shorten(value, 200)}: {err} (field "
                                  f"{cls.__name__}.{key}: {_type_name(fields[key])})") from None
            raise ConfigError(f"{cls.__name__}.{key}: {err}") from None
    return out


def load_toml(path: str | Path) -> dict[str, Any]:
    """The key/value pairs of a TOML file (flat: one key per config field).

    Every problem raises :class:`ConfigError` naming the file: missing or
    unreadable, not a regular file (a FIFO, a device: refused unread), longer
    than :data:`MAX_CONFIG_BYTES`, not UTF-8, invalid TOML (with the line and column and the
    offending line), or tables where flat keys are expected.
    """
    from spiel_game._safe_io import RefusedFile, read_bytes
    path = Path(path)
    try:
        raw = read_bytes(path, MAX_CONFIG_BYTES, "config file")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except RefusedFile as err:
        if err.problem.startswith("is a folder"):
            raise ConfigError(f"config file {path} is a directory, not a TOML file") from None
        raise ConfigError(f"{err} (a TOML file)") from None
    except OSError as err:
        raise ConfigError(f"config file {path} cannot be read: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start}, line {line}); "
                          f"a config file is TOML text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: invalid TOML: {_toml_where(str(err), text)}") from None
    except RecursionError:
        raise ConfigError(f"{path}: values nested too deeply; a config file holds flat "
                          f"key = value lines (lists of plain values)") from None
    nested = [k for k, v in data.items() if isinstance(v, dict)]
    if nested:
        raise ConfigError(f"{path}: tables {nested} are not config fields; write the fields "
                          f"as top-level keys (key = value)")
    return data


def _toml_where(msg: str, text: str) -> str:
    """tomllib's message with the line and column spelled out and the line quoted."""
    lines = text.split("\n")
    m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
    if m:
        line, col = int(m[1]), int(m[2])
        src = lines[line - 1] if 0 < line <= len(lines) else ""
    elif "(at end of document)" in msg:
        line, col = len(lines), len(lines[-1]) + 1
        msg = msg.replace("(at end of document)", f"(at end of document: line {line}, "
                                                  f"column {col})")
        src = next((x for x in reversed(lines) if x.strip()), "")   # the last line written
    else:
        return msg
    hint = ""
    if re.fullmatch(r"\s*[A-Za-z0-9_-]+\s*=\s*[A-Za-z_][^\"'\[{]*", src) and \
            not re.fullmatch(r"\s*[A-Za-z0-9_-]+\s*=\s*(true|false|inf|nan)\s*(#.*)?", src):
        hint = " (a string value needs quotes: key = \"value\")"
    src = src.strip()
    src = src if len(src) <= 120 else f"{src[:100]}... ({len(src):,} characters)"
    return f"{msg}: {src!r}{hint}"


def load_config_file(path: str | Path, cls) -> dict[str, Any]:
    """The overrides of TOML file ``path`` for config class ``cls``: keys checked
    against the fields and values converted to their types; every error names
    the file, the key and what is allowed."""
    return convert_fields(cls, load_toml(path), where=str(path))


def _type_name(tp) -> str:
    return tp.__name__ if isinstance(tp, type) else str(tp).replace("typing.", "")


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """``["hands=200", "policy=uniform"]`` -> ``{"hands": "200", "policy": "uniform"}``."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


# ------------------------------------------------------------------ conversion
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _parse_literal(text: str):
    """A TOML literal (``[5, 6]``, ``"x"``, ``1.5``) or the text itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def convert(value, tp):
    """``value`` converted to type annotation ``tp`` (raises ValueError/TypeError)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and (value is None or (isinstance(value, str)
                                                     and value.lower() in ("none", "null"))):
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return convert(value, a)
            except (TypeError, ValueError) as err:
                errors.append(str(err))
        raise ValueError("; ".join(errors))
    if origin is typing.Literal:
        v = value
        if isinstance(value, str) and not all(isinstance(a, str) for a in args):
            v = _parse_literal(value)
        if v not in args:
            raise ValueError(f"{shorten(value, 200)} is not one of {list(args)}")
        return v
    if origin in (tuple, list):
        if isinstance(value, Mapping):        # {key: value} for a tuple of pairs, sorted
            value = sorted(value.items())
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                value = _parse_literal(text)
            else:
                value = [x.strip() for x in text.split(",") if x.strip()] if text else []
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {shorten(value, 200)}")
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis) and args:
            if len(args) != len(value):
                raise ValueError(f"expected {len(args)} items, got {len(value)}")
            return tuple(convert(v, a) for v, a in zip(value, args))
        item = args[0] if args else Any
        seq = [convert(v, item) for v in value]
        return tuple(seq) if origin is tuple else seq
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise ValueError(f"expected a boolean, got {shorten(value, 200)}")
    if tp is int:
        if isinstance(value, bool):
            raise TypeError(f"expected an integer, got {shorten(value, 200)}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.replace("_", ""))
            except ValueError:
                raise ValueError(f"expected an integer, got {shorten(value, 200)}") from None
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise TypeError(f"expected an integer, got {shorten(value, 200)}")
    if tp is float:
        if isinstance(value, bool):
            raise TypeError(f"expected a number, got {shorten(value, 200)}")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise ValueError(f"expected a number, got {shorten(value, 200)}") from None
        raise TypeError(f"expected a number, got {shorten(value, 200)}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise TypeError(f"expected a string, got {shorten(value, 200)}")
    if isinstance(tp, type) and isinstance(value, tp):
        return value
    raise TypeError(f"cannot convert {shorten(value, 200)} to {tp}")
