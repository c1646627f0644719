"""The paper's numbers from the saved results of the study
:mod:`experiments.studies.ladder` (``RESULTS/ladder/``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers from ``ladder/`` (:mod:`texmacros`)."""
    from texmacros import (
        ERRORS,
        WORDS,
        fixed,
        interval,
        plural,
        pvalue,
        read_csv,
        read_json,
        signed,
        tex_text,
        thousands,
        tt,
    )
    folder = results / "ladder"
    config = lambda: read_json(folder / "metadata.json")["config"]   # noqa: E731
    steps = lambda: read_csv(folder / "steps.csv")                   # noqa: E731
    sweep = lambda: read_csv(folder / "sweep.csv")                   # noqa: E731
    m.add("LadderSteps", lambda: len(steps()), str, "adjacent steps of the ladder")
    m.add("LadderHolds", lambda: sum(s["holds"] == "True" for s in steps()), str,
          "steps significant at the ladder's alpha")
    def holds_text() -> str:
        held, n = sum(s["holds"] == "True" for s in steps()), len(steps())
        if n == 0:
            raise ValueError("no ladder steps")
        if held == n:
            return "all " + plural(n, "step") if n > 1 else "its one step"
        return f"{held} of its {plural(n, 'step')}"
    m.add("LadderHoldsText", holds_text, str,
          "'all 6 steps' / '5 of its 6 steps' significant at the ladder's alpha")
    m.add("LadderAlpha", lambda: config()["alpha"], str, "significance level of a ladder step")
    m.add("LadderDeals", lambda: config()["deals"], thousands, "duplicate deals per ladder step")
    m.add("LadderPlayers", lambda: " and ".join(str(n) for n in config()["players"]), str,
          "player counts of the ladder")
    m.add("SweepMinIterations", lambda: min(int(p["iterations"]) for p in sweep()), thousands,
          "smallest ISMCTS budget of the sweep")
    m.add("SweepMaxIterations", lambda: max(int(p["iterations"]) for p in sweep()), thousands,
          "largest ISMCTS budget of the sweep")
    m.add("SweepDeals", lambda: config()["sweep_deals"], thousands,
          "duplicate deals per sweep budget")
    m.add("SweepOpponent", lambda: config()["sweep_opponent"], tex_text, "the sweep's opponent")
    best = lambda: max(sweep(), key=lambda p: float(p["gain"]))      # noqa: E731
    m.add("SweepBestIterations", lambda: int(best()["iterations"]), thousands,
          "budget with the largest gain over the opponent")
    m.add("SweepBestGain", lambda: float(best()["gain"]), fixed(2),
          "its zero-sum gain, points per hand")
    m.add("SweepBestLo", lambda: float(best()["gain_lo"]), fixed(2), "95% low")
    m.add("SweepBestHi", lambda: float(best()["gain_hi"]), fixed(2), "95% high")

    # every step and sweep budget, with its 95% interval, p-value and timing
    def rung(spec: str) -> str:
        """``"pimc(worlds=32, rollouts=1)"`` -> ``"pimc"``."""
        return spec.split("(")[0].strip()

    rung_words = {"random": "Random", "heuristic": "Heuristic", "pimc": "Pimc",
                  "ismcts": "Ismcts"}              # the rungs as they appear in macro names
    ladder_steps = (("random", "heuristic"), ("heuristic", "pimc"), ("pimc", "ismcts"))

    def table(path: Path) -> list[dict]:
        """The rows of the ladder's ``steps.csv`` or ``sweep.csv`` (``python -m experiments
        run ladder``), each with its gain and timing gathered as the macros read them."""
        out = []
        for r in read_csv(path):
            s = {"players": int(r["players"]), "lower": r["lower"], "higher": r["higher"],
                 "deals": int(r["deals"]), "seat_assignments": int(r["seat_assignments"]),
                 "holds": r["holds"] == "True",
                 "payoff_gain_of_higher": {"mean": float(r["gain"]), "lo": float(r["gain_lo"]),
                                           "hi": float(r["gain_hi"]),
                                           "p_value": float(r["p_value"])},
                 "timing": [{"agent": r[role], "seconds": float(r[f"{role}_seconds"]),
                             "decisions": int(r[f"{role}_decisions"]),
                             "ms_per_decision": float(r[f"{role}_ms_per_decision"] or "nan")}
                            for role in ("lower", "higher")]}
            if "iterations" in r:
                s["iterations"] = int(r["iterations"])
            out.append(s)
        return out

    step_table = lambda: table(folder / "steps.csv")                 # noqa: E731
    sweep_table = lambda: sorted(table(folder / "sweep.csv"),        # noqa: E731
                                 key=lambda s: s["iterations"])

    def step(n: int, lower: str, higher: str) -> dict:
        return next(s for s in step_table() if s["players"] == n and rung(s["lower"]) == lower
                    and rung(s["higher"]) == higher)

    def ms(n: int, agent: str) -> float:
        """Mean time per decision of ``agent`` over every ladder step at ``n`` players."""
        t = [t for s in step_table() if s["players"] == n for t in s["timing"]
             if rung(t["agent"]) == agent]
        return 1e3 * sum(x["seconds"] for x in t) / sum(x["decisions"] for x in t)

    def absent(n: int) -> bool:
        """The ladder's results exist and did not run at ``n`` players (the quick
        profile runs 6 only; main.tex quotes 11 under ``\\ifLadderEleven``)."""
        try:
            return n not in {s["players"] for s in step_table()}
        except ERRORS:
            return False                                  # missing results: ??

    for n in (6, 11):
        w = WORDS[n]
        add = m.add if not absent(n) else (
            lambda name, getter, fmt=str, what="", n=n: m.not_run(name, f"{n} players"))
        for lower, higher in ladder_steps:
            name = f"Ladder{w}{rung_words[lower]}{rung_words[higher]}"
            g = lambda n=n, lo=lower, hi=higher: step(n, lo, hi)["payoff_gain_of_higher"]  # noqa: E731
            what = f"{n} players, {lower} -> {higher}: zero-sum gain of {higher}"
            add(f"{name}Gain", lambda g=g: g()["mean"], signed, what + ", points per hand")
            add(f"{name}Lo", lambda g=g: g()["lo"], signed, "95% low")
            add(f"{name}Hi", lambda g=g: g()["hi"], signed, "95% high")
            add(f"{name}P", lambda g=g: g()["p_value"], pvalue, "paired t-test p-value")
        for agent in ("pimc", "ismcts"):
            add(f"Ladder{w}{rung_words[agent]}Ms", lambda n=n, a=agent: ms(n, a), fixed(1),
                f"ms per decision of {agent}, {n} players, over the ladder's games")
    m.flag("LadderEleven", lambda: any(s["players"] == 11 for s in step_table()),
           "the ladder ran at 11 players")
    m.add("LadderSeatingsSix", lambda: step(6, "random", "heuristic")["seat_assignments"], str,
          "seatings per deal at 6 players")
    m.add("LadderRungPimc", lambda: next(r for r in config()["rungs"] if rung(r) == "pimc"), tt,
          "the PIMC rung")
    m.add("LadderRungIsmcts", lambda: next(r for r in config()["rungs"] if rung(r) == "ismcts"),
          tt, "the ISMCTS rung")

    def ladder_row(s: dict) -> str:
        g = s["payoff_gain_of_higher"]
        return (f"{s['players']} & {tt(rung(s['lower']))} $\\to$ {tt(rung(s['higher']))} & "
                f"{s['deals']} $\\times$ {s['seat_assignments']} & {signed(g['mean'])} & "
                f"{interval(g['lo'], g['hi'])} & {pvalue(g['p_value'])}")
    m.add_rows("LadderRows", step_table, ladder_row, "table rows: every ladder step")

    # the ISMCTS budget sweep
    gain = lambda s: s["payoff_gain_of_higher"]                       # noqa: E731
    for key, pick in (("Min", lambda: sweep_table()[0]), ("Max", lambda: sweep_table()[-1])):
        m.add(f"Sweep{key}Gain", lambda p=pick: gain(p())["mean"], signed,
              f"{key.lower()} budget: zero-sum gain over the opponent")
        m.add(f"Sweep{key}Lo", lambda p=pick: gain(p())["lo"], signed, "95% low")
        m.add(f"Sweep{key}Hi", lambda p=pick: gain(p())["hi"], signed, "95% high")
        m.add(f"Sweep{key}P", lambda p=pick: gain(p())["p_value"], pvalue, "p-value")

    def overlap() -> int:
        """The smallest budget from which on every budget's 95% interval
        overlaps the largest budget's."""
        top = gain(sweep_table()[-1])
        ok = [gain(s)["hi"] >= top["lo"] and gain(s)["lo"] <= top["hi"] for s in sweep_table()]
        i = len(ok) - 1
        while i > 0 and ok[i - 1]:
            i -= 1
        return sweep_table()[i]["iterations"]
    m.add("SweepOverlapIterations", overlap, thousands,
          "smallest budget from which on every 95% interval overlaps the largest budget's")
    m.add("SweepFirstSignificant",
          lambda: next(s["iterations"] for s in sweep_table() if gain(s)["lo"] > 0), thousands,
          "smallest budget whose 95% interval lies above 0")
    ms_move = lambda s: next(                                          # noqa: E731
        t for t in s["timing"] if rung(t["agent"]) == "ismcts")["ms_per_decision"]
    m.add("SweepMaxMsPerMove", lambda: ms_move(sweep_table()[-1]), fixed(0),
          "ISMCTS ms per decision at the largest budget (shared machine)")
    m.add("SweepMaxItersPerSecond",
          lambda: thousands(round(sweep_table()[-1]["iterations"] / ms_move(sweep_table()[-1])
                                  * 1e3, -2)), str,
          "ISMCTS iterations per second of decision time at the largest budget")
    m.add("SweepSeatings", lambda: sweep_table()[0]["seat_assignments"], str, "seatings per deal")

    def sweep_row(s: dict) -> str:
        g = gain(s)
        return (f"{thousands(s['iterations'])} & {signed(g['mean'])} & "
                f"{interval(g['lo'], g['hi'])} & {pvalue(g['p_value'])} & "
                f"{ms_move(s):.1f}")
    m.add_rows("SweepRows", sweep_table, sweep_row,
               "table rows: every ISMCTS budget of the sweep")
