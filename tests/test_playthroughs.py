"""Golden playthroughs: every preset replays exactly as recorded.

Regenerate after an intended behaviour change with
``python -m spiel_game.playthrough`` (and review the diff).
"""


import pytest
from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import spiel_game
from spiel_game.playthrough import PLAYTHROUGH_DIR, playthrough_text

OPENSPIEL_FORMAT = {"openspiel_format_tiny.txt"}


def test_every_preset_has_a_golden_playthrough():
    have = {p.stem for p in PLAYTHROUGH_DIR.glob("*.txt")
            if p.name not in OPENSPIEL_FORMAT}
    assert have == set(spiel_game.PRESETS), (
        f"missing: {sorted(set(spiel_game.PRESETS) - have)}, "
        f"stale: {sorted(have - set(spiel_game.PRESETS))}")


@pytest.mark.parametrize("name", sorted(spiel_game.PRESETS))
def test_playthrough_replays(name):
    golden = (PLAYTHROUGH_DIR / f"{name}.txt").read_text()
    fresh = playthrough_text(spiel_game.PRESETS[name], seed=0)
    assert fresh.splitlines() == golden.splitlines()


def test_openspiel_format_playthrough_replays():
    """OpenSpiel's own playthrough format (all tensors in full) for a small deck."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()     # generate_playthrough reads absl flag defaults
    original, reproduced = generate_playthrough.replay(
        str(PLAYTHROUGH_DIR / "openspiel_format_tiny.txt"))
    assert original == reproduced
