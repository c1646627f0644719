"""Game records: a played hand or match as a documented, versioned JSON document.

**Format** (``"format": "cancellation-hearts-record"``, ``"version": 1``): one
JSON object with exactly these keys (a record file holds one object; a JSON
Lines file, ``.jsonl``, one object per line)::

    {"format": "cancellation-hearts-record", "version": 1,
     "game":    {"players": 6, "deck": "balanced", ...},   # every game parameter
     "seats":   [{"agent": "heuristic", "seed": 17}, {"agent": "human", "seed": null}, ...],
     "seed":    3,               # the seed that drew the chance outcomes (or null)
     "actions": [41, 7, ...],    # the full history, chance outcomes included
     "returns": [-4.0, -13.0, ...],
     "seconds": [null, 0.002, ...],  # optional (null): thinking time per action
     "info":    {"source": "...", ...}}                    # optional free-form JSON

``game`` holds all parameters (``game.get_parameters()``), so a record does
not depend on the defaults of the version that wrote it; ``seats`` has one
entry per seat: the agent spec of :mod:`solvers._registry` (or ``"human"``) and
the seed it was built with; ``actions`` are OpenSpiel action ids as
``state.history()`` lists them (cards ``rank*4 + suit``, the joker 52, moon
choices 53/54; chance outcomes are dealt card types, or deal indices with
``deal="whole"``); ``returns`` are ``state.returns()`` at the end of the
game (the finished hand, or the finished match).

**Reading is checking.** :func:`read_record`, :func:`read_records` and
:meth:`GameRecord.from_dict` accept plain JSON only (no ``eval``, no pickle;
``NaN``/``Infinity`` refused) and raise :class:`RecordError` naming the file
(and line) and what is wrong: not a record, an unknown or newer version, a
missing or unknown field, a value of the wrong type, bad game parameters, a
seat list of the wrong length. :func:`replay` plays the actions through the
pyspiel game and raises :class:`RecordError` naming the record, the move index
(0-based, chance outcomes counted) and what is wrong: an illegal action (with
the legal ones), a game that ends early or is not over, returns that differ
from the recorded ones.

**Imitation learning.** :func:`imitation_pairs` replays records and returns,
for every decision of the chosen seats (or agents), the deciding player's
information-state tensor, the action taken and the legal-action mask.

This module is rules-level (it imports neither ``solvers`` nor
``experiments``); it is a subpackage so that editing it does not invalidate
the compiled engine kernels' cache (:mod:`spiel_game._numba_cache` hashes the
top-level modules of ``spiel_game`` only).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from . import _safe_io as safe_io
from ._checks import shorten

__all__ = ["FORMAT", "VERSION", "HUMAN", "RecordError", "GameRecord", "record_from_state",
           "read_record", "read_records", "iter_records", "write_record", "append_records",
           "replay", "imitation_pairs", "ImitationPairs"]

FORMAT = "cancellation-hearts-record"
VERSION = 1
HUMAN = "human"                         # the agent spec of a seat a person played

_REQUIRED = ("format", "version", "game", "seats", "actions", "returns")
_OPTIONAL = ("seed", "seconds", "info")
_SEAT_KEYS = ("agent", "seed")


class RecordError(ValueError):
    """A game record that cannot be read or replayed; the message names the record
    (file and line where known), the field or move, and what is wrong."""


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_num(v) -> bool:
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, (bool, np.bool_)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:                # an integer too large for a float
        return False


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One finished game (a hand, or a match). ``game``: every game parameter;
    ``seats``: per seat ``{"agent": spec or "human", "seed": int or None}``;
    ``actions``: the full history (chance outcomes included); ``returns``: the
    final returns; ``seed``: the seed of the chance outcomes (or None);
    ``seconds``: thinking time per action (None where not timed) or None;
    ``info``: free-form JSON (source, date, tournament deal, ...); ``origin``:
    where it was read from (used in error messages; not saved)."""

    game: dict
    seats: tuple
    actions: tuple
    returns: tuple
    seed: int | None = None
    seconds: tuple | None = None
    info: dict = dataclasses.field(default_factory=dict)
    origin: str = dataclasses.field(default="record", compare=False)

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    @property
    def agents(self) -> list[str]:
        """The agent spec of each seat (``"human"`` for a person)."""
        return [s["agent"] for s in self.seats]

    def to_dict(self) -> dict:
        """The JSON object of this record (format and version first)."""
        return {"format": FORMAT, "version": VERSION, "game": dict(self.game),
                "seats": [dict(s) for s in self.seats], "seed": self.seed,
                "actions": list(self.actions), "returns": list(self.returns),
                "seconds": None if self.seconds is None else list(self.seconds),
                "info": dict(self.info)}

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (one line unless ``indent``)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, obj: Any, origin: str = "record") -> GameRecord:
        """Check a parsed JSON object and build the record; :class:`RecordError`
        (starting with ``origin``) names the first problem. The game parameters
        are checked by :func:`spiel_game.load`; actions are checked by :func:`replay`."""
        def bad(msg: str) -> RecordError:
            return RecordError(f"{origin}: {msg}")

        if not isinstance(obj, Mapping):
            raise bad(f"a record is a JSON object, got {type(obj).__name__}")
        if obj.get("format") != FORMAT:
            raise bad(f"not a Cancellation Hearts game record: 'format' is "
                      f"{shorten(obj.get('format'), 60, count=False)}, expected {FORMAT!r}")
        v = obj.get("version")
        if not _is_int(v):
            raise bad(f"'version' must be an integer, got {shorten(v, 60, count=False)}")
        if v != VERSION:
            newer = " (written by a newer version of this package?)" if v > VERSION else ""
            raise bad(f"unknown record version {v}{newer}; this reader knows version {VERSION}")
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise bad(f"missing field(s) {missing}; a record has {list(_REQUIRED)} and "
                      f"optionally {list(_OPTIONAL)}")
        unknown = sorted(set(obj) - set(_REQUIRED) - set(_OPTIONAL))
        if unknown:
            raise bad(f"unknown field(s) {unknown}; allowed: {list(_REQUIRED + _OPTIONAL)}")

        game = obj["game"]
        if not isinstance(game, Mapping) or not all(
                isinstance(k, str) and (_is_int(x) or isinstance(x, str))
                for k, x in game.items()):
            raise bad(f"'game' must be an object of game parameters (integers or strings), "
                      f"got {shorten(game, 60, count=False)}")
        players = _game_players(dict(game), origin)

        seats = obj["seats"]
        if not isinstance(seats, list):
            raise bad(f"'seats' must be a list of {{'agent': ..., 'seed': ...}}, "
                      f"got {shorten(seats, 60, count=False)}")
        if len(seats) != players:
            raise bad(f"'seats' has {len(seats)} entries but the game has {players} players")
        for q, s in enumerate(seats):
            if not isinstance(s, Mapping) or set(s) - set(_SEAT_KEYS) or "agent" not in s:
                raise bad(f"seat {q} must be an object with 'agent' (a spec or "
                          f"{HUMAN!r}) and optionally 'seed', got {shorten(s, 60, count=False)}")
            if not isinstance(s["agent"], str) or not s["agent"].strip():
                raise bad(f"seat {q}: 'agent' must be a non-empty string, got "
                          f"{shorten(s['agent'], 60, count=False)}")
            if s.get("seed") is not None and not _is_int(s["seed"]):
                raise bad(f"seat {q}: 'seed' must be an integer or null, got "
                          f"{shorten(s['seed'], 60, count=False)}")

        actions = obj["actions"]
        if not isinstance(actions, list):
            raise bad(f"'actions' must be a list of integers, got "
                      f"{shorten(actions, 60, count=False)}")
        for i, a in enumerate(actions):
            if not _is_int(a):
                raise bad(f"'actions'[{i}] must be an integer action, got "
                          f"{shorten(a, 60, count=False)}")
        returns = obj["returns"]
        if (not isinstance(returns, list) or len(returns) != players
                or not all(_is_num(x) for x in returns)):
            raise bad(f"'returns' must be a list of {players} finite numbers, got "
                      f"{shorten(returns, 60, count=False)}")
        seed = obj.get("seed")
        if seed is not None and not _is_int(seed):
            raise bad(f"'seed' must be an integer or null, got {shorten(seed, 60, count=False)}")
        seconds = obj.get("seconds")
        if seconds is not None:
            if not isinstance(seconds, list) or len(seconds) != len(actions):
                raise bad(f"'seconds' must be null or a list with one entry per action "
                          f"({len(actions)}), got {shorten(seconds, 60, count=False)}")
            for i, t in enumerate(seconds):
                if t is not None and not (_is_num(t) and t >= 0):
                    raise bad(f"'seconds'[{i}] must be null or a number >= 0, got "
                              f"{shorten(t, 60, count=False)}")
            seconds = tuple(None if t is None else float(t) for t in seconds)
        info = obj.get("info")
        if info is None:
            info = {}
        if not isinstance(info, Mapping):
            raise bad(f"'info' must be a JSON object, got {shorten(info, 60, count=False)}")
        return cls(game=dict(game), seats=tuple({"agent": s["agent"], "seed": s.get("seed")}
                                                for s in seats),
                   actions=tuple(int(a) for a in actions),
                   returns=tuple(float(x) for x in returns), seed=seed, seconds=seconds,
                   info=dict(info), origin=origin)


