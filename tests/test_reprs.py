"""Short, readable reprs for the big objects.

The dataclass / named-tuple defaults printed every array (``print(tree)`` of a
game tree ran to tens of kilobytes, a tournament printed every record); each
repr is now one line of sizes and the facts a reader looks for first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyspiel

import spiel_game
from experiments.runner import RunResult
from experiments.tournament import TournamentConfig, TournamentResult, summarize
from solvers.cfr._tree import build_tree
from solvers._ismcts import new_tree
from spiel_game._determinize import Determinizer
from spiel_game._hidden import hidden_cards
from spiel_game._playout import cards_played, play_random
from spiel_game._sampler import build_problem
from spiel_game._simulator import simulate

LIMIT = 300     # characters: one readable line


def test_game_tree_repr_is_one_line_of_sizes():
    tree = build_tree(pyspiel.load_game("leduc_poker"))
    text = repr(tree)
    assert len(text) <= LIMIT and "\n" not in text and "array" not in text
    assert text.startswith("GameTree(2 players, 9,457 histories")
    for fact in (f"{tree.num_decision_nodes:,} decision", f"{tree.num_terminals:,} terminal",
                 f"{tree.num_infosets:,} information sets", f"{tree.num_sequences:,} sequences",
                 f"depth {tree.depth}", "MiB", "game=leduc_poker"):
        assert fact in text, (fact, text)
    assert str(tree) == text


def test_simulation_result_repr_does_not_grow_with_the_games():
    res = simulate({"players": 5}, 3000, "uniform", seed=4, workers=1, record=True)
    text = repr(res)
    assert len(text) <= LIMIT and "\n" not in text
    assert text.startswith("SimulationResult(3,000 games, seed=4, mean points [")
    assert "trace recorded" in text and res.rules.describe() in text
    mean = np.round(res.points.mean(axis=0), 2).tolist()
    assert str(mean) in text


def test_tournament_result_repr_does_not_list_the_records():
    cfg = TournamentConfig(agents=("random", "heuristic"), game={"players": 6}, deals=4,
                           seed=2)
    records = [{"deal": d, "assignments": [[0, 1, 0, 1, 0, 1]],
                "points": [[d, 0, 1, 2, 3, 4]], "hands": [1],
                "timing": {"seconds": [0.5, 0.25], "decisions": [10, 10]}}
               for d in range(4)]
    res = TournamentResult(cfg, records * 500, summarize(cfg, records), Path("out/t"))
    text = repr(res)
    assert len(text) <= LIMIT and "\n" not in text
    assert text.startswith("TournamentResult(agents=['random', 'heuristic'], deals=2000")
    agents = res.summary["agents"]
    for a in agents:
        assert f"{a['agent']}: {a['zero_sum_payoff']['mean']:+.3f}" in text
    assert "path='out/t'" in text


def test_hidden_problem_repr_leaves_out_the_binomial_table():
    game = spiel_game.load(players=6)
    st = play_random(game, np.random.default_rng(5), until=cards_played(30))
    me = st.current_player()
    hc = hidden_cards(st.engine_params, st.engine_state, me)
    pr = build_problem(hc.pool, hc.sizes, hc.forbid, hc.weights)
    text = repr(pr)
    assert len(text) <= LIMIT and "\n" not in text and "array" not in text
    assert text.startswith(f"HiddenProblem({len(hc.seats)} holders (")
    assert f"{int(hc.pool.sum())} cards in " in text and f"use_table={pr.use_table}" in text


def test_determinization_and_search_tree_reprs_are_one_line():
    game = spiel_game.load(deck="kitty", players=7)
    st = play_random(game, np.random.default_rng(3), until=cards_played(14))
    det = Determinizer(st, st.current_player()).record
    text = repr(det)
    assert len(text) <= 2 * LIMIT and "\n" not in text and "array" not in text
    seats = [int(q) for q in det.seats]
    assert text.startswith(f"Determinization(holders {seats} (-1: kitty), passing=False")
    assert repr(det.problem) in text
    tree = new_tree(1 << 16)
    tree.size[0] = 3
    tree.visits[0] = 2.0
    assert repr(tree) == "Tree(3 nodes of 65,536, root visits 2)"


def test_run_result_repr_names_the_run_not_its_rows():
    rows = pd.DataFrame({"hand": np.arange(50_000), "points": np.zeros(50_000)})
    res = RunResult(name="demo", profile="quick", path=Path("results/quick/demo"), config=None,
                    rows=rows, tables={"summary": rows.head(3), "seats": rows.head(2)},
                    text="x" * 10_000, metadata={"git_commit": "abc"})
    text = repr(res)
    assert len(text) <= LIMIT and "\n" not in text
    assert text == ("RunResult('demo', profile='quick', path='results/quick/demo', "
                    "rows=50000, tables=['seats', 'summary'])")
