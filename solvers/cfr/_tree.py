"""A game tree extracted once into flat arrays, for the CFR family and best response.

:func:`build_tree` walks every history of a perfect-recall, sequential game
and returns a :class:`GameTree`: numpy arrays only, no pyspiel states. Two
walkers fill it:

* ``"pyspiel"``: any sequential pyspiel game, through the pyspiel API
  (``child``, ``chance_outcomes``, ``information_state_string``, ``returns``);
* ``"engine"``: ``python_cancellation_hearts`` single hands, in compiled code
  over the engine kernels (:mod:`solvers.cfr._engine_walk`), without pyspiel
  states; information sets are identified by a 128-bit hash of what the player
  has seen (the tests check it partitions histories exactly as
  ``information_state_string`` does).

Layout (``N`` nodes, ``I`` information sets, ``S`` sequences = (information
set, action) pairs, ``C`` chance edges, ``U`` distinct payoff vectors,
``n`` players):

* Nodes are in breadth-first order: the root is node 0, the children of a node
  are contiguous and in action order, and every child has a larger index than
  its parent (``child_start[u] <= j < child_start[u + 1]``). Depth ``d``
  holds nodes ``level_start[d] .. level_start[d + 1] - 1``.
* ``node_player[u]``: the player to move, :data:`CHANCE` or :data:`TERMINAL`.
  ``node_data[u]``: the information set (decision node), the first chance edge
  (chance node: the probabilities of its children are
  ``chance_prob[node_data[u]:][:k]``) or the payoff row (terminal).
* Information sets are numbered player by player (``player_infoset_start``),
  each player's in order of first appearance. The sequences of information set
  ``I`` are ``infoset_seq_start[I] .. infoset_seq_start[I + 1] - 1``, in
  legal-action order: child ``k`` of any history in ``I`` follows sequence
  ``infoset_seq_start[I] + k``, whose action is ``sequence_action[...]``.
* ``infoset_parent_seq[I]``: the player's own last sequence before ``I``
  (-1: none), the same for every history of ``I`` (perfect recall, checked).

Memory: ``13 N + 16 C + 8 n U + 21 I + 12 S`` bytes (``GameTree.nbytes``).
Building peaks higher (tracemalloc, the tree included): the engine walker at
56-72 bytes per history (1.7-1.9 times the final tree; ``small``, ``small3``,
``tiny``, ``medium3``), the pyspiel walker at about 140 bytes per history plus
the information-state strings (136 on ``liars_dice``, 147 on ``leduc_poker``;
315 on ``small``, whose keys are about 210 characters; 8-11 times the final
tree). :func:`build_tree` refuses a tree whose estimated peak
(:data:`ENGINE_BYTES_PER_HISTORY`, :data:`PYSPIEL_BYTES_PER_HISTORY` and
:data:`PYSPIEL_BYTES_PER_INFOSET` plus the key lengths) exceeds ``max_bytes``
(default: the memory available when it starts), before allocating it
(engine: after a counting pass) or as soon as the walk gets there (pyspiel).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time

import numpy as np
import pyspiel
from numba import njit

__all__ = ["GameTree", "build_tree", "CHANCE", "TERMINAL", "available_memory",
           "ENGINE_BYTES_PER_HISTORY", "PYSPIEL_BYTES_PER_HISTORY", "PYSPIEL_BYTES_PER_INFOSET"]

#: Estimated peak bytes per history of the engine walker (measured 56-72).
ENGINE_BYTES_PER_HISTORY = 80
#: Estimated peak bytes per history of the pyspiel walker, keys aside (measured ~140).
PYSPIEL_BYTES_PER_HISTORY = 145
#: ... plus this per information set, plus the length of its key.
PYSPIEL_BYTES_PER_INFOSET = 240

#: ``node_player`` of a chance node (pyspiel's ``PlayerId.CHANCE``).
CHANCE = -1
#: ``node_player`` of a terminal node (pyspiel's ``PlayerId.TERMINAL``).
TERMINAL = -4


@dataclasses.dataclass(frozen=True, eq=False)
class GameTree:
    """The flat tree of one game (see the module docstring for the layout).

    Shapes: ``node_player int8[N]``, ``node_data int32[N]``,
    ``child_start int64[N + 1]``, ``level_start int64[L + 1]``,
    ``chance_prob float64[C]``, ``chance_action int64[C]``,
    ``payoff_table float64[U, n]``, ``infoset_player int8[I]``,
    ``infoset_seq_start int64[I + 1]``, ``infoset_parent_seq int32[I]``,
    ``infoset_node int64[I]`` (the first history of each information set),
    ``sequence_action int64[S]``, ``sequence_infoset int32[S]``,
    ``player_infoset_start int64[n + 1]``.
    """

    num_players: int
    node_player: np.ndarray
    node_data: np.ndarray
    child_start: np.ndarray
    level_start: np.ndarray
    chance_prob: np.ndarray
    chance_action: np.ndarray
    payoff_table: np.ndarray
    infoset_player: np.ndarray
    infoset_seq_start: np.ndarray
    infoset_parent_seq: np.ndarray
    infoset_node: np.ndarray
    sequence_action: np.ndarray
    sequence_infoset: np.ndarray
    player_infoset_start: np.ndarray
    #: True when all histories of each information set lie at one depth
    #: (lets best response run in a single bottom-up pass).
    infosets_level_consistent: bool
    game: pyspiel.Game | None = None
    _keys: list | None = dataclasses.field(default=None, repr=False)

    # ------------------------------------------------------------ sizes
    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_histories(self) -> int:
        """All nodes: decision, chance and terminal histories."""
        return self.num_nodes

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.node_player == TERMINAL))

    @property
    def num_decision_nodes(self) -> int:
        return int(np.count_nonzero(self.node_player >= 0))

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    @property
    def depth(self) -> int:
        return int(self.level_start.shape[0] - 2)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays."""
        return int(sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self)
                       if isinstance(getattr(self, f.name), np.ndarray)))

    def player_sequences(self, player: int) -> slice:
        """The sequences of ``player``, a contiguous range."""
        a, b = self.player_infoset_start[player], self.player_infoset_start[player + 1]
        return slice(int(self.infoset_seq_start[a]), int(self.infoset_seq_start[b]))

    def __repr__(self) -> str:
        """One line of sizes (the dataclass default printed every array)."""
        game = "" if self.game is None else f", game={self.game.get_type().short_name}"
        return (f"GameTree({self.num_players} players, {self.num_nodes:,} histories "
                f"({self.num_decision_nodes:,} decision, {self.num_terminals:,} terminal), "
                f"{self.num_infosets:,} information sets, {self.num_sequences:,} sequences, "
                f"depth {self.depth}, {self.nbytes / 2**20:.1f} MiB{game})")

    def summary(self) -> dict:
        return {"histories": self.num_nodes, "decision_nodes": self.num_decision_nodes,
                "terminals": self.num_terminals, "infosets": self.num_infosets,
                "sequences": self.num_sequences, "depth": self.depth,
                "tree_bytes": self.nbytes}

    # ---------------------------------------------------- histories & keys
    def parent(self, node: int) -> int:
        """Parent of ``node`` (-1 for the root)."""
        if node == 0:
            return -1
        return int(np.searchsorted(self.child_start, node, side="right") - 1)

    def history(self, node: int) -> list[int]:
        """The actions (chance outcomes included) from the root to ``node``."""
        out = []
        while node > 0:
            u = self.parent(node)
            k = node - int(self.child_start[u])
            who = int(self.node_player[u])
            if who == CHANCE:
                out.append(int(self.chance_action[self.node_data[u] + k]))
            else:
                out.append(int(self.sequence_action[self.infoset_seq_start[self.node_data[u]] + k]))
            node = u
        return out[::-1]

    def state(self, node: int) -> pyspiel.State:
        """The pyspiel state of history ``node`` (needs ``game``)."""
        if self.game is None:
            raise ValueError("this tree was built without a game; pass one to build_tree")
        st = self.game.new_initial_state()
        for a in self.history(node):
            st.apply_action(a)
        return st

    def infoset_keys(self) -> list[str]:
        """``information_state_string`` of every information set, in order.

        The pyspiel walker records them; for the engine walker they are made
        once, on first call, by replaying one history of each set.
        """
        if self._keys is None:
            keys = []
            for i in range(self.num_infosets):
                st = self.state(int(self.infoset_node[i]))
                keys.append(st.information_state_string(int(self.infoset_player[i])))
            object.__setattr__(self, "_keys", keys)
        return self._keys

    def infoset_index(self) -> dict[str, int]:
        """``information_state_string`` -> information set id."""
        return {k: i for i, k in enumerate(self.infoset_keys())}


