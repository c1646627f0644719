"""Where a run's results go and what may be there: the results root, the folder
of a configuration (:func:`resolve`), the lock that allows one run per folder,
``--fresh`` (deleting only the runner's own files) and the check of a folder
against the run about to use it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shlex
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from .._base.config import ConfigError, config_to_dict, fingerprint, load_config_file
from .._base.registry import get
from ._errors import CorruptResultError, RunError
from ._store import (_ASIDE, _claim, _open_append, _owned_names, _plain_name, _prune_owned,
                    _read_doc)

__all__ = ["results_root", "run_root", "resolve"]

_LOCK = ".runner.lock"


def results_root() -> Path:
    """``$CH_RESULTS``, else ``results/`` of the current working folder, as an
    absolute path (read when called: a run resolves it before it starts, so its
    worker processes and its messages name the same folder). Never a folder of
    the installed package."""
    env = os.environ.get("CH_RESULTS")
    return Path(env).absolute() if env else Path.cwd() / "results"


def resolve(name: str, profile: str = "quick", overrides: Mapping[str, Any] | None = None,
            config_file: str | Path | None = None, seed: int | None = None):
    """``(experiment, config, folder, changed)`` of a run: the checked config, its
    results folder name (``name`` for the profile's own config, else
    ``name@<8 hex>``) and ``{key: value}`` of the fields that differ from the
    profile. Nothing is written."""
    exp = get(name)
    ov: dict[str, Any] = {}
    if config_file is not None:
        ov.update(load_config_file(config_file, exp.config_cls))
    ov.update(overrides or {})
    if seed is not None:
        ov["seed"] = seed
    config = exp.config(profile, ov)
    cfg, base = config_to_dict(config), config_to_dict(exp.config(profile))
    changed = {k: v for k, v in cfg.items() if base.get(k) != v}
    folder = exp.name if not changed else f"{exp.name}@{fingerprint(cfg)[:8]}"
    return exp, config, folder, changed


def _root(out, profile: str) -> Path:
    if isinstance(out, str) and not out.strip():
        raise ConfigError("the results folder (--out, out=) is an empty name; give a folder, "
                          "e.g. --out results/mine (or leave it out: results/<profile>)")
    return Path(out).absolute() if out is not None else results_root() / profile


def _cli_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        return ",".join(_cli_value(x) for x in v)
    return str(v)


def _command(name: str, profile: str, out, changed: Mapping[str, Any], *extra: str) -> str:
    """The command line that runs (or resumes) this configuration."""
    parts = ["python -m experiments run", shlex.quote(name)]
    if profile != "quick":
        parts += ["--profile", shlex.quote(profile)]
    if out is not None:
        parts += ["--out", shlex.quote(str(out))]
    parts += list(extra)
    if changed:
        parts += ["--set"] + [shlex.quote(f"{k}={_cli_value(v)}") for k, v in changed.items()]
    return " ".join(parts)


def _move_aside(run_dir: Path, path: Path, stamp: str) -> Path:
    """Move a damaged file into ``run_dir/corrupt/`` (kept, never deleted)."""
    aside = run_dir / _ASIDE
    aside.mkdir(exist_ok=True)
    dest = aside / f"{path.name}.{stamp}"
    _claim(dest)
    os.replace(path, dest)
    return dest


# What the runner names its files (a folder written before .runner-files existed)
_RUNNER_FILE = re.compile(r"run\.json|metadata\.json|shards\.sha256|summary\.txt|"
                          r"rows\.(csv|parquet)|shards/unit-[0-9]{6}\.json|"
                          r"corrupt/[^/]+\.[0-9]{8}T[0-9]{6}\.[0-9]{6}Z")
_TMP_FILE = re.compile(r"\..+\.[0-9]+\.tmp")


def _is_dir_no_link(path: Path) -> bool:
    import stat as _stat
    try:
        return _stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _runner_files(run_dir: Path) -> list[str]:
    """The relative names of the files the runner wrote in ``run_dir``: those in
    ``.runner-files``, those named as the runner names its files, and the tables
    a readable ``metadata.json`` lists; symbolic links to folders are not entered."""
    names = set(_owned_names(run_dir))
    for sub in ("", "shards", _ASIDE):
        where = run_dir / sub if sub else run_dir
        if sub and not _is_dir_no_link(where):
            continue
        try:
            entries = [e.name for e in os.scandir(where)]
        except OSError:
            continue
        names.update(f"{sub}/{e}" if sub else e for e in entries
                     if _RUNNER_FILE.fullmatch(f"{sub}/{e}" if sub else e))
    meta, _, problem = _read_doc(run_dir / "metadata.json")
    if not problem and isinstance(meta, dict) and isinstance(meta.get("files"), list):
        names.update(f for f in meta["files"] if _plain_name(f))
    return sorted(names)


def _clear(run_dir: Path, stamp: str, notes: list[str]) -> None:
    """``--fresh``: delete the files this runner wrote in ``run_dir``
    (:func:`_runner_files`) and nothing else. A user's notes and folders stay;
    nothing is followed through a symbolic link: a link (or a FIFO, a folder)
    where the runner's file was is moved to ``corrupt/``, not deleted."""
    import stat as _stat
    removed, moved = 0, []
    for sub in (_ASIDE, "shards"):         # the runner's folders must be real folders
        if os.path.lexists(run_dir / sub) and not _is_dir_no_link(run_dir / sub):
            dest = run_dir / f"{sub}.{stamp}"
            os.replace(run_dir / sub, dest)
            moved.append((run_dir / sub, dest))
    names = _runner_files(run_dir)
    # the moved-aside files first, so that what is moved there now stays
    for rel in sorted(names, key=lambda r: not r.startswith(_ASIDE + "/")):
        path = run_dir / rel
        if not all(_is_dir_no_link(run_dir.joinpath(*rel.split("/")[:i]))
                   for i in range(1, rel.count("/") + 1)):
            continue                       # under a link or not there: not entered
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as err:
            raise RunError(f"--fresh: cannot inspect {path}: {err.strerror or err} ({removed} "
                           f"of the runner's files deleted so far)") from None
        try:
            if _stat.S_ISREG(st.st_mode):
                path.unlink()
                removed += 1
            elif not rel.startswith(_ASIDE + "/"):
                moved.append((path, _move_aside(run_dir, path, stamp)))
        except OSError as err:
            raise RunError(f"--fresh: cannot delete {path}: {err.strerror or err} ({removed} "
                           f"of the runner's files deleted so far)") from None
    for sub in ("shards", _ASIDE):
        if _is_dir_no_link(run_dir / sub):
            with contextlib.suppress(OSError):     # only when empty
                (run_dir / sub).rmdir()
    _prune_owned(run_dir)
    notes.append(f"{run_dir}: --fresh deleted the {removed} file(s) this runner wrote there; "
                 f"anything else in the folder is kept")
    for path, dest in moved:
        notes.append(f"{path} was {_kind(path, dest)}, not a file this runner wrote; moved to "
                     f"{dest} (not followed, not deleted)")


