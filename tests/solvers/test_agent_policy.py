"""Agents as profiles on flat trees and their exact exploitability (solvers/_agent_policy.py)."""

import functools

import numpy as np
import pyspiel
import pytest

import spiel_game
from solvers._base.bots import Agent
from solvers.cfr import build_tree, nash_conv, uniform_profile
from solvers._agent_policy import (AgentProfile, agent_exploitability, agent_profile,
                                      call_seed)
from solvers._registry import make_agent


@functools.cache
def _tree(name):
    return build_tree(spiel_game.load(name))


def _rows(tree, profile):
    seq = tree.infoset_seq_start
    return [profile[seq[i]:seq[i + 1]] for i in range(tree.num_infosets)]


def test_random_agent_is_the_uniform_profile_exactly():
    tree = _tree("micro3")
    res = agent_exploitability(tree, "random")
    assert res.agents.methods == ("policy",) * 3
    assert np.array_equal(res.agents.profile, uniform_profile(tree))
    assert not res.estimated and res.agents.samples.sum() == 0
    exact = nash_conv(tree, uniform_profile(tree), return_details=True)
    assert res.nash_conv == exact.nash_conv
    assert np.array_equal(res.gains, exact.player_improvements)
    assert res.nash_conv_interval == (exact.nash_conv, exact.nash_conv)


def test_deterministic_agent_gives_a_pure_profile_that_is_its_play():
    tree = _tree("micro3")
    prof = agent_profile(tree, "heuristic", seed=3)
    assert prof.methods == ("deterministic",) * 3 and not prof.estimated
    for row in _rows(tree, prof.profile):
        assert np.count_nonzero(row) == 1 and row.max() == 1.0
    game = tree.game
    seq = tree.infoset_seq_start
    for i in range(0, tree.num_infosets, 37):          # the profile's action is the agent's
        st = tree.state(int(tree.infoset_node[i]))
        a = make_agent("heuristic", game, int(tree.infoset_player[i]), 12345).step(st)
        k = int(np.argmax(prof.profile[seq[i]:seq[i + 1]]))
        assert tree.sequence_action[seq[i] + k] == a
    res = agent_exploitability(tree, prof)
    assert res.nash_conv == pytest.approx(nash_conv(tree, prof.profile), abs=0)
    assert res.nash_conv > 0 and np.all(res.gains >= -1e-12)


def test_stochastic_agent_is_sampled_and_refused_as_deterministic():
    tree = _tree("micro3")
    prof = agent_profile(tree, "ismcts(iterations=10)", samples=2, seed=0, leak_check=False)
    assert "sample" in prof.methods and prof.estimated
    ids = prof.sampled_infosets()
    assert np.all(prof.samples[ids] == 2)
    seq = tree.infoset_seq_start
    for i in ids:
        assert prof.counts[seq[i]:seq[i + 1]].sum() == 2
    with pytest.raises(ValueError, match="not deterministic"):
        agent_profile(tree, "ismcts(iterations=10)", method="deterministic", leak_check=False)


def test_seeded_and_independent_of_the_global_rng():
    tree = _tree("micro3")
    a = agent_profile(tree, "ismcts(iterations=10)", samples=3, seed=5, leak_check=False)
    np.random.seed(99)
    b = agent_profile(tree, "ismcts(iterations=10)", samples=3, seed=5, leak_check=False)
    c = agent_profile(tree, "ismcts(iterations=10)", samples=3, seed=6, leak_check=False)
    assert np.array_equal(a.profile, b.profile)
    assert not np.array_equal(a.profile, c.profile)
    assert call_seed(5, 10, 0) != call_seed(5, 10, 1) != call_seed(6, 10, 1)


def test_sampled_estimate_converges_to_the_exact_value():
    """The random agent read by sampling (not from its policy): more samples,
    a narrower interval that holds the exact NashConv, a smaller bias."""
    tree = _tree("micro3")
    exact = nash_conv(tree, uniform_profile(tree))
    few = agent_exploitability(tree, "random", method="sample", samples=4, seed=0,
                               bootstrap=200, leak_check=False)
    many = agent_exploitability(tree, "random", method="sample", samples=64, seed=0,
                                bootstrap=200, leak_check=False)
    width = lambda r: r.nash_conv_interval[1] - r.nash_conv_interval[0]   # noqa: E731
    assert few.estimated and many.estimated
    assert width(many) < width(few) / 2.5
    assert many.nash_conv_interval[0] <= exact <= many.nash_conv_interval[1]
    assert few.nash_conv_interval[0] <= exact <= few.nash_conv_interval[1]
    assert abs(many.nash_conv - exact) < abs(few.nash_conv - exact)
    assert 0 < many.nash_conv_bias < few.nash_conv_bias
    assert np.all(many.gains_interval[:, 0] <= many.gains_interval[:, 1])


def test_one_agent_per_seat():
    tree = _tree("micro3")
    mixed = agent_profile(tree, ["heuristic", "random", "random"])
    heur = agent_profile(tree, "heuristic")
    seats = [tree.player_sequences(p) for p in range(3)]
    assert np.array_equal(mixed.profile[seats[0]], heur.profile[seats[0]])
    for p in (1, 2):
        assert np.array_equal(mixed.profile[seats[p]], uniform_profile(tree)[seats[p]])
    assert mixed.methods == ("deterministic", "policy", "policy")


class _Peeking(Agent):
    """Plays the lowest legal action when the first hidden card of the full
    history is even, else the highest: a decision that looks beyond the
    information set."""

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        a = legal[0] if state.history()[0] % 2 == 0 else legal[-1]
        return [(b, float(b == a)) for b in legal], a


def test_leak_check_finds_an_agent_that_peeks_and_none_in_the_heuristic():
    tree = _tree("micro3")
    clean = agent_profile(tree, "heuristic")
    assert clean.leak_checked.sum() > 0 and clean.leaks == ()
    peek = agent_profile(tree, _Peeking, method="deterministic")
    assert len(peek.leaks) > 0
    leak = peek.leaks[0]
    assert leak.action_a != leak.action_b and leak.history_a != leak.history_b
    st = tree.state(int(tree.infoset_node[leak.infoset]))
    assert leak.key == st.information_state_string(leak.player)


def test_bad_input_is_refused_clearly():
    tree = _tree("micro3")
    with pytest.raises(ValueError, match="unknown agent 'nonsense'"):
        agent_profile(tree, "nonsense")
    with pytest.raises(ValueError, match="python_cancellation_hearts"):
        agent_profile(build_tree(pyspiel.load_game("kuhn_poker")), "heuristic")
    with pytest.raises(ValueError, match="one spec for all seats or 3"):
        agent_profile(tree, ["random", "random"])
    with pytest.raises(ValueError, match="method='best'"):
        agent_profile(tree, "random", method="best")
    with pytest.raises(ValueError, match="samples=1"):
        agent_profile(tree, "random", samples=1)
    with pytest.raises(ValueError, match="bootstrap"):
        agent_exploitability(tree, "random", bootstrap=-1)
    prof = agent_profile(_tree("micro"), "random")
    assert isinstance(prof, AgentProfile)
    with pytest.raises(ValueError, match="made on a tree of"):
        agent_exploitability(tree, prof)
    with pytest.raises(TypeError, match="GameTree"):
        agent_profile("micro3", "random")
