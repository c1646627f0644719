"""Figures of CFR at larger scale, measured side by side in one run.

* **LiteEFG** (``pip install 'cancellation-hearts[bench]'``: the ``liteefg`` package, a C++
  EFG solver with a Python front end): a vanilla CFR iteration, ours against
  LiteEFG's ``baselines.CFR`` graph, on ``leduc_poker`` and our presets, both
  on one thread, per iteration and per history (interleaved repeats, medians,
  the median of per-repeat ratios). LiteEFG loads every game through
  ``LiteEFG.OpenSpielEnv``, which walks the pyspiel game in Python and writes
  a text game file (here into a temporary folder; set-up time reported).
  Same thing computed: LiteEFG's CFR updates all players at once and averages
  the *updated* strategies; ours alternates players (``pyspiel.CFRSolver``).
  A simultaneous-update CFR made of our kernels (:func:`simultaneous_average`)
  reproduces LiteEFG's average policy after ``check_iterations`` iterations;
  the maximum difference and both NashConvs (ours, exact) are reported.
  Larger presets (``liteefg_tree``) reach LiteEFG as a game file written
  from our tree (:func:`write_liteefg_file`): ``OpenSpielEnv`` needs 112 s
  and a 137 MB file for ``small3`` (75,512 histories), about 40 min for
  ``medium3``.
* **Several cores**: our CFR with ``threads=T`` (subtree blocks,
  :mod:`solvers.cfr._parallel`) against one core on trees of >= 1M histories:
  wall time per iteration of the one-core kernels, of the T-block plan on one
  numba thread and on T threads, process CPU time of each, bit-identity of the
  iterates, and the load average (``os.getloadavg``) before and after: the
  machines here are shared, so the wall-time speed-up is only meaningful with
  the load stated. ``predicted_speedup`` = one-core CPU time / (T-thread CPU
  time / T x block imbalance): what an idle machine would show if memory
  bandwidth does not limit it.
* **Memory-bandwidth floor**: bytes the one-core CFR kernels read and write
  per history and iteration (counted from the arrays each pass touches, each
  element once: :func:`bytes_touched`), the machine's bandwidth (a numba
  STREAM-like copy and triad on arrays far larger than the caches, one and all
  threads, medians) and the floor = bytes / bandwidth, beside the measured ns
  per history.
* **The largest exactly solvable preset**: bytes per history of tree + CFR
  arrays, and of building the tree, for a memory budget (24 GiB by default);
  the history counts of candidate games estimated without building them
  (Knuth's estimator, :func:`estimate_histories`), checked on presets whose
  count is known.

Prints markdown tables and writes the result as JSON::

    python -m experiments.bench.cfr_scale [--quick] [--repeats 5] [--out FILE]
        [--threads 2] [--multicore medium3 medium] [--no-liteefg]
        [--estimate medium3+pass_count=1 ...]

(``results/paper/bench/cfr_scale.json``; ``--quick``: seconds, small presets,
``results/quick/bench/``.) On an idle machine, the multi-core figure is
``python -m experiments.bench.cfr_scale --multicore medium3 medium``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import os
import resource
import statistics
import tempfile
import time

import numba
import numpy as np
import pyspiel
from numba import njit, prange

import spiel_game
from solvers.cfr._best_response import nash_conv
from solvers.cfr._policy import from_policy
from solvers.cfr._solvers import CFR, accumulate, reach_and_values
from solvers.cfr._tree import CHANCE, TERMINAL, GameTree, build_tree

from . import run_and_write

__all__ = ["BenchScaleConfig", "run", "tables", "bytes_touched", "bandwidth",
           "simultaneous_average", "liteefg_row", "multicore_row", "capacity",
           "estimate_histories", "parse_game"]

GIB = 2 ** 30


@dataclasses.dataclass(frozen=True)
class BenchScaleConfig:
    """What the benchmark measures (defaults: the figures the README and paper quote)."""

    seed: int = 0                      # nothing is random; kept for provenance
    repeats: int = 5                   # interleaved repeats of each side-by-side timing
    liteefg: tuple[str, ...] = ("leduc_poker", "micro3", "small", "small3")
    check_iterations: int = 50         # iterations of the LiteEFG equivalence check
    #: LiteEFG loading our tree's file (write_liteefg_file) instead of OpenSpielEnv
    liteefg_tree: tuple[str, ...] = ("small3", "medium3")
    check_iterations_tree: int = 5
    multicore: tuple[str, ...] = ("medium3",)
    threads: int = 2
    bandwidth_mib: int = 512           # size of each STREAM array
    budget_gib: float = 24.0           # memory budget of the capacity estimate
    #: games whose histories are estimated (``preset`` or ``preset+key=value,...``)
    estimate: tuple[str, ...] = ("medium3", "medium", "medium3+pass_count=1",
                                 "medium3+pass_count=2")
    probes: int = 2000                 # random probes per estimate
    target_s: float = 1.0              # seconds of each multi-core timing (whole iterations)


def parse_game(spec: str) -> dict:
    """``"preset+key=value,key=value"`` -> the game parameters (values: ints
    where they parse as ints). Raises ``KeyError`` for an unknown preset."""
    name, _, rest = spec.partition("+")
    params = spiel_game.preset(name)
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"bad override {item!r} in {spec!r}; expected key=value")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return params


def load_game(name: str) -> pyspiel.Game:
    """A game by name: a preset of ours (with ``+key=value`` overrides,
    :func:`parse_game`) or any pyspiel game name."""
    if name.split("+")[0] in spiel_game.PRESETS:
        return spiel_game.load(parse_game(name))
    return pyspiel.load_game(name)


def estimate_histories(game: pyspiel.Game, probes: int, seed: int) -> tuple[float, float]:
    """Knuth's (1975) unbiased estimate of the number of histories of ``game``
    and its standard error: each probe walks from the root to a terminal,
    choosing children uniformly (chance outcomes included), and counts
    ``1 + b1 + b1 b2 + ...`` with ``b_d`` the branching factors met; the mean
    over ``probes`` probes (``numpy`` generator seeded with ``seed``)."""
    if probes < 2:
        raise ValueError(f"probes must be at least 2, got {probes}")
    rng = np.random.default_rng(seed)
    counts = np.empty(probes)
    for i in range(probes):
        st = game.new_initial_state()
        width, total = 1.0, 1.0
        while not st.is_terminal():
            acts = ([a for a, _ in st.chance_outcomes()] if st.is_chance_node()
                    else st.legal_actions())
            width *= len(acts)
            total += width
            st.apply_action(acts[int(rng.integers(len(acts)))])
        counts[i] = total
    return float(counts.mean()), float(counts.std(ddof=1) / np.sqrt(probes))


def _clock(fn, number: int = 1) -> tuple[float, float]:
    """Wall and process-CPU seconds per call."""
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number, (time.process_time() - c0) / number


def _number(fn, target_s: float = 0.5) -> int:
    wall, _ = _clock(fn)
    return max(1, int(target_s / max(wall, 1e-6)))


# ============================================================ LiteEFG side by side
class _SimultaneousCFR(CFR):
    """Vanilla CFR with simultaneous updates, built from our kernels: every
    player's regrets from the same profile, then every player's new strategy
    (LiteEFG's ``baselines.CFR`` scheme). Average weight 0 at iteration 1, so
    that after ``T + 1`` iterations the average is over strategies 2..T+1:
    LiteEFG's average of the updated strategies after ``T``."""

    name = "CFR (simultaneous)"

    def iterate(self, iterations: int = 1):
        tr = self.tree
        for _ in range(iterations):
            self.iteration += 1
            w = 0.0 if self.iteration == 1 else 1.0
            for p in range(tr.num_players):
                reach_and_values(p, tr.node_player, tr.node_data, tr.child_start,
                                  tr.chance_prob, tr.payoff_table, tr.infoset_seq_start,
                                  self.policy, self._reach, self._value)
                accumulate(p, tr.node_player, tr.node_data, tr.child_start,
                            tr.infoset_seq_start, self.policy, self._reach, self._value,
                            self.regret, self.avg_numerator, w)
            for p in range(tr.num_players):
                self._update_player(p, self.iteration)
        return self


def simultaneous_average(tree: GameTree, iterations: int) -> np.ndarray:
    """Our kernels' simultaneous-update CFR average after ``iterations``, as
    LiteEFG's ``baselines.CFR`` defines it (see :class:`_SimultaneousCFR`)."""
    return _SimultaneousCFR(tree).iterate(iterations + 1).average_policy()


def write_liteefg_file(tree: GameTree, path: str | os.PathLike) -> int:
    """Write ``tree`` as a LiteEFG game file (the text format its
    ``OpenSpielEnv`` writes: ``node`` lines in depth-first preorder, then
    ``infoset`` lines), with short names: node ``u`` is ``n<u>``, information
    set ``i`` of player ``p`` is ``pl<p+1>_<k>__i<i>``. Children and actions in
    the tree's order, so LiteEFG's strategy vectors index our sequences. Seconds
    for a million histories, where ``OpenSpielEnv`` walks the pyspiel game in
    Python (112 s for ``small3``'s 75,512). Returns the bytes written."""
    npl, nd, cs = tree.node_player, tree.node_data, tree.child_start
    pay, cp = tree.payoff_table.tolist(), tree.chance_prob
    with open(path, "w", encoding="utf-8") as f:
        # "openspiel": LiteEFG's flag for this dialect (payoffs as player=value)
        f.write(f"# GameTree\n#\n# Opt {{\n#     openspiel,\n#     players: "
                f"{tree.num_players},\n# }}\n#\n")
        stack = [0]
        while stack:
            u = stack.pop()
            k, c0, c1 = int(npl[u]), int(cs[u]), int(cs[u + 1])
            stack.extend(range(c0, c1))
            if k == TERMINAL:
                f.write(f"node n{u} leaf payoffs " + " ".join(
                    f"{q + 1}={v!r}" for q, v in enumerate(pay[nd[u]])) + "\n")
            elif k == CHANCE:
                b = int(nd[u]) - c0
                f.write(f"node n{u} chance actions " + " ".join(
                    f"n{c}={float(cp[b + c])!r}" for c in range(c0, c1)) + "\n")
            else:
                f.write(f"node n{u} player {k + 1} actions "
                        + " ".join(f"n{c}" for c in range(c0, c1)) + "\n")
        dec = np.flatnonzero(npl >= 0)
        nodes = dec[np.argsort(nd[dec], kind="stable")]
        starts = np.searchsorted(nd[nodes], np.arange(tree.num_infosets + 1))
        for i in range(tree.num_infosets):
            p = int(tree.infoset_player[i])
            f.write(f"infoset pl{p + 1}_{i - int(tree.player_infoset_start[p])}__i{i} nodes "
                    + " ".join(f"n{u}" for u in nodes[starts[i]:starts[i + 1]]) + "\n")
        return f.tell()


def _liteefg_average(env, graph, tree: GameTree, loader: str) -> np.ndarray:
    """LiteEFG's average policy as our ``float64[S]``."""
    if loader == "openspiel":
        return from_policy(tree, env.get_strategy(graph.current_strategy(), "avg-iterate")[0])
    out = np.empty(tree.num_sequences)
    for p in range(tree.num_players):
        for name, probs in env.get_strategy(p + 1, graph.current_strategy(), "avg-iterate"):
            a = int(tree.infoset_seq_start[int(name.rsplit("__i", 1)[1])])
            out[a:a + len(probs)] = probs
    return out


def liteefg_row(name: str, repeats: int, check_iterations: int,
                loader: str = "openspiel") -> dict:
    """Our CFR iteration against LiteEFG's on game ``name`` (one thread each),
    and the check that both compute the same average policy. ``loader``:
    ``"openspiel"`` (LiteEFG's ``OpenSpielEnv`` on the pyspiel game) or
    ``"tree"`` (:func:`write_liteefg_file` of our tree, for large presets)."""
    import LiteEFG as leg
    from LiteEFG.baselines.CFR import graph as LiteCFR

    if loader not in ("openspiel", "tree"):
        raise ValueError(f"loader must be 'openspiel' or 'tree', got {loader!r}")
    game = load_game(name)
    t0 = time.perf_counter()
    tree = build_tree(game)
    build_s = time.perf_counter() - t0
    leg.set_threads(1)
    with tempfile.TemporaryDirectory(prefix="liteefg-") as home:
        t0 = time.perf_counter()
        if loader == "tree":
            file_bytes = write_liteefg_file(tree, os.path.join(home, "game.efg"))
            env = leg.FileEnv(os.path.join(home, "game.efg"))
        else:
            old = os.environ.get("HOME")
            os.environ["HOME"] = home          # OpenSpielEnv writes ~/game_instances/
            try:
                env = leg.OpenSpielEnv(game)
                file_bytes = sum(f.stat().st_size for f in os.scandir(
                    os.path.join(home, "game_instances")))
            finally:
                if old is None:
                    del os.environ["HOME"]
                else:
                    os.environ["HOME"] = old
        env_s = time.perf_counter() - t0
    graph = LiteCFR()
    env.set_graph(graph)

    def theirs():
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy())

    for _ in range(check_iterations):          # the equivalence check, then timing
        theirs()
    lite_avg = _liteefg_average(env, graph, tree, loader)
    lite_expl = float(sum(env.exploitability(graph.current_strategy(), "avg-iterate")))
    ref_avg = simultaneous_average(tree, check_iterations)
    ours_solver = CFR(tree).iterate(check_iterations)
    check = {"iterations": check_iterations,
             "max_abs_diff_avg_policy_vs_simultaneous_ours": float(
                 np.abs(lite_avg - ref_avg).max()),
             "nash_conv_liteefg_avg": nash_conv(tree, lite_avg),
             "nash_conv_simultaneous_ours": nash_conv(tree, ref_avg),
             "liteefg_own_exploitability_sum": lite_expl,
             "nash_conv_ours_alternating": nash_conv(tree, ours_solver.average_policy())}

    ours = CFR(tree).iterate(1)
    simul = _SimultaneousCFR(tree).iterate(1)
    n_ours, n_theirs = _number(lambda: ours.iterate(1)), _number(theirs)
    a, s, b = [], [], []
    for _ in range(repeats):
        b.append(_clock(theirs, n_theirs)[0])
        a.append(_clock(lambda: ours.iterate(1), n_ours)[0])
        s.append(_clock(lambda: simul.iterate(1), n_ours)[0])
    N = tree.num_nodes
    return {"game": name, "loader": loader, "players": game.num_players(), "histories": N,
            "infosets": tree.num_infosets, "ours_build_s": build_s,
            "liteefg_env_s": env_s, "liteefg_game_file_bytes": file_bytes,
            "ours_s": statistics.median(a), "ours_simultaneous_s": statistics.median(s),
            "liteefg_s": statistics.median(b),
            "ours_ns_per_history": 1e9 * statistics.median(a) / N,
            "liteefg_ns_per_history": 1e9 * statistics.median(b) / N,
            "ours_over_liteefg": statistics.median(x / y for x, y in zip(a, b)),
            "speedup": statistics.median(y / x for x, y in zip(a, b)),
            "ours_all_s": a, "ours_simultaneous_all_s": s, "liteefg_all_s": b,
            "check": check}