# ====================================================================== build
#: Seconds a build runs before its progress line appears (quick builds print nothing).
PROGRESS_DELAY_S = 1.0


class _BuildProgress:
    """The stage of a tree build (and the histories walked so far) on one tqdm
    line on stderr, refreshed a few times a second from a helper thread, shown only
    once the build has taken :data:`PROGRESS_DELAY_S` seconds; a no-op when off."""

    def __init__(self, enabled: bool, what: str):
        self.stage, self.count, self.bar = "starting", None, None
        self.what = what
        self.t0 = time.time()               # tqdm's clock
        self.stop = threading.Event()
        self.thread = None
        if enabled:
            self.thread = threading.Thread(target=self._beat, daemon=True,
                                           name="build-tree-progress")
            self.thread.start()

    def set(self, stage: str) -> None:
        self.stage, self.count = stage, None

    def _text(self) -> str:
        return self.stage + ("" if self.count is None else f": {self.count:,} histories")

    def _beat(self) -> None:
        if self.stop.wait(PROGRESS_DELAY_S):
            return
        from tqdm.auto import tqdm
        self.bar = tqdm(total=None, bar_format="{desc} [{elapsed}]", file=sys.stderr,
                        desc=f"building the game tree ({self.what}): {self._text()}")
        self.bar.start_t = self.t0          # the time since the build started
        while True:
            self.show(self._text())
            if self.stop.wait(0.25):
                return

    def show(self, text: str) -> None:
        self.bar.set_description_str(f"building the game tree ({self.what}): {text}")

    def close(self, summary: str | None) -> None:
        """Stop the line; with ``summary`` (a finished build), end it with that."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        if self.bar is not None:
            self.show(summary or f"stopped while {self.stage}")
            self.bar.close()


def build_tree(game: pyspiel.Game, *, method: str = "auto",
               max_nodes: int = 200_000_000, max_bytes: float | None = None,
               progress: bool | None = None) -> GameTree:
    """Extract the whole tree of ``game`` into a :class:`GameTree`.

    Args:
      game: a sequential pyspiel game with perfect recall (checked; a
        violation names the information set and two of its histories).
      method: ``"engine"`` (compiled walker, ``python_cancellation_hearts``
        single hands only), ``"pyspiel"`` (any game) or ``"auto"`` (the engine
        when it applies).
      max_nodes: refuse trees with more histories than this (ValueError).
      max_bytes: refuse (MemoryError naming the estimate and the limit) a
        build whose estimated peak memory exceeds this many bytes; default
        :func:`available_memory` at the start (``math.inf``: no check).
      progress: a line on stderr with the build's stage (walking, with the
        histories so far for the pyspiel walker; ordering; numbering information
        sets; checking perfect recall) and the time, shown only when the build
        takes more than :data:`PROGRESS_DELAY_S` seconds; default (None): when
        stderr is a terminal.
    """
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not isinstance(progress, bool):
        raise TypeError(f"progress={progress!r}: expected True, False or None")
    if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError("build_tree needs a sequential game; wrap simultaneous games "
                         "with pyspiel.convert_to_turn_based")
    if max_bytes is None:
        max_bytes, source = available_memory(), "memory available"
    else:
        source = "max_bytes"
    if max_bytes is None:
        max_bytes = float("inf")
    elif not max_bytes > 0:
        raise ValueError(f"max_bytes={max_bytes!r}: expected a positive number of bytes")
    limit = (float(max_bytes), source)
    engine_ok = _engine_applies(game)
    if method == "auto":
        method = "engine" if engine_ok else "pyspiel"
    if method not in ("engine", "pyspiel"):
        raise ValueError(f"method={method!r}: expected 'auto', 'engine' or 'pyspiel'")
    if method == "engine" and not engine_ok:
        raise ValueError("the engine walker needs a python_cancellation_hearts game "
                         "of a single hand (target_score=0)")
    bar = _BuildProgress(progress, f"{method} walker")
    tree = None
    try:
        if method == "engine":
            tree = _build_engine(game, max_nodes, limit, bar)
        else:
            tree = _build_pyspiel(game, max_nodes, limit, bar)
        return tree
    finally:
        bar.close(None if tree is None else
                  f"{tree.num_histories:,} histories, {tree.num_infosets:,} information sets")


def available_memory() -> int | None:
    """Bytes this process can still allocate: the smaller of the system's
    ``MemAvailable`` (``/proc/meminfo``) and the cgroup's ``memory.max -
    memory.current`` when one is set; None when neither can be read."""
    out = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    out.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            top = f.read().strip()
        if top != "max":
            with open("/sys/fs/cgroup/memory.current") as f:
                out.append(int(top) - int(f.read().strip()))
    except (OSError, ValueError):
        pass
    return min(out) if out else None


def _too_big(estimate: float, limit: tuple, what: str) -> MemoryError:
    def size(x):
        return f"{x / 2.0**30:.2f} GiB" if x >= 2**28 else f"{x / 2.0**20:.2f} MiB"
    return MemoryError(f"building this tree needs about {size(estimate)} ({what}), "
                       f"more than the {size(limit[0])} allowed ({limit[1]}); "
                       f"pass max_bytes= to change the limit, or use a smaller game")


def _engine_applies(game) -> bool:
    rules = getattr(game, "rules", None)
    return (game.get_type().short_name == "python_cancellation_hearts"
            and rules is not None and not rules.is_match)


# ------------------------------------------------------------- pyspiel walk
_NO_PROGRESS = _BuildProgress(False, "")


def _build_pyspiel(game, max_nodes: int, limit=(float("inf"), ""),
                   bar: _BuildProgress = _NO_PROGRESS) -> GameTree:
    n = game.num_players()
    bar.set("walking the tree")
    depth, parent, player, data = [], [], [], []
    in_prob, in_action = [], []
    keys: dict[str, int] = {}
    key_list: list[str] = []
    key_actions: list[list[int]] = []
    payoff_rows: dict[tuple, int] = {}
    key_bytes = 0
    stack = [(game.new_initial_state(), -1, 0, 1.0, -1)]
    while stack:
        st, par, d, pr, act = stack.pop()
        idx = len(player)
        if idx >= max_nodes:
            raise ValueError(f"the tree has more than max_nodes={max_nodes:,} histories")
        if idx & 0xFFF == 0xFFF:
            bar.count = idx
            est = PYSPIEL_BYTES_PER_HISTORY * idx + key_bytes
            if est > limit[0]:
                raise _too_big(est, limit, f"the pyspiel walker, at least {idx:,} histories x "
                               f"{PYSPIEL_BYTES_PER_HISTORY} bytes and {len(key_list):,} "
                               f"information-state keys")
        depth.append(d)
        parent.append(par)
        in_prob.append(pr)
        in_action.append(act)
        if st.is_terminal():
            player.append(TERMINAL)
            data.append(payoff_rows.setdefault(tuple(st.returns()), len(payoff_rows)))
            continue
        if st.is_chance_node():
            player.append(CHANCE)
            data.append(-1)
            outs = st.chance_outcomes()
            for a, p in reversed(outs):
                stack.append((st.child(a), idx, d + 1, float(p), int(a)))
            continue
        cur = st.current_player()
        if cur < 0:
            raise ValueError(f"unsupported node (player {cur}): only sequential games")
        key = st.information_state_string(cur)
        legal = st.legal_actions()
        i = keys.get(key)
        if i is None:
            i = keys[key] = len(key_list)
            key_list.append(key)
            key_bytes += len(key) + PYSPIEL_BYTES_PER_INFOSET
            key_actions.append(legal)
        elif key_actions[i] != legal:
            raise ValueError(f"information set {key!r} has histories with different "
                             f"legal actions: {key_actions[i]} and {legal}")
        player.append(cur)
        data.append(i)
        for a in reversed(legal):
            stack.append((st.child(a), idx, d + 1, 1.0, int(a)))
    payoff = np.zeros((max(1, len(payoff_rows)), n))
    for row, r in payoff_rows.items():
        payoff[r] = row
    big = max(in_action, default=0) >= 2**31
    pre = _Preorder(
        depth=np.asarray(depth, np.int16 if max(depth) < 2**15 else np.int32),
        parent=np.asarray(parent, np.int64),
        player=np.asarray(player, np.int8), data=np.asarray(data, np.int32),
        in_prob=np.asarray(in_prob, np.float64),
        in_action=np.asarray(in_action, np.int64 if big else np.int32))
    return _finish(game, n, pre, payoff, key_list, bar)


def _build_engine(game, max_nodes: int, limit=(float("inf"), ""),
                  bar: _BuildProgress = _NO_PROGRESS) -> GameTree:
    from ._engine_walk import walk_engine
    bar.set("walking the tree (compiled; the first build in a process also compiles)")
    fit = limit[0] // ENGINE_BYTES_PER_HISTORY
    if fit >= max_nodes:
        arrays = walk_engine(game, max_nodes)
    else:                   # walk_engine counts the histories before it allocates
        try:
            arrays = walk_engine(game, int(fit))
        except ValueError as e:
            if "max_nodes" not in str(e):
                raise
            raise _too_big((fit + 1) * ENGINE_BYTES_PER_HISTORY, limit,
                           f"the engine walker, more than {int(fit):,} histories x "
                           f"{ENGINE_BYTES_PER_HISTORY} bytes") from None
    pre, table = _Preorder(*arrays[:6]), arrays[6]
    del arrays
    return _finish(game, game.num_players(), pre, table, None, bar)


@dataclasses.dataclass
class _Preorder:
    """Nodes in depth-first preorder, before reordering (internal)."""
    depth: np.ndarray      # int16[N] (int32 if needed)
    parent: np.ndarray     # int64[N] (preorder index, -1 root)
    player: np.ndarray     # int8[N]
    data: np.ndarray       # int32[N]: infoset group id / payoff row / -1
    in_prob: np.ndarray    # float64[N]: probability of the incoming chance edge (1 otherwise)
    in_action: np.ndarray  # int32[N] (int64 if needed): action of the incoming edge (-1 root)


# ---------------------------------------------------------------- finishing
def _finish(game, n: int, pre: _Preorder, payoff_table: np.ndarray,
            key_list: list[str] | None, bar: _BuildProgress = _NO_PROGRESS) -> GameTree:
    """Reorder a preorder walk breadth-first and build the index arrays.

    Frees ``pre``'s arrays as it goes (large trees: keep the peak low)."""
    N = pre.player.shape[0]
    bar.set(f"ordering {N:,} histories breadth-first")
    order = np.argsort(pre.depth, kind="stable")       # new -> old
    depth = pre.depth[order]
    pre.depth = None
    level_start = np.searchsorted(depth, np.arange(int(depth[-1]) + 2)).astype(np.int64)
    del depth
    is_cc = np.zeros(N, bool)                          # child of a chance node
    if N > 1:
        is_cc[1:] = pre.player[pre.parent[1:]] == CHANCE
        nchild = np.bincount(pre.parent[1:], minlength=N)[order]
    else:
        nchild = np.zeros(N, np.int64)
    pre.parent = None
    player = np.ascontiguousarray(pre.player[order])
    pre.player = None
    # Children of the k-th node in breadth-first order follow all earlier nodes'.
    child_start = np.empty(N + 1, np.int64)
    child_start[0] = 1
    np.cumsum(nchild, out=child_start[1:])
    child_start[1:] += 1
    child_start[N] = N
    del nchild
    is_cc = is_cc[order]
    chance_prob = np.ascontiguousarray(pre.in_prob[order[is_cc]], np.float64)
    pre.in_prob = None
    in_action = pre.in_action[order]
    pre.in_action = None
    chance_action = in_action[is_cc].astype(np.int64)
    before = np.zeros(N + 1, np.int64)
    np.cumsum(is_cc, out=before[1:])
    del is_cc
    data_old = pre.data[order]
    pre.data = None
    del order

    # Chance edges and payoff rows.
    node_data = np.zeros(N, np.int32)
    ch = np.flatnonzero(player == CHANCE)
    node_data[ch] = before[child_start[ch]]
    del before, ch
    term = player == TERMINAL
    node_data[term] = data_old[term]
    del term

    # Information sets: numbered by player, then by first appearance.
    bar.set("numbering information sets")
    node_data, infoset_node, remap = _number_infosets(n, player, data_old, node_data)
    del data_old
    ninf = infoset_node.shape[0]
    infoset_player = player[infoset_node].astype(np.int8)
    nact = child_start[infoset_node + 1] - child_start[infoset_node]
    infoset_seq_start = np.concatenate([[0], np.cumsum(nact)]).astype(np.int64)
    S = int(infoset_seq_start[-1])
    sequence_infoset = np.repeat(np.arange(ninf, dtype=np.int32), nact)
    sequence_action = np.empty(S, np.int64)
    _fill_sequence_actions(infoset_node, child_start, infoset_seq_start, in_action,
                           sequence_action)
    player_infoset_start = np.searchsorted(infoset_player, np.arange(n + 1)).astype(np.int64)
    keys = None
    if key_list is not None:
        keys = [None] * ninf
        for g, i in enumerate(remap.tolist()):
            if i >= 0:
                keys[i] = key_list[g]
    parent_seq = np.full(ninf, -2, np.int32)
    bad = np.full(2, -1, np.int64)
    bar.set("checking perfect recall")
    consistent = _check_infosets(n, player, node_data, child_start, level_start,
                                 infoset_seq_start, sequence_action, in_action, parent_seq, bad)
    if consistent < 0:
        raise ValueError(_check_message(game, -consistent, int(bad[0]), int(infoset_node[bad[0]]),
                                        int(bad[1]), child_start, in_action, keys=keys,
                                        player=int(player[bad[1]])))
    return GameTree(
        num_players=n, node_player=player, node_data=node_data, child_start=child_start,
        level_start=level_start, chance_prob=chance_prob, chance_action=chance_action,
        payoff_table=np.ascontiguousarray(payoff_table, np.float64),
        infoset_player=infoset_player, infoset_seq_start=infoset_seq_start,
        infoset_parent_seq=parent_seq, infoset_node=infoset_node.astype(np.int64),
        sequence_action=sequence_action, sequence_infoset=sequence_infoset,
        player_infoset_start=player_infoset_start,
        infosets_level_consistent=bool(consistent == 1), game=game, _keys=keys)


