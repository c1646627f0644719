"""The approximate best response (solvers/_abr.py): exact bounds on a reduced deck,
consistency of worlds, determinism, Python path, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import spiel_game
from solvers._abr import ABRBot, exact_gains, mismatches
from solvers._registry import AgentSpecError, make_agent
from spiel_game import _engine as E


def _mid_hand(game, agents, plays: int, seed: int = 3):
    """A state after the deal, the passes and ``plays`` card plays, every seat
    played by ``agents[q]`` (specs), the deal drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    bots = [make_agent(a, game, q, seed + q) for q, a in enumerate(agents)]
    st = game.new_initial_state()
    played = 0
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(acts[rng.choice(len(acts), p=np.asarray(probs))]))
            continue
        if st.engine_state[E.S_PHASE] == E.PH_PLAY:
            if played == plays:
                return st
            played += 1
        st.apply_action(bots[st.current_player()].step(st))
    raise AssertionError("the hand ended first")


def test_abr_between_target_and_exact_best_response_on_micro3():
    # Exact values on the flat tree: the ABR is a strategy, so it cannot beat the
    # best response; against the deterministic heuristic it must not lose to it.
    rows = exact_gains(spiel_game.load("micro3"), "heuristic", "abr(worlds=8)", seed=1)
    assert len(rows) == 3
    for r in rows:
        assert r["abr_value"] <= r["br_value"] + 1e-9, r
        assert r["abr_value"] >= r["target_value"] - 0.25, r
        assert r["queried"] > 0
    # ... and it finds most of the exploitable gain (measured gap 0.58 of 8.5-10).
    assert sum(r["gap"] for r in rows) <= 0.25 * sum(r["br_gain"] for r in rows) + 1e-9
    assert sum(r["br_gain"] for r in rows) > 5


def test_true_world_is_consistent_with_the_heuristic_target():
    game = spiel_game.load(players=6)
    st = _mid_hand(game, ["heuristic"] * 6, plays=14)
    P = np.asarray(st.engine_params)
    w = np.array(st.engine_state)
    me = st.current_player()
    n, t = 6, int(P[E.P_HAND])
    fresh = E.new_state(P)
    args = (fresh, np.empty_like(fresh), np.empty_like(fresh), np.empty(E.K + 2, np.int32),
            np.empty(n * t, np.int64), np.empty(n * t, np.int64),
            np.zeros((n + 1, E.K), np.int32), np.zeros(1, np.uint64))
    assert mismatches(P, w, me, 1, 1 << 30, *args) == 0
    # The same cards played by random seats: some plays differ from the heuristic's.
    st2 = _mid_hand(game, ["random"] * 6, plays=14)
    assert mismatches(P, np.array(st2.engine_state), st2.current_player(), 1, 1 << 30,
                      *args) > 0
    # The ABR's worlds at the real state: consistent candidates come first.
    bot = ABRBot(game, me, 5, worlds=4, candidates=500)
    bot.action_values(st)
    s = bot.last_search
    assert s["weighed"] and s["worlds"] == 4 and s["candidates"] <= 500
    assert s["mean_mismatches"] <= s["max_mismatches"]


def test_deterministic_per_seed_and_legal():
    game = spiel_game.load(players=6)
    st = _mid_hand(game, ["heuristic"] * 6, plays=9)
    a = ABRBot(game, st.current_player(), 11, worlds=4)
    b = ABRBot(game, st.current_player(), 11, worlds=4)
    la, va = a.action_values(st)
    lb, vb = b.action_values(st)
    assert np.array_equal(la, lb) and np.array_equal(va, vb)
    assert a.step(st) in st.legal_actions()


def test_python_path_plays_against_any_agent():
    game = spiel_game.load(players=5)
    st = _mid_hand(game, ["random"] * 5, plays=6)
    bot = make_agent("abr(target='random', worlds=2, horizon=6)", game, st.current_player(), 2)
    acts, vals = bot.action_values(st)
    assert list(acts) == st.legal_actions() and np.all(np.isfinite(vals))
    assert bot.last_search["weighed"] is False and bot.last_search["worlds"] == 2
    again = make_agent("abr(target='random', worlds=2, horizon=6)", game,
                       st.current_player(), 2)
    assert np.array_equal(again.action_values(st)[1], vals)


