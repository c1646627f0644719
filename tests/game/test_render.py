"""HTML and replay rendering (spiel_game._render), checked by parsing and in a real browser.

The HTML tests parse the fragments with the stdlib ``html.parser``. The
browser tests render a page with Debian's headless Chromium, read back the
rendered DOM (``--dump-dom``, with a probe script that records what the
browser computed for each card) and the screenshot (a PNG decoded here), and
check what a reader sees: red hearts, struck-through cancelled cards, the
framed winning card, the highlighted seat to move. Without ``/usr/bin/chromium``
they skip, except in CI (``CI=true``) where they fail.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import struct
import subprocess
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from spiel_game import cards as C
from spiel_game import _engine as E
from spiel_game._playout import play_random
from spiel_game._render import (card_label, hand_replay_html, install_repr_html,
                               render_text_replay, state_to_html)
from _rule_helpers import deal, load

# Four players, two packs of 7 8 9 T in hearts and spades (as in test_r8).
SMALL = dict(deck="custom", players=4, packs=2, suits="HS", ranks="789T",
             pass_count=0, moon="off")
HANDS = ["TS 9S 7S 7S", "TS 9S 8S 8S", "9H TH 8H 7H", "9H TH 8H 7H"]
# Trick 1: TS TS 9H 9H, all cancelled: void, 2 points set aside, P0 leads again.
# Trick 2: 7S 8S TH TH: the hearts cancel, P1 wins with 8S and takes 2 + 2 points.
# Trick 3: 9S 8H 8H 9S: void again, 2 points set aside, P1 leads again.
# Trick 4 (in progress): 8S 7H 7H, P0 to move: the hearts cancel, 8S is winning.
PLAYS = "TS TS 9H 9H 7S 8S TH TH 9S 8H 8H 9S 8S 7H 7H"


# ------------------------------------------------------------ a tiny DOM
class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children: list = []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, cls=None, tag=None, **data):
        out = []
        for n in self.iter():
            if cls is not None and cls not in n.classes:
                continue
            if tag is not None and n.tag != tag:
                continue
            if any(n.attrs.get("data-" + k.replace("_", "-")) != str(v) for k, v in data.items()):
                continue
            out.append(n)
        return out

    def find(self, cls=None, tag=None, **data):
        found = self.find_all(cls, tag, **data)
        assert len(found) == 1, f"expected one element .{cls} {data}, found {len(found)}"
        return found[0]

    def cards(self) -> list[str]:
        return [n.attrs["data-card"] for n in self.find_all("ch-card")]


_VOID = {"br", "img", "meta", "hr", "input", "link", "col", "wbr"}


class _TreeBuilder(HTMLParser):
    """Builds a Node tree and insists that every element is closed in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", {})

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in _VOID:
            self.cur = node

    def handle_endtag(self, tag):
        assert tag == self.cur.tag, f"</{tag}> closes <{self.cur.tag}>"
        self.cur = self.cur.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(fragment: str) -> Node:
    b = _TreeBuilder()
    b.feed(fragment)
    b.close()
    assert b.cur is b.root, f"unclosed <{b.cur.tag}>"
    return b.root


def small_state(plays=PLAYS):
    return deal(load(**SMALL), HANDS, plays=plays)


def random_state(seed, stop, **params):
    return play_random(load(**params), np.random.default_rng(seed), until=stop)


def hand_cards(st, q) -> list[str]:
    counts = E.hand(st._P, st._s, q)
    return sorted(C.card_to_string(c) for c in range(E.K) for _ in range(int(counts[c])))


def mid_trick(trick, played):
    return lambda st: (st._s[E.S_PHASE] == E.PH_PLAY and st._s[E.S_TRICK] == trick
                       and st._s[E.S_TLEN] == played)


# ------------------------------------------------------------ HTML structure
def test_html_shows_every_hand_by_suit_with_the_right_cards():
    st = random_state(7, mid_trick(4, 3), players=6)
    root = parse(state_to_html(st))
    seats = root.find_all("ch-seat")
    assert [s.attrs["data-seat"] for s in seats] == [str(q) for q in range(6)]
    for q in range(6):
        hand = root.find("ch-hand", seat=q)
        assert sorted(hand.cards()) == hand_cards(st, q)
        in_trick = E.trick_cards(st._P, st._s, 4)[q] >= 0   # played to trick 5
        assert int(hand.attrs["data-count"]) == 17 - 4 - in_trick
        for row in hand.find_all("ch-suit-row"):             # grouped by suit
            assert {c[1] for c in row.cards()} <= {row.attrs["data-suit"]}
            assert row.find("ch-suit-symbol").text() == C.SUIT_SYMBOLS[row.attrs["data-suit"]]
    for q in range(6):
        for n in root.find("ch-hand", seat=q).find_all("ch-card"):
            code = n.attrs["data-card"]
            assert n.text() == card_label(C.string_to_card(code))
            assert ("ch-red" in n.classes) == (code[1] in "HD")


