"""Grandmaster ablations: register variants of its settings under temporary names and play one
duplicate-deal arena match in this process (``run_arena``, jobs 1, one deal per game), printing the
report's head-to-head line and writing the JSON report.

    nice -n 19 .venv/bin/python benchmarks/grandmaster_ablation.py A B --deals 200 --players 4 --seed 21
    nice -n 19 .venv/bin/python benchmarks/grandmaster_ablation.py grandmaster expert --deals 250 --seed 101 --record

A and B are registered bot names or the ablation names below. The report goes to
``results/grandmaster/A-vs-B[-Np][-VARIANT]-seedS.json`` (not committed); ``--record`` also adds the
run to ``benchmarks/grandmaster-results.json``, the one file the tables of docs/bots.md are written
from (``benchmarks/grandmaster_table.py --write``). The arena is deterministic: the same command
gives the same difference, on any machine.
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.arena.stats import paired_differences
from sixnimmt.bots.grandmaster import GrandmasterBot, GrandmasterConfig
from sixnimmt.bots.rollout import CAUTIOUS, COUNT, RANDOM, SNUG
from sixnimmt.seats.registry import register

RESULTS = Path(__file__).resolve().parent.parent / "results" / "grandmaster"

#: The grandmaster's ideas one at a time, at expert's budget (100 rollouts per option). Any other
#: bot spec (``grandmaster``, ``expert:samples=320``, ``mcs100:samples=1000``) works as A or B too.
GM = {
    "g_race_own": GrandmasterConfig(samples=100, own_policy=RANDOM),  # racing alone
    "g_own": GrandmasterConfig(samples=100),  # racing + COUNT self-play (the grandmaster at 100)
    "g_self": GrandmasterConfig(samples=100, rival=1.0),  # g_own + the duel objective
    "g_race": GrandmasterConfig(samples=100, own_policy=RANDOM, rival=1.0),  # racing + duel objective
    "g_cau": GrandmasterConfig(samples=100, own_policy=CAUTIOUS),  # racing + counting without peeking
    "g_all": GrandmasterConfig(samples=100, others_policy=COUNT),  # everybody plays COUNT
    "g_allsnug": GrandmasterConfig(samples=100, own_policy=SNUG, others_policy=SNUG, noise=1.0),
}


def register_ablations() -> None:
    for name, config in GM.items():
        register(name, partial(GrandmasterBot, config=config), f"ablation {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--record", action="store_true", help="add the run to benchmarks/grandmaster-results.json")
    args = parser.parse_args()
    register_ablations()
    fixed = args.variant in ("tournament",)
    config = ArenaConfig(
        bots=(args.a, args.b), deals=args.deals, players=args.players, variant=args.variant,
        target=None, game_deals=None if fixed else 1, jobs=1, seed=args.seed,
    )  # fmt: skip
    arena = run_arena(config)
    report = arena.to_dict()
    # Every duplicate set's difference (a - b, penalty per deal), so that runs of the same match
    # with other seeds can be pooled set by set (benchmarks/grandmaster_table.py).
    report["pairs"][0]["differences"] = paired_differences(*arena.per_set_penalty[:2])
    suffix = ("" if args.players == 4 else f"-{args.players}p") + ("" if args.variant == "standard" else f"-{args.variant}")
    name = f"{args.a}-vs-{args.b}{suffix}-seed{args.seed}".replace(":", "_").replace("=", "")
    out = RESULTS / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    report["command"] = "benchmarks/grandmaster_ablation.py " + " ".join(
        [args.a, args.b, f"--deals {args.deals} --players {args.players} --variant {args.variant} --seed {args.seed}"]
    )
    out.write_text(json.dumps(report, indent=1))
    if args.record:
        from grandmaster_table import record  # this script's folder is on sys.path

        record(report)
    pair = {k: v for k, v in report["pairs"][0].items() if k != "differences"}
    bots = {b["label"]: b for b in report["bots"]}
    ms = " / ".join(f"{bots[k]['mean_decision_ms']:.1f}" for k in bots)
    print(json.dumps({"pair": pair, "ms": ms, "deals": args.deals, "players": args.players,
                      "variant": args.variant, "seed": args.seed}), flush=True)


if __name__ == "__main__":
    main()