_CHECK_ERRORS = {
    1: "histories of one information set have different legal actions",
    2: "the game does not have perfect recall: histories of one information set "
       "differ in the player's own earlier sequence",
}


def _check_message(game, code: int, infoset: int, first: int, other: int, child_start,
                   in_action, *, keys, player: int) -> str:
    """The refusal of a failed check, naming the information set (its key)
    and two of its histories (actions from the root)."""
    def history(u):
        out = []
        while u > 0:
            out.append(int(in_action[u]))
            u = int(np.searchsorted(child_start, u, side="right") - 1)
        return out[::-1]

    h1, h2 = history(first), history(other)
    key = keys[infoset] if keys is not None else None
    if key is None:
        try:
            st = game.new_initial_state()
            for a in h1:
                st.apply_action(a)
            key = st.information_state_string(player)
        except Exception:   # the message must not fail: fall back to the number
            key = f"#{infoset}"
    return (f"{_CHECK_ERRORS[code]}: player {player}'s information set {key!r}, "
            f"histories {h1} and {h2}")


@njit(cache=True)
def _number_infosets(n, player, group, node_data):
    """Number information sets by player, then by first appearance in
    breadth-first order. ``group int32[N]``: 0-based group id of each decision
    node. Fills ``node_data`` of decision nodes; returns it with
    ``infoset_node int64[I]`` (first history of each set) and the group ->
    set map ``int64[G]`` (-1 for unused groups)."""
    N = player.shape[0]
    G = 0
    for u in range(N):
        if player[u] >= 0 and group[u] + 1 > G:
            G = group[u] + 1
    remap = np.full(G, -1, np.int64)
    per_player = np.zeros(n + 1, np.int64)
    for u in range(N):
        if player[u] >= 0 and remap[group[u]] == -1:
            remap[group[u]] = -2
            per_player[player[u] + 1] += 1
    for q in range(n):
        per_player[q + 1] += per_player[q]
    infoset_node = np.empty(per_player[n], np.int64)
    for u in range(N):
        if player[u] >= 0:
            g = group[u]
            if remap[g] == -2:
                remap[g] = per_player[player[u]]
                infoset_node[remap[g]] = u
                per_player[player[u]] += 1
            node_data[u] = remap[g]
    return node_data, infoset_node, remap


