#!/usr/bin/env bash
# Train the two classic-Hearts networks (distill profiles "classic": 3-card pass to
# the left, and "classic_nopass") side by side on ONE core (taskset), niced, one
# torch/numba/BLAS thread each. Resumable: rerun this script after an interruption;
# the runner keeps every finished round (unit shard) and the round's checkpoint
# (--reuse-stale: rounds made before an unrelated code change are kept, not
# re-evaluated). Logs: research/classic_net/runs/<variant>.log; checkpoints:
# research/classic_net/runs/<variant>/checkpoints/distill-*/round-XXXX.npz (git-ignored).
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
CORE=${CORE:-1}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1
OUT=research/classic_net/runs
mkdir -p "$OUT"
run() {   # profile, variant folder
  echo "$(date -u +%FT%TZ) start $1" >> "$OUT/$2.log"
  taskset -c "$CORE" nice -n 10 "$PY" -m experiments run distill --profile "$1" \
    --workers 1 --reuse-stale --no-progress --out "$OUT/$2" >> "$OUT/$2.log" 2>&1
  echo "$(date -u +%FT%TZ) exit $? $1" >> "$OUT/$2.log"
}
run classic pass &
run classic_nopass nopass &
wait
