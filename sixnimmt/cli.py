"""The ``sixnimmt`` command. Each area keeps its command's code in its own package; this module only
wires them together, and turns every error into one line ``sixnimmt CMD: message`` (never a
traceback): a usage error (a bad option, a missing argument) exits 2, a failure at run time 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from . import __version__
from .commands import admin as admin_commands
from .commands import advise as advise_commands
from .commands import arena as arena_commands
from .commands import bench as bench_commands
from .commands import bot as bot_commands
from .commands import play as play_commands
from .commands import replay as replay_commands
from .commands import serve as serve_commands
from .commands import tournament as tournament_commands
from .commands import train as train_commands

app = typer.Typer(
    help="6 nimmt! done right: rules engine, bots, arena, terminal and web game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: the same on every terminal, and no type tags (such as <bool>) on flags.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(replay_commands.app, name="replay")
app.add_typer(bench_commands.app, name="bench")
app.add_typer(bot_commands.app, name="bot")
app.add_typer(advise_commands.app, name="advise")
app.add_typer(arena_commands.app, name="arena")
app.add_typer(play_commands.app, name="play")
app.add_typer(serve_commands.app, name="serve")
app.add_typer(train_commands.app, name="train")
app.add_typer(admin_commands.app, name="admin")
# Named after its function: the word as a string in the code would read as the variant.
app.add_typer(tournament_commands.app, name=tournament_commands.tournament.__name__)

#: Exit statuses: a command line that cannot be run, and a run that failed.
USAGE_ERROR = 2
FAILURE = 1


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"sixnimmt {__version__}")
        raise typer.Exit()


@app.callback()
def sixnimmt(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    """6 nimmt! done right: rules engine, bots, arena, terminal and web game."""


def _command_path(args: Sequence[str]) -> str:
    """``sixnimmt arena`` for ``["arena", "--deals", "x"]``: the command names the arguments start with."""
    command: Any = typer.main.get_command(app)
    path = ["sixnimmt"]
    for arg in args:
        commands = getattr(command, "commands", None)
        if not commands or arg not in commands:
            break
        command = commands[arg]
        path.append(arg)
    return " ".join(path)


def _sentence(message: str) -> str:
    """Click's ``Missing argument 'FILE'.`` in this command's style: ``missing argument 'FILE'``."""
    message = message.strip().rstrip(".")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return " ".join(message.split())


def run(args: Sequence[str] | None = None) -> int:
    """Run the command line ``args`` (default: ``sys.argv[1:]``) and return its exit status."""
    argv = list(sys.argv[1:] if args is None else args)
    command = typer.main.get_command(app)
    try:
        status = command.main(argv, prog_name="sixnimmt", standalone_mode=False)
    except KeyboardInterrupt:
        return 130
    except typer.Abort:  # Ctrl-C at a prompt
        return 130
    except Exception as error:
        usage = getattr(error, "format_message", None)
        if callable(usage):  # click's usage errors (bad option, missing argument, unknown command)
            context = getattr(error, "ctx", None)
            where = context.command_path if context is not None else _command_path(argv)
            code = getattr(error, "exit_code", USAGE_ERROR)
            typer.echo(f"{where}: {_sentence(str(usage()))} (see {where} -h)", err=True)
            return code if isinstance(code, int) else USAGE_ERROR
        if os.environ.get("SIXNIMMT_DEBUG"):
            raise
        # A bug: one line, not a traceback (SIXNIMMT_DEBUG=1 shows it).
        first = str(error).splitlines()[0][:200] if str(error) else ""
        typer.echo(
            f"{_command_path(argv)}: internal error: {type(error).__name__}: {first} "
            "(run with SIXNIMMT_DEBUG=1 for the traceback)",
            err=True,
        )
        return FAILURE
    return status if isinstance(status, int) else 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
