"""A shipped model's name is looked up only in the zoo; its file is checked
before it is read.

* A file named like a shipped model in the working folder (``./guided-5-11``)
  is never read for ``checkpoint='guided-5-11'``; a bare name that is no model
  is a clear error even when such a file exists; a file is loaded only when
  named as a path (a ``/`` in it, or ending in ``.npz``).
* In place of a shipped model's file, a FIFO, a link to ``/dev/zero``, a
  folder or a file of another size is refused (CheckpointError naming what it
  is) before its checksum is read, at once (no hang, bounded memory).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import tracemalloc

import pytest

import spiel_game
from solvers.net import zoo
from solvers.net._checkpoint import CheckpointError
from solvers._registry import AgentSpecError, make_agent


def test_a_file_in_the_working_folder_does_not_shadow_a_shipped_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = zoo.DEFAULT_MODEL
    (tmp_path / name).write_bytes(b"not a model at all")
    shipped = str(zoo.model_path(name))
    assert zoo.resolve(name) == shipped
    bot = make_agent(f"network(checkpoint='{name}')", spiel_game.load({"players": 6}), 0, 1)
    assert bot.evaluator.path == shipped
    # a bare name that is no model: an error, even with such a file here
    (tmp_path / "mynet").write_bytes(b"x")
    with pytest.raises(KeyError, match=r"no shipped model 'mynet'.*'\./mynet'.*\.npz"):
        zoo.resolve("mynet")
    with pytest.raises(AgentSpecError, match="no shipped model 'mynet'"):
        make_agent("network(checkpoint='mynet')", spiel_game.load({"players": 6}), 0, 1)
    # a path given explicitly is a path (and the loader checks the file)
    for text in (f"./{name}", str(tmp_path / name), "mynet.npz"):
        assert zoo.resolve(text) == text
    assert zoo.resolve(tmp_path / name) == tmp_path / name
    with pytest.raises(AgentSpecError, match=r"checkpoint='\./guided-5-11'"):
        make_agent(f"network(checkpoint='./{name}')", spiel_game.load({"players": 6}), 0, 1)


@pytest.mark.parametrize("name, want", [
    ("guided-5-11", False), ("classic-4", False), ("./guided-5-11", True), ("a/b", True),
    ("x.npz", True), ("guided-5-11.npz", True), ("results", False)])
def test_what_counts_as_a_path(name, want):
    assert zoo.is_path(name) is want


def _copy_zoo(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    shutil.copytree(zoo.MODELS_DIR, folder)
    monkeypatch.setattr(zoo, "MODELS_DIR", folder)
    zoo._VERIFIED.clear()
    card = zoo.models()[zoo.DEFAULT_MODEL]
    return folder / card.file, card


def _returns_within(fn, seconds: float):
    """fn()'s exception (or None), failing if it has not returned in ``seconds``."""
    out = {}

    def run():
        try:
            fn()
        except BaseException as e:          # the test inspects it
            out["error"] = e
        else:
            out["error"] = None

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn} did not return within {seconds} s"
    return out["error"]


def test_a_fifo_in_place_of_a_model_is_refused_at_once(tmp_path, monkeypatch):
    path, _ = _copy_zoo(tmp_path, monkeypatch)
    path.unlink()
    os.mkfifo(path)
    try:
        err = _returns_within(lambda: zoo.model_path(zoo.DEFAULT_MODEL), 10)
    finally:
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)    # unblocks a hung reader, if any
        os.close(fd)
    assert isinstance(err, CheckpointError) and "is a FIFO; allowed: a regular file" in str(err)


def test_a_link_to_dev_zero_in_place_of_a_model_is_refused(tmp_path, monkeypatch):
    path, _ = _copy_zoo(tmp_path, monkeypatch)
    path.unlink()
    path.symlink_to("/dev/zero")
    tracemalloc.start()
    try:
        t0 = time.monotonic()
        err = _returns_within(lambda: zoo.model_path(zoo.DEFAULT_MODEL), 10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(err, CheckpointError) and "is a device" in str(err), err
    assert time.monotonic() - t0 < 5 and peak < 16 << 20


def test_a_folder_or_a_file_of_another_size_is_refused(tmp_path, monkeypatch):
    path, card = _copy_zoo(tmp_path, monkeypatch)
    data = path.read_bytes()
    path.write_bytes(data + b"\0" * 100)
    with pytest.raises(CheckpointError, match=rf"is {card.size_bytes + 100:,} bytes long, but "
                                              rf"the manifest says {card.size_bytes:,}"):
        zoo.model_path(zoo.DEFAULT_MODEL)
    path.unlink()
    path.mkdir()
    with pytest.raises(CheckpointError, match="is a folder; allowed: a regular file"):
        zoo.model_path(zoo.DEFAULT_MODEL)
    path.rmdir()
    path.write_bytes(data)                        # the real file again
    assert zoo.model_path(zoo.DEFAULT_MODEL) == path
