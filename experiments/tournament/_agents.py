"""Building and checking a tournament's agents, and the agent calls a tournament
watches (a per-move time limit) and reports when they fail: one line naming the
agent, what it raised and where."""

from __future__ import annotations

import functools
import signal
from collections.abc import Callable, Mapping, Sequence

from ._config import TournamentConfig, TournamentError, _load_game

__all__ = ["check_agents", "CHECK_STARTUP_SECONDS"]


# The agent calls a watched unit reports (experiments.runner.call_watch).
_BUILD, _RESTART, _STEP, _INFORM = range(4)
_CALLS = {_BUILD: "building the agent", _RESTART: "restart()", _STEP: "step() (its move)",
          _INFORM: "inform_action()"}


def _labels(config: TournamentConfig, deal: int, ai: int, assign, where: str) -> list:
    """``labels[seat][call]``: the error message of a watched call that does not
    return (``{limit}``: the limit, filled in by the runner), UTF-8."""
    pre = f"{where}: " if where else ""
    return [[(f"{pre}agent {config.agents[a]!r} on seat {q} did not return from {_CALLS[c]} "
              f"within the move time limit of {{limit}} s (deal {deal}, seat assignment "
              f"{ai}); the tournament was stopped").encode() for c in range(4)]
            for q, a in enumerate(assign)]


class _AgentFailed(TournamentError):
    """An exception escaped the agent on ``seat`` (:func:`_agent_failure`); ``detail``
    says what it raised where, without the agent's name (:func:`~.play.play_deal` adds it)."""

    def __init__(self, seat: int, name: str, detail: str):
        super().__init__(f"{name} on seat {seat} {detail}")
        self.seat, self.detail = seat, detail


def _agent_failure(e: BaseException, seat: int, name: str, call: str) -> BaseException:
    """What to raise for ``e`` escaping the code of agent ``name`` on ``seat`` during
    ``call``: a one-line :class:`~.config.TournamentError` naming the agent, the exception, its
    message and where it was raised, for any exception, ``SystemExit`` or
    ``KeyboardInterrupt`` the agent's code raised itself; ``e`` itself for a SIGINT
    or SIGTERM (a ``KeyboardInterrupt`` carrying ``signum``: the runner's, and
    :func:`_interrupts_marked`'s) and for a TournamentError."""
    if isinstance(e, TournamentError) or (
            isinstance(e, KeyboardInterrupt) and getattr(e, "signum", None) is not None):
        return e
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    at = f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb is not None else ""
    text = " ".join(str(e).split())
    text = text if len(text) <= 300 else text[:297] + "..."
    kind = ("exited (SystemExit)" if isinstance(e, SystemExit) else
            "raised KeyboardInterrupt itself" if isinstance(e, KeyboardInterrupt) else
            f"raised {type(e).__name__}")
    return _AgentFailed(seat, name, f"{kind}{': ' + text if text else ''} in {call}{at}; the "
                                    f"tournament was stopped")


