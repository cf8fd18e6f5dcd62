"""The grandmaster's tables in docs/bots.md, from the arena reports in
``benchmarks/bots-results/grandmaster/`` (each written by ``benchmarks/grandmaster_ablation.py``,
whose command line the report keeps).

    .venv/bin/python benchmarks/grandmaster_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).parent / "bots-results" / "grandmaster"


def main() -> None:
    print("| match (a vs b) | players | variant | deals | a − b per deal, 95% CI | verdict | ms per decision a / b | seed | report |")
    print("| --- | ---: | --- | ---: | --- | --- | ---: | ---: | --- |")
    for path in sorted(RESULTS.glob("*.json")):
        report = json.loads(path.read_text())
        config = report["config"]
        pair = report["pairs"][0]
        diff = pair["difference"]
        ms = {b["label"]: b["mean_decision_ms"] for b in report["bots"]}
        a, b = pair["a"], pair["b"]
        print(
            f"| `{a}` vs `{b}` | {config['players']} | {config['variant']} | {report['shuffles']:,} | "
            f"{diff['mean']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] | {pair['verdict']} | "
            f"{ms[a]:.1f} / {ms[b]:.1f} | {config['seed']} | `{path.name}` |"
        )


if __name__ == "__main__":
    main()
