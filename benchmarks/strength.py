"""The strength tables of the levels at every table size (docs/baselines.md, docs/bots.md).

Every cell is a duplicate-deal arena run, standard rules, every game one deal, with its seed:

* ``expert-field``: each level in one seat, ``expert`` in the others (docs/baselines.md), at 2, 4, 6
  and 10 players; bot minus field paired by duplicate set, as in the ``medium``-field table.
* ``ladder``: each level against a field of the level below it (``medium`` vs an ``easy`` field,
  ``hard`` vs ``medium``, ``expert`` vs ``hard``, ``grandmaster`` vs ``expert``) at 2, 4, 6 and 10.
* ``mixed``: at 4, 6 and 10 players one table of every level (``random`` to ``grandmaster``; at 4
  seats a different four of them per duplicate set, at 10 the lineup repeated), each level's
  penalty per deal and the difference to the next level down, paired by set where both sat.
* ``equal-time``: at 4 players ``grandmaster`` against ``expert`` given about the grandmaster's
  time per decision (``expert:samples=EQUAL_SAMPLES``), head to head (A B A B, B A B A).

Results are kept in ``benchmarks/strength-results.json`` (a kept cell is not played again unless
``--again``), then the tables are written into the docs::

    nice .venv/bin/python benchmarks/strength.py --jobs 2                  # every missing cell
    nice .venv/bin/python benchmarks/strength.py --sections ladder --players 6 --deals 40
    nice .venv/bin/python benchmarks/strength.py --cells 'field/expert/4/grandmaster' --again --deals 100
    nice .venv/bin/python benchmarks/strength.py --try grandmaster:own=medium expert --players 4 --deals 100 --seed 47
    .venv/bin/python benchmarks/strength.py --table                         # only the tables

``--deals`` overrides every cell's deals (quick runs); the table prints each cell's own.
"""

from __future__ import annotations

import argparse
import fnmatch
import itertools
import json
import platform
import time
from pathlib import Path
from typing import Any

from baselines import _ci  # (beside this script)
from doc_tables import fill

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.arena.stats import mean_ci, paired_differences

HERE = Path(__file__).parent
RESULTS = HERE / "strength-results.json"
BASELINES_DOC = HERE.parent / "docs" / "baselines.md"
BOTS_DOC = HERE.parent / "docs" / "bots.md"
SEED = 46
PLAYERS = (2, 4, 6, 10)
LEVELS = ("easy", "medium", "hard", "expert", "grandmaster")
EXPERT_FIELD_BOTS = (*LEVELS, "learned")
#: Deals per cell by table size. A field of searchers is the cost (at 10 players nine of them each
#: decision): 50 ten-player deals of an ``expert`` field are about 1,700 CPU seconds.
DEALS = {2: 300, 4: 200, 6: 100, 10: 50}
#: ``expert``'s rollouts per option that take about the grandmaster's time per decision at 4
#: players (``sixnimmt bench bots --bots grandmaster,expert:samples=700 --players 4 --deals 4``:
#: means of 64 and 61 ms of CPU on 2026-12-05; 1,000 took 87, when the grandmaster's defaults
#: changed).
EQUAL_SAMPLES = 700
SECTIONS = ("expert-field", "ladder", "mixed", "equal-time")


def kept() -> dict[str, dict[str, Any]]:
    return json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}


