"""The shipped paper results: ``paper/results/``, a compact and verified copy of a
finished paper-profile run (``results/paper/``), from which the paper is rebuilt
without recomputing anything.

``python -m experiments ship [--src results/paper] [--dst paper/results]`` writes
it (:func:`pack`), in the top folder of a source checkout: :data:`SHIPPED` is
``paper/results`` of the working folder (an installed copy of the package
holds no results and finds none above itself; commands name another folder
with an argument); ``python paper/tools/build.py paper/results`` (``make -C
paper``) reads it, after :func:`verify`. What ships:

* each runner study's ``metadata.json`` (config, seed, versions, git commit,
  machine, times) and its derived tables (``summary.csv``, ``summary.txt``,
  ``seats.csv``, ...), byte for byte;
* its ``rows.csv`` byte for byte, except the rows no figure, table or macro
  reads (:data:`LEAVE_OUT`): the demo's per-hand rows, the ladder's per-deal
  rows and the meta-games' per-deal payoff rows (the input of their
  bootstrap); ``shipped.json`` records
  how many rows were left out and the SHA-256 of the complete file, so a rerun
  can be compared with the run that made the paper;
* ``bench/*.json`` (the benchmarks' full measurements and the results of the
  hand-run research scripts, ``research/README.md``, each with its metadata);
* ``shipped.json`` (where it came from, each result's commit and machine, what
  was left out), ``README.md`` and ``SHA256SUMS`` (every other file's SHA-256,
  in ``sha256sum -c`` format).

Never the shards (``shards/``): the shipped folders are read-only tables, not
resumable runs.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import os
import shutil
from pathlib import Path

from ._base.metadata import git_commit
from .runner import CorruptResultError
from spiel_game._provenance import file_sha256

__all__ = ["SHIPPED", "MANIFEST", "LEAVE_OUT", "ShippedResultsError", "is_shipped", "verify",
           "pack", "add"]

#: Where the shipped paper results live in a source checkout, relative to its top
#: folder (the working folder of ``make`` and of the commands that read them).
SHIPPED = Path("paper") / "results"
#: The manifest of a shipped folder (``sha256sum -c`` format).
MANIFEST = "SHA256SUMS"
#: Rows of ``<study>/rows.csv`` that no script reads: ``None`` leaves out the whole
#: file, ``(column, value)`` the rows whose ``column`` equals ``value``.
LEAVE_OUT: dict[str, tuple[str, str] | None] = {
    "demo": None,                                   # per-hand rows (7.8 MB); summaries ship
    "ladder": None,                                 # per-deal rows; steps and sweep ship
    "passing_metagame": ("kind", "payoff"),         # per-deal payoffs of every profile
    "passing_metagame_11": ("kind", "payoff"),
}
_WHY = {None: "per-hand rows; the paper reads the summary and seat tables",
        "ladder": "per-deal rows of every step and sweep budget (points per seat, seconds "
                  "per agent); the paper reads the steps and sweep tables",
        "payoff": "per-deal payoffs of each profile (the bootstrap's input); the paper "
                  "reads the meta-game's tables (convention, one_vs_population, rollout_br)"}
#: Files of a runner folder that ship besides ``rows.csv`` (derived tables, provenance).
_TABLE_SUFFIXES = (".csv", ".txt")


class ShippedResultsError(CorruptResultError):
    """A shipped results folder that fails its manifest; the message names every
    damaged, missing or unlisted file."""


def is_shipped(folder: Path) -> bool:
    """Whether ``folder`` is a shipped results folder (it has a manifest)."""
    return (Path(folder) / MANIFEST).is_file()


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and p.name != MANIFEST)


def verify(folder: Path = SHIPPED) -> int:
    """Check every file of ``folder`` against its ``SHA256SUMS``; the number of
    files checked. Raises :class:`ShippedResultsError` naming each damaged,
    missing or unlisted file."""
    folder = Path(folder)
    manifest = folder / MANIFEST
    if not manifest.is_file():
        raise ShippedResultsError(f"{manifest} not found: {folder} is not a shipped results "
                                  f"folder (python -m experiments ship writes one)")
    listed: dict[str, str] = {}
    problems = []
    for n, line in enumerate(manifest.read_text().splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            problems.append((str(manifest), f"line {n} is not 'SHA256  FILE'"))
            continue
        listed[name] = digest
    for name, digest in listed.items():
        path = folder / name
        if not path.is_file():
            problems.append((str(path), "missing"))
        elif file_sha256(path) != digest:
            problems.append((str(path), "content differs from its SHA-256 in SHA256SUMS"))
    for name in _files(folder):
        if name not in listed:
            problems.append((str(folder / name), "not in SHA256SUMS"))
    if problems:
        raise ShippedResultsError(
            "shipped results failed verification: "
            + "; ".join(f"{p}: {what}" for p, what in problems)
            + f" (restore them with `git checkout -- {folder}`, or rebuild them from a "
              "paper-profile run with `python -m experiments ship`)", problems)
    return len(listed)


def _rows_kept(src: Path, dst: Path, rule: tuple[str, str]) -> tuple[int, int]:
    """Copy ``src`` to ``dst`` without the rows where ``rule``'s column equals its
    value, line by line (kept lines byte for byte); ``(kept, left out)``."""
    column, value = rule
    with open(src, newline="") as f:
        lines = f.read().split("\n")
    trailing = lines[-1] == ""
    body = lines[1:-1] if trailing else lines[1:]
    header = next(csv.reader([lines[0]]))
    col = header.index(column)
    kept, dropped = [lines[0]], 0
    for line in body:
        fields = next(csv.reader([line]))
        if len(fields) != len(header):          # a quoted newline: not line-oriented
            raise ValueError(f"{src}: a row spans lines; cannot filter it line by line")
        if fields[col] == value:
            dropped += 1
        else:
            kept.append(line)
    dst.write_text("\n".join(kept) + ("\n" if trailing else ""))
    return len(kept) - 1, dropped


def _display(path: Path) -> str:
    """``path`` relative to the working folder (a checkout's top) when inside it."""
    path, here = Path(path).resolve(), Path.cwd().resolve()
    return path.relative_to(here).as_posix() if path.is_relative_to(here) else str(path)


def _count_rows(path: Path) -> int:
    with open(path, newline="") as f:
        return sum(1 for _ in csv.reader(f)) - 1


def _pack_study(folder: Path, out: Path, info: dict) -> None:
    """Ship the runner folder ``folder`` into ``out``; record it in ``info``."""
    out.mkdir()
    meta = json.loads((folder / "metadata.json").read_text())
    info["results"][folder.name] = {k: meta.get(k) for k in (
        "profile", "git_commit", "machine", "started", "finished", "rows")}
    shutil.copyfile(folder / "metadata.json", out / "metadata.json")
    for f in sorted(folder.iterdir()):
        if f.is_file() and f.suffix in _TABLE_SUFFIXES and f.name != "rows.csv":
            shutil.copyfile(f, out / f.name)
    rows = folder / "rows.csv"
    if not rows.is_file():
        return
    rule = LEAVE_OUT.get(folder.name, ())
    if rule == ():
        shutil.copyfile(rows, out / "rows.csv")
        return
    record = {"file": f"{folder.name}/rows.csv", "sha256_complete": file_sha256(rows)}
    if rule is None:
        record.update(rows_left_out=_count_rows(rows), rows_shipped=0,
                      why=_WHY.get(folder.name, _WHY[None]))
    else:
        kept, dropped = _rows_kept(rows, out / "rows.csv", rule)
        record.update(rows_left_out=dropped, rows_shipped=kept,
                      left_out=f"rows with {rule[0]} == {rule[1]!r}", why=_WHY[rule[1]])
    info["left_out"].append(record)


def _finish(tmp: Path, dst: Path, info: dict) -> dict:
    (tmp / "shipped.json").write_text(json.dumps(info, indent=1) + "\n")
    (tmp / "README.md").write_text(_readme(info))
    (tmp / MANIFEST).write_text("".join(f"{file_sha256(tmp / n)}  {n}\n" for n in _files(tmp)))
    if dst.exists():
        shutil.rmtree(dst)
    os.replace(tmp, dst)
    verify(dst)
    return info


def add(src: Path, studies, dst: Path = SHIPPED) -> dict:
    """Ship the finished paper-profile results of ``studies`` (names of folders of
    ``src``, or ``bench/NAME`` for the benchmark result ``src/bench/NAME.json``)
    into the existing shipped folder ``dst``, replacing those and keeping every
    other one byte for byte (``dst`` is verified first);
    ``shipped.json`` records each addition (studies, source, time, commit).
    Returns the new ``shipped.json`` record."""
    src, dst = Path(src), Path(dst)
    studies = list(studies)
    verify(dst)
    benches = [s for s in studies if s.startswith("bench/")]
    studies = [s for s in studies if not s.startswith("bench/")]
    bad = [b for b in benches if not _bench_ok(src, b)]
    if bad:
        have = sorted(f"bench/{p.stem}" for p in (src / "bench").glob("*.json"))
        raise FileNotFoundError(
            f"no benchmark result to add for {bad} in {src / 'bench'} (a JSON file with its "
            f"metadata, written by python -m experiments.bench.NAME --out or by a research "
            f"script, research/README.md; there: {have})")
    if benches and not studies:
        return _add_benches(src, benches, dst)
    missing = [s for s in studies if "@" in s or "/" in s
               or not (src / s / "metadata.json").is_file()]
    if missing or not studies:
        have = sorted(p.parent.name for p in src.glob("*/metadata.json"))
        raise FileNotFoundError(
            f"no finished results to add for {missing or 'no study'} in {src} (give the "
            f"names of finished paper-profile runs there: {have})")
    for s in studies:
        profile = json.loads((src / s / "metadata.json").read_text()).get("profile")
        if profile != "paper":
            raise ValueError(f"{src / s} is a {profile!r}-profile run; only paper-profile "
                             f"results ship")
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(dst, tmp)
    info = json.loads((tmp / "shipped.json").read_text())
    for s in studies:
        shutil.rmtree(tmp / s, ignore_errors=True)
        info["results"].pop(s, None)
    info["left_out"] = [r for r in info["left_out"]
                        if r["file"].split("/")[0] not in studies]
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    for s in studies:
        _pack_study(src / s, tmp / s, info)
    info["results"] = dict(sorted(info["results"].items()))
    info["packed"] = now
    info.setdefault("added", []).append({"studies": studies, "source": _display(src),
                                         "packed": now, "packed_at_commit": git_commit()})
    _finish(tmp, dst, info)
    return _add_benches(src, benches, dst) if benches else info


def _bench_ok(src: Path, name: str) -> bool:
    """``bench/NAME``: ``src/bench/NAME.json`` exists and carries its metadata."""
    stem = name[len("bench/"):]
    f = src / "bench" / f"{stem}.json"
    if not stem or "/" in stem or not f.is_file():
        return False
    try:
        return "metadata" in json.loads(f.read_text())
    except (OSError, ValueError):
        return False


def _bench_record(f: Path) -> dict:
    meta = json.loads(f.read_text())["metadata"]
    return {"git_commit": meta.get("git_commit"), "machine": meta.get("machine"),
            "started": meta.get("started"), "finished": meta.get("finished")}


def _add_benches(src: Path, benches: list[str], dst: Path) -> dict:
    """Copy the benchmark results ``bench/NAME`` of ``src`` into ``dst/bench/``,
    replacing those and keeping every other file byte for byte."""
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(dst, tmp)
    info = json.loads((tmp / "shipped.json").read_text())
    (tmp / "bench").mkdir(exist_ok=True)
    for b in benches:
        f = src / f"{b}.json"
        shutil.copyfile(f, tmp / f"{b}.json")
        info["results"][b] = _bench_record(f)
    info["results"] = dict(sorted(info["results"].items()))
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    info.setdefault("added", []).append({"studies": benches, "source": _display(src),
                                         "packed": now, "packed_at_commit": git_commit()})
    return _finish(tmp, dst, info)


def pack(src: Path, dst: Path = SHIPPED) -> dict:
    """Write the shipped form of the paper-profile results ``src`` into ``dst``
    (replacing what is there); returns the ``shipped.json`` record."""
    src, dst = Path(src), Path(dst)
    if not any(src.glob("*/metadata.json")):
        raise FileNotFoundError(f"{src} holds no finished results to ship")
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    info = {"source": _display(src),
            "packed": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "packed_at_commit": git_commit(), "results": {}, "left_out": []}
    for folder in sorted(p for p in src.iterdir() if p.is_dir() and "@" not in p.name
                         and (p / "metadata.json").is_file()):
        _pack_study(folder, tmp / folder.name, info)
    bench = src / "bench"
    for f in sorted(bench.glob("*.json")) if bench.is_dir() else ():
        (tmp / "bench").mkdir(exist_ok=True)
        shutil.copyfile(f, tmp / "bench" / f.name)
        info["results"][f"bench/{f.stem}"] = _bench_record(f)
    return _finish(tmp, dst, info)


def _readme(info: dict) -> str:
    lines = [
        "# Shipped paper-profile results",
        "",
        "Written by `python -m experiments ship` from a finished paper-profile run "
        f"(`{info['source']}`); do not edit. `make -C paper` "
        "(`python paper/tools/build.py paper/results`) rebuilds `paper/main.pdf` from this "
        "folder after checking every file against `SHA256SUMS` "
        "(`cd paper/results && sha256sum -c SHA256SUMS` does the same).",
        "",
        "Each folder holds a study's `metadata.json` (config, seed, package versions, git "
        "commit, machine, start and end) and its tables; `bench/` the benchmarks' full "
        "measurements. `shipped.json` lists "
        "where each result was computed. Left out (no figure, table or macro reads them; "
        "rerun the paper profile to get them back):",
        "",
    ]
    for r in info["left_out"]:
        extra = (f": {r['rows_left_out']:,} rows" + (f" ({r['left_out']})" if "left_out" in r
                                                    else "") +
                 f", complete file's SHA-256 {r['sha256_complete'][:16]}..."
                 if "rows_left_out" in r else "")
        lines.append(f"- `{r['file']}`{extra}; {r['why']}")
    return "\n".join(lines) + "\n"
