#!/bin/sh
# Every strength table of the levels at full size, on a machine with many cores (docs/baselines.md,
# docs/bots.md): the medium-field table (benchmarks/baselines.py), then the expert-field, ladder,
# mixed and equal-time tables (benchmarks/strength.py). Each part keeps its cells as it goes and skips
# the cells already kept, so a part cut short is continued by running it again.
#
#   sh benchmarks/levels_tables.sh [PART] [JOBS]
#
# PART: baselines-2, baselines-4, baselines-6, baselines-10 (the medium field at one table size),
# strength-2, strength-4, strength-6, strength-10 (the other tables at one size), or all (default).
# JOBS: worker processes (default 16). PYTHON: the interpreter (default .venv/bin/python).
set -e
part=${1:-all}
jobs=${2:-16}
python=${PYTHON:-.venv/bin/python}
cd "$(dirname "$0")/.."

baselines() {  # the medium field at $1 players: every level's row played again, the rest only if missing
    "$python" benchmarks/baselines.py --players "$1" --jobs "$jobs" --again --bots easy medium hard expert grandmaster learned
    "$python" benchmarks/baselines.py --players "$1" --jobs "$jobs"
}

strength() {
    "$python" benchmarks/strength.py --players "$1" --jobs "$jobs"
}

case $part in
    baselines-*) baselines "${part#baselines-}" ;;
    strength-*) strength "${part#strength-}" ;;
    all)
        for p in 2 4 6 10; do baselines "$p"; done
        for p in 2 4 6 10; do strength "$p"; done ;;
    *) echo "unknown part: $part" >&2; exit 2 ;;
esac
