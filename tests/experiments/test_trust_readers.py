"""Every reader refuses special files and bounds sizes before reading.

A FIFO or a symbolic link to ``/dev/zero`` in place of a results shard,
``run.json``, ``metadata.json``, ``shards.sha256``, a table or
``summary.txt``; a ``--config`` TOML file; a game record file; an earlier
version's ``deals.jsonl``: each gives a clear one-line error at once (no hang,
memory bounded), names the file, and loses nothing: ``--recompute-corrupt``
moves the special file to ``corrupt/`` (not followed, not deleted) and the
results equal an undisturbed run's. All of it goes through
:mod:`spiel_game._safe_io`."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import _runner_experiment  # noqa: E402,F401  (registers runner_selftest)
from experiments import runner  # noqa: E402
from experiments.__main__ import main as cli  # noqa: E402
from experiments._base.config import ConfigError, load_toml  # noqa: E402
from spiel_game import records as R  # noqa: E402
from spiel_game import _safe_io as safe_io  # noqa: E402

TINY = {"units": 3, "rows_per_unit": 2, "sleep": 0}
QUIET = {"progress": False, "verbose": False}
SECONDS = 20                 # a hang becomes a failure after this long


@pytest.fixture(autouse=True)
def no_hang():
    """Fail (instead of hanging) when a reader blocks on a FIFO."""
    def stuck(signum, frame):
        raise TimeoutError(f"a reader blocked for {SECONDS} s")
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _special(path: Path, kind: str) -> None:
    """Put a FIFO or a link to /dev/zero where ``path`` was."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


# ------------------------------------------------------------------ the helper
def test_safe_io_refuses_what_is_not_a_bounded_regular_file(tmp_path):
    ok = tmp_path / "ok.txt"
    ok.write_text("a\nbb\n")
    assert safe_io.read_text(ok, 5) == "a\nbb\n"
    assert list(safe_io.iter_lines(ok, 3)) == [b"a\n", b"bb\n"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    sock = socket.socket(socket.AF_UNIX)
    with contextlib.closing(sock):
        sock.bind(str(tmp_path / "sock"))
        for path, what in [(fifo, "a FIFO"), (zero, "a device"), (tmp_path, "a folder"),
                           (tmp_path / "sock", "a socket")]:
            with pytest.raises(safe_io.RefusedFile, match=f"is {what}; allowed: a regular file"):
                safe_io.read_bytes(path, 100, "results file")
            with pytest.raises(safe_io.RefusedFile, match=f"is {what}"):
                list(safe_io.iter_lines(path, 100))
    with pytest.raises(safe_io.RefusedFile, match=r"is 5 bytes long; the limit is 4 bytes"):
        safe_io.read_bytes(ok, 4)
    with pytest.raises(safe_io.RefusedFile, match=r"line 2\) longer than 1 bytes"):
        list(safe_io.iter_lines(ok, 1))
    with pytest.raises(FileNotFoundError):
        safe_io.read_bytes(tmp_path / "missing", 10)


# ------------------------------------------------------------------ results folders
@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    return runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)


def _copy(reference, tmp_path) -> tuple[Path, Path]:
    import shutil
    out = tmp_path / "out"
    shutil.copytree(reference.path.parent, out)
    return out, out / reference.path.name


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("name", ["shards/unit-000001.json", "run.json", "metadata.json",
                                  "shards.sha256", "rows.csv", "summary.txt"])
def test_a_special_file_in_a_results_folder_is_named_at_once(reference, tmp_path, name, kind):
    out, folder = _copy(reference, tmp_path)
    _special(folder / name, kind)
    rss, t0 = _rss_mb(), time.monotonic()
    with pytest.raises(runner.CorruptResultError) as err:
        runner.load("runner_selftest", out=out, overrides=TINY)
    msg = str(err.value)
    assert Path(name).name in msg and "allowed: a regular file" in msg, msg
    assert "Traceback" not in msg
    assert time.monotonic() - t0 < 5 and _rss_mb() - rss < 200
    # a rerun: a damaged shard, run.json or shards.sha256 stops it naming the file
    # (then --recompute-corrupt moves it aside); derived files are rebuilt
    try:
        again = runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)
    except runner.CorruptResultError as e:
        assert name.startswith("shards") or name == "run.json", (name, str(e))
        assert Path(name).name in str(e) and "--recompute-corrupt" in str(e)
        again = runner.run("runner_selftest", overrides=TINY, out=out, workers=1,
                           recompute_corrupt=True, **QUIET)
        moved = list((folder / "corrupt").iterdir())
        assert any(p.name.startswith(Path(name).name) and
                   (p.is_symlink() or not p.is_file()) for p in moved), moved  # kept, unread
    assert again.rows.equals(reference.rows)
    assert runner.load("runner_selftest", out=out, overrides=TINY).rows.equals(reference.rows)
    assert _rss_mb() - rss < 200


