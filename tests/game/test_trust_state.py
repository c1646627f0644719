"""Trust in engine states: ``validation.validate`` rejects every forged engine state.

* Every state reached by legal play validates to 0 (no false positives):
  a few hundred random games over every preset and further schemes (matches
  with a target score, the kitty deck, ``moon="choose"``, R8 A discards,
  ``deal="whole"`` on small custom decks); the test also checks that these
  games reach the rare situations the checks are about (every phase, moon
  shots and choices, void and discarded tricks, a taken kitty, later hands
  of a match, both ways a match ends).
* A value outside a field's range, in any field of a real state (any
  phase, several player counts and schemes), is reported by that field's
  own code (``engine.VALIDATE_ERRORS``); validate reads the state only, and
  assigning such a vector to a state raises ``CorruptStateError`` naming the
  check and leaves the state as it was. The ranges are written out below from
  RULES.md and the layout, not read from the engine's table.
* Any change of one entry of a state of a one-hand game (and, in a match, of
  any entry but the counters that may carry over from earlier hands) is
  detected: each field is either checked against the others or fixed.
* Forged states (leader 10^8, hearts broken 7, 1000 passes,
  shooter 5x10^7) and targeted in-range inconsistencies, each with its code.
"""

from __future__ import annotations

import functools

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import spiel_game
from spiel_game import CorruptStateError
from spiel_game import _engine as E
from spiel_game import _validation as V

NAME = spiel_game.GAME_NAME
K = 53
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Rule sets whose legal play must validate: every preset, plus schemes the
#: presets do not cover.
EXTRA_CONFIGS = [
    {"players": 6, "target_score": 40, "moon": "choose", "utility": "zero_sum"},
    {"players": 7, "moon": "subtract", "pass_offset": -1, "void_last_trick": "discard"},
    {"deck": "kitty", "players": 9, "target_score": 30, "max_hands": 4},
    {"deck": "kitty", "players": 5, "void_last_trick": "discard", "moon": "both"},
    {"deck": "custom", "players": 4, "suits": "CDHS", "ranks": "TJQKA", "packs": 3,
     "first_lead": "left_of_dealer", "void_last_trick": "discard"},
    {"players": 5, "moon": "off", "pass_count": 0},
    {"players": 11, "packs": 3, "target_score": 60, "max_hands": 2},
    # small decks: moon shots, choices, discards and matches are frequent
    {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA", "packs": 1,
     "deal": "whole", "pass_count": 0, "moon": "choose"},
    {"deck": "custom", "players": 3, "suits": "HS", "ranks": "QKA", "packs": 1,
     "deal": "whole", "pass_count": 1, "moon": "choose", "target_score": 20},
    {"deck": "custom", "players": 2, "suits": "HS", "ranks": "QKA", "packs": 2,
     "deal": "whole", "pass_count": 1, "moon": "choose", "void_last_trick": "discard",
     "target_score": 40, "max_hands": 6},
    {"deck": "custom", "players": 3, "suits": "CHS", "ranks": "JQKA", "packs": 3,
     "moon": "choose", "void_last_trick": "discard", "target_score": 30},
    {"deck": "custom", "players": 4, "suits": "HS", "ranks": "QKA", "packs": 4,
     "pass_count": 2, "pass_offset": 2, "moon": "subtract", "target_score": 25,
     "max_hands": 5},
]
CONFIGS = [dict(p) for p in spiel_game.PRESETS.values()] + EXTRA_CONFIGS


@functools.cache
def load(i: int):
    return pyspiel.load_game(NAME, CONFIGS[i])


def play(game, seed: int):
    """Engine vectors of one random legal game (every action, the start included)."""
    P = game._P
    rng = np.random.default_rng(seed)
    s = E.new_state(P)
    yield s
    while s[E.S_PHASE] != E.PH_OVER:
        if s[E.S_PHASE] == E.PH_DEAL and game._deals is not None:
            E.apply_whole_deal(P, s, game._deals[int(rng.integers(len(game._deals)))])
        else:
            legal = E.legal_actions(P, s)
            assert legal.size, "no legal action before the end"
            assert E.apply_action(P, s, int(legal[int(rng.integers(legal.size))])) == 0
        yield s


# ------------------------------------------------------------- no false positives
GAMES_PER_CONFIG = 9


