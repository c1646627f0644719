"""Corrections to the CFR package found while checking it on other OpenSpiel
games: OpenSpiel MCCFR policies with unvisited
information sets, ES-MCCFR's averaging with three players, tree-building
memory and refusals."""

import numpy as np
import pyspiel
import pytest

from solvers.cfr import build_tree, from_policy, nash_conv, uniform_profile
from solvers.cfr._mccfr import ExternalSamplingMCCFR


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


# ------------------------------------------------------------- tree building
class _ForgetfulState:
    """Player 0 picks 0 or 1, then picks again seeing only "again": it has
    forgotten its first pick (no perfect recall)."""

    def __init__(self, history=()):
        self.h = list(history)

    def is_terminal(self):
        return len(self.h) == 2

    def is_chance_node(self):
        return False

    def returns(self):
        return [float(sum(self.h)), -float(sum(self.h))]

    def current_player(self):
        return 0

    def information_state_string(self, player=0):
        return "start" if not self.h else "again"

    def legal_actions(self, player=0):
        return [0, 1]

    def child(self, a):
        return _ForgetfulState(self.h + [a])

    def apply_action(self, a):
        self.h.append(a)


class _ForgetfulGame:
    class _Type:
        dynamics = pyspiel.GameType.Dynamics.SEQUENTIAL
        short_name = "forgetful"

    def get_type(self):
        return self._Type()

    def num_players(self):
        return 2

    def new_initial_state(self):
        return _ForgetfulState()


def test_imperfect_recall_refusal_names_the_information_set_and_histories():
    with pytest.raises(ValueError, match=r"perfect recall.*'again'.*\[0\] and \[1\]"):
        build_tree(_ForgetfulGame(), method="pyspiel")


def test_memory_refusal_names_the_estimate_and_the_limit():
    import spiel_game
    with pytest.raises(MemoryError, match=r"needs about .* MiB.*pyspiel walker.*max_bytes"):
        build_tree(pyspiel.load_game("leduc_poker"), max_bytes=500_000)
    with pytest.raises(MemoryError, match=r"engine walker.*more than 625 histories"):
        build_tree(spiel_game.load("micro"), max_bytes=50_000)
    assert build_tree(spiel_game.load("micro"), max_bytes=10**8).num_nodes == 1346
    with pytest.raises(ValueError, match="max_bytes"):
        build_tree(spiel_game.load("micro"), max_bytes=0)


def test_peak_memory_estimates_bound_the_measured_peak():
    """tracemalloc's peak while building stays under the estimate the
    refusal uses, and above half of it (the estimate means something)."""
    import tracemalloc

    import spiel_game
    from solvers.cfr import _tree as T
    build_tree(pyspiel.load_game("kuhn_poker"))             # load the compiled kernels
    build_tree(spiel_game.load("micro"))
    cases = [(pyspiel.load_game("leduc_poker"), "pyspiel"),
             (spiel_game.load("micro_pass"), "engine")]
    for game, method in cases:
        tracemalloc.start()
        tree = build_tree(game, method=method)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if method == "engine":
            est = T.ENGINE_BYTES_PER_HISTORY * tree.num_nodes
        else:
            est = (T.PYSPIEL_BYTES_PER_HISTORY * tree.num_nodes +
                   sum(len(k) + T.PYSPIEL_BYTES_PER_INFOSET for k in tree.infoset_keys()))
        assert est / 2 < peak <= est, (method, peak, est)
