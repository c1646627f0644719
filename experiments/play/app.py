"""Play Cancellation Hearts in the browser: one seat for a person, the others for agents::

    python -m experiments play --agents heuristic "ismcts(iterations=2000)" --players 6
    python -m experiments.play --agents heuristic --players 6 [--seat 0] [--seed 0]
        [--port 8000] [--host 127.0.0.1] [--records DIR] [--game '{"moon": "choose"}']

starts a local Flask app (http://127.0.0.1:8000/): its start page has a "New
game" button. Every new game gets its own
id and lives on the server (:class:`PlaySession`); the page shows the table
with :func:`spiel_game.render.state_to_html` as the person's seat sees it
(other hands face down), the current trick with cancelled cards struck
through, and the person's legal cards as buttons: while passing, choose the
cards to pass and submit them; when you shot the moon under ``moon="choose"``,
choose subtract or add. Agents (any spec of :mod:`solvers.registry`, cycled
over the other seats) move on the server until the person is to act. At the
end the page shows the trick-by-trick replay
(:func:`spiel_game.render.hand_replay_html`) and the game is saved as a
record (:mod:`spiel_game.records`) in ``--records`` (default
``results/play``), one ``game-<id>.json`` per finished game; the view names
the file, never the server's folder. The records folder is created and a
test file written in it when the app starts (:class:`PlayError` if it
cannot be). An agent that raises or returns no legal action ends its game: the
view's ``error`` says which agent failed and how, every later move is refused,
and everything played is saved as ``game-<id>-aborted.json`` (the game, seats,
seed, actions so far, thinking times and the error). A record that cannot be
written is kept in memory (``/record`` still serves it) and the view's
``record_error`` says so.

**Seeds.** The server holds a secret key that never leaves the process (not
printed, stored, or sent): without ``--seed`` 256 random bits drawn when it
starts; with ``--seed S`` derived from ``S`` by scrypt (so that every server
started with ``S`` deals the same games). Game number ``g`` gets its own seed,
``HMAC-SHA256(key, "game g")`` (62 bits, :func:`game_seed`): its chance
outcomes come from ``numpy.random.default_rng([game_seed, 1])`` and seat
``q``'s agent is seeded from ``SeedSequence([game_seed, 2, q])``, so the same
clicks replay the same game. Records hold only the game's own seed, from which
neither the key nor another game's deal can be computed.

**Input.** The page talks JSON to the API: ``POST /api/new`` with a JSON body
``{}`` (a new game: ``{"id", "url"}``), ``GET /api/game/<id>`` (the view),
``POST /api/game/<id>/move`` with ``{"actions": [int, ...]}`` (one card, one
moon choice, or every card still to pass), ``GET /api/game/<id>/record`` (the
finished game's record; here, as in the view, an agent given by a file or a
path parameter is named by its file name, without the server's folder).
Nothing the browser sends is evaluated: game ids are looked up, actions must
be integers legal in the current state; a body must be JSON sent as
``application/json`` (so another web site cannot post to the app from a
visitor's browser without a CORS preflight, which the app never grants) and at
most :data:`MAX_BODY_BYTES` long; anything else is answered with HTTP 400 (404
for an unknown game, 405 for a wrong method, 413 for a longer body, 503 when
the server is full) and ``{"error": message}`` saying what is allowed.

**Deploying for a human study.** What the app guarantees:

* no code runs from a request, and Flask's debugger and reloader are off
  whatever the environment says (``FLASK_DEBUG`` is ignored);
* a person sees only their own hand (other hands are rendered face down and
  the API sends no hidden card); no response holds the server's key or seed
  or an absolute path, and the deals of later games cannot be computed from
  what a person is shown;
* every finished game is written atomically as a record holding the game's
  seed, the agents, their seeds, every action and the thinking time per
  action; a game ended by a failing agent keeps what was played;
* memory is bounded: at most ``max_games`` (``--max-games``, default 100)
  games live at once; a new game evicts games idle for more than
  ``idle_seconds`` (``--idle-minutes``, default 60), and when none is idle it
  is refused with HTTP 503; request bodies are at most
  :data:`MAX_BODY_BYTES`; a game in the middle of an agent's move is never
  evicted.

What it does not do: there are no accounts or logins. A game id (128 random
bits, in the page's address) is the only credential: whoever has it plays
that seat, so give each participant their own game and do not share the
address. It has no HTTPS (put it behind a reverse proxy that terminates TLS
when it is reachable beyond one machine: ``--host 0.0.0.0`` exposes it to
the network), no rate limiting beyond the game cap, and no consent or
questionnaire pages; an evicted or restarted server's unfinished games are
lost (finished ones are on disk). It is Flask's development server: for more
than a handful of simultaneous participants serve ``create_app(...)`` with a
WSGI server (e.g. ``gunicorn -w 1 --threads 8``; one process, since games
live in its memory).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import spiel_game
from spiel_game import cards as C
from spiel_game import engine as E
from spiel_game import records as R
from spiel_game.extras import MissingExtra
from spiel_game.render import card_label, hand_replay_html, state_to_html

__all__ = ["PlayError", "PlaySession", "check_settings", "check_records_folder", "create_app",
           "main", "fresh_seed", "game_seed", "MAX_BODY_BYTES", "MAX_GAMES", "IDLE_SECONDS"]

DEFAULT_RECORDS = Path("results") / "play"
#: The longest request body the app reads (a move is a few dozen bytes).
MAX_BODY_BYTES = 16 * 1024
#: Default cap on games held at once, and seconds after which an idle one may be evicted.
MAX_GAMES, IDLE_SECONDS = 100, 3600.0
_SEED_LIMIT = 2**32


def fresh_seed() -> int:
    """A random server seed ``0 <= seed < 2**32`` from the operating system."""
    return secrets.randbits(32)


class PlayError(ValueError):
    """Bad play-app settings or a move that is not allowed; the message says what is."""


@functools.lru_cache(maxsize=16)
def _seed_key(seed: int) -> bytes:
    """The server key of ``--seed seed``: scrypt (slow on purpose, so that a
    32-bit seed is not found by trying them all against a game's seed)."""
    return hashlib.scrypt(str(int(seed)).encode(), salt=b"cancellation-hearts play server",
                          n=2**14, r=8, p=1, dklen=32)


def _server_key(seed: int | None) -> bytes:
    """A fresh 256-bit key (``seed=None``) or the key of ``seed``."""
    return secrets.token_bytes(32) if seed is None else _seed_key(int(seed))


def game_seed(key: bytes, number: int) -> int:
    """The seed of game ``number`` of a server with ``key``: the first 62 bits of
    ``HMAC-SHA256(key, "game <number>")`` (one way: it reveals neither the key
    nor any other game's seed)."""
    d = hmac.new(key, f"game {int(number)}".encode(), hashlib.sha256).digest()
    return int.from_bytes(d[:8], "little") & (2**62 - 1)


def check_records_folder(out: str | Path | None) -> Path | None:
    """Create the records folder ``out`` (None: records are not saved) and write
    and remove a test file in it; :class:`PlayError` saying why if it cannot."""
    if out is None:
        return None
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".write-check-", dir=path)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise PlayError(f"the records folder {str(out)[:200]!r} cannot be created or written "
                        f"({e.strerror or type(e).__name__}); give a writable folder "
                        f"(--records DIR)") from None
    return path


