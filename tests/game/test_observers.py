"""Observers (spiel_game.observers): layout, pyspiel integration, what is hidden,
string <=> tensor injectivity and perfect recall on exhaustively enumerated games."""

from __future__ import annotations

import collections
import hashlib
import pathlib

import numpy as np
import pyspiel
import pytest
from open_spiel.python import observation as os_observation

import spiel_game
from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game import observers as O
from spiel_game._playout import play_random
from spiel_game._render import state_to_text
from spiel_game._scenarios import state_from_hands

PI = pyspiel.PrivateInfoType
GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "infostate_layout_default.txt"


def _type(recall, private=PI.SINGLE_PLAYER, public=True):
    return pyspiel.IIGObservationType(perfect_recall=recall, public_info=public,
                                      private_info=private)


VIEWS = {
    "info": _type(True), "obs": _type(False),
    "info_public": _type(True, PI.NONE), "obs_public": _type(False, PI.NONE),
    "info_all": _type(True, PI.ALL_PLAYERS), "obs_all": _type(False, PI.ALL_PLAYERS),
    "info_private_only": _type(True, public=False),
    "obs_all_private_only": _type(False, PI.ALL_PLAYERS, public=False),
}
PRESETS = ["default", "balanced5", "kitty7", "classic", "match6", "tiny"]

# Exhaustively enumerated games (R3 custom decks): 2 players passing 1 card with
# the moon choice (R10), and 3 players without passing; both decks hold
# identical cards, so R7 cancellation and void tricks (R8) occur.
SMALL_GAMES = {
    "2p_pass1": dict(deck="custom", players=2, suits="HS", ranks="QK", pass_count=1,
                     moon="choose"),
    "3p_nopass": dict(deck="custom", players=3, suits="CHS", ranks="K", packs=2,
                      pass_count=0),
}


def _play(game, rng, stop=lambda st: False):
    """A random playout (seeded ``rng``) until ``stop(state)`` or the end; returns it."""
    return play_random(game, rng, until=stop)


def _mid_hand(st):
    return st._s[E.S_PHASE] == E.PH_PLAY and st._s[E.S_TRICK] >= 3 and st._s[E.S_TLEN] >= 2


def _digest(a: np.ndarray) -> bytes:
    return hashlib.blake2b(a.tobytes(), digest_size=16).digest()


# ------------------------------------------------------------------ layout
@pytest.mark.parametrize("name", PRESETS)
def test_layout_is_contiguous_and_matches_the_buffer(name):
    game = spiel_game.load(name)
    for view, t in VIEWS.items():
        obs = O.make_observer(game, t)
        layout = O.tensor_layout(game, t)
        names = [n for n, _, _ in layout]
        assert len(set(names)) == len(names), (view, names)
        off = 0
        for piece, start, shape in layout:
            assert start == off, (view, piece)
            size = int(np.prod(shape))
            assert size > 0, (view, piece)
            assert obs.dict[piece].shape == shape
            assert np.shares_memory(obs.dict[piece], obs.tensor)
            off += size
        assert off == obs.tensor.size and obs.tensor.dtype == np.float32
        table = O.format_layout(game, t)
        for piece, start, _shape in layout:
            assert f"{piece:<14} {start:>7}" in table, (view, piece)


def test_layout_pieces_follow_the_rules():
    game = spiel_game.load()            # 6 players, 17 tricks, 2 copies, pass 4
    info = dict((n, s) for n, _, s in O.tensor_layout(game, VIEWS["info"]))
    assert info["trick_cards"] == (17, 6, 53)
    assert info["trick_result"] == (17, 8)
    assert info["passed"] == (4, 53)
    assert info["hand"] == (53, 2)
    assert "kitty" not in info and "scores" not in info and "moon_choice" not in info
    kitty = dict((n, s) for n, _, s in O.tensor_layout(spiel_game.load("kitty7"), None))
    assert kitty["kitty"] == (53, 2) and kitty["kitty_taken"] == (1,)
    match = dict((n, s) for n, _, s in O.tensor_layout(spiel_game.load("match6"), None))
    assert match["scores"] == (6,) and match["hand_number"] == (1,)
    assert match["moon_choice"] == (2,)
    public = [n for n, _, _ in O.tensor_layout(game, VIEWS["info_public"])]
    assert not {"seat", "hand", "dealt_hand", "passed", "received", "moon_pending"} & set(public)
    every = dict((n, s) for n, _, s in O.tensor_layout(game, VIEWS["info_all"]))
    assert every["hands"] == (6, 53, 2) and every["passed"] == (6, 4, 53)
    assert "received" not in every
    nopass = [n for n, _, _ in O.tensor_layout(spiel_game.load("tiny"), VIEWS["info"])]
    assert "passed" not in nopass and "received" not in nopass


