"""Multi-core CFR (solvers/cfr/_parallel.py): ``threads=T`` gives bit for bit the
one-core iterates of every solver, on our presets and OpenSpiel games, whatever
the number of blocks and the cores numba has."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers.cfr._parallel import make_plan
from solvers.cfr._solvers import SOLVERS, make_solver
from solvers.cfr._tree import build_tree


@pytest.fixture(autouse=True)
def one_numba_thread():
    """The iterates do not depend on the threads that run the blocks (checked
    with two threads in test_two_threads_same_numbers); one thread here keeps
    the file fast on a loaded machine, where numba's OpenMP workers spin
    between the many tiny parallel regions (7x the time)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.fixture(scope="module")
def trees():
    return {"micro3": build_tree(spiel_game.load("micro3")),
            "small3": build_tree(spiel_game.load("small3")),
            "leduc": build_tree(pyspiel.load_game("leduc_poker")),
            "kuhn3": build_tree(pyspiel.load_game("kuhn_poker(players=3)"))}


def _same(a, b):
    return (np.array_equal(a.regret, b.regret) and np.array_equal(a.policy, b.policy)
            and np.array_equal(a.avg_numerator, b.avg_numerator))


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_threads_bit_identical_every_solver(trees, solver):
    for name in ("micro3", "leduc"):
        tree = trees[name]
        serial = make_solver(solver, tree).iterate(12)
        for threads in (2, 3):
            par = make_solver(solver, tree, threads=threads).iterate(12)
            assert par.threads == threads and par._plan is not None
            assert _same(serial, par), (name, solver, threads)
            assert np.array_equal(serial.average_policy(), par.average_policy())


def test_threads_bit_identical_where_rounding_matters(trees):
    """small3 (three copies of each card): regrets that cancel exactly in the
    one-core order; any other order leaves +-1e-17 that regret matching turns
    into a different strategy (a first version summing per block differed by
    0.5 in the average policy). Bit for bit here."""
    tree = trees["small3"]
    serial = make_solver("CFR", tree).iterate(12)
    assert _same(serial, make_solver("CFR", tree, threads=2).iterate(12))


def test_shared_and_top_information_sets_are_exercised(trees):
    """The cases the gather must get right do occur: shared sets (small3 is cut
    at the chance root's children) and sets above the split (kuhn3, 8 blocks:
    decisions above the split level)."""
    plan = make_plan(trees["small3"], 2)
    assert plan.split == 1 and 0 < plan.shared_fraction < 1 and plan.imbalance < 1.05
    assert plan.block_nodes.sum() == trees["small3"].num_nodes - 1
    # a shared set's histories in its first block go straight into the tables,
    # the others are deferred to the scratch slots (written in node order)
    deferred = np.flatnonzero(plan.owned_node >= 0)
    assert 0 < deferred.size < plan.shared_nodes.size
    assert np.all(np.diff(plan.owned_node[deferred]) > 0)
    micro = build_tree(spiel_game.load("micro"))       # 2 players, whole deals: none shared
    assert make_plan(micro, 2).owned_node.size == 0
    kuhn = make_plan(trees["kuhn3"], 8)
    assert np.any(kuhn.owner == 8) and np.any(kuhn.owner == -1)
    serial = make_solver("CFR", trees["kuhn3"]).iterate(20)
    assert _same(serial, make_solver("CFR", trees["kuhn3"], threads=8).iterate(20))


def test_unfused_sweep_for_trees_with_sets_across_depths(trees):
    """Where an information set spans depths the terms are added in a third,
    top-down sweep: forced here on level-consistent trees, same iterates."""
    for name in ("small3", "leduc"):
        tree = dataclasses.replace(trees[name], infosets_level_consistent=False)
        serial = make_solver("CFR+", tree).iterate(10)
        par = make_solver("CFR+", tree, threads=2)
        assert not par._plan.level_consistent
        assert np.count_nonzero(par._plan.owned_node >= 0) == par._plan.shared_nodes.size
        assert _same(serial, par.iterate(10))


def test_two_threads_same_numbers(trees):
    """All of numba's threads (2 on the CI machines, 1 where there is one core)
    against one thread and against the one-core solver, 4 blocks."""
    tree = trees["small3"]
    a = make_solver("DCFR", tree, threads=4).iterate(6)
    b = make_solver("DCFR", tree, threads=4)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    b.iterate(6)
    assert _same(a, b)
    assert _same(make_solver("DCFR", tree).iterate(6), b)


@pytest.mark.parametrize("bad", [0, -2, 1.5, "2", True, None])
def test_bad_threads_rejected(trees, bad):
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        make_solver("CFR", trees["micro3"], threads=bad)


def test_nbytes_counts_the_scratch(trees):
    tree = trees["micro3"]
    one, two = make_solver("CFR", tree), make_solver("CFR", tree, threads=2)
    assert two.nbytes() >= one.nbytes() + 16 * tree.num_nodes


def test_reach_rows_carried_across_iterate_calls(trees):
    """The parallel passes recompute one reach row per pass, across iterate
    calls; a policy changed between calls is noticed (every row recomputed),
    so both cases stay bit for bit the one-core solver."""
    tree = trees["small3"]
    serial = make_solver("CFR+", tree).iterate(7)
    par = make_solver("CFR+", tree, threads=2)
    for _ in range(7):
        par.iterate(1)
    assert _same(serial, par)
    for s in (serial, par):                      # a warm start written by hand
        s.policy[:] = make_solver("CFR", tree).iterate(3).average_policy()
        s.iterate(2)
    assert _same(serial, par)