def _load_game(params: dict, origin: str):
    import pyspiel
    import spiel_game
    try:
        return spiel_game.load(params)
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise RecordError(f"{origin}: bad game parameters in 'game': {e}") from None


_PLAYERS: dict[str, int] = {}           # game parameters (JSON) -> players, for reading


def _game_players(params: dict, origin: str) -> int:
    """The number of players of the game ``params`` (checked; remembered per parameters)."""
    key = json.dumps(params, sort_keys=True)
    if key not in _PLAYERS:
        n = _load_game(params, origin).num_players()
        if len(_PLAYERS) > 256:
            _PLAYERS.clear()
        _PLAYERS[key] = n
    return _PLAYERS[key]


def _seat_entries(seats, n: int) -> tuple:
    if len(seats) != n:
        raise RecordError(f"{len(seats)} seats given for a {n}-player game")
    out = []
    for q, s in enumerate(seats):
        if isinstance(s, str):
            out.append({"agent": s, "seed": None})
        elif isinstance(s, Mapping) and "agent" in s:
            out.append({"agent": str(s["agent"]), "seed": s.get("seed")})
        else:
            raise RecordError(f"seat {q}: give an agent spec string or {{'agent': spec, "
                              f"'seed': int}}, got {shorten(s, 60, count=False)}")
    return tuple(out)


