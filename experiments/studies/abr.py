"""Approximate best response: lower bounds on the agents' exploitability.

For each target agent (``targets``: registry specs) and player count
(``players``), every deal is played twice on the same cards
(:func:`experiments.tournament.play_deal`, duplicate deals, deal ``d`` depends
only on ``(seed, d)``): once with every seat playing the target (the
*baseline*), and once per seat assignment with one seat played by the ABR
(:class:`solvers._abr.ABRBot`, ``abr(target=..., <abr_params>)``; the
assignments rotate the ABR over the seats: every seat, or ``rotations`` evenly
spaced ones). Per deal, ``gain`` = the mean over those seats of (the target's
points per hand in that seat in the baseline) - (the ABR's points per hand in
that seat): points are penalties, so a positive gain means the ABR did better.
The mean gain over deals with its 95% Student t interval (paired by deal,
:func:`experiments._base.stats.mean_ci`) estimates a **lower bound** on a seat's
best-response gain against everyone-plays-the-target, in points per hand
(the game's utility is minus the points). Targets without a compiled twin
(ISMCTS) use the ABR's Python path with ``abr_params_python``.

Validation (``exact_presets``): on reduced decks the same comparison is exact
(:func:`solvers._abr.exact_gains`): the exact best-response gain, the ABR's
exact gain for ``exact_seeds`` seeds of its own randomness, and their gap, per
seat, for each target of ``exact_targets``.

Rows: ``kind == "deal"`` (target, players, deal, seat, abr_points,
target_points, gain), ``kind == "exact"`` (preset, target, seed, seat, values
of :func:`solvers._abr.exact_gains`). Tables: ``gains`` (per target and player
count) and ``exact`` (per preset and target: mean over seats and seeds, the gap
with its interval over seeds). Part of ``make reproduce`` (the quick profile:
the heuristic at 6 players on 2 deals, the exact check on ``micro_pass``;
about 10 s on one core) and of the paper (Section "How exploitable are the
agents?": every number and both tables, written by ``paper/tools/texmacros/studies/abr.py``, under
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

import spiel_game

from .._base.config import check_names, check_unit_count
from .._base.registry import Summary, Unit, register
from .._base.stats import mean_ci

__all__ = ["ABRStudyConfig", "PROFILES", "abr_spec", "units", "run_unit", "summarize"]


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
    from solvers._abr import target_code
    if config.responder.strip():
        return config.responder.strip()
    params = config.abr_params if target_code(target) is not None else config.abr_params_python
    params = params.strip()
    return f"abr(target={target!r}{', ' + params if params else ''})"


def _check(config: ABRStudyConfig) -> None:
    """Build every target and ABR once (a bad spec fails before anything runs)."""
    from solvers._registry import make_agent
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
        from solvers._abr import exact_gains
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
