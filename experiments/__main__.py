"""Command line of the experiment runner::

    python -m experiments list
    python -m experiments show NAME [--profile P]
    python -m experiments run NAME [--profile quick|paper] [--backend local|ray]
        [--address auto|HOST:PORT] [--workers N] [--seed S] [--config FILE.toml]
        [--set key=value ...] [--out DIR] [--fresh] [--recompute-corrupt] [--reuse-stale]
        [--no-progress]
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
(:mod:`experiments.check`: intervals overlap, exact values agree to a
tolerance), prints the table and exits 1 on any disagreement.

SIGINT (Ctrl-C) and SIGTERM stop a command with one line ("interrupted; N of M
units done; rerun the same command to resume"; exit status 130 or 143), not a
traceback: the runner stops its worker processes and keeps every finished
shard. Errors in the configuration or the saved results print ``error: ...``
(exit status 2).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import registry, runner, shipped
from solvers.registry import AgentSpecError
from spiel_game.extras import MissingExtra

from .config import ConfigError, check_output_dir, config_to_dict, parse_assignments


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
    p.add_argument("--recompute-corrupt", action="store_true",
                   help="move damaged shards (content hash mismatch) to corrupt/ and "
                        "recompute them; without it they stop the run")
    p.add_argument("--reuse-stale", action="store_true",
                   help="reuse saved units made by other code (this package, an agent's "
                        "module, a checkpoint); without it they are recomputed")


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
                     reuse_stale=args.reuse_stale, progress=not args.no_progress)
    print(f"results: {res.path}")
    return 0


def cmd_agents(args) -> int:
    from solvers import registry as agent_registry
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


def verify_results(out: Path) -> tuple[list[str], list[str]]:
    """Check every profile folder of runner results in ``out`` (what the figure and
    table scripts read: ``<name>/``, not ``<name>@...``) with :func:`runner.load`:
    ``(damaged, unverifiable)`` messages, each naming the files and the remedy."""
    damaged: list[str] = []
    unverified: list[str] = []
    if not out.is_dir():
        return damaged, unverified
    for folder in sorted(out.iterdir()):
        if not folder.is_dir() or "@" in folder.name or not (
                (folder / "run.json").exists() or (folder / "metadata.json").exists()):
            continue
        try:
            runner.load(folder.name, out=out)
        except runner.ResultsNotFoundError:
            continue                      # not finished: the scripts see no results
        except runner.UnverifiedResultError as err:
            unverified.append(str(err))
        except runner.RunError as err:
            damaged.append(str(err))
    return damaged, unverified


def _check_inputs(out: Path) -> bool:
    """Print what :func:`verify_results` finds (for shipped results,
    :func:`experiments.shipped.verify`); False when results are damaged."""
    if shipped.is_shipped(out):
        try:
            n = shipped.verify(out)
        except shipped.ShippedResultsError as err:
            print(f"error: {err}", file=sys.stderr)
            print("the figures and tables were not regenerated: their results are damaged "
                  "(see above)", file=sys.stderr)
            return False
        print(f"{out}: {n} shipped files match SHA256SUMS")
        return True
    damaged, unverified = verify_results(out)
    for msg in unverified:
        print(f"warning: {msg}", file=sys.stderr)
    for msg in damaged:
        print(f"error: {msg}", file=sys.stderr)
    if damaged:
        print("the figures and tables were not regenerated: their results are damaged "
              "(see above)", file=sys.stderr)
    return not damaged


class StepTimer:
    """Wall-clock and CPU seconds of each step of a command (``with timer.step(name):``),
    the CPU time of this process and of the child processes it waited for (the
    runner's worker processes, the benchmarks, the paper build's scripts) together.
    Each finished step prints ``=== NAME ... 12.3 s (CPU 20.1 s)``; :meth:`report`
    prints them all with the total."""

    def __init__(self):
        self.steps: list[tuple[str, float, float]] = []
        self._t0, self._c0 = time.perf_counter(), self.cpu()

    @staticmethod
    def cpu() -> float:
        """CPU seconds (user + system) of this process and its reaped children so far."""
        import resource
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    @contextlib.contextmanager
    def step(self, name: str):
        t, c = time.perf_counter(), self.cpu()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - t, self.cpu() - c)

    def add(self, name: str, wall: float, cpu: float) -> None:
        """Record (and print) a step timed elsewhere, e.g. a process of :func:`side_by_side`."""
        self.steps.append((name, wall, cpu))
        print(f"=== {name} ... {wall:.1f} s (CPU {cpu:.1f} s)", flush=True)

    def total(self) -> tuple[float, float]:
        """(wall, CPU) seconds since the timer was made."""
        return time.perf_counter() - self._t0, self.cpu() - self._c0

    def report(self) -> str:
        """Every step's wall-clock and CPU seconds, slowest first, and the total."""
        wall, cpu = self.total()
        lines = [f"{'step':<36} {'wall s':>8} {'CPU s':>8}"]
        lines += [f"{n:<36} {w:>8.1f} {c:>8.1f}"
                  for n, w, c in sorted(self.steps, key=lambda s: -s[1])]
        lines.append(f"{'total':<36} {wall:>8.1f} {cpu:>8.1f}")
        return "\n".join(lines)


