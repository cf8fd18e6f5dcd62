"""The grandmaster's strength tables in docs/bots.md, from ``benchmarks/grandmaster-results.json``:
one entry per arena run of ``benchmarks/grandmaster_ablation.py`` (its command line, the match, the
difference with its interval, each bot's time per decision and, where the run kept them, the
per-set differences). ``grandmaster_ablation.py --record`` adds a run's entry to that file.

    .venv/bin/python benchmarks/grandmaster_table.py            # print the tables
    .venv/bin/python benchmarks/grandmaster_table.py --write    # and put them into docs/bots.md

The first table pools every run of one match (the same bots, players and variant; other seeds, so
other shuffles) set by set: the per-set differences that each run keeps are concatenated and the
interval is the arena's Student-t interval over all of them, exactly as if it had been one run. It
says whether each of the strength targets is met. The second table lists every run on its own;
the earliest runs (before the per-set differences were kept) appear only there.
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
RESULTS = HERE / "grandmaster-results.json"
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


def load(path: Path = RESULTS) -> list[dict[str, Any]]:
    """The runs of the results file, in the order it keeps them."""
    runs: list[dict[str, Any]] = json.loads(path.read_text())["runs"]
    return runs


def entry(report: dict[str, Any]) -> dict[str, Any]:
    """A run's entry in the results file, from its arena report (with ``command`` and, when kept,
    ``differences`` in its pair, as ``grandmaster_ablation.py`` writes it)."""
    pair = report["pairs"][0]
    a, b = pair["a"], pair["b"]
    stats = {s["label"]: s for s in report["bots"]}
    run: dict[str, Any] = {
        "command": report["command"],
        "a": a,
        "b": b,
        "players": report["config"]["players"],
        "variant": report["config"]["variant"],
        "seed": report["config"]["seed"],
        "shuffles": report["shuffles"],
        "difference": {k: pair["difference"][k] for k in ("mean", "low", "high")},
        "ms_per_decision": [stats[a]["mean_decision_ms"], stats[b]["mean_decision_ms"]],
        "decisions": [stats[a]["decisions"], stats[b]["decisions"]],
    }
    if "differences" in pair:
        run["differences"] = pair["differences"]
    return run


def record(report: dict[str, Any], path: Path = RESULTS) -> None:
    """Add a run to the results file, replacing an entry of the same command; one run per line."""
    data = json.loads(path.read_text())
    new = entry(report)
    data["runs"] = [run for run in data["runs"] if run["command"] != new["command"]] + [new]
    runs = ",\n".join("    " + json.dumps(run, separators=(", ", ": "), ensure_ascii=False) for run in data["runs"])
    head = {k: v for k, v in data.items() if k != "runs"}
    lines = ["{", *(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()), '  "runs": [', runs, "  ]", "}"]
    path.write_text("\n".join(lines) + "\n")


def match_key(run: dict[str, Any]) -> tuple[str, str, int, str]:
    return run["a"], run["b"], run["players"], run["variant"]


def players_text(players: int, variant: str) -> str:
    return f"{players}" if variant == "standard" else f"{players}, {variant}"


def pooled_table(runs: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| match (a vs b) | players | deals | a − b per deal, 95% CI | verdict | target | ms per decision a / b | seeds |",
        "| --- | --- | ---: | --- | --- | --- | ---: | --- |",
    ]
    groups: dict[tuple[str, str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for run in runs:
        if "differences" in run:
            groups[match_key(run)].append(run)
    order = {key: i for i, key in enumerate(TARGETS)}
    for key in sorted(groups, key=lambda k: (order.get(k, len(order)), k)):
        chunks = sorted(groups[key], key=lambda r: r["seed"])
        a, b, players, variant = key
        differences = [d for run in chunks for d in run["differences"]]
        diff = mean_ci(differences)
        assert diff.low is not None and diff.high is not None
        # Wall-clock milliseconds per decision, weighted by decisions over the runs.
        ms = []
        for side in (0, 1):
            decisions = sum(run["decisions"][side] for run in chunks)
            ms.append(sum(run["ms_per_decision"][side] * run["decisions"][side] for run in chunks) / max(1, decisions))
        seeds = ", ".join(str(run["seed"]) for run in chunks)
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


def runs_table(runs: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| match (a vs b) | players | deals | a − b per deal, 95% CI | verdict | ms per decision a / b | seed | command (`nice -n 19 .venv/bin/python benchmarks/...`) |",
        "| --- | --- | ---: | --- | --- | ---: | ---: | --- |",
    ]
    for run in sorted(runs, key=lambda r: (match_key(r), r["seed"])):
        a, b, players, variant = match_key(run)
        diff = run["difference"]
        ms_a, ms_b = run["ms_per_decision"]
        pooled = "" if "differences" in run else " (not pooled: no per-set differences)"
        command = run["command"].removeprefix("benchmarks/")
        lines.append(
            f"| `{a}` vs `{b}` | {players_text(players, variant)} | {run['shuffles']:,} | "
            f"{diff['mean']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] | "
            f"{verdict(a, b, diff['low'], diff['high'])} | {ms_a:.1f} / {ms_b:.1f} | {run['seed']} | "
            f"`{command}`{pooled} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="replace the tables in docs/bots.md")
    args = parser.parse_args()
    runs = load()
    block = "\n".join(
        [
            MARK,
            "**Pooled by match, with the targets**",
            "",
            *pooled_table(runs),
            "",
            "**Every run** (each an entry of `benchmarks/grandmaster-results.json`, with its command)",
            "",
            *runs_table(runs),
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
