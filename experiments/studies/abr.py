"""Approximate best response: lower bounds on the agents' exploitability.

For each target agent (``targets``: registry specs) and player count
(``players``), every deal is played twice on the same cards
(:func:`experiments.tournament.play_deal`, duplicate deals, deal ``d`` depends
only on ``(seed, d)``): once with every seat playing the target (the
*baseline*), and once per seat assignment with one seat played by the ABR
(:class:`solvers.abr.ABRBot`, ``abr(target=..., <abr_params>)``; the
assignments rotate the ABR over the seats: every seat, or ``rotations`` evenly
spaced ones). Per deal, ``gain`` = the mean over those seats of (the target's
points per hand in that seat in the baseline) - (the ABR's points per hand in
that seat): points are penalties, so a positive gain means the ABR did better.
The mean gain over deals with its 95% Student t interval (paired by deal,
:func:`experiments.stats.mean_ci`) estimates a **lower bound** on a seat's
best-response gain against everyone-plays-the-target, in points per hand
(the game's utility is minus the points). Targets without a compiled twin
(ISMCTS) use the ABR's Python path with ``abr_params_python``.

Validation (``exact_presets``): on reduced decks the same comparison is exact
(:func:`solvers.abr.exact_gains`): the exact best-response gain, the ABR's
exact gain for ``exact_seeds`` seeds of its own randomness, and their gap, per
seat, for each target of ``exact_targets``.

Rows: ``kind == "deal"`` (target, players, deal, seat, abr_points,
target_points, gain), ``kind == "exact"`` (preset, target, seed, seat, values
of :func:`solvers.abr.exact_gains`). Tables: ``gains`` (per target and player
count) and ``exact`` (per preset and target: mean over seats and seeds, the gap
with its interval over seeds). Part of ``make reproduce`` (the quick profile:
the heuristic at 6 players on 2 deals, the exact check on ``micro_pass``;
about 10 s on one core) and of the paper (Section "How exploitable are the
agents?": :func:`paper_macros`, every number and both tables under
``\\ifAbr``, so the paper builds while the paper profile's results are
absent). ISMCTS as a target is in the dataclass defaults but in neither
profile: its Python path takes minutes per deal.

**Any responder gives a lower bound.** ``responder`` (an agent spec; empty:
the ABR) replaces the ABR in the deviating seat. The bound stays valid
whatever plays there, since a best response does at least as well as any
strategy. The study ``abr_search`` (same units, rows and tables, its own
profiles) uses it against ISMCTS, where the Python-path ABR is weaker than
the target itself (README): the responder is ISMCTS with a much larger budget
(the paper profile: 3,000 iterations against ISMCTS with 100), compiled, so
that a deal takes seconds. Such a responder does not use the target's policy:
its gain is a lower bound on ISMCTS's exploitability that comes from the
target's limited search, not from knowing it. The ``responder`` column of
``gains`` names what played.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import spiel_game

from ..config import check_names, check_unit_count
from ..registry import Summary, Unit, register
from ..stats import mean_ci

__all__ = ["ABRStudyConfig", "PROFILES", "abr_spec", "units", "run_unit", "summarize",
           "paper_macros"]


@dataclasses.dataclass(frozen=True)
class ABRStudyConfig:
    """See the module docstring. ``abr_params`` / ``abr_params_python``: the
    ABR's keyword parameters (``key=value, ...``) for compiled targets / the
    others; ``rotations``: ABR seats per deal (None: every seat)."""

    seed: int = 0
    targets: tuple[str, ...] = ("heuristic", "ismcts(iterations=100, rollout='heuristic')")
    players: tuple[int, ...] = (6, 11)
    deals: int = 20
    deals_per_unit: int = 5
    rotations: int | None = None
    abr_params: str = "worlds=16"
    abr_params_python: str = "worlds=4, horizon=12"
    exact_presets: tuple[str, ...] = ("micro_pass", "micro3", "small", "small3")
    exact_targets: tuple[str, ...] = ("heuristic",)
    exact_abr_params: str = "worlds=16"
    exact_seeds: int = 3
    responder: str = ""

    def __post_init__(self):
        for name in ("deals", "deals_per_unit", "exact_seeds"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"abr: {name} must be an int >= 1, got {getattr(self, name)!r}")
        check_unit_count(len(self.targets) * len(self.players)
                         * -(-self.deals // self.deals_per_unit),
                         f"abr: deals={self.deals}, deals_per_unit={self.deals_per_unit}")
        for n in self.players:
            if not isinstance(n, int) or not 5 <= n <= 11:
                raise ValueError(f"abr: players {n!r} is not allowed; allowed: ints 5..11")
        check_names("preset", self.exact_presets, sorted(spiel_game.PRESETS))
        if not isinstance(self.responder, str):
            raise ValueError(f"abr: responder must be an agent spec (a str), got "
                             f"{self.responder!r}")


#: The paper's targets: the heuristic and the passing conventions of the
#: 11-player metagame (:data:`experiments.studies.passing_metagame.QUICK_11_CONVENTIONS`).
PAPER_TARGETS = ("heuristic",) + tuple(f"convention(passing={c!r})"
                                       for c in ("dump_points", "void_short", "low", "expert"))

PROFILES = {
    # Seconds, for make reproduce: the heuristic at 6 players, 2 duplicate deals x
    # 1 ABR seat with 2 worlds; the exact check on micro_pass, one seed. (The
    # dataclass defaults, with ISMCTS(100) as a target, take many minutes.)
    "quick": ABRStudyConfig(targets=("heuristic",), players=(6,), deals=2, deals_per_unit=2,
                            rotations=1, abr_params="worlds=2", exact_presets=("micro_pass",),
                            exact_seeds=1),
    # The paper: the heuristic and four passing conventions (compiled targets,
    # one-step lookahead playouts), 30 duplicate deals x 2 ABR seats at 6 and 11
    # players; exact validation on the two reduced decks with passing.
    # ISMCTS as a target (the Python path, minutes per deal) is measured
    # separately (README).
    "paper": ABRStudyConfig(targets=PAPER_TARGETS, deals=30, rotations=2,
                            abr_params="worlds=8", exact_presets=("micro_pass", "micro3"),
                            exact_targets=PAPER_TARGETS, exact_seeds=3),
}


def abr_spec(config: ABRStudyConfig, target: str) -> str:
    """The deviating seat's agent spec against ``target``: ``config.responder`` when
    set, else the ABR with the parameters for ``target``'s path."""
    from solvers.abr import target_code
    if config.responder.strip():
        return config.responder.strip()
    params = config.abr_params if target_code(target) is not None else config.abr_params_python
    params = params.strip()
    return f"abr(target={target!r}{', ' + params if params else ''})"


