"""Writes that destroy nothing.

``--fresh`` deletes only the files the runner wrote in the run folder (listed
in ``.runner-files``): a user's notes and sub-folders stay, a run folder that
is a symbolic link is refused with its target untouched, and a link inside
is never followed (it is moved to ``corrupt/``, and what it names stays as it
was). ``--records PATH`` writes a new file or rewrites a record file that
tournaments wrote; anything else there (a device, a FIFO, a folder, a link,
a file of something else) is refused before a deal is played, and stays as it
was."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import _runner_experiment  # noqa: E402,F401  (registers runner_selftest)
from experiments import runner  # noqa: E402
from experiments import tournament as T  # noqa: E402
from experiments.tournament import TournamentConfig, TournamentError, run_tournament  # noqa: E402
from spiel_game import records as R  # noqa: E402

TINY = {"units": 4, "rows_per_unit": 2, "sleep": 0}
QUIET = {"progress": False, "verbose": False}
SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}


def _run(out, **kw):
    return runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET, **kw)


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (links not followed): file bytes, or what it is."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = (f"link -> {os.readlink(p)}" if p.is_symlink() else
                    "folder" if p.is_dir() else p.read_bytes())
    return out


# ------------------------------------------------------------------ --fresh
def test_fresh_keeps_a_users_notes_and_folders(tmp_path):
    first = _run(tmp_path)
    folder = first.path
    written = (folder / ".runner-files").read_text().split()
    assert {"run.json", "metadata.json", "shards.sha256", "rows.csv", "summary.txt",
            "shards/unit-000000.json"} <= set(written)
    (folder / "notes.txt").write_text("my notes")
    (folder / "analysis.csv").write_text("a,b\n1,2\n")          # a user's table
    (folder / "plots").mkdir()
    (folder / "plots" / "fig.png").write_bytes(b"\x89PNG")
    (folder / "shards" / "README").write_text("why these shards")  # inside the runner's folder
    again = _run(tmp_path, fresh=True)
    assert again.metadata["units_run_this_session"] == TINY["units"]   # every unit again
    assert (folder / "notes.txt").read_text() == "my notes"
    assert (folder / "analysis.csv").read_text() == "a,b\n1,2\n"
    assert (folder / "plots" / "fig.png").read_bytes() == b"\x89PNG"
    assert (folder / "shards" / "README").read_text() == "why these shards"
    assert again.rows.equals(first.rows)
    # a plain rerun keeps the user's table too (only tables the runner wrote are tidied)
    _run(tmp_path)
    assert (folder / "analysis.csv").exists()
    assert runner.load("runner_selftest", out=tmp_path, overrides=TINY).rows.equals(first.rows)


def test_fresh_in_a_folder_written_before_the_list_of_files(tmp_path):
    """A folder without ``.runner-files``: the files named as the runner names them
    (and the tables metadata.json lists) are deleted; nothing else."""
    folder = _run(tmp_path).path
    (folder / ".runner-files").unlink()
    (folder / "notes.md").write_text("keep")
    before = {p.name for p in folder.iterdir()}
    _run(tmp_path, fresh=True)
    assert (folder / "notes.md").read_text() == "keep"
    assert before <= {p.name for p in folder.iterdir()}


def test_fresh_refuses_a_run_folder_that_is_a_link_and_leaves_the_target(tmp_path):
    real = tmp_path / "elsewhere"
    folder = _run(real).path
    (folder / "notes.txt").write_text("mine")
    before = _tree(folder)
    links = tmp_path / "links"
    links.mkdir()
    (links / folder.name).symlink_to(folder, target_is_directory=True)
    with pytest.raises(runner.RunError, match=r"is a symbolic link .*--fresh .* never through "
                                              r"a link"):
        _run(links, fresh=True)
    assert _tree(folder) == before
    # without --fresh the link is an ordinary way to reach the folder
    assert _run(links).metadata["units_run_this_session"] == 0


def test_fresh_never_follows_a_link_inside_the_run_folder(tmp_path):
    folder = _run(tmp_path / "r").path
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    outside = tmp_path / "diary.txt"
    outside.write_text("dear diary")
    # a link where the runner's file was, and the shards folder itself a link
    (folder / "summary.txt").unlink()
    (folder / "summary.txt").symlink_to(outside)
    for p in (folder / "shards").iterdir():
        (precious / p.name).write_bytes(p.read_bytes())
    os.rename(folder / "shards", tmp_path / "old-shards")
    (folder / "shards").symlink_to(precious, target_is_directory=True)
    res = runner.run("runner_selftest", overrides=TINY, out=tmp_path / "r", workers=1,
                     fresh=True, **QUIET)
    assert res.metadata["units_run_this_session"] == TINY["units"]
    assert outside.read_text() == "dear diary"
    assert (precious / "thesis.tex").read_text() == "years of work"
    assert len(list(precious.glob("unit-*.json"))) == TINY["units"]   # not deleted through it
    moved = sorted(p.name for p in (folder / "corrupt").iterdir()) + \
        sorted(p.name for p in folder.iterdir() if p.name.startswith("shards."))
    assert any(m.startswith("summary.txt.") for m in moved), moved
    assert any(m.startswith("shards.") for m in moved), moved
    assert (folder / "shards").is_dir() and not (folder / "shards").is_symlink()


def test_a_fifo_at_the_lock_or_the_list_of_files_is_refused_not_waited_on(tmp_path):
    folder = _run(tmp_path).path
    (folder / ".runner-files").unlink()
    os.mkfifo(folder / ".runner-files")
    with pytest.raises(runner.RunError, match=r"cannot write .*\.runner-files"):
        _run(tmp_path)
    # --fresh replaces the runner's own list (never read through, never waited on)
    _run(tmp_path, fresh=True)
    assert (folder / ".runner-files").is_file()
    os.unlink(folder / ".runner-files")
    (folder / ".runner.lock").unlink()
    os.mkfifo(folder / ".runner.lock")
    with pytest.raises(runner.RunError, match=r"\.runner\.lock"):
        _run(tmp_path)


# ------------------------------------------------------------------ --records
def _cfg(**kw):
    return TournamentConfig(**{"agents": ("random", "random"), "game": SMALL, "deals": 2,
                               "seed": 5, **kw})


@pytest.fixture
def specials(tmp_path):
    """Paths that --records must refuse, with a way to see that they are unchanged."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a record file\n")
    other = tmp_path / "other.jsonl"          # game records, but not a tournament's
    rec = run_tournament(_cfg(deals=1), None, progress=False, keep_games=True).games[0]
    rec = R.GameRecord.from_dict({**rec, "info": {"source": "my-app"}})
    other.write_text(rec.to_json() + "\n")
    target = tmp_path / "target.jsonl"
    run_tournament(_cfg(), None, progress=False, records=target)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    cases = {"/dev/null": "a device", str(fifo): "a FIFO", str(folder): "a folder",
             str(notes): "not a game record", str(other): "not written by a tournament",
             str(link): "a symbolic link"}

    def state():
        return {p: (os.lstat(p).st_mode, os.lstat(p).st_ino,
                    None if not os.path.isfile(p) or p == str(link) else Path(p).read_bytes())
                for p in cases} | {"target": target.read_bytes()}
    return cases, state


