"""xinxin, Nathan Sturtevant's Hearts program, as an agent of the classic game.

xinxin (https://github.com/nathansttt/hearts, GPL v3) is the PIMC + UCT
Hearts program that OpenSpiel wraps as a bot; its sources are not part of
this repository. The agent ``xinxin`` (:class:`XinxinBot`) plays it in the
classic 4-player game (``spiel_game.load("classic")``, which equals
OpenSpiel's ``hearts`` card for card), with or without the 3-card pass.

**Build** (once, in a source checkout of this project; needs a C++14 compiler)::

    git clone https://github.com/nathansttt/hearts /path/to/hearts
    make xinxin XINXIN_SRC=/path/to/hearts

This compiles our driver (``solvers/xinxin/driver.cc``, its line protocol is
described there) together with xinxin's sources into
``build/xinxin/xinxin_driver`` (git-ignored: the binary links GPL code) and
copies it into the user's cache folder (:data:`DEFAULT_BINARY`:
``~/.cache/cancellation-hearts/xinxin/xinxin_driver``, under
``$XDG_CACHE_HOME`` when that is set), where an installed copy of the package
finds it too. The agent looks for the binary at ``binary=`` (a path,
or an argument list), then at ``$XINXIN_BINARY``, then at
:data:`DEFAULT_BINARY`; without one, building the agent raises
:class:`XinxinNotBuilt` naming the build command.

**Setting.** ``simulations`` UCT simulations per decision, split evenly over
``worlds`` worlds sampled from the seat's information set (``simulations //
worlds`` per world), UCT constant ``uct_c`` and playout epsilon ``epsilon``.
The defaults, 10,000 simulations over 30 worlds, ``uct_c=0.4``,
``epsilon=0.1``, are xinxin's own standard player (player type 0 of its
``main.cpp``). OpenSpiel's ``make_xinxin_bot`` defaults differ: 50 runs per
world over 20 worlds, no playout epsilon, i.e.
``xinxin(simulations=1000, worlds=20, epsilon=0.0)``. Either way xinxin
uses its "model level 2" world sampler and plays its passes by the same
search, one card at a time, like OpenSpiel's bot.

**How it is driven.** One driver process per agent, started on its first
move. At every move the agent replays to the driver every action of the game
it has not seen yet (the deal, then every pass and play, from
``state.full_history()``), so it needs no ``inform_action`` calls and works in
our tournaments and in ``pyspiel.evaluate_bots`` alike. Like OpenSpiel's bot,
the driver is given the whole deal (xinxin's game state is a full deal); its
search samples worlds from the seat's information set and does not read the
other hands. At every decision the agent checks that xinxin's legal moves
equal ours (:class:`XinxinMismatch` naming the difference otherwise) and
that its move is legal. ``check_points(state)`` compares xinxin's points
with ours at the end of a deal.

**Randomness.** Each deal's driver seed (32 bits) is drawn from
``numpy.random.SeedSequence([seed, k])`` for the agent's ``k``-th deal; the
driver seeds from it every random stream of xinxin that it can reach (the
UCT and world-sampling generators, the per-game seed, ``random()``), so a
game is reproducible from the seed.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from spiel_game import cards as C

from ..bots import Agent, AgentParameterError, check_int, check_real

__all__ = ["XinxinBot", "XinxinError", "XinxinMismatch", "XinxinNotBuilt", "find_binary",
           "DriverProcess", "BUILD_COMMAND", "DEFAULT_BINARY", "BINARY_ENV", "GREETING",
           "pass_direction"]

#: The first line the driver writes (protocol name and version).
GREETING = "xinxin-driver 1"
#: Where the agent looks for the driver without ``binary=`` or ``$XINXIN_BINARY``: the
#: user's cache folder, where ``make xinxin`` copies it.
DEFAULT_BINARY = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                  / "cancellation-hearts" / "xinxin" / "xinxin_driver")
#: Environment variable naming the driver binary.
BINARY_ENV = "XINXIN_BINARY"
#: How to build the driver (in a source checkout of this project).
BUILD_COMMAND = ("git clone https://github.com/nathansttt/hearts /path/to/hearts && "
                 "make xinxin XINXIN_SRC=/path/to/hearts")

_PLAYERS, _HAND, _DECK = 4, 13, 52
_PASS_NAMES = {0: "hold", 1: "left", 2: "across", 3: "right"}
# The rule fields that must equal the classic preset's (passing may differ).
_FREE_FIELDS = {"pass_count", "pass_offset", "params"}


class XinxinError(RuntimeError):
    """The driver failed, refused a command or disagrees with our game."""


class XinxinMismatch(XinxinError):
    """xinxin's legal moves (or points) differ from ours."""


