"""The paper's primary hypotheses, tested as one family with Holm's correction.

The main text declares a short list of confirmatory comparisons (:data:`PRIMARY`),
each read from a saved result; every other p-value in the paper is exploratory
and says so. :func:`family` collects the hypotheses whose results exist,
takes each one's two-sided p-value (as the study saved it, or recovered from
its saved 95% t interval by :func:`experiments._base.stats.p_from_interval`) and
adjusts the family with :func:`experiments._base.stats.holm`. :func:`paper_macros`
writes ``\\PrimaryRows`` (the body of the table of primary hypotheses),
``\\PrimaryCount``, ``\\PrimaryHeld`` (how many hold at level
:data:`ALPHA` after the correction) and, for every hypothesis,
``\\Primary<Key>Gain``, ``Lo``, ``Hi``, ``Half``, ``Deals``, ``P`` and ``Holm``.
A hypothesis whose result is not in a profile's results is listed as not
measured and left out of the family (so the correction is over what was
tested).

Gains are oriented so that a positive value supports the claim as worded:
points per hand in the game's zero-sum payoff (the mean of the others' points
minus one's own), with the 95% interval over duplicate deals.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from experiments._base.stats import holm, p_from_interval

__all__ = ["ALPHA", "Hypothesis", "Measured", "PRIMARY", "family", "paper_macros"]

#: The family-wise error rate of the primary hypotheses.
ALPHA = 0.05


@dataclasses.dataclass(frozen=True)
class Measured:
    """One hypothesis's result: gain with its 95% interval, two-sided p-value,
    deals, and the result file it comes from (relative to the results folder)."""

    gain: float
    lo: float
    hi: float
    p: float
    deals: int
    source: str


@dataclasses.dataclass(frozen=True)
class Hypothesis:
    """A declared comparison: ``key`` (macro suffix), ``rq`` (research question),
    ``claim`` (LaTeX text), and ``read(results, bench) -> Measured``."""

    key: str
    rq: int
    claim: str
    read: Callable[[Path, Path], Measured]


def _csv(path: Path) -> list[dict]:
    import csv

    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _json(path: Path) -> dict:
    import json

    return json.loads(Path(path).read_text())


def _ladder(players: int, step: int) -> Callable[[Path, Path], Measured]:
    def read(results: Path, bench: Path) -> Measured:
        row = next(r for r in _csv(results / "ladder" / "steps.csv")
                   if r["step"] == f"n{players}_step{step}")
        return Measured(float(row["gain"]), float(row["gain_lo"]), float(row["gain_hi"]),
                        float(row["p_value"]), int(row["deals"]), "ladder/steps.csv")
    return read


def _abr(study: str, target: str, players: int) -> Callable[[Path, Path], Measured]:
    def read(results: Path, bench: Path) -> Measured:
        row = next(r for r in _csv(results / study / "gains.csv")
                   if r["target"] == target and int(r["players"]) == players)
        n = int(row["deals"])
        gain, lo, hi = float(row["gain"]), float(row["gain_lo"]), float(row["gain_hi"])
        return Measured(gain, lo, hi, p_from_interval(gain, lo, hi, n), n,
                        f"{study}/gains.csv")
    return read


def _net(name: str) -> Callable[[Path, Path], Measured]:
    def read(results: Path, bench: Path) -> Measured:
        c = _json(bench / "net_strength.json")["result"]["comparisons"][name]
        g = c["gain"]
        return Measured(g["mean"], g["lo"], g["hi"], c["p_value"], int(c["deals"]),
                        "bench/net_strength.json")
    return read


def _inference(players: int, budget: float) -> Callable[[Path, Path], Measured]:
    """Resample-move inference against plain ISMCTS at ``budget`` s per move (a
    heuristic field): gain = points plain ISMCTS took minus inference's."""
    def read(results: Path, bench: Path) -> Measured:
        c = next(c for c in _json(bench / "inference_field.json")["result"]["comparisons"]
                 if c["players"] == players and "belief_mcmc" in c["x"]
                 and f"time_limit={budget}," in c["x"] and "opponents" not in c["x"])
        d = c["x_minus_y"]
        return Measured(-d["mean"], -d["hi"], -d["lo"], c["p_value"], int(c["deals"]),
                        "bench/inference_field.json")
    return read


