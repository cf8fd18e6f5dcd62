"""``sixnimmt bot connect URL --token-file FILE BOT``: a bot online on a server (docs/bot-api.md)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..core import VARIANT_NAMES, Rules

if TYPE_CHECKING:
    from ..connect import BotClient

app = typer.Typer(help="Bots online: play any bot on a server through its Bot API.", no_args_is_help=True)


class SeekMode(StrEnum):
    CASUAL = "casual"
    RATED = "rated"


def _read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise typer.BadParameter(f"cannot read {path}: {error.strerror}", param_hint="--token-file") from None
    if not token or len(token.split()) != 1:
        raise typer.BadParameter(f"{path} must hold the token alone (snb_...)", param_hint="--token-file")
    return token


@app.command(context_settings={"allow_interspersed_args": True})
def connect(
    url: Annotated[str, typer.Argument(metavar="URL", help="The server: https://HOST (or http://HOST:PORT).", show_default=False)],
    bot: Annotated[
        str,
        typer.Argument(metavar="BOT", help="Any bot spec: expert, grandmaster, learned, mcs:samples=400, cmd:python3 mybot.py ...",
                       show_default=False),
    ],
    token_file: Annotated[
        Path, typer.Option("--token-file", metavar="FILE", help="A file holding the bot's token (never given on the command line).",
                           show_default=False),
    ],
    accept: Annotated[
        str, typer.Option(metavar="POLICY", help="Invitations to accept: all, people (not other bots), none, or NAME,NAME.")
    ] = "people",
    seek: Annotated[
        SeekMode | None,
        typer.Option(help="Also look for games: casual or rated (one seek open while there is room).",
                     show_default=False),
    ] = None,
    players: Annotated[
        int | None, typer.Option(min=2, max=10, help="Players of the games sought (default: any).", show_default=False)
    ] = None,
    variant: Annotated[str, typer.Option(help=f"Variant of the games sought: {', '.join(VARIANT_NAMES)}.")] = "standard",
    challenge: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Challenge the bot NAME once online (casual, unless --seek rated; "
                     "--players and --variant say the game).", show_default=False),
    ] = None,
    tournament: Annotated[
        int | None,
        typer.Option(metavar="ID", help="Enter the tournament ID once online and play its rounds.", show_default=False),
    ] = None,
    max_games: Annotated[int, typer.Option(min=1, max=64, help="Games played at once at most.")] = 4,
    seed: Annotated[
        int | None, typer.Option(help="Seed the bot (repeatable play); default: random.", show_default=False)
    ] = None,
) -> None:
    """Keep BOT online at URL: accept invitations, seek games, play several at once, reconnect after
    a drop. Ctrl-C stops taking games and exits once those in progress are over; a second Ctrl-C
    resigns them (the server's fallback plays the seats) and exits at once."""
    from ..connect import AcceptPolicy, BotClient, ConnectError, Seek
    from ..seats import UnknownBotError, check_bot

    try:
        policy = AcceptPolicy.parse(accept)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--accept") from None
    if variant not in VARIANT_NAMES:
        raise typer.BadParameter(f"choose one of {', '.join(VARIANT_NAMES)}", param_hint="--variant")
    try:
        check_bot(bot)
    except UnknownBotError as error:
        raise typer.BadParameter(str(error), param_hint="BOT") from None
    token = _read_token(token_file)
    try:
        client = BotClient(
            url, token, bot, accept=policy, max_games=max_games, seed=seed, tournament=tournament,
            seek=Seek(seek.value, players, variant) if seek is not None else None,
            challenge=None if challenge is None else (
                challenge, Seek(seek.value if seek is not None else "casual", players or 2, variant)),
        )
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="URL") from None
    from ..seats.warmup import needs_warm_up, warm_up_with_progress

    if needs_warm_up([bot]):  # compiled before going online, or the first moves would run out of time
        warm_up_with_progress(Rules(players=4), lambda line: typer.echo(line, err=True))
    try:
        asyncio.run(_run(client))
    except ConnectError as error:
        typer.echo(f"sixnimmt bot connect: {error}", err=True)
        raise typer.Exit(1) from None


async def _run(client: BotClient) -> None:
    """Run the client with its status on screen (a live display on a terminal, log lines
    otherwise) and Ctrl-C handled by the client, not by a KeyboardInterrupt."""
    from rich.console import Console
    from rich.live import Live
    from rich.logging import RichHandler

    from ..connect.status import render

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, client.interrupt)

    def terminate() -> None:  # stopped from outside (a service manager): as two Ctrl-C, resign and go
        client.interrupt()
        client.interrupt()

    loop.add_signal_handler(signal.SIGTERM, terminate)
    console = Console(stderr=True)
    handler: logging.Handler
    if console.is_terminal:
        handler = RichHandler(console=console, show_path=False)
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("sixnimmt bot: %(message)s"))
    for name in ("sixnimmt.connect", "sixnimmt.seats", "sixnimmt.protocol"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    if not console.is_terminal:
        await client.run()
        return
    # Redrawn from the event loop, which owns the client's state (a refresh thread would read the
    # games while the loop changes them).
    with Live(render(client), console=console, auto_refresh=False) as live:

        async def redraw() -> None:
            while True:
                live.update(render(client), refresh=True)
                await asyncio.sleep(0.25)

        redrawing = asyncio.create_task(redraw())
        try:
            await client.run()
        finally:
            redrawing.cancel()
            live.update(render(client), refresh=True)
