"""The tidy rows of a tournament's deals (a runner unit's ``rows``) and back."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["ROW_COLUMNS", "deal_rows", "deal_records"]


#: The columns of :func:`deal_rows` (after the caller's key columns).
ROW_COLUMNS = ("kind", "deal", "assignment", "seat", "agent", "points", "hands", "seconds",
               "decisions", "cpu_seconds")


def deal_rows(records: Sequence[dict], **key) -> list[dict]:
    """The tidy rows of deal records (:func:`~.play.play_deal`), ``key`` columns first:
    ``kind == "seat"``, one per (deal, seat assignment, seat): the ``agent`` index on
    that seat and its ``points`` per hand over the ``hands`` of that assignment;
    ``kind == "agent"``, one per (deal, agent): its thinking ``seconds`` (wall
    clock), ``decisions`` and ``cpu_seconds`` (None in records without them) over
    the deal's seat assignments. The columns a kind does not use
    hold -1 (integers) or None. :func:`deal_records` is the inverse."""
    rows = []
    for r in records:
        for ai, (assign, points, hands) in enumerate(zip(r["assignments"], r["points"],
                                                         r["hands"])):
            for q, (a, p) in enumerate(zip(assign, points)):
                rows.append({**key, "kind": "seat", "deal": r["deal"], "assignment": ai,
                             "seat": q, "agent": a, "points": p, "hands": hands,
                             "seconds": None, "decisions": -1, "cpu_seconds": None})
        t = r["timing"]
        cpu = t.get("cpu_seconds") or [None] * len(t["seconds"])
        for a, (s, d, c) in enumerate(zip(t["seconds"], t["decisions"], cpu)):
            rows.append({**key, "kind": "agent", "deal": r["deal"], "assignment": -1,
                         "seat": -1, "agent": a, "points": None, "hands": -1, "seconds": s,
                         "decisions": d, "cpu_seconds": c})
    return rows


def deal_records(rows) -> list[dict]:
    """The deal records (deal order, as :func:`~.play.play_deal` returns them) of the rows
    of one tournament (:func:`deal_rows`; a list of dicts or a DataFrame, e.g. a
    runner's ``rows.csv``). Raises ``ValueError`` when a deal's rows are incomplete
    or repeated."""
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    seats = sorted((r for r in rows if r["kind"] == "seat"),
                   key=lambda r: (int(r["deal"]), int(r["assignment"]), int(r["seat"])))
    recs: dict[int, dict] = {}
    for r in seats:
        d, ai, q = int(r["deal"]), int(r["assignment"]), int(r["seat"])
        rec = recs.setdefault(d, {"deal": d, "assignments": [], "points": [], "hands": [],
                                  "timing": {"seconds": [], "decisions": []}})
        if ai == len(rec["assignments"]):
            rec["assignments"].append([])
            rec["points"].append([])
            rec["hands"].append(int(r["hands"]))
        if ai != len(rec["assignments"]) - 1 or q != len(rec["assignments"][ai]):
            raise ValueError(f"the rows of deal {d} miss or repeat a seat assignment or seat "
                             f"(assignment {ai}, seat {q})")
        rec["assignments"][ai].append(int(r["agent"]))
        rec["points"][ai].append(float(r["points"]))
    agents = sorted((r for r in rows if r["kind"] == "agent"),
                    key=lambda r: (int(r["deal"]), int(r["agent"])))
    for r in agents:
        d, a = int(r["deal"]), int(r["agent"])
        if d not in recs:
            raise ValueError(f"deal {d} has agent rows but no seat rows")
        t = recs[d]["timing"]
        if a != len(t["seconds"]):
            raise ValueError(f"the rows of deal {d} miss or repeat agent {a}")
        t["seconds"].append(float(r["seconds"]))
        t["decisions"].append(int(r["decisions"]))
        c = r.get("cpu_seconds")
        t.setdefault("cpu_seconds", []).append(
            None if c is None or (isinstance(c, float) and math.isnan(c)) else float(c))
    for rec in recs.values():       # rows without CPU seconds (older runs): no key
        t = rec["timing"]
        if "cpu_seconds" in t and any(c is None for c in t["cpu_seconds"]):
            del t["cpu_seconds"]
    return [recs[d] for d in sorted(recs)]
