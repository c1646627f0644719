"""Cost of the policy-value network: one evaluation per batch size vs one ISMCTS iteration.

On the states of random 6-player hands (decision nodes), the player to move:

* features: :meth:`solvers.net._features.FeatureLayout.sparse` (the observer's
  compiled kernel, scattered to the padded 5-11-player layout), microseconds
  per state, per batch size;
* torch forward (:class:`solvers.net._model.PolicyValueNet`, CPU, ``torch``'s
  threads as set, no grad) with the legal mask, microseconds per state and per
  batch, per batch size (features included);
* the compiled forward pass used by the search (:func:`solvers.net._inference.net_eval`,
  features included), one state at a time;
* one plain ISMCTS iteration (:class:`solvers._ismcts.ISMCTSBot`, random and
  heuristic rollouts) and one network-guided iteration
  (:class:`solvers._ismcts_net.NetISMCTSBot`, ``value_weight`` 1 and 0.5), from
  the mid-hand state, microseconds per iteration.

Medians of ``--repeats`` repeats. The network is untrained (seeded): its cost
does not depend on the weights. ``python -m experiments.bench.net [--hidden 128]
[--blocks 2] [--repeats 5] [--iterations 1000] [--threads 1] [--out DIR]``; prints a table and
writes ``<out>/bench/net.json`` (default ``results/paper``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game

BATCHES = (1, 8, 64, 256, 1024)


def _states(game, hands: int, seed: int):
    rng = np.random.default_rng(seed)
    out, mids = [], []
    for _ in range(hands):
        st = game.new_initial_state()
        k = 0
        while not st.is_terminal():
            if st.is_chance_node():
                o, p = zip(*st.chance_outcomes())
                st.apply_action(int(o[rng.choice(len(o), p=np.asarray(p) / sum(p))]))
                continue
            out.append(np.array(st.engine_state))
            k += 1
            if k == 60:
                mids.append(st.clone())
            st.apply_action(int(rng.choice(st.legal_actions())))
    return np.array(out), mids


def _median_time(fn, repeats: int) -> float:
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main(argv=None) -> dict:
    import torch

    from solvers._ismcts import ISMCTSBot
    from solvers.net._features import FeatureLayout
    from solvers.net._inference import NetEvaluator
    from solvers.net._model import PolicyValueNet, save_checkpoint
    from solvers._ismcts_net import NetISMCTSBot

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--out", default=None,
                    help="results folder, writes OUT/bench/net.json (default: results/paper "
                         "of the working folder, or $CH_RESULTS/paper)")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    layout = FeatureLayout({}, range(5, 12))
    S, mids = _states(game, 12, 1)
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players,
                           hidden=a.hidden, blocks=a.blocks, seed=0).eval()
    ck = Path(tempfile.mkdtemp()) / "bench.npz"
    save_checkpoint(ck, model, layout)
    res = {"hidden": a.hidden, "blocks": a.blocks, "input_size": layout.size,
           "torch_threads": torch.get_num_threads(), "states": len(S), "batches": []}
    for B in BATCHES:
        reps = max(1, min(len(S), 1024) // B)
        rows = [S[(i * B + np.arange(B)) % len(S)] for i in range(reps)]

        def feats(rows=rows):
            for r in rows:
                layout.sparse(game, r)

        def fwd(rows=rows):
            with torch.no_grad():
                for r in rows:
                    i, v, o = layout.sparse(game, r)
                    m = layout.mask(game, r)
                    model(torch.from_numpy(i), torch.from_numpy(v), torch.from_numpy(o),
                          torch.from_numpy(m))
        fwd()
        tf = _median_time(feats, a.repeats) / (reps * B)
        tt = _median_time(fwd, a.repeats) / (reps * B)
        res["batches"].append({"batch": B, "features_us_per_state": 1e6 * tf,
                               "torch_us_per_state": 1e6 * tt,
                               "torch_ms_per_batch": 1e3 * tt * B})
    ev = NetEvaluator(ck)
    block = S[:512]
    ev.evaluate(game, block[:2])
    res["compiled_us_per_state"] = 1e6 * _median_time(lambda: ev.evaluate(game, block),
                                                      a.repeats) / len(block)
    st = mids[0]
    me = st.current_player()
    searches = {"ismcts_random": ISMCTSBot(game, me, 1, iterations=a.iterations),
                "ismcts_heuristic": ISMCTSBot(game, me, 1, iterations=a.iterations,
                                              rollout="heuristic"),
                "ismcts_net_value": NetISMCTSBot(game, me, 1, checkpoint=str(ck),
                                                 iterations=a.iterations),
                "ismcts_net_half_rollout": NetISMCTSBot(game, me, 1, checkpoint=str(ck),
                                                        iterations=a.iterations,
                                                        value_weight=0.5)}
    for name, bot in searches.items():
        bot.search(st)
        res[f"{name}_us_per_iteration"] = 1e6 * _median_time(
            lambda b=bot: b.search(st), a.repeats) / a.iterations
    lines = [f"network hidden {a.hidden}, blocks {a.blocks}, input {layout.size} "
             f"(5-11 players), torch threads {res['torch_threads']}",
             "| batch | features us/state | torch forward us/state | ms/batch |",
             "|---|---|---|---|"]
    for r in res["batches"]:
        lines.append(f"| {r['batch']} | {r['features_us_per_state']:.1f} | "
                     f"{r['torch_us_per_state']:.1f} | {r['torch_ms_per_batch']:.2f} |")
    lines.append(f"compiled net_eval (features included), one state: "
                 f"{res['compiled_us_per_state']:.1f} us")
    for name in searches:
        lines.append(f"{name}: {res[f'{name}_us_per_iteration']:.1f} us per iteration")
    print("\n".join(lines))
    from ..runner import results_root
    out = Path(a.out) if a.out else results_root() / "paper"
    (out / "bench").mkdir(parents=True, exist_ok=True)
    (out / "bench" / "net.json").write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