def test_a_shard_over_the_limit_is_named_not_read(reference, tmp_path, monkeypatch):
    out, folder = _copy(reference, tmp_path)
    loaded = runner.load("runner_selftest", out=out, overrides=TINY)
    monkeypatch.setattr(runner._store, "MAX_SHARD_BYTES", 100)
    with pytest.raises(runner.CorruptResultError, match=r"unit-00000\d\.json: is \d+ bytes "
                                                        r"long; the limit is 100 bytes"):
        runner.load("runner_selftest", out=out, overrides=TINY)
    with pytest.raises(runner.CorruptResultError, match="the limit is 100 bytes"):
        runner.attachments(loaded, "x")
    with pytest.raises(runner.CorruptResultError, match="the limit is 100 bytes"):
        runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)


def test_the_command_line_gives_one_line_for_a_fifo_shard(reference, tmp_path, capsys):
    out, folder = _copy(reference, tmp_path)
    _special(folder / "shards" / "unit-000000.json", "fifo")
    code = cli(["run", "runner_selftest", "--out", str(out), "--workers", "1", "--no-progress",
                *[f"--set={k}={v}" for k, v in TINY.items()]])
    err = capsys.readouterr().err
    assert code != 0 and "unit-000000.json: is a FIFO" in err and "Traceback" not in err


# ------------------------------------------------------------------ config files
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_config_file_is_refused_at_once(tmp_path, kind, capsys):
    path = tmp_path / "config.toml"
    _special(path, kind)
    what = "a FIFO" if kind == "fifo" else "a device"
    with pytest.raises(ConfigError, match=f"config file {path} is {what}; allowed: a regular"):
        load_toml(path)
    code = cli(["run", "runner_selftest", "--config", str(path), "--out", str(tmp_path / "o"),
                "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0 and what in err and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()


def test_a_config_file_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("# padding\n" * 200_000)
    with pytest.raises(ConfigError, match=r"is 2,000,000 bytes long; the limit is"):
        load_toml(path)


# ------------------------------------------------------------------ record files
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_record_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "games.jsonl"
    _special(path, kind)
    for read in (R.read_records, R.read_record, lambda p: list(R.iter_records(p))):
        with pytest.raises(R.RecordError, match="allowed: a regular file"):
            read(path)


def test_record_lines_are_read_one_by_one_with_a_bound(tmp_path, monkeypatch):
    from experiments.tournament import TournamentConfig, run_tournament
    path = tmp_path / "games.jsonl"
    cfg = TournamentConfig(agents=("random", "random"), deals=2, seed=1,
                           game={"deck": "custom", "players": 3, "suits": "HS",
                                 "ranks": "QKA", "packs": 2, "pass_count": 0})
    run_tournament(cfg, None, progress=False, records=path)
    assert len(R.read_records(path)) == 6
    longest = max(len(ln) for ln in path.read_bytes().splitlines(keepends=True))
    monkeypatch.setattr(R, "MAX_RECORD_BYTES", longest - 2)     # its newline not counted
    with pytest.raises(R.RecordError, match=r"games.jsonl has a line \(line \d\) longer than"):
        R.read_records(path)


def test_an_earlier_versions_deals_file_that_is_a_fifo_is_refused(tmp_path):
    from experiments.tournament import SHARD, TournamentConfig, TournamentError, convert_deals
    from experiments.tournament import read_records as read_deals
    os.mkfifo(tmp_path / SHARD)
    cfg = TournamentConfig(agents=("random", "random"), deals=1, game={"players": 3})
    with pytest.raises(TournamentError, match="is a FIFO"):
        read_deals(tmp_path, cfg)
    with pytest.raises(TournamentError, match="is a FIFO"):
        convert_deals(tmp_path, tmp_path / "new")
