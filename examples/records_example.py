"""Game records (docs/environments.md; run by tests/experiments/test_tournament_records.py)."""
from experiments.tournament import TournamentConfig, run_tournament
from spiel_game.records import imitation_pairs, read_records, replay

cfg = TournamentConfig(agents=("heuristic", "random"), game={"players": 5}, deals=2, seed=0)
run_tournament(cfg, "results/tournaments/demo", records="results/tournaments/demo/games.jsonl")
games = read_records("results/tournaments/demo/games.jsonl")  # checked: format, version, fields
state = replay(games[0])               # a pyspiel state; every action and the result checked
print(len(games), games[0].agents, games[0].returns, state.returns())
X, y, legal, seat = imitation_pairs(games, agent="heuristic")  # info-state tensors, actions
print(X.shape, y.shape)                # the play app writes the same records: game-<id>.json
