"""Corrections to the CFR package found while checking it on other OpenSpiel
games (issue 17, item 5): OpenSpiel MCCFR policies with unvisited
information sets, ES-MCCFR's averaging with three players, tree-building
memory and refusals."""

import numpy as np
import pyspiel
import pytest

from solvers.cfr import build_tree, from_policy, nash_conv, uniform_profile
from solvers.cfr.mccfr import ExternalSamplingMCCFR


def _row_sums(tree, prof):
    return np.add.reduceat(prof, tree.infoset_seq_start[:-1])


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("solver", ["OutcomeSamplingMCCFRSolver", "ExternalSamplingMCCFRSolver"])
def test_from_policy_reads_openspiel_mccfr_after_few_iterations(name, solver):
    """OpenSpiel's C++ MCCFR average policies answer only by state (not by
    key) and are uniform at unvisited sets: the profile is theirs, and its
    NashConv is OpenSpiel's."""
    game = pyspiel.load_game(name)
    tree = build_tree(game)
    mccfr = getattr(pyspiel, solver)(game, seed=3)
    for _ in range(3):
        mccfr.run_iteration()
    pol = mccfr.average_policy()
    prof = from_policy(tree, pol)
    assert np.allclose(_row_sums(tree, prof), 1.0)
    for i in range(0, tree.num_infosets, max(1, tree.num_infosets // 25)):
        st = tree.state(int(tree.infoset_node[i]))
        want = dict(pol.get_state_policy(st))
        a, b = tree.infoset_seq_start[i], tree.infoset_seq_start[i + 1]
        assert prof[a:b].tolist() == [want[int(x)] for x in tree.sequence_action[a:b]]
    assert not np.array_equal(prof, uniform_profile(tree))      # it learned something
    assert nash_conv(tree, prof) == pytest.approx(
        pyspiel.nash_conv(game, pol, use_state_get_policy=True), abs=1e-9)


def test_from_policy_default_and_error_for_a_partial_cpp_policy():
    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    keys = tree.infoset_keys()
    seq = tree.infoset_seq_start
    first = {keys[0]: [(int(tree.sequence_action[seq[0]]), 1.0),
                       (int(tree.sequence_action[seq[0] + 1]), 0.0)]}
    partial = pyspiel.TabularPolicy(first)
    prof = from_policy(tree, partial)
    assert prof[seq[0]:seq[1]].tolist() == [1.0, 0.0]
    assert np.array_equal(prof[seq[1]:], uniform_profile(tree)[seq[1]:])
    with pytest.raises(KeyError, match=repr(keys[1])):
        from_policy(tree, partial, missing="error")
    with pytest.raises(ValueError, match="missing='sometimes'"):
        from_policy(tree, partial, missing="sometimes")


def test_from_policy_treats_a_zero_row_as_missing():
    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    keys = tree.infoset_keys()
    table = {k: {0: 0.0, 1: 0.0} for k in keys}        # e.g. a never-updated average
    assert np.array_equal(from_policy(tree, table), uniform_profile(tree))
    with pytest.raises(KeyError, match="not in the policy"):
        from_policy(tree, table, missing="error")


def test_es_mccfr_averages_at_every_other_players_nodes():
    """The documented averaging: on player 0's traversal of 3-player Kuhn,
    players 1 and 2 both accumulate (OpenSpiel's SIMPLE averaging would
    update player 1 only)."""
    game = pyspiel.load_game("kuhn_poker", {"players": 3})
    tree = build_tree(game)
    index = tree.infoset_index()
    es = ExternalSamplingMCCFR(game, seed=0)
    es._traverse_root(0)
    mass = np.zeros(3)
    for key, node in es.tables.items():
        mass[int(tree.infoset_player[index[key]])] += node.avg.sum()
    assert mass[0] == 0.0 and mass[1] > 0 and mass[2] > 0
