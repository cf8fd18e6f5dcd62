"""The replay viewer speaks the player's language, fits 80 columns, has its help behind ``?``, and
shows a seat's review with ``replay show FILE --tui --review SEAT``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sixnimmt.bots.review import Review, ReviewedDecision
from sixnimmt.cli import app as cli
from sixnimmt.commands import replay as replay_command
from sixnimmt.core import Game, Rules
from sixnimmt.core.record import dumps
from sixnimmt.i18n import translator
from sixnimmt.seats import make_bot, play_game
from sixnimmt.tui import replay as replay_viewer
from sixnimmt.tui.dialogs import HelpScreen
from sixnimmt.tui.replay import ReplayApp

from .conftest import plain

LANGS = ["en", "es", "sv"]


def finished_game() -> Game:
    game = Game(Rules(players=4, deals=1), ["Ana", "Ben", "Cia", "Dan"], seed=8)
    return play_game(game, [make_bot("random", 8 + seat) for seat in range(4)])


def shown_lines(viewer: ReplayApp, selector: str) -> list[str]:
    widget = viewer.query_one(selector)
    return ["".join(s.text for s in widget.render_line(y)).rstrip() for y in range(widget.region.height)]


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_viewer_speaks_the_language_and_fits_80_columns(lang: str) -> None:
    g = translator(lang).gettext
    viewer = ReplayApp(finished_game(), lang)
    async with viewer.run_test(size=(80, 24)) as pilot:
        await pilot.press("right", "right", "right", "right", "right")
        await pilot.pause()
        step = g("Step {n} of {total}").format(n=6, total=len(viewer.steps))
        assert any(line.endswith(step) for line in shown_lines(viewer, "#status")), shown_lines(viewer, "#status")
        rows = shown_lines(viewer, "#rows")
        assert len(rows) == 6  # the four rows, a line each, in their frame: none wrapped
        assert g("quit") in "".join(shown_lines(viewer, "#keys"))


@pytest.mark.asyncio
async def test_question_mark_opens_the_viewers_help_and_escape_closes_it() -> None:
    viewer = ReplayApp(finished_game(), "sv")
    async with viewer.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(viewer.screen, HelpScreen)
        help_text = plain(viewer.screen.query_one("#help-keys").source)  # type: ignore[attr-defined]
        assert "steget före" in help_text  # the viewer's own keys, in Swedish
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(viewer.screen, HelpScreen)
        await pilot.press("right")
        assert viewer.index == 1


def a_review(game: Game) -> Review:
    """A review of Ana's first card, as ``bots.review.review`` makes them (its figures made up:
    the viewer only shows them)."""
    played = game.history[0]["turns"][0]["plays"][0]
    decision = ReviewedDecision(deal=1, turn=1, kind="card", card=None, played=played, best=played + 1,
                                expected_played=4.5, expected_best=1.25, options={played: 4.5, played + 1: 1.25})  # fmt: skip
    return Review(seat=0, name="Ana", samples=10, seed=0, decisions=(decision,), skipped_turns=0)


@pytest.mark.asyncio
async def test_the_review_shows_at_its_turn() -> None:
    game = finished_game()
    review = a_review(game)
    viewer = ReplayApp(game, "en", review)
    async with viewer.run_test(size=(100, 30)) as pilot:
        assert not "".join(shown_lines(viewer, "#review")).strip()  # the deal's start: no decision
        await pilot.press("right")  # the first turn
        await pilot.pause()
        text = " ".join(shown_lines(viewer, "#review"))
        played = review.decisions[0].played
        assert f"Review of Ana: played {played} (expected 4.5 bullheads), best {played + 1} (1.2)" in text
        assert "a mistake: 3.2 bullheads given away" in text


def test_replay_show_tui_review_opens_the_viewer_with_the_review(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    game = finished_game()
    file = tmp_path / "game.json"
    file.write_text(dumps(game.record()))
    review = a_review(game)
    opened: list[Any] = []
    monkeypatch.setattr(replay_command, "_review", lambda data, seat, samples: review if seat == 0 else None)
    monkeypatch.setattr(replay_viewer, "run_replay", lambda data, lang=None, review=None: opened.append(review))
    result = CliRunner().invoke(cli, ["replay", "show", str(file), "--tui", "--review", "0"])
    assert result.exit_code == 0, result.output
    assert opened == [review]
    result = CliRunner().invoke(cli, ["replay", "show", str(file), "--tui", "--review", "0", "--json"])
    assert result.exit_code == 2 and "--json and --tui do not go together" in result.output