def _public_label(spec: str) -> str:
    """``spec`` as a person is shown it: file targets and path-valued parameters
    by their file names (no server folder), else as written."""
    if spec == R.HUMAN:
        return spec
    from solvers.registry import short_label
    return short_label(spec, limit=10**6)


class _AgentFailed(Exception):
    """An agent raised or returned no legal action (internal)."""


def _one_line(e: BaseException, limit: int = 200) -> str:
    text = f"{type(e).__name__}: {e}".strip().splitlines()[0]
    return text if len(text) <= limit else text[:limit] + "..."


def _seed(*words: int) -> int:
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0]
               & np.uint64(2**62 - 1))


def check_settings(agents, players, seat, seed, params) -> tuple[list[str], dict, Any]:
    """Check the settings of a play session (the app's and the widget's): agent
    specs, player count, the person's seat, the seed (None: a fresh secret
    key) and game parameters.

    Returns (agent specs, game parameters, loaded game); raises
    :class:`PlayError` naming the bad setting and what is allowed."""
    if isinstance(agents, str) or not isinstance(agents, Sequence) or not agents:
        raise PlayError(f"agents must be a non-empty list of agent specs, got {agents!r}")
    agents = [str(a) for a in agents]
    if any(a.strip() == R.HUMAN for a in agents):
        raise PlayError(f"{R.HUMAN!r} is the person's seat, not an agent spec")
    params = dict(params or {})
    if players is not None:
        params["players"] = players
    try:
        game = spiel_game.load(params)
    except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise PlayError(f"bad game parameters {params}: {e}") from None
    n = game.num_players()
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise PlayError(f"seat must be a seat of the {n}-player game (0..{n - 1}), got {seat!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 <= seed < _SEED_LIMIT):
        raise PlayError(f"seed must be 0 <= seed < 2**32, got {str(seed)[:40]!r} (or None: "
                        f"a fresh secret key)")
    from solvers.registry import AgentFactoryError, AgentSpecError, make_agent
    for spec in dict.fromkeys(agents):
        try:
            make_agent(spec, game, (seat + 1) % n, 0)
        except (AgentSpecError, AgentFactoryError) as e:
            raise PlayError(f"bad agent {spec!r}: {e}") from None
    return agents, params, game


class PlaySession:
    """One game: the person on ``seat``, agents ``agents`` cycled over the other
    seats (seat ``seat + 1`` gets ``agents[0]``, ...). :meth:`view` describes what
    the person sees; :meth:`move` applies their actions and lets the agents move
    until the person is to act again or the game is over; when it is over the
    record is written to ``out`` (if given). ``seed`` (the server's, or None: a
    fresh secret key) and ``number`` give the game its own seed
    (:func:`game_seed`), the only seed it records (``self.seed``). An agent
    that fails ends the game (``self.error``). Thread-safe (one lock per
    session)."""

    def __init__(self, agents: Sequence[str], params: Mapping[str, Any] | None = None, *,
                 seat: int = 0, seed: int | None = 0, number: int = 0,
                 out: str | Path | None = None, game_id: str | None = None,
                 players: int | None = None, _checked=None, _key: bytes | None = None):
        agents, params, game = _checked or check_settings(agents, players, seat, seed, params)
        from solvers.registry import make_agent
        self.id = game_id or secrets.token_hex(16)
        self.game, self.params, self.seat = game, params, int(seat)
        self.number = int(number)
        self.seed = game_seed(_key if _key is not None else _server_key(seed), self.number)
        self.out = None if out is None else Path(out)
        n = game.num_players()
        self.specs = [R.HUMAN if q == self.seat else agents[((q - self.seat - 1) % n) % len(agents)]
                      for q in range(n)]
        # what the person is shown: a file target or path parameter by its file name
        self.labels = [_public_label(sp) for sp in self.specs]
        self.seat_seeds = [None if q == self.seat else _seed(self.seed, 2, q) for q in range(n)]
        self.bots = []
        for q in range(n):
            if q == self.seat:
                self.bots.append(None)
                continue
            try:
                b = make_agent(self.specs[q], game, q, self.seat_seeds[q])
                b.restart()
            except Exception as e:                          # the agent's own code
                raise PlayError(f"agent {self.labels[q]!r} on seat {q} could not be built: "
                                f"{_one_line(e)}") from None
            self.bots.append(b)
        self._rng = np.random.default_rng([self.seed, 1])
        self.state = game.new_initial_state()
        self.seconds: list[float | None] = []
        self.recent: list[str] = []          # moves since the person's last move
        self.record: R.GameRecord | None = None
        self.record_path: Path | None = None   # server side only; the view names the file
        self.record_error: str | None = None
        self.error: str | None = None          # why the game ended early (a failing agent)
        self._lock = threading.Lock()
        self._since = time.perf_counter()
        self.last_used = time.monotonic()   # for the app's eviction of idle games
        self._advance()

    # ------------------------------------------------------------ the game
    def _apply(self, player: int, action: int, seconds: float | None) -> None:
        st = self.state
        if player >= 0:
            secret = (player != self.seat and not st.is_chance_node()
                      and int(st.engine_state[E.S_PHASE]) == E.PH_PASS)   # passes are private
            what = "passed a card" if secret else self._name(player, action)
            who = "you" if player == self.seat else self.labels[player]
            self.recent.append(f"P{player} ({who}): {what}")
            for q, b in enumerate(self.bots):
                if b is not None and q != player:
                    try:
                        b.inform_action(st, player, action)
                    except Exception as e:                  # the agent's own code
                        raise _AgentFailed(f"agent {self.labels[q]!r} on seat {q} failed in "
                                           f"inform_action: {_one_line(e)}") from None
        self.seconds.append(seconds)
        st.apply_action(int(action))

    def _name(self, player: int, action: int) -> str:
        if action == E.MOON_SUBTRACT_ACTION:
            return "moon: subtract from own score"
        if action == E.MOON_ADD_ACTION:
            return "moon: add to everyone else"
        if self.state.is_chance_node() or not 0 <= action < E.K:
            return self.state.action_to_string(player, action)
        return card_label(action)

    def _advance(self) -> None:
        """Chance and the agents move until the person is to act or the game ends
        (or an agent fails: then the game is ended with :meth:`_abort`)."""
        try:
            self._advance_unchecked()
        except _AgentFailed as e:
            self._abort(str(e))

    def _advance_unchecked(self) -> None:
        st = self.state
        while not st.is_terminal():
            if st.is_chance_node():
                acts, probs = zip(*st.chance_outcomes())
                self._apply(pyspiel.PlayerId.CHANCE,
                            int(acts[int(self._rng.choice(len(acts), p=np.asarray(probs)))]),
                            None)
                continue
            p = st.current_player()
            if p == self.seat:
                break
            legal = st.legal_actions()
            if len(legal) == 1:
                self._apply(p, legal[0], None)
                continue
            t0 = time.perf_counter()
            who = f"agent {self.labels[p]!r} on seat {p}"
            try:
                a = self.bots[p].step(st)
            except Exception as e:                          # the agent's own code
                raise _AgentFailed(f"{who} failed: {_one_line(e)}") from None
            dt = time.perf_counter() - t0
            if (isinstance(a, bool) or not isinstance(a, (int, np.integer))
                    or int(a) not in legal):
                raise _AgentFailed(f"{who} returned {str(a)[:40]}, not a legal action "
                                   f"(legal: {legal})")
            self._apply(p, int(a), dt)
        self._since = time.perf_counter()
        if st.is_terminal() and self.record is None:
            self._finish()

    def _info(self) -> dict:
        return {"source": "experiments.play", "game_id": self.id, "human_seat": self.seat,
                "game_number": self.number,
                "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}

    def _finish(self) -> None:
        seats = [{"agent": s, "seed": sd} for s, sd in zip(self.specs, self.seat_seeds)]
        self.record = R.record_from_state(self.state, seats, seed=self.seed,
                                          seconds=self.seconds, info=self._info())
        if self.out is not None:
            path = self.out / f"game-{self.id}.json"
            try:
                self.out.mkdir(parents=True, exist_ok=True)
                self.record_path = R.write_record(self.record, path)
            except (OSError, ValueError) as e:
                self._record_failed(path, e)

    def _record_failed(self, path: Path, e: BaseException) -> None:
        why = getattr(e, "strerror", None) or type(e).__name__
        self.record_error = (f"the record could not be saved ({why}); it is kept in the "
                             f"server's memory for this game")
        print(f"play: could not write {path}: {_one_line(e)}", file=sys.stderr, flush=True)

    def _abort(self, message: str) -> None:
        """End the game early (an agent failed): keep everything played, in
        ``game-<id>-aborted.json``."""
        self.error = f"{message}; this game has ended, start a new game"
        print(f"play: game {self.id}: {message}", file=sys.stderr, flush=True)
        if self.out is None:
            return
        doc = {"format": "cancellation-hearts-aborted-game", "version": 1,
               "game": dict(self.game.get_parameters()),
               "seats": [{"agent": s, "seed": sd} for s, sd in zip(self.specs, self.seat_seeds)],
               "seed": self.seed, "actions": [int(a) for a in self.state.history()],
               "seconds": list(self.seconds), "error": message, "info": self._info()}
        path = self.out / f"game-{self.id}-aborted.json"
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=self.out)
            try:
                with os.fdopen(fd, "w") as f:
                    json.dump(doc, f, allow_nan=False)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
            self.record_path = path
        except (OSError, ValueError) as e:
            self._record_failed(path, e)

    def _pass_left(self) -> int:
        """Cards the person still has to pass now (0 outside the passing phase)."""
        st = self.state
        P, s = st.engine_params, st.engine_state
        if st.is_terminal() or st.is_chance_node() or int(s[E.S_PHASE]) != E.PH_PASS:
            return 0
        pc = int(P[E.P_PASS])
        done = int(np.sum(E.pass_choices(P, s, self.seat)[:pc] >= 0))
        return pc - done

    def move(self, actions: Any) -> dict:
        """Apply the person's ``actions`` (a list of ints: one card or moon choice;
        while passing, every card still to pass) and let the others move; returns
        :meth:`view`. Raises :class:`PlayError` saying what is allowed."""
        with self._lock:
            try:
                return self._move(actions)
            except _AgentFailed as e:
                self._abort(str(e))
                return self._view()

    def _move(self, actions: Any) -> dict:
        st = self.state
        if self.error is not None:
            raise PlayError(self.error)
        if (not isinstance(actions, list) or not actions
                or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions)):
            raise PlayError(f"'actions' must be a non-empty list of integer actions, got "
                            f"{str(actions)[:80]}")
        if st.is_terminal():
            raise PlayError("the game is over; start a new game")
        if st.current_player() != self.seat:
            raise PlayError(f"it is not your turn (player {st.current_player()} is to move)")
        npass = self._pass_left()
        if npass:
            if len(actions) != npass:
                raise PlayError(f"choose {npass} card(s) to pass, got {len(actions)}")
            hand = E.hand(st.engine_params, st.engine_state, self.seat)
            want = np.bincount(actions, minlength=hand.size) if max(actions) < hand.size \
                and min(actions) >= 0 else None
            if want is None or np.any(want[:hand.size] > hand):
                names = [C.card_to_string(a) if 0 <= a < E.K else str(a) for a in actions]
                raise PlayError(f"you can pass only cards in your hand; you chose {names}")
        elif len(actions) != 1:
            raise PlayError(f"play one action at a time, got {len(actions)}")
        for k, a in enumerate(actions):
            if k:
                self._advance_unchecked()    # others may pass between your cards
                if st.is_terminal() or st.current_player() != self.seat:
                    raise PlayError("the game moved on before all your passes were applied")
            legal = st.legal_actions()
            if a not in legal:
                what = self._name(self.seat, a) if 0 <= a <= E.MOON_ADD_ACTION else a
                names = [self._name(self.seat, x) for x in legal]
                raise PlayError(f"{what} is not legal now; legal: {names}")
            if k == 0:
                self.recent = []
            self._apply(self.seat, a, time.perf_counter() - self._since)
            self._since = time.perf_counter()
        self._advance_unchecked()
        return self._view()

    # ------------------------------------------------------------ what the page shows
    def view(self) -> dict:
        """What the person sees: ``html`` (the table from their seat), ``phase``,
        ``your_turn``, ``legal`` (``[{"action", "card", "label"}]``), ``pass_count``
        (cards to choose now), ``hand`` (your cards, one action per copy), ``moon``
        (the moon choices offered), ``recent`` (moves since your last one),
        ``error`` (why the game ended early, else None), and at the end
        ``returns``, ``replay_html``, ``record`` (the record's file name, no folder)
        and ``record_error`` (None when it was saved)."""
        with self._lock:
            return self._view()

    def _view(self) -> dict:
        st = self.state
        over = st.is_terminal() or self.error is not None
        ph = int(st.engine_state[E.S_PHASE])
        phase = {E.PH_PASS: "pass", E.PH_PLAY: "play", E.PH_MOON: "moon", E.PH_OVER: "over",
                 E.PH_DEAL: "deal"}[ph]
        mine = not over and st.current_player() == self.seat
        to_move = None if over else int(st.current_player())
        legal = st.legal_actions() if mine else []
        v = {"id": self.id, "seat": self.seat, "players": self.game.num_players(),
             "agents": list(self.labels), "phase": phase, "over": over, "your_turn": mine,
             "to_move": to_move, "error": self.error,
             "legal": [{"action": a, "card": C.card_to_string(a), "label": card_label(a)}
                       for a in legal if a < E.K],
             "moon": [{"action": a, "label": self._name(self.seat, a)}
                      for a in legal if a >= E.K],
             "pass_count": self._pass_left() if mine else 0,
             "hand": [int(c) for c in np.repeat(
                 np.arange(E.K), E.hand(st.engine_params, st.engine_state, self.seat))],
             "recent": list(self.recent),
             "html": state_to_html(st, viewer=None if st.is_terminal() else self.seat)}
        if over:
            if st.is_terminal():
                v["returns"] = [float(x) for x in st.returns()]
                v["replay_html"] = hand_replay_html(st)
            v["record"] = self.record_path.name if self.record_path else None
            v["record_error"] = self.record_error
        return v


