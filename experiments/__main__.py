"""Command line of the experiment runner::

    python -m experiments list
    python -m experiments show NAME [--profile P]
    python -m experiments run NAME [--profile quick|paper] [--backend local|ray]
        [--address auto|HOST:PORT] [--workers N] [--seed S] [--config FILE.toml]
        [--set key=value ...] [--out DIR] [--fresh] [--recompute-corrupt] [--reuse-stale]
        [--no-progress] [--declaration FILE]
    python -m experiments reproduce [--profile quick|paper] [--out DIR] [--backend ...]
        [--workers N] [--jobs N] [--recompute-corrupt] [--reuse-stale]
    python -m experiments ship [--src results/paper] [--dst paper/results] [--only STUDY ...]
    python -m experiments check [--quick results/quick] [--paper paper/results] [--run]
    python -m experiments play --agents SPEC ... [--players N] [--seat S] [--port P] ...
    python -m experiments agents [NAME]

``agents`` lists every agent a spec can name (built-in, plug-in) with its
parameters, their defaults and a one-line description; ``agents NAME``
describes one (its full documentation; NAME may be ``module:factory`` or
``path/to/bot.py:factory``).

``reproduce`` (the first half of ``make reproduce``) runs every registered
experiment of the profile (the ladder too), and every benchmark of
:mod:`experiments.bench` (``--quick`` ones, seconds each, for the quick
profile; the full ones for the paper profile) into ``RESULTS/bench/``. The
quick profile runs two experiments at once (``--jobs``; each in its own
process with one worker, the longest first, sharing numba's on-disk cache of
compiled kernels); every experiment and benchmark prints one line with its
wall-clock and CPU seconds, and a table of them ends the output. The paper
is not part of the package: in a source checkout ``python paper/tools/build.py
RESULTS`` (the second half of ``make reproduce``; ``make paper`` alone)
verifies the results, runs the figure and table scripts and builds the PDF.
``ship`` writes ``paper/results/`` from a finished paper-profile run; ``check``
compares the quick profile's estimates with the shipped paper results
(:mod:`experiments._check`: intervals overlap, exact values agree to a
tolerance), prints the table and exits 1 on any disagreement. This module parses
the command line and dispatches: ``reproduce``, ``ship`` and ``check`` are
:mod:`experiments._reproduce`.

SIGINT (Ctrl-C) and SIGTERM stop a command with one line ("interrupted; N of M
units done; rerun the same command to resume"; exit status 130 or 143), not a
traceback: the runner stops its worker processes and keeps every finished
shard. Errors in the configuration or the saved results print ``error: ...``
(exit status 2).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from . import _reproduce as reproduce, runner, _shipped as shipped
from ._base import registry
from solvers._registry import AgentSpecError
from spiel_game._extras import MissingExtra

from ._cli import add_rerun_args
from ._base.config import ConfigError, check_output_dir, config_to_dict, parse_assignments


def _add_exec_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="quick", help="quick (default) or paper")
    p.add_argument("--backend", choices=runner.BACKENDS, default="local")
    p.add_argument("--address", default=None,
                   help="Ray cluster: auto or HOST:PORT (default: start a local Ray)")
    p.add_argument("--workers", type=int, default=None,
                   help="local processes (default: all cores; 1: in this process) "
                        "or the most Ray tasks in flight")
    p.add_argument("--out", default=None, help="results folder (default results/<profile>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_rerun_args(p, "move damaged shards (content hash mismatch) to corrupt/ and "
                      "recompute them; without it they stop the run")


def _add_folder_args(p: argparse.ArgumentParser, **helps: str) -> None:
    """A ``--NAME`` folder flag (default None) for each keyword, with its help."""
    for name, text in helps.items():
        p.add_argument(f"--{name}", default=None, help=text)


def _folder_arg(value: str | None, flag: str, *, results: bool = False) -> Path | None:
    """``value`` of a folder flag as a Path (None when not given): an empty name, or
    an existing path that is not a folder, is a :class:`ConfigError`; ``results``:
    the folder must exist too (results are read from it)."""
    if value is None:
        return None
    if not value.strip():
        raise ConfigError(f"{flag} is an empty name; give a folder (or leave {flag} out for "
                          f"the default)")
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{flag} {value}: a file, not a folder; {flag} names a results "
                          f"folder")
    if results and not path.is_dir():
        raise ConfigError(f"{flag} {value}: no such folder; {flag} names a folder of "
                          f"finished results")
    return path


def _check_exec_args(args) -> None:
    """What ``run`` and ``reproduce`` check before any work starts: ``--workers``
    (1 or more), ``--out`` (a writable folder, not an empty name) and a Ray
    ``--address`` that answers (:func:`experiments.runner.check_ray_address`)."""
    runner.check_workers(args.workers)
    out = _folder_arg(args.out, "--out")
    if out is not None:
        check_output_dir(out)
    if args.backend == "ray":
        runner.check_ray_address(args.address)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return '"none"'
    return json.dumps(v)


def cmd_list(args) -> int:
    exps = registry.experiments()
    for name, exp in exps.items():
        try:
            n = len(exp.units(exp.config("quick")))
            size = f"{n} units in quick"
        except Exception as err:  # report, do not hide the others
            size = f"units failed: {err!r}"
        print(f"{name:<20} {exp.description} ({size}; module {exp.module})")
    for mod in registry.discovery_errors():
        print(f"(module {mod} failed to import; python -c 'import {mod}' shows why)")
    return 0


def cmd_show(args) -> int:
    exp = registry.get(args.name)
    cfg = exp.config(args.profile)
    print(f"# {exp.name}: {exp.description}\n# profile {args.profile}; "
          f"a TOML file for --config (every key optional)")
    for k, v in config_to_dict(cfg).items():
        print(f"{k} = {_toml_value(v)}")
    return 0


def cmd_run(args) -> int:
    _check_exec_args(args)
    res = runner.run(args.name, profile=args.profile,
                     overrides=parse_assignments(args.set or []),
                     config_file=args.config, seed=args.seed, backend=args.backend,
                     address=args.address, workers=args.workers, out=args.out,
                     fresh=args.fresh, recompute_corrupt=args.recompute_corrupt,
                     reuse_stale=args.reuse_stale, progress=not args.no_progress,
                     declaration=args.declaration)
    print(f"results: {res.path}")
    return 0


def cmd_agents(args) -> int:
    from solvers import _registry as agent_registry
    if args.name:
        print(agent_registry.describe(args.name))
        return 0
    for info in agent_registry.agents():
        summary = info.summary if len(info.summary) <= 100 else info.summary[:97] + "..."
        print(f"{info.name}  [{info.source}]  {summary}")
        ps = info.signature()[len(info.name) + 1:-1]
        print(f"    {ps or '(no parameters)'}")
        if info.needs:
            print(f"    needs: {info.needs}")
    print("\nAn agent with a 'needs:' line plays only once you have what it names; every "
          "other one plays as installed.")
    print("A spec sets parameters as literals, e.g. \"ismcts(iterations=2000)\"; "
          "python -m experiments agents NAME shows one agent's documentation. Any factory "
          "f(game, player, seed, **params) or pyspiel.Bot subclass works without packaging: "
          "\"mymodule:make_bot(depth=2)\" or \"path/to/bot.py:make_bot\".")
    return 0


def cmd_models(args) -> int:
    from solvers.net import zoo
    cards = zoo.models()
    if args.name:
        if args.name not in cards:
            print(f"no shipped model {args.name!r}; the models: {', '.join(sorted(cards))}",
                  file=sys.stderr)
            return 2
        cards = {args.name: cards[args.name]}
    for card in cards.values():
        default = "  (default of network, ismcts_net, ismcts_bias in its games)" \
            if card.name == zoo.DEFAULT_MODEL or card.game else ""
        print(f"{card.name}{default}")
        print(f"    {card.summary}")
        rules = ", ".join(f"{k}={v}" for k, v in card.game.items()) or "default rules"
        print(f"    players {card.players_text}, {rules}; "
              f"{card.size_bytes / 1e6:.1f} MB ({card.quantization.get('weights', 'float32')}); "
              f"sha256 {card.sha256[:16]}...; {card.path}")
        for s in card.strength:
            print(f"    {s['comparison']}: {s['result']} ({s['protocol']})")
        if args.name:
            print(f"    rebuilt by: {card.training.get('command')}")
    print("\nUse one with checkpoint=NAME, e.g. \"network(checkpoint='guided-5-11')\"; "
          "no checkpoint means the model made for the game's rules and player count. "
          "python -m experiments models NAME shows "
          "how a model is rebuilt.")
    return 0


def cmd_reproduce(args) -> int:
    timer = reproduce.StepTimer()
    _check_exec_args(args)
    return reproduce.reproduce(
        args.profile, args.out, backend=args.backend, address=args.address,
        workers=args.workers, jobs=args.jobs, recompute_corrupt=args.recompute_corrupt,
        reuse_stale=args.reuse_stale, progress=not args.no_progress, timer=timer)


def cmd_ship(args) -> int:
    src = _folder_arg(args.src, "--src", results=True) or runner.results_root() / "paper"
    dst = _folder_arg(args.dst, "--dst") or shipped.SHIPPED
    return reproduce.ship(src, dst, args.only)


def cmd_check(args) -> int:
    quick = _folder_arg(args.quick, "--quick") or runner.results_root() / "quick"
    paper = (_folder_arg(args.paper, "--paper", results=True)
             or reproduce.paper_results("paper"))
    return reproduce.compare_profiles(quick, paper, per_quantity=args.per_quantity,
                                      run=args.run)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments",
                                 description="Run experiments, reproduce the paper.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the registered experiments")
    sh = sub.add_parser("show", help="print an experiment's configuration as TOML")
    sh.add_argument("name")
    sh.add_argument("--profile", default="quick")
    r = sub.add_parser("run", help="run one experiment (resumes finished units)")
    r.add_argument("name")
    _add_exec_args(r)
    r.add_argument("--seed", type=int, default=None, help="the config seed")
    r.add_argument("--config", default=None, help="a TOML file of config fields")
    r.add_argument("--set", nargs="+", action="extend", metavar="KEY=VALUE",
                   help="override config fields")
    r.add_argument("--fresh", action="store_true",
                   help="delete the existing results of this configuration's folder first")
    r.add_argument("--declaration", default=None, metavar="FILE",
                   help="a file that declares the run (a pre-registration): its SHA-256 is "
                        "recorded at the first unit, and a later run refuses to continue if "
                        "the file changed")
    rep = sub.add_parser("reproduce", help="every experiment and benchmark of a profile")
    _add_exec_args(rep)
    rep.add_argument("--jobs", type=int, default=None,
                     help="experiments run at once, each in its own process (default 2 for "
                          "the quick profile on two or more cores, else 1: one after the "
                          "other in this process)")
    sp = sub.add_parser("ship", help="write the compact, hashed copy of paper-profile "
                                     "results that the repository ships (paper/results/)")
    _add_folder_args(sp, src="finished paper-profile results (default results/paper)",
                     dst="default paper/results")
    sp.add_argument("--only", nargs="+", metavar="STUDY", default=None,
                    help="add (or replace) only these studies' results (or bench/NAME: "
                         "SRC/bench/NAME.json) in the existing shipped folder, keeping the "
                         "others byte for byte")
    ck = sub.add_parser("check", help="compare the quick profile's estimates with the shipped "
                                      "paper results (exit 1 on disagreement)")
    _add_folder_args(ck, quick="quick results (default results/quick; run there first when "
                               "empty)",
                     paper="paper results (default the shipped paper/results)")
    ck.add_argument("--per-quantity", action="store_true",
                    help="judge each interval comparison at 95%% on its own (default: "
                         "together, Bonferroni-widened)")
    ck.add_argument("--run", action="store_true",
                    help="run (resume) the quick profile first, without the paper build")
    ag = sub.add_parser("agents", help="list the agents with their parameters and defaults, "
                                       "or describe one")
    ag.add_argument("name", nargs="?", default=None,
                    help="an agent name (or module:factory, path/to/bot.py:factory)")
    mo = sub.add_parser("models", help="list the trained networks shipped with the package")
    mo.add_argument("name", nargs="?", default=None, help="a model's name: its recipe too")
    sub.add_parser("play", add_help=False,
                   help="play in the browser against agents (python -m experiments play "
                        "--help: experiments.play)")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["play"]:
        from . import play
        return play.main(argv[1:])
    args = ap.parse_args(argv)
    with _sigterm_interrupts():
        try:
            return {"list": cmd_list, "show": cmd_show, "run": cmd_run,
                    "reproduce": cmd_reproduce, "ship": cmd_ship,
                    "check": cmd_check, "agents": cmd_agents,
                    "models": cmd_models}[args.cmd](args)
        except (ConfigError, runner.RunError, registry.UnknownExperimentError,
                AgentSpecError, MissingExtra) as err:
            print(f"error: {err.args[0] if err.args else err}", file=sys.stderr)
            return 2
        except OSError as err:     # a full disk, a read-only folder, a path that is a file
            where = f" ({err.filename})" if err.filename else ""
            print(f"error: {err.strerror or err}{where}; finished results are kept",
                  file=sys.stderr)
            return 1
        except runner.RunInterrupted as err:
            print(str(err), file=sys.stderr)
            return 128 + int(err.signum)
        except KeyboardInterrupt as err:  # outside a runner experiment (benchmarks, scripts)
            code = err.args[0] if err.args and isinstance(err.args[0], int) else None
            signum = int(getattr(err, "signum", None) or code or signal.SIGINT)
            detail = str(err) if err.args and code is None else ""
            print(detail or f"interrupted ({signal.Signals(signum).name}) during `{args.cmd}`; "
                            f"finished results are kept; rerun the same command to resume",
                  file=sys.stderr)
            return 128 + signum


class _sigterm_interrupts:
    """SIGTERM raises KeyboardInterrupt(SIGTERM) like Ctrl-C does (main thread only;
    the runner installs its own handler while it runs and restores this one)."""

    def __enter__(self):
        self.old = None
        try:
            self.old = signal.signal(signal.SIGTERM, self._raise)
        except ValueError:                # not the main thread
            pass
        return self

    @staticmethod
    def _raise(signum, frame):
        raise KeyboardInterrupt(int(signum))

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
        return False


if __name__ == "__main__":
    sys.exit(main())
