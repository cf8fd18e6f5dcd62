#!/usr/bin/env bash
# Strength of the shipped `learned` bot: duplicate-deal arena matches, two seats of `learned` against
# two of each opponent (4 players, standard rules, one-deal games so that every shuffle is its own
# duplicate set: tight intervals). Reports go to examples/rl/results/; docs/bots.md quotes them.
#   bash examples/rl/evaluate.sh            # all opponents
#   DEALS=200 bash examples/rl/evaluate.sh random snug
set -euo pipefail
cd "$(dirname "$0")/../.."
SIXNIMMT=${SIXNIMMT:-.venv/bin/sixnimmt}
opponents=("$@")
[ ${#opponents[@]} -gt 0 ] || opponents=(random snug cautious mcs100)
mkdir -p examples/rl/results
for opponent in "${opponents[@]}"; do
  deals=${DEALS:-$([ "$opponent" = mcs100 ] && echo 400 || echo 1000)}
  echo "learned vs $opponent: $deals deals" >&2
  "$SIXNIMMT" arena --bots "learned,$opponent" --players 4 --deals "$deals" --target 0 --game-deals 1 \
    --seed 7 --json > "examples/rl/results/learned_vs_$opponent.json"
done
