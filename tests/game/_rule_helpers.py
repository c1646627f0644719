"""Shared helpers of the rule-clause tests (tests/game/test_r*_*.py).

They only use the public surface: ``spiel_game.load``,
``spiel_game._scenarios.state_from_hands``, pyspiel's State API and the text
of ``str(state)`` (spiel_game._render).
"""

from __future__ import annotations

import re

import spiel_game
from spiel_game import cards as C
from spiel_game._playout import play_random
from spiel_game._scenarios import parse_cards, state_from_hands

__all__ = ["load", "deal", "fill_hands", "play", "hand_points", "trick_line",
           "set_aside_line", "names", "legal", "random_playout", "hand_counts",
           "hand_of", "last_hand_and_scores", "hand_number", "dealer",
           "play_out_hand"]


def load(**params):
    return spiel_game.load(**params)


def names(cards) -> list[str]:
    """Card ids -> R2 strings, in the given order."""
    return [C.card_to_string(c) for c in cards]


def legal(state) -> list[str]:
    """The legal actions of the player to move, as strings."""
    p = state.current_player()
    return [state.action_to_string(p, a) for a in state.legal_actions()]


def fill_hands(game, fixed=None, kitty=(), avoid=None) -> list[str]:
    """Complete hands for ``game``'s deck.

    ``fixed``: {seat: "cards"} that the seat must hold; ``kitty``: the kitty
    (must be complete); ``avoid``: {seat: "suits"} the filled-in cards of that
    seat must not have (a way to make a seat void in a suit). The remaining
    cards are dealt round robin in card-id order, constrained seats first.
    """
    r = game.rules
    n, h = r.players, r.hand_size
    fixed = {q: parse_cards(v) for q, v in (fixed or {}).items()}
    avoid = dict(avoid or {})
    left = list(r.deck_counts)
    for c in [c for v in fixed.values() for c in v] + parse_cards(kitty):
        left[c] -= 1
        if left[c] < 0:
            raise ValueError(f"{C.card_to_string(c)} is used more often than the deck has it")
    pool = [c for c in range(C.NUM_CARD_TYPES) for _ in range(left[c])]
    hands = {q: list(fixed.get(q, [])) for q in range(n)}
    for group in ([q for q in range(n) if q in avoid], [q for q in range(n) if q not in avoid]):
        while any(len(hands[q]) < h for q in group):
            progressed = False
            for q in group:
                if len(hands[q]) >= h:
                    continue
                bad = avoid.get(q, "")
                for j, c in enumerate(pool):
                    if C.SUITS[C.card_suit(c)] not in bad:
                        hands[q].append(pool.pop(j))
                        progressed = True
                        break
            if not progressed:
                raise ValueError("cannot fill the hands under the given constraints")
    if pool:
        raise ValueError(f"cards left over: {names(pool)}")
    return [" ".join(names(hands[q])) for q in range(n)]


def deal(game, hands, kitty=(), passes=(), plays=()):
    """``state_from_hands`` with card strings for the plays ("TS 9H ...")."""
    if isinstance(plays, str):
        plays = plays.split()
    return state_from_hands(game, hands, kitty=kitty, passes=passes, plays=plays)


def play(state, cards: str) -> None:
    """Apply the cards of ``cards`` ("TS 9H 9H TS") in order."""
    for t in cards.split():
        state.apply_action(C.string_to_card(t))


def _line(state, prefix: str) -> str:
    for line in str(state).splitlines():
        if line.startswith(prefix):
            return line
    raise AssertionError(f"no line starting with {prefix!r} in:\n{state}")


def hand_points(state) -> list[int]:
    """Points taken so far in this hand, from ``str(state)`` (before the moon rule)."""
    line = _line(state, "Points this hand:")
    return [int(x) for x in re.findall(r"P\d+:(-?\d+)", line)]


def last_hand_and_scores(state) -> tuple[list[int], list[int]]:
    line = _line(state, "Last hand after moon rule:")
    hp, sc = line.split(";")
    return ([int(x) for x in re.findall(r"P\d+:(-?\d+)", hp)],
            [int(x) for x in re.findall(r"P\d+:(-?\d+)", sc)])


def hand_of(state, seat: int) -> str:
    """The cards seat ``seat`` holds now, as rendered (by suit, then rank)."""
    line = _line(state, f"P{seat}: hand [")
    return line.split("hand [", 1)[1].split("]", 1)[0]


def trick_line(state, t: int) -> str:
    """The line of trick ``t`` (1-based, as rendered)."""
    return _line(state, f"Trick {t}:")


def set_aside_line(state) -> str:
    return _line(state, "Set aside:")


def hand_counts(hand: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in hand.split():
        out[t] = out.get(t, 0) + 1
    return out


def random_playout(game, seed: int, state=None):
    """Play to the end with uniformly random legal moves (chance by its probabilities)."""
    st = state if state is not None else game.new_initial_state()
    return play_random(st, seed, in_place=True)


def hand_number(state) -> int:
    """The 0-based number of the hand in progress (R11), from ``str(state)``."""
    return int(_line(state, "Hand ").split(",", 1)[0].split()[1])


def dealer(state) -> int:
    return int(_line(state, "Hand ").split("dealer P", 1)[1].split(",", 1)[0])


def play_out_hand(state, seed: int = 0):
    """Finish the current hand with random legal moves; stop at the next hand's deal."""
    h = hand_number(state)
    return play_random(state, seed, until=lambda st: hand_number(st) != h, in_place=True)
