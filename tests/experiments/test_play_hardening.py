"""The play app as a network service: debug off whatever FLASK_DEBUG says, a
fresh secret server key by default (never stored), new games only by
a JSON POST, a request-size limit, a cap on live games with eviction of idle
ones, every malformed body a 400, ports checked, the widget escaping its text."""

from __future__ import annotations

import socket
import threading
import time
import tracemalloc

import pytest

pytest.importorskip("flask")

from experiments import play
from experiments.play import PlayError, create_app
from experiments.play.widget import PlayWidget
from spiel_game import records as R

SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2}
AGENTS = ["random"]


def _new(client):
    r = client.post("/api/new", json={})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()["id"]


def _play_out(client, gid):
    v = client.get(f"/api/game/{gid}").get_json()
    while not v["over"]:
        acts = ([x["action"] for x in v["legal"]][:v["pass_count"]] if v["pass_count"]
                else [(v["moon"] or v["legal"])[0]["action"]])
        r = client.post(f"/api/game/{gid}/move", json={"actions": acts})
        assert r.status_code == 200, r.get_json()
        v = r.get_json()
    return v


def test_flask_debug_in_the_environment_is_ignored(monkeypatch, capsys):
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = create_app(AGENTS, seed=1, params=SMALL, out=None)
    assert app.debug is False and not app.config["DEBUG"]
    client = app.test_client()
    assert client.get("/console").status_code == 404
    ran = {}

    def fake_run(self, host=None, port=None, debug=None, load_dotenv=True, **kwargs):
        ran.update(kwargs, host=host, port=port, debug=debug, debug_attr=self.debug)

    monkeypatch.setattr("flask.Flask.run", fake_run)
    assert play.main(["--agents", "random", "--players", "3", "--records", "-",
                      "--game", '{"deck": "custom", "suits": "HS", "ranks": "QKA", '
                      '"packs": 2}', "--port", "8123"]) == 0
    assert ran["debug"] is False and ran["use_reloader"] is False
    assert ran["use_debugger"] is False and ran["use_evalex"] is False
    assert ran["port"] == 8123 and ran["debug_attr"] is False
    ran.clear()
    app.run(port=8124)                      # as a script calling app.run() would
    assert ran["debug"] is False and ran["use_debugger"] is False and not ran["use_reloader"]
    with pytest.raises(PlayError, match="never runs in debug mode"):
        app.run(debug=True)
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8123/" in out and "fresh secret key" in out and "--seed" in out


def test_default_key_is_fresh_and_records_hold_only_the_games_seed(tmp_path):
    game0 = set()
    for _ in range(4):
        app = create_app(AGENTS, params=SMALL, out=None)
        assert app.config["PLAY_SEED"] is None
        gid = _new(app.test_client())
        game0.add(app.config["PLAY_SESSIONS"][gid].seed)
    assert len(game0) == 4                      # every server deals its own games
    app = create_app(AGENTS, params=SMALL, out=tmp_path)
    client = app.test_client()
    gid = _new(client)
    v = _play_out(client, gid)
    rec = R.read_record(tmp_path / v["record"])
    assert rec.seed == app.config["PLAY_SESSIONS"][gid].seed and "server_seed" not in rec.info
    # a fixed --seed still gives every server the same deals
    a = create_app(AGENTS, seed=5, params=SMALL, out=None)
    b = create_app(AGENTS, seed=5, params=SMALL, out=None)
    ga, gb = _new(a.test_client()), _new(b.test_client())
    sa, sb = a.config["PLAY_SESSIONS"][ga], b.config["PLAY_SESSIONS"][gb]
    assert sa.state.history() == sb.state.history() and sa.seed == sb.seed


def test_new_games_only_by_json_post():
    app = create_app(AGENTS, seed=1, params=SMALL, out=None)
    client, sessions = app.test_client(), app.config["PLAY_SESSIONS"]
    for path in ("/", "/new"):
        r = client.get(path)
        assert r.status_code == 200 and 'id="new-game"' in r.get_data(as_text=True)
    assert client.get("/api/new").status_code == 405
    r = client.post("/api/new", data={"x": "1"})          # what a cross-site form can send
    assert r.status_code == 400 and "application/json" in r.get_json()["error"]
    r = client.post("/api/new", data="{}", content_type="text/plain")
    assert r.status_code == 400
    assert client.post("/api/new", json={"seat": 2}).status_code == 400
    assert sessions == {}
    _new(client)
    assert len(sessions) == 1


