"""The shipped paper results (paper/results/): packed from a paper-profile run, every
file checked against SHA256SUMS when read, a damaged file named in the error."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from experiments import _shipped as shipped
from spiel_game._provenance import file_sha256

FIXTURES = ROOT / "tests" / "fixtures" / "results" / "quick"
#: The shipped paper results of this checkout (shipped.SHIPPED is relative to a checkout's top).
SHIPPED = ROOT / shipped.SHIPPED


@pytest.fixture()
def packed(tmp_path):
    src = tmp_path / "paper"
    shutil.copytree(FIXTURES, src)
    info = shipped.pack(src, tmp_path / "shipped")
    return src, tmp_path / "shipped", info


def test_the_repository_ships_verified_paper_results():
    assert shipped.verify(SHIPPED) > 10
    for name in ("ladder/steps.csv", "ladder/sweep.csv", "shipped.json", "cfr_convergence/rows.csv",
                 "passing_metagame_11/rows.csv", "bench/engine.json", "bench/sim.json"):
        assert (SHIPPED / name).is_file(), name
    size = sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file())
    assert size < 3e6, f"paper/results is {size / 1e6:.1f} MB: a few MB at most"


def test_pack_copies_tables_byte_for_byte_and_leaves_out_unread_rows(packed):
    src, dst, info = packed
    for name in ("rules_stats/summary.csv", "rules_stats/seats.csv", "ladder/steps.csv",
                 "ladder/sweep.csv", "ladder/summary.txt", "ladder/metadata.json",
                 "cfr_convergence/rows.csv", "bench/engine.json", "demo/metadata.json"):
        assert (dst / name).read_bytes() == (src / name).read_bytes(), name
    assert not (dst / "demo" / "rows.csv").exists()         # nothing reads the per-hand rows
    assert not (dst / "ladder" / "rows.csv").exists()       # nor the ladder's per-deal rows
    with open(src / "passing_metagame" / "rows.csv", newline="") as f:
        complete = list(csv.DictReader(f))
    with open(dst / "passing_metagame" / "rows.csv", newline="") as f:
        kept = list(csv.DictReader(f))
    assert kept == [r for r in complete if r["kind"] != "payoff"]
    left = {r["file"]: r for r in info["left_out"]}
    assert left["passing_metagame/rows.csv"]["rows_left_out"] == len(complete) - len(kept) > 0
    assert left["demo/rows.csv"]["sha256_complete"] == file_sha256(src / "demo" / "rows.csv")
    assert left["ladder/rows.csv"]["sha256_complete"] == file_sha256(
        src / "ladder" / "rows.csv")
    assert info["results"]["rules_stats"]["git_commit"]
    assert shipped.verify(dst) == len((dst / shipped.MANIFEST).read_text().splitlines())


@pytest.mark.parametrize("damage", ["edit", "delete", "add"])
def test_a_damaged_shipped_file_is_named(packed, damage):
    _, dst, _ = packed
    target = dst / "rules_stats" / "summary.csv"
    if damage == "edit":
        target.write_text(target.read_text().replace("0", "1", 1))
    elif damage == "delete":
        target.unlink()
    else:
        target = dst / "rules_stats" / "extra.csv"
        target.write_text("a\n1\n")
    with pytest.raises(shipped.ShippedResultsError) as err:
        shipped.verify(dst)
    assert str(target) in str(err.value)
    assert [p for p, _ in err.value.problems] == [str(target)]


def test_the_paper_build_refuses_damaged_shipped_results(packed):
    _, dst, _ = packed
    (dst / "ladder" / "steps.csv").write_text("{}")
    r = subprocess.run([sys.executable, "paper/tools/build.py", str(dst), "--no-build"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2
    assert f"{dst / 'ladder' / 'steps.csv'}: content differs" in r.stderr
    r = subprocess.run([sys.executable, "paper/tables/macros.py", str(dst)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "ladder/steps.csv" in r.stdout


def test_only_the_shipped_results_build_the_committed_pdf(packed):
    from conftest import paper_build
    RELEASE_PDF, release_pdf = paper_build().RELEASE_PDF, paper_build().release_pdf
    assert release_pdf(SHIPPED) == RELEASE_PDF
    src, dst, _ = packed
    assert release_pdf(dst) == RELEASE_PDF             # a packed copy is shipped results too
    assert release_pdf(src) is None                    # the run it was packed from is not
    assert release_pdf(None) is None


def test_add_replaces_only_the_named_studies(packed, tmp_path):
    """``ship --only``: one study's new paper-profile results go in, every other
    shipped file stays byte for byte, the manifest still verifies."""
    import json
    _, dst, _ = packed
    before = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
              if p.is_file()}
    new = tmp_path / "new"
    shutil.copytree(FIXTURES / "rules_stats", new / "rules_stats")
    meta = json.loads((new / "rules_stats" / "metadata.json").read_text())
    with pytest.raises(ValueError, match="'quick'-profile run"):
        shipped.add(new, ["rules_stats"], dst)
    meta["profile"] = "paper"
    (new / "rules_stats" / "metadata.json").write_text(json.dumps(meta))
    (new / "rules_stats" / "summary.txt").write_text("new numbers\n")
    with pytest.raises(FileNotFoundError, match=r"\['rules_stats'\]"):
        shipped.add(new, ["ladder"], dst)
    info = shipped.add(new, ["rules_stats"], dst)
    after = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
             if p.is_file()}
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    outside = {k for k in changed if not k.startswith("rules_stats/")}
    assert {"shipped.json", shipped.MANIFEST} <= outside <= \
        {"shipped.json", "README.md", shipped.MANIFEST}
    assert after["rules_stats/summary.txt"] == b"new numbers\n"
    assert info["added"][-1]["studies"] == ["rules_stats"]
    assert info["results"]["rules_stats"]["profile"] == "paper"
    assert shipped.verify(dst) == len(after) - 1
    (dst / "ladder" / "steps.csv").write_text("edited\n")
    with pytest.raises(shipped.ShippedResultsError, match="steps.csv"):
        shipped.add(new, ["rules_stats"], dst)      # a damaged destination is refused first


def test_add_a_benchmark_result(packed, tmp_path):
    """``ship --only bench/NAME``: one benchmark JSON goes in (new or replacing),
    every other shipped file stays byte for byte; a file without metadata or a
    missing one is refused, naming what is there."""
    import json
    _, dst, _ = packed
    before = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
              if p.is_file()}
    new = tmp_path / "new"
    (new / "bench").mkdir(parents=True)
    doc = {"metadata": {"git_commit": "abc", "started": "t0"}, "result": {"x": 1}}
    (new / "bench" / "cfr_large.json").write_text(json.dumps(doc))
    (new / "bench" / "bare.json").write_text(json.dumps({"result": 1}))
    with pytest.raises(FileNotFoundError, match=r"bench/bare.*bench/cfr_large"):
        shipped.add(new, ["bench/bare"], dst)
    with pytest.raises(FileNotFoundError, match=r"bench/nothing"):
        shipped.add(new, ["bench/nothing"], dst)
    info = shipped.add(new, ["bench/cfr_large"], dst)
    after = {p.relative_to(dst).as_posix(): p.read_bytes() for p in dst.rglob("*")
             if p.is_file()}
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed - {"shipped.json", "README.md", shipped.MANIFEST} == {"bench/cfr_large.json"}
    assert info["results"]["bench/cfr_large"]["git_commit"] == "abc"
    assert info["added"][-1]["studies"] == ["bench/cfr_large"]
    assert shipped.verify(dst) == len(after) - 1
