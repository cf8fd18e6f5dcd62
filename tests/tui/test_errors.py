"""Errors inside the app: a bot's bug is a message and the game goes on; a bug in the app itself
ends it with one line (the traceback in a log file, the game saved) when ``sixnimmt play`` runs it,
and stays a real error for the tests otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sixnimmt.bots import Bot
from sixnimmt.core import PlayerView
from sixnimmt.seats import available, registry
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui import table as table_module
from sixnimmt.tui.table import TableScreen

from .conftest import SIZE, settle, table

pytestmark = pytest.mark.asyncio


class CheatingBot(Bot):
    """Answers with a card nobody holds."""

    def decide(self, view: PlayerView) -> int:
        return 105


@pytest.fixture(autouse=True)
def cheating_bot() -> Iterator[None]:
    available()
    registry.register("test-cheat", CheatingBot, "test: illegal moves")
    yield
    registry.unregister("test-cheat")


def config(records: Path | None = None) -> GameConfig:
    return GameConfig(
        seats=(Seat("You"), Seat("Cheat", "test-cheat")), deals=1, target=None, delay=0, seed=8,
        records_dir=records,
    )  # fmt: skip


async def test_a_bots_illegal_move_is_reported_and_replaced_by_a_legal_one(notices: list[str]) -> None:
    app = SixNimmtApp(config(), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.thinking)
        bot_hand = list(screen.session.game.hands[1])
        await pilot.press(*str(max(screen.session.game.hands[0])), "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1)
        assert screen.session.game.played[0][1] in bot_hand  # the guard's random legal move
        assert any(m.startswith("Cheat: ") and "105" in m for m in notices)


async def test_a_failing_hint_is_a_message(monkeypatch: pytest.MonkeyPatch, notices: list[str]) -> None:
    def broken_advise(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the oracle is asleep")

    monkeypatch.setattr(table_module, "advise", broken_advise)

    app = SixNimmtApp(config(), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("h")
        await settle(pilot, lambda: any("the oracle is asleep" in m for m in notices))
        assert app.is_running and any(m.startswith("No hint: ") for m in notices)


def break_the_hint_key(monkeypatch: pytest.MonkeyPatch) -> None:
    def action_hint(self: TableScreen) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(TableScreen, "action_hint", action_hint)


async def test_a_bug_stays_a_real_error_for_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    break_the_hint_key(monkeypatch)

    with pytest.raises(RuntimeError, match="boom"):
        app = SixNimmtApp(config(), show_start=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: table(app).session.asking == 0)
            await pilot.press("h")
            await pilot.pause()


async def test_a_bug_in_a_handler_ends_the_app_with_one_line_and_saves_the_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    break_the_hint_key(monkeypatch)
    records = tmp_path / "records"

    app = SixNimmtApp(config(records), show_start=False, friendly_errors=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.thinking)
        await pilot.press(*str(max(screen.session.game.hands[0])), "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and screen.session.asking == 0)
        app.simulate_key("h")  # not pilot.press, which would wait for an app that has stopped
        await settle(pilot, lambda: not app.is_running)
    assert app.return_code == 1 and isinstance(app.error, RuntimeError)
    line = app.exit_message or ""
    log = tmp_path / "sixnimmt" / "play-error.log"
    assert line.startswith("sixnimmt play: internal error: RuntimeError: boom")
    assert f"(details in {log})" in line and "\n" not in line
    assert "Traceback" in log.read_text() and "action_hint" in log.read_text()
    [saved] = records.glob("*-unfinished.json")
    assert f"sixnimmt play --resume {saved}" in line


async def test_a_bug_in_a_worker_names_the_workers_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))

    def crash() -> None:
        raise KeyError("no such seat")

    app = SixNimmtApp(config(), show_start=False, friendly_errors=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: table(app).session.asking == 0)
        app.run_worker(crash, thread=True)
        await settle(pilot, lambda: not app.is_running)
    assert isinstance(app.error, KeyError)
    assert (app.exit_message or "").startswith("sixnimmt play: internal error: KeyError: 'no such seat'")
    # Nobody had played yet: nothing to save, and no resume command.
    assert "--resume" not in (app.exit_message or "")


async def test_a_bug_stops_the_external_bots_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from sixnimmt.protocol.external import ExternalBot

    from .test_external import is_running, one_deal

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    break_the_hint_key(monkeypatch)

    app = SixNimmtApp(one_deal(), show_start=False, friendly_errors=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        bot = screen.session.bots[1].bot
        assert isinstance(bot, ExternalBot)
        await settle(pilot, lambda: bot.pid is not None and screen.session.asking == 0, steps=1000)
        pid = bot.pid
        assert pid is not None
        app.simulate_key("h")
        await settle(pilot, lambda: not app.is_running)
    assert isinstance(app.error, RuntimeError) and not is_running(pid)
