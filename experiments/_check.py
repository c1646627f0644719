"""The reproduction check: the quick profile's estimates against the shipped paper results.

``python -m experiments check [--quick results/quick] [--paper paper/results] [--run]``
compares every quantity that both profiles estimate (:func:`compare`) and prints
one table row per quantity (quick, paper, agree?); it exits 1 when any
disagrees. Two kinds of agreement:

* estimates from samples agree when their intervals overlap: the ladder's
  steps and the ISMCTS sweep's budgets present in both (zero-sum gain with its
  Student t interval), the 6-player meta-game's library and rollout best-response
  gains when both profiles use the same conventions (their bootstrap or t
  intervals), and the rules statistics' proportions per configuration (share of
  hands with a void trick, share of hands whose pot reaches the last trick;
  Wald intervals, only where both profiles saw at least 10 such hands). They are
  judged together: each 95% interval is widened (Bonferroni, :func:`family_factor`)
  so that, when both profiles estimate the same values, every comparison agrees
  with probability 95%; ``--per-quantity`` judges each at its own 95% instead;
* exact computations agree to a tolerance: CFR's NashConv at every iteration
  both runs recorded for the same deal and variant (deterministic: 1e-9
  relative), and the exact passing exploitabilities (gain of a passing-only
  and of a passing-and-play deviation) per deal and convention, which depend
  on how far the play was solved: ``0.02`` points plus both runs' NashConv of
  the play.

Quantities only one profile has (the paper's 11-player ladder, medium deals)
are not compared; the quick profile's configuration decides what is.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from pathlib import Path

from ._base.stats import proportion_half_width

__all__ = ["Comparison", "compare", "table"]

#: Relative tolerance of deterministic values (CFR's NashConv trajectory).
EXACT_RTOL = 1e-9
#: Absolute tolerance (points) of the exact exploitabilities, added to both runs'
#: NashConv of the solved play.
EXPLOIT_ATOL = 0.02
#: The fewest events a proportion needs in each profile to be compared.
MIN_EVENTS = 10


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One quantity both profiles estimate: the two values as text and whether they
    agree; ``intervals``: the two ``(mean, lo, hi)`` of an interval comparison."""

    quantity: str
    quick: str
    paper: str
    agree: bool
    rule: str
    intervals: tuple | None = None


def family_factor(k: int, alpha: float = 0.05) -> float:
    """How much wider than a 95% interval a normal interval must be for ``k``
    comparisons to hold together at level ``1 - alpha`` (Bonferroni): about 1.76
    for 100 comparisons."""
    from scipy.stats import norm
    return float(norm.ppf(1 - alpha / (2 * max(k, 1))) / norm.ppf(0.975))


def _widen(c: Comparison, factor: float) -> Comparison:
    """``c`` judged on its intervals widened around their means by ``factor``."""
    (qm, ql, qh), (pm, pl, ph) = c.intervals
    q = (qm - (qm - ql) * factor, qm + (qh - qm) * factor)
    p = (pm - (pm - pl) * factor, pm + (ph - pm) * factor)
    return dataclasses.replace(c, agree=bool(q[0] <= p[1] and p[0] <= q[1]),
                               rule=f"intervals overlap (95% widened x{factor:.2f})")


def _ci(mean: float, lo: float, hi: float) -> str:
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def _overlap(quantity: str, q: tuple, p: tuple) -> Comparison:
    """``q``, ``p``: ``(mean, lo, hi)``."""
    agree = q[1] <= p[2] and p[1] <= q[2]
    return Comparison(quantity, _ci(*q), _ci(*p), bool(agree), "95% intervals overlap",
                      (tuple(q), tuple(p)))


def _close(quantity: str, q: float, p: float, atol: float, rtol: float = 0.0) -> Comparison:
    tol = atol + rtol * abs(p)
    agree = abs(q - p) <= tol
    return Comparison(quantity, f"{q:.6g}", f"{p:.6g}", bool(agree), f"|difference| <= {tol:.2g}")


def _text(path: Path) -> str:
    """A results file's text: a regular file of bounded size only
    (:mod:`spiel_game._safe_io`; the runner's limits)."""
    from spiel_game._safe_io import read_text

    from .runner import MAX_DOC_BYTES, MAX_TABLE_BYTES
    return read_text(path, MAX_DOC_BYTES if path.suffix == ".json" else MAX_TABLE_BYTES,
                     "results file")


def _csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(_text(path), newline="")))


def _ladder(quick: Path, paper: Path) -> list[Comparison]:
    gain = lambda s: tuple(float(s[k]) for k in ("gain", "gain_lo", "gain_hi"))  # noqa: E731
    out = []
    step_key = lambda s: (int(s["players"]), s["lower"], s["higher"])  # noqa: E731
    steps = {step_key(s): s for s in _csv(paper / "ladder" / "steps.csv")}
    for s in _csv(quick / "ladder" / "steps.csv"):
        key = step_key(s)
        if key in steps:
            out.append(_overlap(f"ladder, {key[0]} players: gain of {key[2]} over {key[1]}",
                                gain(s), gain(steps[key])))
    sweep = {int(s["iterations"]): s for s in _csv(paper / "ladder" / "sweep.csv")}
    for s in _csv(quick / "ladder" / "sweep.csv"):
        if int(s["iterations"]) in sweep:
            out.append(_overlap(f"ISMCTS sweep: gain at {s['iterations']} iterations",
                                gain(s), gain(sweep[int(s["iterations"])])))
    return out


