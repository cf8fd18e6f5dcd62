"""The baseline table of docs/baselines.md: every built-in bot against one fixed reference field.

For 2, 4, 6 and 10 players, standard rules, each game one deal: the bot under test takes one seat
and ``medium`` (the cautious card counter) takes every other seat; the arena rotates the bot through
every seat of each shuffle (a duplicate set of P games), so the luck of the cards cancels out of the
bot's figure. Every cell uses the same seed, so at one table size every bot plays the very same
shuffles (its first N of them). Each cell's figures are kept in one file,
``benchmarks/baselines-results.json`` (keyed ``P/BOT``); a cell kept there is not played again.

    nice .venv/bin/python benchmarks/baselines.py            # play the missing cells, write the table
    nice .venv/bin/python benchmarks/baselines.py --table    # only rewrite the table from the reports
    nice .venv/bin/python benchmarks/baselines.py --players 4 --bots expert   # one cell

A researcher's own agent joins the table with ``--bots`` and any bot spec (``cmd:python3 mybot.py``,
``openspiel:ismcts:simulations=100``); docs/baselines.md gives the protocol. With ``--out DIR`` its
cells go to one file, ``DIR/LABEL.json`` (the submission schema of docs/baselines.md), and the
tracked results and docs are left alone; ``--row FILE`` prints such a file's rows of the table:

    nice .venv/bin/python benchmarks/baselines.py --bots "cmd:python3 mybot.py" --label mybot --out results/
    .venv/bin/python benchmarks/baselines.py --row results/mybot.json
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

from doc_tables import fill  # (beside this script)

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.arena.stats import mean_ci, paired_differences
from sixnimmt.seats import available, register

HERE = Path(__file__).parent
RESULTS = HERE / "baselines-results.json"
DOC = HERE.parent / "docs" / "baselines.md"
MARK = "<!-- baselines: .venv/bin/python benchmarks/baselines.py -->"
END = "<!-- /baselines -->"

#: The reference field: every seat but the tested bot's.
FIELD = "medium"
SEED = 45
PLAYERS = (2, 4, 6, 10)
#: Shuffles (duplicate sets) per cell, by how costly the bot's decisions are. Sized so that the
#: whole table plays in about an hour on two shared cores; the table prints each cell's count.
CHEAP = {2: 1000, 4: 1000, 6: 1000, 10: 1000}
SEARCH = {2: 400, 4: 300, 6: 150, 10: 60}
SLOW = {2: 150, 4: 100, 6: 50, 10: 20}
DEALS: dict[str, dict[int, int]] = {
    "random": CHEAP, "snug": CHEAP, "easy": CHEAP, "cautious": CHEAP, "medium": CHEAP, "learned": CHEAP,
    "mcs100": SEARCH, "mcs": SEARCH, "hard": SEARCH, "expert": SEARCH, "expert-learned": SEARCH,
    "grandmaster": SLOW,
}


def kept() -> dict[str, dict[str, Any]]:
    """Every cell played so far, keyed ``P/BOT``."""
    return json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}


def keep(cell: dict[str, Any]) -> None:
    cells = kept()
    cells[f"{cell['players']}/{cell['bot']}"] = cell
    RESULTS.write_text(json.dumps(cells, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def play_cell(players: int, bot: str, deals: int, jobs: int) -> dict[str, Any]:
    """One cell: ``bot`` in one seat, the field in the others, ``deals`` one-deal duplicate sets."""
    bots = (bot, *[FIELD] * (players - 1))
    config = ArenaConfig(bots=bots, deals=deals, players=players, target=None, game_deals=1, seed=SEED, jobs=jobs)
    started = time.perf_counter()
    report = run_arena(config)
    seconds = time.perf_counter() - started
    labels = config.labels()
    tested = report.per_set_penalty[0]
    # The field's mean per set over its seats: the bot's figure minus the field's, paired by set.
    field_sets = [
        sum(v for v in row if v is not None) / len([v for v in row if v is not None])
        for row in zip(*report.per_set_penalty[1:], strict=True)
    ]
    difference = mean_ci(paired_differences(tested, field_sets))
    stats = report.bot(labels[0])
    return {
        "bot": bot,
        "field": FIELD,
        "players": players,
        "variant": "standard",
        "deals": report.shuffles,
        "sets": report.sets,
        "games": report.games,
        "seed": SEED,
        "penalty_per_deal": stats.penalty_per_deal.to_dict(),
        "field_penalty_per_deal": mean_ci(field_sets).to_dict(),
        "minus_field": difference.to_dict(),
        "ms_per_decision": stats.mean_decision_ms,
        "faults": stats.faults,
        "seconds": seconds,
        "jobs": jobs,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "command": f"sixnimmt arena --bots {','.join(bots)} --players {players} --deals {deals} "
        f"--target 0 --game-deals 1 --seed {SEED}",
    }


#: What a submission file says it is (docs/baselines.md, "Submitting a row").
SUBMISSION = "sixnimmt-baselines-submission"
SUBMISSION_VERSION = 1
#: The fields of a cell a row is made of.
ROW_FIELDS = ("bot", "players", "deals", "games", "seed", "penalty_per_deal", "minus_field", "ms_per_decision")
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def submission(label: str, bot: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The submission file of one agent: its label, its spec and its cells (one per table size)."""
    return {
        "format": SUBMISSION,
        "version": SUBMISSION_VERSION,
        "label": label,
        "bot": bot,
        "protocol": {"field": FIELD, "variant": "standard", "game_deals": 1, "seed": SEED},
        "cells": [{**cell, "label": label} for cell in cells],
    }


