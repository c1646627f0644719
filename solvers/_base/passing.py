"""Named card-passing conventions.

A convention decides the passing phase only (R5): at each pass action it picks
one card of the hand, so a convention is applied card by card with the game's
``pass_count``. It composes with any play agent or policy
(:class:`ConventionBot`, :class:`ConventionPolicy`) and runs inside the
compiled simulator (:func:`convention_policy`, numba).

Conventions (each scores the cards still held; the highest score is passed
next, ties to the lower card id; ``random`` is uniform):

``random``
    Uniform over the cards held.
``high``
    The highest cards, whatever the suit (aces first; spades before hearts
    before diamonds before clubs on equal rank).
``dump_points``
    Points and their catchers: Black Marias (QS) first, then hearts from the
    ace down, then the A and K of spades, then the highest other cards.
``void_short``
    Void the shortest suit: all cards of the shortest non-empty suit (highest
    first), then the next shortest. Hearts are voided last (keeping hearts low
    is safer than shedding them).
``keep_maria``
    Keep every Black Maria (set up the Aardvark, R9 B): never pass QS while
    anything else is held; pass hearts from the ace down and the A/K of spades
    that would catch a Black Maria, then the highest cards.
``low``
    The lowest cards (a deliberately poor convention: it keeps every danger).
``expert``
    What a strong player does: pass a Black Maria unless protected by five or
    more low spades (then keep it); pass the A/K of spades unless holding a
    Black Maria with that protection; then high hearts; then void a short
    minor suit (clubs or diamonds with at most pass_count cards); then the
    highest cards.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from numba import njit

from spiel_game import _engine as E
from spiel_game.cards import HEARTS, ORDER_OF, QS, SPADES, SUIT_OF, card
from spiel_game._engine import K, P_PASS, PH_PASS, S_CUR, S_PHASE
from spiel_game._policies import uniform_policy
from spiel_game._rng import rand_below
from spiel_game._simulator import register_policy

from .heuristic import heuristic_policy

__all__ = ["CONVENTIONS", "convention_code", "convention_policy", "policy_by_code", "pass_scores",
           "CONVENTION_POLICIES", "compiled_convention", "choose_pass", "ConventionBot",
           "ConventionPolicy"]

#: The names of the passing conventions (:mod:`solvers._base.passing` describes
#: each), in the order of their compiled codes (a name's index).
CONVENTIONS = ("random", "high", "dump_points", "void_short", "keep_maria", "low", "expert")
_JACK = int(ORDER_OF[card("J", "S")])


@njit(cache=True)
def pass_scores(code, p, s, player, out):
    """Score every card type for ``player``'s next pass under convention ``code``
    (higher passes first); cards not held score -1e9. ``out``: float64[53]."""
    held = E.hand(p, s, player)
    suitn = np.zeros(4, np.int64)
    for c in range(K):
        suitn[SUIT_OF[c]] += held[c]
    low_spades = 0
    for c in range(K):
        if SUIT_OF[c] == SPADES and ORDER_OF[c] < ORDER_OF[QS]:
            low_spades += held[c]
    qs_held = held[QS] > 0
    pc = p[P_PASS]
    for c in range(K):
        if held[c] <= 0:
            out[c] = -1e9
            continue
        su = SUIT_OF[c]
        o = ORDER_OF[c]
        base = o * 4.0 + su            # 'high' order: rank, then S > H > D > C
        v = 0.0
        if code == 0:                  # random: all equal (chosen uniformly below)
            v = 0.0
        elif code == 1:                # high
            v = base
        elif code == 2 or code == 4:   # dump_points / keep_maria: differ on QS only
            if c == QS:
                v = 10000.0 if code == 2 else -5000.0
            elif su == HEARTS:
                v = 5000.0 + o
            elif su == SPADES and o > ORDER_OF[QS]:
                v = 4000.0 + o
            else:
                v = base
        elif code == 3:                # void_short
            n_su = suitn[su]
            v = (1000.0 - n_su * 50.0) + o - (500.0 if su == HEARTS else 0.0)
        elif code == 5:                # low
            v = -base
        else:                          # expert
            protected = low_spades >= 5
            if c == QS:
                v = -3000.0 if protected else 10000.0
            elif su == SPADES and o > ORDER_OF[QS]:
                v = 1000.0 + o if (qs_held and protected) else 8000.0 + o
            elif su == HEARTS and o >= _JACK:
                v = 6000.0 + o
            elif su < 2 and suitn[su] <= pc:
                v = 3000.0 + o - suitn[su] * 20.0
            else:
                v = base
        out[c] = v


@njit(cache=True)
def convention_policy(code, p, s, legal, k, rng):
    """Convention ``code``'s pass among ``legal[:k]`` (the passing phase only)."""
    if code == 0:
        return legal[rand_below(rng, k)]
    scores = np.empty(K, np.float64)
    pass_scores(code, p, s, s[S_CUR], scores)
    best = legal[0]
    bv = -1e18
    for i in range(k):
        c = legal[i]
        if scores[c] > bv:
            bv = scores[c]
            best = c
    return best


