"""Play and score random hands with 6 and 11 players through the pyspiel API.

As a runner experiment (``python -m experiments run demo``): one unit per
(player count, chunk of ``chunk`` hands); hand ``h`` with ``n`` players draws
from its own stream ``default_rng([seed, n, h])``, so the numbers do not depend
on the split. Rows: one per (player count, hand, seat) with the seat's points
and the hand's void tricks, cancelled pairs and whether someone shot the moon.
Random play is :func:`spiel_game._playout.play_random`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

import spiel_game
from spiel_game import _engine as E
from spiel_game._playout import play_random

from .._base.registry import Summary, Unit, register
from .._base.config import check_unit_count

__all__ = ["DemoConfig", "PROFILES", "units", "run_unit", "summarize_rows"]


@dataclasses.dataclass(frozen=True)
class DemoConfig:
    """Random hands through the pyspiel API with 6 and 11 players."""

    players: tuple[int, ...] = (6, 11)
    hands: int = 200             # hands per player count
    seed: int = 20261129
    chunk: int = 50              # hands per unit of work (does not change the numbers)

    def __post_init__(self):
        # Checked here, when the config is built, so that an impossible game is
        # refused before the runner writes anything (not inside a unit).
        if self.hands < 1 or self.chunk < 1:
            raise ValueError(f"hands and chunk must be >= 1, got {self.hands}, {self.chunk}")
        check_unit_count(len(self.players) * -(-self.hands // self.chunk),
                         f"hands={self.hands}, chunk={self.chunk}")
        if not self.players:
            raise ValueError("players must name at least one player count (e.g. players=6,11)")
        if len(set(self.players)) != len(self.players):
            raise ValueError(f"players {list(self.players)} repeats a player count")
        for n in self.players:
            try:
                spiel_game.RuleSet.from_params({"players": n})
            except ValueError as err:      # GameParameterError: names what is allowed
                raise ValueError(f"players: {err}") from None


PROFILES = {"quick": DemoConfig(), "paper": DemoConfig(hands=20000, chunk=500)}


# ------------------------------------------------------------ runner experiment
def units(config: DemoConfig) -> list[dict]:
    """One unit per (player count, chunk of hands)."""
    return [{"players": n, "first_hand": first, "hands": min(config.chunk, config.hands - first)}
            for n in config.players for first in range(0, config.hands, config.chunk)]


def run_unit(config: DemoConfig, unit: Unit) -> list[dict]:
    n = unit.params["players"]
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    rows = []
    first = unit.params["first_hand"]
    for h in range(first, first + unit.params["hands"]):
        st = play_random(game, np.random.default_rng([config.seed, n, h]))
        s = st.engine_state
        hand = {"players": n, "hand": h, "void_tricks": int(s[E.S_VOIDS]),
                "cancelled_pairs": int(s[E.S_CANCELS]), "moon": bool(s[E.S_SHOOTER] >= 0)}
        for q, r in enumerate(st.returns()):
            rows.append({**hand, "seat": q, "points": -int(r)})
    return rows


def summarize_rows(config: DemoConfig, rows) -> Summary:
    import pandas as pd

    seats = (rows.groupby(["players", "seat"], sort=False)["points"].mean()
             .rename("mean_points").reset_index())
    hands = rows[rows.seat == 0]
    per = []
    lines = []
    for n, g in hands.groupby("players", sort=False):
        pts = rows[rows.players == n].groupby("hand")["points"].sum()
        rec = {"players": int(n), "hands": len(g),
               "rules": spiel_game.RuleSet.from_params({"players": int(n)}).describe(),
               "mean_points_per_hand": float(pts.mean()),
               "void_tricks_per_hand": float(g.void_tricks.mean()),
               "cancelled_pairs_per_hand": float(g.cancelled_pairs.mean()),
               "moons": int(g.moon.sum())}
        per.append(rec)
        m = seats[seats.players == n].mean_points.round(2).tolist()
        lines.append(f"{n} players, {rec['hands']} random hands: mean points per seat {m}, "
                     f"void tricks/hand {rec['void_tricks_per_hand']:.3f}, cancelled "
                     f"pairs/hand {rec['cancelled_pairs_per_hand']:.2f}, moons {rec['moons']}")
    return Summary(tables={"summary": pd.DataFrame(per), "seats": seats}, text="\n".join(lines))


register("demo", DemoConfig, units, run_unit, summarize_rows, profiles=PROFILES,
         description="random hands through the pyspiel API with 6 and 11 players")
