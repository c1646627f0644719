"""The ``--out`` folders of earlier versions: ``deals.jsonl`` (a header with the
configuration, one checksummed line per deal), read with every check
(:func:`read_records`) and turned into runner folders (:func:`convert_deals`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import socket
from pathlib import Path

from .._base.config import config_to_dict
from ._config import (SHARD, TournamentConfig, TournamentError, _deal_range, _is_int, _load_game,
                     seat_assignments)
from ._rows import deal_rows
from ._run import TournamentResult, _units, run_tournament

__all__ = ["read_records", "convert_deals", "FORMAT", "MAX_DEALS_BYTES"]

MAX_DEALS_BYTES = 1 << 30        # the longest deals.jsonl read (regular files only)
FORMAT = 2                      # deals.jsonl with a checksum on every line


def convert_deals(old: str | Path, out: str | Path, *, progress: bool = False
                  ) -> TournamentResult:
    """Turn an ``--out`` folder of an earlier version (``old/deals.jsonl``: a header
    with the configuration, one checksummed line per deal) into the runner folder
    ``out`` of the same tournament, without playing a deal.

    Every line is checked as :func:`read_records` does (header, fingerprint,
    checksums, structure); the deals become the units' shards (marked
    ``imported_from``), the runner records their hashes and writes the tables,
    ``summary.txt`` and ``metadata.json``. The code that played them is not
    known, so they are reused as made by other code (a later
    ``run_tournament(config, out)`` recomputes them unless ``reuse_stale``).
    Refuses an ``out`` that exists. Returns the :class:`~.run.TournamentResult`."""
    old, out = Path(old), Path(out)
    path = old / SHARD
    try:
        from spiel_game._safe_io import RefusedFile, iter_lines
        try:
            header = json.loads(next(iter(iter_lines(path, MAX_DEALS_BYTES, "record file")),
                                     b""))
        except RefusedFile as e:
            raise TournamentError(str(e)) from None
        config = TournamentConfig.from_dict(header["config"])
    except FileNotFoundError:
        raise TournamentError(f"{path} not found") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise TournamentError(f"{path}: the header line (format, fingerprint, config) is "
                              f"damaged or missing: {e}") from None
    saved = _scan_shard(path, config, seat_assignments(
        _load_game(config.game_params).num_players(), len(config.agents), config.lineup,
        config.rotations), _load_game(config.game_params).num_players()).records
    deals = sorted(d for d in saved if d >= config.first_deal)
    last = deals[-1] + 1 if deals else config.first_deal
    config = dataclasses.replace(config, deals=last - config.first_deal, workers=1)
    records = read_records(old, config)             # every deal, every check
    if out.exists():
        raise TournamentError(f"{out} exists; convert into a new folder")
    tmp = out.with_name(out.name + ".converting")
    runner_tmp = tmp / "shards"
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    runner_tmp.mkdir(parents=True)
    units = _units(config)
    for u, rec in zip(units, records):
        shard = {"index": u.index, "seed": u.seed, "params": u.params,
                 "rows": json.loads(json.dumps(deal_rows([rec]))),
                 "elapsed_s": sum(rec["timing"]["seconds"]), "host": socket.gethostname(),
                 "imported_from": str(path)}
        (runner_tmp / f"unit-{u.index:06d}.json").write_text(json.dumps(shard, indent=1))
    cfg = config_to_dict(config)
    (tmp / "run.json").write_text(json.dumps(
        {"experiment": "tournament", "profile": "quick", "config": cfg, "units": len(units),
         "fingerprint": config.fingerprint()}, indent=1))
    tmp.rename(out)
    return run_tournament(config, out, progress=progress, reuse_stale=True)


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _digest(obj: dict, salt: str) -> str:
    """SHA-256 of ``salt`` (a record: the tournament's fingerprint) and ``obj``'s
    canonical JSON (``sha256`` itself left out)."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    return hashlib.sha256((salt + "\n" + _canonical(body)).encode()).hexdigest()




def _short_keys(obj: dict) -> str:
    keys = sorted(map(str, obj))
    text = repr(keys)
    return text if len(text) <= 120 else text[:100] + f"... ({len(keys)} keys)"


def _header_problem(obj: dict) -> str | None:
    """Why a header line is damaged (None: intact)."""
    if "sha256" in obj:
        if obj.get("format") != FORMAT:
            return f"unknown record-file format {obj.get('format')!r} (this version reads {FORMAT})"
        return None if obj["sha256"] == _digest(obj, "") else "the header's checksum does not match"
    if set(obj) != {"fingerprint", "config"}:  # a checksummed header whose "sha256" is damaged
        return (f"the header's fields {_short_keys(obj)} are damaged (a header has format, "
                f"fingerprint, config and sha256)")
    try:                                        # written before checksums: self-consistency
        ok = TournamentConfig.from_dict(obj["config"]).fingerprint() == obj["fingerprint"]
    except (TournamentError, KeyError, TypeError, ValueError):
        ok = False
    return None if ok else "the header's fingerprint does not match its config"


_RECORD_KEYS = {"deal", "assignments", "points", "hands", "timing"}


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _record_problem(obj: dict, fingerprint: str, assigns: list[list[int]], n: int, k: int,
                    legacy: bool) -> str | None:
    """Why a deal line cannot be used (None: it is a valid record of this tournament)."""
    missing, extra = _RECORD_KEYS - set(obj), set(obj) - _RECORD_KEYS - {"sha256"}
    if missing:
        return f"not a deal record: missing {sorted(missing)}"
    if extra:
        return f"unexpected field(s) {sorted(extra)} in a deal record"
    d = obj["deal"]
    if not _is_int(d) or d < 0:
        return f"deal index {d!r} is not an integer >= 0"
    if obj["assignments"] != assigns:
        return (f"deal {d}: seat assignments {obj['assignments']!r} differ from this "
                f"tournament's {assigns!r}")
    pts, hands, tm = obj["points"], obj["hands"], obj["timing"]
    if not isinstance(pts, list) or len(pts) != len(assigns) or not all(
            isinstance(r, list) and len(r) == n and all(_num(x) for x in r) for r in pts):
        return f"deal {d}: points must be {len(assigns)} rows of {n} finite numbers"
    if not isinstance(hands, list) or len(hands) != len(assigns) or not all(
            _is_int(h) and h >= 1 for h in hands):
        return f"deal {d}: hands must be {len(assigns)} integers >= 1"
    for r, h in zip(pts, hands):
        if any(abs(x * h - round(x * h)) > 1e-6 * max(1.0, abs(x * h)) for x in r):
            return f"deal {d}: points {r} are not whole scores over {h} hand(s)"
    if (not isinstance(tm, dict) or set(tm) - {"cpu_seconds"} != {"seconds", "decisions"}
            or not isinstance(tm["seconds"], list) or len(tm["seconds"]) != k
            or not all(_num(x) and x >= 0 for x in tm["seconds"])
            or not isinstance(tm["decisions"], list) or len(tm["decisions"]) != k
            or not all(_is_int(x) and x >= 0 for x in tm["decisions"])):
        return f"deal {d}: timing must hold seconds and decisions for {k} agents"
    if "sha256" not in obj:
        return None if legacy else f"deal {d}: no checksum (sha256)"
    if obj["sha256"] != _digest(obj, fingerprint):
        return (f"deal {d}: checksum mismatch: the record was changed after it was written "
                f"(or belongs to another tournament)")
    return None


@dataclasses.dataclass
class _Scan:
    """What ``deals.jsonl`` holds: valid records, problems (line, what, raw bytes or
    None) and how the file must be fixed."""

    records: dict[int, dict] = dataclasses.field(default_factory=dict)
    problems: list[tuple[int, str, bytes | None]] = dataclasses.field(default_factory=list)
    header_ok: bool = False
    legacy: bool = False
    foreign: dict | None = None         # the header of another tournament
    other_lines: int = 0                # non-blank lines besides the header
    tail_start: int | None = None       # byte offset of an incomplete last line
    tail_note: str | None = None
    tail_kept: bool = False             # the last line is complete but lacks its newline


def _scan_shard(path: Path, config: TournamentConfig, assigns, n: int) -> _Scan:
    sc = _Scan()
    if not path.exists():
        return sc
    from spiel_game._safe_io import RefusedFile, read_bytes
    try:
        raw = read_bytes(path, MAX_DEALS_BYTES, "record file")
    except RefusedFile as e:
        raise TournamentError(str(e)) from None
    fp, k = config.fingerprint(), len(config.agents)
    assigns = [list(a) for a in assigns]
    first_line = {}                     # deal -> line number of its record
    pos, lineno, first = 0, 0, True
    while pos < len(raw):
        nl = raw.find(b"\n", pos)
        complete = nl >= 0
        end = nl if complete else len(raw)
        line, start = raw[pos:end], pos
        pos = end + 1
        lineno += 1
        if not line.strip():
            if not complete:
                sc.tail_start = start
            continue
        problem, obj = None, None
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as e:
            problem = f"not valid JSON ({e})"
        if problem is None and not isinstance(obj, dict):
            problem = f"not a JSON object (a {type(obj).__name__})"
        is_header = problem is None and "fingerprint" in obj
        if problem is None and is_header:
            if not first:
                problem = "a header line out of place (the header belongs on line 1)"
            else:
                problem = _header_problem(obj)
                if problem is None and obj["fingerprint"] != fp:
                    sc.foreign = obj
                elif problem is None:
                    sc.header_ok, sc.legacy = True, "sha256" not in obj
        elif problem is None:
            problem = _record_problem(obj, fp, assigns, n, k, sc.legacy)
            if problem is None and obj["deal"] in sc.records:
                problem = (f"deal {obj['deal']} is recorded twice (first on line "
                           f"{first_line[obj['deal']]})")
        if problem is not None and not complete:     # a torn last line: a killed writer
            sc.tail_start = start
            sc.tail_note = (f"{path}: line {lineno} is incomplete ({len(line)} bytes without a "
                            f"newline: a write cut off by a kill); it was dropped"
                            + ("" if first else " and its deal will be played again"))
            break
        if first and not is_header:
            sc.problems.append((lineno, "the file does not start with its header line "
                                "(format, fingerprint, config)", None))
        if not first or not is_header:
            sc.other_lines += 1
        first = False
        if problem is not None:
            sc.problems.append((lineno, problem, line))
        elif not is_header:
            sc.records[obj["deal"]] = {k_: v for k_, v in obj.items() if k_ != "sha256"}
            first_line[obj["deal"]] = lineno
        if not complete:
            sc.tail_kept = True
    return sc


def _problem_report(path: Path, problems, limit: int = 20) -> str:
    lines = [f"  line {ln}: {what}" for ln, what, _ in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"  ... and {len(problems) - limit} more")
    return (f"{path}: {len(problems)} bad line(s); nothing was changed:\n" + "\n".join(lines)
            + "\n(a record file of an earlier version: read-only; convert_deals turns its "
            "valid deals into a runner folder)")


def read_records(out: str | Path, config: TournamentConfig) -> list[dict]:
    """The deal records of ``config`` saved in ``out/deals.jsonl`` (in deal order, the
    deals of :attr:`~.config.TournamentConfig.first_deal` ... only), read with every check a
    resumed tournament makes (header, fingerprint, checksums, structure); changes
    nothing. This reads the ``--out`` folders of earlier versions (the record file
    ``deals.jsonl``); :func:`convert_deals` turns them into runner folders.
    Raises :class:`~.config.TournamentError` when the file is missing, belongs to
    another tournament, has a bad or incomplete line, or lacks one of the deals."""
    path = Path(out) / SHARD
    if not path.is_file():
        if path.exists():
            from spiel_game._safe_io import kind
            raise TournamentError(f"{path} is {kind(path.stat().st_mode)}; allowed: a regular "
                                  f"file (the record file of an earlier version)")
        raise TournamentError(f"{path} not found")
    game = _load_game(config.game_params)
    n = game.num_players()
    assigns = seat_assignments(n, len(config.agents), config.lineup, config.rotations)
    sc = _scan_shard(path, config, assigns, n)
    if sc.foreign is not None:
        raise TournamentError(f"{path} holds deals of another tournament (its config: "
                              f"{sc.foreign.get('config')}; expected {config.to_dict()})")
    if sc.problems:
        raise TournamentError(_problem_report(path, sc.problems))
    if sc.tail_note or not sc.header_ok:
        raise TournamentError(sc.tail_note or f"{path} has no header line")
    missing = [d for d in _deal_range(config) if d not in sc.records]
    if missing:
        raise TournamentError(f"{path} lacks {len(missing)} deal(s) of the "
                              f"{config.deals} asked for: {missing[:10]}")
    return [sc.records[d] for d in _deal_range(config)]