class XinxinNotBuilt(FileNotFoundError):
    """No driver binary: the message names where it was looked for and how to build it."""


def find_binary(binary: str | os.PathLike | Sequence[str] | None = None) -> list[str]:
    """The driver's command line: ``binary`` (a path, or an argument list used as
    given), else ``$XINXIN_BINARY``, else :data:`DEFAULT_BINARY`.

    Raises :class:`XinxinNotBuilt` if the executable is missing.
    """
    if binary is not None and not isinstance(binary, (str, os.PathLike)):
        argv = list(binary)
        if not argv or not all(isinstance(a, (str, os.PathLike)) for a in argv):
            raise AgentParameterError(f"xinxin: binary={binary!r} is not allowed; allowed: a "
                                      f"path or a non-empty list of strings")
        argv = [os.fspath(a) for a in argv]
        path, where = Path(argv[0]), "binary="
    else:
        if binary is not None:
            path, where = Path(binary), "binary="
        elif os.environ.get(BINARY_ENV):
            path, where = Path(os.environ[BINARY_ENV]), f"${BINARY_ENV}"
        else:
            path, where = DEFAULT_BINARY, "the default location"
        argv = [os.fspath(path)]
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise XinxinNotBuilt(
            f"xinxin: no driver executable at {path} ({where}); build it in a source "
            f"checkout of cancellation-hearts with `{BUILD_COMMAND}` (it copies the driver to "
            f"{DEFAULT_BINARY}; see docs/xinxin.md), or name it with binary=... or "
            f"${BINARY_ENV}")
    return argv


def pass_direction(rules) -> str:
    """xinxin's pass direction for a classic rule set: ``hold`` (no passing),
    ``left`` (seat s passes to s + 1), ``across`` or ``right``."""
    if rules.pass_count == 0:
        return "hold"
    return _PASS_NAMES[rules.pass_offset % _PLAYERS]


def _check_classic(game) -> None:
    from spiel_game import load
    classic = load("classic").rules
    rules = game.rules
    diff = [f.name for f in dataclasses.fields(rules)
            if f.name not in _FREE_FIELDS and getattr(rules, f.name) != getattr(classic, f.name)]
    if diff:
        raise AgentParameterError(
            f"xinxin: plays only the classic game (spiel_game.load('classic'), optionally "
            f"with pass_count=0 or another pass_offset); this game differs in "
            f"{', '.join(diff)}")
    if rules.pass_count not in (0, 3):
        raise AgentParameterError(f"xinxin: pass_count={rules.pass_count} is not allowed; "
                                  f"allowed: 0 or 3 (xinxin passes 3 cards)")


def _cards(text: str) -> list[int]:
    return sorted(C.string_to_card(t) for t in text.split(",")) if text else []


def _names(cards) -> str:
    return ",".join(C.card_to_string(int(c)) for c in cards)