def test_golden_infostate_layout_default():
    text = O.format_layout(spiel_game.load(), O.INFO_STATE_OBS_TYPE)
    assert GOLDEN.read_text() == text, (
        "the information-state layout of the default game changed; if intended, "
        "regenerate tests/golden/infostate_layout_default.txt with "
        "O.format_layout(spiel_game.load(), O.INFO_STATE_OBS_TYPE)")


def test_observer_rejects_parameters_and_empty_views():
    game = spiel_game.load("tiny")
    with pytest.raises(ValueError, match="no parameters"):
        O.make_observer(game, None, {"foo": 1})
    with pytest.raises(ValueError, match="supported: public_info=True"):
        O.make_observer(game, _type(True, PI.NONE, public=False))
    with pytest.raises(ValueError, match="supported"):
        game.make_py_observer(_type(False, PI.NONE, public=False), None)
    assert O.make_observer(game, None, {}).tensor.size == game.observation_tensor_size()
    obs = O.make_observer(game, O.INFO_STATE_OBS_TYPE)
    st = game.new_initial_state()
    for bad in (-1, 2):
        with pytest.raises(ValueError, match="not a seat"):
            obs.set_from(st, bad)
    with pytest.raises(ValueError, match="other rules"):
        obs.set_from(spiel_game.load("default").new_initial_state(), 0)
    with pytest.raises(ValueError, match="other rules"):
        obs.string_from(spiel_game.load("default").new_initial_state(), 0)


# ------------------------------------------------------------------ pyspiel
@pytest.mark.parametrize("name", PRESETS)
def test_pyspiel_tensors_and_strings_come_from_the_observer(name):
    game = spiel_game.load(name)
    info, obs = O.make_observer(game, O.INFO_STATE_OBS_TYPE), O.make_observer(game)
    assert game.information_state_tensor_size() == info.tensor.size
    assert game.observation_tensor_size() == obs.tensor.size
    assert game.information_state_tensor_shape() == [info.tensor.size]
    st = _play(game, np.random.default_rng(11), _mid_hand)
    wrapped = os_observation.make_observation(game, O.INFO_STATE_OBS_TYPE)
    for p in range(game.num_players()):
        info.set_from(st, p)
        obs.set_from(st, p)
        wrapped.set_from(st, p)
        assert np.array_equal(np.asarray(st.information_state_tensor(p), np.float32), info.tensor)
        assert np.array_equal(np.asarray(st.observation_tensor(p), np.float32), obs.tensor)
        assert np.array_equal(wrapped.tensor, info.tensor)
        assert st.information_state_string(p) == info.string_from(st, p)
        assert st.observation_string(p) == obs.string_from(st, p)
        assert info.string_from(st, p).startswith(f"P{p} of {game.num_players()} | ")


