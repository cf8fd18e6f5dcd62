"""The grandmaster's strength table in docs/bots.md, from the arena reports in
``benchmarks/bots-results/grandmaster/`` (each written by ``benchmarks/grandmaster_ablation.py``,
whose command line the report keeps).

    .venv/bin/python benchmarks/grandmaster_table.py

Matches run more than once (the same bots, players and variant, other seeds: other shuffles) also get
a pooled row: the mean difference weighted by duplicate sets, its standard error from each run's
interval (independent runs), and a normal 95% interval.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from sixnimmt.arena.stats import t_quantile

RESULTS = Path(__file__).parent / "bots-results" / "grandmaster"


def verdict(a: str, b: str, low: float, high: float) -> str:
    if high < 0:
        return f"{a} better"
    if low > 0:
        return f"{b} better"
    return "no significant difference"


def main() -> None:
    print("| match (a vs b) | players | deals | a − b per deal, 95% CI | verdict | ms per decision a / b | seed | report |")
    print("| --- | ---: | ---: | --- | --- | ---: | ---: | --- |")
    groups: dict[tuple[str, str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for path in sorted(RESULTS.glob("*.json")):
        report = json.loads(path.read_text())
        config = report["config"]
        pair = report["pairs"][0]
        diff = pair["difference"]
        ms = {b["label"]: b["mean_decision_ms"] for b in report["bots"]}
        a, b = pair["a"], pair["b"]
        variant = "" if config["variant"] == "standard" else f", {config['variant']}"
        print(
            f"| `{a}` vs `{b}` | {config['players']}{variant} | {report['shuffles']:,} | "
            f"{diff['mean']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] | {pair['verdict']} | "
            f"{ms[a]:.1f} / {ms[b]:.1f} | {config['seed']} | `{path.name}` |"
        )
        groups[(a, b, config["players"], variant)].append({**diff, "seed": config["seed"]})
    for (a, b, players, variant), runs in groups.items():
        if len(runs) < 2:
            continue
        total = sum(r["n"] for r in runs)
        mean = sum(r["mean"] * r["n"] for r in runs) / total
        # Each run's standard error from its Student-t interval; the runs are independent.
        var = sum((r["n"] / total) ** 2 * ((r["high"] - r["low"]) / 2 / t_quantile(0.975, r["n"] - 1)) ** 2 for r in runs)
        low, high = mean - 1.96 * math.sqrt(var), mean + 1.96 * math.sqrt(var)
        seeds = ", ".join(str(r["seed"]) for r in runs)
        print(
            f"| **`{a}` vs `{b}`, pooled** | {players}{variant} | {total:,} | **{mean:+.2f} [{low:+.2f}, {high:+.2f}]** | "
            f"{verdict(a, b, low, high)} | | {seeds} | the rows above |"
        )


if __name__ == "__main__":
    main()
