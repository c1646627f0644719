"""Provenance (spiel_game/provenance.py): one ``git_commit`` for results and
checkpoints, dirty when tracked files changed or untracked, not ignored,
files appeared; ignored files (results, caches) never make a tree dirty."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from spiel_game.provenance import git_commit, metadata, package_versions

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c",
                           "user.email=t@example.org", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_git_commit_is_the_head_and_dirty_exactly_when_results_may_differ(tmp_path):
    assert git_commit(tmp_path) == "unknown"                  # not a checkout
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("/results/\n")
    (tmp_path / "mod.py").write_text("X = 1\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "one")
    head = _git(tmp_path, "rev-parse", "HEAD")
    assert len(head) == 40 and git_commit(tmp_path) == head
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "out.json").write_text("{}")     # ignored: still clean
    assert git_commit(tmp_path) == head
    (tmp_path / "new_study.py").write_text("Y = 2\n")        # untracked source: dirty
    assert git_commit(tmp_path) == head + "+dirty"
    (tmp_path / "new_study.py").unlink()
    (tmp_path / "mod.py").write_text("X = 2\n")              # modified tracked file: dirty
    assert git_commit(tmp_path) == head + "+dirty"
    _git(tmp_path, "checkout", "-q", "mod.py")
    assert git_commit(tmp_path) == head


def test_experiments_and_trainers_record_the_same_provenance():
    from experiments import metadata as M
    assert M.git_commit is git_commit and M.metadata is metadata
    meta = metadata({"a": 1}, 7)
    assert meta["git_commit"] == git_commit() and meta["seed"] == 7
    assert meta["versions"] == package_versions() and "numpy" in meta["versions"]