def keep(key: str, cell: dict[str, Any]) -> None:
    cells = kept()
    cells[key] = cell
    RESULTS.write_text(json.dumps(cells, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def arena(bots: tuple[str, ...], players: int, deals: int, jobs: int, seed: int = SEED) -> tuple[Any, dict[str, Any]]:
    """One arena run and what every cell records about how it was played."""
    config = ArenaConfig(bots=bots, deals=deals, players=players, target=None, game_deals=1, seed=seed, jobs=jobs)
    started = time.perf_counter()
    report = run_arena(config)
    return report, {
        "players": players, "deals": report.shuffles, "games": report.games, "seed": seed,
        "seconds": time.perf_counter() - started, "jobs": jobs,
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}",
        "command": f"sixnimmt arena --bots {','.join(bots)} --players {players} --deals {deals} "
        f"--target 0 --game-deals 1 --seed {seed}",
    }  # fmt: skip


def field_cell(bot: str, field: str, players: int, deals: int, jobs: int, seed: int = SEED) -> dict[str, Any]:
    """``bot`` in one seat, ``field`` in the others: bot minus field per duplicate set."""
    report, cell = arena((bot, *[field] * (players - 1)), players, deals, jobs, seed)
    tested = report.per_set_penalty[0]
    field_sets = [
        sum(v for v in row if v is not None) / len([v for v in row if v is not None])
        for row in zip(*report.per_set_penalty[1:], strict=True)
    ]
    return {
        **cell, "bot": bot, "field": field,
        "penalty_per_deal": mean_ci([v for v in tested if v is not None]).to_dict(),
        "minus_field": mean_ci(paired_differences(tested, field_sets)).to_dict(),
    }  # fmt: skip


def mixed_cell(players: int, deals: int, jobs: int) -> dict[str, Any]:
    """Every level at one table: each level's penalty per deal, and each step's difference."""
    bots = ("random", *LEVELS)
    report, cell = arena(bots, players, deals, jobs)
    levels = []
    for i, bot in enumerate(bots):
        sets = report.per_set_penalty[i]
        step = None
        if i > 0:
            step = mean_ci(paired_differences(sets, report.per_set_penalty[i - 1])).to_dict()
        levels.append({"bot": bot, "penalty_per_deal": mean_ci([v for v in sets if v is not None]).to_dict(),
                       "minus_level_below": step})
    return {**cell, "levels": levels}


def head_to_head(a: str, b: str, players: int, deals: int, jobs: int) -> dict[str, Any]:
    report, cell = arena((a, b), players, deals, jobs)
    return {**cell, "a": a, "b": b,
            "a_minus_b": mean_ci(paired_differences(report.per_set_penalty[0], report.per_set_penalty[1])).to_dict()}


def field_key(field: str, players: int, bot: str) -> str:
    """The key of a field cell in the results: ``field/FIELD/P/BOT``."""
    return f"field/{field}/{players}/{bot}"


def plan(sections: list[str], players: list[int]) -> list[tuple[str, int, Any]]:
    """Every cell of the chosen sections: (key, players, how to play it with a number of deals and jobs)."""
    cells: list[tuple[str, int, Any]] = []
    for p in players:
        wanted: list[tuple[str, str]] = []  # (bot, field); the ladder's top rung is an expert-field cell
        if "expert-field" in sections:
            wanted += [(bot, "expert") for bot in EXPERT_FIELD_BOTS]
        if "ladder" in sections:
            wanted += [(above, below) for below, above in itertools.pairwise(LEVELS)]
        for bot, field in dict.fromkeys(wanted):
            cells.append((field_key(field, p, bot), p, lambda d, j, b=bot, f=field, p=p: field_cell(b, f, p, d, j)))
        if "mixed" in sections and p >= 4:
            cells.append((f"mixed/{p}", p, lambda d, j, p=p: mixed_cell(p, d, j)))
    if "equal-time" in sections and 4 in players:
        cells.append(("equal-time/4", 4, lambda d, j: head_to_head("grandmaster", f"expert:samples={EQUAL_SAMPLES}", 4, d, j)))
    return cells


def chosen(cells: list[tuple[str, int, Any]], patterns: list[str] | None) -> list[tuple[str, int, Any]]:
    """The cells whose key matches one of the glob ``patterns`` (every cell when there are none); a
    pattern that matches no cell is an error, so a mistyped key is not a silent no-op."""
    if not patterns:
        return cells
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(key, pattern) for key, _, _ in cells):
            raise SystemExit(f"--cells: no cell matches {pattern!r} (keys look like field/expert/4/grandmaster, mixed/6, equal-time/4)")
    return [cell for cell in cells if any(fnmatch.fnmatchcase(cell[0], pattern) for pattern in patterns)]


def _verdict(interval: dict[str, Any], better: str = "better", worse: str = "worse") -> str:
    if interval["high"] is not None and interval["high"] < 0:
        return better
    if interval["low"] is not None and interval["low"] > 0:
        return worse
    return "no significant difference"


def expert_field_table(cells: dict[str, dict[str, Any]]) -> str:
    parts = []
    for p in PLAYERS:
        rows = []
        for bot in EXPERT_FIELD_BOTS:
            cell = cells.get(field_key("expert", p, bot))
            if cell is None:
                continue
            d = cell["minus_field"]
            rows.append(f"| `{bot}` | {_ci(cell['penalty_per_deal'])} | {_ci(d, sign=True)} | "
                        f"{_verdict(d, 'better than the field', 'worse than the field')} | {cell['deals']:,} | {cell['seed']} |")
        if rows:
            parts.append(f"### {p} players, `expert` field\n\n| bot | penalty per deal, 95% CI | bot − field, 95% CI | "
                         "verdict | deals | seed |\n| --- | ---: | ---: | --- | ---: | ---: |\n" + "\n".join(rows))
    return "\n\n".join(parts)