@pytest.mark.parametrize("spec, words", [
    ("abr(target=3)", "target=3"),
    ("abr(target='abr')", "except 'abr'"),
    ("abr(target='nope')", "unknown agent 'nope'"),
    ("abr(target='ismcts(iterations=-1)')", "iterations=-1"),
    ("abr(worlds=0)", "worlds=0"),
    ("abr(worlds=8, candidates=4)", "candidates=4"),
    ("abr(rollout='best')", "rollout='best'"),
    ("abr(belief='exact')", "belief='exact'"),
    ("abr(target='random', belief='target')", "belief='target'"),
    ("abr(target='random', rollout='lookahead')", "rollout='lookahead'"),
    ("abr(horizon=5)", "horizon=5"),
    ("abr(margin=-1)", "margin=-1"),
    ("abr(target=\"convention(passing='nope')\")", "passing"),
    ("convention(passing='nope')", "passing='nope'"),
])
def test_bad_input_names_the_parameter(spec, words):
    game = spiel_game.load(players=5)
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, game, 0)
    assert words in str(e.value)


def test_exact_gains_refuses_bad_input():
    game = spiel_game.load("micro3")
    with pytest.raises(ValueError, match="without target"):
        exact_gains(game, "heuristic", "abr(target='heuristic')")
    with pytest.raises(ValueError, match="seat 7"):
        exact_gains(game, "heuristic", "abr", seats=[7])