def record_from_state(state, seats: Sequence, *, seed: int | None = None,
                      seconds: Sequence[float | None] | None = None,
                      info: Mapping | None = None) -> GameRecord:
    """The record of a finished game ``state``: its game's parameters, its history
    and returns. ``seats``: one agent spec (or ``"human"``, or ``{"agent": spec,
    "seed": int}``) per seat; ``seed``: the seed of the chance outcomes;
    ``seconds``: thinking time per action (None where not timed)."""
    if not state.is_terminal():
        raise RecordError(f"a record is written for a finished game; this state is at move "
                          f"{state.move_number()} with player {state.current_player()} to move")
    game = state.get_game()
    actions = tuple(int(a) for a in state.history())
    rec = GameRecord(game=dict(game.get_parameters()),
                     seats=_seat_entries(list(seats), game.num_players()), actions=actions,
                     returns=tuple(float(x) for x in state.returns()), seed=seed,
                     seconds=None if seconds is None else tuple(seconds),
                     info=dict(info or {}))
    return GameRecord.from_dict(json.loads(rec.to_json()), "new record")   # checks the fields


# ------------------------------------------------------------------ files
def _reject_constant(name):
    raise ValueError(f"{name} is not allowed in a record (numbers must be finite)")


def _parse(text: str, origin: str) -> GameRecord:
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise RecordError(f"{origin}: not valid JSON: {e}") from None
    return GameRecord.from_dict(obj, origin)


#: The longest record file :func:`read_record` reads, and the longest line of a
#: JSON Lines file (one record): a record of the longest game is far smaller.
MAX_RECORD_BYTES = 16 << 20


