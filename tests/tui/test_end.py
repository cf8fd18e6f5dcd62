"""Nothing lost at the end: the record's path is printed on the terminal when the app closes,
finished game or not, and no path or command is ever broken across lines."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app as cli
from sixnimmt.commands import play as play_command
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.final import FinalScreen

from .conftest import fixed_deal, settle

HANDS = [list(range(1, 11)), [12, 15, 22, 33, 44, 55, 66, 77, 88, 99], [21, 25, 30, 35, 40, 45, 48, 57, 59, 61]]


def one_deal(records: Path, **changes: Any) -> GameConfig:
    settings: dict[str, Any] = {
        "seats": (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random")),
        "deals": 1, "target": None, "delay": 0, "seed": 4, "records_dir": records,
    }  # fmt: skip
    settings.update(changes)
    return GameConfig(**settings)


async def play_to_the_end(pilot: Any, app: SixNimmtApp) -> None:
    for _ in range(200):
        if isinstance(app.screen, FinalScreen):
            return
        await pilot.press("enter")
        await pilot.pause()
    await settle(pilot, lambda: isinstance(app.screen, FinalScreen))


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "es", "sv"])
@pytest.mark.parametrize("keys", [("q",), ("ctrl+c",)])
async def test_the_finished_games_record_is_printed_when_the_app_closes(
    tmp_path: Path, lang: str, keys: tuple[str, ...]
) -> None:
    # A deep folder: the path is longer than the 80 columns of the window.
    records = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / "records"
    app = SixNimmtApp(one_deal(records, lang=lang), show_start=False, dealer=fixed_deal(HANDS, [50, 60, 70, 80]))
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot, app)
        await pilot.pause()
        [saved] = records.glob("*.json")
        box = app.screen.query_one("#final-box")
        assert box.region.width <= 80
        # Three lines (the path, the command, that both are printed on quitting), none wrapped:
        # a path too long for the window ends in an ellipsis, never goes on on the next line.
        widget = app.screen.query_one("#saved")
        shown = ["".join(segment.text for segment in widget.render_line(y)).strip() for y in range(widget.region.height)]
        assert len(shown) == 3, shown
        assert shown[0].endswith((str(saved), "…")) and shown[1].endswith(("--tui", "…"))
        await pilot.press(*keys)
        await settle(pilot, lambda: not app.is_running)
    lines = app.farewell()
    assert any(line.endswith(str(saved)) for line in lines)
    assert any(line.endswith(f"sixnimmt replay show {saved} --tui") for line in lines)
    assert all("\n" not in line for line in lines)


def test_play_prints_the_farewell_lines_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``sixnimmt play`` prints the app's last lines itself, unwrapped (Textual's exit message is
    wrapped at the window's width: a pasted command would run as three broken ones)."""
    saved = tmp_path / ("long-folder-name-" * 6) / "20261204-190000-standard-3p-unfinished.json"
    resume = f"Game saved. Resume it with: sixnimmt play --resume {saved} --bots medium,medium"

    def run(app: SixNimmtApp, *args: object, **kwargs: object) -> None:
        app.exit_message = resume

    monkeypatch.setattr(SixNimmtApp, "run", run)
    monkeypatch.setattr(play_command, "terminal_size", lambda: os.terminal_size((80, 24)))
    result = CliRunner().invoke(cli, ["play", "--bots", "medium,medium", "--records", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert resume in result.output.splitlines()


@pytest.mark.asyncio
async def test_the_final_box_grows_to_show_the_whole_path(tmp_path: Path) -> None:
    records = tmp_path / "records"
    app = SixNimmtApp(one_deal(records), show_start=False, dealer=fixed_deal(HANDS, [50, 60, 70, 80]))
    async with app.run_test(size=(200, 40)) as pilot:
        await play_to_the_end(pilot, app)
        await pilot.pause()
        [saved] = records.glob("*.json")
        widget = app.screen.query_one("#saved")
        shown = ["".join(segment.text for segment in widget.render_line(y)).strip() for y in range(widget.region.height)]
        assert shown[0].endswith(str(saved)) and shown[1].endswith(f"sixnimmt replay show {saved} --tui")
