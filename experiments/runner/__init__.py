"""Run a registered experiment: units on a process pool or Ray, resumable shards, tidy tables.

``run("rules_stats", profile="quick", overrides={"hands": 2000})`` (or
``python -m experiments run rules_stats --set hands=2000``) writes one folder
per configuration::

    results/<profile>/<name>/            the profile's own configuration (what
                                         ``make reproduce`` runs, the paper reads)
    results/<profile>/<name>@<8 hex>/    any other configuration (overrides, a
                                         TOML file, another seed): the first 8
                                         hex digits of the config's SHA-256
        run.json            what is being computed: config, units, fingerprint, sessions
        shards/unit-000012.json   one finished unit: its params, seed and rows
        shards.sha256       the SHA-256 of every shard (``sha256sum -c`` format)
        rows.csv            every unit's rows, in unit order (rows.parquet with pyarrow)
        <table>.csv         the summary's tables (e.g. summary.csv)
        summary.txt         the summary's text
        metadata.json       config, seed, package versions, git commit, start/end,
                            machine, and the SHA-256 of every file above
        corrupt/            damaged files moved aside by ``recompute_corrupt=True``

``--out DIR`` (``out=``) replaces ``results/<profile>``; the folder name
inside follows the same rule. The folder is a function of the configuration
alone, so a run with overrides never touches the profile's results (which the
paper is built from), and :func:`load` with the same arguments finds the same
folder (``load(name, profile, overrides=...)``; ``load("demo@1a2b3c4d")``
names a folder directly).

Loss-free and resumable: only this process writes files, each atomically
(temporary file + ``os.replace``), and a shard's hash is appended to
``shards.sha256`` (flushed to disk) before the shard is written, so a run
killed at any moment leaves only complete shards with recorded hashes (a torn
last line of ``shards.sha256`` belongs to a shard that was not written). A
restarted run verifies every shard against its hash and skips the verified
ones: it ends with exactly the rows of an uninterrupted run. SIGINT (Ctrl-C)
and SIGTERM stop the worker processes at once and raise
:class:`RunInterrupted` ("interrupted; N of M units done; rerun the same
command to resume"); the command line prints that line, not a traceback.

Integrity: ``run.json`` and ``metadata.json`` carry the SHA-256 of their own
content (``content_sha256``); ``metadata.json`` records the hash of
``shards.sha256``, of ``rows.csv`` and of every table. :func:`load` verifies
the whole chain and, like a resumed run, reports each damaged, truncated or
missing file by name (:class:`CorruptResultError`), never a bare
``JSONDecodeError`` and never a silently wrong table. A resumed run refuses to
use a damaged shard: ``recompute_corrupt=True`` (``--recompute-corrupt``)
moves it to ``corrupt/`` and recomputes it; nothing is ever deleted silently.
The derived files (rows, tables, text, metadata) are rebuilt from the verified
shards by every run that finds all units done, without recomputing a unit.
Folders written before these hashes existed are adopted by the next run (the
shards are checked against the unit list and their hashes recorded; a note
says so); :func:`load` asks for that run first.

Never silently stale: every shard records the code that made it
(``code``: :func:`code_fingerprint`: the SHA-256 of this package's sources,
:func:`package_code_hash`, and the experiment's ``sources``: for tournaments
the module files of user agents and of the modules they import, checkpoint
files and shipped models, :func:`experiments.tournament._sources.agent_sources`). A
run that finds saved units prints ``N of M units reused (same code), K
recomputed`` (stderr) and recomputes a unit made by other code, naming the
part that differs (``package code``, ``agent module X``, ``imported module
Z``, ``checkpoint Y``, ``model M``); ``reuse_stale=True``
(``--reuse-stale``) keeps such units, ``fresh=True`` (``--fresh``) recomputes
everything. Shards saved before code was recorded count as made by other code.

A results folder belongs to one configuration and unit list: when the
experiment's code changes its profile or units, the profile folder is refused
unless ``fresh=True`` (``--fresh``), which deletes that folder's old results
(only that folder's, and in it only the files the runner wrote: each is listed
in ``.runner-files`` before it is written; a user's notes and sub-folders
stay). ``--fresh`` never works through a symbolic link: a run folder that is a
link is refused, and a link (or a FIFO) where the runner's file or folder was
is moved to ``corrupt/``, not followed and not deleted.

Every file of a results folder is read only if it is a regular file of
bounded size (:data:`MAX_DOC_BYTES`, :data:`MAX_SHARD_BYTES`,
:data:`MAX_TABLE_BYTES`; :mod:`spiel_game._safe_io`): a FIFO or a link to
``/dev/zero`` in a results folder is named as damaged at once, unread.

Backends: ``local`` (``workers`` processes, spawned; ``workers=1`` runs in this
process) and ``ray`` (tasks on a Ray cluster: ``address=None`` starts a local
instance, ``"auto"`` or ``"HOST:PORT"`` joins a running one; an instance
already initialised by the caller is used as it is). Joining a cluster, the
runner ships the checkout's packages with the job (:func:`ray_runtime_env`;
``CH_RAY_SHIP_CODE=0`` turns it off), so nodes that never saw the checkout run
the driver's code; each shard records the Ray node it ran on. Spawned workers import
the main script again, so a script that calls :func:`run` at its top level
without ``if __name__ == "__main__":`` is detected and run in this process
(``workers=1``, with a warning) instead of running the script once per
worker. Worker processes ignore SIGINT/SIGTERM (the driver stops them) and
die with the driver on Linux. Rows do not depend on the backend or the number
of workers. One run per results folder at a time (a lock file next to it).
An experiment registered with a ``call_time_limit`` runs its units in worker
processes (at least one) that report every call that may hang
(:func:`call_watch`); the driver stops the run with :class:`RunError` when one
stays open longer than the limit (the tournament's per-move time limit).

:func:`run_experiment` runs an experiment object (registered or not) into an
explicit folder (what :func:`experiments.tournament.run_tournament` uses) and
:func:`execute` runs units on the same backends without writing anything.

The modules, one role each (every name above is imported from here):
:mod:`~experiments.runner._core` (:func:`run`, :func:`run_experiment`: the steps
of a run), :mod:`~experiments.runner._results` (:func:`load`,
:func:`attachments`), :mod:`~experiments.runner._folders` (where results go,
the folder lock, ``--fresh``), :mod:`~experiments.runner._store` (the folder's
files, their hashes and bounded reads), :mod:`~experiments.runner._backends`
(local processes, Ray, signals), :mod:`~experiments.runner._watch` (the call
time limit), :mod:`~experiments.runner._progress`,
:mod:`~experiments.runner._fingerprint` (code fingerprints),
:mod:`~experiments.runner._archive` (:func:`pack_run`, :func:`restore_run`: a
run folder as one file, to resume on another machine) and
:mod:`~experiments.runner._errors`.
"""