def test_html_marks_the_seat_to_move_and_the_dealer():
    st = random_state(7, mid_trick(4, 3), players=6)
    root = parse(state_to_html(st))
    moving = [s.attrs["data-seat"] for s in root.find_all("ch-seat") if "ch-to-move" in s.classes]
    assert moving == [str(st.current_player())]
    assert root.find("ch-state").attrs["data-to-move"] == str(st.current_player())
    dealers = [s.attrs["data-seat"] for s in root.find_all("ch-seat") if "ch-dealer" in s.classes]
    assert dealers == ["5"]                                  # R1: the dealer is seat n-1
    assert "dealer" in root.find("ch-seat", seat=5).find("ch-dealer-badge").text()


def test_r7_html_marks_cancelled_cards_and_the_winning_card():
    st = small_state()
    root = parse(state_to_html(st))
    trick = root.find("ch-trick")
    assert trick.attrs["data-trick"] == "4" and trick.attrs["data-status"] == "in-progress"
    slot = {int(s.attrs["data-seat"]): s for s in trick.find_all("ch-slot")}
    assert list(slot) == [1, 2, 3, 0]                        # playing order from the leader
    assert "ch-lead" in slot[1].classes
    c = {q: slot[q].find("ch-card") for q in slot}
    assert [c[q].attrs["data-card"] for q in (1, 2, 3)] == ["8S", "7H", "7H"]
    assert "cancelled" in c[2].classes and "cancelled" in c[3].classes
    assert "cancelled" not in c[1].classes and "winning" in c[1].classes
    assert "ch-empty" in c[0].classes                        # P0 has not played yet
    assert len(root.find_all("winning")) == 1
    assert "P1 is winning with 8\u2660" in trick.find("ch-result").text()


def test_r7_html_cancelled_pair_in_a_trick_that_is_won():
    st = small_state("TS TS 9H 9H 7S 8S TH TH")
    root = parse(state_to_html(st))
    trick = root.find("ch-trick")
    assert trick.attrs["data-status"] == "won" and trick.attrs["data-trick"] == "2"
    assert [n.attrs["data-card"] for n in trick.find_all("cancelled")] == ["TH", "TH"]
    assert [n.attrs["data-card"] for n in trick.find_all("winning")] == ["8S"]
    assert "won by P1 with 8\u2660" in trick.find("ch-result").text()


def test_r8_html_shows_the_pot_after_a_void_trick():
    st = small_state("TS TS 9H 9H")
    root = parse(state_to_html(st))
    trick = root.find("ch-trick")
    assert trick.attrs["data-status"] == "void"
    assert len(trick.find_all("cancelled")) == 4 and not trick.find_all("winning")
    pot = root.find("ch-pot")
    assert pot.attrs["data-points"] == "2" and pot.attrs["data-cards"] == "4"
    assert sorted(pot.cards()) == ["9H", "9H", "TS", "TS"]
    assert "2 points" in pot.find("ch-pot-points").text()
    # The next trick won takes the pot: it is empty again.
    pot = parse(state_to_html(small_state("TS TS 9H 9H 7S 8S TH TH"))).find("ch-pot")
    assert pot.attrs["data-points"] == "0" and pot.cards() == []


def test_html_shows_points_this_hand():
    st = small_state()
    root = parse(state_to_html(st))
    pts = {int(n.attrs["data-seat"]): n.text() for n in root.find_all("ch-points")}
    assert pts == {0: "0", 1: "4", 2: "0", 3: "0"}
    assert root.find("ch-seat-points", seat=1).text() == "4 pts"
    assert not root.find_all("ch-score")                     # not a match


def test_r11_html_shows_match_scores():
    st = random_state(5, lambda st: False, **{"players": 6, "target_score": 30})
    assert st.is_terminal()
    root = parse(state_to_html(st))
    scores = {int(n.attrs["data-seat"]): int(n.text()) for n in root.find_all("ch-score")}
    assert scores == {q: int(E.scores(st._P, st._s)[q]) for q in range(6)}
    assert max(scores.values()) >= 30


