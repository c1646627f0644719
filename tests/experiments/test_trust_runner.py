"""Trust in the experiment runner: damaged results are reported by name and
never used, Ctrl-C/SIGTERM stop every worker and leave a resumable run, bad configs
are refused before anything is written, and every configuration has its own folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, paper_build, shell_signals

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import _runner_experiment  # noqa: E402,F401  (registers runner_selftest)
from experiments import runner  # noqa: E402
from experiments.studies import demo  # noqa: E402
from experiments.__main__ import main as cli  # noqa: E402
from experiments._base.config import ConfigError, config_fields, load_config_file  # noqa: E402
from experiments._base.registry import get  # noqa: E402

ENV = {**os.environ, "CH_EXPERIMENT_MODULES": "_runner_experiment",
       "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]
                                     + os.environ.get("PYTHONPATH", "").split(os.pathsep))}
TINY = {"units": 6, "rows_per_unit": 3, "sleep": 0}
DERIVED = ("rows.csv", "summary.csv", "summary.txt")
QUIET = {"progress": False, "verbose": False}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name not in (".runner.lock", ".runner-files")}


def same_results(a: runner.RunResult, b: runner.RunResult) -> None:
    pd.testing.assert_frame_equal(a.rows, b.rows, check_exact=True)
    assert sorted(a.tables) == sorted(b.tables)
    for t in a.tables:
        pd.testing.assert_frame_equal(a.tables[t], b.tables[t], check_exact=True)
    assert a.text.rstrip() == b.text.rstrip()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    res = runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)
    return res, snapshot(res.path)


# ------------------------------------------------------------------ damaged results
def _numbers(data: bytes) -> list[int]:
    return [m.start() for m in re.finditer(rb"[0-9]", data)]


@st.composite
def corruptions(draw, files):
    """``(file, kind, new bytes or None for deleted)`` with the new bytes != the old."""
    name = draw(st.sampled_from(sorted(files)))
    data = files[name]
    kind = draw(st.sampled_from(["flip", "truncate", "delete_row", "edit_number", "delete"]))
    if kind == "delete":
        return name, kind, None
    if kind == "flip":
        at = draw(st.integers(0, len(data) - 1))
        mask = draw(st.integers(1, 255))
        return name, kind, data[:at] + bytes([data[at] ^ mask]) + data[at + 1:]
    if kind == "truncate":
        return name, kind, data[:draw(st.integers(0, len(data) - 1))]
    if kind == "edit_number":
        digits = _numbers(data)
        if not digits:
            return name, "truncate", data[:len(data) // 2]
        at = draw(st.sampled_from(digits))
        new = draw(st.sampled_from([d for d in b"0123456789" if d != data[at]]))
        return name, kind, data[:at] + bytes([new]) + data[at + 1:]
    if name.startswith("shards/"):             # a shard without one of its rows
        shard = json.loads(data)
        del shard["rows"][draw(st.integers(0, len(shard["rows"]) - 1))]
        return name, kind, json.dumps(shard, indent=1).encode()
    lines = data.split(b"\n")
    full = [i for i, line in enumerate(lines) if line]
    del lines[draw(st.sampled_from(full))]
    return name, kind, b"\n".join(lines)


def _damage(folder: Path, name: str, new: bytes | None) -> None:
    if new is None:
        (folder / name).unlink()
    else:
        (folder / name).write_bytes(new)


def _parsed_same(name: str, old: bytes, new: bytes | None) -> bool:
    """A JSON document whose content did not change (e.g. a space turned into a tab)."""
    if new is None or not name.endswith(".json"):
        return False
    try:
        return json.loads(old) == json.loads(new)
    except (ValueError, UnicodeDecodeError):
        return False


def test_many_damaged_result_folders_are_reported_by_file_and_never_used(reference,
                                                                        tmp_path_factory):
    """Byte flips, truncation at any offset, deleted rows, edited digits and deleted
    files, in every file of a finished run: load and resume name the damaged file
    (never a bare JSONDecodeError, never a silently different table), change
    nothing, and --recompute-corrupt (or a plain rerun, for derived files) restores
    exactly the uninterrupted results while every intact shard stays as it was."""
    ref, files = reference
    base = tmp_path_factory.mktemp("damaged")
    seen = set()

    @settings(max_examples=70, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(corruptions(files))
    def check(case):
        name, kind, new = case
        seen.add((name.split("/")[0] if not name.startswith("shards/") else "shard", kind))
        out = base / f"case{len(list(base.iterdir()))}"
        folder = out / ref.path.name
        shutil.copytree(ref.path, folder)
        _damage(folder, name, new)
        damaged = snapshot(folder)
        invisible = _parsed_same(name, files[name], new)
        fname = Path(name).name

        # load: the damaged file is named, or (content unchanged) the same results.
        try:
            got = runner.load("runner_selftest", out=out, overrides=TINY)
        except runner.RunError as err:
            msg = str(err)
            assert fname in msg, (name, kind, msg)
            assert "JSONDecodeError" not in msg and "Traceback" not in msg
        else:
            assert invisible, f"load used a damaged {name} ({kind})"
            same_results(got, ref)
        assert snapshot(folder) == damaged                # load changes nothing

        # resume: a damaged shard or run.json stops the run, naming it; derived
        # files are rebuilt from the verified shards.
        try:
            again = runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)
        except runner.CorruptResultError as err:
            assert name.startswith("shards") or name == "run.json", (name, kind, str(err))
            assert fname in str(err) or "unit-" in str(err), str(err)
            assert "--recompute-corrupt" in str(err)
            assert snapshot(folder) == damaged            # nothing was changed
            again = runner.run("runner_selftest", overrides=TINY, out=out, workers=1,
                               recompute_corrupt=True, **QUIET)
            if new is not None and name != "shards.sha256":   # kept, never deleted
                assert new in [p.read_bytes() for p in (folder / "corrupt").iterdir()]
        same_results(again, ref)
        same_results(runner.load("runner_selftest", out=out, overrides=TINY), ref)
        for f in DERIVED:
            assert (folder / f).read_bytes() == files[f]
        after = snapshot(folder)
        aside = {p.read_bytes() for p in (folder / "corrupt").glob("*")}
        for shard in (f for f in files if f.startswith("shards/") and f != name):
            if name == "shards.sha256":   # unverifiable shards: recomputed, the old kept
                assert after[shard] == files[shard] or files[shard] in aside
            else:                         # intact shards are never rewritten
                assert after[shard] == files[shard]

    check()
    kinds = {k for _, k in seen}
    assert kinds == {"flip", "truncate", "delete_row", "edit_number", "delete"}, seen
    assert {w for w, _ in seen} >= {"shard", "shards.sha256", "rows.csv", "run.json",
                                    "metadata.json"}, seen


def test_edited_points_in_a_shard_are_refused_until_recomputed(reference, tmp_path):
    """A shard's number edited (11 -> 99) by hand."""
    ref, files = reference
    folder = tmp_path / ref.path.name
    shutil.copytree(ref.path, folder)
    shard = folder / "shards" / "unit-000003.json"
    doc = json.loads(shard.read_text())
    doc["rows"][0]["k"] = 99 if doc["rows"][0]["k"] != 99 else 11
    shard.write_text(json.dumps(doc, indent=1))
    pattern = r"shards/unit-000003\.json: content hash mismatch"
    with pytest.raises(runner.CorruptResultError, match=pattern) as err:
        runner.load("runner_selftest", out=tmp_path, overrides=TINY)
    assert [p.name for p, _ in err.value.problems] == ["unit-000003.json"]
    with pytest.raises(runner.CorruptResultError, match=pattern + r"(.|\n)*--recompute-corrupt"):
        runner.run("runner_selftest", overrides=TINY, out=tmp_path, workers=1, **QUIET)
    rc = cli(["run", "runner_selftest", "--out", str(tmp_path), "--workers", "1",
              "--no-progress", "--set", "units=6", "rows_per_unit=3", "sleep=0"])
    assert rc == 2
    fixed = runner.run("runner_selftest", overrides=TINY, out=tmp_path, workers=1,
                       recompute_corrupt=True, **QUIET)
    same_results(fixed, ref)
    assert fixed.metadata["units_run_this_session"] == 1
    (kept,) = (folder / "corrupt").iterdir()
    assert json.loads(kept.read_text())["rows"][0]["k"] == doc["rows"][0]["k"]


