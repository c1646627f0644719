"""The browser play app (experiments.play): the JSON API through Flask's test client,
bad settings and bad clicks, the seat's view of the table, and one whole hand clicked
through in headless Chromium (Playwright), whose saved record must replay to the
result the page showed. Without /usr/bin/chromium the browser test skips, except
under CI=true where it fails (as in test_render)."""

from __future__ import annotations

import os
import re
import runpy
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import spiel_game
from spiel_game import records as R
from spiel_game._render import state_to_html

if os.environ.get("CI") != "true":                  # in CI the play extra must be there
    pytest.importorskip("flask", reason="the play extra (pip install -e '.[play]')")

from experiments.play import PlayError, PlaySession, create_app

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"players": 3, "deck": "custom", "suits": "HS", "ranks": "QKA", "packs": 2,
         "moon": "choose"}
AGENTS = ["heuristic", "random"]


def _choose(v: dict) -> list[int]:
    """The first legal choice of a view: the first cards to pass, the first moon
    choice or the first legal card."""
    if v["pass_count"]:
        return [x["action"] for x in v["legal"][:v["pass_count"]]]
    if v["moon"]:
        return [v["moon"][0]["action"]]
    return [v["legal"][0]["action"]]


def test_api_plays_a_whole_hand_and_saves_a_record(tmp_path):
    app = create_app(AGENTS, seat=1, seed=3, params=SMALL, out=tmp_path)
    client = app.test_client()
    r = client.post("/api/new", json={})
    assert r.status_code == 201
    gid = r.get_json()["id"]
    assert r.get_json()["url"] == f"/game/{gid}"
    page = client.get(f"/game/{gid}")
    assert page.status_code == 200 and f'data-game="{gid}"' in page.get_data(as_text=True)
    v = client.get(f"/api/game/{gid}").get_json()
    assert v["seat"] == 1 and v["agents"] == ["random", "human", "heuristic"]
    assert v["phase"] == "pass" and v["your_turn"] and v["pass_count"] == 1
    assert re.search(r'class="ch-hand" data-seat="0" data-count="\d" data-hidden="true"',
                     v["html"])
    assert 'class="ch-hand" data-seat="1" data-count="4" data-hidden="false"' in v["html"]
    assert client.get(f"/api/game/{gid}/record").status_code == 400      # not over yet
    clicks = 0
    while not v["over"]:
        assert v["your_turn"] and (v["legal"] or v["moon"])
        r = client.post(f"/api/game/{gid}/move", json={"actions": _choose(v)})
        assert r.status_code == 200, r.get_json()
        v = r.get_json()
        clicks += 1
        assert all("passed a card" in m or "(you)" in m or v["phase"] != "pass"
                   for m in v["recent"])
    assert clicks >= 5                                  # one pass, four tricks
    assert 'data-hidden="true"' not in v["html"] and "ch-replay" in v["replay_html"]
    assert v["record"] == f"game-{gid}.json" and v["record_error"] is None
    rec = R.read_record(tmp_path / v["record"])
    assert rec.agents == ["random", "human", "heuristic"]
    assert rec.seed == app.config["PLAY_SESSIONS"][gid].seed
    assert rec.info["human_seat"] == 1 and rec.info["game_id"] == gid
    assert R.replay(rec).returns() == v["returns"] == list(rec.returns)
    assert client.get(f"/api/game/{gid}/record").get_json() == rec.to_dict()
    r = client.post(f"/api/game/{gid}/move", json={"actions": [42]})
    assert r.status_code == 400 and "the game is over" in r.get_json()["error"]


def test_same_seed_and_clicks_give_the_same_game():
    def play(number):
        s = PlaySession(AGENTS, SMALL, seat=0, seed=7, number=number)
        v = s.view()
        while not v["over"]:
            v = s.move(_choose(v))
        return s.record
    a, b, c = play(0), play(0), play(1)
    assert a.actions == b.actions and a.seats == b.seats
    assert a.actions != c.actions                      # game 1 has its own deal


def test_bad_clicks_are_refused_with_a_message(tmp_path):
    client = create_app(AGENTS, seat=0, seed=1, params=SMALL, out=None).test_client()
    gid = client.post("/api/new", json={}).get_json()["id"]
    v = client.get(f"/api/game/{gid}").get_json()
    legal = {x["action"] for x in v["legal"]}
    not_held = next(a for a in (42, 43, 46, 47, 50, 51) if a not in legal)

    def post(body):
        r = client.post(f"/api/game/{gid}/move", json=body)
        assert r.status_code == 400
        return r.get_json()["error"]

    assert "choose 1 card(s) to pass, got 2" in post({"actions": sorted(legal)[:2]})
    assert "only cards in your hand" in post({"actions": [not_held]})
    assert "only cards in your hand" in post({"actions": [-3]})
    assert "list of integer actions" in post({"actions": ["QS"]})
    assert "list of integer actions" in post({"actions": [True]})
    assert "list of integer actions" in post({"actions": []})
    assert 'send a JSON object {"actions"' in post({"action": 1})
    assert 'send a JSON object {"actions"' in post([1])
    r = client.post(f"/api/game/{gid}/move", data="__import__('os')",
                    content_type="application/json")
    assert r.status_code == 400
    v = client.post(f"/api/game/{gid}/move", json={"actions": _choose(v)}).get_json()
    assert v["phase"] == "play"
    legal = {x["action"] for x in v["legal"]}
    held = [x["action"] for x in v["legal"]]
    wrong = next((a for a in (42, 43, 46, 47, 50, 51) if a not in legal), None)
    if wrong is not None:
        assert "is not legal now; legal:" in post({"actions": [wrong]})
    assert "play one action at a time" in post({"actions": held[:1] * 2})
    assert client.get("/api/game/" + "0" * 32).status_code == 404
    r = client.get("/api/game/..%3Cscript%3E")
    assert r.status_code == 404 and "no game" in r.get_json()["error"]


