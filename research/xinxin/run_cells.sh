#!/usr/bin/env bash
# Our agents against xinxin in the classic game: 4 cells (and 3 equal-time ones below) (heuristic / ISMCTS at
# xinxin's median time per move) x (no passing / 3-card pass left), 300
# duplicate deals each, seed 1. The cells take turns: each round gives every
# cell a time slice (timeout sends SIGTERM; the runner keeps every finished
# unit of 2 deals and the next round resumes it), so all four grow together.
# Rerun this script to resume; a finished cell returns at once.
# Usage (from the repository root): nice -n 10 research/xinxin/run_cells.sh [ROUNDS]
set -u
PY=${PY:-python}
OUT=${OUT:-research/xinxin/runs}
ROUNDS=${1:-20}
BASE='"players": 4, "deck": "classic", "packs": 1, "moon": "both"'
NOPASS="{$BASE, \"pass_count\": 0}"
PASS="{$BASE}"
cell() {   # name, seconds per round, game, our agent
  timeout -s TERM "$2" "$PY" -m experiments.tournament --agents "$4" xinxin \
    --game "$3" --deals 300 --seed 1 --deals-per-unit 2 --workers 1 \
    --out "$OUT/$1" --no-progress >> "$OUT/$1.log" 2>&1
  echo "$(date -u +%H:%M:%S) $1 exit $?" >> "$OUT/rounds.log"
}
mkdir -p "$OUT"
for r in $(seq "$ROUNDS"); do
  cell heuristic_nopass 150 "$NOPASS" heuristic
  cell heuristic_pass 270 "$PASS" heuristic
  cell ismcts_nopass 270 "$NOPASS" "ismcts(time_limit=0.10, rollout='heuristic')"
  cell ismcts_pass 510 "$PASS" "ismcts(time_limit=0.15, rollout='heuristic')"
  # the equal-time cells (README: T from xinxin's time on the idle machine)
  cell eq_nopass 270 "$NOPASS" "ismcts(time_limit=0.040, rollout='heuristic')"
  cell eq_pass 270 "$PASS" "ismcts(time_limit=0.060, rollout='heuristic')"
  cell eq_pass48 270 "$PASS" "ismcts(time_limit=0.048, rollout='heuristic')"
done