def read_submission(path: Path) -> dict[str, Any]:
    """A submission file, checked; ``ValueError`` in one line naming what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a readable JSON file ({error})") from None
    if not isinstance(data, dict) or data.get("format") != SUBMISSION:
        raise ValueError(f"{path}: not a submission (its \"format\" must be {SUBMISSION!r})")
    if data.get("version") != SUBMISSION_VERSION:
        raise ValueError(f"{path}: submission version {data.get('version')!r}; this script reads {SUBMISSION_VERSION}")
    label = data.get("label")
    if not isinstance(label, str) or not LABEL.fullmatch(label):
        raise ValueError(f"{path}: \"label\" must be 1 to 64 letters, digits, '.', '_' or '-', not {label!r}")
    cells = data.get("cells")
    if not isinstance(cells, list) or not cells:
        raise ValueError(f"{path}: \"cells\" must be a non-empty list")
    for index, cell in enumerate(cells):
        missing = [f for f in ROW_FIELDS if not isinstance(cell, dict) or f not in cell]
        if missing:
            raise ValueError(f"{path}: cells[{index}] lacks {', '.join(missing)}")
        if cell["seed"] != SEED:
            raise ValueError(f"{path}: cells[{index}] was played on seed {cell['seed']}, the table's is {SEED}")
    return data


def submission_rows(data: dict[str, Any]) -> str:
    """The table's rows of a submission: one per table size, under its heading."""
    parts = []
    for cell in sorted(data["cells"], key=lambda c: c["players"]):
        parts.append(f"### {cell['players']} players\n\n{_row({**cell, 'label': data['label']})}")
    return "\n\n".join(parts)


def _ci(interval: dict[str, Any], digits: int = 2, sign: bool = False) -> str:
    # Rounded first, plus 0.0: a bound a hair below zero reads 0.00, not -0.00.
    mean, low, high = (None if x is None else round(x, digits) + 0.0 for x in (interval["mean"], interval["low"], interval["high"]))
    fmt = f"{{:{'+' if sign else ''}.{digits}f}}"
    if low is None:
        return fmt.format(mean)
    return f"{fmt.format(mean)} [{fmt.format(low)}, {fmt.format(high)}]"


def table() -> str:
    """The Markdown tables, one per table size, from the reports there are."""
    parts = []
    cells = kept()
    for players in PLAYERS:
        rows = [_row(cells[f"{players}/{bot}"]) for bot in DEALS if f"{players}/{bot}" in cells]
        for key in sorted(cells):  # bots of one's own, played with --bots
            cell = cells[key]
            if cell["players"] == players and cell["bot"] not in DEALS:
                rows.append(_row(cell))
        if not rows:
            continue
        parts.append(
            f"### {players} players\n\n"
            "| bot | penalty per deal, 95% CI | bot − field, 95% CI | verdict | deals | games | seed | ms per decision |\n"
            "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n" + "\n".join(rows)
        )
    return "\n\n".join(parts)


