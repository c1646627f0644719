"""Calibration of the xinxin sweep: CPU milliseconds per decision of xinxin
against its simulation count (30 worlds), and of our ISMCTS against its CPU
time limit, in the classic game, with and without passing.

``python research/xinxin_sweep/calibrate.py [--out FILE]`` pins this process
to one core and the xinxin driver to another (``experiments.tournament.pin_cores``)
and plays short duplicate tournaments (``experiments.tournament.play_deal``, no
results folder) of each setting against the heuristic on calibration seeds
(``CAL_SEED``, never used by the sweep), recording each agent's CPU ms per
decision (its thread's time plus the driver's process time). Prints a table and
writes it as JSON (default ``research/xinxin_sweep/calibration.json``).

``--pairs B:S ...`` instead measures match conditions: our
``ismcts(time_limit=B)`` against ``xinxin(simulations=S)`` in the sweep's own
duplicate format (two seats each, both seatings) on ``MATCH_SEED`` (never used
by a sweep), and reports both sides' CPU ms per decision and their ratio. The
first sweep's finished cells showed that xinxin's CPU per simulation in these
matches is lower than against the heuristic; the second declaration's counts
come from match conditions (``calibration_matches.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import spiel_game  # noqa: E402
from experiments import tournament as T  # noqa: E402

CAL_SEED = 2026120499          # calibration only; the sweep's seeds are other
MATCH_SEED = 2026120699        # match-condition calibration only
BASE = {"players": 4, "deck": "classic", "packs": 1, "moon": "both"}
GAMES = {"nopass": {**BASE, "pass_count": 0}, "pass": dict(BASE)}
DEFAULT_OUT = str(ROOT / "research" / "xinxin_sweep" / "calibration.json")
SIMULATIONS = (300, 1000, 3000, 10_000, 30_000, 100_000)
TIME_LIMITS = (0.005, 0.020, 0.080, 0.300)


def cpu_ms(agent: str, game: dict, deals: int) -> dict:
    cfg = T.TournamentConfig(agents=(agent, "heuristic"), game=game, deals=deals,
                             seed=CAL_SEED, rotations=1)
    g = spiel_game.load(cfg.game_params)
    recs = [T.play_deal(cfg, d, g) for d in range(deals)]
    t = T.summarize(cfg, recs)["timing"][0]
    return {"agent": agent, "decisions": t["decisions"],
            "cpu_ms_per_decision": t["cpu_ms_per_decision"],
            "ms_per_decision": t["ms_per_decision"]}


def match_cpu(budget: float, sims: int, game: dict, deals: int) -> dict:
    """Both sides' CPU ms per decision in ``deals`` duplicate deals of
    ``ismcts(time_limit=budget)`` against ``xinxin(simulations=sims)``."""
    ours = f"ismcts(time_limit={budget}, clock='cpu', rollout='heuristic')"
    cfg = T.TournamentConfig(agents=(ours, f"xinxin(simulations={sims}, worlds=30)"),
                             game=game, deals=deals, seed=MATCH_SEED)
    g = spiel_game.load(cfg.game_params)
    recs = [T.play_deal(cfg, d, g) for d in range(deals)]
    t = T.summarize(cfg, recs)["timing"]
    return {"budget_s": budget, "simulations": sims, "decisions": t[1]["decisions"],
            "cpu_ms_ours": t[0]["cpu_ms_per_decision"],
            "cpu_ms_xinxin": t[1]["cpu_ms_per_decision"],
            "cpu_ratio": t[1]["cpu_ms_per_decision"] / t[0]["cpu_ms_per_decision"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--simulations", type=int, nargs="+", default=SIMULATIONS,
                    help="xinxin settings to measure (both variants)")
    ap.add_argument("--time-limits", type=float, nargs="*", default=TIME_LIMITS,
                    help="our CPU time limits to measure (seconds, both variants)")
    ap.add_argument("--variants", nargs="+", default=list(GAMES), choices=list(GAMES))
    ap.add_argument("--pairs", nargs="+", metavar="B:S",
                    help="match conditions: our CPU budget B (seconds) against xinxin with "
                         "S simulations, per variant (writes calibration_matches.json)")
    args = ap.parse_args(argv)
    cores = T.pin_cores()
    rows = []
    t0 = time.time()
    if args.pairs:
        for variant in args.variants:
            for pair in args.pairs:
                b, sims = pair.split(":")
                r = match_cpu(float(b), int(sims), GAMES[variant], args.deals)
                rows.append({"variant": variant, **r})
                print(json.dumps(rows[-1]), flush=True)
        out = Path(args.out if args.out != DEFAULT_OUT else
                   ROOT / "research" / "xinxin_sweep" / "calibration_matches.json")
        prev = json.loads(out.read_text())["rows"] if out.exists() else []
        out.write_text(json.dumps({"pinned": cores, "seed": MATCH_SEED, "deals": args.deals,
                                   "rows": prev + rows}, indent=1) + "\n")
        return 0
    for variant in args.variants:
        game = GAMES[variant]
        for sims in args.simulations:
            r = cpu_ms(f"xinxin(simulations={sims}, worlds=30)", game, args.deals)
            rows.append({"variant": variant, "side": "xinxin", "setting": sims, **r})
            print(json.dumps(rows[-1]), flush=True)
        for tl in args.time_limits:
            r = cpu_ms(f"ismcts(time_limit={tl}, clock='cpu', rollout='heuristic')", game,
                       args.deals)
            rows.append({"variant": variant, "side": "ours", "setting": tl, **r})
            print(json.dumps(rows[-1]), flush=True)
    fits = {}
    for variant in args.variants:
        xs = [(r["setting"], r["cpu_ms_per_decision"]) for r in rows
              if r["variant"] == variant and r["side"] == "xinxin"]
        if len(xs) < 2:
            continue
        b, a = np.polyfit([x for x, _ in xs], [y for _, y in xs], 1)
        fits[variant] = {"ms_at_0": float(a), "ms_per_simulation": float(b)}
    out = {"pinned": cores, "seed": CAL_SEED, "deals": args.deals, "rows": rows,
           "linear_fit": fits, "seconds": time.time() - t0}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(fits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
