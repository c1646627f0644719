"""Play and score random hands with 6 and 11 players through the pyspiel API.

As a runner experiment (``python -m experiments run demo``): one unit per
(player count, chunk of ``chunk`` hands); hand ``h`` with ``n`` players draws
from its own stream ``default_rng([seed, n, h])``, so the numbers do not depend
on the split. Rows: one per (player count, hand, seat) with the seat's points
and the hand's void tricks, cancelled pairs and whether someone shot the moon.

The original one-shot form :func:`run` (one stream for everything, writes
``demo.json``) is kept.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game
from spiel_game import engine as E

from .metadata import metadata, write_result
from .registry import Summary, Unit, register

__all__ = ["DemoConfig", "play_random_hand", "play_random", "run", "units", "run_unit",
           "summarize_rows"]


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


def play_random_hand(game, rng: np.random.Generator):
    """Play one hand with uniform random players through the pyspiel API."""
    return play_random(game, rng)


def play_random(game, rng: np.random.Generator, *, cards_played: int | None = None,
                state=None):
    """Uniformly random play (chance by its probabilities) from ``state``
    (default: a new game) to the end, or until ``cards_played`` cards of the
    current hand have been played to tricks."""
    st = game.new_initial_state() if state is None else state.clone()
    while not st.is_terminal():
        if (cards_played is not None and not st.is_chance_node()
                and int(st.engine_state[E.S_NPLAYED]) >= cards_played):
            break
        if st.is_chance_node():
            outcomes, probs = zip(*st.chance_outcomes())
            st.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
    return st


def run(config: DemoConfig, out_dir: Path) -> dict:
    started = dt.datetime.now(dt.timezone.utc)
    rng = np.random.default_rng(config.seed)
    result = {}
    for n in config.players:
        game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
        pts = np.zeros((config.hands, n))
        voids = moons = cancels = 0
        for h in range(config.hands):
            st = play_random_hand(game, rng)
            s = st.engine_state
            pts[h] = [-x for x in st.returns()]
            voids += int(s[E.S_VOIDS])
            moons += int(s[E.S_SHOOTER] >= 0)
            cancels += int(s[E.S_CANCELS])
        result[f"{n}_players"] = {
            "rules": game.rules.describe(),
            "hands": config.hands,
            "mean_points_per_seat": pts.mean(axis=0).round(3).tolist(),
            "mean_points_per_hand": float(pts.sum(axis=1).mean()),
            "void_tricks_per_hand": voids / config.hands,
            "cancelled_pairs_per_hand": cancels / config.hands,
            "moons": moons,
        }
    write_result(out_dir / "demo.json", result, metadata(config, config.seed, started))
    return result


def summary(result: dict) -> str:
    lines = []
    for key, r in result.items():
        lines.append(f"{key}: {r['rules']}")
        lines.append(f"  {r['hands']} random hands: mean points per seat "
                     f"{r['mean_points_per_seat']}, void tricks/hand "
                     f"{r['void_tricks_per_hand']:.3f}, cancelled pairs/hand "
                     f"{r['cancelled_pairs_per_hand']:.2f}, moons {r['moons']}")
    return "\n".join(lines)


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
