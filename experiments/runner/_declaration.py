"""A declared run: the SHA-256 of a declaration file (a pre-registration) is
recorded at the run's first unit, and the run is refused afterwards if the file
changed.

``run(..., declaration="paper/preregistration_x.md")`` (``--declaration FILE``):
the first session of a run folder writes ``declaration.json`` (the file's path
as given, its SHA-256 and when it was recorded) before any unit is computed,
and the same record goes into ``run.json`` and ``metadata.json``
(``declaration``). Every later session, before it computes anything, hashes
the file again and refuses (:class:`RunError`, one line naming the file and
both hashes) when the hash differs: a confirmatory run does not continue under
a changed declaration. A folder started without a declaration is not continued
with one, and a declared folder is not continued without its declaration.
``--fresh`` deletes the record with the folder's other results (a new run).
Without ``declaration`` nothing of this is written or checked (unless the
folder was started with one)."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from ._errors import RunError
from ._store import MAX_DOC_BYTES, _read_doc

__all__ = ["RECORD", "declared", "check_declaration"]

#: The record of a declared run, in its folder.
RECORD = "declaration.json"


def declared(path: str | Path) -> dict:
    """``{"path", "sha256"}`` of the declaration file ``path`` (a regular file of
    bounded size), read now; a missing or unreadable file is a :class:`RunError`."""
    from spiel_game._safe_io import RefusedFile, read_bytes

    p = Path(path)
    try:
        data = read_bytes(p, MAX_DOC_BYTES, "declaration file")
    except FileNotFoundError:
        raise RunError(f"declaration {path}: no such file; --declaration (declaration=) names "
                       f"the committed file that declares the run (e.g. a pre-registration)"
                       ) from None
    except RefusedFile as err:
        raise RunError(f"declaration {path} {err.problem}") from None
    except OSError as err:
        raise RunError(f"declaration {path}: cannot be read ({err.strerror or err})") from None
    return {"path": str(path), "sha256": hashlib.sha256(data).hexdigest()}


def _recorded(run_dir: Path, old: dict) -> dict | None:
    """The declaration recorded in ``run_dir`` (``declaration.json``, else the one in
    the old ``run.json``), None when the folder was started without one."""
    doc, _, problem = _read_doc(run_dir / RECORD)
    if problem == "missing":
        return old.get("declaration") if isinstance(old.get("declaration"), dict) else None
    if problem:
        raise RunError(f"{run_dir / RECORD}: {problem}; the declaration of this run cannot be "
                       f"checked: restore the file (or start a new run with --fresh)")
    return doc


def check_declaration(run_dir: Path, old: dict, started: bool,
                      current: dict | None) -> dict | None:
    """The declaration record of the run about to go on in ``run_dir``, after
    checking it against the one recorded there (``old``: the folder's run.json,
    ``started``: it holds a run.json or saved units). ``current``: :func:`declared`
    of the file given now, or None. Returns the record to keep (a new one, with
    its time, when the folder is new), or None for an undeclared run. Raises
    :class:`RunError` when the declaration changed, or when a declared and an
    undeclared run would share the folder."""
    was = _recorded(run_dir, old)
    if current is None:
        if was is not None:
            raise RunError(
                f"{run_dir} was started under the declaration {was.get('path')} (sha256 "
                f"{was.get('sha256')}); a declared run is continued only with its declaration: "
                f"add --declaration {was.get('path')} (declaration=...)")
        return None
    if was is None:
        if started:
            raise RunError(
                f"{run_dir} was started without a declaration; it cannot be continued under "
                f"the declaration {current['path']}: run the declared design into a new "
                f"folder (--out) or delete these results with --fresh")
        return {**current, "recorded": dt.datetime.now(dt.UTC).isoformat()}
    if was.get("sha256") != current["sha256"]:
        raise RunError(
            f"declaration {current['path']} changed after the run's first unit (recorded "
            f"sha256 {was.get('sha256')} for {was.get('path')}, now {current['sha256']}): a "
            f"declared run does not continue under a changed declaration; nothing was "
            f"computed (restore the declared file, or start a new run with a new "
            f"declaration)")
    return was
