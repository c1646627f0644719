"""Tournaments writing game records (run_tournament(..., records=path)): the same
results with and without records, one replayable record per deal and seat
assignment, resume without duplicates, worker processes, and the README example."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from experiments.tournament import TournamentConfig, TournamentError, run_tournament
from spiel_game import records as R

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2}


def _cfg(**kw):
    return TournamentConfig(**{"agents": ("heuristic", "random"), "game": SMALL, "deals": 3,
                               "seed": 5, **kw})


def _strip(recs):
    return [{k: v for k, v in r.items() if k != "timing"} for r in recs]


def test_records_do_not_change_results_and_replay(tmp_path):
    plain = run_tournament(_cfg(), tmp_path / "plain", progress=False)
    path = tmp_path / "rec" / "games.jsonl"
    rec = run_tournament(_cfg(), tmp_path / "rec", progress=False, records=path)
    assert _strip(rec.records) == _strip(plain.records)
    assert rec.summary["agents"] == plain.summary["agents"]
    assert "games" not in json.dumps(rec.records)
    games = R.read_records(path)
    assigns = plain.records[0]["assignments"]
    assert len(games) == 3 * len(assigns)
    for g in games:
        d, ai = g.info["deal"], g.info["assignment"]
        deal = plain.records[d]
        assert g.agents == [("heuristic", "random")[a] for a in deal["assignments"][ai]]
        assert g.seed == 5 and g.info["fingerprint"] == _cfg().fingerprint()
        end = R.replay(g)
        assert [-x for x in end.returns()] == deal["points"][ai]      # one hand, points
        timed = [t for t in g.seconds if t is not None]
        assert timed and all(t >= 0 for t in timed)
    # every seat assignment of a deal plays the same cards
    first = [g for g in games if g.info["deal"] == 0]
    deal_moves = {g.actions[:12] for g in first}
    assert len(deal_moves) == 1
    pairs = R.imitation_pairs(games, agent="heuristic")
    assert len(pairs.actions) > 0 and set(pairs.players.tolist()) <= {0, 1, 2}


def test_resume_keeps_one_set_of_records_per_deal(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    full = run_tournament(_cfg(), tmp_path / "t", progress=False, records=path)
    want = {(g.info["deal"], g.info["assignment"]): g.actions for g in R.read_records(path)}
    (tmp_path / "t" / "shards" / "unit-000002.json").unlink()     # deal 2 unsaved
    again = run_tournament(_cfg(), tmp_path / "t", progress=False, records=path)
    assert "2 of 3 units reused" in capsys.readouterr().err
    assert _strip(again.records) == _strip(full.records)
    got = R.read_records(path)
    assert len(got) == len(want)
    assert {(g.info["deal"], g.info["assignment"]): g.actions for g in got} == want
    # a longer tournament: the file holds every deal once
    longer = run_tournament(_cfg(deals=4), tmp_path / "t", progress=False, records=path)
    assert len(R.read_records(path)) == 4 * len(longer.records[0]["assignments"])
    # records asked for only on resume: the shards kept them, the file is complete
    run_tournament(_cfg(deals=4), tmp_path / "t", progress=False, records=tmp_path / "new.jsonl")
    assert len(R.read_records(tmp_path / "new.jsonl")) == len(R.read_records(path))
    # other tournaments' records in the file are kept
    other = _cfg(seed=6, deals=1)
    run_tournament(other, None, progress=False, records=path)
    assert len(R.read_records(path)) == 5 * len(longer.records[0]["assignments"])


def test_damaged_record_file_stops_before_playing(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text('{"format": "chess"}\n')
    with pytest.raises(TournamentError, match="line 1 is not a game record .*line 1: not a "
                                              "Cancellation Hearts.*give another file name"):
        run_tournament(_cfg(), tmp_path / "t", progress=False, records=path)


def test_worker_processes_write_the_same_records(tmp_path):
    one = tmp_path / "one.jsonl"
    two = tmp_path / "two.jsonl"
    run_tournament(_cfg(deals=2), None, progress=False, records=one)
    run_tournament(_cfg(deals=2, workers=2), None, progress=False, records=two)
    key = lambda g: (g.info["deal"], g.info["assignment"])  # noqa: E731
    a = sorted(R.read_records(one), key=key)
    b = sorted(R.read_records(two), key=key)
    assert [g.actions for g in a] == [g.actions for g in b]
    assert [g.seats for g in a] == [g.seats for g in b]


def test_readme_records_example(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(ROOT / "examples" / "records_example.py"), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("10 ['heuristic', 'random', 'heuristic', 'random', 'heuristic']")
    assert out[1].endswith(f", {6534}) ({out[1].split('(')[1].split(',')[0]},)")
