"""The paper's numbers of :mod:`experiments._provenance`: :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path

from experiments._provenance import records


def paper_macros(m, results: Path, bench: Path) -> None:
    """The title page's summary of :func:`records` (:mod:`texmacros`)."""
    def commits() -> set:
        recs = records(results, bench)
        if not recs:
            raise ValueError(f"no result with metadata under {results}")
        return {(r.commit, r.dirty) for r in recs} | {c for r in recs for c in r.inner}
    m.add("ProvenanceResults", lambda: len(records(results, bench)), str,
          "result files the paper reads")
    m.add("ProvenanceCommits", lambda: len({c for c, _ in commits()}), str,
          "distinct commits the results (and the runs they pack) were computed at")
    m.add("ProvenanceDirty", lambda: len({c for c, d in commits() if d}), str,
          "of them, recorded from a tree with uncommitted changes")
