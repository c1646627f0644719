"""Speed figure: information-state tensor of a mid-hand state, side by side.

Ours: ``observer.set_from(state, player)`` (the buffer researchers feed to a
network) and pyspiel's ``state.information_state_tensor(player)`` (a Python
list through C++) on a mid-hand 6-player state; anchor: OpenSpiel's C++
``hearts`` ``information_state_tensor()`` called from Python on a mid-hand
state. Goal: ours at least 5x faster. ``python -m experiments.bench.observers [--quick]``.
"""

from __future__ import annotations

import statistics

import numpy as np
import pyspiel

import spiel_game
from spiel_game import _engine as E

from .engine import bench_cli, seconds_per_call



def _mid_hand(game, seed, played_target):
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    n_played = 0
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(rng.choice(acts, p=probs)))
            continue
        if n_played >= played_target and not st.is_chance_node():
            break
        la = st.legal_actions()
        st.apply_action(la[int(rng.integers(len(la)))])
        n_played += 1
    return st


def run(repeats: int = 7, number: int = 3000, seed: int = 0) -> dict:
    ours = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    o_st = _mid_hand(ours, seed, 24 + 51)          # passes, then half the cards
    cpp = pyspiel.load_game("hearts")
    c_st = _mid_hand(cpp, seed, 12 + 26)
    p = o_st.current_player()
    obs = ours.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    rows = {"observer": [], "pyspiel_ours": [], "cpp_hearts": []}
    for _ in range(repeats):
        rows["observer"].append(seconds_per_call(lambda: obs.set_from(o_st, p), number))
        rows["pyspiel_ours"].append(seconds_per_call(lambda: o_st.information_state_tensor(p),
                                                     number // 10))
        rows["cpp_hearts"].append(seconds_per_call(lambda: c_st.information_state_tensor(
            c_st.current_player()), number // 10))
    med = {k: statistics.median(v) * 1e6 for k, v in rows.items()}
    return {"median_us": med,
            "tensor_sizes": {"ours": int(obs.tensor.size),
                             "cpp_hearts": int(cpp.information_state_tensor_size())},
            "speedup_observer_vs_cpp": statistics.median(
                [c / o for c, o in zip(rows["cpp_hearts"], rows["observer"])]),
            "speedup_pyspiel_path_vs_cpp": statistics.median(
                [c / o for c, o in zip(rows["cpp_hearts"], rows["pyspiel_ours"])]),
            "engine_played": int(o_st.engine_state[E.S_NPLAYED])}


def table(res: dict) -> str:
    m = res["median_us"]
    return "\n".join([
        "| information-state tensor, mid-hand | time | anchor: C++ `hearts` from Python "
        "| ratio | goal |",
        "|---|---|---|---|---|",
        f"| ours, `observer.set_from` ({res['tensor_sizes']['ours']} floats) "
        f"| {m['observer']:.2f} us | "
        f"{m['cpp_hearts']:.2f} us ({res['tensor_sizes']['cpp_hearts']} floats) | "
        f"{res['speedup_observer_vs_cpp']:.1f}x | >= 5x |",
        f"| ours, pyspiel `state.information_state_tensor(p)` | {m['pyspiel_ours']:.2f} us | "
        f"{m['cpp_hearts']:.2f} us | {res['speedup_pyspiel_path_vs_cpp']:.2f}x | (for reference) |",
    ])


def main(argv=None) -> int:
    return bench_cli("python -m experiments.bench.observers", run, table, "observers", argv)


if __name__ == "__main__":
    raise SystemExit(main())
