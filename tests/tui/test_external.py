"""External bots (``cmd:COMMAND LINE``) in the terminal game: from the command line and the start
screen, playing through, closed at the end of a game and when the app quits, faults never fatal."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app as cli_app
from sixnimmt.commands import play as play_command
from sixnimmt.protocol.external import ExternalBot
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.config import parse_opponents, split_bot_list
from sixnimmt.tui.dialogs import DealSummaryScreen
from sixnimmt.tui.final import FinalScreen
from sixnimmt.tui.start import StartScreen

from .conftest import SIZE, settle, table, text_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"{sys.executable} {ROOT / 'examples' / 'bots' / 'python_bot.py'}"
#: A program that dies at once: every answer is a fallback move, reported as a fault.
CRASHING = f"{sys.executable} -c 'import sys; sys.exit(3)'"

runner = CliRunner()


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def external(app: SixNimmtApp, seat: int = 1) -> ExternalBot:
    bot = table(app).session.bots[seat].bot
    assert isinstance(bot, ExternalBot)
    return bot


def one_deal(command: str = EXAMPLE) -> GameConfig:
    return GameConfig(
        seats=(Seat("You"), Seat("Ext", f"cmd:{command}"), Seat("Bruno", "random")),
        deals=1, target=None, delay=0, seed=4,
    )  # fmt: skip


def test_a_comma_inside_a_command_line_stays_in_it() -> None:
    assert split_bot_list("cmd:python3 bot.py --weights 1,2,hard,human:Ben") == [
        "cmd:python3 bot.py --weights 1,2", "hard", "human:Ben",
    ]  # fmt: skip
    seats = parse_opponents(f"cmd:{EXAMPLE},hard")
    assert [s.bot for s in seats] == [None, f"cmd:{EXAMPLE}", "hard"]
    # --bot takes each value whole: a command line whose comma is followed by a bot name.
    whole = f"cmd:{EXAMPLE} --levels easy,hard"
    assert [s.bot for s in parse_opponents([whole, "medium"])] == [None, whole, "medium"]


def test_play_accepts_cmd_bots_and_repeated_options() -> None:
    config = play_command.game_config(
        [*split_bot_list([f"cmd:{EXAMPLE},hard"]), "human:Ben"],
        None, None, None, 1, None, "You", "en", 0, None, False, 1,
    )  # fmt: skip
    assert [s.bot for s in config.seats] == [None, f"cmd:{EXAMPLE}", "hard", None]
    assert config.pass_and_play  # Ben is a friend at the keyboard, so "You" became "Player 1"
    assert config.seats[0].name == "Player 1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "cmd:no-such-program-here --x,hard"], "command 'no-such-program-here' not found"),
        (["--bot", "cmd:"], "needs something after 'cmd:'"),
        (["--bot", "cmd:python3 'unclosed"], "cannot parse command line"),
    ],
)
def test_a_bad_command_line_gets_one_clear_line(args: list[str], message: str) -> None:
    result = runner.invoke(cli_app, ["play", *args])
    output = result.output.strip()
    assert result.exit_code == 2 and message in output
    assert "Traceback" not in output and len(output.splitlines()) == 1


async def play_to_the_end(app: SixNimmtApp, pilot: object) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    for _ in range(80):
        await settle(pilot, lambda: app.screen is not None)
        if isinstance(app.screen, FinalScreen):
            return
        if isinstance(app.screen, DealSummaryScreen) or table(app).session.asking == 0:
            await pilot.press("enter")
        await pilot.pause(0.02)
    raise AssertionError("the game did not end")


@pytest.mark.asyncio
async def test_an_external_bot_plays_a_game_and_is_stopped_at_its_end() -> None:
    app = SixNimmtApp(one_deal(), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        bot = external(app)
        await settle(pilot, lambda: bot.pid is not None and screen.session.asking == 0, steps=1000)
        pid = bot.pid
        assert pid is not None
        assert is_running(pid)
        assert "(program)" in text_of(app, "#scores")
        await play_to_the_end(app, pilot)
        # The program answered every decision itself, and is gone now that the game is over.
        assert bot.remote_name == "python-example (snug)" and bot.fallback_moves == 0
        assert bot.faults == []
        assert not is_running(pid)


@pytest.mark.asyncio
async def test_quitting_mid_game_stops_the_external_bot() -> None:
    app = SixNimmtApp(one_deal(), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        bot = external(app)
        await settle(pilot, lambda: bot.pid is not None and screen.session.asking == 0, steps=1000)
        pid = bot.pid
        assert pid is not None
        await pilot.press("q", "q")
        await settle(pilot, lambda: not app.is_running)
    assert not is_running(pid)


@pytest.mark.asyncio
async def test_a_crashing_program_is_reported_and_the_game_goes_on() -> None:
    app = SixNimmtApp(one_deal(CRASHING), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        bot = external(app)
        session = table(app).session
        await play_to_the_end(app, pilot)
        assert app.screen.game.is_over  # type: ignore[attr-defined]
        assert bot.fallback_moves >= 10 and bot.faults  # ten cards, and any rows it took
        # Reported once, when it happened (a notification, which expires; the session keeps it).
        reported = session.reported
        assert any(m.startswith("Ext: ") and "exited with code 3" in m for m in reported), reported


@pytest.mark.asyncio
async def test_the_start_screen_seats_an_external_program() -> None:
    app = SixNimmtApp(GameConfig(delay=0, seed=3), show_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        from textual.widgets import Input, Select, Static

        app.screen.query_one("#players", Select).value = 2
        await settle(pilot, lambda: len(app.screen.query(".seat-select")) == 1)
        command_field = app.screen.query_one("#seat-cmd-field-1")
        assert not command_field.display
        app.screen.query_one("#seat-1", Select).value = "cmd"
        await settle(pilot, lambda: command_field.display)
        start = app.screen
        assert isinstance(start, StartScreen)
        await pilot.press("ctrl+s")  # no command line yet: refused with a message
        await pilot.pause()
        assert app.screen is start
        assert "command line" in str(start.query_one("#start-error", Static).content)
        start.query_one("#seat-cmd-1", Input).value = "no-such-program-here"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "'no-such-program-here' not found" in str(start.query_one("#start-error", Static).content)
        start.query_one("#seat-cmd-1", Input).value = EXAMPLE
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: app.table is not None)
        assert table(app).config.seats[1].bot == f"cmd:{EXAMPLE}"


@pytest.mark.asyncio
async def test_play_again_without_the_program_is_a_message(tmp_path: Path, notices: list[str]) -> None:
    program = tmp_path / "bot.py"
    program.write_text(f"#!{sys.executable}\n" + (ROOT / "examples" / "bots" / "python_bot.py").read_text())
    program.chmod(0o755)

    app = SixNimmtApp(one_deal(str(program)), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await play_to_the_end(app, pilot)
        ranking = app.screen
        program.unlink()  # gone before the next game
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is ranking
        assert any("not found" in m for m in notices)

