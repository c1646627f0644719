"""Ship the latest (or a given) round of each classic-Hearts run into the model zoo.

``python research/classic_net/ship.py [--round-pass R] [--round-nopass R]``:
``python -m solvers.net.zoo build`` of ``runs/<variant>/checkpoints/distill-*/
round-R.npz`` (default: the latest finished round) as ``classic-4`` (with passing)
and ``classic-4-nopass``, then fills in the manifest entries' training round,
commit of the code that trained it, and training time (the sum of the runner's
per-round ``elapsed_s`` up to that round: the rounds' own time, without the
interruption).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
from pathlib import Path

from solvers.net import zoo
from solvers.net._checkpoint import read_checkpoint

HERE = Path(__file__).resolve().parent
VARIANTS = {"pass": "classic-4", "nopass": "classic-4-nopass"}


def latest(variant: str) -> Path:
    cks = sorted((HERE / "runs" / variant / "checkpoints").glob("distill-*/round-*.npz"))
    if not cks:
        raise SystemExit(f"no checkpoint under {HERE / 'runs' / variant}")
    return cks[-1]


def main() -> None:
    ap = argparse.ArgumentParser()
    for v in VARIANTS:
        ap.add_argument(f"--round-{v}", type=int, default=None)
    args = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    for v, name in VARIANTS.items():
        r = getattr(args, f"round_{v}")
        ck = latest(v) if r is None else next(
            (HERE / "runs" / v / "checkpoints").glob(f"distill-*/round-{r:04d}.npz"))
        cfg, _ = read_checkpoint(ck)
        r = int(cfg["round"])
        seconds = 0.0
        for f in (HERE / "runs" / v / "distill" / "shards").glob("unit-*.json"):
            d = json.loads(f.read_text())
            if d["params"]["round"] <= r:
                seconds += d["elapsed_s"]
        card = zoo.build(ck, name)
        manifest = zoo.MODELS_DIR / "models.json"
        raw = json.loads(manifest.read_text())
        entry = next(e for e in raw["models"] if e["name"] == name)
        entry["training"].update(
            round=r, code_commit=commit, wall_time_minutes=round(seconds / 60),
            machine=f"shared 2-core machine ({platform.machine()}), both runs side by side "
                    f"on one core (taskset, nice 10), one torch thread")
        manifest.write_text(json.dumps(raw, indent=1) + "\n")
        print(f"{name}: round {r} of {ck}, {seconds / 60:.0f} min, {card.size_bytes} bytes")


if __name__ == "__main__":
    main()