def test_r3_html_kitty_face_down_until_taken():
    game_params = dict(deck="kitty", players=7)
    st = random_state(5, mid_trick(0, 4), **game_params)
    root = parse(state_to_html(st))
    kitty = root.find("ch-kitty")
    assert kitty.attrs["data-state"] == "face-down"
    assert kitty.cards() == ["?"] * 6
    assert all(n.text() == "?" for n in kitty.find_all("ch-card"))
    st = random_state(5, mid_trick(3, 0), **game_params)
    kitty = parse(state_to_html(st)).find("ch-kitty")
    assert kitty.attrs["data-state"] == "taken"
    kit = E.kitty(st._P, st._s)
    assert sorted(kitty.cards()) == sorted(
        C.card_to_string(c) for c in range(E.K) for _ in range(int(kit[c])))
    first_winner = next(int(w) for w in E.trick_winners(st._P, st._s)[:3] if w >= 0)
    assert kitty.attrs["data-seat"] == str(first_winner)


def test_html_escapes_text_and_is_balanced(monkeypatch):
    st = small_state()
    monkeypatch.setattr(type(st.rules), "describe", lambda self: "<b>&\"'</b>")
    for frag in (state_to_html(st), hand_replay_html(st)):
        assert "<b>" not in frag and "&lt;b&gt;&amp;" in frag
        root = parse(frag)                                   # every tag closed in order
        assert root.find("ch-title").text().endswith("<b>&\"'</b>")


def test_hand_replay_html_one_row_per_trick():
    st = small_state(PLAYS + " 7S")                          # the hand is over
    assert st.is_terminal()
    root = parse(hand_replay_html(st))
    rows = root.find_all("ch-trick-row")
    assert [r.attrs["data-result"] for r in rows] == ["void", "won", "void", "won"]
    assert [r.attrs["data-winner"] for r in rows] == ["-1", "1", "-1", "1"]
    assert [r.attrs["data-leader"] for r in rows] == ["0", "0", "1", "1"]
    assert [r.attrs["data-taken"] for r in rows] == ["0", "4", "0", "4"]
    first = {int(td.attrs["data-seat"]): td for td in rows[0].find_all(tag="td")
             if "data-seat" in td.attrs}
    assert ([first[q].find("ch-card").attrs["data-card"] for q in range(4)]
            == ["TS", "TS", "9H", "9H"])
    assert all("cancelled" in first[q].find("ch-card").classes for q in range(4))
    assert "ch-lead" in first[0].classes
    assert rows[1].find("ch-result").text() == "won by P1 with 8\u2660"
    assert rows[3].find("ch-taken").text() == "P1 takes 4 (trick 2 + 2 set aside)"
    assert {int(n.attrs["data-seat"]): int(n.text()) for n in root.find_all("ch-points")} == {
        0: 0, 1: 8, 2: 0, 3: 0}


@pytest.mark.parametrize("params", [dict(players=6), dict(deck="kitty", players=7),
                                    dict(players=5, void_last_trick="discard")])
def test_hand_replay_points_taken_add_up(params):
    st = random_state(11, lambda st: False, **params)
    root = parse(hand_replay_html(st))
    rows = root.find_all("ch-trick-row")
    assert len(rows) == st.rules.hand_size
    taken = [0] * st.rules.players
    for r in rows:
        if r.attrs["data-result"] == "won":
            taken[int(r.attrs["data-winner"])] += int(r.attrs["data-taken"])
    assert taken == [int(E.points(st._P, st._s)[q]) for q in range(st.rules.players)]


def test_render_text_replay_trick_by_trick():
    st = small_state()
    lines = render_text_replay(st).splitlines()
    assert lines[2:] == [
        "Trick  1: P0:[TS] P1:[TS] P2:[9H] P3:[9H] -> void: set aside (R8); 2 set aside",
        "Trick  2: P0:7S P1:8S* P2:[TH] P3:[TH] -> won by P1 with 8S; "
        "P1 takes 4 (trick 2 + 2 set aside)",
        "Trick  3: P1:[9S] P2:[8H] P3:[8H] P0:[9S] -> void: set aside (R8); 2 set aside",
        "Trick  4: P1:8S* P2:[7H] P3:[7H] -> in progress",
        "Points this hand: P0:0 P1:4 P2:0 P3:0",
    ]


