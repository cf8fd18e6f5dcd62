"""Print the "other variants" table of docs/bots.md from the reports of benchmarks/bots_variants.sh.

Usage: python benchmarks/bots_variants_table.py [FOLDER]  (default results/bots-variants)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(folder: Path) -> None:
    print(
        "| variant | match (a vs b) | deals | a: penalty per deal | b: penalty per deal "
        "| a − b, 95% CI | verdict | ms per decision a / b |"
    )
    print("| --- | --- | ---: | ---: | ---: | --- | --- | ---: |")
    for path in sorted(folder.glob("*.json")):
        if not path.stat().st_size:
            continue  # a run still in progress
        report = json.loads(path.read_text())
        config = report["config"]
        bots = {b["label"]: b for b in report["bots"]}
        for pair in report["pairs"]:
            a, b = bots[pair["a"]], bots[pair["b"]]
            diff = pair["difference"]
            print(
                f"| {config['variant']} | `{pair['a']}` vs `{pair['b']}` | {report['shuffles']:,} "
                f"| {a['penalty_per_deal']['mean']:.2f} | {b['penalty_per_deal']['mean']:.2f} "
                f"| {diff['mean']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] | {pair['verdict']} "
                f"| {a['mean_decision_ms']:.2f} / {b['mean_decision_ms']:.2f} |"
            )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "results/bots-variants"))
