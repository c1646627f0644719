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

**Limits.** Every reply is awaited at most ``timeout`` seconds (default
:data:`DEFAULT_TIMEOUT`); a reply line longer than :data:`MAX_LINE` bytes, a
reply that is not the protocol's, or a silent driver raises
:class:`XinxinError` and stops the driver. Only the last
:data:`STDERR_TAIL` bytes of the driver's stderr are kept (for error
messages). The driver runs in its own process group, killed as a whole when
the agent stops it; a driver started from a process's main thread is also
killed when that process dies (Linux), so none is left orphaned.

**CPU time.** ``cpu_seconds()`` is the CPU time (user + system, every
thread, exited ones included) the agent's driver processes have used so far,
read from ``/proc/<pid>/stat`` (clock ticks: a single move's reading is
coarse, sums over many moves are not); the tournament adds its difference around a
move to the agent's own thread time (``experiments.tournament.cpu_now``);
``restart()`` (called before every game) starts the driver, so its start-up
is not part of a move's time.
With ``$XINXIN_CORE`` set to a core number (``experiments.tournament.pin_cores``
sets it), every driver started afterwards is pinned to that core.

**Randomness.** Each deal's driver seed (32 bits) is drawn from
``numpy.random.SeedSequence([seed, k])`` for the agent's ``k``-th deal; the
driver seeds from it every random stream of xinxin that it can reach (the
UCT and world-sampling generators, the per-game seed, ``random()``), so a
game is reproducible from the seed.
"""

from __future__ import annotations

import dataclasses
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from spiel_game import cards as C

from .._base.bots import Agent, AgentParameterError, check_int, check_real

__all__ = ["XinxinBot", "XinxinError", "XinxinMismatch", "XinxinNotBuilt", "find_binary",
           "DriverProcess", "BUILD_COMMAND", "DEFAULT_BINARY", "BINARY_ENV", "GREETING",
           "pass_direction", "DEFAULT_TIMEOUT", "MAX_LINE", "STDERR_TAIL", "CORE_ENV",
           "process_cpu_seconds"]

#: Seconds the agent waits for one reply of the driver (its greeting or a move).
DEFAULT_TIMEOUT = 600.0
#: The longest reply line read, in bytes (a move's reply is under 200).
MAX_LINE = 64 * 1024
#: Bytes of the driver's stderr kept (the last ones), for error messages.
STDERR_TAIL = 4096

#: The first line the driver writes (protocol name and version).
GREETING = "xinxin-driver 1"
#: Where the agent looks for the driver without ``binary=`` or ``$XINXIN_BINARY``: the
#: user's cache folder, where ``make xinxin`` copies it.
DEFAULT_BINARY = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                  / "cancellation-hearts" / "xinxin" / "xinxin_driver")
#: Environment variable naming the driver binary.
BINARY_ENV = "XINXIN_BINARY"
#: Environment variable naming the core every new driver process is pinned to.
CORE_ENV = "XINXIN_CORE"
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


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far: ``utime +
    stime`` of ``/proc/<pid>/stat`` (clock ticks, usually 10 ms), which counts
    every thread, also those that have exited (xinxin searches in threads it
    starts and ends per decision, so the per-thread ``schedstat`` files miss
    them). Raises ``OSError`` when the process is gone."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
            f"xinxin: plays only the classic game; this game differs in "
            f"{', '.join(diff)}; allowed: spiel_game.load('classic'), optionally with "
            f"pass_count=0 or another pass_offset")
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
    with ``error``, a dead process, a reply that is not one line of at most
    :data:`MAX_LINE` bytes or no reply within ``timeout`` seconds raises
    :class:`XinxinError` with the driver's stderr tail (the last
    :data:`STDERR_TAIL` bytes; the rest is discarded as it arrives); after a
    timeout or an overlong line the driver is stopped. ``transcript``, if a
    list, gets ``(command, reply)`` appended for every exchange (the greeting
    as ``(None, greeting)``). The driver is the leader of its own process
    group, which :meth:`close` kills.
    """

    def __init__(self, argv: Sequence[str], transcript: list | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT):
        self.argv = list(argv)
        self.transcript = transcript
        self.timeout = float(timeout)
        self._buf = bytearray()
        self._err = _Tail()
        preexec = (_die_with_parent if sys.platform.startswith("linux")
                   and threading.current_thread() is threading.main_thread() else None)
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          bufsize=0, start_new_session=True,
                                          preexec_fn=preexec)
        except (OSError, subprocess.SubprocessError) as e:
            raise XinxinError(f"xinxin: could not start the driver {self.argv}: {e}") from e
        threading.Thread(target=self._err.drain, args=(self._proc.stderr,), daemon=True,
                         name="xinxin-stderr").start()
        self._cpu_done = 0.0            # CPU seconds of the process, read when it stopped
        self._finalizer = weakref.finalize(self, _shutdown, self._proc)
        core = os.environ.get(CORE_ENV)
        if core:
            try:
                os.sched_setaffinity(self._proc.pid, {int(core)})
            except (ValueError, OSError) as e:
                self.close()
                raise XinxinError(f"xinxin: could not pin the driver to core {core!r} "
                                  f"(${CORE_ENV}): {e}") from e
        greeting = self._read(None)
        if greeting != GREETING:
            self.close()
            raise XinxinError(f"xinxin: {self.argv[0]} is not a xinxin driver of this version: "
                              f"it said {greeting[:200]!r}, expected {GREETING!r}")

    def _tail(self) -> str:
        text = self._err.text()
        return f"; its stderr ends: {text[-1500:]!r}" if text else ""

    def _fail(self, message: str) -> XinxinError:
        """Stop the driver; the error to raise (with the stderr tail)."""
        self.close()
        time.sleep(0.05)                    # let the stderr thread read what is left
        return XinxinError(message + self._tail())

    def _read(self, command: str | None) -> str:
        deadline = time.monotonic() + self.timeout
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise self._fail(f"xinxin: the driver {self.argv[0]} sent a reply longer than "
                                 f"{MAX_LINE} bytes (after {command!r}); it was stopped")
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise self._fail(f"xinxin: the driver {self.argv[0]} did not answer "
                                 f"{command!r} within {self.timeout:g} s (timeout=); it was "
                                 f"stopped")
            data = os.read(fd, 65536)
            if not data:
                code = self._proc.poll()
                if code is None:
                    try:
                        code = self._proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        code = "still running"
                time.sleep(0.05)            # let the stderr thread read what is left
                raise XinxinError(f"xinxin: the driver {self.argv[0]} stopped answering "
                                  f"(after {command!r}; exit code {code}){self._tail()}")
            self._buf += data
        line, _, rest = bytes(self._buf).partition(b"\n")
        if len(line) > MAX_LINE:
            raise self._fail(f"xinxin: the driver {self.argv[0]} sent a reply longer than "
                             f"{MAX_LINE} bytes (after {command!r}); it was stopped")
        self._buf = bytearray(rest)
        reply = line.decode("utf-8", errors="replace").rstrip("\r")
        if self.transcript is not None:
            self.transcript.append((command, reply))
        return reply

    def ask(self, command: str) -> str:
        """Send ``command`` (one line) and return the driver's one-line reply."""
        if self._proc.poll() is not None:
            raise XinxinError(f"xinxin: the driver {self.argv[0]} has exited "
                              f"(code {self._proc.returncode}){self._tail()}")
        try:
            self._proc.stdin.write((command + "\n").encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise XinxinError(f"xinxin: could not send {command!r} to the driver: "
                              f"{e}{self._tail()}") from e
        reply = self._read(command)
        if reply.startswith("error"):
            raise XinxinError(f"xinxin: the driver refused {command[:200]!r}: {reply[:500]}")
        return reply

    @property
    def pid(self) -> int:
        """The driver's process id (also its process group's)."""
        return self._proc.pid

    def cpu_seconds(self) -> float:
        """CPU seconds the driver has used so far (:func:`process_cpu_seconds`; after
        it stopped, the last value read before stopping)."""
        if self._proc.returncode is None:
            try:
                self._cpu_done = process_cpu_seconds(self._proc.pid)
            except OSError:
                pass
        return self._cpu_done

    def close(self) -> None:
        """Stop the driver: ``quit``, then after 2 seconds its process group is killed."""
        if self._proc.returncode is None:
            self.cpu_seconds()
        self._finalizer()


class _Tail:
    """The last :data:`STDERR_TAIL` bytes of a stream, read by a thread."""

    def __init__(self):
        self._data = b""
        self._lock = threading.Lock()

    def drain(self, stream) -> None:
        try:
            while True:
                chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
                if not chunk:
                    break
                with self._lock:
                    self._data = (self._data + chunk)[-STDERR_TAIL:]
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def text(self) -> str:
        with self._lock:
            return self._data.decode(errors="replace").strip()


def _die_with_parent() -> None:
    """In the driver, before exec: SIGKILL when the process that started it dies."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except Exception:
        pass


def _exited(pid: int) -> bool:
    """The process has exited (it is not reaped: its process group stays reserved)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _shutdown(proc) -> None:
    try:
        if proc.returncode is None:
            try:
                proc.stdin.write(b"quit\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass
            end = time.monotonic() + 2.0
            while not _exited(proc.pid) and time.monotonic() < end:
                time.sleep(0.02)
            try:
                os.killpg(proc.pid, signal.SIGKILL)     # the group, children included
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
    finally:
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass


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
    * ``timeout`` (0.01..86400 seconds, default :data:`DEFAULT_TIMEOUT`): the
      longest wait for one reply of the driver.

    ``transcript`` (a list) receives every protocol exchange (for tests).
    """

    NAME = "xinxin"

    def __init__(self, game, player: int, seed: int = 0, *,
                 binary: str | Sequence[str] | None = None, simulations: int = 10_000,
                 worlds: int = 30, uct_c: float = 0.4, epsilon: float = 0.1,
                 timeout: float = DEFAULT_TIMEOUT, transcript: list | None = None):
        super().__init__(game, player, seed)
        a = self.NAME
        _check_classic(game)
        self.worlds = check_int(a, "worlds", worlds, 1, 1000)
        self.simulations = check_int(a, "simulations", simulations, self.worlds, 10**8)
        self.uct_c = check_real(a, "uct_c", uct_c, 0.0, 100.0)
        self.epsilon = check_real(a, "epsilon", epsilon, 0.0, 1.0)
        self.timeout = check_real(a, "timeout", timeout, 0.01, 86400.0)
        if transcript is not None and not isinstance(transcript, list):
            raise AgentParameterError(f"xinxin: transcript must be a list, got "
                                      f"{type(transcript).__name__}")
        self.transcript = transcript
        self.argv = find_binary(binary)
        self.pass_dir = pass_direction(game.rules)
        self._driver: DriverProcess | None = None
        self._deals = 0               # deals started (the k of the seed)
        self._fed: list[int] = []     # actions the driver has seen (deal included)
        self._cpu_closed = 0.0        # CPU seconds of the drivers already stopped

    # ------------------------------------------------------------------ driver
    def _start(self) -> None:
        if self._driver is None:
            self._driver = DriverProcess(self.argv, self.transcript, timeout=self.timeout)
            self._driver.ask(f"config {self.simulations} {self.worlds} {self.uct_c!r} "
                             f"{self.epsilon!r}")

    def _ask(self, command: str) -> str:
        self._start()
        return self._driver.ask(command)

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) this agent's driver processes have used so far;
        the tournament counts its difference around a move as xinxin's CPU time."""
        live = self._driver.cpu_seconds() if self._driver is not None else 0.0
        return self._cpu_closed + live

    def close(self) -> None:
        """Stop the driver process (also done when the agent is garbage-collected)."""
        if self._driver is not None:
            self._cpu_closed += self._driver.cpu_seconds()
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
        try:
            action = C.string_to_card(reply[1])
            theirs = set(_cards(reply[3]))
        except ValueError as e:
            raise XinxinError(f"xinxin: malformed reply to 'move': {' '.join(reply)[:200]!r} "
                              f"({e}); expected 'move <card> legal <cards>'") from None
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
        try:
            if len(reply) != 1 + _PLAYERS or reply[0] != "points":
                raise ValueError("not 'points' and 4 numbers")
            theirs = [int(x) for x in reply[1:]]
        except ValueError as e:
            raise XinxinError(f"xinxin: malformed reply to 'points': "
                              f"{' '.join(reply)[:200]!r} ({e}); expected 'points' and "
                              f"{_PLAYERS} integers") from None
        ours = [int(round(-r)) for r in state.returns()]
        if theirs != ours:
            raise XinxinMismatch(f"xinxin: points differ: ours {ours}, xinxin's {theirs} "
                                 f"(history {state.history()})")
        return theirs

    def restart(self) -> None:
        """Start the driver if it is not running (so that starting it is not part of
        a move's time); the next move starts a new deal by itself."""
        self._start()

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
