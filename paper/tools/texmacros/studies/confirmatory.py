"""The paper's numbers of the confirmatory family (``paper/preregistration_confirmatory.md``;
``RESULTS/confirmatory/results.csv``, written by ``research/confirmatory/analyze.py
--ship``; a run folder without it, such as the quick profile's, draws the shipped
``paper/results/confirmatory/results.csv``): :func:`paper_macros` (:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

#: The repository's top folder (this file is ``paper/tools/texmacros/studies/``).
ROOT = Path(__file__).resolve().parents[4]
#: A row's status in the table: held, not shown (finished, not rejected), interim.
HOLDS, NOT_SHOWN, INTERIM = "holds", "not shown", "interim"


def table_file(results: Path, candidates=None) -> Path:
    """``results/confirmatory/results.csv`` when it exists, else the shipped one
    (``paper/results`` of the working folder, of this checkout, then of the
    checkout :mod:`experiments` is imported from; or ``candidates``). Raises
    ``FileNotFoundError`` naming where it looked."""
    import experiments
    from experiments import _shipped as shipped
    # the working folder's shipped results, this paper's checkout's, and those of
    # the checkout the experiments package is imported from (a copy of paper/
    # without results, as the reproduce test makes, still finds them there)
    package_root = Path(experiments.__file__).resolve().parents[1]
    bases = [Path(results)] + list(candidates if candidates is not None
                                   else (shipped.SHIPPED, ROOT / shipped.SHIPPED,
                                         package_root / shipped.SHIPPED))
    for base in bases:
        f = base / "confirmatory" / "results.csv"
        if f.is_file():
            return f
    raise FileNotFoundError(
        "no confirmatory/results.csv in " + ", ".join(str(b) for b in bases)
        + " (research/confirmatory/ship.py writes paper/results/confirmatory)")


def status(r: dict) -> str:
    """:data:`HOLDS`, :data:`NOT_SHOWN` or :data:`INTERIM` for a row of results.csv."""
    if r["interim"] == "True":
        return INTERIM
    return HOLDS if r["holds"] == "True" else NOT_SHOWN


def paper_macros(m, results: Path, bench: Path, candidates=None) -> None:
    """``\\ConfirmatoryRows`` (table body, one row per declared hypothesis: id,
    claim, players, deals played/declared, the statistic G or S with its mean
    and 95% interval, Holm's p over the ten with unfinished ones counted as 1,
    status: holds, not shown or interim), ``\\ConfirmatoryHeld`` (hypotheses
    that hold), ``\\ConfirmatoryCount`` (hypotheses declared) and
    ``\\ConfirmatoryFinished`` (hypotheses with every declared deal played),
    and for each hypothesis (``C3`` spelled ``CThree``)
    ``\\Confirmatory<Id>Gain``, ``Lo``, ``Hi``, ``Holm`` and ``Deals``.
    ``candidates``: the shipped folders to fall back on (default
    :func:`table_file`'s)."""
    from texmacros import interval, pvalue, read_csv, signed, tex_text, thousands

    def rows() -> list[dict]:
        table = read_csv(table_file(results, candidates))
        if not table:
            raise ValueError("confirmatory/results.csv has no rows")
        return table

    m.add("ConfirmatoryCount", lambda: len(rows()), str,
          "confirmatory family: hypotheses declared")
    m.add("ConfirmatoryFinished", lambda: sum(status(r) != INTERIM for r in rows()), str,
          "confirmatory family: hypotheses with every declared deal played")
    m.add("ConfirmatoryHeld", lambda: sum(status(r) == HOLDS for r in rows()), str,
          "confirmatory family: hypotheses that hold (Holm over the ten, finished only)")

    def line(r: dict) -> str:
        deals = f"{thousands(r['deals'])}/{thousands(r['declared_deals'])}"
        if r["lo"] and r["hi"]:
            stat = f"${r['statistic']}$ {signed(r['mean'])} {interval(r['lo'], r['hi'])}"
        elif r["mean"]:
            stat = f"${r['statistic']}$ {signed(r['mean'])}"
        else:
            stat = "--"
        return " & ".join([r["id"], tex_text(r["claim"]), r["players"], deals, stat,
                           pvalue(r["holm_p"]), status(r)])
    from texmacros.external import DIGITS

    def row(key: str) -> dict:
        for r in rows():
            if r["id"] == key:
                return r
        raise KeyError(f"confirmatory/results.csv has no hypothesis {key}")

    def measured(key: str) -> bool:
        try:
            r = row(key)
        except (OSError, ValueError, KeyError):
            return False
        return bool(r["mean"] and r["lo"] and r["hi"] and r["holm_p"])

    for n in range(1, 11):
        key = f"C{n}"
        name = "Confirmatory" + "".join(DIGITS.get(c, c) for c in key.replace("10", "Ten"))
        if not measured(key):       # no deal yet (or no table: the rows say so)
            for field in ("Gain", "Lo", "Hi", "Holm", "Deals"):
                m.not_run(f"{name}{field}", f"{key}: not measured yet")
            continue
        m.add(f"{name}Gain", lambda k=key: float(row(k)["mean"]), signed, f"{key}: mean")
        m.add(f"{name}Lo", lambda k=key: float(row(k)["lo"]), signed, f"{key}: 95% low")
        m.add(f"{name}Hi", lambda k=key: float(row(k)["hi"]), signed, f"{key}: 95% high")
        m.add(f"{name}Holm", lambda k=key: float(row(k)["holm_p"]), pvalue,
              f"{key}: Holm's p over the ten")
        m.add(f"{name}Deals", lambda k=key: int(row(k)["deals"]), thousands, f"{key}: deals")
    m.add_rows("ConfirmatoryRows", rows, line,
               "table rows of the confirmatory family (interim rows are not claims)")
