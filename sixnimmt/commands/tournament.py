"""``sixnimmt tournament``: a Swiss or duplicate tournament of bots, round by round, with standings."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from ..arena import ArenaError
from ..arena.rounds import FORMATS, TournamentConfig, TournamentReport, run_tournament
from ..core import Variant
from .arena import split_bots

app = typer.Typer(
    help="A Swiss or duplicate tournament of bots at tables of several players (docs/arena.md).",
    subcommand_metavar="",
)


@app.callback(invoke_without_command=True)
def tournament(
    bots: Annotated[
        list[str],
        typer.Option(
            "--bots", "-b",
            help="The entrants, in seeding order (strongest first), comma-separated or the option "
            "repeated: bot specs as for `sixnimmt arena`; a spec given twice is two entrants.",
            show_default=False,
        ),
    ] = [],  # noqa: B006 - Typer reads the default; it is never mutated
    format: Annotated[str, typer.Option("--format", help=f"{' or '.join(FORMATS)}: placement points, or every table of a round on the same shuffle, scored hand against hand.")] = "swiss",
    rounds: Annotated[int, typer.Option(min=1, help="Rounds to play.")] = 3,
    players: Annotated[int, typer.Option(min=2, max=10, help="Seats per table.")] = 4,
    variant: Annotated[str, typer.Option(help=f"{', '.join(v.value for v in Variant)}.")] = "standard",
    target: Annotated[int | None, typer.Option(min=0, help="Games end when a total reaches this (default 66 in swiss, none in duplicate); 0 for none.", show_default=False)] = None,
    game_deals: Annotated[int | None, typer.Option(min=1, help="Deals per game (duplicate: default 1).")] = None,
    fill: Annotated[str, typer.Option(help="The bot in seats no entrant takes; it scores nothing.")] = "medium",
    seed: Annotated[int, typer.Option(help="Seed of every shuffle and bot: same seed, same tournament.")] = 1,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel worker processes.")] = 1,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds an external bot may take per reply.")] = 5.0,
    out: Annotated[Path | None, typer.Option(help="Folder for tournament.json (and the games with --save-games).")] = None,
    save_games: Annotated[bool, typer.Option("--save-games", help="Also save every game record in OUT/games/.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON instead of tables.")] = False,
) -> None:
    """Seat the entrants at Swiss tables round after round (grouped by standing, repeat table-mates
    avoided), play every table, and print the standings with their tie-breaks."""
    specs = split_bots(bots)
    if not specs:
        _fail("give the entrants with --bots, e.g. --bots expert,hard,medium,easy,random")
    if save_games and out is None:
        _fail("--save-games needs --out DIR to save the records in")
    duplicate = format == "duplicate"
    config = TournamentConfig(
        entrants=specs, format=format, rounds=rounds, players=players, variant=variant,
        target=(None if duplicate else 66) if target is None else target or None,
        game_deals=game_deals, fill=fill, seed=seed, jobs=jobs, timeout=timeout, save_games=save_games,
    ).with_defaults()
    try:
        config.validate()
    except ArenaError as error:
        _fail(str(error))
    logging.basicConfig(level=logging.WARNING, format="sixnimmt: %(message)s", stream=sys.stderr)
    console = Console(stderr=True)

    def on_round(index: int, _: object) -> None:
        if not as_json:
            console.print(f"round {index + 1} of {rounds} played")

    try:
        report = run_tournament(config, on_round)
    except ArenaError as error:
        _fail(str(error), status=1)
    if out is not None:
        try:
            report.write(out)
        except OSError as error:
            _fail(f"cannot write the results in {out}: {error.strerror or error}", status=1)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=1))
    else:
        Console().print(standings_table(report))


def standings_table(report: TournamentReport) -> Table:
    duplicate = report.config.duplicate
    title = f"{'Duplicate' if duplicate else 'Swiss'} tournament: {len(report.rounds)} rounds, {len(report.config.entrants)} entrants"
    table = Table(title=title, caption=(
        "points: share of hands played better than the others who held them, summed over rounds; "
        "saved: bullheads below theirs" if duplicate else
        "points: one per player at the table who took more bullheads, half per tie; "
        "Buchholz: the points of everyone met"
    ))
    for name, justify in (("place", "right"), ("entrant", "left"), ("points", "right"),
                          ("saved" if duplicate else "Buchholz", "right"), ("bullheads", "right"), ("games", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in report.standings:
        table.add_row(str(s.place), report.labels[s.entrant], f"{s.points:g}", f"{s.tiebreak:.2f}" if duplicate else f"{s.tiebreak:g}", str(s.bullheads), str(s.games))
    return table


def _fail(message: str, status: int = 2) -> NoReturn:
    typer.echo(f"sixnimmt tournament: {message}", err=True)
    raise typer.Exit(status)
