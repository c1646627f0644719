"""A game of the play app (:mod:`experiments.play._app`) and of the widget
(:mod:`experiments.play.widget`): the settings' checks (:func:`check_settings`,
:func:`check_records_folder`) and :class:`PlaySession`, which holds one game on
the server, lets the agents move, shows the person their seat's view and
writes the finished (or aborted) game's record."""

from __future__ import annotations

import datetime as _dt
import json
import os
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
from spiel_game import _engine as E
from spiel_game import records as R
from spiel_game._checks import check_seed
from spiel_game._render import card_label, hand_replay_html, state_to_html

from ._seeds import SEED_BITS, game_seed, seat_seed, server_key

__all__ = ["DEFAULT_RECORDS", "PlayError", "PlaySession", "check_settings",
           "check_records_folder"]

DEFAULT_RECORDS = Path("results") / "play"


class PlayError(ValueError):
    """Bad play-app settings or a move that is not allowed; the message says what is."""


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
    from solvers._registry import short_label
    return short_label(spec, limit=10**6)


class _AgentFailed(Exception):
    """An agent raised or returned no legal action (internal)."""


def _one_line(e: BaseException, limit: int = 200) -> str:
    text = f"{type(e).__name__}: {e}".strip().splitlines()[0]
    return text if len(text) <= limit else text[:limit] + "..."


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
    if seed is not None:
        check_seed(seed, where="seed", bits=SEED_BITS, error=PlayError)
    from solvers._registry import AgentFactoryError, AgentSpecError, make_agent
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
    (:func:`~experiments.play._seeds.game_seed`), the only seed it records
    (``self.seed``). An agent that fails ends the game (``self.error``).
    Thread-safe (one lock per session)."""

    def __init__(self, agents: Sequence[str], params: Mapping[str, Any] | None = None, *,
                 seat: int = 0, seed: int | None = 0, number: int = 0,
                 out: str | Path | None = None, game_id: str | None = None,
                 players: int | None = None, _checked=None, _key: bytes | None = None):
        agents, params, game = _checked or check_settings(agents, players, seat, seed, params)
        from solvers._registry import make_agent
        self.id = game_id or secrets.token_hex(16)
        self.game, self.params, self.seat = game, params, int(seat)
        self.number = int(number)
        self.seed = game_seed(_key if _key is not None else server_key(seed), self.number)
        self.out = None if out is None else Path(out)
        n = game.num_players()
        self.specs = [R.HUMAN if q == self.seat else agents[((q - self.seat - 1) % n) % len(agents)]
                      for q in range(n)]
        # what the person is shown: a file target or path parameter by its file name
        self.labels = [_public_label(sp) for sp in self.specs]
        self.seat_seeds = [None if q == self.seat else seat_seed(self.seed, 2, q) for q in range(n)]
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