def test_relative_seats_and_values_read_from_the_engine():
    game = spiel_game.load()
    rng = np.random.default_rng(3)
    st = _play(game, rng, _mid_hand)
    s, P, n = st._s, st._P, 6
    info, obs = O.make_observer(game, O.INFO_STATE_OBS_TYPE), O.make_observer(game)
    tcards = E.all_trick_cards(P, s).reshape(17, n)
    points = E.points(P, s)
    t_now = int(s[E.S_TRICK])
    for p in range(n):
        info.set_from(st, p)
        obs.set_from(st, p)
        d = info.dict
        assert np.flatnonzero(d["seat"]).tolist() == [p]
        assert np.flatnonzero(d["dealer"]).tolist() == [(int(s[E.S_DEALER]) - p) % n]
        assert d["phase"][E.PH_PLAY] == 1 and d["phase"].sum() == 1
        for r in range(n):
            q = (p + r) % n
            assert d["points"][r] == pytest.approx(points[q] / 52)
            for t in range(t_now + 1):
                row = d["trick_cards"][t, r]
                c = int(tcards[t, q])
                want = (1, c) if c >= 0 else (0, -1)
                assert (row.sum(), row.argmax() if c >= 0 else -1) == want
        assert d["trick_cards"][t_now + 1:].sum() == 0
        assert d["trick_result"][t_now:].sum() == 0
        assert d["trick_result"][:t_now].sum() == t_now
        hand = E.hand(P, s, p)
        assert np.array_equal(d["hand"].sum(axis=1), hand)
        assert np.array_equal(obs.dict["hand"], d["hand"])
        dealt = E.dealt_hand(P, s, p)
        assert np.array_equal(d["dealt_hand"].sum(axis=1), dealt)
        seq = E.pass_choices(P, s, p)
        assert d["passed"].argmax(axis=1).tolist() == seq.tolist()
        assert np.array_equal(obs.dict["passed"].sum(axis=1), np.bincount(seq, minlength=E.K))
        sender = (p - 1) % n                        # R5: passing to the left
        got = E.passed(P, s, sender)
        assert np.array_equal(d["received"].sum(axis=1), got)
        assert np.array_equal(obs.dict["received"], d["received"])
        pot = E.pot(P, s)
        assert np.array_equal(d["pot"].sum(axis=1), pot)
        text = info.string_from(st, p)
        for label, cards in (("dealt", dealt), ("hand", hand), ("received", got)):
            assert f"| {label}: {C.cards_to_string(cards)} |" in text
        assert f"| passed: {' '.join(C.card_to_string(int(c)) for c in seq)} |" in text
        voids = np.zeros((n, 4))
        for t in range(t_now + 1):
            ld = int(E.trick_leaders(P, s)[t])
            if ld >= 0:
                led = C.card_suit(int(tcards[t, ld]))
                for q in range(n):
                    if tcards[t, q] >= 0 and C.card_suit(int(tcards[t, q])) != led:
                        voids[(q - p) % n, led] = 1
        assert np.array_equal(obs.dict["voids"], voids)
        cur = int(s[E.S_CUR])
        assert np.flatnonzero(obs.dict["to_move"]).tolist() == [(cur - p) % n]
        assert np.flatnonzero(obs.dict["leader"]).tolist() == [(int(s[E.S_LEADER]) - p) % n]
        assert obs.dict["played"].sum() == t_now * n + int(s[E.S_TLEN])


def test_thermometer_tells_two_copies_from_one():
    game = spiel_game.load()
    st = _play(game, np.random.default_rng(5), lambda st: st._s[E.S_PHASE] == E.PH_PASS)
    obs = O.make_observer(game, O.INFO_STATE_OBS_TYPE)
    for p in range(6):
        obs.set_from(st, p)
        hand = E.hand(st._P, st._s, p)
        for c in range(E.K):
            assert obs.dict["hand"][c].tolist() == [float(hand[c] > 0), float(hand[c] > 1)]
    assert any((np.concatenate([E.hand(st._P, st._s, q) for q in range(6)]) == 2).tolist())


