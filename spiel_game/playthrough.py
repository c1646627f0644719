"""Compact golden playthroughs: a seeded random game, every step written out.

Each file records, per step: move number, player, legal actions (card
notation), the action taken, the chance probability at chance nodes; at
checkpoints ``str(state)``, every player's information-state string and a
SHA-256 of every player's information-state and observation tensors; and the
returns at the end. OpenSpiel's own playthrough format
(``generate_playthrough``) prints every tensor in full, which is megabytes for
6-11 players; small games get that format too.

The golden files ship with the package (:data:`PLAYTHROUGH_DIR`, package data
``spiel_game/playthroughs/``), so an installed copy can be checked against
them: :func:`verify` (``python -m spiel_game.playthrough --check``) replays
every preset and names those that differ. :func:`regenerate` writes fresh
files into the folder its caller names (``python -m spiel_game.playthrough
DIR``); after an intended behaviour change, regenerate into
``spiel_game/playthroughs`` of a source checkout and review the diff.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyspiel

from .game import GAME_NAME
from ._rules import PRESETS

__all__ = ["playthrough_text", "regenerate", "verify", "PLAYTHROUGH_DIR",
           "OPENSPIEL_FORMAT_GAME", "OPENSPIEL_FORMAT_FILE"]

#: The golden playthroughs shipped with the package: ``<preset>.txt`` for every
#: preset, and :data:`OPENSPIEL_FORMAT_FILE`.
PLAYTHROUGH_DIR = Path(__file__).resolve().parent / "playthroughs"
#: The file of the small game written in OpenSpiel's own playthrough format.
OPENSPIEL_FORMAT_FILE = "openspiel_format_tiny.txt"


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


def regenerate(directory: str | Path, names=None) -> list[Path]:
    """Write the playthrough of every preset (or of the presets ``names``) and the
    OpenSpiel-format one into ``directory`` (created if missing); the paths written."""
    from open_spiel.python.algorithms import generate_playthrough
    directory = Path(directory)
    unknown = sorted(set(names or ()) - set(PRESETS))
    if unknown:
        raise ValueError(f"no preset {', '.join(unknown)}; the presets: {', '.join(PRESETS)}")
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name in PRESETS if names is None else names:
        path = directory / f"{name}.txt"
        path.write_text(playthrough_text(PRESETS[name], seed=0))
        out.append(path)
    path = directory / OPENSPIEL_FORMAT_FILE
    path.write_text(generate_playthrough.playthrough(OPENSPIEL_FORMAT_GAME, None, seed=0))
    out.append(path)
    return out


def verify(directory: str | Path = PLAYTHROUGH_DIR, names=None) -> list[str]:
    """Replay the golden playthrough of every preset (or of ``names``) in
    ``directory`` (default: the shipped ones); the presets whose file is missing
    or differs from a fresh playthrough, each with the first differing line."""
    directory = Path(directory)
    bad = []
    for name in sorted(PRESETS) if names is None else names:
        path = directory / f"{name}.txt"
        if not path.is_file():
            bad.append(f"{name}: {path} missing")
            continue
        golden = path.read_text().splitlines()
        fresh = playthrough_text(PRESETS[name], seed=0).splitlines()
        if fresh != golden:
            i = next((i for i, (a, b) in enumerate(zip(golden, fresh)) if a != b),
                     min(len(golden), len(fresh)))
            bad.append(f"{name}: line {i + 1} differs from {path}")
    return bad


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m spiel_game.playthrough",
                                 description="Write the golden playthroughs into DIR, or "
                                             "check the shipped ones (--check).")
    ap.add_argument("dir", nargs="?", help="the folder to write the playthroughs into")
    ap.add_argument("--check", action="store_true",
                    help=f"replay every preset against the shipped files ({PLAYTHROUGH_DIR})")
    args = ap.parse_args(argv)
    if args.check == (args.dir is not None):
        ap.error("give a folder to write into, or --check (not both)")
    if args.check:
        bad = verify()
        for line in bad:
            print(line)
        print(f"{len(PRESETS) - len(bad)} of {len(PRESETS)} presets replay as recorded")
        return 1 if bad else 0
    for p in regenerate(args.dir):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