def _check(config: ABRStudyConfig) -> None:
    """Build every target and ABR once (a bad spec fails before anything runs)."""
    from solvers.registry import make_agent
    for n in config.players:
        game = spiel_game.load(players=n)
        for t in config.targets:
            make_agent(t, game, 0, 0)
            make_agent(abr_spec(config, t), game, 0, 0)


def units(config: ABRStudyConfig) -> list[dict]:
    """One unit per (target, players, block of deals) and per (preset, target, seed)."""
    _check(config)
    out = [{"kind": "deal", "target": t, "players": n, "first_deal": f,
            "deals": min(config.deals_per_unit, config.deals - f)}
           for t in config.targets for n in config.players
           for f in range(0, config.deals, config.deals_per_unit)]
    out += [{"kind": "exact", "preset": p, "target": t, "seed": s}
            for p in config.exact_presets for t in config.exact_targets
            for s in range(config.exact_seeds)]
    return out


def run_unit(config: ABRStudyConfig, unit: Unit) -> list[dict]:
    """The rows of one unit (module docstring)."""
    u = unit.params
    if u["kind"] == "exact":
        from solvers.abr import exact_gains
        rows = exact_gains(spiel_game.load(u["preset"]), u["target"],
                           f"abr({config.exact_abr_params})", seed=u["seed"])
        return [{"kind": "exact", "preset": u["preset"], "target": u["target"],
                 "seed": u["seed"], **r} for r in rows]
    from ..tournament import TournamentConfig, play_deal
    n, target = u["players"], u["target"]
    game = spiel_game.load(players=n)
    base = TournamentConfig(agents=(target,), game={"players": n}, deals=1, seed=config.seed)
    lineup = (1,) + (0,) * (n - 1)
    dev = TournamentConfig(agents=(target, abr_spec(config, target)), game={"players": n},
                           deals=1, seed=config.seed, lineup=lineup,
                           rotations=config.rotations)
    rows = []
    for d in range(u["first_deal"], u["first_deal"] + u["deals"]):
        b = play_deal(base, d, game)
        r = play_deal(dev, d, game)
        t = r["timing"]
        ms = 1e3 * t["seconds"][1] / max(1, t["decisions"][1])
        for assign, pts in zip(r["assignments"], r["points"]):
            q = list(assign).index(1)
            rows.append({"kind": "deal", "target": target, "players": n, "deal": d, "seat": q,
                         "abr_points": pts[q], "target_points": b["points"][0][q],
                         "gain": b["points"][0][q] - pts[q], "abr_ms_per_decision": ms,
                         "responder": abr_spec(config, target)})
    return rows