def test_every_state_of_legal_play_validates():
    seen = set()
    games = 0
    for i in range(len(CONFIGS)):
        game = load(i)
        P = game._P
        rules = game.rules
        for seed in range(GAMES_PER_CONFIG):
            games += 1
            for s in play(game, seed):
                code = int(V.validate(P, s))
                assert code == 0, (f"{CONFIGS[i]} seed {seed}, {int(s[E.S_NPLAYED])} cards "
                                   f"played: {V.validate_message(P, s)}")
                ph = int(s[E.S_PHASE])
                seen.add(("phase", ph))
                if ph == E.PH_OVER:
                    seen.add(("over", "shooter" if s[E.S_SHOOTER] >= 0 else "no shooter"))
                    seen.add(("moon choice", int(s[E.S_MOON_CHOICE])))
                    if rules.is_match:
                        hi = E.scores(P, s).max()
                        seen.add(("match over", "target" if hi >= rules.target_score
                                  else "max_hands"))
                if s[E.S_HANDNO] >= 1 and ph != E.PH_OVER:
                    seen.add(("later hand", ph))
                if s[E.S_TLEN] == 0 and s[E.S_TRICK] > 0:       # a trick just completed
                    seen.add(("trick", int(E.trick_winners(P, s)[s[E.S_TRICK] - 1])))
                if rules.kitty_size and ph == E.PH_PLAY and s[E.S_KITTY_IN_POT] == 0:
                    seen.add(("kitty taken",))
                if s[E.S_POT_AT_LAST] > 0:
                    seen.add(("pot at last trick",))
                if s[E.S_AARD_WIN] > 0:
                    seen.add(("aardvark",))
    assert games >= 200
    wanted = {("phase", ph) for ph in range(5)} | {
        ("over", "shooter"), ("over", "no shooter"), ("moon choice", -1), ("moon choice", 0),
        ("moon choice", 1), ("match over", "target"), ("match over", "max_hands"),
        ("later hand", E.PH_DEAL), ("later hand", E.PH_PASS), ("later hand", E.PH_PLAY),
        ("trick", E.TW_VOID), ("trick", E.TW_DISCARDED), ("kitty taken",),
        ("pot at last trick",), ("aardvark",)}
    assert wanted <= seen, f"random play never reached {sorted(wanted - seen)}"


# ------------------------------------------------------------- pools of real states
STATES_PER_GAME = 14


