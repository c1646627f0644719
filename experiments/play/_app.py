"""Play Cancellation Hearts in the browser: one seat for a person, the others for agents::

    python -m experiments play --agents heuristic "ismcts(iterations=2000)" --players 6
    python -m experiments.play --agents heuristic --players 6 [--seat 0] [--seed 0]
        [--port 8000] [--host 127.0.0.1] [--records DIR] [--game '{"moon": "choose"}']

starts a local Flask app (http://127.0.0.1:8000/): its start page has a "New
game" button. Every new game gets its own id and lives on the server
(:class:`~experiments.play._session.PlaySession`); the page shows the table
with :func:`spiel_game._render.state_to_html` as the person's seat sees it
(other hands face down), the current trick with cancelled cards struck
through, and the person's legal cards as buttons: while passing, choose the
cards to pass and submit them; when you shot the moon under ``moon="choose"``,
choose subtract or add. Agents (any spec of :mod:`solvers._registry`, cycled
over the other seats) move on the server until the person is to act. At the
end the page shows the trick-by-trick replay
(:func:`spiel_game._render.hand_replay_html`) and the game is saved as a record
(:mod:`spiel_game.records`) in ``--records`` (default ``results/play``), one
``game-<id>.json`` per finished game; the view names the file, never the
server's folder. The records folder is created and a test file written in it
when the app starts (:class:`~experiments.play._session.PlayError` if it cannot
be). An agent that raises or returns no legal action ends its game: the view's
``error`` says which agent failed and how, every later move is refused, and
everything played is saved as ``game-<id>-aborted.json`` (the game, seats,
seed, actions so far, thinking times and the error). A record that cannot be
written is kept in memory (``/record`` still serves it) and the view's
``record_error`` says so.

**Seeds.** The server holds a secret key that never leaves the process (not
printed, stored, or sent): without ``--seed`` 256 random bits drawn when it
starts; with ``--seed S`` derived from ``S`` by scrypt (so that every server
started with ``S`` deals the same games). Game number ``g`` gets its own seed,
``HMAC-SHA256(key, "game g")`` (62 bits,
:func:`~experiments.play._seeds.game_seed`): its chance outcomes come from
``numpy.random.default_rng([game_seed, 1])`` and seat ``q``'s agent is seeded
from ``SeedSequence([game_seed, 2, q])``, so the same clicks replay the same
game. Records hold only the game's own seed, from which neither the key nor
another game's deal can be computed.

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
import json
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from spiel_game._checks import check_seed
from spiel_game._extras import MissingExtra

from ._page import PAGE
from ._seeds import SEED_BITS, server_key
from ._session import DEFAULT_RECORDS, PlayError, PlaySession, check_records_folder, check_settings

__all__ = ["create_app", "main", "MAX_BODY_BYTES", "MAX_GAMES", "IDLE_SECONDS"]

#: The longest request body the app reads (a move is a few dozen bytes).
MAX_BODY_BYTES = 16 * 1024
#: Default cap on games held at once, and seconds after which an idle one may be evicted.
MAX_GAMES, IDLE_SECONDS = 100, 3600.0
_ID = re.compile(r"^[0-9a-f]{32}$")


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
    and checked now, :func:`~experiments.play._session.check_records_folder`);
    ``max_games``: games held at once; ``idle_seconds``: how long a game must be
    untouched before a new one may evict it. Settings are checked first
    (:class:`~experiments.play._session.PlayError`). Debug mode is off whatever
    ``FLASK_DEBUG`` says. The app's ``config["PLAY_SESSIONS"]`` maps game ids
    to :class:`~experiments.play._session.PlaySession`."""
    from spiel_game._extras import require
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
    key = server_key(seed)

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
        return PAGE.replace("__GAME__", "")

    @app.post("/api/new")
    def api_new():
        json_body(set())
        app.config["PLAY_LAST"] = s = new_session()
        return jsonify(id=s.id, url=f"/game/{s.id}"), 201

    @app.get("/game/<game_id>")
    def page(game_id):
        session(game_id)
        return PAGE.replace("__GAME__", game_id)

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
        seed = text
    return check_seed(seed, where="seed", bits=SEED_BITS, error=argparse.ArgumentTypeError)


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
                    help="agent specs for the other seats (solvers._registry), cycled")
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