# ------------------------------------------------------------ the study in the paper
def _abr_folder(root, gains: list[dict], exact: list[dict], config: dict) -> None:
    """A hand-made ``abr`` result folder (``gains.csv``, ``exact.csv``, metadata)."""
    import csv
    import json
    folder = root / "abr"
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"config": config}))
    for name, rows in (("gains", gains), ("exact", exact)):
        with open(folder / f"{name}.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def _macro(tex: str, name: str) -> str:
    import re
    return re.search(rf"\\newcommand{{\\{name}}}{{(.*?)}}  %", tex, re.S).group(1)


def test_abr_study_is_in_the_paper_with_a_small_quick_profile():
    import texmacros as macros
    from experiments._base import registry
    from experiments.studies import abr as study
    exp = registry.get("abr")
    assert exp.reproduce and "texmacros.studies.abr" in macros.SOURCES
    quick = exp.config("quick")
    # make reproduce: compiled targets only (no ISMCTS: the Python path takes minutes)
    assert all(t == "heuristic" or t.startswith("convention(") for t in quick.targets)
    assert quick.deals <= 2 and quick.players == (6,) and len(study.units(quick)) <= 3
    assert exp.config("paper").targets == study.PAPER_TARGETS


def test_abr_paper_macros_on_known_tables(tmp_path):
    import texmacros as macros
    from texmacros.studies import abr as writer

    def g(target, n, gain, lo, hi):
        return {"target": target, "players": n, "deals": 30, "seats_per_deal": 2, "gain": gain,
                "gain_lo": lo, "gain_hi": hi, "target_points": 6.0, "abr_points": 4.0,
                "abr_ms_per_decision": 700.0}

    def e(preset, target, br, abr, gap_lo=""):
        return {"preset": preset, "target": target, "seeds": 3, "br_gain": br,
                "abr_gain": abr, "abr_gain_lo": "", "abr_gain_hi": "", "gap": br - abr,
                "gap_lo": gap_lo, "gap_hi": gap_lo}
    conv = "convention(passing='{}')".format
    gains = [g("heuristic", 6, 2.1, 0.07, 4.13), g("heuristic", 11, 1.98, -0.06, 4.03),
             g(conv("low"), 6, 3.0, 1.0, 5.0), g(conv("expert"), 6, 0.5, -1.0, 2.0),
             g(conv("low"), 11, 1.0, 0.2, 1.8), g(conv("expert"), 11, -0.3, -1.0, 0.4)]
    exact = [e("micro_pass", "heuristic", 14.0, 12.6, 1.05), e("micro3", "heuristic", 6.0, 5.7),
             e("micro3", conv("low"), 2.0, 1.0)]
    cfg = {"deals": 30, "abr_params": "worlds=8", "exact_abr_params": "worlds=16",
           "exact_seeds": 3}
    _abr_folder(tmp_path, gains, exact, cfg)
    m = macros.Macros()
    writer.paper_macros(m, tmp_path, tmp_path)
    assert not m.warnings, m.warnings
    tex = m.tex("test")
    assert _macro(tex, "AbrSixHeuristicGain") == "2.10" and _macro(tex, "AbrWorlds") == "8"
    assert _macro(tex, "AbrSixConvMax") == "\\texttt{low}"
    assert _macro(tex, "AbrElevenConvMin") == "\\texttt{expert}"
    assert _macro(tex, "AbrSixConvAbove") == "1" and _macro(tex, "AbrElevenConvAbove") == "1"
    assert _macro(tex, "AbrConventionCount") == "2"
    assert _macro(tex, "AbrExactShareMin") == "50"             # 1.0 of 2.0 against low
    assert _macro(tex, "AbrExactGapMax") == "1.40"
    assert _macro(tex, "AbrExactThreeGap") == "0.30"
    for flag in ("Abr", "AbrEleven", "AbrConventions", "AbrExactTwo", "AbrExactThree",
                 "AbrSixHeuristicSignificant"):
        assert f"\\newif\\if{flag}\\{flag}true" in tex, flag
    assert "\\newif\\ifAbrElevenHeuristicSignificant  %" in tex
    rows = _macro(tex, "AbrRows")
    assert rows.count("\\\\") == 6 and "convention \\texttt{low} & 6 & 3.00 & [1.00, 5.00]" in rows
    ex = _macro(tex, "AbrExactRows")
    # a zero-width interval over the seeds is said in words, never "[1.05, 1.05]"
    assert "all 3 seeds equal" in ex and "[1.05, 1.05]" not in ex
    assert ex.count("--") == 2                                # no interval for one seed's gap

    # No results: the flag is off and every macro is "not run", so the paper
    # (under \ifAbr) builds without a ??.
    m = macros.Macros()
    writer.paper_macros(m, tmp_path / "none", tmp_path)
    tex = m.tex("test")
    assert "\\newif\\ifAbr  %" in tex and "??" not in tex
    assert _macro(tex, "AbrSixHeuristicGain") == "--"


# ------------------------------------------------- a larger search as the responder
def test_abr_search_study_puts_the_responder_in_the_seat():
    """``abr_search``: the deviating seat runs ``responder`` (not the ABR); the
    gain is the target's points minus the responder's in the same seat on the
    same deal, and the baseline is every seat playing the target."""
    from experiments._base import registry
    from experiments._base.registry import Unit
    from experiments.studies import abr as study
    exp = registry.get("abr_search")
    assert exp.reproduce
    paper = exp.config("paper")
    assert paper.targets == (study.ISMCTS_TARGET,) and paper.responder == study.ISMCTS_RESPONDER
    assert paper.players == (6, 11) and not paper.exact_presets
    quick = exp.config("quick")
    assert study.abr_spec(quick, quick.targets[0]) == quick.responder
    assert study.abr_spec(registry.get("abr").config("quick"), "heuristic").startswith("abr(")
    units = study.units(quick)
    assert len(units) == 1 and units[0]["deals"] == quick.deals
    one = dict(units[0], deals=1)
    rows = study.run_unit(quick, Unit(0, 0, one))
    assert len(rows) == quick.rotations
    for r in rows:
        assert r["responder"] == quick.responder
        assert r["gain"] == r["target_points"] - r["abr_points"]
    again = study.run_unit(quick, Unit(0, 0, one))
    assert [r["gain"] for r in again] == [r["gain"] for r in rows]      # seeded


def test_abr_search_rejects_a_responder_that_is_not_a_spec():
    from experiments.studies import abr as study
    with pytest.raises(ValueError, match="responder must be an agent spec"):
        study.ABRStudyConfig(responder=3)


def test_abr_search_paper_macros_on_a_known_table(tmp_path):
    import csv
    import json

    import texmacros as macros
    from texmacros.studies import abr as writer
    from experiments.studies import abr as study
    folder = tmp_path / "abr_search"
    folder.mkdir()
    (folder / "metadata.json").write_text(json.dumps({"config": {"deals": 80}}))
    rows = [{"target": study.ISMCTS_TARGET, "players": n, "deals": 80, "seats_per_deal": 2,
             "gain": g, "gain_lo": lo, "gain_hi": hi, "target_points": 7.0,
             "abr_points": 5.0, "abr_ms_per_decision": 31.4,
             "responder": study.ISMCTS_RESPONDER}
            for n, g, lo, hi in ((6, 2.5, 0.75, 4.25), (11, 1.0, -0.5, 2.5))]
    with open(folder / "gains.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    m = macros.Macros()
    writer._search_macros(m, tmp_path)
    assert not m.warnings, m.warnings
    tex = m.tex("test")
    assert _macro(tex, "AbrSearchResponderIterations") == "3{,}000"
    assert _macro(tex, "AbrSearchTargetIterations") == "100"
    assert _macro(tex, "AbrSearchSixLo") == "0.75" and _macro(tex, "AbrSearchElevenGain") == "1.00"
    assert _macro(tex, "AbrSearchSixMs") == "31"
    assert "\\newif\\ifAbrSearchSixSignificant\\AbrSearchSixSignificanttrue" in tex
    assert "\\newif\\ifAbrSearchElevenSignificant  %" in tex
    empty = macros.Macros()
    writer._search_macros(empty, tmp_path / "absent")
    assert "\\newif\\ifAbrSearch  %" in empty.tex("test")