#: The declared primary hypotheses, in the order of the paper's table.
PRIMARY = (
    Hypothesis("LadderSixHeuristic", 1, "heuristic beats random (6 players)", _ladder(6, 0)),
    Hypothesis("LadderSixPimc", 1, "PIMC beats the heuristic (6 players)", _ladder(6, 1)),
    Hypothesis("LadderSixIsmcts", 1, "ISMCTS beats PIMC (6 players)", _ladder(6, 2)),
    Hypothesis("LadderElevenIsmcts", 1, "ISMCTS beats PIMC (11 players)", _ladder(11, 2)),
    Hypothesis("NetSix", 1, "the every-count network beats the heuristic (6 players)",
               _net("all6")),
    Hypothesis("InferenceSix", 1,
               "resample-move inference differs from plain ISMCTS at equal time "
               "(0.2~s, 6 players)", _inference(6, 0.2)),
    Hypothesis("AbrHeuristic", 2, "the ABR exploits the heuristic player (6 players)",
               _abr("abr", "heuristic", 6)),
    Hypothesis("AbrExpert", 2, r"the ABR exploits \texttt{expert} passing (6 players)",
               _abr("abr", "convention(passing='expert')", 6)),
    Hypothesis("AbrDump", 2, r"the ABR exploits \texttt{dump\_points} passing (6 players)",
               _abr("abr", "convention(passing='dump_points')", 6)),
    Hypothesis("SearchIsmcts", 2,
               "a 3{,}000-iteration search exploits 100-iteration ISMCTS (6 players)",
               _abr("abr_search", "ismcts(iterations=100, rollout='heuristic')", 6)),
)

#: The mark of a hypothesis that does not hold after the correction.
NOT_HELD = r"$^\dagger$"

#: What reading a missing or malformed result may raise.
_MISSING = (OSError, KeyError, ValueError, StopIteration, TypeError, IndexError)


def family(results: Path, bench: Path, hypotheses=PRIMARY) -> list[tuple]:
    """``[(hypothesis, measured or None, holm-adjusted p or None)]`` in the order of
    ``hypotheses``; the correction runs over the measured ones only."""
    measured = []
    for h in hypotheses:
        try:
            measured.append(h.read(Path(results), Path(bench)))
        except _MISSING:
            measured.append(None)
    adjusted = iter(holm([m.p for m in measured if m is not None]))
    return [(h, m, next(adjusted) if m is not None else None)
            for h, m in zip(hypotheses, measured)]


def paper_macros(m, results: Path, bench: Path) -> None:
    """The table and the numbers of the primary hypotheses (:mod:`texmacros`)."""
    from texmacros import plural, pvalue, signed, thousands

    fam = family(results, bench)
    tested = [(h, r, a) for h, r, a in fam if r is not None]

    def row(item) -> str:
        i, (h, r, a) = item
        head = f"P{i + 1} & RQ{h.rq} & {h.claim}"
        if r is None:
            return head + r" & \multicolumn{5}{l}{not measured in these results}"
        half = (r.hi - r.lo) / 2
        mark = "" if a <= ALPHA else NOT_HELD
        return (f"{head} & {thousands(r.deals)} & {signed(r.gain)} & $\\pm${half:.2f} & "
                f"{pvalue(r.p)} & {pvalue(a)}{mark}")

    m.add_rows("PrimaryRows", lambda: list(enumerate(fam)), row,
               "primary hypotheses: deals, gain, 95% half-width, raw and Holm p")
    m.add("PrimaryCount", lambda: len(tested), str, "primary hypotheses measured")
    m.add("PrimaryHeld", lambda: sum(a <= ALPHA for _, _, a in tested), str,
          f"primary hypotheses with Holm-adjusted p <= {ALPHA}")
    m.add("PrimaryAlpha", lambda: ALPHA, str, "family-wise error rate")

    def held_text() -> str:
        held, n = sum(a <= ALPHA for _, _, a in tested), len(tested)
        if n == 0:
            raise ValueError("no primary hypothesis measured")
        things = plural(n, "declared primary hypothesis", "declared primary hypotheses")
        if held == n:
            return "all " + things if n > 1 else "the one declared primary hypothesis"
        return f"{held} of the {things}"
    m.add("PrimaryHeldText", held_text, str,
          "'all 10 declared primary hypotheses' / '7 of the 10 ...' (hold after Holm)")
    for h, r, a in fam:
        if r is None:
            for suffix in ("Gain", "Lo", "Hi", "Half", "Deals", "P", "Holm"):
                m.not_run(f"Primary{h.key}{suffix}", h.claim)
        else:
            m.add(f"Primary{h.key}Gain", lambda r=r: r.gain, signed, f"gain: {h.claim}")
            m.add(f"Primary{h.key}Lo", lambda r=r: r.lo, signed, "its 95% low")
            m.add(f"Primary{h.key}Hi", lambda r=r: r.hi, signed, "its 95% high")
            m.add(f"Primary{h.key}Half", lambda r=r: (r.hi - r.lo) / 2, signed,
                  "its 95% half-width")
            m.add(f"Primary{h.key}Deals", lambda r=r: r.deals, thousands, "its deals")
            m.add(f"Primary{h.key}P", lambda r=r: r.p, pvalue, f"raw p: {h.claim}")
            m.add(f"Primary{h.key}Holm", lambda a=a: a, pvalue, f"Holm p: {h.claim}")
