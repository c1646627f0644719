"""The declared analysis of the confirmatory family, from the saved units.

``python research/confirmatory/analyze.py`` reads the hypotheses from the JSON
block of ``paper/preregistration_confirmatory.md`` (after checking its SHA-256
against the one each run recorded at its first unit), the saved shards of
``runs/ladder@*/`` and ``runs/confirmatory_passing/`` (finished or not), and
writes ``results.csv``: per hypothesis the deals played and declared, the mean
of the per-deal statistic with its 95% t interval (G for the ladder steps, as
``experiments.studies.ladder`` computes it, with the points difference
``(n-1)/n G`` beside it; S for the passing tests), the raw two-sided p-value,
Holm's adjusted p-value over all 10 (a hypothesis with fewer deals than
declared counts as p = 1, as declared), the Holm-level interval (level
``1 - 0.05/(10 - rank + 1)``) and ``holds``. Rows with fewer deals than
declared are marked ``interim``; their numbers are not confirmatory.

``--out FILE`` writes the table elsewhere; ``--ship [DST]`` also ships it as
the paper result ``DST/confirmatory/`` (default ``paper/results``) with
:func:`research.confirmatory.ship.ship`, interim or final (run it again when
the runs end).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
HERE = ROOT / "research" / "confirmatory"
DECLARATION = ROOT / "paper" / "preregistration_confirmatory.md"


def declaration() -> dict:
    blocks = re.findall(r"```json\n(.*?)\n```", DECLARATION.read_text(), re.S)
    if len(blocks) != 1:
        raise SystemExit(f"{DECLARATION}: expected one ```json block, found {len(blocks)}")
    return json.loads(blocks[0])


def _rows(folder: Path) -> list[dict]:
    """Every row of the saved shards of a run folder, after checking that the
    declaration the run recorded is the file as it is now."""
    rec = json.loads((folder / "declaration.json").read_text())
    now = hashlib.sha256(DECLARATION.read_bytes()).hexdigest()
    if rec["sha256"] != now:
        raise SystemExit(f"{DECLARATION} changed since {folder.name} started (recorded "
                         f"{rec['sha256']}, now {now})")
    rows = []
    for p in sorted((folder / "shards").glob("unit-*.json")):
        rows.extend(json.loads(p.read_text())["rows"])
    return rows


def _ci(values: np.ndarray, level: float) -> tuple[float, float]:
    import scipy.stats
    n = len(values)
    if n < 2:
        return float("nan"), float("nan")
    half = scipy.stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return float(values.mean() - half), float(values.mean() + half)


def per_deal(decl: dict, runs: Path) -> dict[str, np.ndarray]:
    """``{hypothesis id: per-deal statistic}`` from the saved shards."""
    from experiments.tournament import deal_records, per_deal_agent_values

    out: dict[str, np.ndarray] = {}
    ladder = sorted(runs.glob("ladder@*"))
    passing = runs / "confirmatory_passing"
    lrows = _rows(ladder[0]) if ladder else []
    prows = _rows(passing) if passing.is_dir() else []
    for h in decl["hypotheses"]:
        if h["run"] == "ladder":
            mine = [r for r in lrows if r["step"] == h["step"]]
            recs = deal_records(mine) if mine else []
            # G per deal: the higher rung's (agent 1) mean zero-sum payoff minus the lower's
            out[h["id"]] = np.array([(lambda v: v[1][1] - v[1][0])(
                per_deal_agent_values(r, 2)) for r in recs])
        else:
            mine = [r for r in prows if r["kind"] == h["kind"] and r["target"] == h["target"]
                    and r["deviation"] == h["deviation"]]
            out[h["id"]] = np.array([r["gain"] for r in mine], np.float64)
    return out


#: Short names of the ladder's rungs in the claims.
RUNG_NAMES = {"random": "random", "heuristic": "heuristic", "pimc": "PIMC", "ismcts": "ISMCTS"}


def claim(h: dict) -> str:
    """A hypothesis's claim in words: ``ISMCTS beats PIMC``, ``rollout
    best-response passer gains against expert``, ``void_short seat gains
    against expert``."""
    if h["run"] == "ladder":
        def rung(name: str) -> str:
            return RUNG_NAMES.get(name.split("(")[0], name)
        return f"{rung(h['higher'])} beats {rung(h['lower'])}"
    if h["kind"] == "rollout_br":
        return f"rollout best-response passer gains against {h['target']}"
    return f"one {h['deviation']} seat gains against {h['target']}"


def analyze(runs: Path = HERE / "runs", out: Path | None = HERE / "results.csv"):
    """The table of :mod:`this module <research.confirmatory.analyze>` (one row per
    hypothesis, in declared order) from the saved units of ``runs``; written to
    ``out`` as CSV unless ``out`` is None."""
    import pandas as pd
    import scipy.stats

    from experiments._base.stats import holm

    decl = declaration()
    alpha, hyps = float(decl["alpha"]), decl["hypotheses"]
    values = per_deal(decl, runs)
    rows = []
    for h in hyps:
        v = values[h["id"]]
        n = len(v)
        p = float(scipy.stats.ttest_1samp(v, 0.0).pvalue) if n >= 2 and v.std() > 0 else \
            float("nan")
        lo, hi = _ci(v, 0.95)
        n_players = int(h["players"])
        scale = (n_players - 1) / n_players if h["statistic"] == "G" else 1.0
        rows.append({"id": h["id"], "rq": h["rq"], "claim": claim(h), "players": n_players,
                     "statistic": h["statistic"],
                     "deals": n, "declared_deals": int(h["deals"]),
                     "interim": n < int(h["deals"]), "mean": float(v.mean()) if n else np.nan,
                     "lo": lo, "hi": hi, "points_difference": float(v.mean()) * scale
                     if n else np.nan, "p_value": p})
    m = len(rows)
    p_family = [1.0 if r["interim"] or np.isnan(r["p_value"]) else r["p_value"] for r in rows]
    adjusted = holm(p_family)
    order = sorted(range(m), key=lambda i: p_family[i])
    for rank, i in enumerate(order, start=1):
        r = rows[i]
        r["holm_p"] = adjusted[i]
        level = 1 - alpha / (m - rank + 1)
        r["holm_level"] = level
        r["holm_lo"], r["holm_hi"] = _ci(values[r["id"]], level)
        r["holds"] = (not r["interim"]) and adjusted[i] <= alpha and r["mean"] > 0
    table = pd.DataFrame(rows)
    if out is not None:
        table.to_csv(out, index=False)
    return table


def main(argv=None) -> int:
    import argparse

    import pandas as pd
    ap = argparse.ArgumentParser(
        prog="python research/confirmatory/analyze.py",
        description="The declared analysis of the confirmatory family from the saved units "
                    "(finished or interim): results.csv (research/confirmatory/ship.py ships "
                    "it into paper/results/confirmatory/).")
    ap.add_argument("--runs", type=Path, default=HERE / "runs",
                    help="the run folders (default: research/confirmatory/runs)")
    ap.add_argument("--out", type=Path, default=HERE / "results.csv",
                    help="where to write the table (default: research/confirmatory/results.csv)")
    args = ap.parse_args(argv)
    table = analyze(args.runs, args.out)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.drop(columns="claim").round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
