"""A learned card-location model: data, training and what it knows.

Inference by replaying the others' plays under an opponent model
(:mod:`solvers.beliefs._replay`) costs a replay per world. A *card-location model*
(Solinas, Rebstock and Buro 2019, for Skat) instead predicts, from the
observer's information state, where the hidden cards lie, once per decision;
:mod:`solvers.beliefs._location` turns that prediction into a tilt of the exact
constrained prior (:class:`solvers.beliefs._location.LocationModel`). This script
makes its data, trains it and measures it:

``collect``: play ``--hands`` hands with every seat the agent ``--agent`` (a
registry spec; default ISMCTS at 5 ms per move with heuristic rollouts, the
field of the 5 ms oracle runs) and record, at every play-phase decision with
more than one legal action, the engine state and the player to move (the
observer). Writes an ``.npz`` with ``states``, ``observers``, ``hand`` (hand
index), ``returns`` and the run's metadata (config, seed, versions, commit).
Every ``--block`` hands are saved as they finish; an interrupted run (Ctrl-C,
a killed job) resumes when the same command is rerun.

``train``: prepare every recorded decision
(:func:`solvers.beliefs._location.prepare`: the prior's expected counts from
``--prior-worlds`` determinizations, the features, the true counts), fit
the model, write a checkpoint (:func:`solvers.beliefs._location.save_location`).

``evaluate``: on decisions of other hands (another ``collect`` run), the
mean squared error of the expected counts held by every other seat, for the
prior and for the model, for a fresh pool of prior worlds and for that pool
tilted by the model (what the search sees), the share of the prior's error
each removes, the Brier score of "the seat holds the card" and the tilted
pool's effective size (:func:`solvers.beliefs._location.evaluate_location`); also
the log-likelihood of the true counts per uncertain card. JSON with its
metadata, one entry per player count; the paper reads
``bench/card_location.json``
(:func:`texmacros.research.card_location_macros`).

    python research/scripts/card_location.py collect --players 6 --hands 600 \\
        --seed 0 --out runs/loc6_train.npz
    python research/scripts/card_location.py train runs/loc6_train.npz \\
        --out runs/loc6.npz
    python research/scripts/card_location.py evaluate runs/loc6.npz:runs/loc6_test.npz \\
        [runs/loc11.npz:runs/loc11_test.npz ...] --json results/bench/card_location.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game
from experiments._base.metadata import metadata, write_result
from solvers.net._selfplay import play_hand
from spiel_game import _engine as E

__all__ = ["DEFAULT_AGENT", "collect", "cost", "heldout", "load_collection", "main",
           "parts_dir"]

DEFAULT_AGENT = "ismcts(time_limit=0.005, rollout='heuristic')"


def _agent_seed(*words: int) -> int:
    """The seed in ``[0, 2**62)`` that ``SeedSequence(words)`` gives (the same
    derivation as the tournaments' agent seeds, so collections stay as shipped)."""
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0]
               & np.uint64(2**62 - 1))


def _collect_hands(game, agent: str, seed: int, first: int, hands: int) -> dict:
    """Hands ``first .. first + hands - 1`` of a collection: the deal of hand
    ``h`` from ``numpy.random.default_rng([seed, h])``, the agents built for
    this block with seeds from ``SeedSequence([seed, first, seat])``."""
    from solvers._registry import make_agent
    n = game.num_players()
    bots = [make_agent(agent, game, q, seed=_agent_seed(seed, first, q)) for q in range(n)]
    states, observers, hand_of, returns = [], [], [], []
    h = first

    def decide(st, cur):
        s = np.array(st.engine_state, np.int32)
        if s[E.S_PHASE] in (E.PH_PLAY, E.PH_MOON):
            states.append(s)
            observers.append(cur)
            hand_of.append(h)
        return bots[cur].step(st)

    t0 = time.perf_counter()
    for h in range(first, first + hands):
        for b in bots:
            b.restart()
        returns.append(play_hand(game, np.random.default_rng([seed, h]), decide))
    width = len(states[0]) if states else len(game.new_initial_state().engine_state)
    return {"states": np.array(states, np.int32).reshape(len(states), width),
            "observers": np.array(observers, np.int64),
            "hand": np.array(hand_of, np.int64),
            "returns": np.array(returns, np.float64).reshape(hands, n),
            "seconds": np.float64(time.perf_counter() - t0)}


def _write_npz(path: Path, data: dict, meta: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **data, meta=np.array(json.dumps(meta, default=str)))
    tmp.replace(path)