@pytest.mark.parametrize("kwargs, message", [
    ({"agents": []}, "non-empty list of agent specs"),
    ({"agents": "heuristic"}, "non-empty list of agent specs"),
    ({"agents": ["human"]}, "'human' is the person's seat"),
    ({"agents": ["nosuchagent"]}, "bad agent 'nosuchagent'"),
    ({"agents": ["heuristic(depth=3)"]}, "bad agent 'heuristic\\(depth=3\\)'"),
    ({"seat": 3}, r"seat must be a seat of the 3-player game \(0..2\), got 3"),
    ({"seed": -1}, r"^seed=-1 is out of range; allowed: an int in \[0, 2\*\*32\)$"),
    ({"seed": 2**32}, r"^seed=4294967296 is out of range; allowed: an int in \[0, 2\*\*32\)$"),
    ({"seed": "5"}, r"^seed='5' is a str, not an int; allowed: an int in \[0, 2\*\*32\)$"),
    ({"seed": True}, r"^seed=True is a bool, not an int"),
    ({"params": {**SMALL, "moon": "never"}}, "bad game parameters .*moon"),
    ({"players": 1}, "bad game parameters"),
])
def test_bad_settings_are_refused(kwargs, message):
    args = {"agents": AGENTS, "players": None, "seat": 0, "seed": 0, "params": SMALL,
            "out": None, **kwargs}
    with pytest.raises(PlayError, match=message):
        create_app(**args)


def test_viewer_sees_only_own_hand():
    game = spiel_game.load(SMALL)
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    full, mine = state_to_html(st), state_to_html(st, viewer=2)
    assert full.count('data-card="?"') == 0
    assert mine.count('data-card="?"') == 8                 # two other hands of 4
    assert mine.count('data-hidden="true"') == 2


def test_cli_refuses_bad_settings_and_experiments_play_delegates(capsys):
    from experiments.__main__ import main as experiments_main
    from experiments.play import main as play_main
    assert play_main(["--agents", "nosuchagent", "--players", "5"]) == 2
    assert "bad agent 'nosuchagent'" in capsys.readouterr().err
    assert experiments_main(["play", "--agents", "heuristic", "--seat", "9"]) == 2
    assert "seat must be a seat of the 6-player game" in capsys.readouterr().err


def test_readme_play_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(ROOT / "examples" / "play_app_example.py"), run_name="example")
    client = ns["app"].test_client()
    gid = client.post("/api/new", json={}).get_json()["id"]
    v = client.get(f"/api/game/{gid}").get_json()
    assert v["players"] == 4 and v["your_turn"]


# ---------------------------------------------------------------- the browser
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


def _need_chromium() -> str:
    if CHROMIUM is not None:
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (CI=true): the browser play test needs "
                    "Debian's chromium package: apt-get install -y chromium")
    pytest.skip("chromium is not installed (apt-get install -y chromium); "
                "CI=true turns this skip into a failure")


def test_browser_plays_a_whole_hand_by_clicking(tmp_path):
    chromium = _need_chromium()
    if os.environ.get("CI") != "true":
        pytest.importorskip("playwright.sync_api", reason="the play extra (pip install -e "
                                                          "'.[play]')")
    from playwright import sync_api
    from werkzeug.serving import make_server
    app = create_app(AGENTS, seat=0, seed=11, params=SMALL, out=tmp_path)
    PlaySession(AGENTS, SMALL, seed=11)     # compile the kernels before the browser's clock
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium,
                                         args=["--no-sandbox", "--headless", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.set_default_timeout(20_000)
                page.goto(url + "/")
                page.click("#new-game")
                page.wait_for_selector("body[data-phase]")
                clicks = 0
                while page.get_attribute("body", "data-over") != "true":
                    assert clicks < 20, "the hand did not end"
                    phase = page.get_attribute("body", "data-phase")
                    mine = '#table .ch-hand[data-seat="0"] .ch-card'
                    with page.expect_response(lambda r: r.url.endswith("/move")):
                        if phase == "pass":
                            assert page.locator(mine + ".ch-legal").count() > 0
                            assert page.is_disabled("#pass-button")
                            page.locator(mine + ".ch-legal").first.click()
                            assert page.locator(mine + ".ch-selected").count() == 1
                            page.click("#pass-button")
                        elif page.locator("button.moon-choice").count():
                            page.locator("button.moon-choice").first.click()
                        else:
                            page.locator(mine + ".ch-legal").first.click()
                    page.wait_for_function("document.body.dataset.busy === 'false'")
                    assert page.inner_text("#message") == ""
                    clicks += 1
                assert clicks >= 5                          # one pass, four tricks
                page.wait_for_selector("#record")
                shown = page.inner_text("#status")
                assert page.locator("#replay table.ch-replay tr.ch-trick-row").count() == 4
                gid = page.url.rsplit("/", 1)[1]
            finally:
                browser.close()
    finally:
        server.shutdown()
        thread.join(10)
    rec = R.read_record(tmp_path / f"game-{gid}.json")
    returns = R.replay(rec).returns()
    assert returns == list(rec.returns)
    assert f"Your result: {returns[0]:g} (returns " in shown      # JS prints -6.0 as -6


def test_module_runs_as_a_script():
    r = subprocess.run([sys.executable, "-m", "experiments.play", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "--agents" in r.stdout and "--records" in r.stdout