def test_records_refuses_anything_it_did_not_write_and_leaves_it(tmp_path, specials):
    cases, state = specials
    before = state()
    for path, what in cases.items():
        with pytest.raises(TournamentError, match=what) as err:
            run_tournament(_cfg(), tmp_path / "t", progress=False, records=path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)
        assert not (tmp_path / "t").exists()        # refused before anything was played
    assert state() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_records_cli_refuses_a_device_in_one_line(tmp_path, capsys):
    before = os.stat("/dev/full")
    code = T.main(["--agents", "random", "random", "--game", '{"players": 3}', "--deals", "1",
                   "--out", str(tmp_path / "t"), "--records", "/dev/full", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "/dev/full" in err and "a device" in err
    after = os.stat("/dev/full")
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino,
                                                            before.st_rdev)
    assert not (tmp_path / "t").exists()


def test_records_rewrites_its_own_file_keeping_other_tournaments(tmp_path):
    path = tmp_path / "games.jsonl"
    run_tournament(_cfg(), None, progress=False, records=path)
    run_tournament(_cfg(seed=6), None, progress=False, records=path)    # another tournament
    lines = path.read_text().splitlines()
    assert len(lines) == 2 * 2 * 3              # 2 tournaments x 2 deals x 3 seatings
    run_tournament(_cfg(), None, progress=False, records=path)          # the first, again

    def games(text):                            # thinking times differ between runs
        return sorted((g["info"]["fingerprint"], g["info"]["deal"], g["info"]["assignment"],
                       g["actions"]) for g in map(json.loads, text.splitlines()))
    again = path.read_text()
    assert games(again) == games("\n".join(lines))
    other = [ln for ln in lines if _cfg(seed=6).fingerprint() in ln]  # kept byte for byte
    assert len(other) == 6 and set(other) <= set(again.splitlines())
    fps = {json.loads(ln)["info"]["fingerprint"] for ln in lines}
    assert fps == {_cfg().fingerprint(), _cfg(seed=6).fingerprint()}
    empty = tmp_path / "empty.jsonl"            # an empty file holds nothing to lose
    empty.write_text("")
    run_tournament(_cfg(), None, progress=False, records=empty)
    assert len(empty.read_text().splitlines()) == 2 * 3
