"""Ship the confirmatory family's analysis as a paper result.

``python research/confirmatory/ship.py [DST]`` (or :func:`ship`)
writes ``DST/confirmatory/`` (default ``paper/results``) from the saved units
of ``research/confirmatory/runs/``: ``results.csv`` (the table of
:func:`research.confirmatory.analyze.analyze`, one row per declared
hypothesis; rows with fewer deals than declared are ``interim``) and
``metadata.json`` (the declaration's path and SHA-256, the commit, package
versions, machine, time, and per run its saved units and deals). It is added
with :func:`experiments._shipped.add`, so ``SHA256SUMS``, ``shipped.json`` and
``README.md`` of ``DST`` change only by this entry. Run it again when the runs
end: the interim copy is replaced.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
HERE = ROOT / "research" / "confirmatory"

#: The shipped folder's name (``paper/results/confirmatory``).
NAME = "confirmatory"


def _run_record(folder: Path, deals: int) -> dict:
    """A run folder's provenance: its declared units, the units saved, the deals of
    the declared hypotheses saved, when it started and each session's commit."""
    run = json.loads((folder / "run.json").read_text())
    return {"folder": os.path.relpath(folder, ROOT), "experiment": run.get("experiment"),
            "units_declared": run.get("units"),
            "units_saved": len(list((folder / "shards").glob("unit-*.json"))),
            "deals_saved": deals, "started": run.get("started"),
            "sessions": [{k: s.get(k) for k in ("started", "git_commit")}
                         for s in run.get("sessions", [])]}


def ship(dst: Path | None = None, runs: Path = HERE / "runs") -> Path:
    """Write ``dst/confirmatory/`` (default: this checkout's ``paper/results``)
    from the saved units of ``runs``; returns the written folder."""
    from experiments import _shipped as shipped
    from research.confirmatory import analyze as an
    from spiel_game._provenance import metadata as provenance

    dst = Path(dst) if dst is not None else ROOT / shipped.SHIPPED
    runs = Path(runs)
    decl = an.declaration()
    table = an.analyze(runs, out=None)
    deals = {h["run"]: 0 for h in decl["hypotheses"]}
    for h, n in zip(decl["hypotheses"], table["deals"], strict=True):
        deals[h["run"]] += int(n)
    folders = {"ladder": sorted(runs.glob("ladder@*")),
               "passing": [runs / "confirmatory_passing"]}
    records = {name: _run_record(fs[0], deals.get(name, 0))
               for name, fs in folders.items() if fs and (fs[0] / "run.json").is_file()}
    starts = [r["started"] for r in records.values() if r.get("started")]
    interim = bool(table["interim"].any())
    meta = provenance(decl, None)
    meta.update(experiment=NAME, profile="paper",
                declaration=os.path.relpath(an.DECLARATION, ROOT),
                declaration_sha256=hashlib.sha256(an.DECLARATION.read_bytes()).hexdigest(),
                started=min(starts) if starts else None,
                finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                rows=len(table), interim=interim,
                finished_hypotheses=int((~table["interim"]).sum()),
                source=(f"{os.path.relpath(runs, ROOT)}: the saved units of "
                        f"research/confirmatory/run.sh, analysed by "
                        f"research/confirmatory/analyze.py"),
                runs=records)
    with tempfile.TemporaryDirectory(prefix="confirmatory-ship-") as tmp:
        out = Path(tmp) / NAME
        out.mkdir()
        table.to_csv(out / "results.csv", index=False)
        (out / "metadata.json").write_text(json.dumps(meta, indent=1, default=str) + "\n")
        shipped.add(Path(tmp), [NAME], dst)
    return dst / NAME


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(prog="python research/confirmatory/ship.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("dst", nargs="?", type=Path, default=None,
                    help="the shipped results folder (default: paper/results)")
    ap.add_argument("--runs", type=Path, default=HERE / "runs")
    args = ap.parse_args()
    print(ship(args.dst, args.runs))
