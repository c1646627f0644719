"""The paper's numbers of the external baseline, our agents against xinxin
(:mod:`experiments._external`, ``RESULTS/xinxin/gains.csv``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

from experiments._external import rows as _rows

#: The cells whose macros the paper's text uses: defined (as ``--``, never
#: printed under a false ``\\ifXinxin``) also when the results lack them.
TEXT_CELLS = ("heuristic_nopass", "heuristic_pass", "eq_nopass", "eq_pass", "eq_pass48")
#: The per-cell macro fields.
FIELDS = ("Deals", "Gain", "Lo", "Hi", "P", "MsOurs", "MsXinxin")
#: Digits spelled out in macro names (TeX's control words are letters only).
DIGITS = dict(zip("0123456789", ("Zero", "One", "Two", "Three", "Four", "Five", "Six",
                                 "Seven", "Eight", "Nine")))


def split_agent(agent: str) -> tuple[str, str]:
    """The table's agent and passing cells of a ``gains.csv`` agent field
    (``"<spec>, <passing>"``): ``"ismcts(time_limit=0.15, ...), 3-card pass"``
    gives ``("ISMCTS, 0.15 s", "3-card")``; a spec without a time limit prints
    whole, in typewriter type."""
    import re

    from texmacros import tt

    spec, _, passing = agent.rpartition(", ")
    if not spec or "pass" not in passing:
        spec, passing = agent, ""
    name = spec.split("(", 1)[0]
    limit = re.search(r"time_limit=([0-9.]+)", spec)
    label = (f"{'ISMCTS' if name == 'ismcts' else tt(name)}, {limit.group(1)}\\,s" if limit
             else tt(spec))
    return label, {"no passing": "none", "3-card pass": "3-card"}.get(passing, passing)


def paper_macros(m, results: Path, bench: Path) -> None:
    """``\\ifXinxin`` (the results exist), ``\\XinxinRows`` (table body: agent,
    passing, ms per decision ours/xinxin, gain, 95% interval, p; or one
    "not yet measured" row) and
    ``\\XinxinCount`` (comparisons), and for each row with a ``cell`` name
    ``\\Xinxin<Cell>Deals``, ``Gain``, ``Lo``, ``Hi``, ``P``, ``MsOurs`` and
    ``MsXinxin`` (``eq_pass`` gives ``\\XinxinEqPassGain``, ``eq_pass48``
    ``\\XinxinEqPassFourEightGain``) (:mod:`texmacros`)."""
    from texmacros import interval, pvalue, signed, thousands

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
        _cells_not_run(m, TEXT_CELLS)
        return

    def line(r: dict) -> str:
        agent, passing = split_agent(r["agent"])
        ms = (f"{milliseconds(r['ms_ours'])}/{milliseconds(r['ms_xinxin'])}"
              if r.get("ms_ours") and r.get("ms_xinxin") else "--")
        return " & ".join([agent, passing, ms, signed(r["gain"]),
                           interval(r["gain_lo"], r["gain_hi"]), pvalue(r["p_value"])])
    m.add_rows("XinxinRows", lambda: rows, line, "table rows: our agents against xinxin")
    m.add("XinxinCount", lambda: len(rows), str, "comparisons with xinxin")
    for r in rows:                      # the text's numbers, per named cell
        if not r.get("cell"):
            continue
        key = _key(r["cell"])
        what = f"xinxin cell {r['cell']}"
        m.add(f"{key}Deals", lambda r=r: int(r["deals"]), thousands, f"{what}: deals")
        m.add(f"{key}Gain", lambda r=r: float(r["gain"]), signed, f"{what}: gain")
        m.add(f"{key}Lo", lambda r=r: float(r["gain_lo"]), signed, f"{what}: 95% low")
        m.add(f"{key}Hi", lambda r=r: float(r["gain_hi"]), signed, f"{what}: 95% high")
        m.add(f"{key}P", lambda r=r: float(r["p_value"]), pvalue, f"{what}: p")
        if r.get("ms_ours") and r.get("ms_xinxin"):
            m.add(f"{key}MsOurs", lambda r=r: float(r["ms_ours"]), milliseconds,
                  f"{what}: our ms per decision")
            m.add(f"{key}MsXinxin", lambda r=r: float(r["ms_xinxin"]), milliseconds,
                  f"{what}: xinxin's ms per decision")
        else:
            m.not_run(f"{key}MsOurs", f"{what}: our ms per decision")
            m.not_run(f"{key}MsXinxin", f"{what}: xinxin's ms per decision")
    _cells_not_run(m, [c for c in TEXT_CELLS if c not in {r.get("cell") for r in rows}])


def milliseconds(x) -> str:
    """A time per decision in ms as measured: whole ms from 10 ms, two
    significant digits below (the heuristic's 0.05 ms is not ``0``); a time
    recorded as below 0.05 ms (the results keep one decimal) prints as
    ``$<$0.05``, never as ``0``."""
    x = float(x)
    if x < 0.05:
        return "$<$0.05"
    return f"{x:.0f}" if x >= 10 else f"{x:.2g}"


def _key(cell: str) -> str:
    """``eq_pass48`` -> ``XinxinEqPassFourEight`` (TeX control words are letters)."""
    key = "Xinxin" + "".join(w.capitalize() for w in cell.split("_"))
    return "".join(DIGITS.get(c, c) for c in key if c.isalnum())


def _cells_not_run(m, cells) -> None:
    for cell in cells:
        for field in FIELDS:
            m.not_run(f"{_key(cell)}{field}", f"xinxin cell {cell} (not in the results)")
