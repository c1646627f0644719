"""Golden playthroughs (shipped as package data, spiel_game/playthroughs): every
preset replays exactly as recorded.

Regenerate after an intended behaviour change with
``python -m spiel_game.playthrough spiel_game/playthroughs`` (and review the diff).
"""


import pytest
from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import spiel_game
from spiel_game import playthrough
from spiel_game.playthrough import OPENSPIEL_FORMAT_FILE, PLAYTHROUGH_DIR, playthrough_text

OPENSPIEL_FORMAT = {OPENSPIEL_FORMAT_FILE}


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
        str(PLAYTHROUGH_DIR / OPENSPIEL_FORMAT_FILE))
    assert original == reproduced


def test_regenerate_writes_into_the_named_folder_and_verify_finds_a_change(
        tmp_path, monkeypatch):
    monkeypatch.setattr(playthrough, "PRESETS", {"tiny": spiel_game.PRESETS["tiny"]})
    out = tmp_path / "new" / "playthroughs"
    written = playthrough.regenerate(out)
    assert sorted(p.name for p in written) == sorted(["tiny.txt", OPENSPIEL_FORMAT_FILE])
    assert all(p.parent == out for p in written)
    assert (out / "tiny.txt").read_text() == (PLAYTHROUGH_DIR / "tiny.txt").read_text()
    assert playthrough.verify(out) == []
    lines = (out / "tiny.txt").read_text().splitlines()
    lines[3] += " changed"
    (out / "tiny.txt").write_text("\n".join(lines) + "\n")
    assert playthrough.verify(out) == [f"tiny: line 4 differs from {out / 'tiny.txt'}"]
    (out / "tiny.txt").unlink()
    assert playthrough.verify(out) == [f"tiny: {out / 'tiny.txt'} missing"]
    with pytest.raises(ValueError, match="no preset nope; the presets: tiny"):
        playthrough.regenerate(tmp_path / "other", names=["nope"])
    assert not (tmp_path / "other").exists()


def test_the_command_line_needs_a_folder_or_check(capsys):
    with pytest.raises(SystemExit):
        playthrough.main([])
    assert "give a folder to write into, or --check" in capsys.readouterr().err
