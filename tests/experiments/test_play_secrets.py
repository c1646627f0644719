"""The play app keeps its secrets and its records.

* Seeds: records and views hold only each game's own seed, derived one way
  (HMAC-SHA256) from a key that never leaves the server; never the server's
  seed, its key or an absolute path. The next game's deal is not any of the
  derivations an attacker would try from what a finished game shows (the
  earlier scheme, ``default_rng([server_seed, g, 1])``, among them), while the
  server's own derivation, with the key, does give it (so the comparison can
  fail).
* Records: a records folder that cannot be created is refused when the app
  starts (``create_app``, the command line, the widget); one that disappears
  mid-run costs no game: the last move answers 200, the view says the record
  could not be saved, and ``/record`` still serves it.
* Failing agents: an agent whose ``step`` raises, returns ``None`` or an
  illegal action, or whose ``inform_action`` raises, ends its game with a
  one-line error naming the agent (HTTP 200 with ``error`` in the view, later
  moves a 400 saying the game ended, never a 500 or a stuck game), and
  everything played is saved as ``game-<id>-aborted.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import numpy as np
import pytest

pytest.importorskip("flask")

from experiments import play
from experiments.play import PlayError, create_app
from experiments.play._seeds import _seed_key, game_seed
from experiments.play.widget import PlayWidget
from spiel_game import records as R

SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2}
AGENTS = ["random"]


def _new(client):
    r = client.post("/api/new", json={})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()["id"]


def _choose(v):
    if v["pass_count"]:
        return [x["action"] for x in v["legal"]][:v["pass_count"]]
    return [(v["moon"] or v["legal"])[0]["action"]]


def _play_out(client, gid):
    """Play the person's seat to the end; every response's text."""
    texts = []
    r = client.get(f"/api/game/{gid}")
    texts.append(r.get_data(as_text=True))
    v = r.get_json()
    while not v["over"]:
        r = client.post(f"/api/game/{gid}/move", json={"actions": _choose(v)})
        assert r.status_code == 200, r.get_json()
        texts.append(r.get_data(as_text=True))
        v = r.get_json()
    return v, texts


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, x in obj.items():
            yield k
            yield from _strings(x)
    elif isinstance(obj, list):
        for x in obj:
            yield from _strings(x)


def _deal(game, rng):
    """The chance outcomes before the first decision, drawn as PlaySession draws them."""
    st = game.new_initial_state()
    out = []
    while st.is_chance_node():
        acts, probs = zip(*st.chance_outcomes())
        a = int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))])
        out.append(a)
        st.apply_action(a)
    return out


# ------------------------------------------------------------------ seeds
def test_records_and_views_hold_no_seed_material_and_no_path(tmp_path):
    server_seed = 3141592653
    out = tmp_path / "records"
    app = create_app(AGENTS, seed=server_seed, params=SMALL, out=out)
    client = app.test_client()
    gid = _new(client)
    v, texts = _play_out(client, gid)
    texts.append(client.get(f"/api/game/{gid}/record").get_data(as_text=True))
    assert v["record"] == f"game-{gid}.json" and v["record_error"] is None
    texts.append((out / v["record"]).read_text())
    key = _seed_key(server_seed)
    secrets = [str(server_seed), key.hex(), str(tmp_path), "server_seed"]
    for text in texts:
        for s in secrets:
            assert s not in text, (s, text[:200])
        for s in _strings(json.loads(text)):
            assert not os.path.isabs(s), s
    rec = R.read_record(out / v["record"])
    assert rec.seed == game_seed(key, 0) == app.config["PLAY_SESSIONS"][gid].seed
    assert R.replay(rec).returns() == v["returns"]


def test_the_next_deal_cannot_be_computed_from_a_finished_game(tmp_path):
    app = create_app(AGENTS, params=SMALL, out=tmp_path)          # a fresh secret key
    client = app.test_client()
    g0 = _new(client)
    v, _ = _play_out(client, g0)
    shown = client.get(f"/api/game/{g0}/record").get_json()
    g1 = _new(client)
    s1 = app.config["PLAY_SESSIONS"][g1]
    game = s1.game
    n_deal = len(_deal(game, np.random.default_rng(0)))
    truth = [int(a) for a in s1.state.history()[:n_deal]]
    # every integer the finished game showed, and the derivations one would try
    numbers = {shown["seed"], shown["info"]["game_number"], shown["info"]["human_seat"]}
    numbers |= {s["seed"] for s in shown["seats"] if s["seed"] is not None}
    for x in numbers:
        for words in ([x, 1, 1], [x, 1], [x + 1, 1], [x, 2, 1], [x], [x + 1]):
            assert _deal(game, np.random.default_rng(words)) != truth, words
    # the server's own derivation (with its key) gives the deal: the check is not blind
    key = b"k" * 32
    s = play.PlaySession(AGENTS, SMALL, number=1, _key=key)
    assert _deal(game, np.random.default_rng([game_seed(key, 1), 1])) == \
        [int(a) for a in s.state.history()[:n_deal]]
    assert s.seed == game_seed(key, 1) != game_seed(key, 0)


# ------------------------------------------------------------------ records folder
def test_a_records_folder_that_cannot_be_created_is_refused_at_start(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bad = blocker / "records"
    with pytest.raises(PlayError, match="records folder .* cannot be created or written"):
        create_app(AGENTS, seed=1, params=SMALL, out=bad)
    with pytest.raises(PlayError, match="cannot be created or written"):
        create_app(AGENTS, seed=1, params=SMALL, out=blocker)
    from test_play_widget import FAKE
    with pytest.raises(PlayError, match="cannot be created or written"):
        PlayWidget(AGENTS, seed=1, params=SMALL, out=bad, widgets=FAKE)
    assert play.main(["--agents", "random", "--players", "3", "--records", str(bad),
                      "--game", '{"deck": "custom", "suits": "HS", "ranks": "QKA", '
                      '"packs": 2}']) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the records folder") and err.count("\n") == 1, err
    assert blocker.read_text() == "not a folder"
    good = tmp_path / "new" / "records"
    create_app(AGENTS, seed=1, params=SMALL, out=good)
    assert good.is_dir() and list(good.iterdir()) == []     # created, test file removed


def test_a_record_that_cannot_be_written_is_kept_and_reported(tmp_path):
    out = tmp_path / "records"
    app = create_app(AGENTS, seed=2, params=SMALL, out=out)
    client = app.test_client()
    gid = _new(client)
    shutil.rmtree(out)
    out.write_text("the folder was replaced by a file")
    v, _ = _play_out(client, gid)                         # the last move is a 200
    assert v["record"] is None and "could not be saved" in v["record_error"]
    assert str(tmp_path) not in v["record_error"]
    r = client.get(f"/api/game/{gid}/record")
    assert r.status_code == 200
    rec = R.GameRecord.from_dict(r.get_json())
    assert R.replay(rec).returns() == v["returns"]


# ------------------------------------------------------------------ failing agents
BOT = textwrap.dedent('''
    from solvers._base.bots import Agent

    class Failing(Agent):
        def __init__(self, game, player, seed=0, *, mode="raise", after=0):
            super().__init__(game, player, seed)
            self.mode, self.after, self.n = mode, after, 0

        def inform_action(self, state, player, action):
            if self.mode == "inform" and player >= 0:
                raise RuntimeError("inform broke")

        def step(self, state):
            self.n += 1
            if self.n > self.after:
                if self.mode == "raise":
                    raise ValueError("boom in step\\nsecond line")
                if self.mode == "none":
                    return None
                if self.mode == "illegal":
                    return 999
            return state.legal_actions()[0]
''')


@pytest.mark.parametrize("mode, words", [
    ("raise", "failed: ValueError: boom in step"),
    ("none", "returned None, not a legal action"),
    ("illegal", "returned 999, not a legal action"),
    ("inform", "failed in inform_action: RuntimeError: inform broke"),
])
def test_a_failing_agent_ends_its_game_clearly_and_keeps_what_was_played(tmp_path, mode, words):
    bot = tmp_path / "failing_bot.py"
    bot.write_text(BOT)
    spec = f"{bot}:Failing(mode='{mode}', after=2)"
    out = tmp_path / "records"
    app = create_app([spec], seat=0, seed=3, params=SMALL, out=out)
    client = app.test_client()
    gid = _new(client)
    v = client.get(f"/api/game/{gid}").get_json()
    for _ in range(40):
        if v["error"] or v["over"]:
            break
        r = client.post(f"/api/game/{gid}/move", json={"actions": _choose(v)})
        assert r.status_code == 200, r.get_data(as_text=True)
        v = r.get_json()
    assert v["over"] and v["error"], v
    assert words in v["error"] and "\n" not in v["error"] and "Failing" in v["error"]
    assert "start a new game" in v["error"] and str(tmp_path) not in json.dumps(v)
    assert v["record"] == f"game-{gid}-aborted.json"
    again = client.get(f"/api/game/{gid}").get_json()
    assert again["error"] == v["error"]
    r = client.post(f"/api/game/{gid}/move", json={"actions": [0]})
    assert r.status_code == 400 and "this game has ended" in r.get_json()["error"]
    s = app.config["PLAY_SESSIONS"][gid]
    doc = json.loads((out / v["record"]).read_text())
    assert doc["format"] == "cancellation-hearts-aborted-game" and words in doc["error"]
    assert doc["actions"] == [int(a) for a in s.state.history()] and len(doc["actions"]) > 10
    assert len(doc["seconds"]) == len(doc["actions"]) and doc["seed"] == s.seed
    assert _new(client) != gid                            # the server goes on