def _cfr(quick: Path, paper: Path) -> list[Comparison]:
    key = lambda r: (r["deal"], r["solver"], int(r["iteration"]))    # noqa: E731
    p = {key(r): float(r["nash_conv"]) for r in _csv(paper / "cfr_convergence" / "rows.csv")}
    out = []
    for r in _csv(quick / "cfr_convergence" / "rows.csv"):
        k = key(r)
        if k in p:
            out.append(_close(f"CFR NashConv, {k[0]}, {k[1]}, iteration {k[2]}",
                              float(r["nash_conv"]), p[k], 0.0, EXACT_RTOL))
    return out


def _exact(quick: Path, paper: Path) -> list[Comparison]:
    def rows(folder: Path) -> dict:
        return {(r["deal"], r["convention"]): r
                for r in _csv(folder / "passing_exact" / "rows.csv") if r["kind"] == "convention"}
    q, p = rows(quick), rows(paper)
    out = []
    for k in q:
        if k not in p:
            continue
        tol = EXPLOIT_ATOL + float(q[k]["play_nash_conv"]) + float(p[k]["play_nash_conv"])
        for col, what in (("gain_pass_only", "passing only"),
                          ("gain_pass_play", "passing and play")):
            out.append(_close(f"exact exploitability ({what}), {k[0]}, {k[1]}",
                              float(q[k][col]), float(p[k][col]), tol))
    return out


def _metagame(quick: Path, paper: Path, name: str) -> list[Comparison]:
    def load(folder: Path) -> tuple[dict, list[dict]]:
        return (json.loads(_text(folder / name / "metadata.json"))["config"],
                _csv(folder / name / "rows.csv"))
    (qc, qr), (pc, pr) = load(quick), load(paper)
    if list(qc["conventions"]) != list(pc["conventions"]):
        return []                      # library gains depend on the set of conventions
    out = []
    n = qc["players"]
    for kind, cols, what in (("convention", ("library_gain", "library_lo", "library_hi"),
                              "library best-response gain"),
                             ("rollout_br", ("mean", "lo", "hi"), "rollout best-response gain")):
        pk = {r["convention"]: r for r in pr if r["kind"] == kind}
        for r in qr:
            if r["kind"] == kind and r["convention"] in pk:
                out.append(_overlap(f"{n}-player meta-game: {what} against {r['convention']}",
                                    tuple(float(r[c]) for c in cols),
                                    tuple(float(pk[r["convention"]][c]) for c in cols)))
    return out


def _rules_stats(quick: Path, paper: Path) -> list[Comparison]:
    p = {r["configuration"]: r for r in _csv(paper / "rules_stats" / "summary.csv")}
    out = []
    for r in _csv(quick / "rules_stats" / "summary.csv"):
        if r["configuration"] not in p:
            continue
        for col, what in (("hands_with_a_void_trick", "hands with a void trick"),
                          ("pot_reaches_last_trick", "pot reaches the last trick")):
            sides = []
            for row in (r, p[r["configuration"]]):
                share, n = float(row[col]), int(row["hands"])
                h = proportion_half_width(share, n)
                sides.append((share, share - h, share + h, share * n))
            if min(s[3] for s in sides) < MIN_EVENTS or any(math.isnan(s[1]) for s in sides):
                continue
            out.append(_overlap(f"rules, {r['configuration']}: share of {what}",
                                sides[0][:3], sides[1][:3]))
    return out


#: Each comparison with the files it needs in both folders.
CHECKS = ((("ladder/steps.csv", "ladder/sweep.csv"), _ladder),
          (("cfr_convergence/rows.csv",), _cfr),
          (("passing_exact/rows.csv",), _exact),
          (("passing_metagame/rows.csv", "passing_metagame/metadata.json"),
           lambda q, p: _metagame(q, p, "passing_metagame")),
          (("passing_metagame_11/rows.csv", "passing_metagame_11/metadata.json"),
           lambda q, p: _metagame(q, p, "passing_metagame_11")),
          (("rules_stats/summary.csv",), _rules_stats))


def compare(quick: Path, paper: Path, *, family: bool = True
            ) -> tuple[list[Comparison], list[str]]:
    """Every comparison of the quick results ``quick`` with the paper results
    ``paper``, and the names of the files missing on either side (those checks
    are skipped). ``family=True`` (the default) judges the interval comparisons
    together: each 95% interval is widened by :func:`family_factor` of their
    number, so that all of them agree with probability 95% when both profiles
    estimate the same values (with 100 separate 95% comparisons a few would
    fail by chance alone); ``family=False`` judges each at its own 95%."""
    rows, skipped = [], []
    for files, fn in CHECKS:
        missing = [str(f / n) for n in files for f in (Path(quick), Path(paper))
                   if not (f / n).is_file()]
        if missing:
            skipped += missing
            continue
        rows += fn(Path(quick), Path(paper))
    k = sum(r.intervals is not None for r in rows)
    if family and k > 1:
        f = family_factor(k)
        rows = [_widen(r, f) if r.intervals is not None else r for r in rows]
    return rows, skipped


def table(rows: list[Comparison]) -> str:
    """A markdown table: quantity, quick, paper, agree?, rule."""
    lines = ["| quantity | quick | paper | agree? | rule |", "|---|---|---|---|---|"]
    lines += [f"| {r.quantity} | {r.quick} | {r.paper} | {'yes' if r.agree else 'NO'} | {r.rule} |"
              for r in rows]
    return "\n".join(lines)