# ============================================================ several cores
def multicore_row(name: str, threads: int, repeats: int, target_s: float = 1.0) -> dict:
    """One core against ``threads`` subtree blocks on ``name`` (see the module
    docstring); iterates compared bit for bit."""
    tree = build_tree(load_game(name))
    one = CFR(tree).iterate(1)
    par1 = CFR(tree, threads=threads).iterate(1)       # run on one numba thread
    par = CFR(tree, threads=threads).iterate(1)        # run on `threads`
    pool = numba.get_num_threads()
    runs = max(1, _number(lambda: one.iterate(1), target_s))
    par1.iterate(1)                                    # as many iterations as `one`
    par.iterate(1)
    load_before = os.getloadavg()
    rows = {"one_core": [], "blocks_on_1_thread": [], "blocks_on_T_threads": []}
    try:
        for _ in range(repeats):
            rows["one_core"].append(_clock(lambda: one.iterate(1), runs))
            numba.set_num_threads(1)
            rows["blocks_on_1_thread"].append(_clock(lambda: par1.iterate(1), runs))
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            rows["blocks_on_T_threads"].append(_clock(lambda: par.iterate(1), runs))
    finally:
        numba.set_num_threads(pool)
    load_after = os.getloadavg()
    same = all(one.iteration == s.iteration and np.array_equal(one.regret, s.regret)
               and np.array_equal(one.avg_numerator, s.avg_numerator)
               and np.array_equal(one.policy, s.policy) for s in (par1, par))
    wall = {k: statistics.median(w for w, _ in v) for k, v in rows.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in rows.items()}
    plan = par._plan
    return {"preset": name, "histories": tree.num_nodes, "threads": threads,
            "numba_threads_available": int(numba.config.NUMBA_NUM_THREADS),
            "iterations_per_timing": runs, "bit_identical": same,
            "split_level": plan.split, "block_imbalance": plan.imbalance,
            "shared_fraction": plan.shared_fraction,
            "wall_s": wall, "cpu_s": cpu,
            "ns_per_history": {k: 1e9 * v / tree.num_nodes for k, v in wall.items()},
            "cpu_ns_per_history": {k: 1e9 * v / tree.num_nodes for k, v in cpu.items()},
            "speedup_vs_one_core": statistics.median(
                o[0] / t[0] for o, t in zip(rows["one_core"], rows["blocks_on_T_threads"])),
            "speedup_vs_blocks_on_1_thread": statistics.median(
                o[0] / t[0] for o, t in zip(rows["blocks_on_1_thread"],
                                            rows["blocks_on_T_threads"])),
            "predicted_speedup": cpu["one_core"] / (
                cpu["blocks_on_T_threads"] / threads * plan.imbalance),
            "loadavg_before": load_before, "loadavg_after": load_after,
            "all": {k: v for k, v in rows.items()}, "tree": tree}