def test_repr_html_hook():
    st = small_state()
    install_repr_html(type(st))
    assert st._repr_html_() == state_to_html(st)
    clone = st.clone()
    assert clone._repr_html_() == state_to_html(st)


# ------------------------------------------------------------ real browser
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
WIDTH, HEIGHT = 1200, 900

# Records what the browser computed for every card and a few regions, as JSON in #probe.
_PROBE = """<pre id="probe" style="display:none"></pre><script>
const box = e => { const r = e.getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)]; };
const cards = [...document.querySelectorAll('.ch-card')].map(e => ({
  card: e.dataset.card, cls: e.className, box: box(e), text: e.textContent,
  inHand: e.closest('.ch-hand') !== null,
  deco: getComputedStyle(e).textDecorationLine, color: getComputedStyle(e).color}));
const seats = [...document.querySelectorAll('.ch-seat')].map(e => ({
  seat: e.dataset.seat, cls: e.className, box: box(e),
  border: getComputedStyle(e).borderTopColor}));
document.getElementById('probe').textContent = JSON.stringify(
  {cards, seats, width: innerWidth, height: innerHeight, dpr: devicePixelRatio});
</script>"""


def _need_chromium():
    if CHROMIUM:
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (CI=true): the browser rendering tests need "
                    "Debian's chromium package: apt-get install -y chromium")
    pytest.skip("chromium is not installed (apt-get install -y chromium); "
                "CI=true turns this skip into a failure")