def ladder_table(cells: dict[str, dict[str, Any]]) -> str:
    rows = []
    for p in PLAYERS:
        for below, above in itertools.pairwise(LEVELS):
            cell = cells.get(field_key(below, p, above))
            if cell is None:
                continue
            d = cell["minus_field"]
            article = "an" if below[0] in "aeiou" else "a"
            rows.append(f"| {p} | `{above}` vs {article} `{below}` field | {_ci(cell['penalty_per_deal'])} | {_ci(d, sign=True)} | "
                        f"{_verdict(d, f'{above} better', f'{below} better')} | {cell['deals']:,} | {cell['seed']} |")
    head = ("| players | match | penalty per deal, 95% CI | level − field, 95% CI | verdict | deals | seed |\n"
            "| ---: | --- | ---: | ---: | --- | ---: | ---: |\n")
    return head + "\n".join(rows) if rows else ""


def mixed_table(cells: dict[str, dict[str, Any]]) -> str:
    rows = []
    for p in (4, 6, 10):
        cell = cells.get(f"mixed/{p}")
        if cell is None:
            continue
        for i, level in enumerate(cell["levels"]):
            step = level["minus_level_below"]
            below = cell["levels"][i - 1]["bot"] if i else ""
            rows.append(f"| {p} | `{level['bot']}` | {_ci(level['penalty_per_deal'])} | "
                        f"{_ci(step, sign=True) if step else ''} | {_verdict(step, f'better than {below}', f'worse than {below}') if step else ''} | "
                        f"{cell['deals']:,} | {cell['seed']} |")
    head = ("| players | level | penalty per deal, 95% CI | − the level below, 95% CI | verdict | deals | seed |\n"
            "| ---: | --- | ---: | ---: | --- | ---: | ---: |\n")
    return head + "\n".join(rows) if rows else ""


def equal_time_table(cells: dict[str, dict[str, Any]]) -> str:
    cell = cells.get("equal-time/4")
    if cell is None:
        return ""
    d = cell["a_minus_b"]
    return ("| players | match (a vs b) | a − b per deal, 95% CI | verdict | deals | seed |\n| ---: | --- | ---: | --- | ---: | ---: |\n"
            f"| 4 | `{cell['a']}` vs `{cell['b']}` | {_ci(d, sign=True)} | {_verdict(d, 'grandmaster better', 'expert better')} | "
            f"{cell['deals']:,} | {cell['seed']} |")


def write_docs() -> None:
    cells = kept()
    command = "<!-- {}: .venv/bin/python benchmarks/strength.py --table -->"
    for doc, name, text in (
        (BASELINES_DOC, "expert-field", expert_field_table(cells)),
        (BOTS_DOC, "ladder", ladder_table(cells)),
        (BOTS_DOC, "mixed", mixed_table(cells)),
        (BOTS_DOC, "equal-time", equal_time_table(cells)),
    ):
        if text and command.format(name) in doc.read_text(encoding="utf-8"):
            fill(doc, command.format(name), f"<!-- /{name} -->", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", action="store_true", help="only rewrite the tables from the kept results")
    parser.add_argument("--sections", nargs="*", default=list(SECTIONS), choices=SECTIONS)
    parser.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    parser.add_argument("--deals", type=int, default=None, help="deals per cell (default: DEALS by table size)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--again", action="store_true", help="play cells whose result is already kept")
    parser.add_argument("--cells", nargs="*", default=None, metavar="PATTERN",
                        help="play only the cells whose key matches a glob pattern (field/FIELD/P/BOT, mixed/P, equal-time/4)")
    parser.add_argument("--try", dest="trial", nargs=2, metavar=("BOT", "FIELD"),
                        help="play one cell of BOT against a FIELD field at each --players and --seed, print it, keep nothing")
    parser.add_argument("--seed", type=int, default=SEED, help="--try's seed (the tables' cells use 46)")
    args = parser.parse_args()
    if args.trial:
        for players in args.players:
            print(json.dumps(field_cell(*args.trial, players, args.deals or DEALS[players], args.jobs, args.seed)), flush=True)
        return
    if not args.table:
        for key, players, play in chosen(plan(args.sections, args.players), args.cells):
            if key in kept() and not args.again:
                continue
            cell = play(args.deals or DEALS[players], args.jobs)
            keep(key, cell)
            print(f"{time.strftime('%H:%M:%S')} {key}: {cell['deals']} deals, {cell['seconds']:.0f} s", flush=True)
    write_docs()


if __name__ == "__main__":
    main()