def side_by_side(commands: list[tuple[str, list[str]]], jobs: int,
                 timer: StepTimer | None = None) -> list[str]:
    """Run the ``(name, argv)`` commands, ``jobs`` at a time, each in its own process
    (in this process's working folder) with its output held back and printed in one block when
    it ends, followed by its wall-clock and CPU seconds (a step of ``timer``). On
    Ctrl-C or SIGTERM the running ones get SIGTERM (a runner keeps its finished
    units) and are waited for. The names of those that exited with an error."""
    import tempfile
    timer = timer or StepTimer()
    pending, running, failed = list(commands), {}, []

    def finish(pid, status, usage):
        name, proc, log, t0 = running.pop(pid)
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        sys.stdout.write(log.read().decode("utf-8", errors="replace"))
        log.close()
        timer.add(name, time.perf_counter() - t0, usage.ru_utime + usage.ru_stime)
        if proc.returncode != 0:
            print(f"{name} failed (exit status {proc.returncode}): "
                  f"{' '.join(proc.args[1:])}", file=sys.stderr, flush=True)
            failed.append(name)

    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                name, argv = pending.pop(0)
                print(f"=== {name} (started)", flush=True)
                log = tempfile.TemporaryFile()
                proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
                running[proc.pid] = (name, proc, log, time.perf_counter())
            for pid in list(running):
                got, status, usage = os.wait4(pid, os.WNOHANG)
                if got:
                    finish(pid, status, usage)
            time.sleep(0.05)
    finally:
        for _, proc, _, _ in list(running.values()):
            with contextlib.suppress(OSError):
                proc.send_signal(signal.SIGTERM)
        for pid in list(running):
            _, status, usage = os.wait4(pid, 0)
            finish(pid, status, usage)
    return failed


#: The quick profile's longest experiments, started first when ``reproduce`` runs
#: experiments side by side (the others fill the second process meanwhile).
SLOW_FIRST = ("ladder", "abr", "passing_metagame_11", "passing_metagame")


def _study_jobs(args) -> int:
    """How many experiments ``reproduce`` runs at once: ``--jobs``, else 2 for the
    quick profile on the local backend with two or more cores (each with
    ``cores // 2`` workers), else 1 (in this process, each with ``--workers``)."""
    jobs = getattr(args, "jobs", None)
    if jobs is not None:
        if jobs < 1:
            raise ConfigError(f"--jobs {jobs}: allowed values are 1 or more")
        return jobs
    cores = os.cpu_count() or 1
    return 2 if args.profile == "quick" and args.backend == "local" and cores >= 2 else 1


