#!/usr/bin/env bash
# The declared confirmatory runs (paper/preregistration_confirmatory.md), in the
# declared order: the ladder, then the passing tests. Resumable: run it again after
# any stop (it restores missing run folders from archive/ first, and the runner
# skips the saved units). Every 10 minutes, and after each run, the saved units are
# packed into archive/ (commit them: git add research/confirmatory/archive).
# Started as (README.md):
#   nice -n 10 nohup research/confirmatory/run.sh >> research/confirmatory/run.log 2>&1 &
set -u
cd "$(git rev-parse --show-toplevel)"
PY=.venv/bin/python
DECL=paper/preregistration_confirmatory.md
OUT=research/confirmatory/runs
stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }

$PY research/confirmatory/archive.py restore
echo "$(stamp) start (pid $$); commit $(git rev-parse --short HEAD); declaration sha256 $(sha256sum "$DECL" | cut -c1-64)"
( while sleep 600; do echo "$(stamp) progress:"; $PY research/confirmatory/archive.py pack; done ) &
packer=$!
trap 'kill "$packer" 2>/dev/null' EXIT

echo "$(stamp) ladder"
$PY -m experiments run ladder --profile paper --config research/confirmatory/ladder.toml \
    --declaration "$DECL" --out "$OUT" --workers 1 --no-progress --reuse-stale
rc=$?
echo "$(stamp) ladder exit $rc"; $PY research/confirmatory/archive.py pack
[ "$rc" -eq 0 ] || exit "$rc"

echo "$(stamp) confirmatory_passing"
CH_EXPERIMENT_MODULES=research.confirmatory.passing \
$PY -m experiments run confirmatory_passing --profile paper \
    --declaration "$DECL" --out "$OUT" --workers 1 --no-progress --reuse-stale
rc=$?
echo "$(stamp) confirmatory_passing exit $rc"; $PY research/confirmatory/archive.py pack
exit "$rc"
