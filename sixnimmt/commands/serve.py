"""``sixnimmt serve``: the web game (FastAPI + uvicorn)."""

from __future__ import annotations

import os
import socket
from enum import StrEnum
from typing import Annotated, Any

import typer

from ..server.config import SETTINGS_ENV, Settings, default_database_url, settings_to_env


class LogLevel(StrEnum):
    """uvicorn's log levels (checked before anything starts, not by uvicorn once the database is ready)."""

    CRITICAL = "critical"
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    DEBUG = "debug"
    TRACE = "trace"

#: What each worker process imports when ``--workers`` is above 1.
APP_FACTORY = "sixnimmt.server.web.app:app_from_environment"

app = typer.Typer(help="Play 6 nimmt! in the browser with friends and bots.", subcommand_metavar="")


@app.callback(invoke_without_command=True)
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for your whole network).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            envvar="SIXNIMMT_DATABASE_URL",
            help="SQLAlchemy URL; default an SQLite file in ~/.local/share/sixnimmt "
            "(postgresql+psycopg://... for PostgreSQL).",
            show_default=False,
        ),
    ] = None,
    bot_delay: Annotated[float, typer.Option(min=0, max=10, help="Seconds a bot waits before it plays.")] = 0.6,
    absent_grace: Annotated[
        float, typer.Option(min=1, max=3600, help="Seconds before a disconnected player's move is made for them.")
    ] = 20.0,
    program_grace: Annotated[
        float, typer.Option(min=1, max=3600, help="Seconds a bot program that dropped keeps its seats "
                            "before the stand-in plays them (docs/bot-api.md).")
    ] = 60.0,
    tournament: Annotated[
        list[str] | None,
        typer.Option(metavar="SCHEDULE", help="A tournament the server announces by itself, again and again "
                     "(repeatable): 'every hour, swiss, standard, 5 players, 4 rounds' (docs/web.md, Tournaments).",
                     show_default=False),
    ] = None,
    log_level: Annotated[LogLevel, typer.Option(help="How much the server logs.")] = LogLevel.INFO,
    compress: Annotated[
        bool,
        typer.Option(help="Compress WebSocket messages (permessage-deflate): less data, more CPU."),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(min=1, max=256, help="Processes serving the game (more than 1 needs PostgreSQL)."),
    ] = 1,
    proxy_headers: Annotated[
        bool,
        typer.Option(help="Behind a reverse proxy: take the client's address from X-Forwarded-For "
                     "(per-address limits then count clients, not the proxy)."),
    ] = False,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(help="Proxies trusted for --proxy-headers (comma-separated addresses, or '*')."),
    ] = "127.0.0.1",
) -> None:
    """Start the web server (Alembic migrations are applied on start). Open http://HOST:PORT."""
    if not host.strip():  # uvicorn would take an empty host as "every interface", silently
        typer.echo("sixnimmt serve: --host needs an address: 127.0.0.1 for this machine only, "
                   "0.0.0.0 (or ::) to be reached from your network", err=True)
        raise typer.Exit(2)
    import uvicorn
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from ..server.web.app import create_app
    from ..server.web.slow_clients import MAX_HEAD_BYTES, TimedH11Protocol

    url = database_url or default_database_url()
    try:
        make_url(url)
    except ArgumentError:
        typer.echo(f"sixnimmt serve: --database-url {url!r} is not a database URL (e.g. sqlite:///game.db)", err=True)
        raise typer.Exit(2) from None
    from ..server.store.database import Store
    from ..server.tournaments.timetable import parse_schedule

    for line in tournament or []:
        try:
            parse_schedule(line)
        except ValueError as error:
            typer.echo(f"sixnimmt serve: --tournament: {error}", err=True)
            raise typer.Exit(2) from None
    try:  # (the mail settings come from the environment: a bad one is one line, as a bad option is)
        settings = Settings(database_url=url, bot_delay=bot_delay, absent_grace=absent_grace,
                            program_grace=program_grace, quiet_gc=True, tournament_schedule=list(tournament or []))
    except ValueError as error:
        typer.echo(f"sixnimmt serve: {error}", err=True)
        raise typer.Exit(2) from None
    if workers > 1 and not settings.clustered():
        typer.echo(f"sixnimmt serve: --workers {workers} needs PostgreSQL (--database-url postgresql+psycopg://...): "
                   "an SQLite database is served by one process", err=True)
        raise typer.Exit(2)
    try:  # migrate here first, so a bad or unreachable database is one clear line
        store = Store(url)
        store.migrate()
        store.close()
    except Exception as error:
        typer.echo(f"sixnimmt serve: cannot open database {url.split('@')[-1]}: {error}".splitlines()[0], err=True)
        raise typer.Exit(1) from None
    try:  # a taken port is the commonest start-up failure: say so plainly
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        typer.echo(f"sixnimmt serve: cannot listen on {host}:{port}: {error.strerror} (try another --port)", err=True)
        raise typer.Exit(1) from None
    # The searching bots' kernels load (or, the first time, compile) before anyone is served: done
    # by a table's first expert or grandmaster instead, it would hold up the event loop for a second
    # (a minute when compiling), and every table with it.
    typer.echo("sixnimmt: preparing the bots (compiling the search, first run only)…")
    from ..core import Rules
    from ..seats.warmup import warm_up

    warm_up(Rules(players=4))
    shown = f"{workers} processes, " if workers > 1 else ""
    typer.echo(f"sixnimmt: http://{host}:{port}  ({shown}database {url.split('@')[-1]})")
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": log_level.value,
        "ws_max_size": 65536,
        # Off by default: a game update is a few KB, and compressing every message to every
        # player was the largest single cost per move in the load test.
        "ws_per_message_deflate": compress,
        "proxy_headers": proxy_headers,
        "forwarded_allow_ips": forwarded_allow_ips,
        # slow requests closed, and a request's head held to 16 KB (docs/deploy.md, "Slow clients")
        "http": TimedH11Protocol,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
    }
    try:
        if workers > 1:  # uvicorn's supervisor: each worker builds the app from the settings passed on
            os.environ[SETTINGS_ENV] = settings_to_env(settings)
            uvicorn.run(APP_FACTORY, factory=True, workers=workers, **options)
        else:
            uvicorn.run(create_app(settings), **options)
    except Exception as error:
        typer.echo(f"sixnimmt serve: {error}".splitlines()[0], err=True)
        raise typer.Exit(1) from None
