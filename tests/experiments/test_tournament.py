"""Duplicate-deal tournaments: seat assignments, statistics checked on synthetic
cases, determinism across worker counts, resume after a kill (the command line) and
after a torn record line (the library), OpenSpiel's bots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from experiments._base.stats import mean_ci as ci95
from experiments.tournament import (TournamentConfig, TournamentError, paired_test,
                                    per_deal_agent_values, play_deal, run_tournament,
                                    seat_assignments, summarize)

ROOT = Path(__file__).resolve().parents[2]


def _core(summary):
    """The deterministic part of a summary (timings vary from run to run)."""
    return {k: v for k, v in summary.items() if k != "timing"}


def _records(res):
    return [{k: v for k, v in r.items() if k != "timing"} for r in res.records]


# ---------------------------------------------------------------- seat assignments
def test_two_agents_at_six_seats_swap_every_seat():
    a = seat_assignments(6, 2)
    assert a == [(0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 0)]


def test_rotations_give_every_agent_every_seat_equally():
    a = seat_assignments(6, 3)
    assert len(a) == 3
    for seat in range(6):
        assert sorted(x[seat] for x in a) == [0, 1, 2]
    full = seat_assignments(11, 2)
    assert len(full) == 11 and len(set(full)) == 11
    sub = seat_assignments(11, 2, rotations=4)
    assert len(sub) == 4 and all(x in full for x in sub)
    assert sub[0] == full[0] and sub == [full[0], full[2], full[5], full[8]]


def test_bad_lineups_are_refused():
    with pytest.raises(TournamentError, match="leaves out agents"):
        seat_assignments(6, 3, lineup=(0, 1, 0, 1, 0, 1))
    with pytest.raises(TournamentError, match="entries for 6 seats"):
        seat_assignments(6, 2, lineup=(0, 1))
    with pytest.raises(TournamentError, match="do not fit"):
        seat_assignments(4, 5)
    with pytest.raises(TournamentError, match=r"unknown config key\(s\) \['hands'\]"):
        TournamentConfig.from_dict({"agents": ["random"], "hands": 3})


# ---------------------------------------------------------------- statistics
def test_ci95_matches_student_t_on_a_known_sample():
    c = ci95([1.0, 2.0, 3.0, 4.0, 5.0])
    sem = np.std([1, 2, 3, 4, 5], ddof=1) / 5 ** .5
    lo, hi = scipy.stats.t.interval(0.95, 4, loc=3.0, scale=sem)
    assert c["mean"] == 3.0 and c["n"] == 5
    assert c["lo"] == pytest.approx(lo) and c["hi"] == pytest.approx(hi)
    assert c["hi"] - c["mean"] == pytest.approx(2.7764451 * 1.5811388 / 5 ** .5, rel=1e-6)
    assert np.isnan(ci95([2.0])["lo"])


def test_ci95_covers_the_true_mean_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    hits = 0
    trials = 4000
    for _ in range(trials):
        c = ci95(rng.normal(3.0, 5.0, size=12))
        hits += c["lo"] <= 3.0 <= c["hi"]
    assert 0.94 <= hits / trials <= 0.96            # binomial sd 0.0034


def test_paired_test_on_synthetic_deals():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 10, size=200)                    # the deal's luck, shared
    a = luck + 1.0 + rng.normal(0, 1, size=200)
    b = luck + rng.normal(0, 1, size=200)
    t = paired_test(a, b)
    assert t["lo"] < 1.0 < t["hi"] and t["p_value"] < 1e-10
    assert t["p_value"] == pytest.approx(scipy.stats.ttest_rel(a, b).pvalue)
    same = paired_test(luck + rng.normal(0, 1, 200), luck + rng.normal(0, 1, 200))
    assert same["p_value"] > 0.01


def test_per_deal_values_average_over_seats_and_assignments():
    rec = {"assignments": [[0, 1, 0], [1, 0, 1]],
           "points": [[10.0, 0.0, 2.0], [4.0, 6.0, 8.0]]}
    pts, pay = per_deal_agent_values(rec, 2)
    assert pts.tolist() == [(10 + 2 + 6) / 3, (0 + 4 + 8) / 3]
    # zero-sum payoff of a seat: mean of the others minus own
    p1 = [(0 + 2) / 2 - 10, (10 + 2) / 2 - 0, (10 + 0) / 2 - 2]
    p2 = [(6 + 8) / 2 - 4, (4 + 8) / 2 - 6, (4 + 6) / 2 - 8]
    assert pay.tolist() == pytest.approx([(p1[0] + p1[2] + p2[1]) / 3, (p1[1] + p2[0] + p2[2]) / 3])
    cfg = TournamentConfig(agents=("x", "y"), game={"players": 3})
    s = summarize(cfg, [dict(rec, deal=0, timing={"seconds": [0, 0], "decisions": [0, 0]}),
                        dict(rec, deal=1, timing={"seconds": [0, 0], "decisions": [0, 0]})])
    assert s["agents"][0]["points_per_hand"]["mean"] == pytest.approx(6.0)
    assert s["pairs"][0]["points_difference"]["mean"] == pytest.approx(2.0)


# ---------------------------------------------------------------- playing
def test_a_deal_gives_every_seat_the_same_cards_in_every_assignment():
    cfg = TournamentConfig(agents=("heuristic", "heuristic"), game={"players": 6}, seed=3)
    rec = play_deal(cfg, 0)
    # Identical deterministic agents in every seat: every assignment is the same game.
    assert rec["points"][0] == rec["points"][1]
    other = play_deal(cfg, 1)
    assert other["points"][0] != rec["points"][0]


def test_results_do_not_depend_on_the_number_of_workers(tmp_path):
    cfg = TournamentConfig(agents=("random", "heuristic", "pimc(worlds=2)"),
                           game={"players": 6}, deals=6, seed=11)
    one = run_tournament(cfg, tmp_path / "w1", progress=False)
    two = run_tournament(TournamentConfig(**{**cfg.__dict__, "workers": 2}),
                         tmp_path / "w2", progress=True)
    assert _records(one) == _records(two)
    assert _core(one.summary) == _core(two.summary)
    saved = json.loads((tmp_path / "w2" / "metadata.json").read_text())
    assert saved["seed"] == 11 and "git_commit" in saved and saved["workers"] == 2
    assert saved["config"]["agents"] == list(cfg.agents)
    assert "open_spiel" in saved["versions"]
    agents = pd.read_csv(tmp_path / "w2" / "agents.csv")
    assert list(agents["payoff"]) == pytest.approx(
        [a["zero_sum_payoff"]["mean"] for a in one.summary["agents"]])


def test_resume_after_a_killed_run_gives_identical_results(tmp_path):
    """The command line (the runner experiment ``tournament``) killed after its first
    block of deals, then run again, gives the records of an uninterrupted run."""
    from experiments.tournament import deal_records, main
    args = ["--agents", "heuristic", "ismcts(iterations=150)", "--game", '{"players": 5}',
            "--deals", "5", "--seed", "7", "--deals-per-unit", "1", "--no-progress",
            "--out", str(tmp_path / "killed")]
    proc = subprocess.Popen([sys.executable, "-m", "experiments.tournament", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    shards = []
    while time.time() < deadline and proc.poll() is None:
        shards = list((tmp_path / "killed").glob("tournament@*/shards/unit-*.json"))
        if shards:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    run_dir = shards[0].parent.parent
    done_before = len(list((run_dir / "shards").glob("unit-*.json")))
    assert 1 <= done_before < 5
    assert main(args) == 0
    cfg = TournamentConfig(agents=("heuristic", "ismcts(iterations=150)"),
                           game={"players": 5}, deals=5, seed=7)
    fresh = run_tournament(cfg, None, progress=False)
    resumed = deal_records(pd.read_csv(run_dir / "rows.csv"))
    assert [{k: v for k, v in r.items() if k != "timing"} for r in resumed] == _records(fresh)
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["units_run_this_session"] == 5 - done_before


def test_a_results_folder_resumes_after_a_torn_hash_line(tmp_path, capsys):
    """``run_tournament`` with a folder (the runner's, one unit per deal): a longer
    tournament of the same config continues the saved deals; a torn last line of
    ``shards.sha256`` (a run killed between a shard's hash and the shard) is
    dropped with a note and its deal played again."""
    cfg = TournamentConfig(agents=("heuristic", "ismcts(iterations=150)"),
                           game={"players": 5}, deals=2, seed=7)
    out = tmp_path / "t"
    run_tournament(cfg, out, progress=False)
    with open(out / "shards.sha256", "a") as f:          # a torn line, as if killed
        f.write("0123456789abcdef")
    longer = TournamentConfig(**{**cfg.__dict__, "deals": 3})
    resumed = run_tournament(longer, out, progress=False)
    fresh = run_tournament(longer, tmp_path / "fresh", progress=False)
    assert _records(resumed) == _records(fresh)
    assert _core(resumed.summary) == _core(fresh.summary)
    err = capsys.readouterr().err
    assert "incomplete last line" in err and "2 of 3 units reused (same code)" in err
    lines = (out / "shards.sha256").read_text().splitlines()
    assert len(lines) == 3 and all(len(x.split()[0]) == 64 for x in lines)
    # A different tournament may not reuse the folder.
    with pytest.raises(TournamentError, match="another configuration"):
        run_tournament(TournamentConfig(agents=("random", "heuristic"), game={"players": 5},
                                        deals=1, seed=7), out, progress=False)


def test_openspiel_bots_play_in_our_tournament(tmp_path):
    """OpenSpiel's Python ISMCTSBot and PolicyBot, through the registry and unchanged
    through plain factories."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots.policy import PolicyBot

    def os_policy_bot(game, player, seed):
        return PolicyBot(player, np.random.RandomState(seed % 2**32),
                         policy.UniformRandomPolicy(game))

    def os_ismcts_bot(game, player, seed):
        rs = np.random.RandomState(seed % 2**32)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 10.0, 10,
                               random_state=rs)
        # Its default resampler draws from an unseeded sampler; OpenSpiel's hook:
        gen = np.random.default_rng(seed)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, gen))
        return bot

    small = {"deck": "custom", "players": 3, "suits": "HS", "ranks": "9TJQKA", "packs": 2,
             "pass_count": 1}
    cfg = TournamentConfig(agents=("policy", "os_ismcts", "heuristic"), game=small, deals=2,
                           seed=5)
    res = run_tournament(cfg, None, factories={"policy": os_policy_bot,
                                               "os_ismcts": os_ismcts_bot}, progress=False)
    assert res.summary["deals"] == 2 and len(res.summary["pairs"]) == 3
    again = run_tournament(cfg, None, factories={"policy": os_policy_bot,
                                                 "os_ismcts": os_ismcts_bot}, progress=False)
    assert _records(res) == _records(again)           # seeded, so reproducible
    reg = TournamentConfig(agents=("openspiel_uniform", "openspiel_ismcts(iterations=10)"),
                           game=small, deals=1, seed=5)
    assert run_tournament(reg, None, progress=False).summary["deals"] == 1