def summarize(config: ABRStudyConfig, rows) -> Summary:
    """Tables ``gains`` and ``exact`` and a text summary (module docstring)."""
    import pandas as pd
    gains, exact, lines = [], [], []
    deals = rows[rows.kind == "deal"] if len(rows) else rows.iloc[0:0]
    if "gain" not in deals:
        deals = pd.DataFrame(columns=["target", "players", "deal", "gain"])
    for (target, n), g in deals.groupby(["target", "players"], sort=False):
        per = g.groupby("deal")["gain"].mean().to_numpy()
        ci = mean_ci(per)
        gains.append({"target": target, "players": int(n), "deals": len(per),
                      "seats_per_deal": int(g.groupby("deal").size().iloc[0]),
                      "gain": ci["mean"], "gain_lo": ci["lo"], "gain_hi": ci["hi"],
                      "target_points": float(g.target_points.mean()),
                      "abr_points": float(g.abr_points.mean()),
                      "abr_ms_per_decision": float(g.abr_ms_per_decision.mean()),
                      "responder": (g.responder.iloc[0] if "responder" in g
                                    else abr_spec(config, target))})
        who = "responder" if config.responder.strip() else "ABR"
        lines.append(f"{target} at {int(n)} players: {who} gain {ci['mean']:+.2f} "
                     f"[{ci['lo']:+.2f}, {ci['hi']:+.2f}] points per hand over {len(per)} deals")
    ex = rows[rows.kind == "exact"] if len(rows) else rows.iloc[0:0]
    if "preset" not in ex:
        ex = pd.DataFrame(columns=["preset", "target", "seed", "br_gain", "abr_gain", "gap"])
    for (preset, target), g in ex.groupby(["preset", "target"], sort=False):
        per_seed = g.groupby("seed")[["br_gain", "abr_gain", "gap"]].mean()
        ci = mean_ci(per_seed["gap"].to_numpy())
        gi = mean_ci(per_seed["abr_gain"].to_numpy())
        exact.append({"preset": preset, "target": target, "seeds": len(per_seed),
                      "br_gain": float(per_seed["br_gain"].mean()),
                      "abr_gain": gi["mean"], "abr_gain_lo": gi["lo"], "abr_gain_hi": gi["hi"],
                      "gap": ci["mean"], "gap_lo": ci["lo"], "gap_hi": ci["hi"]})
        lines.append(f"{preset}, {target}: exact BR gain {per_seed['br_gain'].mean():.3f}, "
                     f"ABR gain {gi['mean']:.3f}, gap {ci['mean']:.3f} "
                     f"[{ci['lo']:.3f}, {ci['hi']:.3f}] (mean over seats; {len(per_seed)} seeds)")
    return Summary(tables={"gains": pd.DataFrame(gains), "exact": pd.DataFrame(exact)},
                   text="\n".join(lines))


register("abr", ABRStudyConfig, units, run_unit, summarize, profiles=PROFILES,
         description="approximate best response: lower bounds on the agents' exploitability",
         reproduce=True)

#: ISMCTS as the target, whose Python-path ABR is too slow and too weak to bound
#: its exploitability: the responder is a larger ISMCTS (module docstring).
ISMCTS_TARGET = "ismcts(iterations=100, rollout='heuristic')"
ISMCTS_RESPONDER = "ismcts(iterations=3000, rollout='heuristic')"
SEARCH_PROFILES = {
    # Seconds: ISMCTS(30) against ISMCTS(300) at 6 players, 2 deals x 1 seat.
    "quick": ABRStudyConfig(targets=("ismcts(iterations=30, rollout='heuristic')",),
                            responder="ismcts(iterations=300, rollout='heuristic')",
                            players=(6,), deals=2, deals_per_unit=2, rotations=1,
                            exact_presets=()),
    # The paper: ISMCTS(100) against ISMCTS(3000), 6 and 11 players, 2 seats per deal.
    "paper": ABRStudyConfig(targets=(ISMCTS_TARGET,), responder=ISMCTS_RESPONDER,
                            deals=120, deals_per_unit=10, rotations=2, exact_presets=()),
}
register("abr_search", ABRStudyConfig, units, run_unit, summarize, profiles=SEARCH_PROFILES,
         description="a lower bound on ISMCTS's exploitability from a larger search in one "
                     "seat", reproduce=True)


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
    """The paper's numbers from ``abr/`` (:mod:`experiments.macros`): the run's size
    (deals, ABR seats per deal, worlds, exact seeds), per player count the ABR's
    gain over the heuristic with its 95% interval, points and time per decision;
    over the passing conventions (under ``\\ifAbrConventions``) the largest and
    smallest gain and how many intervals lie above zero; the exact validation
    (per reduced deal, named by its player count, under ``\\ifAbrExact<Count>``:
    the heuristic's exact best-response gain, the ABR's and the gap; over every
    preset and target the largest gap and the smallest share of the exact gain the
    ABR reaches); and the rows of the two tables. Everything is under
    ``\\ifAbr`` (results present), ``\\ifAbrEleven`` (11 players run)."""

    from ..macros import (WORDS, fixed, interval, names, read_csv, read_json, signed,
                          thousands, tt)
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

    from ..macros import WORDS, read_csv, read_json, signed, thousands
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
