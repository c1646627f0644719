"""The rule set of one game: parameters, validation, deck construction.

``RuleSet`` is a frozen, validated value built from pyspiel game parameters
(:func:`RuleSet.from_params`). Every rule variant of RULES.md is a field; the
engine receives it as a flat ``int32`` vector (:meth:`RuleSet.engine_params`).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import cards as C

__all__ = ["RuleSet", "PARAMETER_DEFAULTS", "PRESETS", "preset", "GameParameterError",
           "MAX_MOON_POINTS", "MAX_TARGET_SCORE", "MAX_HANDS", "CLAUSES", "clause",
           "unknown_parameters_message", "UnknownPresetError"]


class GameParameterError(ValueError):
    """A game parameter is unknown or has a value the rules do not allow."""


#: Each clause of RULES.md in words, for messages: ``"R7"`` alone means little to a
#: user. A and B are the rules' two sources (A: the kitty scheme, B: the balanced one).
CLAUSES: dict[str, str] = {
    "R1": "players and seating",
    "R2": "cards",
    "R3": "deck composition",
    "R3 A": "the kitty deck",
    "R3 B": "the balanced deck",
    "R4": "dealing",
    "R5": "passing",
    "R6": "leading the first trick",
    "R6 A": "the dealer's left leads the first trick",
    "R6 B": "the opening card leads the first trick",
    "R7": "playing a trick",
    "R8": "void tricks",
    "R8 A": "a void last trick scores for no one",
    "R8 B": "a void last trick goes to its leader",
    "R9": "hearts and the Black Maria",
    "R10": "scoring a hand",
    "R11": "the game",
}


def clause(*ids: str) -> str:
    """Rule clauses with their words, for the start of a message:
    ``clause("R1", "R3 B")`` -> ``"R1 (players and seating), R3 B (the balanced deck)"``."""
    return ", ".join(f"{i} ({CLAUSES[i]})" for i in ids)


def _typed_value(name: str, value: Any) -> str:
    """``name=value (type)``: a value echoed with its type, so that ``'6'`` and
    ``6`` do not look alike."""
    return f"{name}={value!r} ({type(value).__name__})"


def unknown_parameters_message(unknown, allowed, what: str = "python_cancellation_hearts") -> str:
    """``unknown parameter 'player'; did you mean 'players'? allowed: ...``: the
    message for unknown parameter names, with the closest allowed name of each."""
    unknown, allowed = list(unknown), sorted(allowed)
    hints = []
    for k in unknown:
        close = difflib.get_close_matches(str(k), allowed, n=1)
        if close:
            hints.append(f"{k!r} -> {close[0]!r}" if len(unknown) > 1 else
                         f"did you mean {close[0]!r}?")
    names = ", ".join(repr(k) for k in unknown)
    head = (f"unknown parameter {names}" if len(unknown) == 1
            else f"unknown parameters {names}")
    if not hints:
        return f"{head} of {what}; allowed: {', '.join(allowed)}"
    hint = hints[0] if len(unknown) == 1 else f"did you mean {', '.join(hints)}?"
    return f"{head} of {what}; {hint} allowed: {', '.join(allowed)}"


#: Public parameters of ``python_cancellation_hearts`` and their defaults.
#: ``deck="classic"`` needs ``players=4, packs=1`` given explicitly (pyspiel
#: fills in defaults, so they cannot be inferred); the preset ``classic`` does it.
PARAMETER_DEFAULTS: dict[str, Any] = {
    "players": 6,
    "deck": "balanced",
    "packs": 2,
    "suits": "CDHS",
    "ranks": "23456789TJQKA",
    "pass_count": -1,
    "pass_offset": 1,
    "first_lead": "scheme",
    "void_last_trick": "leader",
    "points_on_first_trick": "scheme",
    "moon": "add",
    "moon_points": 26,
    "target_score": 0,
    "max_hands": 100,
    "utility": "points",
    "deal": "cards",
    "jack_of_diamonds": 0,
}

#: Largest allowed ``moon_points``, ``target_score`` and ``max_hands``. Scores are
#: ``int32`` in the engine. One hand gives a player points in
#: ``[total - moon_points + bonus, max(total, moon_points)]`` with ``total`` <= 104
#: (four packs of 26 penalty points) and ``bonus`` >= -104 (four Jacks of
#: Diamonds of -26), so ``|hand points| <= 10,000``; a match has at most
#: ``max_hands`` hands, so ``|score| <= 10,000 * 10,000 = 10^8`` and even the sum
#: of 11 seats' scores, ``1.1 * 10^9``, is below ``2^31 - 1 = 2,147,483,647``. A
#: target above the largest reachable score could never be reached; 10^6 is more
#: than any match needs. The longest game, ``10,000`` hands of at most 417
#: decisions, is 4.2 million actions (an ``int`` for pyspiel's ``GameInfo``).
MAX_MOON_POINTS = 10_000
MAX_TARGET_SCORE = 1_000_000
MAX_HANDS = 10_000
#: Points the Jack of Diamonds may be worth (``jack_of_diamonds``): 0 (off, the
#: default) down to -26; Omnibus Hearts plays -10.
JACK_OF_DIAMONDS_RANGE = (-26, 0)

#: What each integer parameter allows (the rules check the details).
_INT_ALLOWED = {
    "players": "2..11 (5..11 for deck='balanced'/'kitty', 4 for 'classic')",
    "packs": "1..4 for deck='custom', 2 for 'balanced'/'kitty' (3 with 'balanced' "
             "and 11 players), 1 for 'classic'",
    "pass_count": "-1 (the scheme's rule) or 0..the hand size",
    "pass_offset": "a seat offset in -(players-1)..players-1",
    "moon_points": f"0..{MAX_MOON_POINTS}",
    "target_score": f"0..{MAX_TARGET_SCORE} (0 = one hand)",
    "max_hands": f"1..{MAX_HANDS}",
    "jack_of_diamonds": "-26..0 (0 = off; Omnibus Hearts: -10)",
}

_CHOICES = {
    "deck": ("balanced", "kitty", "classic", "custom"),
    "first_lead": ("scheme", "opening_card", "left_of_dealer"),
    "void_last_trick": ("leader", "discard"),
    "points_on_first_trick": ("scheme", "allowed", "forbidden"),
    "moon": ("add", "subtract", "choose", "both", "off"),
    "utility": ("points", "zero_sum"),
    "deal": ("cards", "whole"),
}

#: R5 B: "at most a quarter of the hand", by number of players.
_BALANCED_PASS = {5: 5, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2, 11: 2}

# The engine's parameter vector, generated from one field table: ``(name,
# size, meaning)`` in order; ``P_<name>`` is the index of the field's first
# entry. ``engine.make_params`` appends the state layout (``engine.L_*``).
PARAM_FIELDS = (
    ("N", 1, "players"),
    ("HAND", 1, "cards per hand (= tricks per hand)"),
    ("KITTY", 1, "cards in the kitty (R3 A), 0 without"),
    ("NCARDS", 1, "cards in the deck"),
    ("PASS", 1, "cards each player passes (R5), 0 without passing"),
    ("PASS_OFFSET", 1, "seat offset of the first hand's pass (R5, R11), 0 without passing"),
    ("FIRST_LEAD", 1, "FIRST_LEAD_OPENING or FIRST_LEAD_LEFT (R6)"),
    ("OPENING", 1, "the opening card (R6 B), -1 without"),
    ("VOID_LAST", 1, "VOID_LEADER or VOID_DISCARD (R8)"),
    ("NO_PTS_FIRST", 1, "1: no hearts or QS on the first trick while avoidable"),
    ("MOON", 1, "MOON_OFF, MOON_ADD, MOON_SUBTRACT, MOON_CHOOSE or MOON_BOTH (R10)"),
    ("MOON_PTS", 1, "points of shooting the moon (R10)"),
    ("TARGET", 1, "target score of a match (R11), 0 for one hand"),
    ("MAX_HANDS", 1, "most hands played"),
    ("UTILITY", 1, "UTIL_POINTS or UTIL_ZERO_SUM"),
    ("PENALTY_PTS", 1, "points of the penalty cards (hearts, QS) in the deck: "
                       "what a shooter takes (R10)"),
    ("BONUS_PTS", 1, "points of the cards worth less than 0 in the deck "
                     "(jack_of_diamonds), <= 0"),
    ("MAX_COPIES", 1, "most copies of one card type in the deck"),
    ("DECK", C.NUM_CARD_TYPES, "copies of each card type in the deck (R3)"),
    ("POINTS", C.NUM_CARD_TYPES, "points of each card type: the scoring table (R10)"),
)


def _field_offsets(fields):
    out, off = [], 0
    for _, size, _ in fields:
        out.append(off)
        off += size
    return out + [off]


(P_N, P_HAND, P_KITTY, P_NCARDS, P_PASS, P_PASS_OFFSET, P_FIRST_LEAD, P_OPENING,
 P_VOID_LAST, P_NO_PTS_FIRST, P_MOON, P_MOON_PTS, P_TARGET, P_MAX_HANDS, P_UTILITY,
 P_PENALTY_PTS, P_BONUS_PTS, P_MAX_COPIES, P_DECK, P_POINTS, P_SIZE) = _field_offsets(PARAM_FIELDS)
assert all(globals()["P_" + name] == off
           for (name, _, _), off in zip(PARAM_FIELDS, _field_offsets(PARAM_FIELDS)))

FIRST_LEAD_OPENING, FIRST_LEAD_LEFT = 0, 1
VOID_LEADER, VOID_DISCARD = 0, 1
MOON_OFF, MOON_ADD, MOON_SUBTRACT, MOON_CHOOSE, MOON_BOTH = 0, 1, 2, 3, 4
_MOON_CODE = {"off": MOON_OFF, "add": MOON_ADD, "subtract": MOON_SUBTRACT,
              "choose": MOON_CHOOSE, "both": MOON_BOTH}
UTIL_POINTS, UTIL_ZERO_SUM = 0, 1


def _balanced_deck(players: int, packs: int) -> tuple[np.ndarray, str]:
    """R3 B: the deck table. Returns (copy counts, description)."""
    deck = np.zeros(C.NUM_CARD_TYPES, np.int32)
    deck[:52] = packs
    two_c, two_d, two_s = C.card("2", "C"), C.card("2", "D"), C.card("2", "S")
    if packs == 3:
        deck[two_c] -= 2
        return deck, "three packs less two 2C"
    table = {
        5: ({C.JOKER: 1}, "one joker added"),
        6: ({two_c: -1, two_d: -1}, "one 2C and one 2D removed"),
        7: ({C.JOKER: 1}, "one joker added"),
        8: ({C.JOKER: 1, two_c: -1}, "one joker added, one 2C removed"),
        9: ({two_c: -1, two_d: -2, two_s: -2}, "one 2C, both 2D, both 2S removed"),
        10: ({two_c: -1, two_d: -2, two_s: -1}, "one 2C, both 2D, one 2S removed"),
        11: ({two_c: -1, two_d: -2, two_s: -2}, "one 2C, both 2D, both 2S removed"),
    }
    changes, text = table[players]
    for c, d in changes.items():
        deck[c] += d
    return deck, text


def _typed(name: str, value: Any) -> Any:
    """``value`` as the parameter's type (int or str), or a GameParameterError
    naming the parameter, the value and what is allowed. numpy integers are
    ints; bools, floats (even 6.0: pyspiel's ``load_game`` refuses them too) and
    anything else are not."""
    if isinstance(PARAMETER_DEFAULTS[name], str):
        if isinstance(value, str):
            return str(value)
        allowed = (list(_CHOICES[name]) if name in _CHOICES else
                   "letters from 'CDHS'" if name == "suits" else f"characters from '{C.RANKS}'")
        raise GameParameterError(
            f"parameter {name!r} must be a str, got {_typed_value(name, value)}; "
            f"allowed: {allowed}")
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    hint = ""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        hint = f" (write {name}={int(value)}, without quotes)"
    raise GameParameterError(
        f"parameter {name!r} must be an int, got {_typed_value(name, value)}{hint}; "
        f"allowed: {_INT_ALLOWED[name]}")


@dataclasses.dataclass(frozen=True)
class RuleSet:
    """A validated set of rules. Build it with :meth:`from_params`."""

    players: int
    deck: str
    packs: int
    suits: str
    ranks: str
    pass_count: int              # resolved (never -1)
    pass_offset: int
    first_lead: str              # resolved: opening_card | left_of_dealer
    void_last_trick: str
    no_points_first_trick: bool  # resolved from points_on_first_trick
    moon: str
    moon_points: int
    target_score: int
    max_hands: int
    utility: str
    deal: str
    jack_of_diamonds: int         # points of each JD taken: 0, or < 0 (Omnibus Hearts)
    deck_counts: tuple[int, ...]  # copies of each of the 53 card types
    hand_size: int
    kitty_size: int
    opening_card: int             # -1 when first_lead is left_of_dealer
    deck_description: str
    params: tuple[tuple[str, Any], ...]  # the full parameter dict, as given + defaults

    # ------------------------------------------------------------------ build
    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None = None) -> RuleSet:
        """Validate pyspiel-style parameters; raise GameParameterError if wrong."""
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise GameParameterError(
                f"game parameters must be a mapping of parameter names to values, got "
                f"{type(params).__name__}; allowed names: {sorted(PARAMETER_DEFAULTS)}")
        given = dict(params)
        unknown = sorted((k for k in given if k not in PARAMETER_DEFAULTS), key=repr)
        if unknown:
            raise GameParameterError(unknown_parameters_message(unknown, PARAMETER_DEFAULTS))
        p = dict(PARAMETER_DEFAULTS)
        for k, v in given.items():
            p[k] = _typed(k, v)
        for k, allowed in _CHOICES.items():
            if p[k] not in allowed:
                close = difflib.get_close_matches(p[k], list(allowed), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ";"
                raise GameParameterError(
                    f"parameter {k}={p[k]!r} is not allowed{hint} allowed: "
                    f"{', '.join(map(repr, allowed))}")
        deck = p["deck"]
        n, packs = p["players"], p["packs"]

        # R1 / R3: player counts and packs per scheme.
        if deck == "classic":
            if n != 4 or packs != 1:
                raise GameParameterError(
                    f"deck='classic' is one pack and 4 players (OpenSpiel's hearts): "
                    f"pass players=4 and packs=1 (or use the preset 'classic'); "
                    f"got players={n}, packs={packs}")
        elif deck == "balanced":
            if packs == 2 and not 5 <= n <= 11:
                raise GameParameterError(
                    f"{clause('R1', 'R3 B')}: players={n} is impossible for deck='balanced'; "
                    f"allowed 5..11")
            if packs == 3 and n != 11:
                raise GameParameterError(
                    f"{clause('R3 B')}: packs=3 with deck='balanced' is only its 11-player "
                    f"variant; got players={n}")
            if packs not in (2, 3):
                raise GameParameterError(
                    f"packs={packs} is not allowed for deck='balanced': "
                    "allowed 2, or 3 with 11 players")
        elif deck == "kitty":
            if packs != 2:
                raise GameParameterError(
                    f"{clause('R3 A')}: packs={packs} is not allowed for deck='kitty'; allowed 2")
            if not 5 <= n <= 11:
                raise GameParameterError(
                    f"{clause('R1', 'R3 A')}: players={n} is impossible for deck='kitty'; "
                    f"allowed 5..11")
        else:  # custom
            if not 2 <= n <= 11:
                raise GameParameterError(
                    f"players={n} is impossible for deck='custom': allowed 2..11")
            if not 1 <= packs <= 4:
                raise GameParameterError(
                    f"packs={packs} is not allowed for deck='custom': allowed 1..4")

        suits, ranks = p["suits"].upper(), p["ranks"].upper()
        if deck != "custom" and (suits != "CDHS" or ranks != C.RANKS):
            raise GameParameterError(
                f"suits/ranks can only be changed with deck='custom'; got deck={deck!r}")
        if not suits or any(s not in C.SUITS for s in suits) or len(set(suits)) != len(suits):
            raise GameParameterError(
                f"suits={p['suits']!r}: expected distinct letters from 'CDHS'")
        if not ranks or any(r not in C.RANKS for r in ranks) or len(set(ranks)) != len(ranks):
            raise GameParameterError(
                f"ranks={p['ranks']!r}: expected distinct characters from '{C.RANKS}'")

        # Deck.
        kitty = 0
        if deck == "balanced":
            counts, text = _balanced_deck(n, packs)
        elif deck == "kitty":
            counts = np.zeros(C.NUM_CARD_TYPES, np.int32)
            counts[:52] = 2
            kitty = 104 % n
            text = f"two packs, {kitty} card(s) in the kitty"
        elif deck == "classic":
            counts = np.zeros(C.NUM_CARD_TYPES, np.int32)
            counts[:52] = 1
            text = "one pack"
        else:
            counts = np.zeros(C.NUM_CARD_TYPES, np.int32)
            for s in suits:
                for r in ranks:
                    counts[C.card(r, s)] = packs
            text = f"{packs} cop{'y' if packs == 1 else 'ies'} of {ranks} in {suits}"
            if counts.sum() % n:
                raise GameParameterError(
                    f"custom deck of {int(counts.sum())} cards ({text}) cannot be dealt "
                    f"evenly to {n} players; choose suits/ranks/packs so that "
                    f"the number of cards is a multiple of {n}")
        total = int(counts.sum())
        hand = (total - kitty) // n

        # R5 pass count.
        pc = p["pass_count"]
        if pc == -1:
            pc = {"balanced": _BALANCED_PASS.get(n, 2), "kitty": 3, "classic": 3,
                  "custom": hand // 4}[deck]
        if not 0 <= pc <= hand:
            raise GameParameterError(
                f"pass_count={p['pass_count']} is not allowed: allowed -1 (the scheme's "
                f"rule) or 0..{hand} (the hand size)")
        off = p["pass_offset"]
        if not -(n - 1) <= off <= n - 1:
            raise GameParameterError(
                f"pass_offset={off} is not allowed: a seat offset in {-(n - 1)}..{n - 1} "
                f"(+1 left, -1 right, 0 no pass)")

        # R6 first lead.
        fl = p["first_lead"]
        if fl == "scheme":
            fl = "opening_card" if deck in ("balanced", "classic") else "left_of_dealer"
        opening = -1
        if fl == "opening_card":
            if counts[C.JOKER] == 1:
                opening = C.JOKER
            else:
                clubs = [c for c in range(52) if c % 4 == C.CLUBS and counts[c] > 0]
                if clubs and counts[clubs[0]] == 1 and kitty == 0:
                    opening = clubs[0]
            if opening < 0:
                raise GameParameterError(
                    f"first_lead='opening_card' needs a unique lowest club or a joker "
                    f"dealt to a player, which deck={deck!r} ({text}) does not have; "
                    f"use first_lead='left_of_dealer'")
        pof = p["points_on_first_trick"]
        no_pts_first = (deck == "classic") if pof == "scheme" else (pof == "forbidden")

        # Bounds that keep every score inside int32 (see MAX_MOON_POINTS).
        for k, lo, hi, what in (
                ("moon_points", 0, MAX_MOON_POINTS, ""),
                ("target_score", 0, MAX_TARGET_SCORE, "0 = one hand, > 0 a match; "),
                ("max_hands", 1, MAX_HANDS, ""),
                ("jack_of_diamonds", JACK_OF_DIAMONDS_RANGE[0], JACK_OF_DIAMONDS_RANGE[1],
                 "0 = off, -10 Omnibus Hearts; ")):
            if not lo <= p[k] <= hi:
                raise GameParameterError(
                    f"{k}={p[k]} is not allowed: allowed {lo}..{hi} ({what}an int >= {lo} "
                    f"and <= {hi}, so that no score can overflow the engine's 32-bit integers)")

        # R4 with deal='whole': one chance node over every distinct deal.
        if p["deal"] == "whole":
            from ._deals import whole_deal_count
            try:
                whole_deal_count(counts, [hand] * n + ([kitty] if kitty else []))
            except ValueError as e:
                raise GameParameterError(f"{e} (deck: {text}, {n} players)") from None

        p["suits"], p["ranks"] = suits, ranks
        return cls(
            players=n, deck=deck, packs=packs, suits=suits, ranks=ranks,
            pass_count=pc, pass_offset=off, first_lead=fl,
            void_last_trick=p["void_last_trick"], no_points_first_trick=no_pts_first,
            moon=p["moon"], moon_points=p["moon_points"], target_score=p["target_score"],
            max_hands=p["max_hands"], utility=p["utility"], deal=p["deal"],
            jack_of_diamonds=p["jack_of_diamonds"], deck_counts=tuple(int(x) for x in counts),
            hand_size=hand,
            kitty_size=kitty, opening_card=opening, deck_description=text,
            params=tuple(sorted(p.items())))

    # ------------------------------------------------------------- derived
    @property
    def num_cards(self) -> int:
        return sum(self.deck_counts)

    @property
    def card_points(self) -> tuple[int, ...]:
        """The scoring table (R10): points of each of the 53 card types. Hearts 1,
        QS 13, the Jack of Diamonds ``jack_of_diamonds``, the others 0."""
        table = [int(x) for x in C.POINTS_OF]
        table[C.JD] = self.jack_of_diamonds
        return tuple(table)

    @property
    def penalty_points(self) -> int:
        """Points of the penalty cards (hearts, QS) in the deck: a shooter takes them all (R10)."""
        return int(sum(k * v for k, v in zip(self.deck_counts, self.card_points) if v > 0))

    @property
    def bonus_points(self) -> int:
        """Points of the cards worth less than 0 in the deck (<= 0; 0 unless jack_of_diamonds)."""
        return int(sum(k * v for k, v in zip(self.deck_counts, self.card_points) if v < 0))

    @property
    def total_points(self) -> int:
        """Every card's points (penalty and bonus): the points the seats share in a
        hand where nobody shoots the moon and nothing is discarded (R8 A)."""
        return self.penalty_points + self.bonus_points

    @property
    def is_match(self) -> bool:
        return self.target_score > 0

    @property
    def passes(self) -> bool:
        return self.pass_count > 0 and self.pass_offset % self.players != 0

    @property
    def num_hands_max(self) -> int:
        return self.max_hands if self.is_match else 1

    @property
    def decisions_per_hand(self) -> int:
        d = self.players * self.hand_size
        if self.passes:
            d += self.players * self.pass_count
        if self.moon == "choose":
            d += 1
        return d

    def hand_points_range(self) -> tuple[int, int]:
        """(min, max) points one player can end one hand with, moon rule applied.
        The cards worth less than 0 (``jack_of_diamonds``) all may go to one seat,
        shooter or not: they lower the minimum."""
        tp, mp = self.penalty_points, self.moon_points
        lo, hi = 0, tp
        if self.moon in ("subtract", "both", "choose") and tp > 0:
            lo = min(lo, tp - mp)
        if self.moon in ("add", "both", "choose") and tp > 0:
            hi = max(hi, mp)          # a non-shooter took nothing and gets +mp
        return lo + self.bonus_points, hi

    def utility_range(self) -> tuple[float, float]:
        lo, hi = self.hand_points_range()
        h = self.num_hands_max
        if self.is_match:
            # A match stops once someone reaches the target; before the last hand
            # everyone is below it.
            plo = lo * h if lo < 0 else 0
            phi = self.target_score - 1 + hi if hi > 0 else 0
            phi = max(phi, hi)
        else:
            plo, phi = lo, hi
        if self.utility == "points":
            return float(-phi), float(-plo)
        # zero_sum: mean of the others minus own.
        return float(plo - phi), float(phi - plo)

    def engine_params(self) -> np.ndarray:
        """The flat int32 vector the engine kernels read (layout P_* above)."""
        v = np.zeros(P_SIZE, np.int32)
        v[P_N], v[P_HAND], v[P_KITTY] = self.players, self.hand_size, self.kitty_size
        v[P_NCARDS] = self.num_cards
        v[P_PASS] = self.pass_count if self.passes else 0
        v[P_PASS_OFFSET] = self.pass_offset % self.players if self.passes else 0
        v[P_FIRST_LEAD] = (FIRST_LEAD_OPENING if self.first_lead == "opening_card"
                           else FIRST_LEAD_LEFT)
        v[P_OPENING] = self.opening_card
        v[P_VOID_LAST] = VOID_LEADER if self.void_last_trick == "leader" else VOID_DISCARD
        v[P_NO_PTS_FIRST] = int(self.no_points_first_trick)
        v[P_MOON] = _MOON_CODE[self.moon] if self.penalty_points > 0 else MOON_OFF
        v[P_MOON_PTS] = self.moon_points
        v[P_TARGET] = self.target_score
        v[P_MAX_HANDS] = self.num_hands_max
        v[P_UTILITY] = UTIL_POINTS if self.utility == "points" else UTIL_ZERO_SUM
        v[P_PENALTY_PTS] = self.penalty_points
        v[P_BONUS_PTS] = self.bonus_points
        v[P_MAX_COPIES] = max(self.deck_counts)
        v[P_DECK:P_DECK + C.NUM_CARD_TYPES] = self.deck_counts
        v[P_POINTS:P_POINTS + C.NUM_CARD_TYPES] = self.card_points
        v.setflags(write=False)
        return v

    def num_whole_deals(self) -> int:
        """Number of distinct deals (hands and kitty as multisets)."""
        n, h, k = self.players, self.hand_size, self.kitty_size
        # Count assignments of copies to seats: product over card types handled by
        # generating function; computed exactly by dynamic programming on seats.
        from ._deals import count_deals
        return count_deals(self.deck_counts, [h] * n + ([k] if k else []))

    def describe(self) -> str:
        return (f"{self.players} players, {self.deck} deck ({self.deck_description}, "
                f"{self.num_cards} cards, {self.hand_size} each"
                + (f", kitty {self.kitty_size}" if self.kitty_size else "") + ")")


#: Named parameter sets. Every preset has a golden playthrough in spiel_game/playthroughs.
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "balanced5": {"players": 5},
    "balanced11": {"players": 11},
    "balanced11_3packs": {"players": 11, "packs": 3},
    "kitty7": {"deck": "kitty", "players": 7},
    "classic": {"deck": "classic", "players": 4, "packs": 1, "moon": "both"},
    "match6": {"players": 6, "target_score": 30, "moon": "choose"},
    "tiny": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA",
             "pass_count": 0, "deal": "whole"},
    # Reduced deals for exact solving (solvers/cfr): one chance node over whole
    # deals, two copies of each card (small3: three). Histories: micro 1,346;
    # micro3 2,015; micro4 5,023; micro_pass 10,910; small 61,694; small3 75,512;
    # (tiny 683,150); medium3 1,499,592; medium 12,728,020; large3 52,732,526;
    # xlarge3 73,269,900 (see the README; large3 is medium3 with one card passed,
    # 5.4 GiB to solve; xlarge3 has three suits of K A, one card passed and the
    # moon shooter's choice of R10, 7.4 GiB to solve).
    "micro": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QA",
              "pass_count": 0, "deal": "whole"},
    "micro3": {"deck": "custom", "players": 3, "suits": "S", "ranks": "JQK",
               "pass_count": 1, "deal": "whole"},
    "micro4": {"deck": "custom", "players": 4, "suits": "HS", "ranks": "KA",
               "pass_count": 0, "deal": "whole"},
    "micro_pass": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QA",
                   "pass_count": 1, "deal": "whole"},
    "small": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QA",
              "pass_count": 2, "deal": "whole"},
    "small3": {"deck": "custom", "players": 3, "suits": "HS", "ranks": "KA", "packs": 3,
               "pass_count": 0, "deal": "whole"},
    "medium3": {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA",
                "pass_count": 0, "deal": "whole"},
    "medium": {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA",
               "pass_count": 1, "deal": "whole"},
    "large3": {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA",
               "pass_count": 1, "deal": "whole"},
    "xlarge3": {"deck": "custom", "players": 3, "suits": "DHS", "ranks": "KA",
                "pass_count": 1, "deal": "whole", "moon": "choose"},
}


class UnknownPresetError(GameParameterError, KeyError):
    """No preset by that name (a ``GameParameterError`` and a ``KeyError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def preset(name: str) -> dict[str, Any]:
    """The game parameters of preset ``name`` (:data:`PRESETS`); an unknown name is
    an :class:`UnknownPresetError` with the closest preset and the list."""
    if name not in PRESETS:
        import difflib
        close = difflib.get_close_matches(str(name), list(PRESETS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownPresetError(f"unknown preset {name!r}{hint}; the presets: "
                                 f"{', '.join(sorted(PRESETS))}")
    return dict(PRESETS[name])
