"""``sixnimmt play``: the full-screen terminal game against bots and friends."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..core import Game, RecordError, RulesError
from ..core.record import MAX_SEAT_NAME
from ..i18n import LANGUAGES, resolve_language, translator
from ..seats import LEVELS, UnknownBotError
from ..tui.config import DEFAULT_NAME

if TYPE_CHECKING:
    from ..tui.config import GameConfig

app = typer.Typer(help="Play 6 nimmt! in the terminal.", subcommand_metavar="")

#: ``count`` values -> count_down
_COUNTS = {"up": False, "down": True}


def _fail(message: str, status: int = 2) -> typer.Exit:
    """One line, ``sixnimmt play: ...``; status 2 for a bad command line, 1 when the game cannot
    run here (no terminal, too small a one)."""
    typer.echo(f"sixnimmt play: {message}", err=True)
    return typer.Exit(status)


@app.callback(invoke_without_command=True)
def play(
    bots: Annotated[
        list[str] | None,
        typer.Option(
            "--bots", "-b",
            metavar="LIST",
            help="The other seats, comma-separated (the option may be repeated): bot levels "
            f"({', '.join(LEVELS)}, or any registered bot, with options as in expert:samples=400), "
            "cmd:COMMAND LINE for an external "
            "program (docs/bot-protocol.md), or human[:NAME] for a friend at this keyboard. Example: "
            "hard,hard,expert. A comma inside a command line stays in it when the next piece is not "
            "a bot name: 'cmd:python3 bot.py --w 1,2,hard' is two seats.",
            show_default=False,
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            metavar="SEAT",
            help="One more seat, taken whole (repeat it for more): a bot name, cmd:COMMAND LINE (any "
            "commas stay in it) or human[:NAME]. These seats come after those of --bots.",
            show_default=False,
        ),
    ] = None,
    variant: Annotated[
        str | None, typer.Option(
            help="standard, tactics, logic, professional, tournament, open, nifty, hand or double.",
            show_default=False,
        )
    ] = None,
    target: Annotated[int | None, typer.Option(help="End score (default 66).", show_default=False)] = None,
    end: Annotated[
        str | None,
        typer.Option(help="at-least: end when a total reaches the target; above: when it passes it.",
                     show_default=False),
    ] = None,
    deals: Annotated[int | None, typer.Option(help="Play this many deals at most.", show_default=False)] = None,
    count: Annotated[
        str | None,
        typer.Option(help="up: count bullheads up from 0; down: count points down from the target.",
                     show_default=False),
    ] = None,
    pro_tie: Annotated[
        str | None,
        typer.Option(help="Professional ties: choose (the card's owner), left or right.", show_default=False),
    ] = None,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "You",
    lang: Annotated[
        str | None, typer.Option(help=f"{', '.join(LANGUAGES)} (default: from the locale).", show_default=False)
    ] = None,
    delay: Annotated[float, typer.Option(help="Seconds per card placed in the reveal (0: instant).")] = 0.6,
    records: Annotated[
        Path | None,
        typer.Option(help="Folder for finished games' records (default ~/.local/share/sixnimmt/records).",
                     show_default=False),
    ] = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Save each game's record (a game left unfinished too).")] = True,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal and the bots.", show_default=False)] = None,
    confirm: Annotated[
        bool, typer.Option("--confirm/--no-confirm", help="Ask for a second Enter (or click) before a card is played.")
    ] = False,
    resume: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Go on with a game left unfinished (its record, saved when you quit mid-game). The "
            "rules and names come from the record; --bots/--bot say who plays the seats after yours "
            "(default: medium bots), as the exit message of the quit game shows.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Open the terminal game. With --bots, --variant, --target, --end, --deals or --count the game
    starts at once with those settings; otherwise the start screen lets you choose."""
    from ..tui.config import split_bot_list
    from ..tui.panels import MIN_HEIGHT, MIN_WIDTH

    resumed: Game | None = None
    try:
        seats = None if bots is None and bot is None else [*split_bot_list(bots or []), *(bot or [])]
        if resume is not None:
            fixed = [f"--{o.replace('_', '-')}" for o, v in
                     (("variant", variant), ("target", target), ("end", end), ("deals", deals),
                      ("pro_tie", pro_tie)) if v is not None]  # fmt: skip
            if fixed:
                raise ValueError(f"--resume goes on with the record's rules: drop {', '.join(fixed)}")
            resumed, config = resumed_game(resume, seats, count, lang, delay, records, save, seed)
        else:
            config = game_config(
                seats, variant, target, end, deals, count, name, lang, delay, records, save, seed, pro_tie
            )
        config = replace(config, confirm=confirm)
    except (ValueError, UnknownBotError, RulesError) as error:
        raise _fail(str(error)) from None
    size = terminal_size()
    if size is None:
        raise _fail("needs a terminal (stdout is not one)", status=1)
    if size.columns < MIN_WIDTH or size.lines < MIN_HEIGHT:
        raise _fail(
            f"the terminal is {size.columns}x{size.lines}; the game needs at least "
            f"{MIN_WIDTH}x{MIN_HEIGHT}: enlarge the window or reduce the font size",
            status=1,
        )
    if config.records_dir is not None:
        try:
            _check_writable(config.records_dir)  # now, not when the game ends and is lost
        except ValueError as error:
            raise _fail(str(error)) from None
    skip_start = any(v is not None for v in (seats, variant, target, end, deals, count, pro_tie))
    if skip_start or resumed is not None:
        _warm_up(config)
    from ..tui.app import SixNimmtApp

    # A bug ends the game with one line (and its traceback in a log file), unless SIXNIMMT_DEBUG is set.
    friendly = not os.environ.get("SIXNIMMT_DEBUG")
    game_app = SixNimmtApp(
        config, show_start=not skip_start, resume=resumed, resumed_from=resume, friendly_errors=friendly
    )
    game_app.run()
    # Where the games went, printed whole (never wrapped): a path or a command is copied as it is.
    for line in game_app.farewell():
        typer.echo(line, err=bool(game_app.return_code))
    if game_app.return_code:
        raise typer.Exit(game_app.return_code)