# ------------------------------------------------------------- hidden cards
def _swapped_states(game, rng, a_seat, b_seat, n_actions):
    """Two states after the same ``n_actions`` random actions whose deals differ by
    swapping one card of ``a_seat`` (None: the kitty) with one of ``b_seat``
    (same suit, so the same cards stay legal; neither card passed nor played)."""
    r = game.rules
    deck = [c for c in range(E.K) for _ in range(r.deck_counts[c])]
    for _ in range(200):
        order = rng.permutation(deck)
        hands = [sorted(order[q * r.hand_size:(q + 1) * r.hand_size].tolist())
                 for q in range(r.players)]
        kitty = order[r.players * r.hand_size:].tolist()
        a = state_from_hands(game, hands, kitty)
        actions = []
        for _ in range(n_actions):
            act = int(rng.choice(a.legal_actions()))
            actions.append(act)
            a.apply_action(act)
        used = set(actions)
        pool_a = hands[a_seat] if a_seat is not None else kitty
        pairs = [(x, y) for x in set(pool_a) for y in set(hands[b_seat])
                 if x != y and C.card_suit(x) == C.card_suit(y) and not {x, y} & used]
        if not pairs:
            continue
        x, y = pairs[rng.integers(len(pairs))]
        hands2 = [list(h) for h in hands]
        kitty2 = list(kitty)
        src = hands2[a_seat] if a_seat is not None else kitty2
        src[src.index(x)] = y
        hands2[b_seat][hands2[b_seat].index(y)] = x
        try:
            b = state_from_hands(game, hands2, kitty2, plays=actions)
        except spiel_game.IllegalActionError:
            continue
        return a, b
    raise AssertionError("no swap found")


def test_swapping_opponents_hidden_cards_leaves_a_third_player_view_unchanged():
    game = spiel_game.load()          # passing +1: P3 passes to P4, P4 to P5
    rng = np.random.default_rng(2024)
    n_actions = 6 * 4 + 20            # every pass, then 20 cards played
    a, b = _swapped_states(game, rng, 3, 4, n_actions)
    assert a._s[E.S_PHASE] == E.PH_PLAY
    assert not np.array_equal(a._s, b._s) and str(a) != str(b)
    for name, t in VIEWS.items():
        oa, ob = O.make_observer(game, t), O.make_observer(game, t)
        for p in range(6):
            oa.set_from(a, p)
            ob.set_from(b, p)
            same_tensor = np.array_equal(oa.tensor, ob.tensor)
            same_string = oa.string_from(a, p) == ob.string_from(b, p)
            if "all" in name:                     # every hand visible
                expect = False
            elif "public" in name:                # no hand visible
                expect = True
            else:                                 # only P3 and P4 see the difference
                expect = p not in (3, 4)
            assert same_tensor == expect and same_string == expect, (name, p)


def test_kitty_is_hidden_until_taken():
    game = spiel_game.load("kitty7")   # R3 A: 6 cards in the kitty
    rng = np.random.default_rng(77)
    a, b = _swapped_states(game, rng, None, 2, 7 * 3 + 3)   # kitty <-> P2, mid trick 1
    info = O.make_observer(game, O.INFO_STATE_OBS_TYPE)
    assert a._s[E.S_TRICK] == 0 and a._s[E.S_KITTY_IN_POT] == 1
    for p in range(7):
        info.set_from(a, p)
        ta = info.tensor.copy()
        assert info.dict["kitty"].sum() == 0 and info.dict["kitty_taken"][0] == 0
        info.set_from(b, p)
        assert np.array_equal(ta, info.tensor) == (p != 2)
        assert "kitty" not in info.string_from(a, p)
        assert (info.string_from(a, p) == info.string_from(b, p)) == (p != 2)
    # Once the winner of a trick takes it, the kitty is face up for everyone.
    done = _play(game, rng, lambda st: st._s[E.S_PHASE] == E.PH_PLAY
                 and st._s[E.S_KITTY_IN_POT] == 0 and st._s[E.S_TRICK] >= 1)
    kitty = E.kitty(done._P, done._s)
    for p in range(7):
        info.set_from(done, p)
        assert info.dict["kitty_taken"][0] == 1
        assert np.array_equal(info.dict["kitty"].sum(axis=1), kitty)
        assert f"kitty: {C.cards_to_string(kitty)}" in info.string_from(done, p)


