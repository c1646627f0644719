"""A tournament's configuration (:class:`TournamentConfig`), its seat assignments,
its deals and its game, and the errors a tournament raises."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import signal
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel

import spiel_game

from .._base.config import ConfigError, check_seed, config_from_dict

__all__ = ["TournamentConfig", "TournamentError", "TournamentInterrupted", "seat_assignments",
           "SHARD"]

#: The record file of earlier versions (:func:`experiments.tournament.read_records`).
SHARD = "deals.jsonl"


class TournamentError(RuntimeError):
    """A tournament that cannot run: a bad configuration, an illegal move, a foreign or
    damaged record file, an agent over the move time limit."""


class TournamentInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped the tournament; ``signum`` is the signal. Finished
    deals are saved; rerunning resumes."""

    def __init__(self, message: str = "", signum: int = signal.SIGINT):
        super().__init__(message)
        self.signum = int(signum)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """A tournament. ``agents``: registry specs (or names given in ``factories``);
    ``game``: game parameters as ``((key, value), ...)`` (a dict is accepted);
    ``lineup``: agent index per seat before rotation (default ``i % k``);
    ``rotations``: number of seat assignments (None: every distinct rotation);
    ``workers``: processes (results do not depend on it); ``move_time_limit``:
    seconds an agent may take for one call (None: no limit); ``first_deal``:
    the tournament plays deals ``first_deal .. first_deal + deals - 1`` (a block
    of a longer tournament: deal ``d`` depends only on ``(seed, d)``)."""

    agents: tuple[str, ...]
    game: tuple[tuple[str, Any], ...] = ()
    deals: int = 100
    seed: int = 0
    rotations: int | None = None
    lineup: tuple[int, ...] | None = None
    workers: int = 1
    move_time_limit: float | None = None
    first_deal: int = 0
    #: seeds are ``0 <= seed < 2**63`` (the studies derive theirs below ``2**62``)
    SEED_BITS: ClassVar[int] = 63

    def __post_init__(self):
        if isinstance(self.game, Mapping):
            object.__setattr__(self, "game", tuple(sorted(self.game.items())))
        if isinstance(self.agents, (str, bytes)) or not isinstance(self.agents, Sequence):
            raise TournamentError(f"agents must be a list of agent specs, got {self.agents!r}")
        object.__setattr__(self, "agents", tuple(str(a) for a in self.agents))
        if self.lineup is not None:
            if not all(_is_int(i) for i in self.lineup):
                raise TournamentError(f"lineup must be agent indices (integers), got "
                                      f"{list(self.lineup)!r}")
            object.__setattr__(self, "lineup", tuple(int(i) for i in self.lineup))
        if len(self.agents) < 1:
            raise TournamentError("a tournament needs at least one agent")
        try:
            check_seed(self.seed, bits=self.SEED_BITS)
        except ConfigError as err:
            raise TournamentError(str(err)) from None
        for name, lo in (("deals", 1), ("seed", None), ("workers", 1), ("first_deal", 0)):
            v = getattr(self, name)
            if not _is_int(v):
                raise TournamentError(f"{name} must be an integer, got {v!r}")
            if lo is not None and v < lo:
                raise TournamentError(f"{name} must be >= {lo}, got {v}")
            object.__setattr__(self, name, int(v))
        if self.rotations is not None and (not _is_int(self.rotations) or self.rotations < 1):
            raise TournamentError(f"rotations must be an integer >= 1 or None, "
                                  f"got {self.rotations!r}")
        lim = self.move_time_limit
        if lim is not None:
            if (isinstance(lim, (bool, np.bool_)) or not isinstance(lim, (int, float, np.number))
                    or not math.isfinite(lim) or lim <= 0):
                raise TournamentError(f"move_time_limit must be a number of seconds > 0 or "
                                      f"None (no limit), got {lim!r}")
            object.__setattr__(self, "move_time_limit", float(lim))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TournamentConfig:
        """Build from a dict (:func:`experiments._base.config.config_from_dict`): unknown
        keys, a missing ``agents`` or a value of the wrong type raise
        :class:`TournamentError` naming the allowed keys."""
        return config_from_dict(cls, d, error=TournamentError)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["game"] = dict(self.game)
        return d

    @property
    def game_params(self) -> dict:
        return dict(self.game)

    def fingerprint(self) -> str:
        """What the per-deal results depend on (not ``deals``, ``first_deal``,
        ``workers`` nor ``move_time_limit``)."""
        d = self.to_dict()
        del d["deals"], d["workers"], d["move_time_limit"], d["first_deal"]
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


def seat_assignments(n_seats: int, n_agents: int, lineup: Sequence[int] | None = None,
                     rotations: int | None = None) -> list[tuple[int, ...]]:
    """Agent index per seat for each assignment: the cyclic rotations of ``lineup``
    (distinct ones, in order of the shift), or ``rotations`` of them evenly spaced."""
    if n_agents > n_seats:
        raise TournamentError(f"{n_agents} agents do not fit {n_seats} seats")
    lineup = [i % n_agents for i in range(n_seats)] if lineup is None else list(lineup)
    if len(lineup) != n_seats:
        raise TournamentError(f"lineup has {len(lineup)} entries for {n_seats} seats")
    if min(lineup) < 0 or max(lineup) >= n_agents:
        raise TournamentError(f"lineup {lineup} names agents outside 0..{n_agents - 1}")
    if set(lineup) != set(range(n_agents)):
        raise TournamentError(f"lineup {lineup} leaves out agents "
                              f"{sorted(set(range(n_agents)) - set(lineup))}")
    seen, out = set(), []
    for r in range(n_seats):
        a = tuple(lineup[(q + r) % n_seats] for q in range(n_seats))
        if a not in seen:
            seen.add(a)
            out.append(a)
    if rotations is not None and rotations < len(out):
        out = [out[(j * len(out)) // rotations] for j in range(rotations)]
    return out


def _deal_range(config: TournamentConfig) -> range:
    return range(config.first_deal, config.first_deal + config.deals)


def _load_game(params: Mapping[str, Any]):
    try:
        return spiel_game.load(dict(params))
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise TournamentError(f"bad game parameters {dict(params)}: {e}") from None
