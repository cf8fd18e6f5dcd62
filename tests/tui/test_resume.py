"""A game left mid-way is saved as a partial record, and ``sixnimmt play --resume FILE`` goes on
with it where it stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import RichLog
from typer.testing import CliRunner

from sixnimmt.cli import app as cli_app
from sixnimmt.commands import play as play_command
from sixnimmt.core.record import dumps, replay
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.config import resumed_seats
from sixnimmt.tui.dialogs import DealSummaryScreen
from sixnimmt.tui.final import FinalScreen

from .conftest import SIZE, settle, table

runner = CliRunner()


def config(records: Path | None, **changes: object) -> GameConfig:
    settings: dict[str, object] = {
        "seats": (Seat("Ana"), Seat("Ada", "random"), Seat("Bruno", "easy")),
        "deals": 2, "target": None, "delay": 0, "seed": 21, "records_dir": records,
    }  # fmt: skip
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


def unfinished(folder: Path) -> list[Path]:
    return sorted(folder.glob("*-unfinished.json"))


async def play_turns(app: SixNimmtApp, pilot: object, turns: int) -> None:
    """Play the highest card of the hand (never too low) until ``turns`` turns are over."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    screen = table(app)
    for _ in range(turns):
        turn = screen.session.game.turn
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.queue)
        await pilot.press(*str(max(screen.session.game.hands[0])), "enter")
        await settle(pilot, lambda turn=turn: screen.session.game.turn != turn and not screen.session.queue)  # type: ignore[misc]