def _interrupts_marked(fn):
    """Run ``fn`` (in the main thread) with SIGINT and SIGTERM, when their handlers are
    Python functions that raise ``KeyboardInterrupt`` (Python's default SIGINT
    handler, the command line's SIGTERM one), raising it with ``signum`` set: a
    signal then stops the tournament, while a ``KeyboardInterrupt`` that an
    agent raises itself (no ``signum``) is reported as that agent's failure
    (:func:`_agent_failure`)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        import threading
        if threading.current_thread() is not threading.main_thread():
            return fn(*args, **kwargs)
        old = {}

        def handler(signum, frame):
            try:
                old[signum](signum, frame)
            except KeyboardInterrupt as e:
                if getattr(e, "signum", None) is None:
                    e.signum = int(signum)
                raise
        handler.marks = True
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                h = signal.getsignal(sig)
                if callable(h) and not getattr(h, "marks", False):
                    old[sig] = h
                    signal.signal(sig, handler)
            return fn(*args, **kwargs)
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
    return wrapper


def _make(label: str, game, seat: int, seed: int, factories: Mapping[str, Callable] | None):
    from solvers._registry import make_agent
    if factories and label in factories:
        return make_agent(factories[label], game, seat, seed)
    return make_agent(label, game, seat, seed)


def _resolved(agents: Sequence[str], factories: Mapping[str, Callable] | None) -> dict:
    """``factories`` plus, for every other agent spec, its factory with the spec's
    keywords bound (``functools.partial``), resolved once
    (:func:`solvers._catalog.resolve`: the same checks as :func:`make_agent`, and
    only this agent's module imported). The keywords are bound as written (a
    ``belief`` spec string, not a model), so every agent built from the label
    makes its own belief model, as :func:`make_agent` would. Specs that do not
    resolve are left to :func:`_make` (which names what is wrong)."""
    from solvers import _registry as reg
    out = dict(factories or {})
    for label in dict.fromkeys(agents):
        if label in out:
            continue
        try:
            r = reg.resolve(label)
        except reg.AgentSpecError:
            continue
        out[label] = functools.partial(r.factory, **r.kwargs) if r.kwargs else r.factory
    return out


@_interrupts_marked
def check_agents(agents: Sequence[str], game, factories: Mapping[str, Callable] | None = None,
                 assignment: Sequence[int] | None = None, *,
                 time_limit: float | None = None) -> None:
    """Build every agent once (seed 0, on the first seat it holds in ``assignment``,
    else seat 0) and throw it away: a bad spec (unknown agent, unknown keyword, bad
    value) raises :class:`~.config.TournamentError` naming the agent before anything runs.
    ``game``: a loaded game or its parameters. ``time_limit`` (seconds, the
    tournament's ``move_time_limit``): the agents are built in a child process
    and one whose building (the import of its module included) takes longer is
    stopped with a :class:`~.config.TournamentError` naming it; the child is killed."""
    if not hasattr(game, "num_players"):
        game = _load_game(game)
    if time_limit is not None:
        return _check_agents_limited(agents, game, factories, assignment, float(time_limit))
    for label in dict.fromkeys(agents):
        seat = list(assignment).index(agents.index(label)) if assignment else 0
        _check_one(label, game, seat, factories)


def _check_one(label: str, game, seat: int, factories) -> None:
    from solvers._registry import AgentSpecError
    try:
        _make(label, game, seat, 0, factories)
    except AgentSpecError as e:
        raise TournamentError(f"bad agent spec: {e}" if repr(label) in str(e)
                              else f"bad agent spec {label!r}: {e}") from None
    except Exception as e:                  # a plug-in factory's own error
        raise TournamentError(f"agent {label!r} could not be built (seat {seat}): "
                              f"{type(e).__name__}: {e}") from e
    except BaseException as e:  # SystemExit, a KeyboardInterrupt it raised itself; not a signal
        raise _agent_failure(e, seat, f"agent {label!r}", _CALLS[_BUILD]) from None


#: Seconds the child of :func:`check_agents` may take to start (import this
#: package) before it builds anything; not part of any agent's time.
CHECK_STARTUP_SECONDS = 300.0


def _check_agents_child(agents, params, factories, assignment, conn) -> None:
    """The child of :func:`_check_agents_limited`: reports ``("ready",)``, then
    ``("start", label, seat)`` before and ``("ok",)`` after building each agent,
    or ``("error", message)``."""
    try:
        import solvers._registry  # noqa: F401  (the package import is not an agent's time)
        game = _load_game(params)
        conn.send(("ready",))
        for label in dict.fromkeys(agents):
            seat = list(assignment).index(agents.index(label)) if assignment else 0
            conn.send(("start", label, seat))
            _check_one(label, game, seat, factories)
            conn.send(("ok",))
        conn.send(("done",))
    except BaseException as e:              # reported; the process ends
        msg = str(e) if isinstance(e, TournamentError) else (
            f"checking the agents failed: {type(e).__name__}: {e}")
        try:
            conn.send(("error", msg))
        except Exception:
            pass
    finally:
        conn.close()


def _check_agents_limited(agents, game, factories, assignment, limit: float) -> None:
    """:func:`check_agents` with each agent's building bounded by ``limit`` seconds."""
    import multiprocessing
    import pickle
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    params = dict(game.get_parameters())
    args = (list(agents), params, dict(factories) if factories else None,
            list(assignment) if assignment else None, send)
    try:
        pickle.dumps(args[2])
    except Exception:                       # unpicklable factories: built here, unbounded
        recv.close()
        send.close()
        for label in dict.fromkeys(agents):
            seat = list(assignment).index(agents.index(label)) if assignment else 0
            _check_one(label, game, seat, factories)
        return
    proc = ctx.Process(target=_check_agents_child, args=args, daemon=True)
    proc.start()
    send.close()
    current = None                          # (label, seat) being built
    try:
        while True:
            wait = CHECK_STARTUP_SECONDS if current is None else limit
            if not recv.poll(wait):
                if current is None:
                    raise TournamentError(
                        f"checking the agents: the checking process did not start within "
                        f"{CHECK_STARTUP_SECONDS:g} s")
                label, seat = current
                raise TournamentError(
                    f"agent {label!r} (seat {seat}) was not built within the move time limit "
                    f"of {limit:g} s (building includes importing its module); the "
                    f"tournament was not started")
            try:
                msg = recv.recv()
            except EOFError:
                proc.join(5)
                raise TournamentError(
                    f"checking the agents: the checking process ended (exit code "
                    f"{proc.exitcode})" + (f" while building agent {current[0]!r}"
                                           if current else "")) from None
            if msg[0] == "start":
                current = (msg[1], msg[2])
            elif msg[0] == "ok":
                current = None
            elif msg[0] == "done":
                return
            elif msg[0] == "error":
                raise TournamentError(msg[1])
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
