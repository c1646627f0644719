"""Collect the classic-Hearts training curves from the runner's finished units.

``python research/classic_net/curve.py`` reads the unit shards of the two runs of
``train.sh`` (``runs/<variant>/distill/shards/unit-*.json``, one per finished
round, written as each round ends, so it works while training runs) and writes
``curve_<variant>.csv`` beside this file: round, samples, policy and value loss
after training, the raw network (argmax) minus the heuristic over the round's
evaluation deals (the same 100 duplicate deals every round, so the curve is not
a held-out estimate) with its 95% interval, and the round's seconds.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = ("round", "phase", "samples", "train_samples", "teacher_searches",
           "policy_loss_after", "value_loss_after", "net_minus_heuristic",
           "net_minus_heuristic_lo", "net_minus_heuristic_hi", "net_minus_heuristic_p",
           "data_seconds", "train_seconds", "eval_seconds", "checkpoint_sha256")


def collect(variant: str) -> list[dict]:
    rows = []
    for f in sorted((HERE / "runs" / variant / "distill" / "shards").glob("unit-*.json")):
        rows.extend(json.loads(f.read_text())["rows"])
    return sorted(rows, key=lambda r: r["round"])


def main() -> None:
    for variant in ("pass", "nopass"):
        rows = collect(variant)
        out = HERE / f"curve_{variant}.csv"
        with out.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(COLUMNS)
            for r in rows:
                w.writerow([round(v, 4) if isinstance(v, float) else v
                            for v in (r[c] for c in COLUMNS)])
        print(f"{out}: {len(rows)} rounds")


if __name__ == "__main__":
    main()
