"""How sharp is a head-to-head comparison in each arena format, for the same cost?

    python benchmarks/arena_variance.py --bots random,snug,cautious --table-deals 2700

Plays the same bots for the same number of *table-deals* (deals played at a table, the arena's cost)
in four formats: the standard duplicate (Standard and Tactics, one-deal-per-player games, every
seating rotated over the same shuffles), Tournament with the seatings rotated in each set (the
arena's default) and Tournament with one seating per set (``--permutations single``). For each pair
of bots it prints the mean difference in penalty per deal, the 95% half-width, and the *variance per
table-deal*: the variance of the per-set difference times the table-deals in a set, which is what
one table-deal of that format adds to the uncertainty (lower is sharper; at equal cost the
half-widths scale with its square root). docs/arena.md reports the figures.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict

from sixnimmt.arena import ArenaConfig, GameResult, mean_ci, run_arena, t_quantile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="random,snug,cautious")
    parser.add_argument("--table-deals", type=int, default=2700)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bots = tuple(args.bots.split(","))
    players = len(bots)
    shuffles = args.table_deals // players  # a rotated set plays each shuffle at `players` tables
    formats = [
        ("standard duplicate", {"variant": "standard", "target": None, "game_deals": players, "deals": shuffles}),
        ("tactics duplicate", {"variant": "tactics", "target": None, "game_deals": players, "deals": shuffles}),
        ("tournament, rotations", {"variant": "tournament", "deals": shuffles}),
        ("tournament, single", {"variant": "tournament", "deals": args.table_deals, "permutations": "single"}),
    ]
    print(f"bots {', '.join(bots)}; {args.table_deals} table-deals per format; seed {args.seed}")
    print(f"{'format':<22} {'sets':>5} {'s':>5}  pair: difference ± 95% half-width [variance per table-deal]")
    for name, options in formats:
        start = time.perf_counter()
        report = run_arena(ArenaConfig(bots=bots, seed=args.seed, **options))
        table_deals = sum(len(r.deal_penalties) for r in report.results)
        per_set = table_deals / report.sets
        cells = []
        for pair in report.pairs:
            d = pair.difference
            assert d.half_width is not None
            sd = d.half_width * math.sqrt(d.n) / t_quantile(0.975, d.n - 1)
            cells.append(f"{pair.a}-{pair.b}: {d.mean:+.2f} ± {d.half_width:.2f} [{sd * sd * per_set:.0f}]")
        seconds = time.perf_counter() - start
        print(f"{name:<22} {report.sets:>5} {seconds:>5.0f}  " + "; ".join(cells), flush=True)
        assert table_deals == args.table_deals, table_deals
        if options.get("permutations") == "single":
            seat_effects(report.results, bots)


def seat_effects(results: list[GameResult], bots: tuple[str, ...]) -> None:
    """Each bot's mean penalty per deal by the seat it sat in (seat 0 drafts first in Tournament)."""
    sums: dict[tuple[int, int], list[float]] = defaultdict(list)
    for result in results:
        for seat, bot in enumerate(result.seating):
            sums[(bot, seat)].extend(deal[seat] for deal in result.deal_penalties)
    print("  penalty per deal by seat (mean ± 95% half-width):")
    for b, label in enumerate(bots):
        cells = [mean_ci(sums[(b, seat)]).text(2) for seat in range(len(bots))]
        print(f"    {label:<10} " + " | ".join(f"seat {seat}: {c}" for seat, c in enumerate(cells)))


if __name__ == "__main__":
    main()
