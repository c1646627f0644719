#!/usr/bin/env bash
# Exploratory strength of the shipped classic networks (README "Measurements"):
# per variant, duplicate-deal tournaments (both seatings ABAB/BABA), seed 7 (not the
# training runs' evaluation seed), equal CPU time per move for the searches
# (clock='cpu', 10 ms, heuristic rollouts). Resumable (the tournament runner keeps
# finished deals). Usage: measure.sh [DEALS_NET] [DEALS_SEARCH]
# Environment: T (CPU seconds per search move, default 0.01), SEED (default 7),
# MATCHES (default "net_vs_heuristic bias_vs_ismcts net_vs_ismcts bias_vs_heuristic"),
# VARIANTS (default "pass nopass"), OUT, NICE (default 10).
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
NET_DEALS=${1:-200}
SEARCH_DEALS=${2:-100}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1
OUT=${OUT:-research/classic_net/runs/measure}
CLASSIC='"deck": "classic", "players": 4, "packs": 1, "moon": "both"'
T=${T:-0.01}
SEED=${SEED:-7}
MATCHES=${MATCHES:-net_vs_heuristic bias_vs_ismcts net_vs_ismcts bias_vs_heuristic}
ISMCTS="ismcts(time_limit=$T, rollout='heuristic', clock='cpu')"
mkdir -p "$OUT"
match() {   # name, game JSON, deals, agent a, agent b
  echo "$(date -u +%FT%TZ) start $1" >> "$OUT/measure.log"
  nice -n "${NICE:-10}" "$PY" -m experiments.tournament --agents "$4" "$5" --game "$2" --deals "$3" \
    --seed "$SEED" --workers 1 --out "$OUT/$1" --no-progress --reuse-stale > "$OUT/$1.txt" 2>&1
  echo "$(date -u +%FT%TZ) exit $? $1" >> "$OUT/measure.log"
}
for v in ${VARIANTS:-pass nopass}; do
  if [ "$v" = pass ]; then GAME="{$CLASSIC}"; M=classic-4; else GAME="{$CLASSIC, \"pass_count\": 0}"; M=classic-4-nopass; fi
  NET="network(checkpoint='$M')"
  BIAS="ismcts_bias(checkpoint='$M', bias=10.0, time_limit=$T, rollout='heuristic', clock='cpu')"
  for m in $MATCHES; do
    case $m in
      net_vs_heuristic) match "${v}_$m" "$GAME" "$NET_DEALS" "$NET" heuristic ;;
      bias_vs_ismcts) match "${v}_$m" "$GAME" "$SEARCH_DEALS" "$BIAS" "$ISMCTS" ;;
      net_vs_ismcts) match "${v}_$m" "$GAME" "$SEARCH_DEALS" "$NET" "$ISMCTS" ;;
      bias_vs_heuristic) match "${v}_$m" "$GAME" "$SEARCH_DEALS" "$BIAS" heuristic ;;
      *) echo "unknown match $m (allowed: net_vs_heuristic bias_vs_ismcts net_vs_ismcts bias_vs_heuristic)" >&2; exit 2 ;;
    esac
  done
done
