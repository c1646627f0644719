"""The external baseline of the paper: our agents against xinxin in classic Hearts.

xinxin (Sturtevant's Hearts program, :mod:`solvers.xinxin` where built) plays
only the classic four-player game, so the comparison is made there. The
paper reads ``RESULTS/xinxin/gains.csv``, one row per comparison, with the
columns

``agent`` (our agent's spec), ``opponent`` (xinxin's spec), ``players``,
``deals``, ``seatings``, ``gain``, ``gain_lo``, ``gain_hi`` (our agent's
zero-sum payoff minus xinxin's, points per hand, 95% t interval over
duplicate deals) and ``p_value`` (paired t-test, two-sided),

and optionally ``RESULTS/xinxin/metadata.json`` (the provenance table reads
it like any study's). Until that file exists the paper prints "not yet
measured" in the subsection and its table (``\\ifXinxin`` false,
``\\XinxinRows`` a single row saying so): nothing fails and no ``??`` appears.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["COLUMNS", "paper_macros"]

#: The columns ``xinxin/gains.csv`` must have.
COLUMNS = ("agent", "opponent", "players", "deals", "seatings", "gain", "gain_lo", "gain_hi",
           "p_value")


def _rows(results: Path) -> list[dict]:
    from .macros import read_csv

    rows = read_csv(Path(results) / "xinxin" / "gains.csv")
    missing = [c for c in COLUMNS if rows and c not in rows[0]]
    if missing:
        raise ValueError(f"xinxin/gains.csv lacks the columns {missing} (needs {COLUMNS})")
    if not rows:
        raise ValueError("xinxin/gains.csv has no rows")
    return rows


def paper_macros(m, results: Path, bench: Path) -> None:
    """``\\ifXinxin`` (the results exist), ``\\XinxinRows`` (table body: agent,
    deals x seatings, gain, 95% interval, p; or one "not yet measured" row) and
    ``\\XinxinCount`` (comparisons) (:mod:`experiments.macros`)."""
    from .macros import interval, pvalue, signed, thousands, tt

    def present() -> bool:
        return bool(_rows(results))

    m.flag("Xinxin", present, "the xinxin comparison's results exist")
    try:
        rows = _rows(results)
    except (OSError, ValueError, KeyError):
        rows = []
    if not rows:
        m.add("XinxinRows", lambda: r"\multicolumn{5}{l}{not yet measured} \\", str,
              "table rows of the xinxin comparison (none yet)")
        m.not_run("XinxinCount", "comparisons with xinxin")
        return

    def line(r: dict) -> str:
        return " & ".join([tt(r["agent"]), f"{thousands(int(r['deals']))} $\\times$ "
                           f"{int(r['seatings'])}", signed(r["gain"]),
                           interval(r["gain_lo"], r["gain_hi"]), pvalue(r["p_value"])])
    m.add_rows("XinxinRows", lambda: rows, line, "table rows: our agents against xinxin")
    m.add("XinxinCount", lambda: len(rows), str, "comparisons with xinxin")