def test_truncated_json_files_name_the_file_not_a_json_error(reference, tmp_path):
    ref, files = reference
    for i, name in enumerate(("run.json", "metadata.json")):
        out = tmp_path / str(i)
        folder = out / ref.path.name
        shutil.copytree(ref.path, folder)
        (folder / name).write_bytes(files[name][:len(files[name]) // 2])
        with pytest.raises(runner.CorruptResultError,
                           match=rf"{name}: not valid JSON \(.*line \d+, column \d+\): "
                                 rf"truncated or edited"):
            runner.load("runner_selftest", out=out, overrides=TINY)
    with pytest.raises(runner.CorruptResultError, match=r"run\.json: not valid JSON"):
        runner.run("runner_selftest", overrides=TINY, out=tmp_path / "0", workers=1, **QUIET)


def test_the_paper_build_refuses_damaged_results_before_touching_the_figures(
        reference, tmp_path, capsys):
    ref, files = reference
    out = tmp_path / "quick"
    shutil.copytree(ref.path, out / "runner_selftest")      # a folder the scripts read
    (out / "runner_selftest" / "rows.csv").write_bytes(files["rows.csv"][:-20])
    generated = sorted((ROOT / "paper").rglob("*"))
    assert paper_build().main([str(out), "--no-build"]) == 2
    err = capsys.readouterr().err
    assert "rows.csv: content hash mismatch with metadata.json" in err
    assert "not regenerated" in err
    assert sorted((ROOT / "paper").rglob("*")) == generated


def test_results_of_an_older_runner_are_adopted_by_the_next_run(reference, tmp_path, capsys):
    """Folders written before content hashes: load asks for a run, which records the
    hashes of the shards (checked against the unit list) without recomputing."""
    ref, files = reference
    folder = tmp_path / ref.path.name
    shutil.copytree(ref.path, folder)
    for name in ("run.json", "metadata.json"):
        doc = json.loads((folder / name).read_text())
        for key in ("content_sha256", "format", "sha256"):
            doc.pop(key, None)
        (folder / name).write_text(json.dumps(doc, indent=1))
    (folder / "shards.sha256").unlink()
    with pytest.raises(runner.UnverifiedResultError,
                       match="older runner without content hashes"):
        runner.load("runner_selftest", out=tmp_path, overrides=TINY)
    res = runner.run("runner_selftest", overrides=TINY, out=tmp_path, workers=1, **QUIET)
    assert res.metadata["units_run_this_session"] == 0
    assert "6 shard(s) written by an older runner" in capsys.readouterr().err
    same_results(runner.load("runner_selftest", out=tmp_path, overrides=TINY), ref)


# ------------------------------------------------------------------ Ctrl-C, SIGTERM
SLOW = {"units": 12, "rows_per_unit": 3, "sleep": 0.25}


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from /proc)."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _interrupted_run(out: Path, how: str):
    """Start the slow self-test with two workers, stop it with ``how`` once some
    shards exist; return (returncode, stderr, seconds until every child was gone)."""
    cmd = [sys.executable, "-m", "experiments", "run", "runner_selftest", "--out", str(out),
           "--workers", "2", "--no-progress", "--set"] + [f"{k}={v}" for k, v in SLOW.items()]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=shell_signals)
    shards = out / runner.resolve("runner_selftest", overrides=SLOW)[2] / "shards"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if shards.exists() and len(list(shards.glob("unit-*.json"))) >= 2:
                break
            time.sleep(0.02)
        workers = [c for c in _children(proc.pid) if _alive(c)]
        assert proc.poll() is None and len(workers) >= 2, "the run ended before the signal"
        t0 = time.monotonic()
        if how == "SIGINT to the terminal's process group":
            os.killpg(proc.pid, signal.SIGINT)
        elif how == "SIGTERM":
            os.kill(proc.pid, signal.SIGTERM)
        else:
            os.kill(proc.pid, signal.SIGKILL)
        while any(_alive(c) for c in workers) and time.monotonic() - t0 < 30:
            time.sleep(0.02)
        gone = time.monotonic() - t0
        _, err = proc.communicate(timeout=60)
        return proc.returncode, err, gone
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_and_sigterm_stop_every_worker_and_the_rerun_completes(tmp_path):
    ref = runner.run("runner_selftest", overrides={**SLOW, "sleep": 0}, out=tmp_path / "ref",
                     workers=1, **QUIET)
    for i, (how, rc) in enumerate([("SIGINT to the terminal's process group", 130),
                                   ("SIGTERM", 143), ("SIGKILL of the driver", -9)]):
        out = tmp_path / str(i)
        code, err, gone = _interrupted_run(out, how)
        assert code == rc, (how, code, err)
        assert gone < 5, f"{how}: workers still running {gone:.1f} s after the signal"
        if rc > 0:
            assert "Traceback" not in err, err
            m = re.search(r"interrupted \((SIGINT|SIGTERM)\); (\d+) of 12 units done in .*; "
                          r"rerun the same command to resume", err)
            assert m, err
            assert m[1] == signal.Signals(rc - 128).name and int(m[2]) >= 2
        folder = out / runner.resolve("runner_selftest", overrides=SLOW)[2]
        assert not list(folder.rglob(".*.tmp")), "a half-written file was left"
        done = runner.run("runner_selftest", overrides=SLOW, out=out, workers=1, **QUIET)
        assert 0 < done.metadata["units_run_this_session"] < 12
        same_results(done, ref)
        for f in DERIVED:
            assert (folder / f).read_bytes() == (ref.path / f).read_bytes()