def resumed_game(
    file: Path,
    seats: list[str] | None,
    count: str | None,
    lang: str | None,
    delay: float,
    records: Path | None,
    save: bool,
    seed: int | None,
) -> tuple[Game, GameConfig]:
    """The game in ``file`` rebuilt where it stopped, and its settings; ``ValueError`` (a
    ``RecordError`` among them) with one line if it cannot go on."""
    from ..core.record import load, replay
    from ..tui.config import resumed_seats

    try:
        game = replay(load(file), partial=True, seed=seed).game
    except RecordError as error:
        raise ValueError(f"cannot resume {file}: {error}") from None
    if game.is_over:
        raise ValueError(f"the game in {file} is over: watch it with sixnimmt replay show {file} --tui")
    rules = game.rules.to_dict()
    base = game_config(None, None, None, None, None, count, "You", lang, delay, records, save, seed)
    config = replace(
        base,
        seats=resumed_seats(game.seats, seats),
        variant=rules["variant"],
        target=rules["target"],
        end=rules["end"],
        deals=rules["deals"],
        pro_tie=rules["pro_tie"],
    )
    return game, config


def _check_writable(folder: Path) -> None:
    """Refuse at once a records folder the game could not save into (rather than at the end)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".sixnimmt-check-"):
            pass
    except OSError as error:
        raise ValueError(
            f"cannot save games in --records {folder}: {error.strerror or error} "
            "(choose another folder, or --no-save)"
        ) from None


def _warm_up(config: GameConfig) -> None:
    """Compile the searching bots' kernels before the table opens (first run only: later runs load
    them from numba's cache at once), with a progress line while it lasts."""
    from ..seats.warmup import needs_warm_up, warm_up_with_progress

    if not needs_warm_up(seat.bot for seat in config.seats):
        return
    shown = False

    def say(line: str) -> None:
        nonlocal shown
        shown = True
        typer.echo("\r" + line, nl=False, err=True)

    warm_up_with_progress(config.rules(), say)
    if shown:
        typer.echo("", err=True)


def terminal_size() -> os.terminal_size | None:
    """The size of the terminal we would draw in, or None when stdout is not a terminal."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size()


def game_config(
    bots: str | list[str] | None,
    variant: str | None,
    target: int | None,
    end: str | None,
    deals: int | None,
    count: str | None,
    name: str,
    lang: str | None,
    delay: float,
    records: Path | None,
    save: bool,
    seed: int | None,
    pro_tie: str | None = None,
) -> GameConfig:
    """The terminal game's settings from ``play``'s options (``ValueError`` with one line naming the
    option that is wrong)."""
    from ..tui.config import GameConfig, Seat, default_records_dir, parse_opponents, split_bot_list

    defaults = GameConfig()
    if count is not None and count not in _COUNTS:
        raise ValueError(f"unknown --count {count!r}: choose up or down")
    if not name.strip():
        raise ValueError("--name cannot be empty")
    if len(name) > MAX_SEAT_NAME:
        raise ValueError(f"--name has at most {MAX_SEAT_NAME} characters (a record keeps no longer name)")
    if records is not None and records.exists() and not records.is_dir():
        raise ValueError(f"--records {records} is a file, not a folder")
    language = resolve_language(lang)
    tr = translator(language)

    def player_name(number: int) -> str:
        return tr.gettext("Player {number}").format(number=number)

    if name == DEFAULT_NAME:
        # "You" reads well against bots; with friends at the keyboard everyone is a "Player N".
        items = split_bot_list(bots) if isinstance(bots, str) else bots or []
        friends = any(item.strip().partition(":")[0] == "human" for item in items)
        name = player_name(1) if friends else tr.gettext(DEFAULT_NAME)
    if bots is not None:
        seats = parse_opponents(bots, name.strip(), player_name)
    else:
        seats = (Seat(name.strip()), *defaults.seats[1:])
    return GameConfig(
        seats=seats,
        variant=variant if variant is not None else defaults.variant,
        target=target if target is not None else (None if deals is not None else defaults.target),
        end=end if end is not None else defaults.end,
        deals=deals,
        pro_tie=pro_tie if pro_tie is not None else defaults.pro_tie,
        count_down=_COUNTS[count] if count is not None else language in ("es", "sv"),
        lang=language,
        delay=delay,
        records_dir=(records or default_records_dir()) if save else None,
        seed=seed,
    )