# ============================================================ bandwidth floor
def bytes_touched(tree: GameTree, kernel: str = "one_core") -> dict:
    """Bytes the CFR kernels read and write in one iteration (``kernel``:
    ``"one_core"``, the kernels of :mod:`solvers.cfr._solvers`, or
    ``"blocks"``, those of :mod:`solvers.cfr._parallel`).

    Counted per player pass from the arrays each kernel touches (each element
    once per pass; reads and writes both counted, as STREAM counts them;
    ``payoff_table`` left out, a few rows that stay in cache):

    * top down (``reach_and_values``): ``node_player`` of every node;
      ``node_data``, ``child_start`` and the ``n + 1`` reaches of every
      non-terminal; ``infoset_seq_start`` of decision nodes; per edge, the
      child's ``n + 1`` reaches written and one probability read;
    * bottom up: ``node_player``, ``node_data`` and ``value`` (written) of
      every node; ``child_start`` of non-terminals, ``infoset_seq_start`` of
      decision nodes; per edge, the child's value and one probability;
    * ``accumulate``: ``node_player`` of every node; at ``p``'s decision
      nodes the ``n + 1`` reaches, value, ``node_data``, ``child_start``,
      ``infoset_seq_start``; per edge of theirs, child value, policy, and
      ``regret`` and ``avg_numerator`` read and written;
    * regret matching: per information set of ``p`` its ``infoset_seq_start``;
      per sequence ``regret`` read and ``policy`` written.

    ``"blocks"`` differs: top down only the updated player's reach row (one
    read per non-terminal, one write per edge; the policy and
    ``infoset_seq_start`` at that player's nodes); ``p``'s terms in the
    bottom-up sweep (no separate scan: per decision node of ``p`` its reaches
    and ``owner``, per edge ``regret`` and ``avg_numerator`` read and
    written); the gather of shared information sets (per edge the two
    scratch terms written and read again) is left out.
    """
    if kernel not in ("one_core", "blocks"):
        raise ValueError(f"kernel must be 'one_core' or 'blocks', got {kernel!r}")
    N = tree.num_nodes
    m = tree.num_players + 1
    player = tree.node_player
    nonterm = int(np.count_nonzero(player != TERMINAL))
    dec = int(np.count_nonzero(player >= 0))
    edges = N - 1
    fanout = np.diff(tree.child_start)
    passes = []
    for p in range(tree.num_players):
        mine = player == p
        d_p, e_p = int(np.count_nonzero(mine)), int(fanout[mine].sum())
        i_p = int(tree.player_infoset_start[p + 1] - tree.player_infoset_start[p])
        sl = tree.player_sequences(p)
        s_p = sl.stop - sl.start
        if kernel == "one_core":
            down = N + nonterm * (4 + 8 + 8 * m) + dec * 8 + edges * (8 * m + 8)
            up = N * 13 + nonterm * 8 + dec * 8 + edges * 16
            acc = N + d_p * (8 * m + 8 + 4 + 8 + 8) + e_p * (8 + 8 + 16 + 16)
        else:
            stale = player == (p - 1) % tree.num_players
            d_s, e_s = int(np.count_nonzero(stale)), int(fanout[stale].sum())
            down = N + nonterm * (4 + 8 + 8) + d_s * 8 + edges * 8 + e_s * 8
            up = N * 13 + nonterm * 8 + dec * 8 + edges * 16
            acc = d_p * (8 * m + 4) + e_p * 32
        rm = i_p * 8 + s_p * 16
        passes.append({"top_down": down, "bottom_up": up, "accumulate": acc,
                       "regret_matching": rm})
    total = sum(sum(x.values()) for x in passes)
    return {"per_iteration": total, "per_history": total / N, "passes": passes}


