"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.abr` (``RESULTS/abr/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

import spiel_game


def _target_name(target: str) -> str:
    """``heuristic`` -> ``heuristic``; ``convention(passing='low')`` -> ``low``; other
    specs as they are."""
    import re
    hit = re.fullmatch(r"convention\(passing=['\"](\w+)['\"]\)", target)
    return hit.group(1) if hit else target


def _int_param(spec: str, name: str) -> int:
    """The int keyword ``name`` of an agent spec or parameter string."""
    import re
    hit = re.search(rf"{name}\s*=\s*(\d+)", spec)
    if not hit:
        raise ValueError(f"no {name}= in {spec!r}")
    return int(hit.group(1))


def _present(get) -> bool:
    """Whether ``get()`` returns something (False when the results are missing)."""
    try:
        return bool(get())
    except (OSError, KeyError, ValueError):
        return False


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``abr/`` (:mod:`texmacros`): the run's size
    (deals, ABR seats per deal, worlds, exact seeds), per player count the ABR's
    gain over the heuristic with its 95% interval, points and time per decision;
    over the passing conventions (under ``\\ifAbrConventions``) the largest and
    smallest gain and how many intervals lie above zero; the exact validation
    (per reduced deal, named by its player count, under ``\\ifAbrExact<Count>``:
    the heuristic's exact best-response gain, the ABR's and the gap; over every
    preset and target the largest gap and the smallest share of the exact gain the
    ABR reaches); and the rows of the two tables. Everything is under
    ``\\ifAbr`` (results present), ``\\ifAbrEleven`` (11 players run)."""

    from texmacros import WORDS, fixed, interval, names, read_csv, read_json, signed, thousands, tt
    folder = results / "abr"
    cache: dict = {}

    def cfg() -> dict:
        return read_json(folder / "metadata.json")["config"]

    def table(name: str) -> list[dict]:
        if name not in cache:
            cache[name] = read_csv(folder / f"{name}.csv")
        return cache[name]

    def gains(n: int | None = None, conventions: bool | None = None) -> list[dict]:
        """Rows of ``gains.csv`` at ``n`` players (None: any); ``conventions``: only
        the passing conventions (True) or only the others (False)."""
        return [r for r in table("gains")
                if (n is None or int(r["players"]) == n)
                and (conventions is None
                     or r["target"].startswith("convention(") == conventions)]

    def one(n: int, target: str) -> dict:
        out = [r for r in gains(n) if r["target"] == target]
        if len(out) != 1:
            raise ValueError(f"{len(out)} rows for {target} at {n} players")
        return out[0]

    def exact(n: int | None = None) -> list[dict]:
        """Rows of ``exact.csv`` of presets with ``n`` players (None: any)."""
        return [r for r in table("exact")
                if n is None or spiel_game.PRESETS[r["preset"]]["players"] == n]

    two = fixed(2)
    f = lambda r, c: float(r[c])                                      # noqa: E731
    m.flag("Abr", lambda: bool(gains()), "the ABR study's results are present")
    m.flag("AbrEleven", lambda: bool(gains(11)), "the ABR ran at 11 players")
    conv = _present(lambda: gains(conventions=True))
    m.flag("AbrConventions", lambda: conv, "the ABR ran against passing conventions")
    on = _present(gains)
    for name, get, fmt, what in (
            ("AbrDeals", lambda: cfg()["deals"], thousands, "duplicate deals per target"),
            ("AbrSeats", lambda: max(int(r["seats_per_deal"]) for r in gains()), str,
             "ABR seats per deal"),
            ("AbrWorlds", lambda: _int_param(cfg()["abr_params"], "worlds"), str,
             "worlds per decision"),
            ("AbrExactWorlds", lambda: _int_param(cfg()["exact_abr_params"], "worlds"), str,
             "worlds per decision in the exact check"),
            ("AbrExactSeeds", lambda: cfg()["exact_seeds"], str, "seeds of the exact check"),
            ("AbrExactDeals", lambda: list(dict.fromkeys(r["preset"] for r in exact())), names,
             "the reduced deals of the exact check"),
            ("AbrExactGapMax", lambda: max(f(r, "gap") for r in exact()), two,
             "largest gap between the exact BR gain and the ABR's (presets x targets)"),
            ("AbrExactShareMin", lambda: min(100 * f(r, "abr_gain") / f(r, "br_gain")
                                             for r in exact() if f(r, "br_gain") > 0),
             lambda x: f"{x:.0f}", "smallest ABR gain as a percentage of the exact one")):
        m.add_if(on, name, get, fmt, what)
    for n in (6, 11):
        w = f"Abr{WORDS[n]}"
        ran = _present(lambda n=n: gains(n))
        for name, col, fmt, what in (
                ("HeuristicGain", "gain", signed, "ABR gain over the heuristic"),
                ("HeuristicLo", "gain_lo", signed, "its 95% lo"),
                ("HeuristicHi", "gain_hi", signed, "its 95% hi"),
                ("HeuristicTarget", "target_points", two, "the heuristic's points in the seat"),
                ("HeuristicAbr", "abr_points", two, "the ABR's points in the seat"),
                ("HeuristicMs", "abr_ms_per_decision", lambda x: f"{float(x):.0f}",
                 "ABR ms per decision")):
            m.add_if(ran, w + name, lambda c=col, n=n: one(n, "heuristic")[c], fmt,
                     f"{what} ({n} players)")
        m.flag(f"{w}HeuristicSignificant",
               lambda n=n: float(one(n, "heuristic")["gain_lo"]) > 0,
               f"the ABR's gain over the heuristic at {n} players has its interval above 0")
        hit = conv and _present(lambda n=n: gains(n, True))

        def ext(n, pick):
            return pick(gains(n, True), key=lambda r: f(r, "gain"))
        for name, get, fmt, what in (
                ("ConvMax", lambda n: _target_name(ext(n, max)["target"]), tt,
                 "the convention with the largest ABR gain"),
                ("ConvMaxGain", lambda n: ext(n, max)["gain"], signed, "its gain"),
                ("ConvMaxLo", lambda n: ext(n, max)["gain_lo"], signed, "its 95% lo"),
                ("ConvMaxHi", lambda n: ext(n, max)["gain_hi"], signed, "its 95% hi"),
                ("ConvMin", lambda n: _target_name(ext(n, min)["target"]), tt,
                 "the convention with the smallest ABR gain"),
                ("ConvMinGain", lambda n: ext(n, min)["gain"], signed, "its gain"),
                ("ConvMinLo", lambda n: ext(n, min)["gain_lo"], signed, "its 95% lo"),
                ("ConvMinHi", lambda n: ext(n, min)["gain_hi"], signed, "its 95% hi"),
                ("ConvAbove", lambda n: sum(f(r, "gain_lo") > 0 for r in gains(n, True)), str,
                 "conventions whose interval lies above zero")):
            m.add_if(hit, w + name, lambda g=get, n=n: g(n), fmt, f"{what} ({n} players)")
    for name, get, fmt, what in (
            ("AbrConventionCount", lambda: len({r["target"] for r in gains(conventions=True)}),
             str, "passing conventions as targets"),
            ("AbrConventionNames",
             lambda: [_target_name(t) for t in dict.fromkeys(r["target"]
                                                              for r in gains(conventions=True))],
             names, "the conventions")):
        m.add_if(conv, name, get, fmt, what)
    for n in (2, 3):
        w = f"AbrExact{WORDS[n]}"
        ran = _present(lambda n=n: [r for r in exact(n) if r["target"] == "heuristic"])
        m.flag(w, lambda r=ran: r, f"the exact check ran against the heuristic with {n} players")

        def heur(n):
            rows = [r for r in exact(n) if r["target"] == "heuristic"]
            if len(rows) != 1:
                raise ValueError(f"{len(rows)} exact rows of the heuristic with {n} players")
            return rows[0]
        for name, get, fmt, what in (
                ("Deal", lambda n: heur(n)["preset"], tt, "the reduced deal"),
                ("Br", lambda n: heur(n)["br_gain"], two, "exact BR gain against the heuristic"),
                ("Abr", lambda n: heur(n)["abr_gain"], two, "the ABR's exact gain"),
                ("Gap", lambda n: heur(n)["gap"], two, "their gap")):
            m.add_if(ran, w + name, lambda g=get, n=n: g(n), fmt, f"{what} ({n} players)")

    def label(target: str) -> str:
        """``heuristic``, ``convention \\texttt{low}``, or the spec in typewriter."""
        t = _target_name(target)
        if t == "heuristic":
            return t
        return f"convention {tt(t)}" if t != target else tt(t)

    def gain_line(r: dict) -> str:
        return " & ".join([label(r["target"]), r["players"], signed(r["gain"]),
                           interval(r["gain_lo"], r["gain_hi"]), two(r["target_points"]),
                           two(r["abr_points"]), f"{float(r['abr_ms_per_decision']):.0f}"])

    def exact_line(r: dict) -> str:
        ci = "--" if r["gap_lo"] in ("", "nan") else interval(r["gap_lo"], r["gap_hi"])
        if ci != "--" and two(r["gap_lo"]) == two(r["gap_hi"]):
            ci = f"all {cfg()['exact_seeds']} seeds equal"
        return " & ".join([tt(r["preset"]), label(r["target"]),
                           two(r["br_gain"]), two(r["abr_gain"]), two(r["gap"]), ci])
    _search_macros(m, results)
    if on:
        m.add_rows("AbrRows", lambda: gains(), gain_line,
                   "table rows: ABR gain per target and player count")
        m.add_rows("AbrExactRows", lambda: exact(), exact_line,
                   "table rows: exact BR gain, ABR gain and gap per preset and target")
    else:
        m.not_run("AbrRows", "table rows of the ABR gains")
        m.not_run("AbrExactRows", "table rows of the exact check")


def _search_macros(m, results: Path) -> None:
    """The numbers of ``abr_search/`` (ISMCTS against a larger ISMCTS): the two
    budgets, deals and seats per deal, per player count the gain with its 95%
    interval and the responder's ms per decision; under ``\\ifAbrSearch``
    (results present), ``\\ifAbrSearch<Count>`` (that count ran) and
    ``\\ifAbrSearch<Count>Significant`` (interval above zero)."""

    from texmacros import WORDS, read_csv, read_json, signed, thousands
    folder = results / "abr_search"

    def rows(n: int | None = None) -> list[dict]:
        return [r for r in read_csv(folder / "gains.csv")
                if n is None or int(r["players"]) == n]

    def one(n: int) -> dict:
        out = rows(n)
        if len(out) != 1:
            raise ValueError(f"{len(out)} abr_search rows at {n} players")
        return out[0]

    on = _present(rows)
    m.flag("AbrSearch", lambda: on, "the ISMCTS-against-ISMCTS bound ran")
    cfg = lambda: read_json(folder / "metadata.json")["config"]           # noqa: E731
    for name, get, fmt, what in (
            ("AbrSearchTargetIterations",
             lambda: _int_param(rows()[0]["target"], "iterations"), thousands,
             "the target ISMCTS's iterations per move"),
            ("AbrSearchResponderIterations",
             lambda: _int_param(rows()[0]["responder"], "iterations"), thousands,
             "the responder ISMCTS's iterations per move"),
            ("AbrSearchDeals", lambda: cfg()["deals"], thousands, "duplicate deals"),
            ("AbrSearchSeats", lambda: max(int(r["seats_per_deal"]) for r in rows()), str,
             "responder seats per deal")):
        m.add_if(on, name, get, fmt, what)
    for n in (6, 11):
        w = f"AbrSearch{WORDS[n]}"
        ran = _present(lambda n=n: one(n))
        m.flag(w, lambda r=ran: r, f"the ISMCTS bound ran at {n} players")
        for name, col, fmt, what in (
                ("Gain", "gain", signed, "the responder's gain over ISMCTS"),
                ("Lo", "gain_lo", signed, "its 95% lo"), ("Hi", "gain_hi", signed, "its 95% hi"),
                ("Ms", "abr_ms_per_decision", lambda x: f"{float(x):.0f}",
                 "the responder's ms per decision")):
            m.add_if(ran, w + name, lambda c=col, n=n: one(n)[c], fmt, f"{what} ({n} players)")
        m.flag(f"{w}Significant", lambda n=n: float(one(n)["gain_lo"]) > 0,
               f"the bound on ISMCTS's exploitability at {n} players is above zero")
