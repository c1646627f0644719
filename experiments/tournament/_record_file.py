"""The game record file of ``--records`` (``records=``): checked before anything is
played, rewritten atomically keeping other tournaments' lines; and the game records
of a saved tournament run."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from .. import runner
from .._base.config import ConfigError, check_output_dir
from ._config import TournamentError

__all__ = ["RECORDS_SOURCE", "game_records"]


#: What a game record written by a tournament carries in ``info["source"]``.
RECORDS_SOURCE = "experiments.tournament"


def _records_lines(path: Path, fingerprint: str):
    """``(raw line, belongs to another tournament)`` for every non-blank line of the
    game record file ``path``, read one by one (bounded, regular file only); a
    line that is not a record written by a tournament raises TournamentError."""
    from spiel_game.records import MAX_RECORD_BYTES, GameRecord, RecordError
    from spiel_game._safe_io import RefusedFile, iter_lines
    try:
        for no, raw in enumerate(iter_lines(path, MAX_RECORD_BYTES, "game record file"), 1):
            if not raw.strip():
                continue
            try:
                rec = GameRecord.from_dict(json.loads(raw), f"{path} line {no}")
            except (ValueError, RecursionError, RecordError) as e:
                raise TournamentError(
                    f"--records {path}: line {no} is not a game record ({str(e)[:200]}); "
                    f"--records writes a new file or rewrites one that a tournament wrote, "
                    f"so this file is left as it is: give another file name") from None
            if rec.info.get("source") != RECORDS_SOURCE:
                raise TournamentError(
                    f"--records {path}: line {no} is a game record not written by a "
                    f"tournament (info.source {rec.info.get('source')!r}); --records "
                    f"rewrites only files that tournaments wrote, so this file is left as "
                    f"it is: give another file name")
            yield raw.rstrip(b"\n"), rec.info.get("fingerprint") != fingerprint
    except RefusedFile as e:
        raise TournamentError(f"--records {path}: {e.problem}") from None
    except OSError as e:
        raise TournamentError(f"--records {path}: cannot be read "
                              f"({e.strerror or e})") from None


def _other_records(path: Path, fingerprint: str) -> int:
    """Check ``--records PATH`` before anything is played; the number of lines of
    other tournaments that a rewrite keeps.

    ``PATH`` may be a new file (its folder must exist or be creatable), or a
    regular file (not a symbolic link) that tournaments wrote: every line a
    game record with ``info.source`` ``experiments.tournament`` (an empty file
    too). Anything else (a folder, a FIFO, a device such as ``/dev/full``, a
    link, a file of anything else) raises TournamentError, and nothing is
    written there."""
    import stat as _stat
    from spiel_game._safe_io import kind
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        try:
            check_output_dir(path.parent)
        except ConfigError as err:
            raise TournamentError(f"--records {path}: {err}") from None
        return 0
    except OSError as e:
        raise TournamentError(f"--records {path}: {e.strerror or e}") from None
    if not _stat.S_ISREG(st.st_mode):
        raise TournamentError(
            f"--records {path} exists and is {kind(st.st_mode)}; --records writes a new "
            f"regular file or rewrites a game record file that a tournament wrote, and never "
            f"replaces anything else: give another file name")
    return sum(other for _, other in _records_lines(path, fingerprint))


def _write_records(path: Path, others: int, games: list[dict], config, recs) -> None:
    """Rewrite ``path``: the other tournaments' lines, then this one's game records
    (each deal once)."""
    _replace_records(path, config.fingerprint(), (json.dumps(g) for g in games))
    _missing_note(path, games, recs)


def _replace_records(path: Path, fingerprint: str | None, lines) -> None:
    """Rewrite the game record file ``path`` atomically: the lines of tournaments
    other than ``fingerprint`` (None: none kept), each checked again as it is
    copied (:func:`_other_records`), then ``lines``. The new file is written
    beside it under a fresh name (created, never opened through a link) and
    renamed over ``path`` only when complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(tmp, flags, 0o644)
    except OSError as e:
        raise TournamentError(f"--records {path}: cannot write {tmp} ({e.strerror or e}); "
                              f"nothing there was replaced") from None
    try:
        with os.fdopen(fd, "wb") as f:
            if os.path.lexists(path):
                _other_records(path, fingerprint or "")       # still a records file
                for raw, other in _records_lines(path, fingerprint or ""):
                    if other and fingerprint is not None:
                        f.write(raw + b"\n")
            for line in lines:
                f.write((line + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise TournamentError(f"--records {path}: cannot be written ({e.strerror or e}); "
                              f"nothing there was replaced") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _missing_note(path: Path, games: list[dict], recs) -> None:
    have = {g["info"].get("deal") for g in games}
    missing = [r["deal"] for r in recs if r["deal"] not in have]
    if missing:
        print(f"note: {len(missing)} saved deals (first {missing[:5]}) were played without "
              f"game records; {path} holds only the deals played with them", file=sys.stderr)


def game_records(result) -> tuple[list, list[int]]:
    """``(records, missing)`` of a loaded tournament run (:func:`experiments.runner.load`
    or :func:`~.run.run_tournament`'s folder): the :class:`spiel_game.records.GameRecord` of
    every deal and seat assignment, in deal order (each shard checked against its
    recorded hash), and the deals whose unit was saved without game records."""
    from spiel_game.records import GameRecord
    got = runner.attachments(result, "games")
    have = {i for i, _ in got}
    records = [GameRecord.from_dict(g, origin=f"{result.path} unit {i}")
               for i, games in got for g in games]
    records.sort(key=lambda r: (r.info.get("deal", 0), r.info.get("assignment", 0)))
    cfg = result.config or {}
    if dataclasses.is_dataclass(cfg):
        cfg = dataclasses.asdict(cfg)
    per = int(cfg.get("deals_per_unit", 10))
    total = int(cfg.get("deals", 0))
    missing = [d for i in runner._indices(result.metadata) if i not in have
               for d in range(i * per, min((i + 1) * per, total))]
    return records, missing