@pytest.mark.parametrize("body, ctype", [
    ("[" * 15000, "application/json"),                     # nested too deep
    ('{"actions": ' + "[" * 5000 + "]" * 5000 + "}", "application/json"),
    ("\xff\xfe", "application/json"),
    ("", "application/json"),
    ("null", "application/json"),
    ('{"actions": [1]}', "application/x-www-form-urlencoded"),
    ('{"actions": [1], "x": 2}', "application/json"),
    ('{"actions": [1e999]}', "application/json"),
    ('{"actions": [' + "9" * 5000 + "]}", "application/json"),
])
def test_every_malformed_body_is_a_400(body, ctype):
    app = create_app(AGENTS, seed=1, params=SMALL, out=None)
    client = app.test_client()
    gid = _new(client)
    before = client.get(f"/api/game/{gid}").get_json()
    r = client.post(f"/api/game/{gid}/move", data=body.encode("utf-8", "surrogateescape")
                    if isinstance(body, str) else body, content_type=ctype)
    assert r.status_code == 400, (r.status_code, r.get_data(as_text=True)[:300])
    assert len(r.get_json()["error"]) < 400
    assert client.get(f"/api/game/{gid}").get_json() == before       # nothing changed


def test_request_size_is_limited_on_a_real_server():
    from werkzeug.serving import make_server
    app = create_app(AGENTS, seed=1, params=SMALL, out=None)
    gid = _new(app.test_client())
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as s:
            s.sendall((f"POST /api/game/{gid}/move HTTP/1.1\r\nHost: x\r\n"
                       f"Content-Type: application/json\r\nContent-Length: 20000000\r\n\r\n"
                       ).encode() + b"[" * 65536)
            reply = s.recv(4096).decode("latin-1")
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    finally:
        server.shutdown()
        thread.join(10)
    assert reply.startswith("HTTP/1.1 413"), reply[:200]
    # Werkzeug's development server drains at most 10 MiB of an unread body (one
    # buffer) so the client sees the reply; the app itself reads none of it.
    assert seconds < 1.0 and peak < 12 << 20, (seconds, peak)


def test_live_games_are_capped_and_idle_ones_evicted():
    app = create_app(AGENTS, seed=1, params=SMALL, out=None, max_games=2, idle_seconds=3600)
    client, sessions = app.test_client(), app.config["PLAY_SESSIONS"]
    a, b = _new(client), _new(client)
    r = client.post("/api/new", json={})
    assert r.status_code == 503 and "holds 2 games" in r.get_json()["error"]
    assert set(sessions) == {a, b}
    app = create_app(AGENTS, seed=1, params=SMALL, out=None, max_games=2, idle_seconds=0.05)
    client, sessions = app.test_client(), app.config["PLAY_SESSIONS"]
    a, b = _new(client), _new(client)
    time.sleep(0.1)
    client.get(f"/api/game/{b}")                           # b is in use, a is idle
    c = _new(client)
    assert set(sessions) == {b, c}
    assert client.get(f"/api/game/{a}").status_code == 404
    for _ in range(20):
        time.sleep(0.06)
        _new(client)
        assert len(sessions) <= 2
    with pytest.raises(PlayError, match="max_games"):
        create_app(AGENTS, seed=1, params=SMALL, out=None, max_games=0)


@pytest.mark.parametrize("argv, words", [
    (["--port", "99999"], "99999 is not a port; allowed: 1..65535"),
    (["--port", "0"], "allowed: 1..65535"),
    (["--port", "http"], "not a port number"),
    (["--seed", "-1"], "argument --seed: seed=-1 is out of range; allowed: an int in [0, 2**32)"),
    (["--seed", str(2**32)], "seed=4294967296 is out of range; allowed: an int in [0, 2**32)"),
    (["--seed", "x"], "seed='x' is a str, not an int; allowed: an int in [0, 2**32)"),
    (["--max-games", "0"], "allowed: a number > 0"),
])
def test_bad_command_lines_are_refused(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        play.main(["--agents", "random", *argv])
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_widget_escapes_what_it_shows():
    from test_play_widget import FAKE
    pw = PlayWidget(["random"], seat=0, seed=1, params=SMALL, out=None, widgets=FAKE)
    pw.act(["<script>alert(1)</script>"])
    assert "<script>" not in pw.message.value
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pw.message.value
    fresh = [PlayWidget(["random"], params=SMALL, out=None, widgets=FAKE) for _ in range(2)]
    assert fresh[0].seed is None and fresh[0].session.seed != fresh[1].session.seed
