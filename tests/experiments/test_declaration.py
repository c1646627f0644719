"""A declared run (``declaration=``, ``--declaration FILE``): the declaration's
SHA-256 is recorded at the first unit, a changed declaration is refused before
any unit is computed, declared and undeclared runs never share a folder, and a
run without the option writes exactly what it wrote before."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import _runner_experiment  # noqa: E402,F401  (registers runner_selftest)
from experiments import runner  # noqa: E402
from experiments.__main__ import main as cli  # noqa: E402

FAST = {"units": 6, "sleep": 0.0}
TEXT = "# Pre-registration\n\n```json\n{\"seed\": 7, \"deals\": 6}\n```\n"


def _declaration(tmp_path: Path, text: str = TEXT) -> Path:
    path = tmp_path / "prereg.md"
    path.write_text(text)
    return path


def _run(out: Path, **kw):
    return runner.run("runner_selftest", overrides=FAST, out=out, workers=1, progress=False,
                      verbose=False, **kw)


def _shards(run_dir: Path) -> list[str]:
    return sorted(p.name for p in (run_dir / "shards").glob("unit-*.json"))


def test_the_first_unit_records_the_declarations_hash_in_the_folder_and_metadata(tmp_path):
    decl = _declaration(tmp_path)
    res = _run(tmp_path / "out", declaration=decl)
    want = hashlib.sha256(decl.read_bytes()).hexdigest()
    record = json.loads((res.path / "declaration.json").read_text())
    assert (record["path"], record["sha256"]) == (str(decl), want)
    assert json.loads((res.path / "run.json").read_text())["declaration"]["sha256"] == want
    assert res.metadata["declaration"]["sha256"] == want
    assert json.loads((res.path / "metadata.json").read_text())["declaration"]["path"] \
        == str(decl)
    # the same file: the run continues (here: all done, nothing recomputed)
    again = _run(tmp_path / "out", declaration=decl)
    assert again.metadata["units_run_this_session"] == 0
    assert runner.load("runner_selftest", overrides=FAST, out=tmp_path / "out").rows.equals(
        res.rows)


def test_one_changed_byte_is_refused_before_any_unit_is_computed(tmp_path, monkeypatch):
    decl = _declaration(tmp_path)
    out = tmp_path / "out"
    monkeypatch.setenv("CH_SELFTEST_FAIL_UNIT", "3")        # stop the first run midway
    with pytest.raises(RuntimeError, match="unit 3 fails on purpose"):
        _run(out, declaration=decl)
    run_dir = next(out.iterdir())
    saved = _shards(run_dir)
    assert 0 < len(saved) < FAST["units"]
    was = hashlib.sha256(decl.read_bytes()).hexdigest()
    data = bytearray(decl.read_bytes())
    data[TEXT.index("7")] = ord("8")                        # seed 7 -> 8: one byte
    decl.write_bytes(bytes(data))
    now = hashlib.sha256(decl.read_bytes()).hexdigest()
    monkeypatch.delenv("CH_SELFTEST_FAIL_UNIT")
    with pytest.raises(runner.RunError) as err:
        _run(out, declaration=decl)
    msg = str(err.value)
    assert "\n" not in msg
    assert str(decl) in msg and was in msg and now in msg and "changed" in msg
    assert _shards(run_dir) == saved                        # nothing computed
    assert not (run_dir / "metadata.json").exists()
    # restoring the declared bytes lets the same run finish
    decl.write_text(TEXT)
    res = _run(out, declaration=decl)
    assert res.metadata["units_run_this_session"] == FAST["units"] - len(saved)
    assert len(_shards(run_dir)) == FAST["units"]


def test_declared_and_undeclared_runs_do_not_share_a_folder(tmp_path):
    decl = _declaration(tmp_path)
    plain = _run(tmp_path / "a")
    with pytest.raises(runner.RunError, match=r"started without a declaration; it cannot be "
                                              r"continued under the declaration .*prereg\.md"):
        _run(tmp_path / "a", declaration=decl)
    assert not (plain.path / "declaration.json").exists()
    declared = _run(tmp_path / "b", declaration=decl)
    with pytest.raises(runner.RunError, match=r"started under the declaration .*prereg\.md "
                                              r"\(sha256 [0-9a-f]{64}\).*--declaration"):
        _run(tmp_path / "b")
    # --fresh starts a new run: a new record (or none)
    fresh = _run(tmp_path / "b", fresh=True)
    assert not (fresh.path / "declaration.json").exists()
    assert "declaration" not in fresh.metadata
    assert declared.path == fresh.path


def test_a_deleted_record_is_recovered_from_run_json(tmp_path):
    decl = _declaration(tmp_path)
    res = _run(tmp_path / "out", declaration=decl)
    (res.path / "declaration.json").unlink()
    with pytest.raises(runner.RunError, match="started under the declaration"):
        _run(tmp_path / "out")
    decl.write_text(TEXT + "\n")
    with pytest.raises(runner.RunError, match="changed after the run's first unit"):
        _run(tmp_path / "out", declaration=decl)


def test_a_missing_declaration_file_is_named_and_nothing_is_written(tmp_path):
    with pytest.raises(runner.RunError, match=r"declaration .*nope\.md: no such file"):
        _run(tmp_path / "out", declaration=tmp_path / "nope.md")
    assert not (tmp_path / "out").exists()


def test_without_the_option_the_outputs_are_unchanged(tmp_path):
    """No record, no new key: the files of an undeclared run are byte for byte those
    of a run by the same runner with the option absent (rows, tables, summary)."""
    a = _run(tmp_path / "a")
    b = _run(tmp_path / "b", declaration=None)
    for name in ("rows.csv", "summary.csv", "summary.txt"):
        assert (a.path / name).read_bytes() == (b.path / name).read_bytes()
    for res in (a, b):
        assert not (res.path / "declaration.json").exists()
        assert "declaration" not in json.loads((res.path / "run.json").read_text())
        assert "declaration" not in res.metadata


def test_the_command_line_flag(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CH_EXPERIMENT_MODULES", "_runner_experiment")
    decl = _declaration(tmp_path)
    args = ["run", "runner_selftest", "--set", "units=6", "sleep=0", "--workers", "1",
            "--out", str(tmp_path / "out"), "--no-progress"]
    assert cli(args + ["--declaration", str(decl)]) == 0
    decl.write_text(TEXT.replace("6", "9"))
    capsys.readouterr()
    assert cli(args + ["--declaration", str(decl)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: declaration ") and "changed" in err and "\n" not in err
