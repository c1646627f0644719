"""A synthetic experiment for the runner tests: slow units with seeded random rows.

Registered as ``runner_selftest`` when imported (the runner imports it when it
is named in ``CH_EXPERIMENT_MODULES``). ``CH_SELFTEST_FAIL_UNIT=i`` makes unit
``i`` raise (error-handling tests; an environment variable, so the config, and
so the run directory, stays the same). ``CH_SELFTEST_ATTACH=1`` makes every
unit also return attachments (its process id and :func:`experiments.runner.run_root`).
``CH_SELFTEST_PROGRESS=1`` makes every unit report its progress
(:func:`experiments.runner.unit_progress`) at 1/4, 2/4 and 3/4.
"""

from __future__ import annotations

import dataclasses
import os
import time

from experiments._base.registry import Summary, Unit, UnitOutput, register


@dataclasses.dataclass(frozen=True)
class SelfTestConfig:
    """Synthetic rows for runner tests."""

    seed: int = 7
    units: int = 40
    rows_per_unit: int = 5
    sleep: float = 0.08        # seconds per unit, so that a run can be killed midway


def units(config: SelfTestConfig) -> list[dict]:
    return [{"block": i, "label": f"u{i}"} for i in range(config.units)]


def run_unit(config: SelfTestConfig, unit: Unit) -> list[dict]:
    if str(unit.index) == os.environ.get("CH_SELFTEST_FAIL_UNIT"):
        raise RuntimeError(f"unit {unit.index} fails on purpose")
    if os.environ.get("CH_SELFTEST_PROGRESS"):         # report progress in four steps
        from experiments.runner import unit_progress
        for k in range(1, 4):
            time.sleep(config.sleep / 3)
            unit_progress(k, 4)
    else:
        time.sleep(config.sleep)
    rng = unit.rng()
    rows = [{"block": unit.params["block"], "row": r, "x": float(rng.normal()),
             "k": int(rng.integers(1000)), "tag": unit.params["label"]}
            for r in range(config.rows_per_unit)]
    if os.environ.get("CH_SELFTEST_ATTACH"):
        from experiments.runner import run_root
        return UnitOutput(rows, {"pid": os.getpid(), "run_root": str(run_root())})
    return rows


def summarize(config: SelfTestConfig, rows) -> Summary:
    by = rows.groupby("block", sort=False)["x"].mean().reset_index()
    return Summary(tables={"summary": by}, text=f"{len(rows)} rows, mean x {rows.x.mean():.6f}")


register("runner_selftest", SelfTestConfig, units, run_unit, summarize,
         profiles={"quick": {}, "paper": {"units": 80}}, reproduce=False)