from ._errors import (CorruptResultError, ResultsNotFoundError, RunError, RunInterrupted,
                     UnverifiedResultError)
from ._progress import unit_progress, unit_threads
from ._backends import BACKENDS, execute, ray_runtime_env
from ._folders import resolve, results_root, run_root
from ._results import RunResult, attachments, load
from ._core import run, run_experiment
from ._archive import pack_run, restore_run
# Internal names the command line, the studies and experiments.tournament import
# from here (not the documented API).
from ._watch import CallWatch, call_watch  # noqa: F401
from ._store import MAX_DOC_BYTES, MAX_SHARD_BYTES, MAX_TABLE_BYTES  # noqa: F401
from ._backends import RAY_PACKAGES, check_ray_address, check_workers, package_dirs  # noqa: F401
from ._fingerprint import code_fingerprint, package_code_hash  # noqa: F401
from ._backends import _stop_on_signals  # noqa: F401
from ._errors import _Stop  # noqa: F401
from ._store import _indices  # noqa: F401

__all__ = ["run", "load", "RunResult", "attachments", "resolve", "results_root", "run_root",
           "run_experiment", "execute", "BACKENDS", "ray_runtime_env", "unit_threads",
           "unit_progress", "RunError", "RunInterrupted", "CorruptResultError",
           "UnverifiedResultError", "ResultsNotFoundError", "pack_run", "restore_run"]
