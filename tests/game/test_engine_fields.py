"""Named engine fields: the state and parameter layouts come from one
field table each, the accessors read the same entries as the offsets they
hide, and the rules package never imports the strategies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spiel_game
from spiel_game import _engine as E
from spiel_game import _rules as R
from spiel_game._playout import play_random
from spiel_game._rules import RuleSet

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [{}, {"players": 5}, {"deck": "kitty", "players": 7}, spiel_game.preset("classic"),
           {"players": 5, "target_score": 40, "moon": "choose"}, spiel_game.preset("micro_pass"),
           {"players": 6, "pass_offset": 0}]


def test_parameter_layout_is_generated_from_its_table():
    offsets = [getattr(R, "P_" + name) for name, _, _ in R.PARAM_FIELDS]
    sizes = [size for _, size, _ in R.PARAM_FIELDS]
    assert offsets == list(np.cumsum([0] + sizes[:-1]))
    assert R.P_SIZE == sum(sizes)
    v = RuleSet.from_params({}).engine_params()
    assert v.shape == (R.P_SIZE,)


@pytest.mark.parametrize("params", CONFIGS)
def test_state_layout_is_generated_from_its_table(params):
    rules = RuleSet.from_params(params)
    p = E.make_params(rules)
    assert [getattr(E, "S_" + name) for name, _ in E.STATE_SCALARS] == list(range(E.S_NSCALARS))
    layout = E.state_layout(rules.players, rules.hand_size, rules.pass_count)
    off = E.S_NSCALARS
    for name, field, start, size in layout:
        assert field == getattr(E, "L_" + name) and p[field] == start == off
        off += size
    assert p[E.L_STATE_SIZE] == off == E.new_state(p).shape[0]
    text = E.format_state_layout(rules.players, rules.hand_size, rules.pass_count)
    assert "L_TCARDS" in text and "S_PHASE" in text


def _mid_game(params, seed):
    game = spiel_game.load(params)
    rng = np.random.default_rng(seed)
    steps = int(rng.integers(0, 200))
    return game, play_random(game, rng, until=lambda st: len(st.history()) >= steps)


@pytest.mark.parametrize("params", CONFIGS)
def test_accessors_are_views_of_the_offsets(params):
    for seed in range(3):
        game, st = _mid_game(params, seed)
        p, s = st.engine_params, np.array(st.engine_state)
        n, T, K = game.rules.players, game.rules.hand_size, E.K
        pcs = max(1, int(p[E.P_PASS]))
        for q in range(n):
            assert np.array_equal(E.hand(p, s, q), s[p[E.L_HANDS] + q * K:][:K])
            assert np.array_equal(E.dealt_hand(p, s, q), s[p[E.L_DEALT_HANDS] + q * K:][:K])
            assert np.array_equal(E.passed(p, s, q), s[p[E.L_PASSED] + q * K:][:K])
            assert np.array_equal(E.pass_choices(p, s, q), s[p[E.L_PASSSEQ] + q * pcs:][:pcs])
            assert np.array_equal(E.suit_counts(p, s, q), s[p[E.L_SUITCNT] + q * 4:][:4])
        for t in range(T):
            assert np.array_equal(E.trick_cards(p, s, t), s[p[E.L_TCARDS] + t * n:][:n])
        assert np.array_equal(E.all_trick_cards(p, s), s[p[E.L_TCARDS]:][:T * n])
        for f, field, size in ((E.undealt, E.L_UNDEALT, K), (E.kitty, E.L_KITTY, K),
                               (E.pot, E.L_POT, K), (E.points, E.L_POINTS, n),
                               (E.hand_points, E.L_HANDPTS, n), (E.scores, E.L_SCORES, n),
                               (E.trick_leaders, E.L_TLEAD, T), (E.trick_winners, E.L_TWIN, T)):
            assert np.array_equal(f(p, s), s[p[field]:][:size])
            assert np.array_equal(E.region(p, s, field), s[p[field]:][:size])
        assert list(E.deck(p)) == list(game.rules.deck_counts)
        assert list(E.card_points(p)) == list(game.rules.card_points)
        # A view: writing through it writes the state.
        E.hand(p, s, 0)[0] = 3
        assert s[p[E.L_HANDS]] == 3


def test_rules_package_never_imports_solvers():
    code = ("import sys, spiel_game, spiel_game._simulator, spiel_game._policies, "
            "spiel_game.observers, spiel_game._render, spiel_game._rng; "
            "spiel_game._simulator.simulate({}, 2, 'uniform', workers=1); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'solvers'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=900).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_no_generated_source_in_the_simulator():
    text = (ROOT / "spiel_game" / "_simulator.py").read_text()
    assert "exec(" not in text and "getsource" not in text