def _row(cell: dict[str, Any]) -> str:
    d = cell["minus_field"]
    verdict = (
        "better than the field" if d["high"] is not None and d["high"] < 0
        else "worse than the field" if d["low"] is not None and d["low"] > 0
        else "no significant difference"
    )
    return (
        f"| `{cell.get('label') or cell['bot']}` | {_ci(cell['penalty_per_deal'])} | {_ci(d, sign=True)} | {verdict} | "
        f"{cell['deals']:,} | {cell['games']:,} | {cell['seed']} | {cell['ms_per_decision']:.2f} |"
    )


def write_doc() -> None:
    fill(DOC, MARK, END, table())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", action="store_true", help="only rewrite the table from the kept reports")
    parser.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    parser.add_argument("--bots", nargs="*", default=list(DEALS), help="bot specs (default: every built-in bot)")
    parser.add_argument("--deals", type=int, default=None, help="shuffles per cell (default: the table's)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--again", action="store_true", help="play cells whose report is already kept")
    parser.add_argument(
        "--register", action="append", default=[], metavar="NAME=MODULE:ATTRIBUTE",
        help="register your own bot class or factory under NAME first (docs/baselines.md); the cells then "
        "play in this process (--jobs 1), since worker processes would not know the name",
    )
    parser.add_argument("--label", help="your agent's name in its row and file (default: its spec); with one --bots")
    parser.add_argument(
        "--out", type=Path, metavar="DIR",
        help="write your agent's cells to DIR/LABEL.json (the submission schema, docs/baselines.md) and leave "
        "the tracked results and docs alone",
    )
    parser.add_argument("--row", type=Path, nargs="+", metavar="FILE", help="print the table's rows of submission files")
    args = parser.parse_args()
    if args.row:
        try:
            print("\n\n".join(submission_rows(read_submission(path)) for path in args.row))
        except ValueError as error:
            sys.exit(f"error: {error}")
        return
    if (args.label or args.out) and (len(args.bots) != 1 or args.table):
        sys.exit("--label and --out take one agent: give exactly one --bots (and no --table)")
    if args.label and not LABEL.fullmatch(args.label):
        sys.exit(f"--label must be 1 to 64 letters, digits, '.', '_' or '-', not {args.label!r}")
    if args.out and not args.label:
        sys.exit("--out needs --label, the name of your agent's row and file")
    for item in args.register:
        name, equals, target = item.partition("=")
        if not equals or ":" not in target:
            sys.exit(f"--register takes NAME=MODULE:ATTRIBUTE, not {item!r}")
        register(name, target, "registered for the baseline table")
        args.jobs = 1
    missing = set(DEALS) - set(available())
    if missing:
        sys.exit(f"the table names bots that are not registered: {sorted(missing)}")
    if args.out:
        bot = args.bots[0]
        cells = []
        for players in args.players:
            cell = play_cell(players, bot, args.deals or DEALS.get(bot, SEARCH)[players], args.jobs)
            cells.append(cell)
            print(f"{time.strftime('%H:%M:%S')} {players} players, {args.label}: "
                  f"{_ci(cell['penalty_per_deal'])} ({cell['deals']} deals, {cell['seconds']:.0f} s)", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"{args.label}.json"
        path.write_text(json.dumps(submission(args.label, bot, cells), indent=1) + "\n", encoding="utf-8")
        print(f"{path} (its rows: benchmarks/baselines.py --row {path})")
        return
    if not args.table:
        for players in args.players:
            for bot in args.bots:
                if f"{players}/{bot}" in kept() and not args.again:
                    continue
                deals = args.deals or DEALS.get(bot, SEARCH)[players]
                cell = play_cell(players, bot, deals, args.jobs)
                if args.label:
                    cell["label"] = args.label
                keep(cell)
                print(f"{time.strftime('%H:%M:%S')} {players} players, {bot}: "
                      f"{_ci(cell['penalty_per_deal'])} ({cell['deals']} deals, {cell['seconds']:.0f} s)", flush=True)
    write_doc()


if __name__ == "__main__":
    main()
