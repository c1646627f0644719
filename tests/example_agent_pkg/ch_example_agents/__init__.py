"""An example plug-in agent package for Cancellation Hearts.

The agent ``lowest`` plays the lowest-ranked legal card (on ties: the suit
named by ``prefer_suit`` first, then the lowest card id), passes its highest
cards, and subtracts when it shoots the moon. Its factory is declared in
``pyproject.toml`` under the entry-point group ``cancellation_hearts.agents``::

    [project.entry-points."cancellation_hearts.agents"]
    lowest = "ch_example_agents:make_lowest"

after which ``solvers._registry.make_agent("lowest(prefer_suit='S')", game,
player, seed)`` builds it, and tournaments accept the spec. A bad parameter
raises :class:`solvers._base.bots.AgentParameterError` (through
:func:`solvers._base.bots.check_choice`), so ``make_agent`` reports it as a spec
error; anything else the factory raised would be reported as a failure of
the factory. The seed is an int in ``[0, 2**63)`` (this agent needs none).
"""

from __future__ import annotations

from solvers._base.bots import Agent, check_choice
from spiel_game import cards as C
from spiel_game import _engine as E

__all__ = ["LowestCardBot", "make_lowest"]


class LowestCardBot(Agent):
    """Lowest legal card; highest card when passing (deterministic)."""

    def __init__(self, game, player, seed=0, *, prefer_suit=None):
        super().__init__(game, player, seed)
        if prefer_suit is not None:
            check_choice("lowest", "prefer_suit", prefer_suit, tuple(C.SUITS))
        self.prefer = None if prefer_suit is None else C.SUITS.index(prefer_suit)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if E.MOON_SUBTRACT_ACTION in legal:
            a = E.MOON_SUBTRACT_ACTION
        else:
            def key(c):
                return (C.card_rank(c), C.card_suit(c) != self.prefer, c)
            passing = state.engine_state[E.S_PHASE] == E.PH_PASS
            a = max(legal, key=key) if passing else min(legal, key=key)
        return [(b, 1.0 if b == a else 0.0) for b in legal], a


def make_lowest(game, player, seed=0, *, prefer_suit=None):
    """Factory of the entry point: ``lowest(prefer_suit=None | 'C' | 'D' | 'H' | 'S')``."""
    return LowestCardBot(game, player, seed, prefer_suit=prefer_suit)
