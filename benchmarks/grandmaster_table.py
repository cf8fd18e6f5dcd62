"""The grandmaster's strength tables in docs/bots.md, from the arena reports in
``benchmarks/bots-results/grandmaster/`` (each written by ``benchmarks/grandmaster_ablation.py``,
whose command line the report keeps).

    .venv/bin/python benchmarks/grandmaster_table.py            # print the tables
    .venv/bin/python benchmarks/grandmaster_table.py --write    # and put them into docs/bots.md

The first table pools every run of one match (the same bots, players and variant; other seeds, so
other shuffles) set by set: the per-set differences that each report keeps are concatenated and the
interval is the arena's Student-t interval over all of them, exactly as if it had been one run. It
says whether each of the strength targets is met. The second table lists every report on its own;
the earliest reports (before the per-set differences were kept) appear only there.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from sixnimmt.arena.stats import mean_ci

HERE = Path(__file__).parent
RESULTS = HERE / "bots-results" / "grandmaster"
DOC = HERE.parent / "docs" / "bots.md"
MARK = "<!-- grandmaster-strength: .venv/bin/python benchmarks/grandmaster_table.py -->"
END = "<!-- /grandmaster-strength -->"

#: The strength targets: (a, b, players, variant) -> (deals at least, mean difference at most).
#: Every target also needs the interval's upper end below zero ("beats").
TARGETS: dict[tuple[str, str, int, str], tuple[int, float]] = {
    ("grandmaster", "expert", 4, "standard"): (2000, -1.0),
    ("grandmaster", "expert:samples=1000", 4, "standard"): (2000, 0.0),
    ("grandmaster", "mcs100:samples=1000", 4, "standard"): (2000, 0.0),
    ("grandmaster", "expert", 2, "standard"): (1000, 0.0),
    ("grandmaster", "mcs100", 2, "standard"): (1000, 0.0),
    ("grandmaster", "expert", 6, "standard"): (1000, 0.0),
    ("grandmaster", "mcs100", 6, "standard"): (1000, 0.0),
    ("grandmaster", "expert", 4, "professional"): (500, 0.0),
    ("grandmaster", "expert", 4, "tactics"): (500, 0.0),
    ("grandmaster", "expert", 4, "logic"): (500, 0.0),
}


def verdict(a: str, b: str, low: float, high: float) -> str:
    if high < 0:
        return f"{a} better"
    if low > 0:
        return f"{b} better"
    return "no significant difference"


def target_text(key: tuple[str, str, int, str], deals: int, mean: float, high: float) -> str:
    if key not in TARGETS:
        return "(no target)"
    need_deals, need_mean = TARGETS[key]
    bound = f"mean ≤ {need_mean:+.1f}, " if need_mean < 0 else ""
    goal = f"{bound}CI below 0, ≥ {need_deals:,} deals"
    if deals == 0:
        return f"not run ({goal})"
    missing = []
    if high >= 0:
        missing.append("CI not below 0")
    if need_mean < 0 and mean > need_mean:
        missing.append(f"mean above {need_mean:+.1f}")
    if deals < need_deals:
        missing.append(f"only {deals:,} of {need_deals:,} deals")
    return f"**met** ({goal})" if not missing else f"not met: {'; '.join(missing)} ({goal})"


def load() -> list[tuple[Path, dict[str, Any]]]:
    return [(path, json.loads(path.read_text())) for path in sorted(RESULTS.glob("*.json"))]


def match_key(report: dict[str, Any]) -> tuple[str, str, int, str]:
    pair = report["pairs"][0]
    return pair["a"], pair["b"], report["config"]["players"], report["config"]["variant"]


def players_text(players: int, variant: str) -> str:
    return f"{players}" if variant == "standard" else f"{players}, {variant}"


def pooled_table(reports: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    lines = [
        "| match (a vs b) | players | deals | a − b per deal, 95% CI | verdict | target | ms per decision a / b | seeds |",
        "| --- | --- | ---: | --- | --- | --- | ---: | --- |",
    ]
    groups: dict[tuple[str, str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for _, report in reports:
        if "differences" in report["pairs"][0]:
            groups[match_key(report)].append(report)
    order = {key: i for i, key in enumerate(TARGETS)}
    for key in sorted(groups, key=lambda k: (order.get(k, len(order)), k)):
        runs = sorted(groups[key], key=lambda r: r["config"]["seed"])
        a, b, players, variant = key
        differences = [d for run in runs for d in run["pairs"][0]["differences"]]
        diff = mean_ci(differences)
        assert diff.low is not None and diff.high is not None
        # Wall-clock milliseconds per decision, weighted by decisions over the runs.
        ms = []
        for label in (a, b):
            stats = [next(s for s in run["bots"] if s["label"] == label) for run in runs]
            decisions = sum(s["decisions"] for s in stats)
            ms.append(sum(s["mean_decision_ms"] * s["decisions"] for s in stats) / max(1, decisions))
        seeds = ", ".join(str(run["config"]["seed"]) for run in runs)
        lines.append(
            f"| `{a}` vs `{b}` | {players_text(players, variant)} | {diff.n:,} | "
            f"**{diff.mean:+.2f} [{diff.low:+.2f}, {diff.high:+.2f}]** | {verdict(a, b, diff.low, diff.high)} | "
            f"{target_text(key, diff.n, diff.mean, diff.high)} | {ms[0]:.1f} / {ms[1]:.1f} | {seeds} |"
        )
    for key in TARGETS:
        if key not in groups:
            a, b, players, variant = key
            lines.append(
                f"| `{a}` vs `{b}` | {players_text(players, variant)} | 0 | not run | | "
                f"{target_text(key, 0, 0.0, 0.0)} | | |"
            )
    return lines


def runs_table(reports: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    lines = [
        "| match (a vs b) | players | deals | a − b per deal, 95% CI | verdict | ms per decision a / b | seed | command (`nice -n 19 .venv/bin/python benchmarks/...`) |",
        "| --- | --- | ---: | --- | --- | ---: | ---: | --- |",
    ]
    for _path, report in sorted(reports, key=lambda pr: (match_key(pr[1]), pr[1]["config"]["seed"])):
        a, b, players, variant = match_key(report)
        diff = report["pairs"][0]["difference"]
        ms = {s["label"]: s["mean_decision_ms"] for s in report["bots"]}
        pooled = "" if "differences" in report["pairs"][0] else " (not pooled: no per-set differences)"
        command = report["command"].removeprefix("benchmarks/")
        lines.append(
            f"| `{a}` vs `{b}` | {players_text(players, variant)} | {report['shuffles']:,} | "
            f"{diff['mean']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] | "
            f"{verdict(a, b, diff['low'], diff['high'])} | {ms[a]:.1f} / {ms[b]:.1f} | {report['config']['seed']} | "
            f"`{command}`{pooled} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="replace the tables in docs/bots.md")
    args = parser.parse_args()
    reports = load()
    block = "\n".join(
        [
            MARK,
            "**Pooled by match, with the targets**",
            "",
            *pooled_table(reports),
            "",
            "**Every run** (each a report in `benchmarks/bots-results/grandmaster/`, named after its bots, players, variant and seed)",
            "",
            *runs_table(reports),
            END,
        ]
    )
    print(block)
    if args.write:
        text = DOC.read_text()
        pattern = re.compile(re.escape(MARK) + ".*?" + re.escape(END), re.DOTALL)
        if not pattern.search(text):
            raise SystemExit(f"{DOC}: no grandmaster-strength block to replace")
        DOC.write_text(pattern.sub(lambda _: block, text, count=1))


if __name__ == "__main__":
    main()
