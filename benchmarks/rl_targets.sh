#!/usr/bin/env bash
# The strength targets of the shipped `learned` bot (docs/rl.md, "The shipped policy and its strength"):
# duplicate-deal arena runs, one-deal games, seed 7; it against `medium` at 2, 3 and 6 players (500
# deals each) and 10 players (8,000 deals: the edge there is small, and 500 deals cannot resolve it),
# and against `mcs100` at 4 players (2,000 deals); then the learned prior inside the
# search: `expert-learned` against `expert` at 4 players (300 deals). Reports go to results/rl/
# (not committed: the arena is deterministic, so the same command gives the same report); one
# process at a time unless JOBS says otherwise (nice it on a shared machine).
#   bash benchmarks/rl_targets.sh                       # everything, the shipped policy
#   POLICY=runs/distil/policy.npz bash benchmarks/rl_targets.sh medium
#   bash benchmarks/rl_targets.sh mcs100 prior          # only those parts
#   DEALS=8000 JOBS=2 bash benchmarks/rl_targets.sh mcs100   # more deals, two processes (same results
#                                                             # as one: every deal has its own seed)
set -euo pipefail
cd "$(dirname "$0")/.."
SIXNIMMT=${SIXNIMMT:-.venv/bin/sixnimmt}
POLICY=${POLICY:-shipped}
OUT=${OUT:-results/rl}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(medium mcs100 prior)
mkdir -p "$OUT"
arena() {  # NAME PLAYERS DEALS BOTS
  echo "$1: $4, $2 players, $3 deals" >&2
  # Written aside, then moved: a run cut short leaves no half-written report in the tree.
  "$SIXNIMMT" arena --bots "$4" --players "$2" --deals "$3" --target 0 --game-deals 1 --seed 7 --jobs "${JOBS:-1}" --json \
    > "$OUT/.$1.json.part"
  mv "$OUT/.$1.json.part" "$OUT/$1.json"
}
for part in "${parts[@]}"; do
  case "$part" in
    medium) for players in 2 3 6 10; do
              default=500; [ "$players" = 10 ] && default=8000
              arena "learned_vs_medium_$players" "$players" "${DEALS:-$default}" "learned:policy=$POLICY,medium"
            done ;;
    mcs100) arena learned_vs_mcs100_4 4 "${DEALS:-2000}" "learned:policy=$POLICY,mcs100" ;;
    prior) arena expert_learned_vs_expert_4 4 "${DEALS:-300}" "expert-learned:policy=$POLICY,expert" ;;
    *) echo "unknown part $part: medium, mcs100 or prior" >&2; exit 2 ;;
  esac
done