@njit(cache=True)
def policy_by_code(code, p, s, legal, k, rng):
    """A compiled policy by code: 0 uniform, 1 the heuristic, ``2 + c`` passing
    convention ``c`` (:data:`CONVENTIONS`) while passing and the heuristic
    afterwards (the targets of :mod:`solvers._abr` and of its world model)."""
    if code == 0:
        return uniform_policy(p, s, legal, k, rng)
    if code >= 2 and s[E.S_PHASE] == E.PH_PASS:
        return convention_policy(code - 2, p, s, legal, k, rng)
    return heuristic_policy(p, s, legal, k, rng)


# Each convention as a simulator policy (p, s, legal, k, rng) for the passing phase.
@njit(cache=True)
def pass_random(p, s, legal, k, rng):
    return convention_policy(0, p, s, legal, k, rng)


@njit(cache=True)
def pass_high(p, s, legal, k, rng):
    return convention_policy(1, p, s, legal, k, rng)


@njit(cache=True)
def pass_dump_points(p, s, legal, k, rng):
    return convention_policy(2, p, s, legal, k, rng)


@njit(cache=True)
def pass_void_short(p, s, legal, k, rng):
    return convention_policy(3, p, s, legal, k, rng)


@njit(cache=True)
def pass_keep_maria(p, s, legal, k, rng):
    return convention_policy(4, p, s, legal, k, rng)


@njit(cache=True)
def pass_low(p, s, legal, k, rng):
    return convention_policy(5, p, s, legal, k, rng)


@njit(cache=True)
def pass_expert(p, s, legal, k, rng):
    return convention_policy(6, p, s, legal, k, rng)


#: Convention name -> its compiled passing-phase policy.
CONVENTION_POLICIES = {"random": pass_random, "high": pass_high,
                       "dump_points": pass_dump_points, "void_short": pass_void_short,
                       "keep_maria": pass_keep_maria, "low": pass_low, "expert": pass_expert}
assert tuple(CONVENTION_POLICIES) == CONVENTIONS



def convention_code(name: str) -> int:
    if name not in CONVENTIONS:
        raise ValueError(f"unknown passing convention {name!r}; known: {list(CONVENTIONS)}")
    return CONVENTIONS.index(name)


def choose_pass(name: str, state) -> dict[int, float]:
    """The distribution of convention ``name`` (one of :data:`CONVENTIONS`) over the
    next pass action of ``state`` (a Cancellation Hearts state in the passing
    phase, R5): ``{action: probability}`` over the legal actions, the card the
    convention passes next with probability 1 (uniform for ``random``). A pass
    action is one card; apply ``pass_count`` of them for a whole pass. An
    unknown name, or a state outside the passing phase, raises ``ValueError``."""
    code = convention_code(name)
    if state.engine_state[S_PHASE] != PH_PASS:
        raise ValueError("a passing convention only acts in the passing phase (R5)")
    legal = state.legal_actions()
    if code == 0:
        return {a: 1.0 / len(legal) for a in legal}
    scores = np.empty(K, np.float64)
    pass_scores(code, state.engine_params, np.asarray(state.engine_state),
                state.current_player(), scores)
    best = max(legal, key=lambda a: (scores[a], -a))
    return {a: float(a == best) for a in legal}


class ConventionBot(pyspiel.Bot):
    """Passes by a convention and plays with ``play_bot`` (any pyspiel.Bot)."""

    def __init__(self, convention: str, play_bot: pyspiel.Bot, *, seed: int = 0):
        super().__init__()
        convention_code(convention)
        self._convention = convention
        self._play = play_bot
        self._rng = np.random.default_rng(seed)

    def step(self, state):
        if state.engine_state[S_PHASE] == PH_PASS:
            dist = choose_pass(self._convention, state)
            acts = list(dist)
            probs = np.array([dist[a] for a in acts])
            return int(acts[int(self._rng.choice(len(acts), p=probs / probs.sum()))])
        return self._play.step(state)

    def restart_at(self, state):
        self._play.restart_at(state)

    def inform_action(self, state, player_id, action):
        self._play.inform_action(state, player_id, action)


class ConventionPolicy:
    """An OpenSpiel-style policy: the convention while passing, ``play_policy`` after.

    ``play_policy`` is any object with ``action_probabilities(state, player_id=None)``
    (e.g. an ``open_spiel.python.policy.Policy``)."""

    def __init__(self, convention: str, play_policy):
        convention_code(convention)
        self.convention = convention
        self.play_policy = play_policy

    def action_probabilities(self, state, player_id=None):
        if state.engine_state[S_PHASE] == PH_PASS:
            return choose_pass(self.convention, state)
        return self.play_policy.action_probabilities(state, player_id)


def compiled_convention(name: str, play: str = "heuristic") -> str:
    """The simulator policy name for ``name`` while passing and the compiled
    ``play`` policy (``heuristic`` or ``uniform``) afterwards, e.g.
    ``"pass:dump_points+heuristic"`` (registered in the simulator's policy table)."""
    convention_code(name)
    if play not in ("heuristic", "uniform"):
        raise ValueError(f"play must be 'heuristic' or 'uniform', got {play!r}")
    return f"pass:{name}+{play}"


# The simulator's names for each convention followed by a compiled play policy.
for _name, _f in CONVENTION_POLICIES.items():
    register_policy(f"pass:{_name}+heuristic", heuristic_policy, passing=_f, proven_legal=True)
    register_policy(f"pass:{_name}+uniform", uniform_policy, passing=_f, proven_legal=True)