def cmd_reproduce(args) -> int:
    timer = StepTimer()
    _check_exec_args(args)
    # absolute before anything starts: the studies run as processes of their own
    out = Path(args.out).absolute() if args.out else runner.results_root() / args.profile
    failed = []
    names = [name for name, exp in registry.experiments().items() if exp.reproduce]
    allowed = sorted(set.intersection(*(set(registry.get(n).profiles) for n in names))
                     if names else {"quick", "paper"})
    if args.profile not in allowed:         # before any experiment or benchmark runs
        raise ConfigError(f"--profile {args.profile!r}: no such profile; allowed profiles: "
                          f"{', '.join(allowed)}")
    jobs = _study_jobs(args)
    if jobs > 1:
        names.sort(key=lambda n: SLOW_FIRST.index(n) if n in SLOW_FIRST else len(SLOW_FIRST))
        workers = args.workers or max(1, (os.cpu_count() or 1) // jobs)
        commands = [(name, [sys.executable, "-m", "experiments", "run", name,
                            "--profile", args.profile, "--out", str(out), "--no-progress",
                            "--backend", args.backend, "--workers", str(workers)]
                     + (["--address", args.address] if args.address else [])
                     + (["--recompute-corrupt"] if args.recompute_corrupt else [])
                     + (["--reuse-stale"] if getattr(args, "reuse_stale", False) else []))
                    for name in names]
        failed += [f"experiment {n}" for n in side_by_side(commands, jobs, timer)]
        names = []
    for name in names:
        print(f"=== {name}", flush=True)
        with timer.step(name):
            try:
                runner.run(name, profile=args.profile, backend=args.backend,
                           address=args.address, workers=args.workers, out=out,
                           recompute_corrupt=args.recompute_corrupt,
                           reuse_stale=args.reuse_stale, progress=not args.no_progress)
            except runner.RunError as err:    # names the files and the remedy
                print(f"experiment {name} failed: {err}", file=sys.stderr)
                failed.append(f"experiment {name}")
            except Exception as err:  # keep going: one broken experiment must not hide the rest
                print(f"experiment {name} failed: {err!r}", file=sys.stderr)
                failed.append(f"experiment {name}")
    failed += [f"benchmark {b}" for b in run_benchmarks(out / "bench", args.profile != "paper",
                                                        timer=timer)]
    for mod in registry.discovery_errors():
        failed.append(f"import {mod}")
    print(timer.report())
    print(f"results in {out} ({timer.total()[0]:.0f} s); in a source checkout, "
          f"python paper/tools/build.py {out} (make paper) builds the paper from them")
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


def run_benchmarks(folder: Path, quick: bool, names=None,
                   timer: StepTimer | None = None) -> list[str]:
    """Run each benchmark of :mod:`experiments.bench` (``--quick`` when ``quick``), one
    after the other in its own process, writing ``folder/<name>.json``; a benchmark
    whose file exists is kept (delete it to measure again). Each is a step of
    ``timer`` when given. The names of those that failed."""
    from .bench import BENCHES
    timer = timer or StepTimer()
    failed = []
    for name in names if names is not None else BENCHES:
        dst = folder / f"{name}.json"
        if dst.exists():
            print(f"=== benchmark {name}: {dst} exists, kept (delete it to measure again)")
            continue
        print(f"=== benchmark {name}{' --quick' if quick else ''}", flush=True)
        out = folder if name == "search" else dst           # search takes its folder
        cmd = [sys.executable, "-m", f"experiments.bench.{name}", "--out", str(out)]
        cmd += ["--quick"] if quick else []
        cmd += ["--no-progress"] if name == "search" else []
        with timer.step(f"benchmark {name}"):
            rc = subprocess.run(cmd).returncode
        if rc != 0:
            print(f"benchmark {name} failed ({' '.join(cmd[1:])})", file=sys.stderr)
            failed.append(name)
    return failed


def paper_results(profile: str, out: str | None = None) -> Path:
    """The results the paper is built from: ``out`` when given; for the paper
    profile the shipped ``paper/results/`` (:mod:`experiments.shipped`); else
    ``results/<profile>``."""
    if out:
        return Path(out)
    if profile == "paper" and shipped.is_shipped(shipped.SHIPPED):
        return shipped.SHIPPED
    return runner.results_root() / profile


def cmd_ship(args) -> int:
    src = _folder_arg(args.src, "--src", results=True) or runner.results_root() / "paper"
    dst = _folder_arg(args.dst, "--dst") or shipped.SHIPPED
    if not src.is_dir():
        raise ConfigError(f"no results folder {src}: run the paper profile there first "
                          f"(python -m experiments reproduce --profile paper) or name one "
                          f"with --src DIR")
    damaged, unverified = verify_results(src)
    for msg in unverified:
        print(f"warning: {msg}", file=sys.stderr)
    if damaged:
        for msg in damaged:
            print(f"error: {msg}", file=sys.stderr)
        return 2
    if args.only:
        try:
            info = shipped.add(src, args.only, dst)
        except (FileNotFoundError, ValueError, shipped.ShippedResultsError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print(f"added {', '.join(args.only)} from {src} to {dst}; every other shipped study "
              f"is unchanged")
    else:
        try:
            info = shipped.pack(src, dst)
        except (FileNotFoundError, ValueError, shipped.ShippedResultsError) as err:
            print(f"error: {err}; nothing was shipped", file=sys.stderr)
            return 2
    files = [p for p in dst.rglob("*") if p.is_file()]
    print(f"shipped {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.2f} MB, "
          f"into {dst} (from {src}; {len(info['left_out'])} files left out or filtered, "
          f"see {dst / 'README.md'})")
    return 0


def cmd_check(args) -> int:
    from . import check
    quick = _folder_arg(args.quick, "--quick") or runner.results_root() / "quick"
    paper = _folder_arg(args.paper, "--paper", results=True) or paper_results("paper")
    if not (shipped.is_shipped(paper) or any(paper.glob("*/metadata.json"))):
        print(f"error: no paper results to compare with in {paper}: name a folder with "
              f"--paper DIR (the shipped paper/results of a source checkout, or a "
              f"paper-profile run; default: ./paper/results, else $CH_RESULTS/paper or "
              f"./results/paper)", file=sys.stderr)
        return 2
    if args.run or not any(quick.glob("*/metadata.json")):
        print(f"=== running the quick profile into {quick} (finished units are kept)")
        rc = cmd_reproduce(argparse.Namespace(
            profile="quick", out=str(quick), backend="local", address=None, workers=None,
            recompute_corrupt=False, reuse_stale=False, no_progress=True))
        if rc != 0:
            return rc
    if not _check_inputs(paper) or not _check_inputs(quick):
        return 2
    rows, skipped = check.compare(quick, paper, family=not args.per_quantity)
    alone = check.compare(quick, paper, family=False)[0]
    print(f"quick: {quick}\npaper: {paper}\n")
    print(check.table(rows))
    for f in skipped:
        print(f"not compared (missing): {f}")
    bad = [r for r in rows if not r.agree]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} quantities agree")
    if not args.per_quantity:
        k = sum(r.intervals is not None for r in rows)
        miss = sum(not r.agree for r in alone if r.intervals is not None)
        print(f"({k} interval comparisons judged together; {miss} of them do not overlap at "
              f"95% each, --per-quantity)")
    if not rows:
        print("nothing to compare", file=sys.stderr)
        return 1
    return 1 if bad else 0


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
    rep = sub.add_parser("reproduce", help="every experiment and benchmark of a profile")
    _add_exec_args(rep)
    rep.add_argument("--jobs", type=int, default=None,
                     help="experiments run at once, each in its own process (default 2 for "
                          "the quick profile on two or more cores, else 1: one after the "
                          "other in this process)")
    sp = sub.add_parser("ship", help="write the compact, hashed copy of paper-profile "
                                     "results that the repository ships (paper/results/)")
    sp.add_argument("--src", default=None, help="finished paper-profile results "
                                                "(default results/paper)")
    sp.add_argument("--dst", default=None, help="default paper/results")
    sp.add_argument("--only", nargs="+", metavar="STUDY", default=None,
                    help="add (or replace) only these studies' results (or bench/NAME: "
                         "SRC/bench/NAME.json) in the existing shipped folder, keeping the "
                         "others byte for byte")
    ck = sub.add_parser("check", help="compare the quick profile's estimates with the shipped "
                                      "paper results (exit 1 on disagreement)")
    ck.add_argument("--quick", default=None, help="quick results (default results/quick; run "
                                                  "there first when empty)")
    ck.add_argument("--paper", default=None, help="paper results (default the shipped "
                                                  "paper/results)")
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
