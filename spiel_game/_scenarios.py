"""Build states from explicit hands: for tests, examples and notebooks.

>>> game = spiel_game.load(deck="custom", players=4, suits="CS", ranks="9T",
...                        pass_count=0)
>>> st = state_from_hands(game, ["TS 9H", ...])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import cards as C

__all__ = ["parse_cards", "deal_actions", "state_from_hands"]


def parse_cards(text: str | Sequence[str] | Sequence[int]) -> list[int]:
    """``"QS TH 0C"`` or ``["QS", "TH"]`` or ids -> list of card ids."""
    if isinstance(text, str):
        return [C.string_to_card(t) for t in text.split()]
    return [c if isinstance(c, (int, np.integer)) else C.string_to_card(c) for c in text]


def deal_actions(game, hands: Sequence, kitty=()) -> list[int]:
    """Chance actions that deal ``hands[seat]`` (and the kitty) under R4.

    Cards are dealt one at a time clockwise from the seat left of the dealer
    (seat 0 in the first hand), the kitty last. Raises ValueError if the hands
    do not use exactly the game's deck.
    """
    r = game.rules
    n = r.players
    hs = [parse_cards(h) for h in hands]
    kit = parse_cards(kitty)
    if len(hs) != n:
        raise ValueError(f"expected {n} hands, got {len(hs)}")
    for q, h in enumerate(hs):
        if len(h) != r.hand_size:
            raise ValueError(f"hand {q} has {len(h)} cards; the hand size is {r.hand_size}")
    if len(kit) != r.kitty_size:
        raise ValueError(f"kitty has {len(kit)} cards; it must have {r.kitty_size}")
    counts = np.zeros(C.NUM_CARD_TYPES, int)
    for c in [c for h in hs for c in h] + kit:
        counts[c] += 1
    if tuple(counts) != r.deck_counts:
        diff = {C.card_to_string(c): int(counts[c] - r.deck_counts[c])
                for c in range(C.NUM_CARD_TYPES) if counts[c] != r.deck_counts[c]}
        raise ValueError(f"hands do not match the deck (extra +/missing -): {diff}")
    seq = []
    for i in range(r.hand_size):
        for q in range(n):
            seq.append(hs[q][i])
    return seq + kit


def state_from_hands(game, hands: Sequence, kitty=(), passes: Sequence = (), plays: Sequence = ()):
    """A state after dealing ``hands`` (seat 0 first), then ``passes`` and ``plays``.

    ``passes``: one entry per seat (in passing order) of the cards it passes;
    ``plays``: cards in the order played (strings or ids).
    """
    if game.rules.deal == "whole":
        raise ValueError("state_from_hands needs deal='cards'")
    st = game.new_initial_state()
    for a in deal_actions(game, hands, kitty):
        st.apply_action(a)
    for chosen in passes:
        for c in parse_cards(chosen):
            st.apply_action(c)
    for c in parse_cards(list(plays) if not isinstance(plays, str) else plays):
        st.apply_action(c)
    return st
