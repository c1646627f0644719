"""The external baseline of the paper: our agents against xinxin in classic Hearts.

xinxin (Sturtevant's Hearts program, :mod:`solvers.xinxin` where built) plays
only the classic four-player game, so the comparison is made there
(``research/scripts/xinxin_paper.py`` writes it). Its results are
``RESULTS/xinxin/gains.csv``, one row per comparison, with the columns

``agent`` (our agent's spec), ``opponent`` (xinxin's spec), ``players``,
``deals``, ``seatings``, ``gain``, ``gain_lo``, ``gain_hi`` (our agent's
zero-sum payoff minus xinxin's, points per hand, 95% t interval over
duplicate deals) and ``p_value`` (paired t-test, two-sided), and optionally
``ms_ours`` and ``ms_xinxin`` (each agent's mean thinking time per decision
in the runs, milliseconds) and ``cell`` (a name such as ``eq_pass`` that the
paper's text refers to),

and optionally ``RESULTS/xinxin/metadata.json`` (provenance, like any
study's). :func:`rows` reads and checks the table. Until the file exists the
paper says the comparison is not yet measured; nothing fails.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["COLUMNS", "OPTIONAL", "rows"]

#: The columns ``xinxin/gains.csv`` must have.
COLUMNS = ("agent", "opponent", "players", "deals", "seatings", "gain", "gain_lo", "gain_hi",
           "p_value")
#: Columns ``xinxin/gains.csv`` may have: thinking time per decision (ms) and the cell name.
OPTIONAL = ("ms_ours", "ms_xinxin", "cell")


def rows(results: Path) -> list[dict]:
    """The rows of ``RESULTS/xinxin/gains.csv`` (each a dict of strings); an error
    (``OSError``, ``ValueError``) when the file is missing, lacks a column of
    :data:`COLUMNS` or has no rows."""
    import csv

    with open(Path(results) / "xinxin" / "gains.csv", newline="") as f:
        out = list(csv.DictReader(f))
    missing = [c for c in COLUMNS if out and c not in out[0]]
    if missing:
        raise ValueError(f"xinxin/gains.csv lacks the columns {missing} (needs {COLUMNS})")
    if not out:
        raise ValueError("xinxin/gains.csv has no rows")
    return out