def test_an_illegal_move_is_reported_with_the_agent_and_state():
    import pyspiel

    class Bad(pyspiel.Bot):
        def __init__(self):
            pyspiel.Bot.__init__(self)

        def step(self, state):
            return 999

        def restart_at(self, state):
            pass

    cfg = TournamentConfig(agents=("bad", "random"), game={"players": 5}, deals=1)
    with pytest.raises(TournamentError, match="Bad on seat 0 chose illegal action 999"):
        run_tournament(cfg, None, factories={"bad": lambda g, p, s: Bad()}, progress=False)


def test_a_tournament_imports_only_its_agents_modules():
    """Building, fingerprinting and playing ``random`` against ``heuristic`` imports
    neither the other agents' modules nor torch."""
    script = (
        "import json, sys\n"
        "from experiments.tournament import TournamentConfig, run_tournament\n"
        "cfg = TournamentConfig(agents=('random', 'heuristic'), game={'players': 5}, deals=1,"
        " seed=0)\n"
        "run_tournament(cfg, progress=False)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('solvers')"
        " or m.split('.')[0] == 'torch')))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                  timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "solvers._base.heuristic" in seen
    others = {"solvers._ismcts", "solvers._pimc", "solvers._abr", "solvers.xinxin",
              "solvers.net._agents", "solvers._ismcts_net", "solvers.net.search", "torch"}
    assert not others & seen, others & seen
