"""Provenance (spiel_game/_provenance.py): one ``git_commit`` for results and
checkpoints, dirty when tracked files changed or untracked, not ignored,
files appeared; ignored files (results, caches) never make a tree dirty."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from spiel_game._provenance import git_commit, metadata, package_versions

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c",
                           "user.email=t@example.org", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_git_commit_is_the_head_and_dirty_exactly_when_results_may_differ(tmp_path):
    assert git_commit(tmp_path) is None                       # not a checkout
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
    from experiments._base import metadata as M
    assert M.git_commit is git_commit and M.metadata is metadata
    meta = metadata({"a": 1}, 7)
    assert meta["git_commit"] == git_commit() and meta["seed"] == 7
    assert meta["versions"] == package_versions() and "numpy" in meta["versions"]


def test_an_installed_copy_inside_another_repository_has_no_commit(tmp_path):
    """A copy of the package that the enclosing repository does not track (a wheel
    installed into a virtual environment inside some project) records no commit,
    and the record says which version of the package ran."""
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("/venv/\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "project")
    site = tmp_path / "venv" / "site-packages"
    shutil.copytree(ROOT / "spiel_game", site / "spiel_game",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import json; from spiel_game import _provenance as p; "
            "print(json.dumps([p.git_commit(), p.metadata({}, 1)['git_commit'], "
            "p.metadata({}, 1)['package_version']]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True,
                         capture_output=True, text=True,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}).stdout
    assert json.loads(out) == [None, None, importlib.metadata.version("cancellation-hearts")]
