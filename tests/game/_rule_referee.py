"""An independent, slow, plain-Python referee of RULES.md R1-R11.

It knows the cards only by their R2 strings and re-derives every rule from
RULES.md (not from spiel_game._engine), so that random games played by the
engine can be checked move by move: the player to move, the legal actions,
the chance probabilities, and the final returns. Only the resolved parameters
of ``game.rules`` (deck counts, pass count, first-lead scheme, ...) are taken
from the package; the clause tests check those separately.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from spiel_game import cards as C

__all__ = ["Referee", "check_random_games"]

_ORDER = "023456789TJQKA"        # "0" is the joker, the zero of clubs


def _suit(c: int) -> str:
    return C.card_to_string(c)[1]


def _order(c: int) -> int:
    return _ORDER.index(C.card_to_string(c)[0])


def _points(c: int) -> int:
    """Penalty points (R10): what a shooter must take."""
    s = C.card_to_string(c)
    return 13 if s == "QS" else (1 if s[1] == "H" else 0)


class Referee:
    MOON_SUBTRACT, MOON_ADD = 53, 54

    def _value(self, c: int) -> int:
        """Points of card ``c`` for its taker: penalty, plus the JD's value."""
        return _points(c) + (self.jd if C.card_to_string(c) == "JD" else 0)

    def __init__(self, rules):
        self.r = rules
        self.n = rules.players
        self.total_points = sum(k * _points(c) for c, k in enumerate(rules.deck_counts))
        # Omnibus Hearts: the Jack of Diamonds scores jack_of_diamonds points for
        # its taker and does not count toward the moon.
        self.jd = getattr(rules, "jack_of_diamonds", 0)
        self.scores = [0] * self.n
        self.hand_no = 0
        self.over = False
        self._new_hand()

    # ----------------------------------------------------------- hand setup
    def _new_hand(self):
        n, r = self.n, self.r
        self.dealer = (n - 1 + self.hand_no) % n                       # R1, R11
        self.undealt = Counter({c: k for c, k in enumerate(r.deck_counts) if k})
        self.dealt = 0
        self.hands = [Counter() for _ in range(n)]
        self.kitty = Counter()
        # R5 / R11: left in even hands, right in odd ones (offset negated).
        off = r.pass_offset if self.hand_no % 2 == 0 else -r.pass_offset
        self.pass_off = off % n
        self.passing = r.pass_count > 0 and self.pass_off != 0
        self.passed = [[] for _ in range(n)]
        self.npassed = 0
        self.phase = "deal"
        self.pot = 0
        self.pot_penalty = 0
        self.points = [0] * n
        self.penalty = [0] * n
        self.broken = False
        self.trick = []          # (seat, card)
        self.tricks_done = 0
        self.leader = None
        self.shooter = None

    # -------------------------------------------------------------- queries
    def current_player(self) -> int:
        if self.over:
            return -4
        if self.phase == "deal":
            return -1
        if self.phase == "pass":
            return (self.dealer + 1 + self.npassed // self.r.pass_count) % self.n
        if self.phase == "moon":
            return self.shooter
        return (self.leader + len(self.trick)) % self.n

    def chance_probabilities(self) -> dict[int, float]:
        left = sum(self.undealt.values())
        return {c: k / left for c, k in sorted(self.undealt.items()) if k}

    def legal(self) -> list[int]:
        if self.over:
            return []
        if self.phase == "deal":
            return sorted(c for c, k in self.undealt.items() if k)
        if self.phase == "moon":
            return [self.MOON_SUBTRACT, self.MOON_ADD]
        q = self.current_player()
        hand = [c for c, k in self.hands[q].items() if k]
        if self.phase == "pass":
            return sorted(hand)
        return sorted(self._playable(q, hand))

    def _playable(self, q, hand):
        r = self.r
        if self.trick:                                                  # R7
            led = _suit(self.trick[0][1])
            follow = [c for c in hand if _suit(c) == led]
            if follow:
                return follow
            if r.no_points_first_trick and self.tricks_done == 0:      # classic
                safe = [c for c in hand if _points(c) == 0]
                if safe:
                    return safe
            return hand
        if self.tricks_done == 0:                                       # R6
            if r.first_lead == "opening_card":
                return [c for c in hand if c == r.opening_card]
            safe = [c for c in hand if _suit(c) != "H" and C.card_to_string(c) != "QS"]
            return safe or hand
        if not self.broken:                                             # R9
            non_hearts = [c for c in hand if _suit(c) != "H"]
            if non_hearts:
                return non_hearts
        return hand

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.n
        if self.r.utility == "points":
            return [-float(x) for x in self.scores]
        tot = sum(self.scores)
        return [(tot - x) / (self.n - 1) - x for x in self.scores]

    # -------------------------------------------------------------- actions
    def apply(self, a: int) -> None:
        assert a in self.legal(), (a, self.legal())
        n, r = self.n, self.r
        if self.phase == "deal":                                        # R4
            self.undealt[a] -= 1
            if self.dealt < n * r.hand_size:
                self.hands[(self.dealer + 1 + self.dealt) % n][a] += 1
            else:
                self.kitty[a] += 1
            self.dealt += 1
            if self.dealt == r.num_cards:
                self.pot = sum(k * self._value(c) for c, k in self.kitty.items())  # R3 A
                self.pot_penalty = sum(k * _points(c) for c, k in self.kitty.items())
                if self.passing:
                    self.phase = "pass"
                else:
                    self._start_play()
        elif self.phase == "pass":                                      # R5
            q = self.current_player()
            self.hands[q][a] -= 1
            self.passed[q].append(a)
            self.npassed += 1
            if self.npassed == n * r.pass_count:
                for q in range(n):
                    for c in self.passed[q]:
                        self.hands[(q + self.pass_off) % n][c] += 1
                self._start_play()
        elif self.phase == "moon":
            self._finish(subtract=a == self.MOON_SUBTRACT, add=a == self.MOON_ADD)
        else:
            self._play(a)

    def _start_play(self):
        self.phase = "play"
        if self.r.first_lead == "opening_card":                         # R6 B
            self.leader = next(q for q in range(self.n)
                               if self.hands[q][self.r.opening_card])
        else:                                                           # R6 A
            self.leader = (self.dealer + 1) % self.n

    def _play(self, a):
        n, r = self.n, self.r
        q = self.current_player()
        self.hands[q][a] -= 1
        self.trick.append((q, a))
        if _suit(a) == "H" or C.card_to_string(a) == "QS":
            self.broken = True                                          # R9
        if len(self.trick) < n:
            return
        led = _suit(self.trick[0][1])
        copies = Counter(c for _, c in self.trick)
        live = [(_order(c), s) for s, c in self.trick
                if copies[c] == 1 and _suit(c) == led]                  # R7 cancellation
        pts = sum(self._value(c) for _, c in self.trick)
        pen = sum(_points(c) for _, c in self.trick)
        last = self.tricks_done == r.hand_size - 1
        winner = max(live)[1] if live else None
        if winner is None and last and r.void_last_trick == "leader":   # R8 B
            winner = self.leader
        if winner is not None:
            self.points[winner] += pts + self.pot
            self.penalty[winner] += pen + self.pot_penalty
            self.pot = self.pot_penalty = 0
            self.leader = winner
        elif last:                                                      # R8 A
            self.pot = self.pot_penalty = 0
        else:                                                           # R8: set aside
            self.pot += pts
            self.pot_penalty += pen
        self.trick = []
        self.tricks_done += 1
        if last:
            shooters = [p for p in range(n) if self.total_points > 0 and r.moon != "off"
                        and self.penalty[p] == self.total_points]
            self.shooter = shooters[0] if shooters else None
            if self.shooter is not None and r.moon == "choose":
                self.phase = "moon"
            else:
                self._finish(subtract=r.moon in ("subtract", "both"),
                             add=r.moon in ("add", "both"))

    def _finish(self, subtract, add):                                   # R10, R11
        r, n = self.r, self.n
        hand = list(self.points)
        if self.shooter is not None:
            for p in range(n):
                if p == self.shooter and subtract:
                    hand[p] -= r.moon_points
                elif p != self.shooter and add:
                    hand[p] += r.moon_points
        self.scores = [a + b for a, b in zip(self.scores, hand)]
        self.hand_no += 1
        if (r.target_score <= 0 or max(self.scores) >= r.target_score
                or self.hand_no >= r.max_hands):
            self.over = True
            self.phase = "over"
        else:
            self._new_hand()


def check_random_games(game, seeds, *, max_steps=100_000) -> list[list[float]]:
    """Play random games and compare the engine with the referee at every step.

    Returns the final returns of each game.
    """
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        st = game.new_initial_state()
        ref = Referee(game.rules)
        for _ in range(max_steps):
            if st.is_terminal():
                break
            assert st.current_player() == ref.current_player(), str(st)
            legal = st.legal_actions()
            assert legal == ref.legal(), (str(st), legal, ref.legal())
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                expected = ref.chance_probabilities()
                assert [a for a, _ in outcomes] == list(expected)
                assert np.allclose([p for _, p in outcomes], list(expected.values()))
                a = int(rng.choice([a for a, _ in outcomes], p=[p for _, p in outcomes]))
            else:
                a = int(rng.choice(legal))
            st.apply_action(a)
            ref.apply(a)
        assert st.is_terminal() and ref.over
        assert np.allclose(st.returns(), ref.returns(), rtol=0, atol=1e-9), (str(st), ref.scores)
        out.append(st.returns())
    return out
