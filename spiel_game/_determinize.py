"""Determinization: engine states consistent with one player's information state.

A *determinization* fills in the cards a player cannot see (the other hands,
the untaken kitty, the passes it did not see) so that a search can play the
hand out as if it had perfect information. :class:`Determinizer` draws them
with the distribution of ``state.resample_from_infostate`` (the hidden-card
model of :func:`spiel_game._hidden.hidden_cards`, sampled by
:mod:`spiel_game._sampler`), building only the engine state, in microseconds.
The compiled pieces (:func:`determinize` on a :class:`Determinization`
record) are what the searches of :mod:`solvers` call inside their loops;
:func:`deal_shuffled` deals the next hand of a match by shuffling the pack.

Everything random comes from an explicit ``uint64[1]`` splitmix64 stream
(:mod:`spiel_game._rng`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from . import _engine as E
from ._hidden import hidden_cards
from ._resample import draw_into
from ._rng import fill_cards, shuffle_prefix
from ._sampler import HiddenProblem, SamplerWork, build_problem, sample_hidden

__all__ = ["Determinizer", "Determinization", "determinize", "make_determinization",
           "write_determinization", "deal_shuffled"]

K = E.K


@njit(cache=True)
def deal_shuffled(p, s, rng, deck_buf):
    """Deal the next hand of a match (``s`` at a deal) by shuffling the pack."""
    m = fill_cards(E.deck(p), deck_buf, 0)
    shuffle_prefix(deck_buf, m, rng)
    E.apply_deal_sequence(p, s, deck_buf)



@njit(cache=True)
def write_determinization(p, s, det, rng):
    """Put the sampled hidden cards (``det.work.out``) into engine state ``s``
    (a copy of the root); the passes the observer did not see are drawn
    uniformly from ``rng`` during the passing phase."""
    out, forced, tmp, seats, npass = det.work.out, det.forced, det.tmp, det.seats, det.npass
    passing = det.passing
    H = seats.shape[0]
    points = E.card_points(p)                       # the rules' scoring table (R10)
    for h in range(H):
        q = seats[h]
        if q < 0:                                   # the untaken kitty
            kitty = E.kitty(p, s)
            pts = 0
            for c in range(K):
                v = out[h, c] + forced[h, c]
                kitty[c] = v
                pts += v * points[c]
            s[E.S_POTPTS] += pts - det.kitty_pts_old
            continue
        hand = E.hand(p, s, q)
        if not passing:
            for c in range(K):
                hand[c] = out[h, c] + forced[h, c]
        else:                                       # passing: dealt hand, hidden passes
            dealt = E.dealt_hand(p, s, q)
            passed = E.passed(p, s, q)
            choices = E.pass_choices(p, s, q)
            for c in range(K):
                dealt[c] = hand[c] = out[h, c]
                passed[c] = 0
            draw_into(out[h], npass[h], rng, tmp, choices, 0)   # without replacement
            for j in range(npass[h]):
                passed[choices[j]] += 1
                hand[choices[j]] -= 1
        counts = E.suit_counts(p, s, q)
        for su in range(4):
            counts[su] = 0
        for c in range(K):
            counts[E.SUIT_OF[c]] += hand[c]


class Determinization(NamedTuple):
    """What the compiled determinizer reads: the hidden-card problem of one
    information state (:func:`spiel_game._hidden.hidden_cards`, prepared for the
    sampler) and where its draw goes in an engine state, plus work arrays.
    Holder rows follow ``problem.order`` (constrained holders first)."""

    problem: HiddenProblem  # the sampler's tables
    work: SamplerWork       # the sampler's work arrays (``work.out``: the draw)
    passing: bool           # passing phase: the draw is the dealt hands
    seats: np.ndarray       # int64[H] holder seat, -1 = the kitty
    forced: np.ndarray      # int32[H, K] cards a holder provably holds
    npass: np.ndarray       # int64[H] hidden passes already made (passing phase)
    kitty_pts_old: int      # points of the root's kitty (replaced by the draw's)
    tmp: np.ndarray         # int64[8 K + 64] work array

    def __repr__(self) -> str:
        """One line (the default printed every table and work array)."""
        seats = [int(q) for q in self.seats]
        return (f"Determinization(holders {seats} (-1: kitty), passing={self.passing}, "
                f"forced cards {int(self.forced.sum())}, {self.problem!r})")


class Determinizer:
    """Draws engine states consistent with ``player``'s information state.

    The distribution is the one of ``state.resample_from_infostate`` (the same
    hidden-card model, :func:`spiel_game._hidden.hidden_cards`: physical
    assignments of the unseen cards consistent with everything the player
    knows -- own and played cards, voids and lead constraints, the cards it
    passed and that the receiver has not played yet -- each weighted by its
    number of physical deals, a factor ``1 / C(k + p, k)`` for a holder with
    ``k`` unseen and ``p`` played copies of a card); only the engine state is
    built (no history), so a draw costs microseconds. Exact: a uniform
    constrained assignment (rejection while it is likely to succeed, else the
    exact class-table sampler of :mod:`spiel_game._sampler`), accepted with
    probability equal to its weight. ``tests/solvers/test_agents.py`` checks the
    distribution against ``resample_from_infostate`` (chi-square).

    ``sample(rng) -> int32[state_size]``; ``sample_into(s, rng)`` writes into
    ``s`` (int32[state_size], overwritten with the root first). ``rng`` is a
    ``uint64[1]`` stream (:func:`spiel_game._simulator.make_rng`). ``method``
    (for tests): ``auto``, or only ``table`` / only ``rejection`` sampling.
    ``problem``: the sampler's :class:`~spiel_game._sampler.HiddenProblem`;
    ``record``: the :class:`Determinization` the compiled kernels read.
    """

    def __init__(self, state, player: int, *, method: str = "auto"):
        P = np.asarray(state.engine_params)
        s = np.array(state.engine_state)
        if s[E.S_PHASE] not in (E.PH_PASS, E.PH_PLAY, E.PH_MOON):
            raise ValueError("determinization needs a decision node (passing, play or moon choice)")
        self.P, self.root, self.player = P, s, int(player)
        self.record = make_determinization(P, s, int(player), method)
        self.problem = self.record.problem

    def sample_into(self, s: np.ndarray, rng: np.ndarray) -> np.ndarray:
        s[:] = self.root
        if not determinize(self.P, s, rng, self.record):
            raise RuntimeError("determinization: rejection sampling failed (table too large)")
        return s

    def sample(self, rng: np.ndarray) -> np.ndarray:
        return self.sample_into(np.empty_like(self.root), rng)


@njit(cache=True)
def determinize(p, s, rng, det):
    """Draw the hidden cards of ``det`` (a :class:`Determinization`) into engine
    state ``s`` (a copy of the root ``det`` was made from), compiled.

    ``p``: the engine parameters; ``rng``: a ``uint64[1]`` splitmix64 stream.
    Returns False when rejection sampling failed (the caller raises), else True."""
    if det.seats.shape[0] == 0:
        return True
    if not sample_hidden(det.problem, det.work, rng):
        return False
    write_determinization(p, s, det, rng)
    return True


def make_determinization(P, s, me, method: str = "auto") -> Determinization:
    """The :class:`Determinization` of seat ``me`` in engine state ``s`` (a
    decision node): the hidden-card problem of ``me``'s information state and
    its work arrays, the record :func:`determinize` reads. ``method``: as in
    :class:`Determinizer`."""
    hc = hidden_cards(P, s, me)
    hp = build_problem(hc.pool, hc.sizes, hc.forbid, hc.weights, method=method)
    o = hp.order
    kitty = E.kitty(P, s).astype(np.int64)
    return Determinization(hp, hp.buffers(), hc.passing,
                           np.ascontiguousarray(hc.seats[o]),
                           np.ascontiguousarray(hc.forced[o].astype(np.int32)),
                           np.ascontiguousarray(hc.npass[o]),
                           int((kitty * E.card_points(P)).sum()), np.zeros(K * 8 + 64, np.int64))
