"""``sixnimmt advise FILE --seat N``: the move a bot recommends, with its expected penalty per option.

FILE is JSON, one of:

* a game record (docs/record-format.md), complete or in progress: the position after its last move;
* a player's view, as the bot protocol and the web server send it (``PlayerView.to_dict()``); the
  seat is the view's own;
* a position: ``{"rules": {...}, "hands": [[...], ...], "rows": [[...], ...]}`` with optional
  ``"totals"`` and ``"penalties"`` (rules default to the standard game for ``len(hands)`` players).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import DecisionKind, Game, PlayerView, RecordError, Rules
from ..core.record import load, replay
from ..core.text import card_text, printable, rows_text
from ..seats.registry import HINT_LEVEL, LEVELS

# A group with only a callback: let options follow the FILE argument, as in a plain command.
app = typer.Typer(
    help="Ask a bot for the best move in a position, with its numbers.",
    context_settings={"allow_interspersed_args": True},
    subcommand_metavar="",
)


class PositionError(ValueError):
    """A FILE that is none of the accepted forms."""


def load_view(path: Path, seat: int | None) -> PlayerView:
    """The view to advise on, from a record, a view or a position file."""
    try:
        # The record reader's limits (size, nesting, numbers, strings) serve any JSON input.
        data: Any = load(path)
    except RecordError as error:
        message = str(error).replace("a record is a JSON object", "FILE must hold a JSON object")
        raise PositionError(f"{printable(str(path), 100)}: {message}") from None
    if "decision" in data and "hand" in data:
        try:
            view = PlayerView.from_dict(data)
        except (KeyError, TypeError, ValueError) as error:
            raise PositionError(f"{path} is not a valid player view: {error}") from None
        if seat is not None and seat != view.seat:
            raise PositionError(f"{path} is seat {view.seat}'s view, not seat {seat}'s")
        return view
    if seat is None:
        raise PositionError("say whose move to advise on with --seat N")
    if data.get("format") == "sixnimmt-record":
        game = replay(data, partial=True).game
    elif "hands" in data and "rows" in data:
        if not (_card_lists(data["hands"]) and _card_lists(data["rows"])):
            raise PositionError(f"{path}: hands and rows must be lists of lists of cards")
        hands, rows = data["hands"], data["rows"]
        for field in ("totals", "penalties"):
            if data.get(field) is not None and not _whole_numbers(data[field]):
                raise PositionError(f"{path}: {field} must be a list of whole numbers, one per seat")
        rules = Rules.from_dict(data["rules"]) if "rules" in data else Rules(players=len(hands))
        game = Game.from_position(
            rules, hands, rows, totals=data.get("totals"), penalties=data.get("penalties")
        )
    else:
        raise PositionError(f"{path} is neither a record, a player view nor a position (hands and rows)")
    return game.view(seat)


def _whole_numbers(value: Any) -> bool:
    return isinstance(value, list) and all(type(v) is int for v in value)  # not 8.5, not true


def _card_lists(value: Any) -> bool:
    return isinstance(value, list) and all(_whole_numbers(v) for v in value)


@app.callback(invoke_without_command=True)
def advise_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A record, a player's view or a position (JSON).", show_default=False)],
    seat: Annotated[int | None, typer.Option(help="The seat to advise (not needed for a view file).")] = None,
    bot: Annotated[str, typer.Option(help=f"The bot that advises: a level ({', '.join(LEVELS)}; by default the strongest), any bot with optional options, e.g. expert:samples=400 (sixnimmt arena --list), or cmd:COMMAND LINE.")] = HINT_LEVEL,
    seed: Annotated[int, typer.Option(help="The bot's seed.")] = 1,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds an external bot (cmd:...) may take to answer.")] = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
) -> None:
    """Print the move BOT recommends for SEAT in FILE, with the expected penalty of each option."""
    from ..seats.advise import advise  # loads the compiled bots only for this command

    quiet = logging.getLogger("sixnimmt")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # a faulty bot's incidents end in one error line below, not a log
    try:
        view = load_view(file, seat)
        advice = advise(view, bot=bot, seed=seed, timeout=timeout)
    except ValueError as error:  # every user error of the core and the bots is a ValueError
        typer.echo(f"sixnimmt advise: {error}", err=True)
        raise typer.Exit(1) from None
    finally:
        quiet.setLevel(level)
    decision = view.decision
    assert decision is not None
    if as_json:
        typer.echo(json.dumps({**advice.to_dict(), "seat": view.seat, "decision": decision.to_dict()}))
        return
    kind = decision.kind
    what = "row" if kind is DecisionKind.ROW else "card"

    def label(option: int) -> str:
        return f"row {option}" if kind is DecisionKind.ROW else card_text(option)

    typer.echo(f"rows: {rows_text(view.rows)}")
    typer.echo(f"seat {view.seat} ({printable(view.seats[view.seat or 0], 40)}), {kind.value} decision: {bot} plays {what} {label(advice.choice)}")
    if advice.scores:
        typer.echo("expected penalty this deal (lower is better):")
        for option, score in sorted(advice.scores.items(), key=lambda item: (item[1], item[0])):
            mark = "  <- recommended" if option == advice.choice else ""
            typer.echo(f"  {label(option):>10}  {score:6.2f}{mark}")