@njit(cache=True)
def _copy(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@njit(cache=True)
def _triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(cache=True, parallel=True)
def _copy_par(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i]


@njit(cache=True, parallel=True)
def _triad_par(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


def bandwidth(mib: int = 512, repeats: int = 5) -> dict:
    """STREAM-like copy (16 B per element) and triad (24 B) on ``float64``
    arrays of ``mib`` MiB each, compiled (numba), on one thread and on all of
    numba's threads: GB/s (1e9 B/s), medians of ``repeats``."""
    n = mib * 2 ** 20 // 8
    a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
    _copy(b, a), _triad(a, b, c, 3.0), _copy_par(b, a), _triad_par(a, b, c, 3.0)
    out = {"array_mib": mib, "threads_all": numba.get_num_threads(),
           "loadavg_before": os.getloadavg()}
    for label, fn, nbytes in (("copy_1", lambda: _copy(b, a), 16),
                              ("triad_1", lambda: _triad(a, b, c, 3.0), 24),
                              ("copy_all", lambda: _copy_par(b, a), 16),
                              ("triad_all", lambda: _triad_par(a, b, c, 3.0), 24)):
        times = [_clock(fn)[0] for _ in range(repeats)]
        out[f"{label}_gbs"] = nbytes * n / statistics.median(times) / 1e9
    out["loadavg_after"] = os.getloadavg()
    return out


def floor_row(row: dict, bw: dict) -> dict:
    """The bandwidth floor of one multi-core row's tree beside its measured times."""
    b = bytes_touched(row["tree"])
    bb = bytes_touched(row["tree"], "blocks")
    floor_1 = b["per_history"] / bw["triad_1_gbs"]          # ns (bytes / (GB/s))
    floor_b1 = bb["per_history"] / bw["triad_1_gbs"]
    floor_all = bb["per_history"] / bw["triad_all_gbs"]
    ns = row["ns_per_history"]
    return {"preset": row["preset"], "bytes_per_history": b["per_history"],
            "bytes_per_history_blocks": bb["per_history"],
            "floor_ns_one_thread": floor_1, "floor_ns_blocks_one_thread": floor_b1,
            "floor_ns_blocks_all_threads": floor_all,
            "measured_ns_one_core": ns["one_core"],
            "measured_ns_blocks_1_thread": ns["blocks_on_1_thread"],
            "measured_ns_T_threads": ns["blocks_on_T_threads"],
            "one_core_over_floor": ns["one_core"] / floor_1,
            "blocks_1_thread_over_floor": ns["blocks_on_1_thread"] / floor_b1,
            "T_threads_over_floor": ns["blocks_on_T_threads"] / floor_all,
            "passes": b["passes"], "passes_blocks": bb["passes"]}


# ============================================================ capacity
#: Peak bytes per history while building a tree from pyspiel (measured: tree
#: building from pyspiel games peaks at about 140 bytes per history).
BUILD_PEAK_BYTES_PER_HISTORY = 140


def capacity(tree: GameTree, budget_gib: float, threads: int = 2) -> dict:
    """Histories that fit in ``budget_gib`` at ``tree``'s bytes per history
    (tree + one-core CFR arrays; and with ``threads`` blocks: scratch and plan)."""
    solver = CFR(tree).nbytes()
    per = (tree.nbytes + solver) / tree.num_nodes
    per_t = (tree.nbytes + CFR(tree, threads=threads).nbytes()) / tree.num_nodes
    budget = budget_gib * GIB
    return {"from_preset_histories": tree.num_nodes, "budget_gib": budget_gib,
            "bytes_per_history_solve": per, "bytes_per_history_solve_threads": per_t,
            "build_peak_bytes_per_history": BUILD_PEAK_BYTES_PER_HISTORY,
            "max_histories_solve": int(budget / per),
            "max_histories_solve_threads": int(budget / per_t),
            "max_histories_build": int(budget / max(BUILD_PEAK_BYTES_PER_HISTORY, per))}


# ============================================================ run
def run(config: BenchScaleConfig) -> dict:
    res: dict = {"liteefg": [], "multicore": [], "floor": []}
    try:
        res["liteefg_version"] = importlib.metadata.version("liteefg")
    except importlib.metadata.PackageNotFoundError:
        res["liteefg_version"] = None
    if res["liteefg_version"] is not None:
        res["liteefg"] = [liteefg_row(g, config.repeats, config.check_iterations)
                          for g in config.liteefg]
        res["liteefg"] += [liteefg_row(g, min(config.repeats, 3), config.check_iterations_tree,
                                       loader="tree") for g in config.liteefg_tree]
    res["bandwidth"] = bandwidth(config.bandwidth_mib)
    for name in config.multicore:
        row = multicore_row(name, config.threads, config.repeats, config.target_s)
        res["floor"].append(floor_row(row, res["bandwidth"]))
        res["capacity"] = capacity(row["tree"], config.budget_gib, config.threads)
        del row["tree"]
        res["multicore"].append(row)
    res["estimates"] = []
    for spec in config.estimate:
        t0 = time.perf_counter()
        mean, se = estimate_histories(load_game(spec), config.probes, config.seed)
        res["estimates"].append({"game": spec, "histories": mean, "standard_error": se,
                                 "probes": config.probes, "seconds": time.perf_counter() - t0})
    res["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY")
    res["numba_threading_layer"] = numba.threading_layer()
    res["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    res["goals"] = {"liteefg_leduc": "ahead (ours faster)",
                    "multicore": ">= 1.8x on 2 cores, tree >= 1M histories"}
    return res


def tables(res: dict) -> str:
    lines = []
    if res["liteefg"]:
        lines += ["| game | histories | ours (CFR iteration) | LiteEFG | ours / LiteEFG "
                  "| ns per history (ours / LiteEFG) | same average (max diff) "
                  "| LiteEFG set-up |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in res["liteefg"]:
            c = r["check"]
            lines.append(
                f"| `{r['game']}`{' (tree file)' if r['loader'] == 'tree' else ''} "
                f"| {r['histories']:,} | {r['ours_s'] * 1e3:.3f} ms "
                f"| {r['liteefg_s'] * 1e3:.3f} ms | {r['ours_over_liteefg']:.3f} "
                f"({r['speedup']:.1f}x faster) | {r['ours_ns_per_history']:.0f} / "
                f"{r['liteefg_ns_per_history']:.0f} "
                f"| {c['max_abs_diff_avg_policy_vs_simultaneous_ours']:.1e} after "
                f"{c['iterations']} it. (NashConv {c['nash_conv_liteefg_avg']:.6f} / "
                f"{c['nash_conv_simultaneous_ours']:.6f}) "
                f"| {r['liteefg_env_s']:.1f} s |")
        lines.append("")
    elif res.get("liteefg_version") is None:
        lines += ["LiteEFG not installed (`pip install 'cancellation-hearts[bench]'`): no "
                  "comparison.", ""]
    bw = res["bandwidth"]
    lines += [f"Bandwidth (numba STREAM, {bw['array_mib']} MiB arrays): copy "
              f"{bw['copy_1_gbs']:.1f} GB/s, triad {bw['triad_1_gbs']:.1f} GB/s on one "
              f"thread; copy {bw['copy_all_gbs']:.1f}, triad {bw['triad_all_gbs']:.1f} GB/s "
              f"on {bw['threads_all']} threads (load {bw['loadavg_before'][0]:.1f}).", ""]
    if res["multicore"]:
        lines += ["| preset | histories | one core | T blocks, 1 thread | T blocks, T threads "
                  "| speed-up (wall) | predicted (CPU time) | bit-identical | load (1 min) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in res["multicore"]:
            w = r["wall_s"]
            lines.append(
                f"| `{r['preset']}` (T={r['threads']}) | {r['histories']:,} "
                f"| {w['one_core'] * 1e3:.0f} ms | {w['blocks_on_1_thread'] * 1e3:.0f} ms "
                f"| {w['blocks_on_T_threads'] * 1e3:.0f} ms "
                f"| {r['speedup_vs_one_core']:.2f}x | {r['predicted_speedup']:.2f}x "
                f"| {r['bit_identical']} | {r['loadavg_before'][0]:.1f} -> "
                f"{r['loadavg_after'][0]:.1f} |")
        lines += ["", "| preset, kernel | bytes / history / iteration | floor | measured "
                  "| measured / floor |", "|---|---|---|---|---|"]
        for f in res["floor"]:
            for label, nbytes, floor, meas in (
                    ("one core", f["bytes_per_history"], f["floor_ns_one_thread"],
                     f["measured_ns_one_core"]),
                    ("blocks, 1 thread", f["bytes_per_history_blocks"],
                     f["floor_ns_blocks_one_thread"], f["measured_ns_blocks_1_thread"]),
                    ("blocks, all threads", f["bytes_per_history_blocks"],
                     f["floor_ns_blocks_all_threads"], f["measured_ns_T_threads"])):
                lines.append(f"| `{f['preset']}`, {label} | {nbytes:.0f} | {floor:.1f} ns "
                             f"| {meas:.1f} ns | {meas / floor:.2f}x |")
    if "capacity" in res:
        c = res["capacity"]
        lines += ["", f"Capacity in {c['budget_gib']:.0f} GiB: "
                  f"{c['bytes_per_history_solve']:.0f} bytes per history to solve "
                  f"(`{res['multicore'][-1]['preset']}`'s tree + CFR arrays) -> "
                  f"{c['max_histories_solve'] / 1e6:.0f}M histories; building from pyspiel at "
                  f"~{c['build_peak_bytes_per_history']} bytes per history -> "
                  f"{c['max_histories_build'] / 1e6:.0f}M."]
    if res.get("estimates"):
        per = res["capacity"]["bytes_per_history_solve"] if "capacity" in res else None
        lines += ["", "| game | histories (Knuth estimate +- s.e.) | GiB to solve | GiB to build |",
                  "|---|---|---|---|"]
        for e in res["estimates"]:
            h = e["histories"]
            solve = f"{h * per / GIB:.1f}" if per else ""
            lines.append(f"| `{e['game']}` | {h:,.0f} +- {e['standard_error']:,.0f} | {solve} "
                         f"| {h * BUILD_PEAK_BYTES_PER_HISTORY / GIB:.1f} |")
    return "\n".join(lines)


#: The ``--quick`` run (seconds): LiteEFG on leduc and micro3, two cores on small3, 64 MiB arrays.
QUICK = BenchScaleConfig(repeats=1, liteefg=("leduc_poker", "micro3"), check_iterations=10,
                         liteefg_tree=("micro3",), check_iterations_tree=10,
                         multicore=("small3",), bandwidth_mib=64,
                         estimate=("small3", "medium3"), probes=200)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.cfr_scale")
    ap.add_argument("--quick", action="store_true", help="seconds; into results/quick/bench")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None, help="blocks/threads (default 2)")
    ap.add_argument("--multicore", nargs="*", default=None, metavar="PRESET",
                    help="presets of the multi-core rows (default medium3)")
    ap.add_argument("--liteefg", nargs="*", default=None, metavar="GAME",
                    help="games of the LiteEFG rows (presets or pyspiel names)")
    ap.add_argument("--liteefg-tree", nargs="*", default=None, metavar="GAME",
                    help="games of the LiteEFG rows loaded from our tree's file")
    ap.add_argument("--no-liteefg", action="store_true")
    ap.add_argument("--estimate", nargs="*", default=None, metavar="GAME",
                    help="games whose histories are estimated (preset or preset+key=value,...)")
    ap.add_argument("--out", default=None, help="the JSON file (default "
                    "results/paper/bench/cfr_scale.json, results/quick/bench with --quick)")
    args = ap.parse_args(argv)
    # numba's OpenMP threads otherwise spin between parallel regions: on a
    # machine with more runnable threads than cores, a 2-thread CFR iteration
    # measured 10x slower than one core (small3, load 8 on 2 cores)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    config = QUICK if args.quick else BenchScaleConfig()
    changes = {}
    if args.repeats is not None:
        changes["repeats"] = args.repeats
    if args.threads is not None:
        changes["threads"] = args.threads
    if args.multicore is not None:
        changes["multicore"] = tuple(args.multicore)
    if args.liteefg is not None:
        changes["liteefg"] = tuple(args.liteefg)
    if args.liteefg_tree is not None:
        changes["liteefg_tree"] = tuple(args.liteefg_tree)
    if args.no_liteefg:
        changes["liteefg"] = ()
        changes["liteefg_tree"] = ()
    if args.estimate is not None:
        changes["estimate"] = tuple(args.estimate)
    config = dataclasses.replace(config, **changes)
    return run_and_write("cfr_scale", args.quick, args.out, lambda: run(config), tables, config,
                         config.seed)


if __name__ == "__main__":
    raise SystemExit(main())
