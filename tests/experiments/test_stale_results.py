"""Results are never silently stale: every saved unit records the code that made
it (this package's sources, the module defining each agent, checkpoint files);
a rerun reuses the units made by the same code and says so, recomputes the
others naming what differs, keeps them with ``reuse_stale`` (``--reuse-stale``)
and recomputes everything with ``fresh`` (``--fresh``)."""

from __future__ import annotations

import importlib
import json
import re
import sys

import pytest

from experiments import runner
from experiments.__main__ import main as cli
from experiments.tournament import TournamentConfig, run_tournament
from solvers import _registry as registry

SMALL = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 2,
         "pass_count": 0}

BOT = '''
import pyspiel


class Plug(pyspiel.Bot):
    def __init__(self, pick):
        pyspiel.Bot.__init__(self)
        self.pick = pick

    def step(self, state):
        legal = state.legal_actions()
        return legal[{pick} % len(legal)]

    def restart_at(self, state):
        pass


def make(game, player, seed, checkpoint=None):
    """Plays legal action number {pick} (modulo the number of legal actions)."""
    return Plug({pick})
'''


@pytest.fixture
def plug(tmp_path, monkeypatch):
    """A plug-in agent ``plug_v`` defined in a module file of ``tmp_path``; ``write(pick)``
    rewrites the module (another version of its code) and registers it again."""
    name = f"stale_plug_{abs(hash(str(tmp_path))) % 10**8}"
    src = tmp_path / f"{name}.py"
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(pick: int):
        src.write_text(BOT.format(pick=pick))
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        mod = importlib.import_module(name)
        registry.register("plug_v", mod.make, replace=True)
        return mod

    write(0)
    yield write, src
    registry.unregister("plug_v")
    sys.modules.pop(name, None)


def _run(out, capsys, spec="plug_v", **kw):
    cfg = TournamentConfig(agents=("random", spec), game=SMALL, deals=3, seed=2)
    res = run_tournament(cfg, out, progress=False, **kw)
    meta = json.loads((out / "metadata.json").read_text())
    return res, meta["units_run_this_session"], capsys.readouterr().err


def test_changed_agent_code_is_recomputed_and_said_so(tmp_path, plug, capsys):
    write, src = plug
    out = tmp_path / "t"
    first, ran, _ = _run(out, capsys)
    assert ran == 3
    again, ran, err = _run(out, capsys)             # nothing changed: reused
    assert ran == 0 and "3 of 3 units reused (same code), 0 recomputed" in err
    assert again.records == first.records           # timings too: the saved deals
    write(1)                                        # the agent's module changed
    changed, ran, err = _run(out, capsys)
    assert ran == 3, err
    assert "0 of 3 units reused (same code), 3 recomputed" in err
    assert f"agent module {src}" in err and "package code" not in err
    assert changed.records != first.records         # the new code plays other moves
    fresh = run_tournament(TournamentConfig(agents=("random", "plug_v"), game=SMALL, deals=3,
                                            seed=2), None, progress=False)
    assert [r["points"] for r in changed.records] == [r["points"] for r in fresh.records]


def test_reuse_stale_keeps_and_fresh_recomputes(tmp_path, plug, capsys):
    write, src = plug
    out = tmp_path / "t"
    first, _, _ = _run(out, capsys)
    write(1)
    kept, ran, err = _run(out, capsys, reuse_stale=True)
    assert ran == 0 and kept.records == first.records
    assert re.search(r"3 of 3 units reused, 3 of them made by other code \(agent module "
                     r".*\) and kept because of --reuse-stale, 0 recomputed", err), err
    _, ran, err = _run(out, capsys, fresh=True)
    assert ran == 3 and "reused" not in err
    _, ran, err = _run(out, capsys)                 # now made by this code
    assert ran == 0 and "3 of 3 units reused (same code)" in err


def test_a_changed_checkpoint_or_package_is_named(tmp_path, plug, capsys, monkeypatch):
    ckpt = tmp_path / "net.bin"
    ckpt.write_bytes(b"weights v1")
    spec = f"plug_v(checkpoint={str(ckpt)!r})"
    out = tmp_path / "t"
    _run(out, capsys, spec)
    ckpt.write_bytes(b"weights v2")
    _, ran, err = _run(out, capsys, spec)
    assert ran == 3 and f"checkpoint {ckpt} differ(s)" in err
    monkeypatch.setattr(runner._fingerprint, "_PACKAGE_HASH", "0" * 64)    # another package version
    _, ran, err = _run(out, capsys, spec)
    assert ran == 3 and "(made by other code: package code differ(s)" in err


def test_the_runner_command_line_reuses_recomputes_and_takes_the_flags(tmp_path, plug,
                                                                       capsys):
    """``python -m experiments run`` (the registered experiment ``tournament``)."""
    write, src = plug
    args = ["run", "tournament", "--set", 'agents=["random", "plug_v"]', "players=3",
            "deals=2", "deals_per_unit=1",
            'game=["deck=custom", "suits=HS", "ranks=QKA", "packs=2", "pass_count=0"]',
            "--out", str(tmp_path), "--workers", "1", "--no-progress"]
    assert cli(args) == 0
    capsys.readouterr()
    assert cli(args) == 0
    assert "2 of 2 units reused (same code), 0 recomputed" in capsys.readouterr().err
    write(2)
    assert cli(args + ["--reuse-stale"]) == 0
    assert "kept because of --reuse-stale" in capsys.readouterr().err
    assert cli(args) == 0
    err = capsys.readouterr().err
    assert "0 of 2 units reused (same code), 2 recomputed" in err and str(src) in err
    assert cli(args + ["--fresh"]) == 0
    assert "reused" not in capsys.readouterr().err


def test_units_saved_before_code_was_recorded_count_as_other_code(tmp_path, plug, capsys):
    import hashlib
    out = tmp_path / "t"
    _run(out, capsys)
    lines = []
    for shard in sorted((out / "shards").glob("unit-*.json")):
        doc = json.loads(shard.read_text())
        del doc["code"]                              # as an earlier runner wrote it
        shard.write_text(json.dumps(doc, indent=1))
        lines.append(f"{hashlib.sha256(shard.read_bytes()).hexdigest()}  "
                     f"shards/{shard.name}\n")
    (out / "shards.sha256").write_text("".join(lines))
    _, ran, err = _run(out, capsys)
    assert ran == 3 and "code not recorded (saved before code fingerprints)" in err