def parts_dir(out: str | Path) -> Path:
    """Where an unfinished ``collect`` into ``out`` keeps its blocks of hands."""
    out = Path(out)
    return out.with_name(f".{out.name}.parts")


def collect(players: int, hands: int, seed: int, agent: str = DEFAULT_AGENT,
            out: str | Path | None = None, progress: bool = False, block: int = 25) -> dict:
    """Play ``hands`` hands of the ``players``-player game with every seat
    ``agent`` and record every play-phase decision with more than one legal
    action: ``states`` (int32 engine vectors), ``observers`` (the player to
    move), ``hand`` (hand index); also ``returns`` (float[hands, players]).
    The hands are played in blocks of ``block``: hand ``h`` is dealt from
    ``numpy.random.default_rng([seed, h])`` and each block builds its agents
    afresh, seeded from ``SeedSequence([seed, first hand, seat])``, so a block
    depends only on ``(seed, block, its first hand)`` (and, for agents with a
    time limit, on the machine's speed).

    With ``out`` (``.npz``, compressed) every finished block is saved at once
    in :func:`parts_dir` ``(out)``; rerunning the same call after an
    interruption keeps the saved blocks and plays the rest (blocks saved with
    another configuration are refused, naming the difference). The blocks are
    joined into ``out`` at the end and their folder removed. Returns the
    arrays and ``meta`` (config, seed, versions, commit; ``seconds``: the
    playing time summed over the blocks, also those of earlier runs;
    ``resumed_blocks``)."""
    for name, v, lo in (("players", players, 1), ("hands", hands, 1), ("block", block, 1)):
        if int(v) < lo:
            raise ValueError(f"collect: {name} = {v}; allowed: an integer >= {lo}")
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": int(players)})
    config = {"players": int(players), "hands": int(hands), "agent": agent, "seed": int(seed),
              "block": int(block)}
    meta = metadata(config, seed)
    parts = parts_dir(out) if out is not None else None
    blocks, resumed, t0 = [], 0, time.perf_counter()
    for first in range(0, hands, block):
        size = min(block, hands - first)
        path = parts / f"{first:07d}.npz" if parts is not None else None
        if path is not None and path.exists():
            try:
                d = load_collection(path)
                saved = d.pop("meta")["config"]
            except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as e:
                raise ValueError(f"collect: {path} is damaged ({type(e).__name__}: {e}); "
                                 f"remove it and rerun to play its hands again") from None
            want = {**config, "first": first, "size": size}
            if saved != want:
                diff = sorted(k for k in set(saved) | set(want) if saved.get(k) != want.get(k))
                was = ", ".join(f"{k}: {saved.get(k)!r}" for k in diff)
                now = ", ".join(f"{k}: {want.get(k)!r}" for k in diff)
                raise ValueError(f"collect: {path} was saved by another run ({was}; this run: "
                                 f"{now}); remove {parts} or rerun with that run's arguments")
            resumed += 1
        else:
            d = _collect_hands(game, agent, seed, first, size)
            if path is not None:
                _write_npz(path, d,
                           metadata({**config, "first": first, "size": size}, seed))
        blocks.append(d)
        if progress:
            print(f"  {first + size}/{hands} hands, {sum(len(b['observers']) for b in blocks)} "
                  f"decisions, {time.perf_counter() - t0:.0f} s"
                  + (f" ({resumed} blocks saved earlier)" if resumed else ""),
                  file=sys.stderr, flush=True)
    data = {k: np.concatenate([b[k] for b in blocks]) for k in ("states", "observers", "hand",
                                                                  "returns")}
    meta["seconds"] = float(sum(float(b["seconds"]) for b in blocks))
    meta["resumed_blocks"] = resumed
    if out is not None:
        _write_npz(Path(out), data, meta)
        for p in parts.iterdir():           # the blocks and any unfinished write
            if p.name.endswith((".npz", ".npz.tmp")):
                p.unlink()
        with contextlib.suppress(OSError):  # a file of someone else's stays, with it the folder
            parts.rmdir()
    return {**data, "meta": meta}


def load_collection(path) -> dict:
    """The arrays and ``meta`` of a ``collect`` file."""
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    data["meta"] = json.loads(str(data["meta"]))
    return data