class DriverProcess:
    """One driver process speaking the line protocol (see ``driver.cc``).

    ``ask(line)`` sends one command and returns the reply; a reply starting
    with ``error``, a dead process or a reply that is not one line raises
    :class:`XinxinError` with the driver's stderr tail. ``transcript``, if a
    list, gets ``(command, reply)`` appended for every exchange (the greeting
    as ``(None, greeting)``).
    """

    def __init__(self, argv: Sequence[str], transcript: list | None = None):
        self.argv = list(argv)
        self.transcript = transcript
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr,
                                          text=True, bufsize=1)
        except OSError as e:
            self._stderr.close()
            raise XinxinError(f"xinxin: could not start the driver {self.argv}: {e}") from e
        self._finalizer = weakref.finalize(self, _shutdown, self._proc, self._stderr)
        greeting = self._read(None)
        if greeting != GREETING:
            self.close()
            raise XinxinError(f"xinxin: {self.argv[0]} is not a xinxin driver of this version: "
                              f"it said {greeting!r}, expected {GREETING!r}")

    def _tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr ends: {text[-1500:]!r}" if text else ""

    def _read(self, command: str | None) -> str:
        line = self._proc.stdout.readline()
        if not line.endswith("\n"):
            code = self._proc.poll()
            if code is None:
                try:
                    code = self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = "still running"
            raise XinxinError(f"xinxin: the driver {self.argv[0]} stopped answering "
                              f"(after {command!r}; exit code {code}){self._tail()}")
        reply = line.rstrip("\n")
        if self.transcript is not None:
            self.transcript.append((command, reply))
        return reply

    def ask(self, command: str) -> str:
        """Send ``command`` (one line) and return the driver's one-line reply."""
        if self._proc.poll() is not None:
            raise XinxinError(f"xinxin: the driver {self.argv[0]} has exited "
                              f"(code {self._proc.returncode}){self._tail()}")
        try:
            self._proc.stdin.write(command + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise XinxinError(f"xinxin: could not send {command!r} to the driver: "
                              f"{e}{self._tail()}") from e
        reply = self._read(command)
        if reply.startswith("error"):
            raise XinxinError(f"xinxin: the driver refused {command[:200]!r}: {reply}")
        return reply

    def close(self) -> None:
        """Stop the process (``quit``, then kill after 5 seconds)."""
        self._finalizer()


def _shutdown(proc, stderr) -> None:
    try:
        if proc.poll() is None:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass
    finally:
        stderr.close()


class XinxinBot(Agent):
    """xinxin on one seat of the classic game (see the module docstring).

    Parameters (keyword-only, checked when built):

    * ``binary``: the driver (a path or an argument list); default
      ``$XINXIN_BINARY`` or ``build/xinxin/xinxin_driver``.
    * ``simulations`` (1..10**8, default 10,000): UCT simulations per decision,
      at least ``worlds``.
    * ``worlds`` (1..1000, default 30): worlds sampled per decision.
    * ``uct_c`` (0..100, default 0.4): UCT exploration constant.
    * ``epsilon`` (0..1, default 0.1): probability of a random move in a playout.

    ``transcript`` (a list) receives every protocol exchange (for tests).
    """

    NAME = "xinxin"

    def __init__(self, game, player: int, seed: int = 0, *,
                 binary: str | Sequence[str] | None = None, simulations: int = 10_000,
                 worlds: int = 30, uct_c: float = 0.4, epsilon: float = 0.1,
                 transcript: list | None = None):
        super().__init__(game, player, seed)
        a = self.NAME
        _check_classic(game)
        self.worlds = check_int(a, "worlds", worlds, 1, 1000)
        self.simulations = check_int(a, "simulations", simulations, self.worlds, 10**8)
        self.uct_c = check_real(a, "uct_c", uct_c, 0.0, 100.0)
        self.epsilon = check_real(a, "epsilon", epsilon, 0.0, 1.0)
        if transcript is not None and not isinstance(transcript, list):
            raise AgentParameterError(f"xinxin: transcript must be a list, got "
                                      f"{type(transcript).__name__}")
        self.transcript = transcript
        self.argv = find_binary(binary)
        self.pass_dir = pass_direction(game.rules)
        self._driver: DriverProcess | None = None
        self._deals = 0               # deals started (the k of the seed)
        self._fed: list[int] = []     # actions the driver has seen (deal included)

    # ------------------------------------------------------------------ driver
    def _ask(self, command: str) -> str:
        if self._driver is None:
            self._driver = DriverProcess(self.argv, self.transcript)
            self._driver.ask(f"config {self.simulations} {self.worlds} {self.uct_c!r} "
                             f"{self.epsilon!r}")
        return self._driver.ask(command)

    def close(self) -> None:
        """Stop the driver process (also done when the agent is garbage-collected)."""
        if self._driver is not None:
            self._driver.close()
            self._driver = None
        self._fed = []

    def _deal_seed(self) -> int:
        return int(np.random.SeedSequence([self.seed, self._deals]).generate_state(1)[0])

    def sync(self, state) -> None:
        """Bring the driver to ``state``: start a new deal if ``state`` is not a
        continuation of what it has seen, then send the actions it has not seen."""
        history = state.full_history()
        actions = [int(pa.action) for pa in history]
        if len(actions) < _DECK:
            raise XinxinError(f"xinxin: the deal is not complete ({len(actions)} of "
                              f"{_DECK} cards dealt)")
        if self._fed[:_DECK] != actions[:_DECK] or actions[:len(self._fed)] != self._fed:
            hands = [[actions[i] for i in range(seat, _DECK, _PLAYERS)]
                     for seat in range(_PLAYERS)]
            seed = self._deal_seed()
            self._fed = []
            self._ask(f"new {seed} {self.pass_dir} " + " ".join(_names(sorted(h)) for h in hands))
            self._deals += 1
            self._fed = actions[:_DECK]
        for pa in history[len(self._fed):]:
            player = int(pa.player)
            if player < 0 or player >= _PLAYERS:
                raise XinxinError(f"xinxin: unexpected action {pa.action} by player {player} "
                                  f"after the deal (history {actions})")
            try:
                self._ask(f"play {player} {C.card_to_string(int(pa.action))}")
            except XinxinError as e:
                raise XinxinMismatch(f"{e} (our history: {actions})") from None
            self._fed.append(int(pa.action))

    # ---------------------------------------------------------------- the agent
    def _policy_and_action(self, state):
        if state.current_player() != self.player:
            raise XinxinError(f"xinxin: asked to move for seat {state.current_player()}, "
                              f"but it plays seat {self.player}")
        self.sync(state)
        reply = self._ask("move").split()
        if len(reply) != 4 or reply[0] != "move" or reply[2] != "legal":
            raise XinxinError(f"xinxin: malformed reply to 'move': {' '.join(reply)!r}; "
                              f"expected 'move <card> legal <cards>'")
        action = C.string_to_card(reply[1])
        theirs = set(_cards(reply[3]))
        ours = set(int(a) for a in state.legal_actions())
        if theirs != ours:
            raise XinxinMismatch(
                f"xinxin: legal moves differ for seat {self.player}: only ours "
                f"{_names(sorted(ours - theirs)) or '-'}, only xinxin's "
                f"{_names(sorted(theirs - ours)) or '-'} (history {state.history()})")
        if action not in ours:
            raise XinxinMismatch(f"xinxin chose {reply[1]}, not legal here (legal "
                                 f"{_names(sorted(ours))})")
        return [(action, 1.0)], action

    def check_points(self, state) -> list[int]:
        """At the end of a deal: xinxin's points per seat; :class:`XinxinMismatch`
        unless they equal ours (``-returns``)."""
        if not state.is_terminal():
            raise XinxinError("xinxin: check_points needs a terminal state")
        self.sync(state)
        reply = self._ask("points").split()
        theirs = [int(x) for x in reply[1:]]
        ours = [int(round(-r)) for r in state.returns()]
        if theirs != ours:
            raise XinxinMismatch(f"xinxin: points differ: ours {ours}, xinxin's {theirs} "
                                 f"(history {state.history()})")
        return theirs

    def restart(self) -> None:
        pass      # the next move starts a new deal by itself

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass      # every action is read from the state's history at the next move

    def provides_policy(self) -> bool:
        return False

    def __repr__(self) -> str:
        return (f"XinxinBot(player={self.player}, seed={self.seed}, simulations="
                f"{self.simulations}, worlds={self.worlds}, uct_c={self.uct_c}, "
                f"epsilon={self.epsilon})")
