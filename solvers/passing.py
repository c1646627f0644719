"""Named card-passing conventions (issue 7).

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

from spiel_game.engine import K, S_PHASE, PH_PASS
from spiel_game.policies import CONVENTIONS, convention_policy, pass_scores

__all__ = ["CONVENTIONS", "convention_code", "convention_policy", "pass_scores", "compiled_convention",
           "choose_pass", "ConventionBot", "ConventionPolicy"]



def convention_code(name: str) -> int:
    if name not in CONVENTIONS:
        raise ValueError(f"unknown passing convention {name!r}; known: {list(CONVENTIONS)}")
    return CONVENTIONS.index(name)


def choose_pass(name: str, state) -> dict[int, float]:
    """The convention's distribution over the next pass action in a pyspiel state."""
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
    ``"pass:dump_points+heuristic"`` (runs in the simulator's cached kernel)."""
    convention_code(name)
    if play not in ("heuristic", "uniform"):
        raise ValueError(f"play must be 'heuristic' or 'uniform', got {play!r}")
    return f"pass:{name}+{play}"
