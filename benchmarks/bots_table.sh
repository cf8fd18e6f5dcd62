#!/bin/sh
# The strength table of docs/bots.md: each pair in the arena, 4 players, standard rules, one deal per
# game, 2,000 duplicate deals (each deal played in seatings ABAB and BABA), seed 1.
# Reports (arena JSON, CSV, chart) go to results/bots/ (not committed); the same seed gives the same report.
# Usage: nice sh benchmarks/bots_table.sh [DEALS] [JOBS] [PAIRS, e.g. "expert,hard hard,medium"]
DEALS=${1:-2000}
JOBS=${2:-2}
PAIRS=${3:-"expert,mcs100 expert,hard hard,medium medium,easy easy,random"}
OUT=${OUT:-results/bots}
mkdir -p "$OUT"
for pair in $PAIRS; do
    name=$(echo "$pair" | tr , -)
    .venv/bin/sixnimmt arena --bots "$pair" --deals "$DEALS" --players 4 --target 0 --game-deals 1 \
        --jobs "$JOBS" --seed 1 --out "$OUT/$name" --json > "$OUT/$name.json" || exit 1
    echo "$(date -u +%H:%M:%S) $pair done"
done
