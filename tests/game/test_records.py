"""Game records (spiel_game.records): round trips, replay, imitation pairs, and a
clear RecordError for every kind of damage."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest

import spiel_game
from spiel_game import records as R

SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2,
         "moon": "choose"}


def _play(params, seed: int):
    """A finished game of seeded random play (chance drawn with its probabilities)."""
    game = spiel_game.load(params)
    rng = np.random.default_rng(seed)
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(int(rng.choice(acts, p=probs)))
        else:
            st.apply_action(int(rng.choice(st.legal_actions())))
    return st


def _record(params=SMALL, seed=0, seats=None):
    st = _play(params, seed)
    n = st.get_game().num_players()
    seats = seats or [{"agent": "random", "seed": 10 + q} for q in range(n)]
    secs = [None if p < 0 else 0.001 * i for i, p in
            enumerate(x.player for x in st.full_history())]
    return st, R.record_from_state(st, seats, seed=seed, seconds=secs,
                                   info={"source": "test", "deal": seed})


@pytest.mark.parametrize("params", [SMALL, {"players": 5},
                                    {"players": 4, "deck": "custom", "suits": "CDHS",
                                     "ranks": "JQKA", "packs": 1, "target_score": 30}],
                         ids=["small", "5p", "match"])
def test_round_trip_and_replay(tmp_path, params):
    st, rec = _record(params, seed=3)
    assert rec.actions == tuple(st.history())
    assert rec.returns == tuple(st.returns())
    assert rec.game == st.get_game().get_parameters()
    back = R.read_record(R.write_record(rec, tmp_path / "one.json"))
    assert back == rec and back.origin == str(tmp_path / "one.json")
    assert json.loads((tmp_path / "one.json").read_text())["format"] == R.FORMAT
    end = R.replay(back)
    assert end.is_terminal() and end.history() == st.history()
    assert end.returns() == st.returns()
    assert str(end) == str(st)


def test_json_lines_round_trip(tmp_path):
    recs = [_record(seed=s)[1] for s in range(4)]
    path = tmp_path / "games.jsonl"
    R.append_records(recs[:2], path)
    R.append_records(recs[2:], path)
    back = R.read_records(path)
    assert back == recs
    assert [r.origin for r in back] == [f"{path} line {i}" for i in range(1, 5)]
    assert [r.info["deal"] for r in R.iter_records(path)] == [0, 1, 2, 3]
    # read_records also reads a single indented record file
    assert R.read_records(R.write_record(recs[1], tmp_path / "x.json")) == [recs[1]]


def test_imitation_pairs_equal_the_states_tensors():
    st, rec = _record(SMALL, seed=5, seats=["heuristic", "human", "heuristic"])
    game = st.get_game()
    want_x, want_a, want_p, want_l = [], [], [], []
    s = game.new_initial_state()
    for a in st.history():
        if not s.is_chance_node() and len(s.legal_actions()) > 1:
            p = s.current_player()
            want_x.append(s.information_state_tensor(p))
            want_a.append(a)
            want_p.append(p)
            want_l.append(s.legal_actions())
        s.apply_action(a)
    pairs = R.imitation_pairs([rec])
    assert pairs.tensors.dtype == np.float32
    assert pairs.tensors.shape == (len(want_a), game.information_state_tensor_size())
    np.testing.assert_array_equal(pairs.tensors, np.asarray(want_x, np.float32))
    assert pairs.actions.tolist() == want_a and pairs.players.tolist() == want_p
    assert [np.flatnonzero(m).tolist() for m in pairs.legal] == want_l
    assert all(pairs.legal[i, a] for i, a in enumerate(pairs.actions))
    # filters: one seat, one agent, forced moves too
    one = R.imitation_pairs(rec, player=1)
    assert one.players.tolist() == [p for p in want_p if p == 1]
    heur = R.imitation_pairs(rec, agent="heuristic")
    assert set(heur.players.tolist()) <= {0, 2} and len(heur.actions) == sum(
        p != 1 for p in want_p)
    everything = R.imitation_pairs(rec, forced=True)
    decisions = sum(1 for x in st.full_history() if x.player >= 0)
    assert len(everything.actions) == decisions > len(pairs.actions)
    both = R.imitation_pairs([rec, rec])
    assert len(both.actions) == 2 * len(pairs.actions)


def test_imitation_pairs_refuse_mixed_layouts_and_bad_player():
    a = _record(SMALL, seed=1)[1]
    b = _record({"players": 5}, seed=1)[1]
    with pytest.raises(R.RecordError, match="same layout"):
        R.imitation_pairs([a, b])
    with pytest.raises(R.RecordError, match="player 7 is not a seat"):
        R.imitation_pairs([a], player=7)
    empty = R.imitation_pairs([])
    assert empty.tensors.shape == (0, 0) and empty.actions.shape == (0,)


def test_record_of_an_unfinished_game_is_refused():
    game = spiel_game.load(SMALL)
    with pytest.raises(R.RecordError, match="finished game"):
        R.record_from_state(game.new_initial_state(), ["random"] * 3)
    st = _play(SMALL, 0)
    with pytest.raises(R.RecordError, match="2 seats given for a 3-player game"):
        R.record_from_state(st, ["random"] * 2)


# ---------------------------------------------------------------- damage
def _damaged(change):
    d = _record(SMALL, seed=2)[1].to_dict()
    change(d)
    return d


def _first_decision(d):
    """Index of the first move of a player with a choice, and an illegal action there."""
    game = spiel_game.load(SMALL)
    s = game.new_initial_state()
    for i, a in enumerate(d["actions"]):
        if not s.is_chance_node() and len(s.legal_actions()) > 1:
            bad = next(x for x in range(game.num_distinct_actions())
                       if x not in s.legal_actions())
            return i, bad
        s.apply_action(a)
    raise AssertionError("no decision")


FIELD_DAMAGE = {
    "not an object": (lambda d: d.clear() or d.update({"x": 1}), "not a Cancellation Hearts"),
    "foreign format": (lambda d: d.update(format="chess-pgn"), "'format' is 'chess-pgn'"),
    "newer version": (lambda d: d.update(version=2), "unknown record version 2 .*newer"),
    "version not int": (lambda d: d.update(version="1"), "'version' must be an integer"),
    "missing actions": (lambda d: d.pop("actions"), r"missing field\(s\) \['actions'\]"),
    "unknown field": (lambda d: d.update(winner=1), r"unknown field\(s\) \['winner'\]"),
    "bad game parameter": (lambda d: d["game"].update(moon="sometimes"),
                           "bad game parameters in 'game'.*moon"),
    "game not an object": (lambda d: d.update(game=[3]), "'game' must be an object"),
    "seat count": (lambda d: d["seats"].pop(), "'seats' has 2 entries but the game has 3"),
    "seat without agent": (lambda d: d["seats"][1].pop("agent"), "seat 1 must be an object"),
    "seat seed": (lambda d: d["seats"][0].update(seed="x"), "seat 0: 'seed' must be"),
    "action not int": (lambda d: d["actions"].__setitem__(4, "QS"),
                       r"'actions'\[4\] must be an integer"),
    "bool action": (lambda d: d["actions"].__setitem__(0, True),
                    r"'actions'\[0\] must be an integer"),
    "returns length": (lambda d: d["returns"].pop(), "'returns' must be a list of 3"),
    "seconds length": (lambda d: d["seconds"].pop(), "'seconds' must be null or a list"),
    "negative seconds": (lambda d: d["seconds"].__setitem__(-1, -1.0),
                         r"'seconds'\[\d+\] must be null or a number >= 0"),
    "info not an object": (lambda d: d.update(info=[1]), "'info' must be a JSON object"),
}


@pytest.mark.parametrize("name", sorted(FIELD_DAMAGE))
def test_damaged_fields_give_clear_errors(tmp_path, name):
    change, message = FIELD_DAMAGE[name]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_damaged(change)))
    with pytest.raises(R.RecordError, match=message) as e:
        R.read_record(path)
    assert str(e.value).startswith(str(path))


def test_damaged_moves_give_clear_errors():
    good = _record(SMALL, seed=2)[1].to_dict()
    i, bad = _first_decision(good)
    d = json.loads(json.dumps(good))
    d["actions"][i] = bad
    with pytest.raises(R.RecordError, match=rf"^x.json: move {i}: illegal action {bad} .*"
                                            r"for player \d \(random\); legal: \["):
        R.replay(R.GameRecord.from_dict(d, "x.json"))
    d = json.loads(json.dumps(good))
    d["actions"][0] = 999                                         # no such card to deal
    with pytest.raises(R.RecordError, match="move 0: illegal action 999 .* for chance"):
        R.replay(R.GameRecord.from_dict(d, "x.json"))
    d = json.loads(json.dumps(good))
    del d["actions"][-1], d["seconds"][-1]
    with pytest.raises(R.RecordError, match=f"ends after {len(d['actions'])} moves but the "
                                            "game is not over"):
        R.replay(R.GameRecord.from_dict(d))
    d = json.loads(json.dumps(good))
    d["actions"].append(good["actions"][-1])
    d["seconds"].append(None)
    n = len(good["actions"])
    with pytest.raises(R.RecordError, match=f"move {n}: the game ended after {n} moves"):
        R.replay(R.GameRecord.from_dict(d))
    d = json.loads(json.dumps(good))
    d["returns"][0] += 1
    with pytest.raises(R.RecordError, match="mismatched result: the record says returns"):
        R.replay(R.GameRecord.from_dict(d))
    with pytest.raises(R.RecordError, match="mismatched result"):
        R.imitation_pairs([R.GameRecord.from_dict(d)])


def test_damaged_files_give_clear_errors(tmp_path):
    rec = _record(SMALL, seed=2)[1]
    path = tmp_path / "games.jsonl"
    R.append_records([rec, rec], path)
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:-20] + "\n")
    with pytest.raises(R.RecordError, match=f"^{path} line 2: not valid JSON"):
        R.read_records(path)
    with pytest.raises(R.RecordError, match="holds 2 JSON lines.*read_records"):
        R.read_record(path)
    nan = tmp_path / "nan.json"
    nan.write_text(rec.to_json().replace('"returns": [', '"returns": [NaN, '))
    with pytest.raises(R.RecordError, match="NaN is not allowed"):
        R.read_record(nan)
    listing = tmp_path / "list.json"
    listing.write_text("[1, 2]")
    with pytest.raises(R.RecordError, match="a record is a JSON object, got list"):
        R.read_record(listing)
    with pytest.raises(R.RecordError, match="no such record file"):
        R.read_record(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(R.RecordError, match="not UTF-8"):
        R.read_record(binary)
    with pytest.raises(TypeError, match="GameRecord"):
        R.replay(rec.to_dict())


def test_whole_deal_records_replay():
    params = dict(spiel_game.preset("micro"))
    st, rec = _record(params, seed=4)
    assert st.get_game().get_parameters()["deal"] == "whole"
    assert R.replay(rec).returns() == st.returns()
    assert isinstance(R.replay(rec), pyspiel.State)


def test_records_stay_rules_level_and_outside_the_kernel_cache_hash():
    import subprocess
    import sys
    from pathlib import Path

    from spiel_game._numba_cache import engine_sources
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, spiel_game.records as R; R.GameRecord; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'solvers', 'experiments'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, check=True, timeout=300).stdout
    assert out.strip().splitlines()[-1] == "[]"
    # editing records does not drop the compiled engine kernels (numba_cache.guard)
    assert Path(R.__file__).resolve() not in engine_sources()
