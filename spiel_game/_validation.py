"""Consistency of engine states: ``validate(p, s)`` and its named checks.

The engine (:mod:`spiel_game._engine`) keeps the rules' kernels and the state
layout; this module decides whether an ``int32`` state vector ``s`` is one
the rules ``p`` can reach (the adapter refuses a forged or corrupted state
with it, the simulator checks states handed to it, the tests of the searches
check the worlds they draw):

* ``validate(p, s, exact_hands=True) -> int``: 0 if consistent, else the code
  of the first failed check (a compiled kernel). Codes ``1 .. V_FIRST_CROSS-1``
  check the range of one field each; the codes from ``V_FIRST_CROSS`` check
  what depends on the phase and the invariants that tie fields together
  (tricks replayed, cards conserved, scores re-added).
* ``VALIDATE_ERRORS[code] = (NAME, what is allowed)``; ``VALIDATE_FIELD[code]``:
  the scalar ``S_*`` index a range check is about; ``V_<NAME>``: each code.
* ``validate_message(p, s) -> str``: '' or the sentence naming the failed
  check, what is allowed and the value found.
* ``validate_determinization(p, s)``: ``validate`` for the worlds a search
  draws (hands checked for their sizes only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._engine import (STATE_SCALARS, S_NSCALARS, CHANCE, HEARTS, K, L_DEALT_HANDS, L_HANDPTS,
                     L_HANDS, L_KITTY, L_PASSED, L_PASSSEQ, L_POINTS, L_POT, L_SCORES, L_SCRATCH,
                     L_STATE_SIZE, L_SUITCNT, L_TCARDS, L_TLEAD, L_TWIN, L_UNDEALT, ORDER_OF,
                     PH_DEAL, PH_MOON, PH_OVER, PH_PASS, PH_PLAY, QS, SUIT_OF, S_AARD_TRY,
                     S_AARD_WIN, S_BROKEN, S_CANCELS, S_CUR, S_DEALER, S_DEALT, S_DISCARDED,
                     S_HANDNO, S_KITTY_IN_POT, S_LEADER, S_MOONS, S_MOON_CHOICE, S_NPASS, S_NPLAYED,
                     S_PASSOFF, S_PHASE, S_POTN, S_POTPTS, S_POT_AT_LAST, S_SHOOTER, S_TLEN,
                     S_TRICK, S_VOIDS, TERMINAL, TW_DISCARDED, TW_NONE, TW_VOID, bonus_taken)
from ._rules import (FIRST_LEAD_OPENING, MOON_ADD, MOON_BOTH, MOON_CHOOSE, MOON_OFF,
                    MOON_SUBTRACT, P_BONUS_PTS, P_DECK, P_FIRST_LEAD, P_HAND, P_KITTY,
                    P_MAX_HANDS, P_MOON, P_MOON_PTS, P_N, P_NCARDS, P_OPENING, P_PASS,
                    P_PASS_OFFSET, P_PENALTY_PTS, P_POINTS, P_TARGET, P_VOID_LAST,
                    VOID_LEADER)

# Codes of ``validate`` (0 = consistent). Every check has its own code.
# Codes 1..V_FIRST_CROSS-1 check the range of one field, independently of every
# other field (so a single out-of-range value is reported by its own code);
# the codes from V_FIRST_CROSS check values that depend on the phase and the
# invariants that tie fields together. ``VALIDATE_ERRORS[code] = (NAME, what
# is allowed)``; ``VALIDATE_FIELD[code]`` is the scalar ``S_*`` index a range
# code is about (to print its value).
_VALIDATE_CHECKS = (
    # ---- ranges of the scalar fields
    ("SIZE", None, "the state vector must have this game's length (a state of other rules?)"),
    ("PHASE", S_PHASE, "S_PHASE must be 0 deal, 1 pass, 2 play, 3 moon choice or 4 over"),
    ("CUR", S_CUR, "S_CUR (player to move) must be -1 (chance), -4 (terminal) or a seat 0..n-1"),
    ("DEALT", S_DEALT, "S_DEALT (cards dealt) must be 0..the number of cards in the deck"),
    ("DEALER", S_DEALER, "S_DEALER must be a seat 0..n-1"),
    ("HANDNO", S_HANDNO, "S_HANDNO (hands scored) must be 0..max_hands (1 without a match)"),
    ("PASSOFF", S_PASSOFF, "S_PASSOFF (this hand's pass offset) must be 0..n-1"),
    ("NPASS", S_NPASS, "S_NPASS (pass choices made) must be 0..n * pass_count"),
    ("NPLAYED", S_NPLAYED, "S_NPLAYED (cards played this hand) must be 0..n * hand size"),
    ("TRICK", S_TRICK, "S_TRICK (tricks completed) must be 0..hand size"),
    ("LEADER", S_LEADER, "S_LEADER must be -1 (before play) or a seat 0..n-1"),
    ("TLEN", S_TLEN, "S_TLEN (cards in the current trick) must be 0..n-1"),
    ("BROKEN", S_BROKEN, "S_BROKEN (hearts broken) must be 0 or 1"),
    ("POTPTS", S_POTPTS, "S_POTPTS (points set aside) must lie between the points of the cards "
                         "worth less than 0 (jack_of_diamonds) and the penalty points in the deck"),
    ("POTN", S_POTN, "S_POTN (cards set aside) must be 0..the number of cards in the deck"),
    ("KITTY_IN_POT", S_KITTY_IN_POT, "S_KITTY_IN_POT must be 0 or 1 (always 0 without a kitty)"),
    ("SHOOTER", S_SHOOTER, "S_SHOOTER must be -1 (nobody shot the moon) or a seat 0..n-1"),
    ("VOIDS", S_VOIDS, "S_VOIDS (void tricks) must be 0..max_hands * hand size"),
    ("CANCELS", S_CANCELS, "S_CANCELS (cancelled pairs) must be 0..max_hands * hand size "
                           "* (n // 2)"),
    ("MOON_CHOICE", S_MOON_CHOICE, "S_MOON_CHOICE must be -1 (none or by rule), 0 (subtract) or "
                                   "1 (add)"),
    ("AARD_TRY", S_AARD_TRY, "S_AARD_TRY (tricks led with QS) must be 0..max_hands * hand size"),
    ("AARD_WIN", S_AARD_WIN, "S_AARD_WIN (QS led and another QS played) must be "
                             "0..max_hands * hand size"),
    ("POT_AT_LAST", S_POT_AT_LAST, "S_POT_AT_LAST (hands whose set-aside cards reached the last "
                                   "trick) must be 0..max_hands"),
    ("DISCARDED", S_DISCARDED, "S_DISCARDED (points discarded, R8 A) must lie between the points "
                               "of the cards worth less than 0 and the penalty points in the deck"),
    ("MOONS", S_MOONS, "S_MOONS (moons shot) must be 0..max_hands"),
    # ---- ranges of the array fields
    ("UNDEALT_RANGE", None, "undealt copies of each card type must be 0..its copies in the deck"),
    ("HANDS_RANGE", None, "copies of a card type in a hand must be 0..its copies in the deck"),
    ("DEALT_HANDS_RANGE", None, "copies of a card type dealt to a seat must be 0..its copies in "
                                "the deck"),
    ("PASSED_RANGE", None, "copies of a card type passed by a seat must be 0..its copies in the "
                           "deck"),
    ("KITTY_RANGE", None, "copies of a card type in the kitty must be 0..its copies in the deck"),
    ("POT_RANGE", None, "copies of a card type set aside must be 0..its copies in the deck"),
    ("POINTS_RANGE", None, "points taken this hand by a seat must lie between the points of the "
                           "cards worth less than 0 and the penalty points in the deck"),
    ("HANDPTS_RANGE", None, "a seat's points for one hand (moon rule applied) must lie in "
                            "RuleSet.hand_points_range()"),
    ("SCORES_RANGE", None, "a score must lie within max_hands times the range of one hand's "
                           "points"),
    ("TLEAD_RANGE", None, "a trick's leader must be -1 (not started) or a seat 0..n-1"),
    ("TWIN_RANGE", None, "a trick's winner must be a seat 0..n-1, -1 (not complete), "
                         "-2 (void) or -3 (discarded, R8 A)"),
    ("TCARDS_RANGE", None, "a card played to a trick must be -1 (none yet) or a card type of the "
                           "deck"),
    ("PASSSEQ_RANGE", None, "a pass choice must be -1 (not made) or a card type of the deck"),
    ("SUITCNT_RANGE", None, "a seat's count of one suit must be 0..hand size"),
    ("SCRATCH", None, "the scratch counters must be zero between kernel calls"),
    # ---- phase-dependent values and invariants across fields
    ("HANDNO_PHASE", S_HANDNO, "hands scored must be below max_hands while the game goes on "
                               "and at least 1 when it is over"),
    ("DEALER_HAND", S_DEALER, "the dealer of hand h must be seat (n - 1 + h) mod n (R11)"),
    ("PASSOFF_HAND", S_PASSOFF, "the pass offset must be pass_offset, mirrored in odd hands (R11)"),
    ("DEALT_PHASE", S_DEALT, "cards dealt must be below the deck size during the deal and the "
                             "whole deck after it"),
    ("NPASS_PHASE", S_NPASS, "pass choices must be 0 during the deal, below n * pass_count during "
                             "passing (only in a game with passing) and n * pass_count after it"),
    ("TRICK_PHASE", S_TRICK, "tricks completed must be 0 before play, below the hand size during "
                             "play and the hand size at the moon choice and the end"),
    ("TLEN_PHASE", S_TLEN, "a trick can only be in progress during play"),
    ("NPLAYED_PHASE", S_NPLAYED, "cards played must be n * tricks completed + cards in the "
                                 "current trick"),
    ("LEADER_PHASE", S_LEADER, "the leader must be -1 before play and a seat from the start of "
                               "play"),
    ("CUR_PHASE", S_CUR, "the player to move must be chance during the deal, the next passer in "
                         "order (dealer's left first) during passing, (leader + cards in the "
                         "trick) mod n during play, the shooter at the moon choice, -4 at the end"),
    ("UNDEALT_PHASE", None, "the undealt cards must number the deck size minus the cards dealt"),
    ("DEALT_HANDS", None, "each seat must have been dealt the number of cards R4 gives it so far"),
    ("KITTY_SIZE", None, "the kitty must hold the cards dealt beyond n * hand size"),
    ("PASS_SEQ", None, "pass choices must be made seat by seat from the dealer's left: exactly "
                       "the first S_NPASS of them filled"),
    ("PASSED", None, "the cards passed by each seat must be its pass choices"),
    ("TRICK_CARDS", None, "completed tricks must hold one card from every seat, the current trick "
                          "one from each seat from the leader on, later tricks none"),
    ("TRICK_LEADS", None, "started tricks must name their leader, later tricks -1"),
    ("LEADER_CHAIN", S_LEADER, "the first trick must be led by the holder of the opening card "
                               "(R6 B) or the dealer's left (R6 A), each later trick by the "
                               "previous winner (the same leader after a void trick, R8)"),
    ("TRICK_WINNERS", None, "each completed trick must record its winner (R7), -2 if void "
                            "(R8), the leader or -3 for a void last trick (R8 B / A), and -1 "
                            "for tricks not completed"),
    ("POT", None, "the set-aside cards must be exactly those of the void tricks since a trick "
                  "was last taken (R8)"),
    ("POT_COUNTS", S_POTN, "S_POTN / S_POTPTS must count the set-aside cards and points, with "
                           "the kitty while nobody has taken it"),
    ("KITTY_IN_POT_PHASE", S_KITTY_IN_POT, "the kitty must be in the pot from the end of the deal "
                                           "until the first trick is taken"),
    ("POINTS", None, "points taken must be those of the tricks each seat won, with the "
                     "set-aside cards (R8, R9)"),
    ("DISCARDED_PHASE", S_DISCARDED, "discarded points must be those of a void last trick under "
                                     "R8 A, else 0"),
    ("BROKEN_PLAYED", S_BROKEN, "hearts are broken exactly when a heart or QS has been played "
                                "this hand (R9)"),
    ("CONSERVATION", None, "every card type must be conserved: undealt + hands + passes "
                                   "in flight + kitty + played = the deck"),
    ("HANDS_CONTENT", None, "each hand must be its dealt cards, less its passes, plus the cards "
                            "received once passing is over, less the cards it played"),
    ("SUITCNT", None, "the suit counts must agree with the hands"),
    ("SHOOTER_PHASE", S_SHOOTER, "the shooter must be the seat that took every point card, known "
                                 "only once the tricks are over (and present at a moon choice)"),
    ("MOON_CHOICE_PHASE", S_MOON_CHOICE, "a moon choice (0/1) exists only at the end of a hand "
                                         "whose shooter chose (moon='choose'), else -1"),
    ("HANDPTS", None, "the last hand's points must be the points taken with the moon rule "
                      "(R10) at the end, and 0 before any hand is scored"),
    ("SCORES", None, "scores must be 0 before any hand is scored and the sum of the hands' "
                     "points (each within their range)"),
    ("MATCH_END", None, "the game ends when a score reaches target_score or max_hands hands "
                        "are played (R11), and not before"),
    ("VOIDS_COUNT", S_VOIDS, "S_VOIDS must count this hand's void tricks plus at most hand size "
                             "per earlier hand"),
    ("CANCELS_COUNT", S_CANCELS, "S_CANCELS must count this hand's cancelled pairs plus at most "
                                 "hand size * (n // 2) per earlier hand"),
    ("AARD_TRY_COUNT", S_AARD_TRY, "S_AARD_TRY must count this hand's tricks led with QS plus "
                                   "at most hand size per earlier hand"),
    ("AARD_WIN_COUNT", S_AARD_WIN, "S_AARD_WIN must count this hand's QS leads met by another QS "
                                   "plus at most hand size per earlier hand, and not exceed "
                                   "S_AARD_TRY"),
    ("POT_AT_LAST_COUNT", S_POT_AT_LAST, "S_POT_AT_LAST must count whether this hand's set-aside "
                                         "cards reached the last trick plus at most 1 per "
                                         "earlier hand"),
    ("MOONS_COUNT", S_MOONS, "S_MOONS must count a moon shot in this (scored) hand plus at most 1 "
                             "per earlier hand"),
)

(V_SIZE, V_PHASE, V_CUR, V_DEALT, V_DEALER, V_HANDNO, V_PASSOFF, V_NPASS, V_NPLAYED,
 V_TRICK, V_LEADER, V_TLEN, V_BROKEN, V_POTPTS, V_POTN, V_KITTY_IN_POT, V_SHOOTER, V_VOIDS,
 V_CANCELS, V_MOON_CHOICE, V_AARD_TRY, V_AARD_WIN, V_POT_AT_LAST, V_DISCARDED, V_MOONS,
 V_UNDEALT_RANGE, V_HANDS_RANGE, V_DEALT_HANDS_RANGE, V_PASSED_RANGE, V_KITTY_RANGE,
 V_POT_RANGE, V_POINTS_RANGE, V_HANDPTS_RANGE, V_SCORES_RANGE, V_TLEAD_RANGE, V_TWIN_RANGE,
 V_TCARDS_RANGE, V_PASSSEQ_RANGE, V_SUITCNT_RANGE, V_SCRATCH, V_HANDNO_PHASE, V_DEALER_HAND,
 V_PASSOFF_HAND, V_DEALT_PHASE, V_NPASS_PHASE, V_TRICK_PHASE, V_TLEN_PHASE, V_NPLAYED_PHASE,
 V_LEADER_PHASE, V_CUR_PHASE, V_UNDEALT_PHASE, V_DEALT_HANDS, V_KITTY_SIZE, V_PASS_SEQ,
 V_PASSED, V_TRICK_CARDS, V_TRICK_LEADS, V_LEADER_CHAIN, V_TRICK_WINNERS, V_POT,
 V_POT_COUNTS, V_KITTY_IN_POT_PHASE, V_POINTS, V_DISCARDED_PHASE, V_BROKEN_PLAYED,
 V_CONSERVATION, V_HANDS_CONTENT, V_SUITCNT, V_SHOOTER_PHASE, V_MOON_CHOICE_PHASE,
 V_HANDPTS, V_SCORES, V_MATCH_END, V_VOIDS_COUNT, V_CANCELS_COUNT, V_AARD_TRY_COUNT,
 V_AARD_WIN_COUNT, V_POT_AT_LAST_COUNT, V_MOONS_COUNT) = range(1, len(_VALIDATE_CHECKS) + 1)
V_FIRST_CROSS = V_HANDNO_PHASE
VALIDATE_ERRORS = {i + 1: (name, text) for i, (name, _, text) in enumerate(_VALIDATE_CHECKS)}
VALIDATE_FIELD = {i + 1: field for i, (_, field, _) in enumerate(_VALIDATE_CHECKS)
                  if field is not None}
assert all(globals()["V_" + name] == code for code, (name, _) in VALIDATE_ERRORS.items())
# Stage 1 checks the scalars in their order: the code of S_<name> is V_PHASE + S_<name>.
assert all(V_PHASE + i == globals()["V_" + name] for i, (name, _) in enumerate(STATE_SCALARS))


@njit(cache=True, inline='always')
def _hand_points_bounds(p):
    """(lo, hi): the points one seat can end one hand with (RuleSet.hand_points_range)."""
    tp = np.int64(p[P_PENALTY_PTS])
    mp = np.int64(p[P_MOON_PTS])
    mode = p[P_MOON]
    lo = np.int64(0)
    hi = tp
    if mode == MOON_SUBTRACT or mode == MOON_BOTH or mode == MOON_CHOOSE:
        lo = min(lo, tp - mp)
    if mode == MOON_ADD or mode == MOON_BOTH or mode == MOON_CHOOSE:
        hi = max(hi, mp)
    return lo + p[P_BONUS_PTS], hi


@njit(cache=True, inline='always')
def _scalar_bounds(p):
    """(lo, hi): the range of each state scalar ``S_*`` on its own (stage 1;
    ``S_CUR``'s is not an interval: ``validate`` checks it apart)."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    nc = np.int64(p[P_NCARDS])
    tp = np.int64(p[P_PENALTY_PTS])
    bp = np.int64(p[P_BONUS_PTS])
    mh = np.int64(p[P_MAX_HANDS])
    per_match = mh * T
    lo = np.zeros(S_NSCALARS, np.int64)
    hi = np.zeros(S_NSCALARS, np.int64)
    lo[S_PHASE], hi[S_PHASE] = PH_DEAL, PH_OVER
    hi[S_DEALT] = nc
    hi[S_DEALER] = n - 1
    hi[S_HANDNO] = mh
    hi[S_PASSOFF] = n - 1
    hi[S_NPASS] = n * np.int64(p[P_PASS])
    hi[S_NPLAYED] = n * T
    hi[S_TRICK] = T
    lo[S_LEADER], hi[S_LEADER] = -1, n - 1
    hi[S_TLEN] = n - 1
    hi[S_BROKEN] = 1
    lo[S_POTPTS], hi[S_POTPTS] = bp, tp
    hi[S_POTN] = nc
    hi[S_KITTY_IN_POT] = 1 if p[P_KITTY] > 0 else 0
    lo[S_SHOOTER], hi[S_SHOOTER] = -1, n - 1
    hi[S_VOIDS] = per_match
    hi[S_CANCELS] = per_match * (n // 2)
    lo[S_MOON_CHOICE], hi[S_MOON_CHOICE] = -1, 1
    hi[S_AARD_TRY] = per_match
    hi[S_AARD_WIN] = per_match
    hi[S_POT_AT_LAST] = mh
    lo[S_DISCARDED], hi[S_DISCARDED] = bp, tp
    hi[S_MOONS] = mh
    return lo, hi


@njit(cache=True, inline='always')
def _all_within(s, base, k, lo, hi):
    """Whether ``lo <= s[i] <= hi`` for each ``i`` in ``base .. base + k - 1``."""
    for i in range(k):
        if s[base + i] < lo or s[base + i] > hi:
            return False
    return True


@njit(cache=True, inline='always')
def _counts_within_deck(p, s, base, rows):
    """Whether each of ``rows`` rows of copy counts (53 each) from ``s[base]`` is
    0..the copies of its card type in the deck."""
    for q in range(rows):
        for c in range(K):
            if s[base + q * K + c] < 0 or s[base + q * K + c] > p[P_DECK + c]:
                return False
    return True


@njit(cache=True, inline='always')
def _cards_or_none(p, s, base, k):
    """Whether each of ``s[base .. base + k - 1]`` is -1 or a card type of the deck."""
    for i in range(k):
        v = s[base + i]
        if v != -1 and (v < 0 or v >= K or p[P_DECK + v] <= 0):
            return False
    return True


@njit(cache=True)
def _check_fields(p, s):
    """Stage 1 of ``validate``: the range of every field on its own."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    tp = np.int64(p[P_PENALTY_PTS])
    bp = np.int64(p[P_BONUS_PTS])
    mh = np.int64(p[P_MAX_HANDS])
    pcs = max(np.int64(1), np.int64(p[P_PASS]))
    if s.shape[0] != p[L_STATE_SIZE]:
        return V_SIZE
    slo, shi = _scalar_bounds(p)
    for f in range(S_NSCALARS):             # the scalars' codes follow their order
        if f == S_CUR:
            cur = s[S_CUR]
            if not (cur == CHANCE or cur == TERMINAL or (cur >= 0 and cur < n)):
                return V_CUR
        elif s[f] < slo[f] or s[f] > shi[f]:
            return V_PHASE + f
    if not _counts_within_deck(p, s, p[L_UNDEALT], 1):
        return V_UNDEALT_RANGE
    if not _counts_within_deck(p, s, p[L_HANDS], n):
        return V_HANDS_RANGE
    if not _counts_within_deck(p, s, p[L_DEALT_HANDS], n):
        return V_DEALT_HANDS_RANGE
    if not _counts_within_deck(p, s, p[L_PASSED], n):
        return V_PASSED_RANGE
    if not _counts_within_deck(p, s, p[L_KITTY], 1):
        return V_KITTY_RANGE
    if not _counts_within_deck(p, s, p[L_POT], 1):
        return V_POT_RANGE
    if not _all_within(s, p[L_POINTS], n, bp, tp):
        return V_POINTS_RANGE
    lo, hi = _hand_points_bounds(p)
    if not _all_within(s, p[L_HANDPTS], n, lo, hi):
        return V_HANDPTS_RANGE
    if not _all_within(s, p[L_SCORES], n, mh * lo, mh * hi):
        return V_SCORES_RANGE
    if not _all_within(s, p[L_TLEAD], T, -1, n - 1):
        return V_TLEAD_RANGE
    if not _all_within(s, p[L_TWIN], T, TW_DISCARDED, n - 1):
        return V_TWIN_RANGE
    if not _cards_or_none(p, s, p[L_TCARDS], T * n):
        return V_TCARDS_RANGE
    if not _cards_or_none(p, s, p[L_PASSSEQ], n * pcs):
        return V_PASSSEQ_RANGE
    if not _all_within(s, p[L_SUITCNT], n * 4, 0, T):
        return V_SUITCNT_RANGE
    if not _all_within(s, p[L_SCRATCH], K, 0, 0):
        return V_SCRATCH
    return 0


@njit(cache=True)
def _check_deal_and_passes(p, s):
    """Stage 2 of ``validate`` (fields in range): phase-dependent values, the
    deal, the passes and the trick rows."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    nc = np.int64(p[P_NCARDS])
    pc = np.int64(p[P_PASS])
    mh = np.int64(p[P_MAX_HANDS])
    und, dlt, psd = p[L_UNDEALT], p[L_DEALT_HANDS], p[L_PASSED]
    kty = p[L_KITTY]
    tl, tw, tc, seq = p[L_TLEAD], p[L_TWIN], p[L_TCARDS], p[L_PASSSEQ]
    pcs = max(np.int64(1), pc)
    ph = s[S_PHASE]
    cur = s[S_CUR]
    over = ph == PH_OVER
    h = np.int64(s[S_HANDNO])
    if over:
        if h < 1:
            return V_HANDNO_PHASE
        hand = h - 1                  # the hand whose arrays the state still holds
    else:
        if h >= mh:
            return V_HANDNO_PHASE
        hand = h
    dealer = np.int64(s[S_DEALER])
    if dealer != (n - 1 + hand) % n:
        return V_DEALER_HAND
    off = np.int64(p[P_PASS_OFFSET])
    if hand % 2 == 1:
        off = (n - off) % n
    if s[S_PASSOFF] != off:
        return V_PASSOFF_HAND
    d = np.int64(s[S_DEALT])
    if (ph == PH_DEAL and d >= nc) or (ph != PH_DEAL and d != nc):
        return V_DEALT_PHASE
    npass = np.int64(s[S_NPASS])
    if ph == PH_DEAL:
        if npass != 0:
            return V_NPASS_PHASE
    elif ph == PH_PASS:
        if pc == 0 or npass >= n * pc:
            return V_NPASS_PHASE
    elif npass != n * pc:
        return V_NPASS_PHASE
    trick = np.int64(s[S_TRICK])
    tlen = np.int64(s[S_TLEN])
    if ph == PH_PLAY:
        if trick >= T:
            return V_TRICK_PHASE
    elif ph == PH_DEAL or ph == PH_PASS:
        if trick != 0:
            return V_TRICK_PHASE
    elif trick != T:
        return V_TRICK_PHASE
    if ph != PH_PLAY and tlen != 0:
        return V_TLEN_PHASE
    if s[S_NPLAYED] != trick * n + tlen:
        return V_NPLAYED_PHASE
    leader = np.int64(s[S_LEADER])
    if (ph == PH_DEAL or ph == PH_PASS) != (leader < 0):
        return V_LEADER_PHASE
    sh = np.int64(s[S_SHOOTER])
    if ph == PH_DEAL:
        ok = cur == CHANCE
    elif ph == PH_PASS:
        ok = cur == (dealer + 1 + npass // pc) % n
    elif ph == PH_PLAY:
        ok = cur == (leader + tlen) % n
    elif ph == PH_MOON:
        ok = sh >= 0 and cur == sh
    else:
        ok = cur == TERMINAL
    if not ok:
        return V_CUR_PHASE

    # The deal (R4): clockwise from the dealer's left, the kitty last.
    left = np.int64(0)
    for c in range(K):
        left += s[und + c]
    if left != (nc - d if ph == PH_DEAL else 0):
        return V_UNDEALT_PHASE
    m = min(d, n * T)
    for q in range(n):
        o = (q - dealer - 1 + n) % n
        cnt = np.int64(0)
        for c in range(K):
            cnt += s[dlt + q * K + c]
        if cnt != m // n + (1 if o < m % n else 0):
            return V_DEALT_HANDS
    cnt = np.int64(0)
    for c in range(K):
        cnt += s[kty + c]
    if cnt != max(np.int64(0), d - n * T):
        return V_KITTY_SIZE

    # The passes (R5): seat order o from the dealer's left chooses pc cards in turn.
    count = np.zeros(K, np.int64)
    for q in range(n):
        o = (q - dealer - 1 + n) % n
        for j in range(pcs):
            v = s[seq + q * pcs + j]
            if (pc > 0 and o * pc + j < npass) != (v >= 0):
                return V_PASS_SEQ
            if v >= 0:
                count[v] += 1
        for c in range(K):
            if s[psd + q * K + c] != count[c]:
                return V_PASSED
            count[c] = 0

    # The trick rows.
    for u in range(T):
        for q in range(n):
            if u < trick:
                filled = True
            elif u == trick and ph == PH_PLAY:
                filled = (q - leader + n) % n < tlen
            else:
                filled = False
            if filled != (s[tc + u * n + q] >= 0):
                return V_TRICK_CARDS
        if u < trick:
            ok = s[tl + u] >= 0
        elif u == trick and ph == PH_PLAY and tlen > 0:
            ok = s[tl + u] == leader
        else:
            ok = s[tl + u] == -1
        if not ok:
            return V_TRICK_LEADS
        if u >= trick and s[tw + u] != TW_NONE:
            return V_TRICK_WINNERS

    return 0


@njit(cache=True)
def _check_play(p, s, exact_hands):
    """Stage 3 of ``validate`` (stages 1-2 passed): the tricks replayed, the
    hands, the moon, the scores and the counters. ``exact_hands`` False
    (``validate_determinization``): a hand need only have the right size."""
    n = np.int64(p[P_N])
    T = np.int64(p[P_HAND])
    pc = np.int64(p[P_PASS])
    kit = np.int64(p[P_KITTY])
    tp = np.int64(p[P_PENALTY_PTS])
    mh = np.int64(p[P_MAX_HANDS])
    und, hnd, dlt, psd = p[L_UNDEALT], p[L_HANDS], p[L_DEALT_HANDS], p[L_PASSED]
    kty, pot, pts, hpts, scr = p[L_KITTY], p[L_POT], p[L_POINTS], p[L_HANDPTS], p[L_SCORES]
    tl, tw, tc, sc = p[L_TLEAD], p[L_TWIN], p[L_TCARDS], p[L_SUITCNT]
    ph = s[S_PHASE]
    over = ph == PH_OVER
    h = np.int64(s[S_HANDNO])
    hand = h - 1 if over else h
    dealer = np.int64(s[S_DEALER])
    off = np.int64(s[S_PASSOFF])
    trick = np.int64(s[S_TRICK])
    tlen = np.int64(s[S_TLEN])
    leader = np.int64(s[S_LEADER])
    sh = np.int64(s[S_SHOOTER])
    lo, hi = _hand_points_bounds(p)
    count = np.zeros(K, np.int64)
    # Replay the completed tricks (R6-R9): leaders, winners, pot, points, counters.
    played = np.zeros(n * K, np.int64)
    potc = np.zeros(K, np.int64)
    taken = np.zeros(n, np.int64)
    kip = np.int64(1) if (kit > 0 and ph != PH_DEAL) else np.int64(0)
    pot_pts = np.int64(0)
    pot_n = np.int64(0)
    if kip == 1:
        for c in range(K):
            pot_pts += s[kty + c] * p[P_POINTS + c]
        pot_n = kit
    voids = cancels = atry = awin = plast = np.int64(0)
    discarded = np.int64(0)
    broken = np.int64(0)
    exp_leader = np.int64(-1)
    if ph != PH_DEAL and ph != PH_PASS:
        started = trick > 0 or tlen > 0
        l0 = np.int64(s[tl]) if started else leader
        if l0 < 0:
            return V_LEADER_CHAIN
        if p[P_FIRST_LEAD] == FIRST_LEAD_OPENING:
            oc = p[P_OPENING]
            if started:
                if s[tc + l0] != oc:
                    return V_LEADER_CHAIN
            elif s[hnd + l0 * K + oc] <= 0:
                return V_LEADER_CHAIN
        elif l0 != (dealer + 1) % n:
            return V_LEADER_CHAIN
        exp_leader = l0
    for u in range(trick):
        ld = np.int64(s[tl + u])
        if ld != exp_leader:
            return V_LEADER_CHAIN
        base = tc + u * n
        led = SUIT_OF[s[base + ld]]
        for q in range(n):
            count[s[base + q]] += 1
        winner = np.int64(-1)
        best_order = -1
        tpts = np.int64(0)
        for q in range(n):
            c = s[base + q]
            tpts += p[P_POINTS + c]
            k = count[c]
            if k > 1:                     # R7: identical cards cancel
                cancels += k // 2
                count[c] = -k
                continue
            if k < 0:
                continue
            if SUIT_OF[c] == led and ORDER_OF[c] > best_order:
                best_order = ORDER_OF[c]
                winner = q
        for q in range(n):
            count[s[base + q]] = 0
        if s[base + ld] == QS:
            atry += 1
            for q in range(n):
                if q != ld and s[base + q] == QS:
                    awin += 1
                    break
        last = u == T - 1
        if last and pot_n - kit * kip > 0:
            plast += 1
        expect = winner
        if winner < 0:
            voids += 1
            if last:
                if p[P_VOID_LAST] == VOID_LEADER:        # R8 B
                    winner = ld
                    expect = ld
                else:                                   # R8 A
                    discarded = tpts + pot_pts
                    expect = TW_DISCARDED
                    pot_pts = 0
                    pot_n = 0
                    kip = 0
                    potc[:] = 0
            else:                                       # R8: set aside
                expect = TW_VOID
                for q in range(n):
                    potc[s[base + q]] += 1
                pot_pts += tpts
                pot_n += n
        if winner >= 0:
            taken[winner] += tpts + pot_pts
            if pot_n > 0:
                pot_pts = 0
                pot_n = 0
                kip = 0
                potc[:] = 0
        if s[tw + u] != expect:
            return V_TRICK_WINNERS
        exp_leader = winner if winner >= 0 else ld
    if ph != PH_DEAL and ph != PH_PASS and leader != exp_leader:
        return V_LEADER_CHAIN
    for u in range(min(trick + 1, T)):
        for q in range(n):
            c = s[tc + u * n + q]
            if c >= 0:
                played[q * K + c] += 1
                if SUIT_OF[c] == HEARTS or c == QS:
                    broken = 1
    for c in range(K):
        if s[pot + c] != potc[c]:
            return V_POT
    if s[S_POTN] != pot_n or s[S_POTPTS] != pot_pts:
        return V_POT_COUNTS
    if s[S_KITTY_IN_POT] != kip:
        return V_KITTY_IN_POT_PHASE
    for q in range(n):
        if s[pts + q] != taken[q]:
            return V_POINTS
    if s[S_DISCARDED] != discarded:
        return V_DISCARDED_PHASE
    if s[S_BROKEN] != broken:
        return V_BROKEN_PLAYED

    # Cards: conservation, then each hand exactly, then the suit counts.
    in_flight = ph == PH_PASS
    for c in range(K):
        tot = np.int64(s[und + c] + s[kty + c])
        for q in range(n):
            tot += s[hnd + q * K + c] + played[q * K + c]
            if in_flight:
                tot += s[psd + q * K + c]
        if tot != p[P_DECK + c]:
            return V_CONSERVATION
    received = ph != PH_DEAL and ph != PH_PASS and pc > 0
    for q in range(n):
        giver = (q - off + n) % n
        size = np.int64(0)
        for c in range(K):
            e = s[dlt + q * K + c] - s[psd + q * K + c] - played[q * K + c]
            if received:
                e += s[psd + giver * K + c]
            if exact_hands and s[hnd + q * K + c] != e:
                return V_HANDS_CONTENT
            size += e - s[hnd + q * K + c]
        if size != 0:
            return V_HANDS_CONTENT
    for q in range(n):
        for su in range(4):
            cnt = 0
            for c in range(K):
                if SUIT_OF[c] == su:
                    cnt += s[hnd + q * K + c]
            if cnt != s[sc + q * 4 + su]:
                return V_SUITCNT

    # The moon (R10) and the scores (R11).
    mode = p[P_MOON]
    exp_sh = np.int64(-1)
    if (ph == PH_MOON or over) and mode != MOON_OFF and tp > 0:
        for q in range(n):
            if taken[q] - bonus_taken(p, s, q) == tp:
                exp_sh = q
    if sh != exp_sh or (ph == PH_MOON and mode != MOON_CHOOSE):
        return V_SHOOTER_PHASE
    choice = s[S_MOON_CHOICE]
    if over and sh >= 0 and mode == MOON_CHOOSE:
        if choice != 0 and choice != 1:
            return V_MOON_CHOICE_PHASE
    elif choice != -1:
        return V_MOON_CHOICE_PHASE
    if over:
        mp = np.int64(p[P_MOON_PTS])
        sub = mode == MOON_SUBTRACT or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 0)
        add = mode == MOON_ADD or mode == MOON_BOTH or (mode == MOON_CHOOSE and choice == 1)
        for q in range(n):
            e = taken[q]
            if sh >= 0:
                if q == sh:
                    if sub:
                        e -= mp
                elif add:
                    e += mp
            if s[hpts + q] != e:
                return V_HANDPTS
    elif h == 0:
        for q in range(n):
            if s[hpts + q] != 0:
                return V_HANDPTS
    best = np.int64(-(2 ** 62))
    for q in range(n):
        sq = np.int64(s[scr + q])
        if h == 0:
            if sq != 0:
                return V_SCORES
        else:
            rest = sq - s[hpts + q]
            if sq < h * lo or sq > h * hi or rest < (h - 1) * lo or rest > (h - 1) * hi:
                return V_SCORES
        best = max(best, sq)
    target = np.int64(p[P_TARGET])
    if over:
        if not (target <= 0 or best >= target or h >= mh):
            return V_MATCH_END
    elif h >= 1 and not (target > 0 and best < target):
        return V_MATCH_END
    prior = hand
    if s[S_VOIDS] < voids or s[S_VOIDS] > voids + prior * T:
        return V_VOIDS_COUNT
    if s[S_CANCELS] < cancels or s[S_CANCELS] > cancels + prior * T * (n // 2):
        return V_CANCELS_COUNT
    if s[S_AARD_TRY] < atry or s[S_AARD_TRY] > atry + prior * T:
        return V_AARD_TRY_COUNT
    if (s[S_AARD_WIN] < awin or s[S_AARD_WIN] > awin + prior * T
            or s[S_AARD_WIN] > s[S_AARD_TRY]):
        return V_AARD_WIN_COUNT
    if s[S_POT_AT_LAST] < plast or s[S_POT_AT_LAST] > plast + prior:
        return V_POT_AT_LAST_COUNT
    moons = np.int64(1) if (over and sh >= 0) else np.int64(0)
    if s[S_MOONS] < moons or s[S_MOONS] > moons + prior:
        return V_MOONS_COUNT
    return 0


@njit(cache=True)
def validate(p, s, exact_hands=True):
    """0 if ``s`` is a consistent state for rules ``p``, else the code of the
    first failed check (``VALIDATE_ERRORS[code]`` names it and says what is
    allowed). Read-only; never indexes with a value it has not range-checked.

    First the range of every field on its own (codes below ``V_FIRST_CROSS``),
    then the phase and every invariant across fields: the dealer, pass offset
    and counters of the hand; the deal order (R4); the pass choices in order
    (R5); the trick rows and leaders (R6, R8); each completed trick's winner,
    the set-aside pot and every seat's points, replayed from the tricks (R7-R9);
    each hand = dealt - passed + received - played, the suit counts,
    conservation of every card type; the shooter, moon choice and hand points
    (R10); scores and the end of a match (R11); the match counters.
    ``exact_hands=False``: see ``validate_determinization``.
    """
    code = _check_fields(p, s)
    if code == 0:
        code = _check_deal_and_passes(p, s)
    if code == 0:
        code = _check_play(p, s, exact_hands)
    return code


def validate_determinization(p, s):
    """``validate`` for the engine states a search draws (``spiel_game._determinize.Determinizer``):
    the hidden hands are redrawn without a history, so each hand is checked for
    its size only, not against the cards its seat was dealt and passed."""
    return validate(p, s, False)


def validate_message(p, s) -> str:
    """'' if ``validate(p, s) == 0``, else a sentence naming the failed check,
    what is allowed and (for a scalar field) the value found."""
    code = int(validate(p, s))
    if code == 0:
        return ""
    name, text = VALIDATE_ERRORS[code]
    msg = f"consistency check {code} {name} failed: {text}"
    field = VALIDATE_FIELD.get(code)
    if field is not None and field < s.shape[0]:
        msg += f" (found {int(s[field])})"
    return msg
