"""Reproducing a profile's results, and what comes after: ``python -m experiments
reproduce`` (:func:`reproduce`: every registered experiment of the profile and
every benchmark of :mod:`experiments.bench`, side by side and timed), ``ship``
(:func:`ship`: the compact, hashed copy of paper-profile results) and ``check``
(:func:`compare_profiles`: the quick profile's estimates against the shipped
paper results). :func:`verify_results` checks finished runner results, as the
paper build does before it reads them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import runner, _shipped as shipped
from ._base import registry
from ._base.config import ConfigError, check_output_dir

__all__ = ["StepTimer", "side_by_side", "SLOW_FIRST", "study_jobs", "reproduce",
           "run_benchmarks", "verify_results", "check_inputs", "paper_results", "ship",
           "compare_profiles"]


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


def check_inputs(out: Path) -> bool:
    """Print what :func:`verify_results` finds (for shipped results,
    :func:`experiments._shipped.verify`); False when results are damaged."""
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


def study_jobs(profile: str, backend: str, jobs: int | None = None) -> int:
    """How many experiments :func:`reproduce` runs at once: ``jobs`` (``--jobs``), else 2
    for the quick profile on the local backend with two or more cores (each with
    ``cores // 2`` workers), else 1 (in this process, each with ``workers``)."""
    if jobs is not None:
        if jobs < 1:
            raise ConfigError(f"--jobs {jobs}: allowed values are 1 or more")
        return jobs
    cores = os.cpu_count() or 1
    return 2 if profile == "quick" and backend == "local" and cores >= 2 else 1


def reproduce(profile: str, out: str | Path | None = None, *, backend: str = "local",
              address: str | None = None, workers: int | None = None, jobs: int | None = None,
              recompute_corrupt: bool = False, reuse_stale: bool = False,
              progress: bool = True, timer: StepTimer | None = None) -> int:
    """Run every registered experiment of ``profile`` (those marked ``reproduce``, the
    ladder too) into ``out`` (default ``results/<profile>``), :func:`study_jobs` of
    them at once, then every benchmark into ``out/bench/`` (:func:`run_benchmarks`:
    ``--quick`` ones unless the profile is ``paper``). Each is a step of ``timer``;
    the table of steps ends the output. One failure does not stop the others; the
    exit status is 1 when any failed (listed last), else 0. The other arguments are
    :func:`experiments.runner.run`'s."""
    timer = timer or StepTimer()
    # absolute before anything starts: the studies run as processes of their own
    out = Path(out).absolute() if out else runner.results_root() / profile
    failed = []
    names = [name for name, exp in registry.experiments().items() if exp.reproduce]
    allowed = sorted(set.intersection(*(set(registry.get(n).profiles) for n in names))
                     if names else {"quick", "paper"})
    if profile not in allowed:              # before any experiment or benchmark runs
        raise ConfigError(f"--profile {profile!r}: no such profile; allowed profiles: "
                          f"{', '.join(allowed)}")
    jobs = study_jobs(profile, backend, jobs)
    if jobs > 1:
        names.sort(key=lambda n: SLOW_FIRST.index(n) if n in SLOW_FIRST else len(SLOW_FIRST))
        each = workers or max(1, (os.cpu_count() or 1) // jobs)
        commands = [(name, [sys.executable, "-m", "experiments", "run", name,
                            "--profile", profile, "--out", str(out), "--no-progress",
                            "--backend", backend, "--workers", str(each)]
                     + (["--address", address] if address else [])
                     + (["--recompute-corrupt"] if recompute_corrupt else [])
                     + (["--reuse-stale"] if reuse_stale else []))
                    for name in names]
        failed += [f"experiment {n}" for n in side_by_side(commands, jobs, timer)]
        names = []
    for name in names:
        print(f"=== {name}", flush=True)
        with timer.step(name):
            try:
                runner.run(name, profile=profile, backend=backend, address=address,
                           workers=workers, out=out, recompute_corrupt=recompute_corrupt,
                           reuse_stale=reuse_stale, progress=progress)
            except runner.RunError as err:    # names the files and the remedy
                print(f"experiment {name} failed: {err}", file=sys.stderr)
                failed.append(f"experiment {name}")
            except Exception as err:  # keep going: one broken experiment must not hide the rest
                print(f"experiment {name} failed: {err!r}", file=sys.stderr)
                failed.append(f"experiment {name}")
    failed += [f"benchmark {b}" for b in run_benchmarks(out / "bench", profile != "paper",
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
    import importlib
    # by name, as the registry finds the studies: the benchmarks import this
    # package's runner, so a static import would tie the two folders in a loop
    benches = importlib.import_module("experiments.bench").BENCHES
    timer = timer or StepTimer()
    failed = []
    for name in names if names is not None else benches:
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
    profile the shipped ``paper/results/`` (:mod:`experiments._shipped`); else
    ``results/<profile>``."""
    if out:
        return Path(out)
    if profile == "paper" and shipped.is_shipped(shipped.SHIPPED):
        return shipped.SHIPPED
    return runner.results_root() / profile


def ship(src: Path, dst: Path, only: list[str] | None = None) -> int:
    """Write the shipped copy of the finished paper-profile results ``src`` into
    ``dst`` (:func:`experiments._shipped.pack`), or with ``only`` add (or replace) just
    those studies in the existing shipped folder (:func:`experiments._shipped.add`);
    damaged results in ``src`` ship nothing. The exit status: 0, or 2 with the
    errors on stderr."""
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
    if only:
        try:
            info = shipped.add(src, only, dst)
        except (FileNotFoundError, ValueError, shipped.ShippedResultsError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print(f"added {', '.join(only)} from {src} to {dst}; every other shipped study "
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


def compare_profiles(quick: Path, paper: Path, *, per_quantity: bool = False,
                     run: bool = False) -> int:
    """Compare the quick profile's estimates in ``quick`` with the paper results in
    ``paper`` (:mod:`experiments._check`) and print the table; with ``run``, or when
    ``quick`` holds no results yet, first run (resume) the quick profile there
    (:func:`reproduce`). ``per_quantity``: judge each interval comparison on its own
    (default: together, Bonferroni-widened). The exit status: 0 when every quantity
    agrees, 1 on a disagreement or nothing to compare, 2 when results are missing
    or damaged."""
    from . import _check as check
    if not (shipped.is_shipped(paper) or any(paper.glob("*/metadata.json"))):
        print(f"error: no paper results to compare with in {paper}: name a folder with "
              f"--paper DIR (the shipped paper/results of a source checkout, or a "
              f"paper-profile run; default: ./paper/results, else $CH_RESULTS/paper or "
              f"./results/paper)", file=sys.stderr)
        return 2
    if run or not any(quick.glob("*/metadata.json")):
        print(f"=== running the quick profile into {quick} (finished units are kept)")
        check_output_dir(quick)
        rc = reproduce("quick", str(quick), progress=False)
        if rc != 0:
            return rc
    if not check_inputs(paper) or not check_inputs(quick):
        return 2
    rows, skipped = check.compare(quick, paper, family=not per_quantity)
    alone = check.compare(quick, paper, family=False)[0]
    print(f"quick: {quick}\npaper: {paper}\n")
    print(check.table(rows))
    for f in skipped:
        print(f"not compared (missing): {f}")
    bad = [r for r in rows if not r.agree]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} quantities agree")
    if not per_quantity:
        k = sum(r.intervals is not None for r in rows)
        miss = sum(not r.agree for r in alone if r.intervals is not None)
        print(f"({k} interval comparisons judged together; {miss} of them do not overlap at "
              f"95% each, --per-quantity)")
    if not rows:
        print("nothing to compare", file=sys.stderr)
        return 1
    return 1 if bad else 0
