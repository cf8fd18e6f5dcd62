"""Grandmaster ablations: register variants of its settings under temporary names and play one
duplicate-deal arena match in this process (``run_arena``, jobs 1, one deal per game), printing the
report's head-to-head line and writing the JSON report.

    nice -n 19 .venv/bin/python benchmarks/grandmaster_ablation.py A B --deals 200 --players 4 --seed 21

A and B are registered bot names or the ablation names below. Reports go to
``benchmarks/bots-results/grandmaster/A-vs-B[-Np][-VARIANT].json``. docs/bots.md quotes them.
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.bots.grandmaster import GrandmasterBot, GrandmasterConfig
from sixnimmt.bots.rollout import CAUTIOUS, COUNT, RANDOM, SNUG
from sixnimmt.bots.search import MonteCarloBot, SearchConfig
from sixnimmt.seats.registry import register

#: Each grandmaster setting alone, at expert's budget (100 rollouts per option) unless named otherwise.
GM = {
    "g_race": GrandmasterConfig(samples=100, own_policy=RANDOM),  # racing only
    "g_self": GrandmasterConfig(samples=100),  # racing + COUNT self-play (the grandmaster at 100)
    "g_all": GrandmasterConfig(samples=100, others_policy=COUNT),  # everybody plays COUNT
    "g_allsnug": GrandmasterConfig(samples=100, own_policy=SNUG, others_policy=SNUG, noise=1.0),
    "g_self_n2": GrandmasterConfig(samples=100, noise=2.0),
    "g_self_n0": GrandmasterConfig(samples=100, noise=0.05),
    "g_cau": GrandmasterConfig(samples=100, own_policy=CAUTIOUS),  # racing + fair counting self-play
    "g_cau_own": GrandmasterConfig(samples=100, own_policy=CAUTIOUS, rival=0.0),
    "g_race_own": GrandmasterConfig(samples=100, own_policy=RANDOM, rival=0.0),
    "g_rel": GrandmasterConfig(samples=100, rival=1.0),
    "g_own": GrandmasterConfig(samples=100, rival=0.0),
    "g_400": GrandmasterConfig(samples=400),
    "g_1000": GrandmasterConfig(samples=1000),
}
SEARCH = {
    "x_expert_rel": SearchConfig(samples=100, split=(0.4, 0.3, 0.3), relative=True),
    "x_expert1000": SearchConfig(samples=1000, split=(0.4, 0.3, 0.3)),
    "x_mcs1000": SearchConfig(samples=1000, relative=True, shared=False),
}


def register_ablations() -> None:
    for name, config in GM.items():
        register(name, partial(GrandmasterBot, config=config), f"ablation {name}")
    for name, search in SEARCH.items():
        register(name, partial(MonteCarloBot, config=search), f"ablation {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    register_ablations()
    fixed = args.variant in ("tournament",)
    config = ArenaConfig(
        bots=(args.a, args.b), deals=args.deals, players=args.players, variant=args.variant,
        target=None, game_deals=None if fixed else 1, jobs=1, seed=args.seed,
    )  # fmt: skip
    report = run_arena(config).to_dict()
    suffix = ("" if args.players == 4 else f"-{args.players}p") + ("" if args.variant == "standard" else f"-{args.variant}")
    out = Path(__file__).parent / "bots-results" / "grandmaster" / f"{args.a}-vs-{args.b}{suffix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    report["command"] = "benchmarks/grandmaster_ablation.py " + " ".join(
        [args.a, args.b, f"--deals {args.deals} --players {args.players} --variant {args.variant} --seed {args.seed}"]
    )
    out.write_text(json.dumps(report, indent=1))
    pair = report["pairs"][0]
    bots = {b["label"]: b for b in report["bots"]}
    ms = " / ".join(f"{bots[k]['mean_decision_ms']:.1f}" for k in bots)
    print(json.dumps({"pair": pair, "ms": ms, "deals": args.deals, "players": args.players,
                      "variant": args.variant, "seed": args.seed}), flush=True)


if __name__ == "__main__":
    main()