def heldout(curve) -> dict:
    """From a training curve: the held-out loss of the prior (step 0, when the
    curve has it) and the lowest of the trained steps, with its step."""
    steps = [p for p in curve if "valid" in p and p["step"] > 0]
    out = {"heldout_prior": next((p["valid"] for p in curve if p["step"] == 0), None)}
    if steps:
        best = min(steps, key=lambda p: p["valid"])
        out.update(heldout_best=best["valid"], heldout_best_step=best["step"])
    return out


def cost(checkpoint, data: dict, decisions: int = 200, pool: int = 128, seed: int = 0) -> dict:
    """Median wall time per decision (ms) over the first ``decisions`` recorded
    decisions: the determinizer's setup plus a pool of ``pool`` plain worlds
    (``plain_ms``), the same plus the model's tilt (``tilted_ms``:
    :class:`solvers.beliefs._location.LocationPool`), and the model's forward pass
    alone (``model_ms``). Each is run once first to compile."""
    from solvers.beliefs._replay import make_belief, weighted_pool
    from spiel_game._determinize import make_determinization
    from solvers.beliefs import _location as LOC
    from spiel_game._rng import make_rng_state
    model = LOC.load_location(checkpoint)
    n = int(data["meta"]["config"]["players"])
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    P = np.asarray(game.new_initial_state().engine_params)
    rng = make_rng_state(np.uint64(seed), 5)
    plain, tilted, fwd = [], [], []
    rows = list(range(min(decisions, len(data["observers"]))))
    for b in [0] + rows:
        s, me = data["states"][b], int(data["observers"][b])
        t0 = time.perf_counter()
        det = make_determinization(P, s, me)
        bel = make_belief(P, me, "uniform")
        buf = np.empty((pool, s.shape[0]), s.dtype)
        weighted_pool(P, s, rng, det, bel, buf, np.empty(pool))
        t1 = time.perf_counter()
        det = make_determinization(P, s, me)
        bel = make_belief(P, me, "uniform")
        LOC.LocationPool(model, game, P, s, det, bel, pool, rng)
        t2 = time.perf_counter()
        model.z(game, s, me, np.full((n, E.K), 0.5))
        t3 = time.perf_counter()
        plain.append(t1 - t0)
        tilted.append(t2 - t1)
        fwd.append(t3 - t2)
    med = lambda xs: 1000 * float(np.median(xs[1:]))   # noqa: E731  (the first compiled)
    return {"players": n, "pool": pool, "decisions": len(rows), "plain_ms": med(plain),
            "tilted_ms": med(tilted), "model_ms": med(fwd)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python research/scripts/card_location.py",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="play hands and record the decisions")
    c.add_argument("--players", type=int, required=True)
    c.add_argument("--hands", type=int, required=True)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--agent", default=DEFAULT_AGENT)
    c.add_argument("--out", required=True)
    c.add_argument("--block", type=int, default=25,
                   help="hands per saved block (an interrupted run resumes from its blocks)")
    t = sub.add_parser("train", help="fit the card-location model")
    t.add_argument("data", nargs="+")
    t.add_argument("--out", required=True)
    t.add_argument("--prior-worlds", type=int, default=128)
    t.add_argument("--hidden", type=int, default=256)
    t.add_argument("--steps", type=int, default=4000)
    t.add_argument("--batch", type=int, default=256)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--eval-every", type=int, default=500)
    t.add_argument("--early-stop", action="store_true",
                   help="keep the weights of the step with the lowest held-out loss")
    t.add_argument("--weight-decay", type=float, default=0.0)
    t.add_argument("--exclude", nargs="*", default=[], metavar="PIECE",
                   help="information-state pieces left out of the input (e.g. dealt_hand "
                        "hand passed received: the observer's cards identify the deal)")
    e = sub.add_parser("evaluate", help="what the model knows on other hands")
    e.add_argument("pairs", nargs="+", metavar="[LABEL=]CHECKPOINT:DATA",
                   help="a model and a collection of other hands (same player count); "
                        "the result's key is LABEL (default: the player count)")
    e.add_argument("--json")
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--min-ess", type=float, default=32.0,
                   help="the tempered pool's least effective size (a location belief's "
                   "min_ess in play)")
    k = sub.add_parser("cost", help="what the tilted pool costs per decision")
    k.add_argument("pairs", nargs="+", metavar="CHECKPOINT:DATA")
    k.add_argument("--decisions", type=int, default=200)
    k.add_argument("--pool", type=int, default=128)
    k.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.cmd == "cost":
        for pair in args.pairs:
            ck, _, path = pair.partition(":")
            r = cost(ck, load_collection(path), args.decisions, args.pool, args.seed)
            print(f"{r['players']} players, pool {r['pool']}, {r['decisions']} decisions "
                  f"(median ms): plain pool {r['plain_ms']:.3f}, tilted pool "
                  f"{r['tilted_ms']:.3f} (of which the model {r['model_ms']:.3f}); "
                  f"{1000 * r['tilted_ms'] / r['pool']:.1f} us per tilted world")
        return 0
    if args.cmd == "collect":
        try:
            d = collect(args.players, args.hands, args.seed, args.agent, args.out,
                        progress=True, block=args.block)
        except ValueError as e:
            print(f"card_location: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            done = len(list(parts_dir(args.out).glob("*.npz")))
            print(f"card_location: interrupted; {done} blocks of {args.block} hands saved "
                  f"in {parts_dir(args.out)}; rerun the same command to resume",
                  file=sys.stderr)
            return 130
        print(f"{len(d['observers'])} decisions from {args.hands} hands in "
              f"{d['meta']['seconds']:.0f} s -> {args.out}")
        return 0
    from solvers.beliefs import _location as LOC
    if args.cmd == "train":
        parts = [load_collection(p) for p in args.data]
        prepared = [LOC.prepare_collection(d, args.prior_worlds, seed=args.seed) for d in parts]
        model, curve = LOC.train_location(prepared, hidden=args.hidden, steps=args.steps,
                                          batch_size=args.batch, lr=args.lr, seed=args.seed,
                                          eval_every=args.eval_every,
                                          early_stop=args.early_stop,
                                          weight_decay=args.weight_decay,
                                          exclude=tuple(args.exclude))
        config = {"data": [str(p) for p in args.data], "prior_worlds": args.prior_worlds,
                  "hidden": args.hidden, "steps": args.steps, "batch": args.batch,
                  "lr": args.lr, "seed": args.seed,
                  "collections": [d["meta"] for d in parts]}
        LOC.save_location(args.out, model, config, curve)
        last = curve[-1]
        print(f"trained on {model.config['train_rows']} decisions; last step {last['step']}: "
              f"loss {last['loss']:.4f}, held out {last.get('valid', float('nan')):.4f} "
              f"(the prior's {curve[0].get('valid', float('nan')):.4f}); kept step "
              f"{model.config['best_step']} -> {args.out}")
        return 0
    result, config = {}, {"pairs": args.pairs, "seed": args.seed, "models": {}}
    for pair in args.pairs:
        label, eq, rest = pair.partition("=")
        if not eq:
            label, rest = "", pair
        ck, sep, path = rest.partition(":")
        if not sep:
            print(f"card_location: {pair!r}; allowed: [LABEL=]CHECKPOINT:DATA",
                  file=sys.stderr)
            return 2
        model = LOC.load_location(ck)
        d = load_collection(path)
        n = int(d["meta"]["config"]["players"])
        if n not in model.layout.players:
            print(f"card_location: {ck} covers players {list(model.layout.players)}; {path} "
                  f"has {n}", file=sys.stderr)
            return 2
        prep = LOC.prepare_collection(d, model.prior_worlds, seed=args.seed,
                                      layout=model.layout)
        r = LOC.evaluate_location(model, prep, min_ess=args.min_ess)
        r.update(checkpoint=ck, data=path, hands=int(d["meta"]["config"]["hands"]),
                 players=n, collection=d["meta"], **heldout(model.config.get("curve", [])))
        label = label or str(n)
        result[label] = r
        config["models"][label] = model.config
        print(f"{label}: {n} players, {path}: {r['decisions']} decisions; count MSE prior "
              f"{r['mse_prior']:.5f}, model {r['mse_model']:.5f} (share of the prior's error "
              f"removed {r['share_removed']:+.4f}); pool {r['mse_pool']:.5f}, tilted "
              f"{r['mse_tilt']:.5f} ({r['share_removed_tilt']:+.4f}), tempered to "
              f"{r['min_ess']:g} worlds {r['mse_tilt_tempered']:.5f} "
              f"({r['share_removed_tempered']:+.4f}); Brier pool "
              f"{r['brier_pool']:.5f}, tilted {r['brier_tilt']:.5f}; mean effective size "
              f"{r['mean_ess']:.1f} of {r['pool_worlds']}; log-lik per uncertain card prior "
              f"{r['ll_prior']:.4f}, model {r['ll_model']:.4f}")
    if args.json:
        write_result(args.json, {"by_players": result}, metadata(config, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
