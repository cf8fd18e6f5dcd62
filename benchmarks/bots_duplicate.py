"""Duplicate-format strength match between two bots (4 players, standard rules, one deal per game).

Each deal is played twice with the same cards: seats A B A B, then B A B A, so every hand is played
once by each bot against the same mix of opponents. Per deal, the difference is A's mean penalty
minus B's mean penalty over those eight seat-plays; the script reports the mean difference with its
95% confidence interval (normal approximation over deals) and each bot's mean time per decision.

    nice .venv/bin/python benchmarks/bots_duplicate.py expert mcs100 --deals 2000 --jobs 2 --seed 1
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

from sixnimmt.bots import Bot
from sixnimmt.core import DealSetup, Game, Rules
from sixnimmt.core.game import RandomDealer
from sixnimmt.seats import make_bot

PLAYERS = 4
SEATINGS = ("ABAB", "BABA")


class Timed:
    """Wraps a bot to add up its thinking time."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.seconds, self.decisions = bot, 0.0, 0

    def decide(self, view):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        answer = self.bot.decide(view)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return answer


def play_chunk(args: tuple[str, str, int, list[int]]) -> list[tuple[float, float, float, int, float, int]]:
    """Play the deals numbered ``deal_ids``; per deal (mean A, mean B, A time, A decisions, ...)."""
    name_a, name_b, seed, deal_ids = args
    rules = Rules(players=PLAYERS, deals=1)
    results = []
    for deal_id in deal_ids:
        setup: DealSetup = RandomDealer(rules, random.Random(seed * 1_000_003 + deal_id))(0)
        pens = {"A": [], "B": []}
        timers = {"A": Timed(make_bot(name_a, seed + deal_id)), "B": Timed(make_bot(name_b, seed + deal_id + 7))}
        for seating in SEATINGS:
            game = Game(rules, dealer=lambda _i, s=setup: s)
            while not game.is_over:
                for decision in game.pending():
                    who = seating[decision.seat]
                    game.act(decision.seat, timers[who].decide(game.view(decision.seat)))
            for seat, who in enumerate(seating):
                pens[who].append(game.totals[seat])
        results.append((
            sum(pens["A"]) / len(pens["A"]), sum(pens["B"]) / len(pens["B"]),
            timers["A"].seconds, timers["A"].decisions, timers["B"].seconds, timers["B"].decisions,
        ))
    return results


def match(name_a: str, name_b: str, deals: int, seed: int, jobs: int) -> dict[str, object]:
    ids = list(range(deals))
    chunks = [ids[i::jobs * 8] for i in range(jobs * 8)]
    rows = []
    with ProcessPoolExecutor(jobs) as pool:
        for part in pool.map(play_chunk, [(name_a, name_b, seed, c) for c in chunks if c]):
            rows.extend(part)
    n = len(rows)
    diffs = [a - b for a, b, *_ in rows]
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return {
        "a": name_a, "b": name_b, "deals": n, "seed": seed,
        "mean_a": round(sum(r[0] for r in rows) / n, 3),
        "mean_b": round(sum(r[1] for r in rows) / n, 3),
        "diff": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "ms_per_decision_a": round(1000 * sum(r[2] for r in rows) / sum(r[3] for r in rows), 3),
        "ms_per_decision_b": round(1000 * sum(r[4] for r in rows) / sum(r[5] for r in rows), 3),
        "a_better": mean + half < 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(json.dumps(match(args.a, args.b, args.deals, args.seed, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