def test_an_interrupt_outside_the_runner_is_one_line_too(monkeypatch, capsys):
    """reproduce also runs the benchmarks and the paper scripts: Ctrl-C or SIGTERM there
    ends the command with one line and the signal's exit status, not a traceback."""
    import experiments.__main__ as main_module

    def stop(args):
        os.kill(os.getpid(), signal.SIGTERM)     # raised as KeyboardInterrupt(SIGTERM)
        time.sleep(5)
        return 0

    before = signal.getsignal(signal.SIGTERM)    # another test's ray.init may have set one
    monkeypatch.setattr(main_module, "cmd_list", stop)
    assert cli(["list"]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err == ("interrupted (SIGTERM) during `list`; finished results are kept; rerun "
                   "the same command to resume\n")
    assert signal.getsignal(signal.SIGTERM) is before     # restored

    def ctrl_c(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(main_module, "cmd_list", ctrl_c)
    assert cli(["list"]) == 130
    assert "interrupted (SIGINT) during `list`" in capsys.readouterr().err


# ------------------------------------------------------------------ configs
def test_config_file_errors_name_the_file_and_the_problem(tmp_path):
    cls = get("demo").config_cls
    cases = {
        "missing.toml": (None, r"config file .*missing\.toml not found"),
        "syntax.toml": ("hands = 10\nplayers = [6,\n",
                        r"syntax\.toml: invalid TOML: .*line 3, column 1"),
        "quotes.toml": ("hands = 10\nchunk = five\n",
                        r"quotes\.toml: invalid TOML: .*line 2, column 9.*'chunk = five' "
                        r"\(a string value needs quotes"),
        "unknown.toml": ("hand = 10\n", r"unknown\.toml: unknown config key\(s\) \['hand'\] "
                                        r"for DemoConfig; allowed: players, hands, seed, chunk"),
        "type.toml": ('hands = "many"\n', r"type\.toml: hands = 'many': expected an integer"),
        "table.toml": ("[demo]\nhands = 3\n", r"table\.toml: tables \['demo'\]"),
        "binary.toml": (b"hands = \xff\n", r"binary\.toml: not UTF-8 text \(byte 8, line 1\)"),
    }
    for name, (text, pattern) in cases.items():
        f = tmp_path / name
        if isinstance(text, str):
            f.write_text(text)
        elif text is not None:
            f.write_bytes(text)
        with pytest.raises(ConfigError, match=pattern):
            load_config_file(f, cls)
    with pytest.raises(ConfigError, match=r"is a directory"):
        load_config_file(tmp_path, cls)


def test_cli_config_errors_exit_2_and_write_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("hands = 4\nplayers = [6, 11\n")
    out = tmp_path / "out"
    assert cli(["run", "demo", "--config", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.toml: invalid TOML: Unclosed array" in err
    assert "line 3, column 1" in err and "players = [6, 11" in err
    assert not out.exists()


@settings(max_examples=80, deadline=None, derandomize=True)
@given(key=st.one_of(st.sampled_from(["players", "hands", "seed", "chunk"]),
                     st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)),
       value=st.one_of(st.integers(-5, 5), st.text("xyz", min_size=1, max_size=3),
                       st.floats(0.1, 9.9), st.booleans(),
                       st.lists(st.integers(0, 3), max_size=2)))
def test_generated_config_files_are_checked_key_by_key(tmp_path_factory, key, value):
    """Any key that is not a field, and any value of the wrong type, is refused
    naming the file and the key (and the allowed keys)."""
    cls = get("demo").config_cls
    fields = config_fields(cls)
    f = tmp_path_factory.mktemp("toml") / "c.toml"
    f.write_text(f"{key} = {json.dumps(value)}\n")
    if key not in fields:
        with pytest.raises(ConfigError, match=rf"c\.toml: unknown config key\(s\) \['{key}'\]"
                                              rf".*allowed: players, hands, seed, chunk"):
            load_config_file(f, cls)
        return
    integer = isinstance(value, int) and not isinstance(value, bool) or \
        isinstance(value, float) and value.is_integer()
    ok = integer if fields[key] is int else isinstance(value, list)   # players: a list
    if ok:
        assert load_config_file(f, cls)[key] == (tuple(value) if isinstance(value, list)
                                                 else int(value))
    else:
        with pytest.raises(ConfigError, match=rf"c\.toml: {key} = .*\(field DemoConfig\.{key}"):
            load_config_file(f, cls)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(players=st.lists(st.integers(-2, 14), max_size=3))
def test_impossible_demo_games_are_refused_before_anything_is_written(tmp_path_factory,
                                                                       players):
    out = tmp_path_factory.mktemp("demo") / "out"
    good = bool(players) and len(set(players)) == len(players) and \
        all(5 <= n <= 11 for n in players)
    ov = {"players": players, "hands": 2, "chunk": 2}
    if good:
        assert demo.DemoConfig(players=tuple(players)).players == tuple(players)
    else:
        with pytest.raises(ConfigError, match="players"):
            runner.run("demo", overrides=ov, out=out, workers=1, **QUIET)
        assert not out.exists()


def test_demo_with_four_players_then_the_corrected_run_without_fresh(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli(["run", "demo", "--set", "players=4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "players=4 is impossible" in err and "allowed 5..11" in err
    assert not out.exists()
    assert cli(["run", "demo", "--set", "players=5", "hands=2", "chunk=2", "--workers", "1",
                "--no-progress", "--out", str(out)]) == 0
    assert len(runner.load("demo", out=out, overrides={"players": "5", "hands": 2,
                                                      "chunk": 2}).rows) == 2 * 5


# ------------------------------------------------------------------ folders
def test_every_configuration_has_its_own_folder_and_load_finds_it(tmp_path, capsys):
    exp = get("runner_selftest")
    out = tmp_path
    # The profile's own config (also when spelled out as overrides) -> <name>/.
    assert runner.resolve("runner_selftest")[2] == "runner_selftest"
    assert runner.resolve("runner_selftest", overrides={"units": 40, "seed": 7})[2] == \
        "runner_selftest"
    a = runner.run("runner_selftest", overrides=TINY, out=out, workers=1, **QUIET)
    b = runner.run("runner_selftest", overrides=TINY, seed=8, out=out, workers=1, **QUIET)
    toml = tmp_path / "c.toml"
    toml.write_text("units = 6\nrows_per_unit = 3\nsleep = 0.0\nseed = 8\n")
    assert runner.resolve("runner_selftest", config_file=toml)[2] == b.path.name
    assert a.path != b.path and a.path.parent == b.path.parent == out
    assert re.fullmatch(r"runner_selftest@[0-9a-f]{8}", a.path.name)
    assert not a.rows.equals(b.rows)
    same_results(runner.load("runner_selftest", out=out, overrides=TINY), a)
    same_results(runner.load("runner_selftest", out=out, config_file=toml), b)
    same_results(runner.load(b.path.name, out=out), b)       # a folder by its name
    assert runner.load(b.path.name, out=out).name == "runner_selftest"
    with pytest.raises(runner.ResultsNotFoundError) as err:
        runner.load("runner_selftest", out=out)
    msg = str(err.value)
    assert "python -m experiments run runner_selftest --out" in msg
    assert a.path.name in msg and b.path.name in msg           # what is there instead
    with pytest.raises(FileNotFoundError, match=r"--set units=7"):
        runner.load("runner_selftest", out=out, overrides={**TINY, "units": 7})
    assert exp.config("quick").units == 40                     # the registry is unchanged


def test_run_snippet_pasted_into_a_script_works_with_and_without_the_guard(tmp_path):
    """Spawned workers import the main script again: a script calling run at its top
    level is detected and run in one process with a warning; with the guard, the
    workers are used. Both give the same rows, printed once."""
    body = """
        import experiments
        res = experiments.run("runner_selftest", out={out!r}, workers=2,
                              overrides={{"units": 4, "sleep": 0}}, progress=False,
                              verbose=False)
        print("ROWS", len(res.rows), res.metadata["workers"])
    """
    outs = []
    for guarded in (False, True):
        code = textwrap.dedent(body.format(out=str(tmp_path / f"out_{guarded}")))
        if guarded:
            code = "if __name__ == '__main__':\n" + textwrap.indent(code, "    ")
        script = tmp_path / f"script_{guarded}.py"
        script.write_text(code)
        r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=ENV,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append((r.stdout, r.stderr))
    (plain, plain_err), (guard, guard_err) = outs
    assert plain == "ROWS 20 1\n" and "without `if __name__ == \"__main__\":`" in plain_err
    assert guard == "ROWS 20 2\n" and "__main__" not in guard_err
