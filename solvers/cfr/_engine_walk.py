"""The fast path of :func:`solvers.cfr._tree.build_tree` for Cancellation Hearts.

Walks every history of one hand of ``python_cancellation_hearts`` in compiled
code, over the engine's documented kernels (``new_state``, ``current_player``,
``legal_into``, ``apply_unchecked``, ``apply_whole_deal``, ``returns``) and the
engine's state layout constants (``S_*``, ``L_*``, ``P_*``), without creating a
single pyspiel state. Whole deals come from :func:`spiel_game._deals.enumerate_deals`
(the very table and probabilities the pyspiel adapter uses).

The information set of a history is a 128-bit hash of what the player to move
has seen (:func:`infoset_key`); ``tests/solvers/test_cfr_tree.py`` checks that it
partitions histories exactly as ``information_state_string`` does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit


def _numba_cache_guard() -> None:
    """This module's compiled kernels inline the engine's: drop its cached
    kernels when a source of ``spiel_game`` (or this file) changed."""
    from spiel_game._numba_cache import engine_sources, guard
    here = Path(__file__).resolve()
    guard(here.parent / "__pycache__", engine_sources() + [here], prefix=here.stem)


_numba_cache_guard()

from spiel_game import _engine as E  # noqa: E402
from spiel_game._deals import enumerate_deals  # noqa: E402
from spiel_game._hidden import kitty_seen, received_seen  # noqa: E402
from spiel_game._engine import (  # noqa: E402
                               K, CHANCE, TERMINAL, S_CUR, S_PHASE, S_LEADER,
                               S_PASSOFF, P_N, P_PASS,
                               P_HAND, current_player, legal_into,
                               apply_unchecked, apply_whole_deal, returns)

__all__ = ["walk_engine", "infoset_key"]


def walk_engine(game, max_nodes: int):
    """All histories of one hand of ``game`` in depth-first preorder.

    Returns ``(depth int16[N], parent int64[N], player int8[N], group int32[N],
    in_prob float64[N], in_action int32[N], payoff_table float64[U, n])``:
    ``group`` is the information-set group of decision nodes (equal keys) and
    the payoff row of terminals (-1 at chance nodes); ``in_prob`` is the
    probability of the chance edge into a node (1 otherwise). Raises
    ValueError past ``max_nodes`` histories.
    """
    rules = game.rules
    P = E.make_params(rules)
    s0 = E.new_state(P)
    n = rules.players
    whole = rules.deal == "whole"
    if whole:
        sizes = [rules.hand_size] * n + ([rules.kitty_size] if rules.kitty_size else [])
        deals, deal_probs = enumerate_deals(rules.deck_counts, sizes)
        deals = deals.astype(np.int32)
    else:
        deals, deal_probs = np.zeros((1, n + 1, K), np.int32), np.zeros(1)
    max_depth = rules.decisions_per_hand + (1 if whole else rules.num_cards) + 1
    deck_types = np.flatnonzero(np.asarray(rules.deck_counts) > 0).astype(np.int64)
    counts = np.zeros(3, np.int64)            # nodes, decision nodes, terminals
    z = (np.zeros(1, np.int16), np.zeros(1, np.int64), np.zeros(1, np.int8),
         np.zeros((1, 2), np.uint64), np.zeros(1, np.float64), np.zeros(1, np.int32),
         np.zeros((1, n), np.float64))
    _walk(P, s0, deals, deal_probs, whole, max_depth, deck_types, True, max_nodes,
          counts, *z)
    count, ndec, nterm = (int(x) for x in counts)
    if count > max_nodes:
        raise ValueError(f"the tree has more than max_nodes={max_nodes:,} histories")
    depth = np.empty(count, np.int16)
    parent = np.empty(count, np.int64)
    player = np.empty(count, np.int8)
    keys = np.empty((ndec, 2), np.uint64)
    in_prob = np.empty(count, np.float64)
    in_action = np.empty(count, np.int32)
    payoff = np.empty((nterm, n), np.float64)
    _walk(P, s0, deals, deal_probs, whole, max_depth, deck_types, False, max_nodes,
          counts, depth, parent, player, keys, in_prob, in_action, payoff)
    group = np.full(count, -1, np.int32)
    group[player >= 0] = _group_keys(keys, np.argsort(keys[:, 0]))
    del keys
    table, rows = np.unique(payoff, axis=0, return_inverse=True)
    group[player == TERMINAL] = rows.ravel()
    return depth, parent, player, group, in_prob, in_action, np.ascontiguousarray(table)


_M1 = np.uint64(0x100000001B3)
_M2 = np.uint64(0x9E3779B97F4A7C15)
_M3 = np.uint64(0xBF58476D1CE4E5B9)
_S30 = np.uint64(30)
_S31 = np.uint64(31)


@njit(cache=True, inline="always")
def _mix(h1, h2, v):
    """Fold the small integer ``v`` into two independent 64-bit hashes
    (FNV-1a and a splitmix64 chain)."""
    x = np.uint64(v + 1000)
    h1 = (h1 ^ x) * _M1
    z = h2 + x * _M2
    z = (z ^ (z >> _S30)) * _M3
    return h1, z ^ (z >> _S31)


@njit(cache=True)
def infoset_key(p, s, deck_types):
    """``(uint64, uint64)`` key of the information state of the player to move.

    What that player has seen in one hand (every piece of the
    information-state string is a function of it): their seat, the phase,
    their hand as dealt, their passes in order, the cards they received (once
    passing is over: passes are simultaneous, R5), every card played to every
    trick by seat, the current leader, and the kitty once face up (R3 A).
    What is seen when is :mod:`spiel_game._hidden`'s (:func:`received_seen`,
    :func:`kitty_seen`), the model the resampler and the searches use.
    ``deck_types``: int64[k], the card types present in the deck.
    """
    n = p[P_N]
    pl = s[S_CUR]
    ph = s[S_PHASE]
    h1 = np.uint64(0xCBF29CE484222325)
    h2 = np.uint64(0x2545F4914F6CDD1D)
    h1, h2 = _mix(h1, h2, pl)
    h1, h2 = _mix(h1, h2, ph)
    dealt = E.dealt_hand(p, s, pl)
    for c in deck_types:
        h1, h2 = _mix(h1, h2, dealt[c])
    pc = p[P_PASS]
    if pc > 0:
        seq = E.pass_choices(p, s, pl)
        for j in range(pc):
            h1, h2 = _mix(h1, h2, seq[j])
        if received_seen(p, s):
            rec = E.passed(p, s, (pl - s[S_PASSOFF]) % n)
            for c in deck_types:
                h1, h2 = _mix(h1, h2, rec[c])
    tc = E.all_trick_cards(p, s)
    for i in range(p[P_HAND] * n):
        h1, h2 = _mix(h1, h2, tc[i])
    h1, h2 = _mix(h1, h2, s[S_LEADER])
    if kitty_seen(p, s):
        kit = E.kitty(p, s)
        for c in deck_types:
            h1, h2 = _mix(h1, h2, kit[c])
    return h1, h2


@njit(cache=True)
def _group_keys(keys, order):
    """Group ids (0, 1, ...) of equal 128-bit keys. ``keys uint64[D, 2]``;
    ``order``: an argsort of ``keys[:, 0]``. Returns ``int32[D]``."""
    D = keys.shape[0]
    out = np.empty(D, np.int32)
    g = -1
    i = 0
    while i < D:
        j = i + 1
        h1 = keys[order[i], 0]
        while j < D and keys[order[j], 0] == h1:
            j += 1
        run = order[i:j]
        if j - i > 1:
            run = run[np.argsort(keys[run, 1])]
        prev = keys[run[0], 1]
        g += 1
        for r in run:
            if keys[r, 1] != prev:
                g += 1
                prev = keys[r, 1]
            out[r] = g
        i = j
    return out


# carries: the rules and the start (p, s0), the deals and their probabilities (deals, deal_probs,
# whole), the limits (max_depth, deck_types, count_only, max_nodes), the tree written (counts,
# depth, parent, player, keys, in_prob, in_action, payoff)
@njit(cache=True)
def _walk(p, s0, deals, deal_probs, whole, max_depth, deck_types, count_only, max_nodes,
          counts, depth, parent, player, keys, in_prob, in_action, payoff):
    """Depth-first walk. ``counts`` gets (nodes, decision nodes, terminals);
    unless ``count_only``, fills the per-node arrays, ``keys[decision index]``
    and ``payoff[terminal index]``. Stops once past ``max_nodes`` nodes."""
    S = s0.shape[0]
    states = np.empty((max_depth + 1, S), np.int32)
    acts = np.empty((max_depth + 1, K + 2), np.int32)
    nact = np.zeros(max_depth + 1, np.int64)
    pos = np.zeros(max_depth + 1, np.int64)
    ids = np.zeros(max_depth + 1, np.int64)
    states[0, :] = s0
    idx = 0
    ndec = 0
    nterm = 0
    top = 0
    a = -1
    prob = 1.0
    while True:
        s = states[top]
        cur = current_player(p, s)
        if not count_only:
            depth[idx] = top
            parent[idx] = ids[top - 1] if top > 0 else -1
            in_prob[idx] = prob
            in_action[idx] = a
            if cur == TERMINAL:
                player[idx] = TERMINAL
                payoff[nterm, :] = returns(p, s)
            elif cur == CHANCE:
                player[idx] = CHANCE
            else:
                player[idx] = cur
                h1, h2 = infoset_key(p, s, deck_types)
                keys[ndec, 0] = h1
                keys[ndec, 1] = h2
        ids[top] = idx
        idx += 1
        if cur == TERMINAL:
            nterm += 1
            nact[top] = 0
        elif cur == CHANCE and whole:
            nact[top] = deals.shape[0]
        else:
            if cur != CHANCE:
                ndec += 1
            nact[top] = legal_into(p, s, acts[top])
        if idx > max_nodes:
            break
        pos[top] = 0
        while top >= 0 and pos[top] == nact[top]:
            top -= 1
        if top < 0:
            break
        k = pos[top]
        pos[top] += 1
        src = states[top]
        dst = states[top + 1]
        dst[:] = src
        if current_player(p, src) == CHANCE:
            if whole:
                a = k
                prob = deal_probs[k]
                apply_whole_deal(p, dst, deals[k])
            else:
                a = acts[top, k]
                undealt = E.undealt(p, src)
                left = 0
                for c in range(K):
                    left += undealt[c]
                prob = undealt[a] / left
                apply_unchecked(p, dst, a)
        else:
            a = acts[top, k]
            prob = 1.0
            apply_unchecked(p, dst, a)
        top += 1
    counts[0] = idx
    counts[1] = ndec
    counts[2] = nterm
