"""The table of docs/bots.md, "OpenSpiel's ISMCTS against our bots": OpenSpiel's information-set
Monte-Carlo tree search (``openspiel:ismcts``, sixnimmt/rl/openspiel/bots.py) at two budgets against
``medium``, ``mcs100`` and ``expert``, and at a larger one against ``medium``.

4 players, standard rules, each game one deal: ISMCTS takes one seat and the opponent the three
others, rotated through every seat of each shuffle (a duplicate set of four games). Each cell's
figures are kept in one file, ``benchmarks/openspiel-results.json`` (keyed ``ismctsS-OPPONENT``); a
cell kept there is not played again.

    nice .venv/bin/python benchmarks/openspiel_ismcts.py            # play the missing cells, write the table
    nice .venv/bin/python benchmarks/openspiel_ismcts.py --table    # only rewrite the table

Needs the openspiel extra (pip install 'sixnimmt[openspiel]').
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

from doc_tables import fill  # (beside this script)

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.arena.stats import mean_ci, paired_differences

HERE = Path(__file__).parent
RESULTS = HERE / "openspiel-results.json"
DOC = HERE.parent / "docs" / "bots.md"
MARK = "<!-- openspiel-ismcts: .venv/bin/python benchmarks/openspiel_ismcts.py -->"
END = "<!-- /openspiel-ismcts -->"

SEED = 45
PLAYERS = 4
OPPONENTS = ("medium", "mcs100", "expert")
#: ``(simulations per decision, opponent, shuffles)``: the cells, each shuffle a duplicate set of
#: four games. OpenSpiel's ISMCTS runs in Python over a Python game, about 10 to 15 ms a simulation
#: here, so the budgets and the deals are what two shared cores played in about an hour; the largest
#: budget against ``medium`` alone, to see the trend.
CELLS: tuple[tuple[int, str, int], ...] = (
    *((10, opponent, 60) for opponent in OPPONENTS),
    *((50, opponent, 25) for opponent in OPPONENTS),
    (200, "medium", 12),
)


def kept() -> dict[str, dict[str, Any]]:
    """Every cell played so far, keyed ``ismctsS-OPPONENT``."""
    return json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}


def key(simulations: int, opponent: str) -> str:
    return f"ismcts{simulations}-{opponent}"


def play_cell(simulations: int, opponent: str, deals: int, jobs: int) -> dict[str, Any]:
    bot = f"openspiel:ismcts:simulations={simulations}"
    bots = (bot, *[opponent] * (PLAYERS - 1))
    config = ArenaConfig(bots=bots, deals=deals, players=PLAYERS, target=None, game_deals=1, seed=SEED, jobs=jobs)
    started = time.perf_counter()
    report = run_arena(config)
    seconds = time.perf_counter() - started
    tested = report.per_set_penalty[0]
    field = [
        sum(v for v in row if v is not None) / len([v for v in row if v is not None])
        for row in zip(*report.per_set_penalty[1:], strict=True)
    ]
    stats = report.bot(config.labels()[0])
    return {
        "bot": bot,
        "opponent": opponent,
        "players": PLAYERS,
        "deals": report.shuffles,
        "games": report.games,
        "seed": SEED,
        "penalty_per_deal": stats.penalty_per_deal.to_dict(),
        "opponent_penalty_per_deal": mean_ci(field).to_dict(),
        "minus_opponent": mean_ci(paired_differences(tested, field)).to_dict(),
        "ms_per_decision": stats.mean_decision_ms,
        "faults": stats.faults,
        "seconds": seconds,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "command": f"sixnimmt arena --bots {','.join(bots)} --players {PLAYERS} --deals {deals} "
        f"--target 0 --game-deals 1 --seed {SEED}",
    }


def _ci(interval: dict[str, Any], sign: bool = False) -> str:
    fmt = "{:+.2f}" if sign else "{:.2f}"
    if interval["low"] is None:
        return fmt.format(interval["mean"])
    return f"{fmt.format(interval['mean'])} [{fmt.format(interval['low'])}, {fmt.format(interval['high'])}]"


def table() -> str:
    rows = []
    cells = kept()
    for simulations, opponent, _ in CELLS:
        c = cells.get(key(simulations, opponent))
        if c is None:
            continue
        d = c["minus_opponent"]
        verdict = (
            "ISMCTS better" if d["high"] is not None and d["high"] < 0
            else f"{opponent} better" if d["low"] is not None and d["low"] > 0
            else "no significant difference"
        )
        rows.append(
            f"| {simulations} | `{opponent}` | {_ci(c['penalty_per_deal'])} | {_ci(c['opponent_penalty_per_deal'])} | "
            f"{_ci(d, sign=True)} | {verdict} | {c['deals']} | {c['games']} | {c['seed']} | {c['ms_per_decision']:.0f} | {c['faults']} |"
        )
    return (
        "| simulations | opponent (3 seats) | ISMCTS: penalty per deal | opponent: penalty per deal | ISMCTS − opponent, 95% CI "
        "| verdict | deals | games | seed | ISMCTS ms per decision | faults |\n"
        "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n" + "\n".join(rows)
    )


def write_doc() -> None:
    fill(DOC, MARK, END, table())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", action="store_true", help="only rewrite the table from the kept results")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not args.table:
        for simulations, opponent, deals in CELLS:
            if key(simulations, opponent) in kept():
                continue
            cell = play_cell(simulations, opponent, deals, args.jobs)
            cells = {**kept(), key(simulations, opponent): cell}
            RESULTS.write_text(json.dumps(cells, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            print(f"{time.strftime('%H:%M:%S')} ismcts {simulations} vs {opponent}: "
                  f"{_ci(cell['minus_opponent'], sign=True)} ({cell['deals']} deals, {cell['seconds']:.0f} s)", flush=True)
    write_doc()


if __name__ == "__main__":
    main()
