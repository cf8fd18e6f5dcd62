"""Print the markdown strength table of docs/bots.md from the arena reports in examples/rl/results/."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
LEVELS = {"snug": " (easy)", "cautious": " (medium)"}


def main() -> None:
    print("| opponent | duplicate deals | learned, per deal | opponent, per deal | learned − opponent [95% CI] "
          "| learned's win share [95% CI] | verdict |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in sys.argv[1:] or ["random", "snug", "cautious", "mcs100"]:
        report = json.loads((RESULTS / f"learned_vs_{name}.json").read_text())
        bots = {b["label"]: b for b in report["bots"]}
        pair = report["pairs"][0]
        diff = pair["difference"]
        sign = 1 if pair["a"] == "learned" else -1  # learned minus the opponent
        low, high = sorted((sign * diff["low"], sign * diff["high"]))
        share = bots["learned"]["win_share"]
        print(f"| `{name}`{LEVELS.get(name, '')} | {report['config']['deals']} "
              f"| {bots['learned']['penalty_per_deal']['mean']:.2f} | {bots[name]['penalty_per_deal']['mean']:.2f} "
              f"| {sign * diff['mean']:+.2f} [{low:+.2f}, {high:+.2f}] "
              f"| {share['mean']:.3f} [{share['low']:.3f}, {share['high']:.3f}] | {pair['verdict']} |")


if __name__ == "__main__":
    main()
