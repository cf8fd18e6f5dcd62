"""Search-bot ablations in the duplicate format (4 players, standard rules, one deal per game).

Registers variants of the searchers' settings under temporary names (below), then plays one match:
each deal twice with the same cards, seats A B A B and then B A B A, so every hand is played once by
each bot against the same mix of opponents. Per deal, the difference is A's mean penalty minus B's
over those eight seat-plays; the script prints the mean difference with its 95% interval (normal
approximation over deals) and each bot's mean time per decision. Every deal is seeded by its
number, so the result does not depend on ``--jobs``.

    nice .venv/bin/python benchmarks/bots_ablation.py x_snug1 mcs100 --deals 400 --seed 11
    nice .venv/bin/python benchmarks/bots_ablation.py mcs mcs100 --deals 300 --seed 2

A and B are the ablation names below or any bot spec (``mcs``, ``expert:samples=400``). The
figures of docs/bots.md ("What was tried") come from these two commands and from ``x_half``
(= ``expert``) against ``mcs100`` with the first one's deals and seed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from sixnimmt.bots import Bot
from sixnimmt.bots.rollout import SNUG
from sixnimmt.bots.search import MonteCarloBot, SearchConfig
from sixnimmt.core import DealSetup, Game, PlayerView, Rules
from sixnimmt.core.game import RandomDealer
from sixnimmt.seats import make_bot
from sixnimmt.seats.registry import register

PLAYERS = 4
SEATINGS = ("ABAB", "BABA")

CONFIGS = {
    "x_half": SearchConfig(samples=100, split=(0.4, 0.3, 0.3)),  # = expert
    "x_snug1": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), policy=SNUG, noise=1.0),
    "x_snug3": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), policy=SNUG, noise=3.0),
    "x_flat": SearchConfig(samples=100),  # = mcs
    "x_rel": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), relative=True),
}


def register_ablations() -> None:
    for name, config in CONFIGS.items():
        register(name, partial(MonteCarloBot, config=config), f"ablation {name}")


class Timed:
    """Wraps a bot to add up its thinking time."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.seconds, self.decisions = bot, 0.0, 0

    def decide(self, view: PlayerView) -> int:
        start = time.perf_counter()
        answer = self.bot.decide(view)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return answer


def play_chunk(args: tuple[str, str, int, list[int]]) -> list[tuple[float, float, float, int, float, int]]:
    """Play the deals numbered ``deal_ids``; per deal (mean A, mean B, A time, A decisions, ...)."""
    register_ablations()  # in each worker process too
    name_a, name_b, seed, deal_ids = args
    rules = Rules(players=PLAYERS, deals=1)
    results = []
    for deal_id in deal_ids:
        setup: DealSetup = RandomDealer(rules, random.Random(seed * 1_000_003 + deal_id))(0)
        pens: dict[str, list[int]] = {"A": [], "B": []}
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
        ))  # fmt: skip
    return results


def match(name_a: str, name_b: str, deals: int, seed: int, jobs: int) -> dict[str, object]:
    ids = list(range(deals))
    chunks = [ids[i :: jobs * 8] for i in range(jobs * 8)]
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
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    register_ablations()
    print(json.dumps(match(args.a, args.b, args.deals, args.seed, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