def _chromium(page: Path, profile: Path, *args) -> subprocess.CompletedProcess:
    cmd = [_need_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
           f"--window-size={WIDTH},{HEIGHT}", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def _decode_png(data: bytes) -> np.ndarray:
    """8-bit RGB/RGBA non-interlaced PNG -> uint8[height, width, channels]."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        assert zlib.crc32(kind + body) == crc
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, f"unsupported PNG {ihdr}"
    ch = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, 1 + w * ch)
    return _unfilter(raw, w * ch, ch).reshape(h, w, ch)


def _unfilter(raw, stride, bpp):
    out = np.zeros((raw.shape[0], stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(raw.shape[0]):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        elif f == 1:                      # Sub: running sum per channel
            cur = (np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1)) & 255
        else:                             # Average, Paeth: sequential in x
            cur = np.array(_unfilter_row(int(f), line.tolist(), prev.tolist(), bpp), np.int32)
        out[y] = cur
        prev = cur
    return out.astype(np.uint8)


def _unfilter_row(f, line, prev, bpp):
    cur = [0] * len(line)
    for i, x in enumerate(line):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if f == 3:
            cur[i] = (x + ((a + b) >> 1)) & 255
        else:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (x + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return cur


def _red(px):
    return (px[..., 0] > 150) & (px[..., 1] < 70) & (px[..., 2] < 70)


def _dark(px):
    return (px[..., 0] < 70) & (px[..., 1] < 70) & (px[..., 2] < 70)


def _green(px):                                   # the winning frame, #188038
    return (px[..., 1] > 110) & (px[..., 0] < 60) & (px[..., 2] < 90)


def _blue(px):                                    # the seat-to-move frame, #1a73e8
    r, g = px[..., 0].astype(int), px[..., 1].astype(int)
    return (abs(r - 26) < 30) & (abs(g - 115) < 30) & (px[..., 2] > 200)


def _region(img, box, inset=0):
    x0, y0, x1, y1 = box
    return img[y0 + inset:y1 - inset, x0 + inset:x1 - inset, :3]


def _render(tmp_path, state, name):
    """Render ``state`` (state + replay) in Chromium: (probe dict, dumped DOM, image, png path)."""
    page = tmp_path / f"{name}.html"
    page.write_text("<!doctype html><html><head><meta charset='utf-8'><title>hand</title>"
                    "</head><body style='margin:0'>" + state_to_html(state)
                    + hand_replay_html(state) + _PROBE + "</body></html>", encoding="utf-8")
    dom = _chromium(page, tmp_path / "profile", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    png = tmp_path / f"{name}.png"
    shot = _chromium(page, tmp_path / "profile", f"--screenshot={png}")
    assert shot.returncode == 0 and png.exists(), shot.stderr[-2000:]
    print(f"\nrendered {name}: {png}")
    probe_text = parse(dom.stdout).find(tag="pre").text()
    return json.loads(probe_text), dom.stdout, png


def _check_png(png: Path) -> np.ndarray:
    data = png.read_bytes()
    w, h = struct.unpack(">II", data[16:24])
    assert data[12:16] == b"IHDR" and (w, h) == (WIDTH, HEIGHT)
    img = _decode_png(data)
    assert img.shape[:2] == (HEIGHT, WIDTH)
    return img


def test_browser_renders_cancelled_cards_pot_and_points(tmp_path):
    _need_chromium()
    t0 = time.monotonic()
    st = small_state()
    probe, dom, png = _render(tmp_path, st, "small_hand")
    assert probe["width"] == WIDTH and probe["dpr"] == 1
    # The rendered DOM: card labels with suit symbols, marks, pot and points.
    root = parse(dom)
    text = html.unescape(root.text())
    for label in ("8\u2660", "7\u2665", "10\u2665", "9\u2660"):
        assert label in text
    assert len(root.find("ch-trick").find_all("cancelled")) == 2
    assert root.find("ch-pot").attrs["data-points"] == "2"
    assert "2 points" in root.find("ch-pot-points").text()
    assert root.find("ch-state").find("ch-points", seat=1).text() == "4"
    assert "P1 is winning with 8\u2660" in text
    # What the browser computed: cancelled cards are struck through, hearts red.
    cards = probe["cards"]
    assert any("cancelled" in c["cls"] for c in cards)
    assert all(("line-through" in c["deco"]) == ("cancelled" in c["cls"]) for c in cards)
    hearts = [c for c in cards if c["card"].endswith("H")]
    assert hearts and all(c["color"] == "rgb(208, 0, 0)" for c in hearts)
    for c in cards:                                          # every card fits in the page
        x0, y0, x1, y1 = c["box"]
        assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT, c
    # The screenshot: not blank, red hearts and dark text, marks visible where the DOM says.
    img = _check_png(png)
    assert _red(img).sum() > 200 and _dark(img).sum() > 2000
    assert (img[..., :3] >= 245).all(axis=-1).mean() > 0.5   # mostly white page
    in_trick = [c for c in cards if "cancelled" in c["cls"] and c["card"] == "7H"]
    plain_hearts = [c for c in hearts if "cancelled" not in c["cls"] and "winning" not in c["cls"]]
    assert len(in_trick) >= 2 and plain_hearts
    for c in in_trick:                                       # red glyph + dark strike line
        reg = _region(img, c["box"], inset=2)
        assert _red(reg).any() and _dark(reg).sum() >= 8, c
    for c in plain_hearts:                                   # no dark pixels on a plain heart
        reg = _region(img, c["box"], inset=2)
        assert _red(reg).any() and not _dark(reg).any(), c
    winning = [c for c in cards if "winning" in c["cls"]]
    assert winning and all(_green(_region(img, c["box"])).sum() > 20 for c in winning)
    elapsed = time.monotonic() - t0
    assert elapsed < 20, f"browser test took {elapsed:.1f} s"


def test_browser_renders_a_six_player_hand(tmp_path):
    _need_chromium()
    st = random_state(3, mid_trick(6, 3), players=6)
    probe, dom, png = _render(tmp_path, st, "six_players")
    shutil.copyfile(png, "/tmp/hand_example.png")
    print("example saved to /tmp/hand_example.png")
    root = parse(dom)
    for q in range(6):
        hand = root.find("ch-hand", seat=q)
        assert sorted(hand.cards()) == hand_cards(st, q)
    text = html.unescape(root.text())
    assert all(sym in text for sym in C.SUIT_SYMBOLS.values())
    assert len(root.find_all("ch-trick-row")) == 7
    img = _check_png(png)
    assert _red(img).sum() > 500 and _dark(img).sum() > 5000
    # The seat to move is framed in blue, the others are not.
    mover = str(st.current_player())
    for seat in probe["seats"]:
        x0, y0, x1, y1 = seat["box"]
        frame = img[y0:y0 + 3, x0 + 10:x1 - 10, :3]          # the top border
        if seat["seat"] == mover:
            assert _blue(frame).mean() > 0.9, seat
        else:
            assert not _blue(frame).any(), seat
    # Every card in the hands is on screen.
    in_hands = [c for c in probe["cards"] if c["inHand"]]
    assert len(in_hands) == sum(len(hand_cards(st, q)) for q in range(6))
    for c in in_hands:
        x0, y0, x1, y1 = c["box"]
        assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT, c
