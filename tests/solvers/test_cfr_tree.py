"""The flat game tree (solvers/cfr/_tree.py): sizes, layout, and the engine
walker's information sets against ``information_state_string``."""

import dataclasses

import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers.cfr._tree import CHANCE, TERMINAL, build_tree


def _count(state):
    """(histories, decision histories, distinct information states) by plain recursion."""
    keys = set()

    def go(st):
        if st.is_terminal():
            return 1, 0
        if st.is_chance_node():
            acts = [a for a, _ in st.chance_outcomes()]
            dec = 0
        else:
            acts = st.legal_actions()
            keys.add((st.current_player(), st.information_state_string()))
            dec = 1
        n = 1
        for a in acts:
            c, d = go(st.child(a))
            n, dec = n + c, dec + d
        return n, dec

    n, d = go(state)
    return n, d, len(keys)


@pytest.mark.parametrize("name,params", [("kuhn_poker", {}), ("kuhn_poker", {"players": 3}),
                                         ("leduc_poker", {})])
def test_sizes_match_a_plain_traversal(name, params):
    game = pyspiel.load_game(name, params)
    tree = build_tree(game)
    n, d, i = _count(game.new_initial_state())
    assert (tree.num_nodes, tree.num_decision_nodes, tree.num_infosets) == (n, d, i)
    assert tree.infosets_level_consistent


def test_kuhn_known_sizes():
    # Kuhn poker: 58 histories (1 + 3 + 6 chance, 24 decisions, 30 terminals), 12 infosets.
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    assert tree.summary()["histories"] == 58
    assert (tree.num_terminals, tree.num_infosets, tree.num_sequences) == (30, 12, 24)


def test_layout_breadth_first_children_contiguous():
    game = pyspiel.load_game("leduc_poker")
    tree = build_tree(game)
    cs = tree.child_start
    assert cs[0] == 1 and cs[-1] == tree.num_nodes and np.all(np.diff(cs) >= 0)
    nchild = np.diff(cs)
    assert np.all(nchild[tree.node_player == TERMINAL] == 0)
    assert np.all(nchild[tree.node_player != TERMINAL] > 0)
    # Chance probabilities of every chance node sum to one.
    for u in np.flatnonzero(tree.node_player == CHANCE):
        k = nchild[u]
        assert tree.chance_prob[tree.node_data[u]:tree.node_data[u] + k].sum() == pytest.approx(1)
    # Players' information sets are contiguous and grouped by player.
    assert np.all(np.diff(tree.infoset_player) >= 0)
    # Replaying a node's history gives a state of the same information set.
    rng = np.random.default_rng(0)
    keys = tree.infoset_keys()
    for u in rng.choice(np.flatnonzero(tree.node_player >= 0), 30, replace=False):
        st = tree.state(int(u))
        i = tree.node_data[u]
        assert st.information_state_string() == keys[i]
        a, b = tree.infoset_seq_start[i], tree.infoset_seq_start[i + 1]
        assert st.legal_actions() == tree.sequence_action[a:b].tolist()


def test_parent_sequences_follow_perfect_recall():
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    keys = tree.infoset_keys()
    # Kuhn keys are "<card><p|b moves>", players alternating 0, 1, 0: the own
    # last sequence is (the key up to the player's last move, that move).
    for i, key in enumerate(keys):
        player, moves = int(tree.infoset_player[i]), key[1:]
        own = [j for j in range(len(moves)) if j % 2 == player]
        ps = tree.infoset_parent_seq[i]
        if not own:
            assert ps == -1
        else:
            j = own[-1]
            assert keys[tree.sequence_infoset[ps]] == key[:1 + j]
            assert tree.sequence_action[ps] == "pb".index(moves[j])


@pytest.mark.parametrize("preset", ["micro", "micro3", "micro4", "micro_pass"])
def test_engine_walker_is_the_pyspiel_walker(preset):
    """The compiled walker's hash keys partition histories exactly as
    information_state_string does, and every other array is identical."""
    game = spiel_game.load(preset)
    a = build_tree(game, method="engine")
    b = build_tree(game, method="pyspiel")
    term = a.node_player == TERMINAL
    for f in ("node_player", "child_start", "level_start", "chance_prob", "chance_action",
              "infoset_player", "infoset_seq_start", "infoset_parent_seq", "infoset_node",
              "sequence_action", "player_infoset_start"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert np.array_equal(a.node_data[~term], b.node_data[~term])
    assert np.array_equal(a.payoff_table[a.node_data[term]], b.payoff_table[b.node_data[term]])
    assert a.infoset_keys() == b.infoset_keys()


def test_tiny_has_the_size_the_docs_state():
    """The reduced-deal table of docs/cfr.md."""
    tree = build_tree(spiel_game.load("tiny"))
    assert (tree.num_nodes, tree.num_infosets) == (683_150, 526_333)


def test_max_nodes_and_bad_method_are_refused():
    game = spiel_game.load("micro")
    with pytest.raises(ValueError, match="max_nodes"):
        build_tree(game, max_nodes=100)
    with pytest.raises(ValueError, match="max_nodes"):
        build_tree(game, method="pyspiel", max_nodes=100)
    with pytest.raises(ValueError, match="method"):
        build_tree(game, method="fast")
    with pytest.raises(ValueError, match="engine walker"):
        build_tree(pyspiel.load_game("kuhn_poker"), method="engine")


def test_history_round_trip():
    game = spiel_game.load("micro_pass")
    tree = build_tree(game)
    for u in (0, 1, tree.num_nodes // 2, tree.num_nodes - 1):
        st = tree.state(u)
        assert st.history() == tree.history(u)
    term = int(np.flatnonzero(tree.node_player == TERMINAL)[0])
    assert tree.state(term).returns() == tree.payoff_table[tree.node_data[term]].tolist()
    assert dataclasses.replace(tree).num_nodes == tree.num_nodes


def test_engine_walker_with_card_by_card_deal():
    """deal="cards": one chance node per card (R4); same tree as through pyspiel."""
    game = spiel_game.load({"deck": "custom", "players": 2, "suits": "HS", "ranks": "A",
                            "pass_count": 1, "deal": "cards"})
    a = build_tree(game, method="engine")
    b = build_tree(game, method="pyspiel")
    assert np.array_equal(a.node_player, b.node_player)
    assert np.array_equal(a.chance_prob, b.chance_prob)
    assert a.infoset_keys() == b.infoset_keys()
    assert np.count_nonzero(a.node_player == CHANCE) > 1


def _key(state):
    from solvers.cfr._engine_walk import infoset_key
    deck = np.flatnonzero(np.asarray(state.rules.deck_counts) > 0).astype(np.int64)
    return infoset_key(state.engine_params, state.engine_state, deck)


@pytest.mark.parametrize("preset", ["default", "balanced5", "kitty7", "classic", "small3"])
def test_engine_key_agrees_with_information_state_string_on_full_games(preset):
    """Games far too large to walk: states the player cannot tell apart
    (resample_from_infostate) get the same key; states with different
    information-state strings get different keys."""
    game = spiel_game.load(preset)
    rng = np.random.default_rng(1)
    seen = {}
    for _ in range(6):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                acts, probs = zip(*st.chance_outcomes())
                st.apply_action(int(rng.choice(acts, p=np.asarray(probs) / sum(probs))))
                continue
            p = st.current_player()
            if rng.random() < 0.3:
                text, key = st.information_state_string(p), _key(st)
                twin = st.resample_from_infostate(p, rng)
                assert twin.information_state_string(p) == text
                assert _key(twin) == key
                assert seen.setdefault(key, text) == text
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
    assert len(seen) > 10
