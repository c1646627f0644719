"""Compact golden playthroughs: a seeded random game, every step written out.

Each file records, per step: move number, player, legal actions (card
notation), the action taken, the chance probability at chance nodes; at
checkpoints ``str(state)``, every player's information-state string and a
SHA-256 of every player's information-state and observation tensors; and the
returns at the end. ``regenerate`` rewrites the files; the test replays them.
OpenSpiel's own playthrough format (``generate_playthrough``) prints every
tensor in full, which is megabytes for 6-11 players; small games get that
format too (see tests/test_playthroughs.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyspiel

from .game import GAME_NAME
from .rules import PRESETS

__all__ = ["playthrough_text", "regenerate", "PLAYTHROUGH_DIR"]

PLAYTHROUGH_DIR = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


def _digest(values) -> str:
    return hashlib.sha256(np.asarray(values, np.float32).tobytes()).hexdigest()[:16]


def playthrough_text(params: dict, seed: int = 0, checkpoint_every: int = 25) -> str:
    game = pyspiel.load_game(GAME_NAME, params)
    rng = np.random.default_rng(seed)
    n = game.num_players()
    general_sum = game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    utility_sum = None if general_sum else game.get_utility_sum()
    lines = [f"game: {game}", f"seed: {seed}",
             f"num_distinct_actions: {game.num_distinct_actions()}",
             f"max_chance_outcomes: {game.max_chance_outcomes()}",
             f"utility: [{game.min_utility()}, {game.max_utility()}] sum={utility_sum}",
             f"max_game_length: {game.max_game_length()}",
             f"information_state_tensor_shape: {game.information_state_tensor_shape()}",
             f"observation_tensor_shape: {game.observation_tensor_shape()}", ""]
    st = game.new_initial_state()
    step = 0

    def checkpoint():
        lines.append("  state:")
        lines.extend("    " + ln for ln in str(st).splitlines())
        for p in range(n):
            lines.append(f"  info[{p}]: {st.information_state_string(p)}")
            lines.append(f"  tensors[{p}]: info={_digest(st.information_state_tensor(p))} "
                         f"obs={_digest(st.observation_tensor(p))}")

    while not st.is_terminal():
        p = st.current_player()
        if st.is_chance_node():
            outcomes = st.chance_outcomes()
            acts, probs = zip(*outcomes)
            i = int(rng.choice(len(acts), p=np.array(probs) / sum(probs)))
            a = acts[i]
            lines.append(f"{step} chance: {st.action_to_string(p, a)} p={probs[i]:.9g} "
                         f"({len(acts)} outcomes)")
        else:
            la = st.legal_actions()
            a = la[int(rng.integers(len(la)))]
            names = " ".join(st.action_to_string(p, x) for x in la)
            lines.append(f"{step} P{p}: {st.action_to_string(p, a)} of [{names}]")
        if step % checkpoint_every == 0:
            checkpoint()
        st.apply_action(a)
        step += 1
    checkpoint()
    lines.append(f"returns: {st.returns()}")
    return "\n".join(lines) + "\n"


#: A small game also written in OpenSpiel's own playthrough format.
OPENSPIEL_FORMAT_GAME = ("python_cancellation_hearts(deck=custom,players=2,suits=HS,"
                         "ranks=QKA,pass_count=0,deal=whole)")


def regenerate(directory: Path = PLAYTHROUGH_DIR) -> list[Path]:
    """Rewrite the golden playthrough of every preset (and the OpenSpiel-format one)."""
    from open_spiel.python.algorithms import generate_playthrough
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, params in PRESETS.items():
        path = directory / f"{name}.txt"
        path.write_text(playthrough_text(params, seed=0))
        out.append(path)
    path = directory / "openspiel_format_tiny.txt"
    path.write_text(generate_playthrough.playthrough(OPENSPIEL_FORMAT_GAME, None, seed=0))
    out.append(path)
    return out


if __name__ == "__main__":
    for p in regenerate():
        print(p)
