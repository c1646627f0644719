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

__all__ = ["COLUMNS", "paper_macros", "split_agent"]

#: The columns ``xinxin/gains.csv`` must have.
COLUMNS = ("agent", "opponent", "players", "deals", "seatings", "gain", "gain_lo", "gain_hi",
           "p_value")


def split_agent(agent: str) -> tuple[str, str]:
    """The table's agent and passing cells of a ``gains.csv`` agent field
    (``"<spec>, <passing>"``): ``"ismcts(time_limit=0.15, ...), 3-card pass"``
    gives ``("ISMCTS, 0.15 s", "3-card")``; a spec without a time limit prints
    whole, in typewriter type."""
    import re

    from .macros import tt

    spec, _, passing = agent.rpartition(", ")
    if not spec or "pass" not in passing:
        spec, passing = agent, ""
    name = spec.split("(", 1)[0]
    limit = re.search(r"time_limit=([0-9.]+)", spec)
    label = (f"{'ISMCTS' if name == 'ismcts' else tt(name)}, {limit.group(1)}\\,s" if limit
             else tt(spec))
    return label, {"no passing": "none", "3-card pass": "3-card"}.get(passing, passing)


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
    passing, deals, gain, 95% interval, p; or one "not yet measured" row) and
    ``\\XinxinCount`` (comparisons) (:mod:`experiments.macros`)."""
    from .macros import interval, pvalue, signed, thousands

    def present() -> bool:
        return bool(_rows(results))

    m.flag("Xinxin", present, "the xinxin comparison's results exist")
    try:
        rows = _rows(results)
    except (OSError, ValueError, KeyError):
        rows = []
    if not rows:
        m.add("XinxinRows", lambda: r"\multicolumn{6}{l}{not yet measured} \\", str,
              "table rows of the xinxin comparison (none yet)")
        m.not_run("XinxinCount", "comparisons with xinxin")
        return

    def line(r: dict) -> str:
        agent, passing = split_agent(r["agent"])
        return " & ".join([agent, passing, thousands(int(r["deals"])), signed(r["gain"]),
                           interval(r["gain_lo"], r["gain_hi"]), pvalue(r["p_value"])])
    m.add_rows("XinxinRows", lambda: rows, line, "table rows: our agents against xinxin")
    m.add("XinxinCount", lambda: len(rows), str, "comparisons with xinxin")
