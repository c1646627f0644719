"""Exact exploitability of passing conventions on reduced deals
(experiments.studies.passing_exact)."""

import numpy as np
import pytest

from experiments._base.registry import Unit
from experiments.studies import passing_exact as pe
from solvers.cfr._best_response import best_response, policy_values
from solvers.cfr._exploitability import fix_to_chance
from solvers._metagame import symmetric_zero_sum_nash


@pytest.fixture(scope="module")
def micro_pass():
    return pe._deal("micro_pass")


def test_pass_infosets_are_the_first_decisions(micro_pass):
    tr = micro_pass.tree
    # 2 players, 2 packs of {QH, AH, QS, AS}, 4 cards each, pass 1: a player's
    # pass sets are its possible hands (multisets of 4 of the 4 card kinds,
    # at most 2 of each: 19), its first decisions, with one action per
    # distinct card held (2 to 4)
    for p in range(2):
        mine = np.arange(tr.player_infoset_start[p], tr.player_infoset_start[p + 1])
        pas = mine[micro_pass.is_pass[mine]]
        assert len(pas) == 19
        starts = tr.infoset_seq_start
        assert {int(starts[i + 1] - starts[i]) for i in pas} == {2, 3, 4}
        assert (tr.infoset_parent_seq[pas] == -1).all()


def test_convention_profiles_are_distributions(micro_pass):
    tr = micro_pass.tree
    seq = tr.infoset_seq_start
    for c in pe.CONVENTIONS:
        prof = micro_pass.convention(c)
        for i in np.flatnonzero(micro_pass.is_pass):
            assert prof[seq[i]:seq[i + 1]].sum() == pytest.approx(1.0)
        assert not prof[~micro_pass.pass_seq].any()
    # dump_points passes the Black Maria whenever it is held
    prof = micro_pass.convention("dump_points")
    keep = micro_pass.convention("keep_maria")
    for i in np.flatnonzero(micro_pass.is_pass):
        st = tr.state(int(tr.infoset_node[i]))
        acts = tr.sequence_action[seq[i]:seq[i + 1]]
        names = [st.action_to_string(st.current_player(), int(a)) for a in acts]
        for k, name in enumerate(names):
            if "QS" in name:
                assert prof[seq[i] + k] == 1.0        # passes the Black Maria
                assert keep[seq[i] + k] == 0.0        # keeps it


def test_fix_to_chance_preserves_values(micro_pass):
    tr = micro_pass.tree
    rng = np.random.default_rng(0)
    from solvers.cfr._policy import random_profile
    prof = random_profile(tr, rng)
    fixed = fix_to_chance(tr, prof, micro_pass.pass_nodes)
    assert np.allclose(policy_values(fixed, prof), policy_values(tr, prof))
    # no pass-phase decision node remains
    assert not ((fixed.node_player >= 0) & micro_pass.pass_nodes).any()
    # best response on the fixed tree can only be worse (fewer decisions)
    for p in range(2):
        assert best_response(fixed, prof, p).value <= best_response(tr, prof, p).value + 1e-12


def _brute_force_pass_gain(da, profile, p):
    """Independent check: p's pass sets are its first decisions and reached
    from disjoint deals, so the pass-only gain is the sum over them of the best
    single-set deviation, each found by full-tree policy evaluation."""
    tr = da.tree
    seq = tr.infoset_seq_start
    base = policy_values(tr, profile)[p]
    gain = 0.0
    for i in range(tr.player_infoset_start[p], tr.player_infoset_start[p + 1]):
        if not da.is_pass[i]:
            continue
        best = base
        for k in range(seq[i + 1] - seq[i]):
            q = profile.copy()
            q[seq[i]:seq[i + 1]] = 0.0
            q[seq[i] + k] = 1.0
            best = max(best, policy_values(tr, q)[p])
        gain += best - base
    return gain


@pytest.mark.parametrize("conv", ["dump_points", "keep_maria", "high"])
def test_pass_only_gain_matches_enumeration(micro_pass, conv):
    prof, nc, vals = pe.solve_play(micro_pass, (conv, conv), iterations=100)
    assert nc < 1e-3
    ex = pe.exploitability(micro_pass, prof)
    for p in range(2):
        assert ex["gain_pass_only"][p] == pytest.approx(
            _brute_force_pass_gain(micro_pass, prof, p), abs=1e-9)
        assert ex["gain_pass_only"][p] >= -1e-12
        assert ex["gain_pass_play"][p] >= ex["gain_pass_only"][p] - 1e-9


def test_exact_numbers_micro_pass(micro_pass):
    """Pinned results (play solved to NashConv < 1e-4): always passing the
    Black Maria is far more exploitable than passing the highest card."""
    cfg = pe.PassingExactConfig(deals=("micro_pass",), iterations=200)
    rows = pe.run_unit(cfg, Unit(0, 0, {"deal": "micro_pass"}))
    conv = {r["convention"]: r for r in rows if r["kind"] == "convention"}
    assert conv["high"]["gain_pass_only"] == pytest.approx(1.6929, abs=1e-3)
    assert conv["dump_points"]["gain_pass_only"] == pytest.approx(8.5857, abs=1e-3)
    assert conv["keep_maria"]["gain_pass_only"] == pytest.approx(5.0714, abs=1e-3)
    assert max(r["play_nash_conv"] for r in rows if r["kind"] == "assignment") < 1e-4
    assert conv["high"]["nash"] == pytest.approx(1.0, abs=1e-6)
    masses = [r["alpharank"] for r in conv.values()]
    assert sum(masses) == pytest.approx(1.0)
    assert sum(r["nash"] for r in conv.values()) == pytest.approx(1.0)


def test_symmetric_zero_sum_nash_rps():
    a = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float) + 5.0
    assert np.allclose(symmetric_zero_sum_nash(a), 1 / 3, atol=1e-8)
    # a dominant strategy
    b = np.array([[1.0, 3.0], [0.0, 2.0]])
    assert np.allclose(symmetric_zero_sum_nash(b), [1.0, 0.0])


def test_deterministic_three_players():
    cfg = pe.PassingExactConfig(deals=("micro3",), conventions=("high", "low", "dump_points"),
                                iterations=30)
    r1 = pe.run_unit(cfg, Unit(0, 0, {"deal": "micro3"}))
    r2 = pe.run_unit(cfg, Unit(0, 0, {"deal": "micro3"}))
    assert r1 == r2
    conv = [r for r in r1 if r["kind"] == "convention"]
    assert len(conv) == 3
    assert sum(r["nash"] for r in conv) == pytest.approx(1.0)
    assert sum(r["alpharank"] for r in conv) == pytest.approx(1.0)
    assert len([r for r in r1 if r["kind"] == "assignment"]) == 27


def test_registered():
    from experiments._base.registry import get
    exp = get("passing_exact")
    assert "quick" in exp.profiles


def test_config_rejects_unknown_names_and_lists_the_known_ones():
    for kw, kind in (({"deals": ("nope",)}, "preset"), ({"conventions": ("nope",)}, "convention"),
                     ({"solver": "nope"}, "solver")):
        with pytest.raises(ValueError, match=rf"unknown {kind}\(s\) \['nope'\]; known: \["):
            pe.PassingExactConfig(**kw)
