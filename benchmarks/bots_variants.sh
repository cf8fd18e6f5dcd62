#!/bin/sh
# The "other variants" table of docs/bots.md: each pair in the arena, 4 players, per variant.
# Open, Nifty, Double: one deal per game (--target 0 --game-deals 1); Tournament and Hand keep their
# own deal structure (a Tournament game is one deal per player; Hand plays until its end condition).
# Reports go to results/bots-variants/ (not committed); python benchmarks/bots_variants_table.py prints the table.
# Usage: nice sh benchmarks/bots_variants.sh [DEALS] [JOBS] [VARIANTS] [PAIRS]
DEALS=${1:-200}
JOBS=${2:-2}
VARIANTS=${3:-"open double nifty hand tournament"}
PAIRS=${4:-"expert,medium medium,easy easy,random medium,random expert,random"}
OUT=${OUT:-results/bots-variants}
mkdir -p "$OUT"
for variant in $VARIANTS; do
    case $variant in
        tournament|hand) shape="" ;;
        *) shape="--target 0 --game-deals 1" ;;
    esac
    for pair in $PAIRS; do
        name=$variant-$(echo "$pair" | tr , -)
        .venv/bin/sixnimmt arena --bots "$pair" --variant "$variant" --deals "$DEALS" --players 4 \
            $shape --jobs "$JOBS" --seed 1 --out "$OUT/$name" --json > "$OUT/$name.json" || exit 1
        echo "$(date -u +%H:%M:%S) $variant $pair done"
    done
done
