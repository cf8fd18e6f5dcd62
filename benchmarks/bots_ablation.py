"""Search-bot ablations: register variants of the searchers' settings under temporary names and play
one duplicate match with ``bots_duplicate.match`` (4 players, seatings ABAB and BABA).

    nice .venv/bin/python benchmarks/bots_ablation.py x_snug1 mcs100 400 11 1   # A B DEALS SEED JOBS

The figures quoted in docs/bots.md ("What did not help") come from ``x_half`` (= ``expert``) and
``x_snug1`` against ``mcs100``, 400 deals, seed 11, one job each.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bots_duplicate

from sixnimmt.bots.rollout import SNUG
from sixnimmt.bots.search import MonteCarloBot, SearchConfig
from sixnimmt.seats.registry import register

CONFIGS = {
    "x_half": SearchConfig(samples=100, split=(0.4, 0.3, 0.3)),  # = expert
    "x_snug1": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), policy=SNUG, noise=1.0),
    "x_snug3": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), policy=SNUG, noise=3.0),
    "x_flat": SearchConfig(samples=100),  # = mcs
    "x_rel": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), relative=True),
}


def main() -> None:
    for name, config in CONFIGS.items():
        register(name, partial(MonteCarloBot, config=config), f"ablation {name}")
    a, b, deals, seed, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    print(json.dumps(bots_duplicate.match(a, b, deals, seed, jobs)), flush=True)


if __name__ == "__main__":
    main()
