#!/usr/bin/env bash
# Proof that the confirmatory seeds are fresh (paper/preregistration_confirmatory.md):
# every seed the declared runs use, as a whole word, in the tracked files of COMMIT
# (default HEAD) outside the design's own files, and in the results on this machine
# (results/, paper/results/, research/ except this folder). Prints each number with
# its counts and exits 1 if any is found.
set -u
commit=${1:-HEAD}
cd "$(git rev-parse --show-toplevel)"
seeds="7342100 7342106 7342111 7342400"
for b in $(seq 0 23); do seeds="$seeds $((7342300 + b)) $((7342300 + b + 7919))"; done
found=0 n=0
for s in $seeds; do
  n=$((n + 1))
  t=$(git grep -lw "$s" "$commit" -- . ':!research/confirmatory' \
        ':!paper/preregistration_confirmatory.md' | wc -l)
  d=$(grep -rlw "$s" results paper/results research --exclude-dir=confirmatory 2>/dev/null | wc -l)
  echo "$s tracked files: $t, result files on disk: $d"
  [ "$t" -ne 0 ] || [ "$d" -ne 0 ] && found=1
done
echo "$n seeds checked at $(git rev-parse --short "$commit"); $([ $found -eq 0 ] && echo 'none is used elsewhere' || echo 'SOME ARE USED ELSEWHERE')"
exit $found