# ------------------------------------------------------------------ the web app
_ID = re.compile(r"^[0-9a-f]{32}$")

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cancellation Hearts</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1em; }
#controls { margin: .6em 0; min-height: 2.4em; }
#message { color: #a00; margin: .3em 0; min-height: 1.2em; }
#recent { color: #444; font-size: 90%; }
.ch-card.ch-legal { cursor: pointer; outline: 2px solid #2a7; }
.ch-card.ch-selected { background: #ffd54f; transform: translateY(-4px); }
button { font-size: 100%; margin-right: .5em; }
</style></head>
<body data-game="__GAME__">
<h1>Cancellation Hearts</h1>
<div id="status"></div>
<div id="controls"></div>
<div id="message" role="alert"></div>
<div id="table"></div>
<div id="recent"></div>
<div id="replay"></div>
<p><button type="button" id="new-game">New game</button></p>
<script>
const GAME = document.body.dataset.game;
let view = null, selected = [];
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
async function call(method, path, body) {
  const r = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
                              body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}
async function send(actions) {
  document.getElementById("message").textContent = "";
  document.body.dataset.busy = "true";
  try { show(await call("POST", "/api/game/" + GAME + "/move", {actions: actions})); }
  catch (e) { document.getElementById("message").textContent = e.message; }
  finally { document.body.dataset.busy = "false"; }
}
function show(v) {
  view = v; selected = [];
  document.getElementById("table").innerHTML = v.html;
  const status = document.getElementById("status");
  const controls = document.getElementById("controls");
  controls.replaceChildren();
  document.getElementById("recent").textContent =
    v.recent.length ? "Since your last move: " + v.recent.join("; ") : "";
  document.body.dataset.phase = v.phase;
  document.body.dataset.over = String(v.over);
  if (v.error) {
    status.textContent = "This game ended early: " + v.error;
    if (v.record) controls.append(el("span", {id: "record"}, "Saved as " + v.record));
    return;
  }
  if (v.over) {
    status.textContent = "Game over. Your result: " + v.returns[v.seat] +
      " (returns " + v.returns.join(", ") + ")";
    if (v.record_error) document.getElementById("message").textContent = v.record_error;
    document.getElementById("replay").innerHTML = v.replay_html;
    if (v.record) controls.append(el("span", {id: "record"}, "Saved as " + v.record));
    return;
  }
  if (!v.your_turn) { status.textContent = "Waiting for P" + v.to_move; return; }
  if (v.moon.length) {
    status.textContent = "You shot the moon: choose";
    for (const m of v.moon) {
      const b = el("button", {"class": "moon-choice", "data-action": m.action}, m.label);
      b.onclick = () => send([m.action]);
      controls.append(b);
    }
    return;
  }
  const legal = new Set(v.legal.map(x => x.card));
  const byCard = {}; for (const x of v.legal) byCard[x.card] = x.action;
  const hand = document.querySelectorAll(
    '#table .ch-hand[data-seat="' + v.seat + '"] .ch-card');
  if (v.pass_count > 0) {
    status.textContent = "You are P" + v.seat + ": choose " + v.pass_count +
      " card(s) to pass, then press Pass";
    const button = el("button", {id: "pass-button", disabled: ""}, "Pass");
    button.onclick = () => send(selected.map(e => byCard[e.dataset.card]));
    controls.append(button);
    hand.forEach(e => {
      if (!legal.has(e.dataset.card)) return;
      e.classList.add("ch-legal");
      e.onclick = () => {
        const i = selected.indexOf(e);
        if (i >= 0) { selected.splice(i, 1); e.classList.remove("ch-selected"); }
        else if (selected.length < v.pass_count) {
          selected.push(e); e.classList.add("ch-selected");
        }
        button.disabled = selected.length !== v.pass_count;
      };
    });
  } else {
    status.textContent = "You are P" + v.seat + ": play a card";
    hand.forEach(e => {
      if (!legal.has(e.dataset.card)) return;
      e.classList.add("ch-legal");
      e.onclick = () => send([byCard[e.dataset.card]]);
    });
  }
}
async function newGame() {
  try { location.href = (await call("POST", "/api/new", {})).url; }
  catch (e) { document.getElementById("message").textContent = e.message; }
}
document.getElementById("new-game").onclick = newGame;
if (GAME) call("GET", "/api/game/" + GAME).then(show).catch(
  e => { document.getElementById("message").textContent = e.message; });
else document.getElementById("status").textContent = "Press New game to start.";
</script>
</body></html>
"""


def create_app(agents: Sequence[str], players: int | None = None, seat: int = 0,
               seed: int | None = None, params: Mapping[str, Any] | None = None,
               out: str | Path | None = DEFAULT_RECORDS, *, max_games: int = MAX_GAMES,
               idle_seconds: float = IDLE_SECONDS):
    """The Flask app: ``GET /`` (or ``/new``) is the start page, ``POST /api/new``
    starts a game (``{"id", "url"}``), ``/game/<id>`` is its page; the JSON API
    is described in the module docstring. ``agents``: agent specs cycled over the
    seats other than ``seat``; ``players`` overrides ``params["players"]``;
    ``seed``: the server seed (None: a fresh secret key; the seed, or None, is in
    ``config["PLAY_SEED"]``, the key only in the app's closure);
    ``out``: folder for the finished games' records (None: not saved; created
    and checked now, :func:`check_records_folder`);
    ``max_games``: games held at once; ``idle_seconds``: how long a game must be
    untouched before a new one may evict it. Settings are checked first
    (:class:`PlayError`). Debug mode is off whatever ``FLASK_DEBUG`` says. The
    app's ``config["PLAY_SESSIONS"]`` maps game ids to :class:`PlaySession`."""
    from spiel_game.extras import require
    require("flask", "play", "the browser play app")
    from flask import Flask, abort, jsonify, request
    from werkzeug.exceptions import HTTPException
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
        raise PlayError(f"max_games must be an integer >= 1, got {str(max_games)[:40]!r}")
    if (isinstance(idle_seconds, bool) or not isinstance(idle_seconds, (int, float))
            or not idle_seconds >= 0 or idle_seconds == float("inf")):
        raise PlayError(f"idle_seconds must be a number of seconds >= 0, got "
                        f"{str(idle_seconds)[:40]!r}")
    checked = check_settings(agents, players, seat, seed, params)
    check_records_folder(out)
    key = _server_key(seed)

    class PlayFlask(Flask):
        """Flask whose ``run`` never turns on the debugger or the reloader (Flask's
        own ``run`` reads ``FLASK_DEBUG`` from the environment)."""

        def run(self, host=None, port=None, debug=None, load_dotenv=False, **options):
            if debug:
                raise PlayError("the play app never runs in debug mode (Werkzeug's debugger "
                                "would serve a Python console)")
            options.update(use_reloader=False, use_debugger=False, use_evalex=False)
            self.debug = False
            return super().run(host, port, debug=False, load_dotenv=False, **options)

    app = PlayFlask(__name__)
    app.debug = False                   # FLASK_DEBUG must never turn on the debugger
    app.config.update(DEBUG=False, TESTING=False, PROPAGATE_EXCEPTIONS=False,
                      MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
                      PLAY_SEED=None if seed is None else int(seed))
    sessions: dict[str, PlaySession] = {}
    app.config["PLAY_SESSIONS"] = sessions
    counter = {"next": 0}
    lock = threading.Lock()

    def new_session() -> PlaySession:
        with lock:
            now = time.monotonic()
            for gid, old in list(sessions.items()):
                if (len(sessions) >= max_games and now - old.last_used > idle_seconds
                        and not old._lock.locked()):
                    del sessions[gid]
            if len(sessions) >= max_games:
                abort(503, description=f"the server holds {len(sessions)} games, none idle "
                                       f"for {idle_seconds:g} s; try again later")
            number = counter["next"]
            counter["next"] += 1
            s = PlaySession(checked[0], checked[1], seat=seat, number=number,
                            out=out, _checked=checked, _key=key)
            sessions[s.id] = s
        return s

    def session(game_id: str) -> PlaySession:
        s = sessions.get(game_id) if _ID.match(game_id) else None
        if s is None:
            abort(404, description=f"no game {game_id[:40]!r} on this server; start one at /")
        s.last_used = time.monotonic()
        return s

    def json_body(allowed: set[str]) -> dict:
        """The request's JSON object with exactly the keys ``allowed`` (PlayError else)."""
        want = "{" + ", ".join(f'"{k}": ...' for k in sorted(allowed)) + "}"
        if request.mimetype != "application/json":
            raise PlayError(f"send {want} as Content-Type application/json, got "
                            f"{request.mimetype[:60]!r}")
        try:
            body = json.loads(request.get_data(cache=False, as_text=False) or b"null")
        except (ValueError, RecursionError):
            raise PlayError(f"the body is not JSON; send {want}") from None
        if not isinstance(body, dict) or set(body) != allowed:
            raise PlayError(f"send a JSON object {want}")
        return body

    @app.errorhandler(HTTPException)
    def http_error(e):
        return jsonify(error=e.description), e.code

    @app.errorhandler(PlayError)
    def bad_move(e):
        return jsonify(error=str(e)), 400

    @app.get("/")
    @app.get("/new")
    def start():
        return _PAGE.replace("__GAME__", "")

    @app.post("/api/new")
    def api_new():
        json_body(set())
        app.config["PLAY_LAST"] = s = new_session()
        return jsonify(id=s.id, url=f"/game/{s.id}"), 201

    @app.get("/game/<game_id>")
    def page(game_id):
        session(game_id)
        return _PAGE.replace("__GAME__", game_id)

    @app.get("/api/game/<game_id>")
    def api_view(game_id):
        return jsonify(session(game_id).view())

    @app.post("/api/game/<game_id>/move")
    def api_move(game_id):
        s = session(game_id)
        return jsonify(s.move(json_body({"actions"})["actions"]))

    @app.get("/api/game/<game_id>/record")
    def api_record(game_id):
        s = session(game_id)
        if s.record is None:
            raise PlayError("the game is not over yet: a record is written at the end")
        d = s.record.to_dict()           # agents by their labels: no server folder
        d["seats"] = [dict(seat, agent=lab) for seat, lab in zip(d["seats"], s.labels)]
        return jsonify(d)

    return app


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a port number; allowed: an "
                                         f"integer 1..65535") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port; allowed: 1..65535")
    return port


def _seed_arg(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        seed = None
    if seed is None or not 0 <= seed < _SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"seed must be 0 <= seed < 2**32, got {text[:40]!r}")
    return seed


def _positive(kind):
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not v > 0 or v == float("inf"):
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: allowed: a number > 0")
        return v
    return parse


def main(argv=None) -> int:
    """``python -m experiments.play``: start the app and serve it until Ctrl-C."""
    ap = argparse.ArgumentParser(prog="python -m experiments.play",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", nargs="+", required=True,
                    help="agent specs for the other seats (solvers.registry), cycled")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    ap.add_argument("--seed", type=_seed_arg, default=None,
                    help="server seed, 0 <= seed < 2**32, for the same deals on every "
                         "server started with it (default: a fresh secret key, never shown "
                         "or stored)")
    ap.add_argument("--game", default="{}", help='other game parameters as JSON, e.g. '
                                                 '\'{"moon": "choose"}\'')
    ap.add_argument("--records", default=str(DEFAULT_RECORDS),
                    help=f"folder for the finished games' records (default {DEFAULT_RECORDS})")
    ap.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=_port, default=8000, help="1..65535 (default 8000)")
    ap.add_argument("--max-games", type=_positive(int), default=MAX_GAMES,
                    help=f"games held at once (default {MAX_GAMES})")
    ap.add_argument("--idle-minutes", type=_positive(float), default=IDLE_SECONDS / 60,
                    help=f"a game idle this long may be evicted for a new one (default "
                         f"{IDLE_SECONDS / 60:g})")
    args = ap.parse_args(argv)
    try:
        params = json.loads(args.game)
    except (json.JSONDecodeError, RecursionError) as e:
        ap.error(f"--game is not JSON: {str(e)[:200]}")
    if not isinstance(params, dict):
        ap.error(f"--game must be a JSON object, got {args.game[:200]}")
    seed = args.seed
    try:
        app = create_app(args.agents, args.players, args.seat, seed, params, args.records,
                         max_games=args.max_games, idle_seconds=args.idle_minutes * 60)
    except (PlayError, MissingExtra) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Cancellation Hearts: open http://{args.host}:{args.port}/ (Ctrl-C stops); "
          + ("deals from a fresh secret key, never shown or stored (--seed S makes them "
             "reproducible)" if seed is None else f"deals from --seed {seed}"), flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}: anyone who can reach this address can "
              f"start games, and anyone with a game's address plays its seat (no accounts, "
              f"no HTTPS; see 'Deploying for a human study' in python -m pydoc "
              f"experiments.play)", file=sys.stderr, flush=True)
    app.run(host=args.host, port=args.port, threaded=True, debug=False, use_reloader=False,
            use_debugger=False, use_evalex=False, load_dotenv=False)
    return 0

