"""``sixnimmt play`` and ``sixnimmt replay show --tui`` at the door: bad input gets one clear line."""

from __future__ import annotations

import os
import re

import pytest
from rich.table import Table as RichTable
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.commands import play as play_command
from sixnimmt.core import DealScored, Game, Rules
from sixnimmt.i18n import translator
from sixnimmt.seats import make_bot, play_game
from sixnimmt.tui.config import GameConfig, parse_opponents
from sixnimmt.tui.replay import ReplayApp, steps_of

from .conftest import SIZE, plain

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "hard,chess"], "unknown bot 'chess'"),
        (["--bots", "hard,,easy"], "comma-separated list"),
        (["--bots", ",".join(["easy"] * 10)], "11 players"),
        (["--variant", "chess"], "unknown variant 'chess'"),
        (["--variant", "tournament", "--bots", "easy,easy,easy,easy,easy"], "tournament is played by 2 to 5"),
        (["--lang", "fi"], "unknown language 'fi'"),
        (["--count", "sideways"], "unknown --count 'sideways'"),
        (["--end", "never"], "unknown end rule 'never'"),
        (["--target", "0"], "target must be at least 1"),
        (["--delay", "-1"], "delay cannot be negative"),
        (["--name", " "], "--name cannot be empty"),
        (["--pro-tie", "middle"], "unknown pro_tie 'middle'"),
        (["--bots", "human:Ann,human:Ann"], "same name"),
    ],
)
def test_bad_options_get_one_clear_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["play", *args])
    assert result.exit_code == 2
    output = result.output.strip()
    assert message in output
    assert "Traceback" not in output and len(output.splitlines()) == 1


def test_a_file_given_as_records_folder_is_refused(tmp_path: os.PathLike[str]) -> None:
    file = os.path.join(tmp_path, "records.txt")
    with open(file, "w") as stream:
        stream.write("x")
    result = runner.invoke(app, ["play", "--bots", "easy", "--records", file])
    assert result.exit_code == 2 and "is a file, not a folder" in result.output


def test_no_terminal_or_too_small_a_terminal_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    result = runner.invoke(app, ["play", "--bots", "easy"])  # the test runner's stdout is no terminal
    assert result.exit_code == 1 and "needs a terminal" in result.output  # not a usage error
    monkeypatch.setattr(play_command, "terminal_size", lambda: os.terminal_size((79, 24)))
    result = runner.invoke(app, ["play", "--bots", "easy"])
    assert result.exit_code == 1
    assert "the terminal is 79x24; the game needs at least 80x24" in result.output


def test_an_unwritable_records_folder_is_refused_at_the_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    # A folder under a file: no user, root included, can create it.
    blocker = os.path.join(tmp_path, "a-file")
    with open(blocker, "w") as stream:
        stream.write("x")
    folder = os.path.join(blocker, "records")
    monkeypatch.setattr(play_command, "terminal_size", lambda: os.terminal_size((80, 24)))
    result = runner.invoke(app, ["play", "--bots", "easy", "--records", folder])
    assert result.exit_code == 2 and "cannot save games in --records" in result.output


def test_flags_build_the_same_config_the_start_screen_would() -> None:
    config = play_command.game_config(
        "hard,human:Ben,expert", "professional", 74, "above", None, "down", "Ana", "sv", 0.0, None, False, 5
    )
    assert isinstance(config, GameConfig)
    assert [s.name for s in config.seats][0::2] == ["Ana", "Ben"]
    assert [s.bot for s in config.seats] == [None, "hard", None, "expert"]
    assert config.rules().to_dict() == Rules(
        players=4, variant="professional", target=74, end="above"
    ).to_dict()
    assert config.count_down and config.lang == "sv" and config.records_dir is None
    assert config.pass_and_play


def test_spanish_and_swedish_count_down_by_default_and_name_the_player() -> None:
    for lang, count_down, name in (("en", False, "You"), ("es", True, "Tú"), ("sv", True, "Du")):
        config = play_command.game_config("easy", None, None, None, None, None, "You", lang, 0, None, False, None)
        assert config.count_down is count_down
        assert config.seats[0].name == name


def test_pro_tie_reaches_the_rules() -> None:
    config = play_command.game_config("easy", "professional", None, None, None, None, "You", "en", 0, None, False, None, "left")
    assert config.rules().pro_tie.value == "left"


def test_with_friends_at_the_keyboard_the_first_seat_is_player_1() -> None:
    config = play_command.game_config("human,easy", None, None, None, None, None, "You", "en", 0, None, False, None)
    assert [s.name for s in config.seats] == ["Player 1", "Player 2", "Ada"]
    config = play_command.game_config("human:Ben,human", None, None, None, None, None, "Ana", "sv", 0, None, False, None)
    assert [s.name for s in config.seats] == ["Ana", "Ben", "Spelare 3"]


def test_deals_alone_replace_the_target() -> None:
    config = play_command.game_config("easy", None, None, None, 3, None, "You", "en", 0, None, False, None)
    assert config.rules().deals == 3 and config.rules().target is None


def test_parse_opponents_names_friends_and_bots() -> None:
    seats = parse_opponents("easy,human,human:Ben", "Ana")
    assert [s.name for s in seats] == ["Ana", "Ada", "Player 3", "Ben"]
    assert [s.is_human for s in seats] == [True, False, True, True]


