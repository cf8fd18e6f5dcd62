"""The ``sixnimmt`` command. Each area keeps its command's code in its own package; this module only
wires them together, and turns every user error into one clear line (never a traceback)."""

from __future__ import annotations

import sys

import typer

from .commands import advise as advise_commands
from .commands import arena as arena_commands
from .commands import bench as bench_commands
from .commands import play as play_commands
from .commands import replay as replay_commands
from .commands import serve as serve_commands

app = typer.Typer(
    help="6 nimmt! done right: rules engine, bots, arena, terminal and web game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(replay_commands.app, name="replay")
app.add_typer(bench_commands.app, name="bench")
app.add_typer(advise_commands.app, name="advise")
app.add_typer(arena_commands.app, name="arena")
app.add_typer(play_commands.app, name="play")
app.add_typer(serve_commands.app, name="serve")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
