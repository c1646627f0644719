"""The heuristic player: a compiled rule-based policy a decent human would recognise.

``heuristic_policy(p, s, legal, k, rng) -> action`` has the simulator's policy
signature (:mod:`spiel_game._simulator`): it picks one of ``legal[:k]`` for the
player to move in engine state ``s`` under rules ``p``. The same function
plays in the batch simulator (``simulate(..., "heuristic")``, registered when
this module is imported), in the search rollouts and as
:class:`solvers._base.bots.HeuristicBot`.

* **Passing:** passes the most dangerous card first: a Black Maria (QS), then
  the A/K of spades (they catch a Black Maria), then high hearts, then other
  high cards; low clubs/diamonds are kept.
* **Following suit:** ducks: plays the highest card that does not win the
  trick, counting cancellation (a card whose twin is already in the trick
  cancels it and cannot win; playing the twin of the winning card cancels the
  winner). If every card wins, the last player sheds its highest card, others
  play their lowest. Never plays a Black Maria into a trick it would win if it
  can avoid it.
* **Discarding (void in the suit led):** dumps a Black Maria, then the highest
  heart, then A/K of spades while a Black Maria is still out, then its highest card.
* **Leading:** the Aardvark when it holds one Black Maria, the twin is still
  out and it holds no higher spade (K or A of spades); otherwise low in the
  suit where its lowest card is lowest, avoiding hearts and spades above the jack.
* **Moon choice:** subtract.

The player uses only what its seat knows. "A Black Maria is still out" means
that some copy of the QS is neither in its hand nor seen: not played to any
trick of this hand and not in a kitty that has been turned face up. (An
earlier version peeked at the other hands to decide this, and its
Aardvark rule read the King and Ace of *clubs* instead of spades.) It does
not know about the Jack of Diamonds of Omnibus Hearts (``jack_of_diamonds``):
it plays the JD like any other diamond.
"""

from __future__ import annotations

from numba import njit

from spiel_game import _engine as E
from spiel_game.cards import AS, HEARTS, KS, ORDER_OF, QS, SPADES, SUIT_OF, card
from spiel_game._engine import (MOON_SUBTRACT_ACTION, PH_DEAL, PH_MOON, PH_PASS, P_HAND,
                               P_KITTY, P_N, S_CUR, S_KITTY_IN_POT, S_LEADER, S_PHASE, S_TLEN,
                               S_TRICK)
from spiel_game._simulator import register_policy

__all__ = ["heuristic_policy", "unseen_copies"]

_JACK = int(ORDER_OF[card("J", "S")])


@njit(cache=True)
def _danger(c, qs_out, hearts_first):
    """How much a card hurts to keep: higher passes/discards first.

    Passing (``hearts_first=False``): a Black Maria, then the K/A of spades
    (while a Black Maria is out), then hearts, then other cards by rank.
    Discarding (``hearts_first=True``): a Black Maria, then hearts, then the
    K/A of spades (while a Black Maria is out), then other cards by rank.
    """
    if c == QS:
        return 1000
    su = SUIT_OF[c]
    o = ORDER_OF[c]
    if (c == KS or c == AS) and qs_out:
        return (300 if hearts_first else 500) + o
    if su == HEARTS:
        return (400 if hearts_first else 200) + o * 10
    return o * 10 + (5 if su == SPADES else 0)


@njit(cache=True)
def _most_dangerous(legal, k, qs_out, hearts_first):
    best = legal[0]
    bd = -1
    for i in range(k):
        d = _danger(legal[i], qs_out, hearts_first)
        if d > bd:
            bd = d
            best = legal[i]
    return best


@njit(cache=True)
def _winner_if(p, s, me, c):
    """Seat that would currently win the trick if ``me`` played ``c`` (-1: void)."""
    n = p[P_N]
    trick = E.trick_cards(p, s, s[S_TRICK])
    led = SUIT_OF[trick[s[S_LEADER]]] if s[S_TLEN] > 0 else SUIT_OF[c]
    best = -1
    best_o = -1
    for q in range(n):
        x = c if q == me else trick[q]
        if x < 0:
            continue
        dup = 0
        for r in range(n):
            y = c if r == me else trick[r]
            if y == x:
                dup += 1
        if dup > 1:
            continue
        if SUIT_OF[x] == led and ORDER_OF[x] > best_o:
            best_o = ORDER_OF[x]
            best = q
    return best


@njit(cache=True)
def unseen_copies(p, s, me, c):
    """Copies of card ``c`` that seat ``me`` has not seen: the deck's copies
    minus its own hand, every card played to a trick of this hand (the current
    trick included) and a kitty that has been turned face up. Public
    information plus the seat's own hand only (no peeking at other hands)."""
    cnt = E.deck(p)[c] - E.hand(p, s, me)[c]
    if s[S_PHASE] != PH_DEAL:
        played = E.all_trick_cards(p, s)
        for i in range(p[P_HAND] * p[P_N]):
            if played[i] == c:
                cnt -= 1
        if p[P_KITTY] > 0 and s[S_KITTY_IN_POT] == 0:
            cnt -= E.kitty(p, s)[c]
    return cnt


@njit(cache=True)
def _qs_out(p, s, me):
    """True if some Black Maria is still out: neither in ``me``'s hand nor seen."""
    return unseen_copies(p, s, me, QS) > 0


@njit(cache=True)
def heuristic_policy(p, s, legal, k, rng):
    """The heuristic player's action among ``legal[:k]`` (see the module docstring)."""
    ph = s[S_PHASE]
    me = s[S_CUR]
    if ph == PH_MOON:
        return MOON_SUBTRACT_ACTION
    if ph == PH_PASS:
        return _most_dangerous(legal, k, True, False)
    n = p[P_N]
    qs_out = _qs_out(p, s, me)
    if s[S_TLEN] == 0:
        # Leading.
        held = E.hand(p, s, me)
        if held[QS] == 1 and qs_out:
            if held[KS] + held[AS] == 0:   # no higher spade
                for i in range(k):
                    if legal[i] == QS:
                        return QS
        best = legal[0]
        bs = 1 << 30
        for i in range(k):
            c = legal[i]
            score = ORDER_OF[c] * 4
            if SUIT_OF[c] == HEARTS:
                score += 100
            if SUIT_OF[c] == SPADES and ORDER_OF[c] > _JACK:
                score += 200
            if c == QS:
                score += 400
            if score < bs:
                bs = score
                best = c
        return best
    led = SUIT_OF[E.trick_cards(p, s, s[S_TRICK])[s[S_LEADER]]]
    following = SUIT_OF[legal[0]] == led
    for i in range(k):
        if SUIT_OF[legal[i]] != led:
            following = False
    if following:
        last = s[S_TLEN] == n - 1
        best = -1
        bo = -1
        for i in range(k):
            c = legal[i]
            if _winner_if(p, s, me, c) != me and ORDER_OF[c] > bo and c != QS:
                bo = ORDER_OF[c]
                best = c
        if best < 0:
            for i in range(k):
                if legal[i] == QS and _winner_if(p, s, me, QS) != me:
                    return QS
        if best >= 0:
            return best
        # Every card wins: the last player sheds its highest, others play low.
        pick = legal[0]
        for i in range(k):
            c = legal[i]
            if c == QS:
                continue
            if last:
                if ORDER_OF[c] > ORDER_OF[pick] or pick == QS:
                    pick = c
            elif ORDER_OF[c] < ORDER_OF[pick] or pick == QS:
                pick = c
        return pick
    return _most_dangerous(legal, k, qs_out, True)    # discarding


register_policy("heuristic", heuristic_policy, proven_legal=True)
