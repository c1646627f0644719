"""Record files of earlier versions (``<out>/deals.jsonl``: a header line with the
configuration, then one checksummed JSON line per deal), written for tests of
the read-only loader (:func:`experiments.tournament.read_records`) and the
converter (:func:`experiments.tournament.convert_deals`)."""

from __future__ import annotations

import json
from pathlib import Path

import experiments.tournament as T


def header(config: T.TournamentConfig) -> dict:
    h = json.loads(json.dumps({"format": T.FORMAT, "fingerprint": config.fingerprint(),
                               "config": config.to_dict()}, default=str))
    h["sha256"] = T._digest(h, "")
    return h


def line(record: dict, config: T.TournamentConfig) -> str:
    return json.dumps({**record, "sha256": T._digest(record, config.fingerprint())})


def write(folder: Path, config: T.TournamentConfig, records: list[dict],
          tournament_json: dict | None = None) -> Path:
    """``folder/deals.jsonl`` as an earlier ``run_tournament(config, folder)`` left it
    (and ``tournament.json`` with the given metadata)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / T.SHARD
    path.write_text("".join(x + "\n" for x in [json.dumps(header(config))]
                            + [line(r, config) for r in records]))
    if tournament_json is not None:
        (folder / "tournament.json").write_text(json.dumps(tournament_json))
    return path


def play(folder: Path, config: T.TournamentConfig) -> Path:
    """Play ``config`` (nothing saved) and write its records as an earlier version did."""
    res = T.run_tournament(config, None, progress=False)
    return write(folder, config, res.records,
                 {"metadata": {"git_commit": "0123456789ab"}, "result": res.summary})