@functools.cache
def pool(i: int) -> tuple:
    """Copies of states of two random games of config ``i``, in every phase reached."""
    game = load(i)
    out = []
    for seed in (101, 102):
        states = [s.copy() for s in play(game, seed)]
        step = max(1, len(states) // STATES_PER_GAME)
        picked = states[::step] + [states[-1]]
        # a pass phase and a trick in progress, when the game has them
        picked += [x for x in states if x[E.S_PHASE] == E.PH_PASS][:1]
        picked += [x for x in states if x[E.S_PHASE] == E.PH_MOON][:1]
        out.extend(picked)
    return tuple(out)


def hand_points_bounds(rules):
    return rules.hand_points_range()


def fields(i: int):
    """(label, index into s, allowed) for every entry of the state vector of
    config ``i``, where ``allowed`` is (lo, hi) or a frozenset, and the name of
    the range check each belongs to. Written from RULES.md and the layout."""
    game = load(i)
    r = game.rules
    P = game._P
    n, T, nc = r.players, r.hand_size, r.num_cards
    pc = r.pass_count if r.passes else 0
    tp = r.total_points
    H = r.num_hands_max
    deck = r.deck_counts
    lo, hi = hand_points_bounds(r)
    cards = frozenset([-1] + [c for c in range(K) if deck[c] > 0])
    out = [
        ("PHASE", E.S_PHASE, (0, 4)),
        ("CUR", E.S_CUR, frozenset([-1, -4] + list(range(n)))),
        ("DEALT", E.S_DEALT, (0, nc)),
        ("DEALER", E.S_DEALER, (0, n - 1)),
        ("HANDNO", E.S_HANDNO, (0, H)),
        ("PASSOFF", E.S_PASSOFF, (0, n - 1)),
        ("NPASS", E.S_NPASS, (0, n * pc)),
        ("NPLAYED", E.S_NPLAYED, (0, n * T)),
        ("TRICK", E.S_TRICK, (0, T)),
        ("LEADER", E.S_LEADER, (-1, n - 1)),
        ("TLEN", E.S_TLEN, (0, n - 1)),
        ("BROKEN", E.S_BROKEN, (0, 1)),
        ("POTPTS", E.S_POTPTS, (0, tp)),
        ("POTN", E.S_POTN, (0, nc)),
        ("KITTY_IN_POT", E.S_KITTY_IN_POT, (0, 1 if r.kitty_size else 0)),
        ("SHOOTER", E.S_SHOOTER, (-1, n - 1)),
        ("VOIDS", E.S_VOIDS, (0, H * T)),
        ("CANCELS", E.S_CANCELS, (0, H * T * (n // 2))),
        ("MOON_CHOICE", E.S_MOON_CHOICE, (-1, 1)),
        ("AARD_TRY", E.S_AARD_TRY, (0, H * T)),
        ("AARD_WIN", E.S_AARD_WIN, (0, H * T)),
        ("POT_AT_LAST", E.S_POT_AT_LAST, (0, H)),
        ("DISCARDED", E.S_DISCARDED, (0, tp)),
        ("MOONS", E.S_MOONS, (0, H)),
    ]
    for name, off, rows in (("UNDEALT_RANGE", E.L_UNDEALT, 1), ("HANDS_RANGE", E.L_HANDS, n),
                            ("DEALT_HANDS_RANGE", E.L_DEALT_HANDS, n),
                            ("PASSED_RANGE", E.L_PASSED, n), ("KITTY_RANGE", E.L_KITTY, 1),
                            ("POT_RANGE", E.L_POT, 1)):
        for q in range(rows):
            out += [(name, int(P[off]) + q * K + c, (0, deck[c])) for c in range(K)]
    out += [("POINTS_RANGE", int(P[E.L_POINTS]) + q, (0, tp)) for q in range(n)]
    out += [("HANDPTS_RANGE", int(P[E.L_HANDPTS]) + q, (lo, hi)) for q in range(n)]
    out += [("SCORES_RANGE", int(P[E.L_SCORES]) + q, (H * lo, H * hi)) for q in range(n)]
    out += [("TLEAD_RANGE", int(P[E.L_TLEAD]) + u, (-1, n - 1)) for u in range(T)]
    out += [("TWIN_RANGE", int(P[E.L_TWIN]) + u, (-3, n - 1)) for u in range(T)]
    out += [("TCARDS_RANGE", int(P[E.L_TCARDS]) + j, cards) for j in range(T * n)]
    out += [("PASSSEQ_RANGE", int(P[E.L_PASSSEQ]) + j, cards) for j in range(n * max(1, pc))]
    out += [("SUITCNT_RANGE", int(P[E.L_SUITCNT]) + j, (0, T)) for j in range(n * 4)]
    out += [("SCRATCH", int(P[E.L_SCRATCH]) + c, (0, 0)) for c in range(K)]
    assert sorted(idx for _, idx, _ in out) == list(range(int(P[E.L_STATE_SIZE]))), \
        "the test's field list must cover the whole state vector"
    return out


def code_of(name: str) -> int:
    codes = [c for c, (nm, _) in V.VALIDATE_ERRORS.items() if nm == name]
    assert len(codes) == 1, f"check {name} must have exactly one code, got {codes}"
    return codes[0]


def outside(allowed) -> st.SearchStrategy:
    """int32 values outside ``allowed`` ((lo, hi) or a set)."""
    if isinstance(allowed, frozenset):
        lo, hi = min(allowed), max(allowed)
        gaps = [v for v in range(lo, hi + 1) if v not in allowed]
    else:
        (lo, hi), gaps = allowed, []
    parts = [st.integers(INT32_MIN, lo - 1), st.integers(hi + 1, INT32_MAX),
             st.sampled_from([lo - 1, hi + 1, INT32_MIN, INT32_MAX, 10**8])]
    if gaps:
        parts.append(st.sampled_from(gaps))
    return st.one_of(parts).filter(
        lambda v: INT32_MIN <= v <= INT32_MAX and not _inside(allowed, v))


def _inside(allowed, v) -> bool:
    if isinstance(allowed, frozenset):
        return v in allowed
    return allowed[0] <= v <= allowed[1]


def test_every_check_has_its_own_code_and_message():
    names = [nm for nm, _ in V.VALIDATE_ERRORS.values()]
    assert len(names) == len(set(names))
    assert sorted(V.VALIDATE_ERRORS) == list(range(1, len(names) + 1))
    assert all(len(text) > 20 for _, text in V.VALIDATE_ERRORS.values())


def test_the_field_list_matches_every_config():
    for i in range(len(CONFIGS)):
        fields(i)        # covers every index exactly once (asserted inside)


@settings(max_examples=300, **SETTINGS)
@given(data=st.data())
def test_out_of_range_value_in_any_field_gives_its_own_code(data):
    i = data.draw(st.integers(0, len(CONFIGS) - 1), label="config")
    states = pool(i)
    s0 = states[data.draw(st.integers(0, len(states) - 1), label="state")]
    flist = fields(i)
    # scalars half of the time (there are few of them), array entries otherwise
    if data.draw(st.booleans(), label="scalar"):
        name, idx, allowed = data.draw(st.sampled_from(flist[:E.S_NSCALARS]), label="field")
    else:
        name, idx, allowed = data.draw(st.sampled_from(flist[E.S_NSCALARS:]), label="field")
    value = data.draw(outside(allowed), label="value")
    P = load(i)._P
    s = s0.copy()
    s[idx] = value
    before = s.copy()
    code = int(V.validate(P, s))
    assert code == code_of(name), (
        f"{CONFIGS[i]}: s[{idx}] ({name}) = {value}: validate gave {code} "
        f"{V.VALIDATE_ERRORS.get(code)}, expected {name}")
    assert np.array_equal(s, before), "validate must not write to the state"
    msg = V.validate_message(P, s)
    assert name in msg and V.VALIDATE_ERRORS[code][1] in msg


#: Fields that may legitimately differ in a match: counters and scores carry
#: over from earlier hands, whose details the state no longer holds.
def _match_slack(i: int) -> set:
    game = load(i)
    P = game._P
    n = game.rules.players
    slack = {E.S_VOIDS, E.S_CANCELS, E.S_AARD_TRY, E.S_AARD_WIN, E.S_POT_AT_LAST,
             E.S_MOONS, E.S_HANDNO}
    slack |= {int(P[E.L_HANDPTS]) + q for q in range(n)}
    slack |= {int(P[E.L_SCORES]) + q for q in range(n)}
    return slack


@settings(max_examples=300, **SETTINGS)
@given(data=st.data())
def test_any_change_of_one_entry_is_detected(data):
    i = data.draw(st.integers(0, len(CONFIGS) - 1), label="config")
    states = pool(i)
    s0 = states[data.draw(st.integers(0, len(states) - 1), label="state")]
    idx = data.draw(st.integers(0, s0.shape[0] - 1), label="index")
    P = load(i)._P
    prior_hands = int(s0[E.S_HANDNO]) - (1 if s0[E.S_PHASE] == E.PH_OVER else 0)
    if prior_hands > 0 and idx in _match_slack(i):
        return
    if idx == E.S_MOON_CHOICE and P[E.P_MOON_PTS] == 0:
        return                      # a choice between +0 and -0 leaves no trace
    delta = data.draw(st.one_of(st.integers(-3, 3), st.integers(-1000, 1000))
                      .filter(lambda d: d != 0), label="delta")
    s = s0.copy()
    s[idx] = np.int32(np.clip(int(s0[idx]) + delta, INT32_MIN, INT32_MAX))
    code = int(V.validate(P, s))
    name = [nm for nm, idx_, _ in fields(i) if idx_ == idx][0]
    assert code != 0, (f"{CONFIGS[i]}: s[{idx}] ({name}) changed from {int(s0[idx])} to "
                       f"{int(s[idx])} in phase {int(s0[E.S_PHASE])} is not detected")


# ------------------------------------------------------------ targeted forgeries
def mid_play_state(params: dict, seed: int = 3, played: int | None = None):
    game = pyspiel.load_game(NAME, params)
    rng = np.random.default_rng(seed)
    st_ = game.new_initial_state()
    target = played if played is not None else game.rules.num_cards // 2
    while st_.is_chance_node() or st_.engine_state[E.S_PHASE] == E.PH_PASS or \
            st_.engine_state[E.S_NPLAYED] < target:
        la = st_.legal_actions()
        st_.apply_action(la[int(rng.integers(len(la)))])
    return game, st_


ISSUE_FORGERIES = [("LEADER", E.S_LEADER, 10**8), ("BROKEN", E.S_BROKEN, 7),
                   ("NPASS", E.S_NPASS, 1000), ("SHOOTER", E.S_SHOOTER, 5 * 10**7)]


@pytest.mark.parametrize("name,field,value", ISSUE_FORGERIES, ids=[f[0] for f in ISSUE_FORGERIES])
def test_the_issues_forged_states_are_rejected_and_leave_the_state_alone(name, field, value):
    game, st_ = mid_play_state({"players": 6})
    P = game._P
    forged = np.array(st_.engine_state)
    forged[field] = value
    assert int(V.validate(P, forged)) == code_of(name)
    before = (np.array(st_.engine_state), st_.history(), str(st_))
    with pytest.raises(CorruptStateError) as info:
        st_._b = forged
    assert name in str(info.value), str(info.value)
    assert np.array_equal(st_.engine_state, before[0])
    assert st_.history() == before[1] and str(st_) == before[2]
    assert st_.legal_actions() == E.legal_actions(P, before[0]).tolist()


def _targeted(game, s):
    """(expected check, corrupted copy) pairs of a mid-play engine vector whose
    every value stays within its field's range."""
    P = game._P
    n = game.rules.players
    hands, sc = P[E.L_HANDS], P[E.L_SUITCNT]
    out = []

    def mod(name, **changes):
        a = s.copy()
        for idx, v in changes["at"]:
            a[idx] = v
        out.append((name, a))

    cur = int(s[E.S_CUR])
    mod("CUR_PHASE", at=[(E.S_CUR, (cur + 1) % n)])
    mod("DEALER_HAND", at=[(E.S_DEALER, (int(s[E.S_DEALER]) + 1) % n)])
    mod("HANDNO_PHASE", at=[(E.S_HANDNO, 1)])
    mod("BROKEN_PLAYED", at=[(E.S_BROKEN, 1 - int(s[E.S_BROKEN]))])
    pts = P[E.L_POINTS]
    q_rich = int(np.argmax(s[pts:pts + n]))
    mod("POINTS", at=[(pts + q_rich, s[pts + q_rich] - 1), (pts + (q_rich + 1) % n,
                                                            s[pts + (q_rich + 1) % n] + 1)])
    a = sc + int(np.flatnonzero(s[sc:sc + 4])[0])        # a suit seat 0 holds
    b = sc + (a - sc + 1) % 4
    mod("SUITCNT", at=[(a, s[a] - 1), (b, s[b] + 1)])    # same total, one suit moved
    # a card moved from one hand to the next, suit counts kept consistent
    q0 = cur
    c = int(np.flatnonzero(s[hands + q0 * K:hands + q0 * K + K])[0])
    q1 = (q0 + 1) % n
    su = int(E.SUIT_OF[c])
    mod("HANDS_CONTENT", at=[(hands + q0 * K + c, s[hands + q0 * K + c] - 1),
                             (hands + q1 * K + c, s[hands + q1 * K + c] + 1),
                             (sc + q0 * 4 + su, s[sc + q0 * 4 + su] - 1),
                             (sc + q1 * 4 + su, s[sc + q1 * 4 + su] + 1)])
    tw = P[E.L_TWIN]
    w = int(s[tw])
    mod("TRICK_WINNERS", at=[(tw, (w + 1) % n if w >= 0 else 0)])
    mod("VOIDS_COUNT", at=[(E.S_VOIDS, s[E.S_VOIDS] + 1)])
    mod("CANCELS_COUNT", at=[(E.S_CANCELS, s[E.S_CANCELS] + 1)])
    mod("SHOOTER_PHASE", at=[(E.S_SHOOTER, 0)])
    mod("MOON_CHOICE_PHASE", at=[(E.S_MOON_CHOICE, 1)])
    mod("SCORES", at=[(P[E.L_SCORES], 3)])
    mod("HANDPTS", at=[(P[E.L_HANDPTS] + 1, 2)])
    mod("NPASS_PHASE", at=[(E.S_NPASS, s[E.S_NPASS] - 1)])
    seq = P[E.L_PASSSEQ]
    other = next(x for x in range(K) if game.rules.deck_counts[x] and x != s[seq])
    mod("PASSED", at=[(seq, other)])
    mod("NPLAYED_PHASE", at=[(E.S_NPLAYED, s[E.S_NPLAYED] + 1)])
    mod("POT_COUNTS", at=[(E.S_POTPTS, s[E.S_POTPTS] + 1)])
    return out


TARGETED = ["CUR_PHASE", "DEALER_HAND", "HANDNO_PHASE", "BROKEN_PLAYED", "POINTS", "SUITCNT",
            "HANDS_CONTENT", "TRICK_WINNERS", "VOIDS_COUNT", "CANCELS_COUNT", "SHOOTER_PHASE",
            "MOON_CHOICE_PHASE", "SCORES", "HANDPTS", "NPASS_PHASE", "PASSED",
            "NPLAYED_PHASE", "POT_COUNTS"]


@pytest.mark.parametrize("params", [{"players": 6}, {"players": 9},
                                    {"deck": "kitty", "players": 7}])
def test_targeted_inconsistencies_get_their_own_code(params):
    game, st_ = mid_play_state(params)
    s = np.array(st_.engine_state)
    assert s[E.S_TRICK] >= 1
    got = {}
    for name, bad in _targeted(game, s):
        got[name] = V.VALIDATE_ERRORS.get(int(V.validate(game._P, bad)), ("OK",))[0]
    assert got == {name: name for name in TARGETED}


def test_kitty_flag_is_checked_against_the_tricks():
    # kitty deck: once a trick is taken the kitty is no longer in the pot
    game, st_ = mid_play_state({"deck": "kitty", "players": 7})
    s = np.array(st_.engine_state)
    assert s[E.S_KITTY_IN_POT] == 0
    s[E.S_KITTY_IN_POT] = 1
    assert V.VALIDATE_ERRORS[int(V.validate(game._P, s))][0] == "KITTY_IN_POT_PHASE"


def test_validate_is_compiled_and_fast():
    game, st_ = mid_play_state({"players": 11, "packs": 3})
    s = np.array(st_.engine_state)
    assert hasattr(V.validate, "py_func"), "validate must stay a numba kernel"
    import time
    V.validate(game._P, s)
    t0 = time.perf_counter()
    for _ in range(200):
        V.validate(game._P, s)
    per_call = (time.perf_counter() - t0) / 200
    assert per_call < 2e-3, f"validate took {per_call * 1e6:.0f} us on an 11-player state"


def test_determinization_check_allows_redrawn_hands_only():
    """A search's determinization redraws hidden hands without a history: the
    full check rejects it (HANDS_CONTENT), the determinization check accepts it
    as long as every hand keeps its size and every other invariant holds."""
    game, st_ = mid_play_state({"players": 6})
    P, s = game._P, np.array(st_.engine_state)
    hands, sc = P[E.L_HANDS], P[E.L_SUITCNT]
    q, r = (int(s[E.S_CUR]) + 1) % 6, (int(s[E.S_CUR]) + 2) % 6
    hq = set(np.flatnonzero(s[hands + q * K:hands + q * K + K]).tolist())
    hr = set(np.flatnonzero(s[hands + r * K:hands + r * K + K]).tolist())
    c, d = min(hq - hr), min(hr - hq)            # q gives c to r, r gives d to q
    swapped = s.copy()
    for seat, out, inn in ((q, c, d), (r, d, c)):
        swapped[hands + seat * K + out] -= 1
        swapped[hands + seat * K + inn] += 1
        swapped[sc + seat * 4 + E.SUIT_OF[out]] -= 1
        swapped[sc + seat * 4 + E.SUIT_OF[inn]] += 1
    assert V.VALIDATE_ERRORS[int(V.validate(P, swapped))][0] == "HANDS_CONTENT"
    assert int(V.validate_determinization(P, swapped)) == 0
    short = swapped.copy()                       # q gives c away without getting d back
    short[hands + q * K + d] -= 1
    short[sc + q * 4 + E.SUIT_OF[d]] -= 1
    short[hands + r * K + d] += 1
    short[sc + r * 4 + E.SUIT_OF[d]] += 1
    assert V.VALIDATE_ERRORS[int(V.validate_determinization(P, short))][0] == "HANDS_CONTENT"