# ------------------------------------------------------ exhaustive checks
class _Enumerated:
    """Every distinct engine state of a small game (breadth first) and every edge."""

    def __init__(self, game):
        self.game = game
        self.states, self.edges = [], []
        index = {}
        queue = collections.deque([game.new_initial_state()])
        index[queue[0]._s.tobytes()] = 0
        self.states.append(queue[0])
        head = 0
        while head < len(self.states):
            st = self.states[head]
            if not st.is_terminal():
                acts = ([a for a, _ in st.chance_outcomes()] if st.is_chance_node()
                        else st.legal_actions())
                for a in acts:
                    child = st.clone()
                    child.apply_action(a)
                    key = child._s.tobytes()
                    if key not in index:
                        index[key] = len(self.states)
                        self.states.append(child)
                    self.edges.append((head, a, index[key]))
            head += 1
        self._views = {}

    def view(self, name):
        """``(strings, digests)``: ``[state][player]`` string and tensor digest."""
        if name not in self._views:
            obs = O.make_observer(self.game, VIEWS[name])
            strings, digests = [], []
            for st in self.states:
                srow, drow = [], []
                for p in range(self.game.num_players()):
                    obs.set_from(st, p)
                    drow.append(_digest(obs.tensor))
                    srow.append(obs.string_from(st, p))
                strings.append(srow)
                digests.append(drow)
            self._views[name] = strings, digests
        return self._views[name]


@pytest.fixture(scope="module", params=sorted(SMALL_GAMES))
def small(request):
    return _Enumerated(spiel_game.load(**SMALL_GAMES[request.param]))


def _same_partition(xs, ys):
    """True iff ``xs[i] == xs[j] <=> ys[i] == ys[j]`` for all i, j."""
    fwd, bwd = {}, {}
    for x, y in zip(xs, ys):
        if fwd.setdefault(x, y) != y or bwd.setdefault(y, x) != x:
            return False
    return True


def test_enumeration_covers_the_rules(small):
    phases = collections.Counter(int(st._s[E.S_PHASE]) for st in small.states)
    assert phases[E.PH_DEAL] and phases[E.PH_PLAY] and phases[E.PH_OVER]
    assert any(st._s[E.S_VOIDS] > 0 for st in small.states)          # R8 void tricks
    if small.game.rules.passes:
        assert phases[E.PH_PASS]
    if small.game.rules.moon == "choose":
        assert phases[E.PH_MOON]


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_string_equality_iff_tensor_equality(small, view):
    """The tensor is injective on the information the string shows, and back."""
    strings, digests = small.view(view)
    n = small.game.num_players()
    for p in range(n):
        xs = [row[p] for row in strings]
        ys = [row[p] for row in digests]
        assert _same_partition(xs, ys), (view, p)
    assert len({row[0] for row in strings}) > 1


def test_views_nest_and_public_view_is_common_knowledge(small):
    """ALL_PLAYERS determines SINGLE_PLAYER determines NONE; NONE is the same for all."""
    n = small.game.num_players()
    for kind in ("info", "obs"):
        every, _ = small.view(f"{kind}_all")
        single, _ = small.view(kind)
        public, _ = small.view(f"{kind}_public")
        for row in public:
            assert len(set(row)) == 1, kind
        for p in range(n):
            for finer, coarser in ((every, single), (single, public)):
                m = {}
                for f, c in zip(finer, coarser):
                    assert m.setdefault(f[p], c[p]) == c[p], (kind, p)
        # And each is strictly coarser somewhere: hidden cards are hidden.
        def count(view):
            return len({(p, row[p]) for row in view for p in range(n)})
        assert count(public) < count(single) < count(every), kind


def test_all_players_information_state_is_the_whole_state(small):
    """With every card visible and perfect recall, two states after the deal
    look alike iff they are the same state (``str(state)`` shows everything).
    During the deal nobody sees a card: hands are picked up once it is complete."""
    strings, digests = small.view("info_all")
    after = [i for i, st in enumerate(small.states) if st._s[E.S_PHASE] != E.PH_DEAL]
    full = [state_to_text(small.states[i]) for i in after]
    assert _same_partition(full, [digests[i][0] for i in after])
    assert _same_partition(full, [strings[i][0] for i in after])
    dealing = collections.defaultdict(set)
    for i, st in enumerate(small.states):
        if st._s[E.S_PHASE] == E.PH_DEAL:
            dealing[int(st._s[E.S_DEALT])].add(strings[i][0])
    assert dealing and all(len(v) == 1 for v in dealing.values())


