"""Old against new: the compiled hot paths of two checkouts, side by side.

``python -m experiments.bench.compare OLD_CHECKOUT [NEW_CHECKOUT] [--rounds 3]``
(``git worktree add /tmp/old <commit>`` makes an old checkout; NEW defaults to
the working folder, a checkout's top). Each round runs one fresh process per
checkout, alternating, with the checkout as its working directory and first on
``sys.path``, so each measures its own code with its own numba cache; the
first round of each is a warm-up (compilation) and is not counted. Measured through the public API
only (so any commit since the pyspiel adapter and the agent registry
existed can be the old one):

* ``resample_me`` / ``resample_other``: median microseconds per
  ``state.resample_from_infostate`` at 6 players, mid-hand (45 cards played),
  for the player to move and for the next seat (300 per repeat, 7 repeats);
* ``ismcts``: median iterations per second of
  ``ismcts(iterations=2000, rollout='heuristic')`` at the first play decision
  of a 6-player hand (5 searches).

Prints each round and the medians over rounds with the ratio new/old (a
ratio above 1 means new is faster for ``ismcts``, slower for the resample
times). Noise on a shared machine is large: run it idle and trust only
differences that hold in every round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

KEYS = ("resample_me", "resample_other", "ismcts")


def _child() -> None:
    sys.path.insert(0, os.getcwd())
    import time

    import numpy as np
    import pyspiel

    import spiel_game  # noqa: F401  (registers the game)
    from solvers._registry import make_agent

    game = pyspiel.load_game("python_cancellation_hearts", {"players": 6})

    def state_after(seed: int, n_played: int):
        """Random play (6 players: 102 dealt cards, 18 passed) up to ``n_played`` cards played."""
        rng = np.random.default_rng(seed)
        st = game.new_initial_state()
        played = 0
        while not st.is_terminal():
            if st.is_chance_node():
                o, p = zip(*st.chance_outcomes())
                st.apply_action(int(o[rng.choice(len(o), p=np.asarray(p))]))
                continue
            if len(st.history()) >= 102 + 18:
                if played >= n_played:
                    break
                played += 1
            la = st.legal_actions()
            st.apply_action(int(la[rng.integers(len(la))]))
        return st

    out = {k: [] for k in KEYS}
    st = state_after(1, 45)
    me = st.current_player()
    rng = np.random.default_rng(0)
    for _ in range(50):
        st.resample_from_infostate(me, rng)
    for _ in range(7):
        for key, who in (("resample_me", me), ("resample_other", (me + 1) % 6)):
            t = time.perf_counter()
            for _ in range(300):
                st.resample_from_infostate(who, rng)
            out[key].append((time.perf_counter() - t) / 300 * 1e6)
    st = state_after(2, 0)
    bot = make_agent("ismcts(iterations=2000, rollout='heuristic')", game, st.current_player(), 5)
    bot.step(st)
    for _ in range(5):
        bot.restart()
        t = time.perf_counter()
        bot.step(st)
        out["ismcts"].append(2000 / (time.perf_counter() - t))
    print(json.dumps({k: statistics.median(v) for k, v in out.items()}))


def measure(checkout: Path) -> dict:
    """One fresh process in ``checkout``: the medians of :data:`KEYS`."""
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child"],
                       cwd=checkout, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"measuring {checkout} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.compare",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the old checkout (a folder with spiel_game/ and solvers/)")
    ap.add_argument("new", nargs="?", default=".",
                    help="the new checkout (default: the working folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    if argv is None and "--child" in sys.argv:
        _child()
        return 0
    args = ap.parse_args(argv)
    sides = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    for path in sides.values():
        if not (path / "spiel_game").is_dir() or not (path / "solvers").is_dir():
            ap.error(f"{path} is not a checkout of this project (no spiel_game/ and solvers/)")
    for side, path in sides.items():                    # warm-up: numba compiles here
        print(f"warm-up {side} ({path})", flush=True)
        measure(path)
    got = {side: [] for side in sides}
    for i in range(args.rounds):
        for side, path in sides.items():
            got[side].append(measure(path))
            print(f"round {i + 1} {side}: " + ", ".join(
                f"{k} {got[side][-1][k]:,.1f}" for k in KEYS), flush=True)
    print("\n| figure | old | new | new/old |\n|---|---|---|---|")
    for k in KEYS:
        o = statistics.median(r[k] for r in got["old"])
        n = statistics.median(r[k] for r in got["new"])
        print(f"| {k} | {o:,.1f} | {n:,.1f} | {n / o:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