def _read_text(path, max_bytes: int = MAX_RECORD_BYTES) -> str:
    path = Path(path)
    try:
        return safe_io.read_text(path, max_bytes, "record file")
    except safe_io.RefusedFile as e:
        if e.problem.startswith("is a folder"):
            raise RecordError(f"{path} is a folder; give the path of a record file (.json or "
                              f".jsonl)") from None
        raise RecordError(f"{e}; give the path of a record file (.json or .jsonl)") from None
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except IsADirectoryError:
        raise RecordError(f"{path} is a folder; give the path of a record file (.json or "
                          f".jsonl)") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_record(path) -> GameRecord:
    """The one record in the JSON file ``path`` (see :func:`read_records` for
    JSON Lines files); :class:`RecordError` names the file and the problem."""
    text = _read_text(path)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and all(ln.lstrip().startswith("{") for ln in lines):
        raise RecordError(f"{path}: holds {len(lines)} JSON lines, not one record; read a "
                          f"JSON Lines file of records with read_records()")
    return _parse(text, str(path))


def _lines(path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of the non-blank lines of a record file, read one by
    one (each at most :data:`MAX_RECORD_BYTES`), so memory stays bounded."""
    path = Path(path)
    try:
        for no, raw in enumerate(safe_io.iter_lines(path, MAX_RECORD_BYTES, "record file"), 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{path} line {no}: not UTF-8 text ({e.reason} at byte "
                                  f"{e.start})") from None
            if line.strip():
                yield no, line
    except safe_io.RefusedFile as e:
        raise RecordError(f"{e}; give the path of a record file (.json or .jsonl)") from None
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot be read ({e.strerror or e})") from None


def iter_records(path) -> Iterator[GameRecord]:
    """The records of the JSON Lines file ``path`` one by one (blank lines skipped),
    read line by line (a line longer than :data:`MAX_RECORD_BYTES` is refused);
    a bad line raises :class:`RecordError` naming the file and the line number."""
    for no, line in _lines(path):
        yield _parse(line, f"{path} line {no}")


def read_records(path) -> list[GameRecord]:
    """Every record of a JSON Lines file (one record per line), or the one record of
    a JSON file (as :func:`write_record` writes it); :class:`RecordError` names the
    file, the line and the problem."""
    head = []
    for _, line in _lines(path):            # the first two lines tell the layout
        head.append(line)
        if len(head) == 2:
            break
    if len(head) > 1 and not head[1].lstrip().startswith("{"):
        return [_parse(_read_text(path), str(path))]      # one indented record
    return list(iter_records(path))


def write_record(record: GameRecord, path) -> Path:
    """Write one record as an indented JSON file (atomically: a temporary file, then
    ``os.replace``); returns the path."""
    if not isinstance(record, GameRecord):
        raise TypeError(f"write_record: expected a GameRecord, got {type(record).__name__}")
    path = Path(path)
    if path.is_dir():
        raise RecordError(f"cannot write the record to {path}: it is a folder; give a file "
                          f"name (e.g. {path / 'game.json'})")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(record.to_json(indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def append_records(records: Iterable[GameRecord], path) -> Path:
    """Append records to the JSON Lines file ``path`` (one line each, flushed and
    fsynced); returns the path."""
    lines = []
    for r in records:
        if not isinstance(r, GameRecord):
            raise TypeError(f"append_records: expected GameRecords, got {type(r).__name__}")
        lines.append(r.to_json() + "\n")
    path = Path(path)
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(lines))
        f.flush()
        os.fsync(f.fileno())
    return path


# ------------------------------------------------------------------ replay
def _walk(record: GameRecord, game=None) -> Iterator[tuple[int, Any, int, int]]:
    """Play ``record`` through its game, yielding ``(move, state before, player,
    action)`` for every action after checking it is legal; at the end checks the
    game is over and the returns equal the recorded ones. The state is reused:
    copy it to keep it."""
    import pyspiel
    if not isinstance(record, GameRecord):
        raise TypeError(f"expected a GameRecord, got {type(record).__name__}")
    where = record.origin
    game = game or _load_game(dict(record.game), where)
    if game.num_players() != len(record.seats):
        raise RecordError(f"{where}: {len(record.seats)} seats for a {game.num_players()}-"
                          f"player game")
    st = game.new_initial_state()
    for i, a in enumerate(record.actions):
        if st.is_terminal():
            raise RecordError(f"{where}: move {i}: the game ended after {i} moves but the "
                              f"record has {len(record.actions)} actions")
        if st.is_chance_node():
            player = pyspiel.PlayerId.CHANCE
            legal = [o for o, p in st.chance_outcomes() if p > 0]
            who = "chance"
        else:
            player = st.current_player()
            legal = st.legal_actions()
            who = f"player {player} ({record.seats[player]['agent']})"
        if a not in legal:
            names = [st.action_to_string(player, x) for x in legal[:60]]
            more = f" and {len(legal) - 60} more" if len(legal) > 60 else ""
            label = st.action_to_string(player, a) if 0 <= a < 10**6 else str(a)
            raise RecordError(f"{where}: move {i}: illegal action {a} ({label}) for {who}; "
                              f"legal: {names}{more}")
        yield i, st, player, a
        st.apply_action(a)
    if not st.is_terminal():
        who = ("chance" if st.is_chance_node() else f"player {st.current_player()}")
        raise RecordError(f"{where}: the record ends after {len(record.actions)} moves but the "
                          f"game is not over ({who} to move)")
    got = [float(x) for x in st.returns()]
    if not np.allclose(got, record.returns, rtol=0, atol=1e-9):
        raise RecordError(f"{where}: mismatched result: the record says returns "
                          f"{list(record.returns)} but replaying its actions gives {got}")


def replay(record: GameRecord):
    """The final pyspiel state of ``record``, after checking every action is legal,
    the game is over and its returns equal the recorded ones (else
    :class:`RecordError` naming the record, the move index and what is wrong)."""
    last = collections.deque(_walk(record), maxlen=1)    # runs every check to the end
    return last[0][1]           # the state, with the last action applied by _walk


class ImitationPairs(NamedTuple):
    """Decisions for imitation learning: ``tensors`` float32[N, T] (the deciding
    player's information-state tensor), ``actions`` int64[N] (the action taken),
    ``legal`` bool[N, A] (legal actions, A = ``num_distinct_actions``),
    ``players`` int64[N] (the seat)."""

    tensors: np.ndarray
    actions: np.ndarray
    legal: np.ndarray
    players: np.ndarray


def imitation_pairs(records: GameRecord | Iterable[GameRecord], player: int | None = None,
                    *, agent: str | None = None, forced: bool = False) -> ImitationPairs:
    """(information-state tensor, action) for every decision in ``records``, each
    replayed and checked as by :func:`replay`. ``player``: only this seat (None:
    every seat); ``agent``: only seats whose agent spec equals this string (e.g.
    ``"heuristic"``); ``forced``: also moves with a single legal action (default:
    only real choices). Every record must give tensors of the same size."""
    import pyspiel
    if isinstance(records, GameRecord):
        records = [records]
    if player is not None and not _is_int(player):
        raise RecordError(f"player must be a seat number or None, got "
                          f"{shorten(player, 60, count=False)}")
    X, y, L, P = [], [], [], []
    size = None
    observers: dict[str, Any] = {}
    for rec in records:
        if not isinstance(rec, GameRecord):
            raise TypeError(f"imitation_pairs: expected GameRecords, got {type(rec).__name__}")
        if player is not None and not 0 <= player < rec.players:
            raise RecordError(f"{rec.origin}: player {player} is not a seat of this "
                              f"{rec.players}-player game (0..{rec.players - 1})")
        key = json.dumps(rec.game, sort_keys=True)
        if key not in observers:
            game = _load_game(dict(rec.game), rec.origin)
            obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
            observers[key] = (game, obs)
        game, obs = observers[key]
        if size is None:
            size = (obs.tensor.size, game.num_distinct_actions())
        elif size != (obs.tensor.size, game.num_distinct_actions()):
            raise RecordError(f"{rec.origin}: its information-state tensor has "
                              f"{obs.tensor.size} entries and {game.num_distinct_actions()} "
                              f"actions, the earlier records' {size[0]} and {size[1]}; "
                              f"give records of games with the same layout")
        for _, st, p, a in _walk(rec, game):
            if p < 0 or (player is not None and p != player):
                continue
            if agent is not None and rec.seats[p]["agent"] != agent:
                continue
            legal = st.legal_actions()
            if len(legal) < 2 and not forced:
                continue
            obs.set_from(st, p)
            X.append(obs.tensor.copy())
            y.append(a)
            m = np.zeros(size[1], bool)
            m[legal] = True
            L.append(m)
            P.append(p)
    t = size[0] if size else 0
    a_n = size[1] if size else 0
    return ImitationPairs(np.asarray(X, np.float32).reshape(len(y), t),
                          np.asarray(y, np.int64), np.asarray(L, bool).reshape(len(y), a_n),
                          np.asarray(P, np.int64))
