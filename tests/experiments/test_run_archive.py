"""A run folder packed into one file and restored elsewhere resumes there
(experiments.runner.pack_run / restore_run)."""

from __future__ import annotations

import tarfile

import pytest

from experiments.runner import pack_run, restore_run


def _folder(root):
    f = root / "demo@1a2b3c4d"
    (f / "shards").mkdir(parents=True)
    (f / "shards" / "unit-000000.json").write_text('{"rows": [1]}')
    (f / "shards.sha256").write_text("abc  shards/unit-000000.json\n")
    (f / "run.json").write_text("{}")
    (f / ".runner.lock").write_text("123")
    (f / "rows.csv.4242.tmp").write_text("half")
    return f


def test_pack_and_restore_round_trip_without_lock_or_temporary_files(tmp_path):
    src = _folder(tmp_path / "a")
    packed = pack_run(src, tmp_path / "archive")
    assert packed == tmp_path / "archive" / "demo@1a2b3c4d.tar.xz"
    with tarfile.open(packed) as tar:
        assert sorted(tar.getnames()) == ["demo@1a2b3c4d/run.json",
                                          "demo@1a2b3c4d/shards.sha256",
                                          "demo@1a2b3c4d/shards/unit-000000.json"]
    assert restore_run(packed, tmp_path / "b") is True
    got = tmp_path / "b" / "demo@1a2b3c4d"
    assert (got / "shards" / "unit-000000.json").read_text() == '{"rows": [1]}'
    assert not (got / ".runner.lock").exists()
    # an existing folder is never overwritten
    (got / "run.json").write_text('{"mine": 1}')
    assert restore_run(packed, tmp_path / "b") is False
    assert (got / "run.json").read_text() == '{"mine": 1}'


def test_the_same_files_give_the_same_bytes(tmp_path):
    src = _folder(tmp_path / "a")
    first = pack_run(src, tmp_path / "x").read_bytes()
    (src / "run.json").touch()                      # a newer time, same content
    assert pack_run(src, tmp_path / "y").read_bytes() == first
    (src / "run.json").write_text('{"changed": 1}')
    assert pack_run(src, tmp_path / "z").read_bytes() != first


def test_nothing_to_pack_and_foreign_archives(tmp_path):
    assert pack_run(tmp_path / "missing", tmp_path / "archive") is None
    bad = tmp_path / "demo.tar.xz"
    other = tmp_path / "other.txt"
    other.write_text("x")
    with tarfile.open(bad, "w:xz") as tar:
        tar.add(other, arcname="elsewhere/other.txt")
    with pytest.raises(ValueError, match="holds files outside demo/"):
        restore_run(bad, tmp_path / "root")
    assert not (tmp_path / "root" / "elsewhere").exists()
    with pytest.raises(ValueError, match="not a run archive"):
        restore_run(other, tmp_path / "root")