def _kind(path: Path, dest: Path) -> str:
    from spiel_game._safe_io import kind
    try:
        return kind(os.lstat(dest).st_mode)
    except OSError:
        return "not a regular file"


def _prepare(run_dir: Path, manifest: dict, fresh: bool, recompute: bool, remedy: str,
             stamp: str, notes: list[str]) -> tuple[dict, bool]:
    """Check (or reset) ``run_dir`` for this manifest: ``(old run.json, legacy)``."""
    mpath = run_dir / "run.json"
    shards = run_dir / "shards"
    if fresh:
        _clear(run_dir, stamp, notes)
    has_shards = shards.exists() and any(shards.glob("unit-*.json"))
    if not mpath.exists() and not has_shards:
        return {}, False
    old, sealed, problem = _read_doc(mpath)
    if problem == "missing":
        problem = "missing although shards exist (deleted)"
    if problem:
        if not recompute:
            raise CorruptResultError(
                f"{mpath}: {problem}. Nothing was changed; {remedy}", [(mpath, problem)])
        if mpath.exists():
            notes.append(f"{mpath}: {problem}; moved to "
                         f"{_move_aside(run_dir, mpath, stamp)} and written again")
        return {}, False
    if old.get("fingerprint") != manifest["fingerprint"]:
        oc = old.get("config", {})
        diff = {k: (oc.get(k), v) for k, v in manifest["config"].items() if oc.get(k) != v}
        raise RunError(
            f"{run_dir} holds results of another configuration or unit list (changed config "
            f"keys, old -> new: {diff or 'none: the units changed'}): the experiment's code "
            f"or profile changed since they were computed; rerun with --fresh (fresh=True) "
            f"to delete this folder's results and start again, or choose --out")
    return old, not sealed


@contextlib.contextmanager
def _run_root_set(root: Path):
    """``$CH_RUN_ROOT`` = ``root`` for the duration of a run (inherited by local
    worker processes); the previous value afterwards."""
    old = os.environ.get("CH_RUN_ROOT")
    os.environ["CH_RUN_ROOT"] = str(root.resolve())
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("CH_RUN_ROOT", None)
        else:
            os.environ["CH_RUN_ROOT"] = old


def run_root() -> Path:
    """The results folder of the run in progress (``out``, or :func:`results_root`
    ``/ profile``), for units that keep files beside the run (e.g. checkpoints);
    outside a run, :func:`results_root`. Local worker processes inherit it; Ray
    workers on other nodes do not (give such experiments an explicit folder)."""
    env = os.environ.get("CH_RUN_ROOT")
    return Path(env) if env else results_root()


@contextlib.contextmanager
def _exclusive(run_dir: Path):
    """One run per results folder at a time (released when the process dies)."""
    lock = run_dir / _LOCK
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"cannot write to {run_dir}: {err.strerror or err}") from None
    with os.fdopen(_open_append(lock), "ab") as f:   # a FIFO or a link there: refused
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RunError(f"another run is writing {run_dir} (lock {lock})") from None
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
