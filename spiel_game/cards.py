"""Card identifiers, notation (RULES.md R2) and the deck tables of R3.

A *card type* is an integer id. The 52 cards of a pack use OpenSpiel's
``hearts`` numbering, ``rank * 4 + suit`` with ranks ``2..A`` = ``0..12`` and
suits ``C D H S`` = ``0..3``, so classic-mode action ids coincide with
OpenSpiel's C++ ``hearts``. The joker ("zero of clubs", ``0C``) is id 52.
Identical copies of a card share one id; decks are vectors of copy counts.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "NUM_CARD_TYPES", "JOKER", "SUITS", "RANKS", "CLUBS", "DIAMONDS", "HEARTS",
    "SPADES", "QS", "KS", "AS", "JD", "TWO_CLUBS", "card", "card_suit", "card_rank",
    "card_to_string", "string_to_card", "SUIT_OF", "ORDER_OF", "POINTS_OF",
    "SUIT_SYMBOLS", "cards_to_string",
]

SUITS = "CDHS"
RANKS = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
NUM_CARD_TYPES = 53
JOKER = 52
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def card(rank: str | int, suit: str | int) -> int:
    """Card id from a rank ('2'..'A' or 0..12) and suit ('CDHS' or 0..3)."""
    r = RANKS.index(rank) if isinstance(rank, str) else int(rank)
    s = SUITS.index(suit) if isinstance(suit, str) else int(suit)
    if not (0 <= r < 13 and 0 <= s < 4):
        raise ValueError(f"no card with rank {rank!r} and suit {suit!r}")
    return r * 4 + s


#: Named cards the rules and the players reason about.
QS = card("Q", "S")            # the Black Maria (R9, R10)
KS = card("K", "S")            # the spades that can catch a Black Maria
AS = card("A", "S")
JD = card("J", "D")            # worth ``jack_of_diamonds`` points (Omnibus Hearts)
TWO_CLUBS = card("2", "C")

#: Suit of each card type (the joker is a club).
SUIT_OF = np.array([c % 4 for c in range(52)] + [CLUBS], dtype=np.int32)
#: Order of each card type within its suit: 2 -> 1 ... A -> 13, joker -> 0.
ORDER_OF = np.array([c // 4 + 1 for c in range(52)] + [0], dtype=np.int32)
#: Points of each card type (R10): hearts 1, the Black Maria 13.
POINTS_OF = np.array(
    [1 if c % 4 == HEARTS else (13 if c == QS else 0) for c in range(52)] + [0],
    dtype=np.int32)
for _a in (SUIT_OF, ORDER_OF, POINTS_OF):
    _a.setflags(write=False)


def card_suit(c: int) -> int:
    return int(SUIT_OF[c])


def card_rank(c: int) -> int:
    """0 for the joker, 1 for a two ... 13 for an ace."""
    return int(ORDER_OF[c])


def card_to_string(c: int) -> str:
    """R2 notation: ``QS``, ``TH``, ``2C``; the joker is ``0C``."""
    if c == JOKER:
        return "0C"
    if not 0 <= c < 52:
        raise ValueError(f"card id {c} is out of range 0..52")
    return RANKS[c // 4] + SUITS[c % 4]


def string_to_card(text: str) -> int:
    """Inverse of :func:`card_to_string` (case-insensitive, '10' accepted)."""
    t = text.strip().upper().replace("10", "T")
    if t == "0C":
        return JOKER
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"{text!r} is not a card: expected a rank of {RANKS} then a suit "
            f"of {SUITS} (e.g. 'QS', 'TH'), or '0C' for the joker")
    return card(t[0], t[1])


#: Card ids in display order: by suit (C D H S), then rank (joker lowest).
DISPLAY_ORDER = tuple(sorted(range(NUM_CARD_TYPES), key=lambda c: (SUIT_OF[c], ORDER_OF[c])))
_NAMES = tuple(card_to_string(c) for c in range(NUM_CARD_TYPES))


def cards_to_string(counts) -> str:
    """Space-separated cards of a count vector, by suit then rank, copies repeated."""
    counts = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    out = []
    for c in DISPLAY_ORDER:
        k = counts[c]
        if k:
            out.extend([_NAMES[c]] * int(k))
    return " ".join(out)