@pytest.mark.asyncio
@pytest.mark.parametrize("keys", [("q", "q"), ("ctrl+c",)])
async def test_quitting_mid_game_saves_a_partial_record_that_replays(tmp_path: Path, keys: tuple[str, ...]) -> None:
    app = SixNimmtApp(config(tmp_path), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await play_turns(app, pilot, 3)
        game = table(app).session.game
        await settle(pilot, lambda: table(app).session.asking == 0)
        await pilot.press(*keys)
        await settle(pilot, lambda: not app.is_running)
    [saved] = unfinished(tmp_path)
    assert app.unfinished_saved_to == saved
    again = replay(json.loads(saved.read_text()), partial=True).game
    assert (again.deal_index, again.turn) == (0, 3)
    assert again.hands == game.hands and again.rows == game.rows
    message = app.exit_message or ""
    assert f"sixnimmt play --resume {saved} --bots random,easy" in message


@pytest.mark.asyncio
async def test_a_terminal_that_hangs_up_ends_the_app_and_the_game_is_saved(tmp_path: Path) -> None:
    """A closed terminal window (or ssh session) hangs up the app's input: the app notices, saves
    the game under way and exits, instead of running on with nobody to play."""
    terminal = {"there": True}

    app = SixNimmtApp(config(tmp_path), show_start=False, terminal_alive=lambda: terminal["there"])
    async with app.run_test(size=SIZE) as pilot:
        await play_turns(app, pilot, 2)
        await settle(pilot, lambda: table(app).session.asking == 0)
        app.check_terminal()  # the terminal is still there: nothing happens
        await pilot.pause()
        assert app.is_running and unfinished(tmp_path) == []
        terminal["there"] = False
        app.check_terminal()  # what the app's one-second watch calls
        await settle(pilot, lambda: not app.is_running)
    [saved] = unfinished(tmp_path)
    assert app.unfinished_saved_to == saved
    again = replay(json.loads(saved.read_text()), partial=True).game
    assert (again.deal_index, again.turn) == (0, 2)


@pytest.mark.asyncio
async def test_quitting_before_anything_happened_saves_nothing(tmp_path: Path) -> None:
    app = SixNimmtApp(config(tmp_path), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: table(app).session.asking == 0)
        await pilot.press("q", "q")
        await settle(pilot, lambda: not app.is_running)
    assert list(tmp_path.iterdir()) == [] and app.unfinished_saved_to is None


@pytest.mark.asyncio
async def test_a_resumed_game_goes_on_where_it_stopped_and_is_saved_whole(tmp_path: Path) -> None:
    first = tmp_path / "first"
    second = tmp_path / "second"

    app = SixNimmtApp(config(first), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await play_turns(app, pilot, 4)
        await pilot.press("ctrl+q")
        await settle(pilot, lambda: not app.is_running)
    [saved] = unfinished(first)
    record = json.loads(saved.read_text())
    game, resumed = play_command.resumed_game(saved, ["random", "easy"], None, "en", 0, second, True, 5)
    assert [(s.name, s.bot) for s in resumed.seats] == [("Ana", None), ("Ada", "random"), ("Bruno", "easy")]
    assert resumed.deals == 2 and resumed.target is None

    app = SixNimmtApp(resumed, show_start=False, resume=game)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        # The table stands as it was left: the rows, the turn, and the log of what happened.
        assert screen.session.shown_rows == [list(row) for row in game.rows]
        assert (screen.session.game.deal_index, screen.session.game.turn) == (0, 4)
        log = "\n".join(str(line.text) for line in screen.query_one("#log", RichLog).lines)
        assert "Deal 1 begins" in log and "goes on where it stopped" in log
        for _ in range(80):
            if isinstance(app.screen, FinalScreen):
                break
            if isinstance(app.screen, DealSummaryScreen) or screen.session.asking == 0:
                await pilot.press("enter")
            await pilot.pause(0.01)
        assert isinstance(app.screen, FinalScreen)
        saved_whole = app.screen.saved_to
        assert saved_whole is not None and saved_whole.parent == second
        whole = json.loads(saved_whole.read_text())
        # The finished record begins with the turns played before the quit.
        turns_before = record["deals"][0]["turns"]
        assert whole["deals"][0]["turns"][: len(turns_before)] == turns_before
        assert replay(whole).game.is_over


def test_resume_without_bots_seats_medium_bots_and_checks_the_count() -> None:
    assert [s.bot for s in resumed_seats(["Ana", "Ada", "Ben"], None)] == [None, "medium", "medium"]
    with pytest.raises(ValueError, match="has 3 seats: --bots must give the 2 after yours"):
        resumed_seats(["Ana", "Ada", "Ben"], ["hard"])


def finished_record(tmp_path: Path) -> Path:
    from sixnimmt.core import Game, Rules
    from sixnimmt.seats import make_bot, play_game

    game = play_game(Game(Rules(players=2, deals=1, target=None), ["A", "B"], seed=1),
                     [make_bot("random", 1), make_bot("random", 2)])  # fmt: skip
    path = tmp_path / "done.json"
    path.write_text(dumps(game.record()))
    return path


def partial_record(tmp_path: Path) -> Path:
    from sixnimmt.core import Game, Rules

    game = Game(Rules(players=2, deals=1, target=None), ["A", "B"], seed=1)
    for decision in game.pending():
        game.act(decision.seat, max(decision.options))
    path = tmp_path / "partial.json"
    path.write_text(dumps(game.record()))
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resume", "{tmp}/missing.json"], "cannot resume"),
        (["--resume", "{tmp}/bad.json"], "not valid JSON"),
        (["--resume", "{done}"], "is over: watch it with sixnimmt replay show"),
        (["--resume", "{done}", "--variant", "logic"], "drop --variant"),
        (["--resume", "{partial}", "--bots", "hard,hard"], "the saved game has 2 seats"),
        (["--resume", "{partial}", "--bot", "cmd:no-such-program-here"], "not found"),
    ],
)
def test_resume_refuses_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.json").write_text("{")
    done, partial = finished_record(tmp_path), partial_record(tmp_path)
    args = [a.format(tmp=tmp_path, done=done, partial=partial) for a in args]
    result = runner.invoke(cli_app, ["play", *args])
    output = result.output.strip()
    assert result.exit_code == 2 and message in output
    assert "Traceback" not in output and len(output.splitlines()) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["hand", "nifty", "logic"])
async def test_resuming_other_variants_shows_their_history(variant: str, tmp_path: Path) -> None:
    """Variants whose history reads differently (Hand's turns are one player's, Nifty plays two
    cards, Logic drafts first) resume and go on."""
    from sixnimmt.core import Game, Rules
    from sixnimmt.seats import make_bot

    game = Game(Rules.from_dict({"players": 3, "variant": variant}), ["Ana", "Ada", "Bruno"], seed=3)
    bots = [make_bot("random", seat) for seat in range(3)]
    for _ in range(12):  # into the deal, past a few reveals
        for decision in game.pending():
            game.act(decision.seat, bots[decision.seat].decide(game.view(decision.seat)))
    path = tmp_path / "partial.json"
    path.write_text(dumps(game.record()))
    resumed, settings = play_command.resumed_game(path, ["random", "random"], None, "en", 0, None, False, 1)

    app = SixNimmtApp(settings, show_start=False, resume=resumed)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.queue)
        assert screen.session.shown_rows == [list(row) for row in screen.session.game.rows]
        log = "\n".join(str(line.text) for line in screen.query_one("#log", RichLog).lines)
        assert "goes on where it stopped" in log and "Ada" in log
