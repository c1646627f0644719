"""Two agents, each alone among a fixed field, compared on the same duplicate deals.

A tournament (``python -m experiments.tournament``) with ``--agents FIELD X
--lineup 1 0 0 ... 0`` plays ``X`` in one seat and ``FIELD`` in every other seat,
with ``X`` rotated through every seat of every deal. Deal ``d``'s cards and
every seat's agent seed depend only on ``(seed, d)`` (and the seat assignment),
so a second tournament with ``Y`` in place of ``X`` and the same seed, game,
field and lineup plays ``Y`` on exactly the same hands against the same field.
This script pairs the two runs: per deal, the tested agent's points per hand
averaged over the seats it held, and the difference ``X - Y`` (lower points are
better) with its 95% t interval over deals (:func:`experiments._base.stats.mean_ci`).

This is the comparison to use when the opponents' behaviour is what is being
studied (an opponent model, for example): in a tournament where X and Y sit at
the same table each is also an opponent of the other, and an opponent model
built for the field is wrong for that seat.

    python research/scripts/field_pair.py RUN_X RUN_Y [RUN_X2 RUN_Y2 ...] [--json OUT]

``RUN_X``, ``RUN_Y``: tournament run folders (``.../tournament@<hex>``, with
``run.json`` and ``rows.csv``). Both must have the same seed, game, player
count, field agent and lineup shape (one tested seat); only the deals both
played are paired. Several pairs may be given; ``--json`` writes every
comparison (``{"metadata", "result": {"comparisons": [...]}}``, each with
both runs' configurations, commits and package versions). The paper quotes
``paper/results/bench/inference_field.json``
(:func:`texmacros.research.field_macros`).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from experiments._base.stats import mean_ci

__all__ = ["FieldPairError", "load_run", "pair_runs", "main"]


class FieldPairError(ValueError):
    """The runs cannot be paired; the message says which field differs and how."""


def load_run(folder) -> dict:
    """``{"config", "tested", "points"}`` of a one-tested-seat tournament run:
    ``config`` from ``run.json``; ``tested`` the spec in the lineup's single
    seat; ``points[deal]``: that agent's points per hand, averaged over the
    seat assignments of the deal in ``rows.csv``."""
    folder = Path(folder)
    try:
        run = json.loads((folder / "run.json").read_text())
        with open(folder / "rows.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError as e:
        raise FieldPairError(f"{folder} is not a finished tournament run folder: {e.filename} "
                             f"is missing (run.json and rows.csv are needed)") from None
    except ValueError as e:                    # JSONDecodeError, a bad byte
        raise FieldPairError(f"{folder}/run.json is not valid JSON ({e}); it must be the "
                             f"tournament's own run.json") from None
    cfg = run.get("config", {})
    try:
        meta = json.loads((folder / "metadata.json").read_text())
    except FileNotFoundError:
        meta = {}
    if run.get("experiment") != "tournament":
        raise FieldPairError(f"{folder} is a {run.get('experiment')!r} run; allowed: "
                             f"'tournament'")
    lineup = cfg.get("lineup")
    if not lineup or sorted(lineup).count(1) != 1 or set(lineup) != {0, 1}:
        raise FieldPairError(f"{folder}: lineup {lineup} is not one tested seat among a "
                             f"field; allowed: --agents FIELD X --lineup 1 0 ... 0")
    by_deal: dict[int, list[float]] = {}
    try:
        for r in rows:
            if r["kind"] == "seat" and int(r["agent"]) == 1:
                by_deal.setdefault(int(r["deal"]), []).append(float(r["points"]) /
                                                              int(r["hands"]))
        timing = [(float(r["seconds"]), int(r["decisions"])) for r in rows
                  if r["kind"] == "agent" and int(r["agent"]) == 1 and r["seconds"]]
    except (KeyError, ValueError, TypeError, ZeroDivisionError) as e:
        raise FieldPairError(f"{folder}/rows.csv is not a tournament's rows table "
                             f"({type(e).__name__}: {e}); expected the columns kind, deal, "
                             f"agent, points, hands, seconds, decisions") from None
    if not by_deal:
        raise FieldPairError(f"{folder}: rows.csv has no hand of the tested agent")
    decisions = sum(d for _, d in timing)
    return {"config": cfg, "tested": cfg["agents"][1], "folder": folder.name,
            "git_commit": meta.get("git_commit"), "versions": meta.get("versions"),
            "seconds_per_decision": (sum(t for t, _ in timing) / decisions
                                     if decisions > 0 else None),
            "points": {d: float(np.mean(v)) for d, v in by_deal.items()}}


def pair_runs(x: dict, y: dict) -> dict:
    """The paired comparison of two :func:`load_run` results (see the module
    docstring); raises :class:`FieldPairError` naming the first setting in
    which they differ."""
    for key in ("seed", "players", "game", "lineup"):
        if x["config"].get(key) != y["config"].get(key):
            raise FieldPairError(f"the runs differ in {key}: {x['config'].get(key)!r} against "
                                 f"{y['config'].get(key)!r}; the same deals need the same "
                                 f"{key}")
    if x["config"]["agents"][0] != y["config"]["agents"][0]:
        raise FieldPairError(f"the runs have different fields: {x['config']['agents'][0]!r} "
                             f"against {y['config']['agents'][0]!r}")
    deals = sorted(set(x["points"]) & set(y["points"]))
    if len(deals) < 2:
        raise FieldPairError(f"the runs share {len(deals)} deal(s); at least 2 are needed")
    px = np.array([x["points"][d] for d in deals])
    py = np.array([y["points"][d] for d in deals])
    from experiments.tournament import paired_test
    diff = paired_test(px, py)
    p = diff.pop("p_value")
    runs = [{k: r[k] for k in ("folder", "config", "git_commit", "versions",
                                "seconds_per_decision")} for r in (x, y)]
    return {"field": x["config"]["agents"][0], "x": x["tested"], "y": y["tested"],
            "runs": runs,
            "players": x["config"].get("players"), "game": x["config"].get("game"),
            "seed": x["config"].get("seed"), "deals": len(deals),
            "points_x": mean_ci(px), "points_y": mean_ci(py), "x_minus_y": diff,
            "p_value": p}


def _fmt(c: dict) -> str:
    return f"{c['mean']:+.2f} [{c['lo']:+.2f}, {c['hi']:+.2f}]"


def main(argv=None) -> int:
    from experiments._base.metadata import metadata, write_result
    ap = argparse.ArgumentParser(prog="python research/scripts/field_pair.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="RUN", help="RUN_X RUN_Y [RUN_X2 RUN_Y2 ...]")
    ap.add_argument("--json", metavar="FILE", help="also write the comparisons as JSON")
    args = ap.parse_args(argv)
    if len(args.runs) % 2:
        print(f"field_pair: {len(args.runs)} run folders given; allowed: pairs (RUN_X RUN_Y "
              f"...)", file=sys.stderr)
        return 2
    out = []
    try:
        for i in range(0, len(args.runs), 2):
            out.append(pair_runs(load_run(args.runs[i]), load_run(args.runs[i + 1])))
    except FieldPairError as e:
        print(f"field_pair: {e}", file=sys.stderr)
        return 2
    for res in out:
        print(f"field {res['field']}, {res['players']} players, {res['deals']} deals, seed "
              f"{res['seed']}; points per hand of the tested seat (lower is better)")
        print(f"  X {res['x']}: {_fmt(res['points_x'])}")
        print(f"  Y {res['y']}: {_fmt(res['points_y'])}")
        print(f"  X - Y: {_fmt(res['x_minus_y'])}  (p = {res['p_value']:.2g})")
    if args.json:
        cfg = {"runs": [str(r) for r in args.runs]}
        write_result(args.json, {"comparisons": out}, metadata(cfg, out[0]["seed"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
