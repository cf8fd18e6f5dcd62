"""``sixnimmt arena``: a duplicate-deal tournament between bots, with honest statistics."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..arena import ArenaConfig, ArenaError, run_arena
from ..arena.runner import FIXED_LENGTH
from ..core import Variant
from ..seats import available, entries, prefixes

app = typer.Typer(help="Pit bots against each other over duplicate deals (docs/arena.md).", subcommand_metavar="")


def split_bots(values: list[str]) -> tuple[str, ...]:
    """Bot specs from ``--bots`` values: comma-separated, and repeatable. A piece that is neither a
    registered name nor ``PREFIX:...`` belongs to the command line before it (``cmd:x --w 1,2``)."""
    names = available()
    specs: list[str] = []
    for value in values:
        for piece in value.split(","):
            stripped = piece.strip()
            if specs and specs[-1].startswith("cmd:") and stripped not in names and ":" not in stripped:
                specs[-1] += "," + piece
            elif stripped:
                specs.append(stripped)
    return tuple(specs)


@app.callback(invoke_without_command=True)
def arena(
    bots: Annotated[
        list[str],
        typer.Option(
            "--bots", "-b",
            help="Bots, comma-separated (or the option repeated): registered names with optional "
            "options, NAME[:key=value...] (`sixnimmt arena --list`), or cmd:COMMAND LINE for an "
            "external program.",
            show_default=False,
        ),
    ] = [],  # noqa: B006 - Typer reads the default; it is never mutated
    deals: Annotated[int, typer.Option(min=1, help="Distinct shuffles to play (each once per seating).")] = 100,
    players: Annotated[int | None, typer.Option(min=2, max=10, help="Seats per game (default: one per bot if the variant allows that many, else 4).")] = None,
    variant: Annotated[str, typer.Option(help=f"{', '.join(v.value for v in Variant)} (docs/rules.md §5-6).")] = "standard",
    target: Annotated[int | None, typer.Option(min=0, help="Game ends when a total reaches this (default 66); 0 for none. Tournament and Hand have no target.", show_default=False)] = None,
    end: Annotated[str, typer.Option(help="at-least (>= target) or above (> target).")] = "at-least",
    game_deals: Annotated[int | None, typer.Option(min=1, help="Deals per game (fixed length; with --target 0 exactly this).")] = None,
    double_deck: Annotated[str, typer.Option(help="Double's deck: two-decks, or doubles (one deck plus the second deck's 11..99).")] = "two-decks",
    permutations: Annotated[str, typer.Option(help="Seatings per duplicate set: rotations, all, or single (one per set, rotated from set to set).")] = "rotations",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the whole schedule: same seed and bots, same results.")] = 1,
    backend: Annotated[str, typer.Option(help="local (processes here) or ray (needs the ray extra: pip install 'sixnimmt[ray]').")] = "local",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (default: start a local Ray).")] = None,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds an external bot may take per reply.")] = 5.0,
    out: Annotated[Path | None, typer.Option(help="Folder for report.json, bots.csv, pairs.csv, penalty.png.")] = None,
    save_games: Annotated[bool, typer.Option("--save-games", help="Also save every game record in OUT/games/.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead of tables.")] = False,
    list_bots: Annotated[bool, typer.Option("--list", help="List the registered bots, their options and defaults, and exit.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 if any bot had a fault (the report is still written).")] = False,
) -> None:
    """Play every bot against the others over duplicate deals and report who is better, with 95%
    confidence intervals, head-to-head differences, OpenSkill ratings and each bot's faults."""
    console = Console(stderr=True)
    if list_bots:
        _list_bots()
        return
    specs = split_bots(bots)
    if not specs:
        _fail("give the bots to play with --bots, e.g. --bots random,snug,cautious,mcs100")
    if save_games and out is None:
        _fail("--save-games needs --out DIR to save the records in")
    if target and variant in FIXED_LENGTH:  # --target 0 (none) agrees with them
        _fail(f"{variant} games have no target: leave out --target")
    logging.basicConfig(level=logging.WARNING, format="sixnimmt: %(message)s", stream=sys.stderr)
    config = ArenaConfig(
        bots=specs, deals=deals, players=players, variant=variant,
        target=66 if target is None else target or None, end=end, game_deals=game_deals,
        double_deck=double_deck, permutations=permutations, jobs=jobs, seed=seed, backend=backend,
        address=address, timeout=timeout, save_games=save_games,
    )
    try:
        config.validate()  # before the progress bar: a bad option costs nothing
    except ArenaError as error:
        _fail(str(error))
    if out is not None:
        # Before playing, so that hours of games are never lost to a folder that cannot be written.
        try:
            out.mkdir(parents=True, exist_ok=True)
            probe = out / ".sixnimmt-write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            _fail(f"cannot write the report in {out}: {error.strerror or error}")
    try:
        with Progress(
            TextColumn("arena"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
            TimeElapsedColumn(), console=console, transient=True, disable=as_json,
        ) as bar:
            task = bar.add_task("games", total=None)
            report = run_arena(config, progress=lambda done, total: bar.update(task, completed=done, total=total))
    except ArenaError as error:  # while playing (a worker died, Ray went away): not the command line
        _fail(str(error), status=1)
    if out is not None:
        try:
            written = report.write(out, records=save_games)
        except OSError as error:
            _fail(f"cannot write the report in {out}: {error.strerror or error}", status=1)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=1))
    else:
        screen = Console()
        screen.print(report.table())
        if report.pairs:
            screen.print(report.pairs_table())
        if report.identical_sets:
            screen.print(
                "note: every duplicate set played out identically (this variant has no chance, and "
                "these bots do not draw on their seeds): the sets are copies, not samples, and the "
                "intervals say nothing. Compare on a variant with shuffles, or add a bot that uses its seed."
            )
        if report.faults:
            screen.print(f"{len(report.faults)} fault(s); the first: {_fault_line(report.faults[0])}")
    if out is not None:
        console.print(f"report: {', '.join(str(p) for p in written[:4])}" + (
            f" and {len(written) - 4} game records" if len(written) > 4 else ""))
    if strict and report.faults:
        typer.echo(
            f"sixnimmt arena: --strict: {len(report.faults)} fault(s); the first: {_fault_line(report.faults[0])}",
            err=True,
        )
        raise typer.Exit(1)


def _list_bots() -> None:
    """Each bot with its description, then its options as ``key=default`` (what a spec may set)."""
    bots = entries()
    width = max(len(name) for name in [*bots, *(p + ":..." for p in prefixes())])
    for name, entry in bots.items():
        typer.echo(f"{name:<{width}}  {entry.description}")
        shown = {key: f"{key}={option.shown()}" for key, option in entry.options.items()}
        key_width = max(map(len, shown.values()), default=0)
        for key, option in entry.options.items():
            allowed = f"one of {', '.join(option.choices)}" if option.choices else option.kind
            typer.echo(f"{'':<{width + 4}}{shown[key]:<{key_width}}  {allowed}: {option.help}")
    for prefix, description in prefixes().items():
        typer.echo(f"{prefix + ':...':<{width}}  {description}")
    typer.echo("Options follow the name, each after a colon: expert:samples=400:rollout=snug.")


def _fault_line(fault: dict[str, object]) -> str:
    return f"{fault['bot']} {fault['kind']}: {fault['message']}"


def _fail(message: str, status: int = 2) -> NoReturn:
    """One line, ``sixnimmt arena: ...``; status 2 for a bad command line, 1 for a failed run."""
    typer.echo(f"sixnimmt arena: {message}", err=True)
    raise typer.Exit(status)