@njit(cache=True)
def _fill_sequence_actions(infoset_node, child_start, seq_start, in_action, out):
    for i in range(infoset_node.shape[0]):
        u = infoset_node[i]
        c0 = child_start[u]
        for k in range(seq_start[i + 1] - seq_start[i]):
            out[seq_start[i] + k] = in_action[c0 + k]


# carries: the tree (n, player, node_data, child_start, level_start), the sets' sequences
# (seq_start, sequence_action, in_action), the work array and the failing pair (parent_seq, bad)
@njit(cache=True)
def _check_infosets(n, player, node_data, child_start, level_start, seq_start,
                    sequence_action, in_action, parent_seq, bad):
    """Check actions and perfect recall; fill ``parent_seq``. Returns 1 if every
    information set lies at one depth, 0 if not, -1 / -2 on a failed check
    (then ``bad`` = [information set, history where the check failed])."""
    ninf = parent_seq.shape[0]
    level_of = np.full(ninf, -1, np.int64)
    consistent = 1
    L = level_start.shape[0] - 1
    width = 1
    for d in range(L):
        width = max(width, level_start[d + 1] - level_start[d])
    prev = np.full((width, n), -1, np.int64)
    nxt = np.full((width, n), -1, np.int64)
    for d in range(L):
        a0 = level_start[d]
        for u in range(a0, level_start[d + 1]):
            r = u - a0
            pl = player[u]
            if pl >= 0:
                i = node_data[u]
                own = prev[r, pl]
                if parent_seq[i] == -2:
                    parent_seq[i] = own
                elif parent_seq[i] != own:
                    bad[0] = i
                    bad[1] = u
                    return -2
                if level_of[i] < 0:
                    level_of[i] = d
                elif level_of[i] != d:
                    consistent = 0
                c0 = child_start[u]
                k = child_start[u + 1] - c0
                if k != seq_start[i + 1] - seq_start[i]:
                    bad[0] = i
                    bad[1] = u
                    return -1
                for j in range(k):
                    if in_action[c0 + j] != sequence_action[seq_start[i] + j]:
                        bad[0] = i
                        bad[1] = u
                        return -1
            if d + 1 < L:
                b0 = level_start[d + 1]
                for c in range(child_start[u], child_start[u + 1]):
                    for q in range(n):
                        nxt[c - b0, q] = prev[r, q]
                    if pl >= 0:
                        nxt[c - b0, pl] = seq_start[node_data[u]] + (c - child_start[u])
        tmp = prev
        prev = nxt
        nxt = tmp
    return consistent
