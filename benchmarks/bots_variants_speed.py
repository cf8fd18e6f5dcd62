"""CPU time per decision of the searchers in each variant (one core; the bots are single-threaded).

Usage: nice python benchmarks/bots_variants_speed.py [DEALS] [BOTS]   (defaults: 10, hard,expert)
Each bot plays every seat of DEALS one-deal games (Tournament: one tournament) with 4 players.
"""

from __future__ import annotations

import sys
import time

from sixnimmt.core import Game, Rules
from sixnimmt.seats import make_bot

VARIANTS = ("open", "double", "nifty", "hand", "tournament")


def speed(name: str, variant: str, deals: int) -> tuple[float, float, int]:
    """Mean and slowest CPU milliseconds per decision, and the number of decisions."""
    bots = [make_bot(name, seat) for seat in range(4)]
    thinking, slowest, decisions = 0.0, 0.0, 0
    for deal in range(deals):
        rules = (
            Rules(players=4, variant=variant)
            if variant in ("tournament", "hand")
            else Rules(players=4, variant=variant, deals=1)
        )
        game = Game(rules, seed=deal)
        while not game.is_over:
            decision = game.pending()[0]
            view = game.view(decision.seat)
            start = time.process_time()
            answer = bots[decision.seat].decide(view)
            spent = time.process_time() - start
            thinking, slowest, decisions = thinking + spent, max(slowest, spent), decisions + 1
            game.act(decision.seat, answer)
    return 1000 * thinking / decisions, 1000 * slowest, decisions


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    names = (sys.argv[2] if len(sys.argv) > 2 else "hard,expert").split(",")
    print("| variant | bot | decisions | ms per decision | slowest, ms |")
    print("| --- | --- | ---: | ---: | ---: |")
    for variant in VARIANTS:
        for name in names:
            speed(name, variant, 1)  # compile (or load the numba cache) outside the timing
            mean, worst, count = speed(name, variant, deals)
            print(f"| {variant} | `{name}` | {count:,} | {mean:.2f} | {worst:.1f} |")


if __name__ == "__main__":
    main()
