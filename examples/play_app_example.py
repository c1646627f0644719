"""Play one seat against agents in the browser (docs/environments.md; run by
tests/experiments/test_play.py).
From the shell: python -m experiments play --agents heuristic "ismcts(iterations=2000)"
--players 6 [--seat 0] [--seed 0] [--port 8000] [--records results/play]"""
from experiments.play import create_app

app = create_app(["heuristic", "ismcts(iterations=200)"],   # cycled over the other seats
                 players=4, seat=0, seed=0,                  # you are P0; seeded deals
                 params={"deck": "custom", "packs": 1, "moon": "choose"},
                 out="results/play")                         # records: game-<id>.json
if __name__ == "__main__":
    app.run(port=8000)                                       # open http://127.0.0.1:8000/
