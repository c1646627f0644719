"""The quick main job (for now): play and score random hands with 6 and 11 players.

Run with ``python -m experiments reproduce``; writes ``results/<profile>/demo.json``.
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

__all__ = ["DemoConfig", "play_random_hand", "run"]


@dataclasses.dataclass(frozen=True)
class DemoConfig:
    players: tuple[int, ...] = (6, 11)
    hands: int = 200
    seed: int = 20261129


PROFILES = {"quick": DemoConfig(), "paper": DemoConfig(hands=20000)}


def play_random_hand(game, rng: np.random.Generator):
    """Play one hand with uniform random players through the pyspiel API."""
    st = game.new_initial_state()
    while not st.is_terminal():
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