def test_replay_show_tui_refuses_a_broken_record(tmp_path: os.PathLike[str]) -> None:
    file = os.path.join(tmp_path, "broken.json")
    with open(file, "w") as stream:
        stream.write("{not json")
    result = runner.invoke(app, ["replay", "show", file, "--tui"])
    assert result.exit_code == 1 and "not valid JSON" in result.output


def finished_game(variant: str = "standard", seed: int = 3) -> Game:
    game = Game(Rules(players=3, variant=variant, deals=2), ["Ana", "Ben", "Cia"], seed=seed)
    return play_game(game, [make_bot("random", seed + i) for i in range(3)])


@pytest.mark.parametrize("variant", ["standard", "logic", "professional"])
def test_replay_steps_follow_the_game(variant: str) -> None:
    game = finished_game(variant)
    steps = steps_of(game, translator("en"))
    turns = [s for s in steps if s.turn is not None]
    assert len(turns) == 20  # ten turns in each of two deals
    for step in turns:
        # Every card is somewhere: in a hand, on a row or in someone's pile (never lost, never twice).
        assert all(len(row) <= 5 for row in step.rows)
        in_hands = sum(len(h) for h in step.hands)
        assert in_hands == 3 * (10 - step.turn - 1)
    scored = [e for e in game.events if isinstance(e, DealScored)]
    for deal in (0, 1):
        last = [s for s in turns if s.deal == deal][-1]
        assert last.hands == [[], [], []]
        assert tuple(last.penalties) == scored[deal].penalties
    # The rows the viewer followed from the events end where the engine's rows ended.
    assert turns[-1].rows == game.rows
    assert steps[-1].totals == game.totals
    assert "Game over" in steps[-1].lines[-1].plain


@pytest.mark.parametrize(
    "variant", ["tactics", "logic", "tournament", "open", "nifty", "hand", "double", "professional"]
)
def test_replay_steps_end_where_the_engine_ended(variant: str) -> None:
    """Following only the events, the viewer's rows, hands and totals match the engine's."""
    deals = {} if variant in ("tournament", "hand") else {"deals": 2}
    game = Game(Rules(players=3, variant=variant, **deals), ["Ana", "Ben", "Cia"], seed=5)
    play_game(game, [make_bot("random", 5 + i) for i in range(3)])
    steps = steps_of(game, translator("en"))
    last_turn = [s for s in steps if s.turn is not None][-1]
    assert last_turn.rows == game.rows
    assert last_turn.hands == [sorted(h) for h in game.hands]
    assert steps[-1].totals == game.totals


@pytest.mark.asyncio
async def test_replay_viewer_steps_with_the_keys() -> None:
    game = finished_game()

    viewer = ReplayApp(game, "en")
    async with viewer.run_test(size=SIZE) as pilot:
        assert "Step 1 of" in plain(viewer.query_one("#status").content)
        await pilot.press("right", "right")
        assert viewer.index == 2
        assert "Turn 2 of 10" in plain(viewer.query_one("#status").content)
        await pilot.press("left")
        assert viewer.index == 1
        await pilot.press("end")
        assert viewer.index == len(viewer.steps) - 1
        assert "Game over" in plain(viewer.query_one("#steplog").content)
        await pilot.press("right")  # past the end stays at the end
        assert viewer.index == len(viewer.steps) - 1


def test_config_doctests() -> None:
    import doctest

    import sixnimmt.tui.config

    assert doctest.testmod(sixnimmt.tui.config).failed == 0


@pytest.mark.asyncio
async def test_replay_viewer_shows_seat_names_as_text_not_markup() -> None:
    """A record's seat names come from anywhere: "[/]" is a name, not a closing tag that crashes."""
    game = Game(Rules(players=3, deals=1), ["[/]", "[bold]Ben", "Cia\x1b[31m"], seed=2)
    play_game(game, [make_bot("random", 2 + i) for i in range(3)])

    viewer = ReplayApp(game, "en")
    async with viewer.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right")
        scores = viewer.query_one("#hands").content
        assert isinstance(scores, RichTable)
        names = [plain(cell).strip() for cell in scores.columns[0].cells]
        assert names[:2] == ["[/]", "[bold]Ben"]


def test_replay_show_numbers_rows_1_to_4_as_the_game_does() -> None:
    from sixnimmt.core import Game, Rules
    from sixnimmt.core.text import describe_game
    from sixnimmt.seats import make_bot, play_game

    game = Game(Rules(players=4, deals=1), ["A", "B", "C", "D"], seed=2)
    play_game(game, [make_bot("random", seed) for seed in range(4)])
    text = describe_game(game)
    rows = {int(n) for n in re.findall(r"(?:takes row|-> row) (\d+)", text)}
    assert rows and rows <= {1, 2, 3, 4} and 4 in rows  # 1-4, never 0


def test_the_resume_line_keeps_a_records_folder_that_is_not_the_default(tmp_path: os.PathLike[str]) -> None:
    from pathlib import Path

    from sixnimmt.tui.config import GameConfig, Seat, default_records_dir, resume_command

    seats = (Seat("You"), Seat("Ada", "hard"))
    saved = Path(tmp_path) / "x-unfinished.json"
    elsewhere = GameConfig(seats=seats, records_dir=Path(tmp_path) / "my records")
    assert resume_command(saved, elsewhere).endswith(f"--bots hard --records '{Path(tmp_path) / 'my records'}'")
    usual = GameConfig(seats=seats, records_dir=default_records_dir())
    assert "--records" not in resume_command(saved, usual)
