"""``sixnimmt replay verify|show``: check a game record, or print it turn by turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..core import RecordError
from ..core.record import load, replay
from ..core.text import describe_game, printable

if TYPE_CHECKING:
    from ..bots.review import Review

app = typer.Typer(help="Check or show a game record (docs/record-format.md).", no_args_is_help=True)

FileArg = Annotated[Path, typer.Argument(metavar="FILE", help="A record file (JSON).", show_default=False)]


@app.command()
def verify(
    file: FileArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Replay FILE by the rules; exit 0 with the totals and winners, or 1 naming the first error."""
    try:
        result = replay(load(file))
    except RecordError as error:
        if as_json:
            typer.echo(json.dumps({"valid": False, "error": str(error)}))
        else:
            _invalid("verify", file, error)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    seats = result.game.seats
    typer.echo(f"valid record: {result.deals} deal(s), {result.game.rules.variant.value} rules")
    for seat, (name, score) in enumerate(zip(seats, result.scores)):
        mark = "  winner" if seat in result.winners else ""
        typer.echo(f"  {printable(name, 40):<20} {score:>4}{mark}")


@app.command()
def show(
    file: FileArg,
    tui: Annotated[bool, typer.Option("--tui", help="Step through it in the terminal app.")] = False,
    review_seat: Annotated[
        int | None,
        typer.Option("--review", min=0, help="Analyse every decision of this seat (0 = first): "
                     "expected penalty of the move played against the best move found.", show_default=False),
    ] = None,
    samples: Annotated[int, typer.Option(min=1, max=100_000, help="--review: rollouts per option.")] = 300,
    as_json: Annotated[bool, typer.Option("--json", help="--review: print the review as JSON.")] = False,
) -> None:
    """Print the game in FILE turn by turn, as a person would read it (or review one seat's play)."""
    try:
        data = load(file)
        result = replay(data, partial=True)
    except RecordError as error:
        _invalid("show", file, error)
        raise typer.Exit(1) from None
    if tui and as_json:
        typer.echo("sixnimmt replay show: --json and --tui do not go together", err=True)
        raise typer.Exit(2)
    if review_seat is not None and not tui:
        from ..bots.review import describe_review

        analysis = _review(data, review_seat, samples)
        typer.echo(json.dumps(analysis.to_dict()) if as_json else describe_review(analysis))
        return
    if tui:
        from ..tui.replay import run_replay  # the Textual app is only loaded when asked for

        # With --review the viewer shows the seat's analysed decisions at their turns.
        run_replay(data, review=None if review_seat is None else _review(data, review_seat, samples))
        return
    typer.echo(describe_game(result.game))


def _invalid(command: str, file: Path, error: RecordError) -> None:
    """The one line for a record that does not replay (the message is bounded and printable)."""
    typer.echo(f"sixnimmt replay {command}: invalid record {printable(str(file), 100)}: {error}", err=True)


def _review(data: dict[str, object], seat: int, samples: int) -> Review:
    """One seat's decisions analysed, or exit 1 with one line saying why they cannot be."""
    # The searcher's compiled kernels load only when a review is asked for.
    from ..bots.review import review

    try:
        return review(data, seat, samples=samples)
    except RecordError as error:
        typer.echo(f"sixnimmt replay show: cannot review: {error}", err=True)
        raise typer.Exit(1) from None