def _recall_violations(small, view):
    """Histories on which ``view``'s string at a player's decision does not
    determine the player's sequence of (own view, own action) so far."""
    strings, _ = small.view(view)
    n = small.game.num_players()
    seqs = [None] * len(small.states)
    seqs[0] = ((),) * n
    owner = {}
    bad = 0
    for parent, action, child in small.edges:    # parents before children (BFS)
        st, seq = small.states[parent], seqs[parent]
        p = st.current_player()
        if p >= 0:
            if owner.setdefault((p, strings[parent][p]), seq[p]) != seq[p]:
                bad += 1
            seq = seq[:p] + (seq[p] + ((strings[parent][p], action),),) + seq[p + 1:]
        if seqs[child] is None:
            seqs[child] = seq
        elif seqs[child] != seq:
            bad += 1
    return bad


def test_information_state_has_perfect_recall(small):
    assert _recall_violations(small, "info") == 0
    assert _recall_violations(small, "info_all") == 0


def test_perfect_recall_check_detects_forgetting(small):
    """The check above can fail: the Markov observation forgets earlier tricks."""
    assert _recall_violations(small, "obs") > 0


@pytest.mark.parametrize("params", [
    dict(deck="custom", players=2, suits="HS", ranks="QK", packs=1, pass_count=1),
    dict(deck="custom", players=3, suits="CHS", ranks="K", packs=2, pass_count=0),
])
def test_openspiel_infostate_tree_builds_one_node_per_information_state(params):
    """OpenSpiel's InfostateTree (built from information_state_string) has no
    decision infostate twice, and as many as there are distinct decision strings."""
    game = spiel_game.load(**params)
    enum = _Enumerated(game)
    strings, _ = enum.view("info")
    for p in range(game.num_players()):
        tree = pyspiel.InfostateTree(game, p)
        names = [node.infostate_string() for node in tree.all_decision_infostates()]
        assert len(names) == len(set(names)) == tree.num_decisions()
        mine = {strings[i][p] for i, st in enumerate(enum.states) if st.current_player() == p}
        assert set(names) == mine


# ------------------------------------------------------------------ matches
def test_match_information_state_remembers_previous_hands():
    game = spiel_game.load(deck="custom", players=2, suits="HS", ranks="QK", pass_count=1,
                           target_score=500, max_hands=3)
    info = O.make_observer(game, O.INFO_STATE_OBS_TYPE)
    rng = np.random.default_rng(8)
    owner = {}
    later = 0
    for _ in range(60):
        st = game.new_initial_state()
        seq = [(), ()]
        while not st.is_terminal():
            if st.is_chance_node():
                acts, probs = zip(*st.chance_outcomes())
                st.apply_action(int(rng.choice(acts, p=probs)))
                continue
            p = st.current_player()
            text = info.string_from(st, p)
            assert text == st.information_state_string(p)
            assert owner.setdefault((p, text), tuple(seq[p])) == tuple(seq[p])
            hand_no = int(st._s[E.S_HANDNO])
            assert (f"H{hand_no}[" in text) == (hand_no > 0)
            assert f"H{hand_no + 1}[" not in text
            later += hand_no > 0
            a = int(rng.choice(st.legal_actions()))
            seq[p] = seq[p] + ((text, a),)
            st.apply_action(a)
    assert later > 100
    # The current-hand part alone is not enough: the same deal in hand 2 after
    # different first hands gives different information states.
    first = {}
    for text in owner:
        if "H1[" in text[1]:
            cur = text[1].rsplit("] ", 1)[1]
            first.setdefault((text[0], cur), set()).add(text[1])
    assert any(len(v) > 1 for v in first.values())
