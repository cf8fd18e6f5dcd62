"""The terminal game driven by Textual's pilot, as a player would: keys in, screens out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sixnimmt.core.record import replay
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.dialogs import DealSummaryScreen, HelpScreen, PassScreen
from sixnimmt.tui.final import FinalScreen
from sixnimmt.tui.start import StartScreen

from .conftest import SIZE, fixed_deal, plain, settle, table, text_of

pytestmark = pytest.mark.asyncio


def three_seats(**changes: object) -> GameConfig:
    settings: dict[str, object] = {
        "seats": (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random")),
        "deals": 2,
        "target": None,
        "delay": 0,
        "seed": 11,
    }
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


async def test_a_whole_game_against_bots_to_the_end_and_its_record(tmp_path: Path) -> None:
    config = three_seats(records_dir=tmp_path)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        summaries = 0
        for _ in range(60):
            await settle(pilot, lambda: app.screen is not None)
            if isinstance(app.screen, FinalScreen):
                break
            if isinstance(app.screen, DealSummaryScreen):
                summaries += 1
            await pilot.press("enter")
            await pilot.pause()
        assert isinstance(app.screen, FinalScreen)
        game = app.screen.game
        assert game.is_over and game.deal_index == 1
        assert summaries == 2  # one summary after each deal
        shown = plain(app.screen.query_one("#final-title").content)
        winners = [game.seats[s] for s in game.winners]
        assert all(name in shown for name in winners)
        # The record was saved, and replays to the same result.
        saved = app.screen.saved_to
        assert saved is not None and saved.parent == tmp_path
        shown_saved = plain(app.screen.query_one("#saved").content).replace("\n", "")
        assert "FILE" not in shown_saved and f"sixnimmt replay show {saved} --tui" in shown_saved
        result = replay(json.loads(saved.read_text()))
        assert list(result.scores) == game.totals
        # The human's plays in the record are cards that were in the human's hand.
        deal = result.game.history[0]
        assert all(turn["plays"][0] in deal["hands"][0] for turn in deal["turns"])


async def test_play_again_starts_a_fresh_game(tmp_path: Path) -> None:
    config = three_seats(deals=1, records_dir=None)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        first = table(app).session.game
        while not isinstance(app.screen, FinalScreen):
            await pilot.press("enter")
            await pilot.pause()
        assert "not saved" in plain(app.screen.query_one("#saved").content)
        ranking = app.screen
        # Enter (say, one pressed once too often in the last turn) leaves the ranking on screen.
        await pilot.press("enter", "enter", "space")
        await pilot.pause()
        assert app.screen is ranking and app.table is None
        await pilot.press("n")
        await settle(pilot, lambda: app.table is not None and app.table.session.game is not first)
        assert table(app).session.game.deal_index == 0 and table(app).session.game.turn == 0


async def test_typing_a_number_plays_that_card() -> None:
    hands = [list(range(31, 41)), list(range(41, 51)), list(range(51, 61))]
    config = three_seats()

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [1, 2, 3, 4]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("3", "7", "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        assert screen.session.game.played[0][0] == 37
        assert 37 not in screen.session.game.hands[0]


async def test_a_too_low_card_lets_its_owner_choose_any_row() -> None:
    # The human holds 1..10, the rows start at 50, 60, 70, 80: the first card is too low.
    hands = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]
    config = three_seats()

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [50, 60, 70, 80]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("enter")  # the cursor starts on the lowest card, 1
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "row-choice")
        prompt = text_of(app, "#prompt")
        assert "lower than every row" in prompt
        # The cursor starts on the cheapest row (50: 3 bullheads, like 60, 70, 80: the first).
        assert screen.session.row_cursor == 0
        await pilot.press("down", "down")  # move to row 3 ...
        assert screen.session.row_cursor == 2
        await pilot.press("2")  # ... or jump straight to row 2 by its number
        assert screen.session.row_cursor == 1
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        assert screen.session.game.taken[0] == [60]
        assert screen.session.game.penalties[0] == 3
        assert screen.session.shown_rows[1][0] == 1
        rows = text_of(app, "#rows")
        assert re.search(r"Row 2\s+1¹ ", rows)  # the 1 now starts row 2


async def test_pass_and_play_hides_each_hand_from_the_others() -> None:
    hands = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]
    # A slow reveal (2 s per card) so the test can look at the screen while cards are placed.
    config = three_seats(seats=(Seat("Ana"), Seat("Ben"), Seat("Ada", "random")), delay=2.0)

    def shown_numbers(app: SixNimmtApp) -> set[str]:
        return set(re.findall(r"\d+", re.sub("[⁰¹²³⁴⁵⁶⁷⁸⁹]", " ", text_of(app, "#hand"))))

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [50, 60, 70, 80]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))
        assert "Ana" in plain(app.screen.query_one("#pass-title").content)
        assert screen.session.viewer is None
        assert "hidden" in text_of(app, "#hand")
        assert not shown_numbers(app) & {str(c) for c in hands[0] + hands[1]}
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.asking == 0)
        assert {str(c) for c in hands[0]} <= shown_numbers(app)
        await pilot.press("right", "enter")  # Ana plays 2
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))
        assert "Ben" in plain(app.screen.query_one("#pass-title").content)
        assert not shown_numbers(app) & {str(c) for c in hands[0] + hands[1]}
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.asking == 1)
        shown = shown_numbers(app)
        assert {str(c) for c in hands[1]} <= shown
        assert not shown & {str(c) for c in hands[0]}
        # Ben's card completes the turn: during the reveal nobody's hand is on screen.
        await settle(pilot, lambda: screen.session.game.chosen[2] is not None)  # the bot has chosen
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.revealed is not None)
        assert screen.session.animating  # still placing cards
        assert "hidden" in text_of(app, "#hand")


async def test_hint_shows_what_the_strongest_bot_would_play() -> None:
    config = three_seats()

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("h")
        # the grandmaster's first decision in a process loads its compiled kernels first
        await settle(pilot, lambda: screen.session.hint is not None, steps=3000)
        assert screen.session.hint is not None and screen.session.hint.bot == "grandmaster"
        hand = screen.session.game.hands[0]
        assert screen.session.hint.choice in hand
        assert hand[screen.session.cursor] == screen.session.hint.choice  # the cursor moves to the advice
        assert f"play {screen.session.hint.choice}" in text_of(app, "#hint")


async def test_help_shows_the_rules_of_the_variant_being_played() -> None:
    config = three_seats(variant="professional")

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: table(app).session.asking == 0)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "Professional" in app.screen.rules_markdown
        assert "either end" in app.screen.rules_markdown
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_the_table_speaks_the_chosen_language() -> None:
    config = three_seats(lang="es", count_down=True, target=66, deals=None)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: table(app).session.asking == 0)
        assert "Fila 1" in text_of(app, "#rows")
        assert "elige una carta" in text_of(app, "#prompt")
        scores = text_of(app, "#scores")
        assert "Quedan" in scores and "66" in scores  # counting down from 66


def start_label(app: SixNimmtApp) -> str | None:
    """The start button's label, or None while the screen is being redrawn."""
    buttons = app.screen.query("#start")
    return str(buttons.first().label) if buttons else None


async def test_start_screen_language_switch_and_start() -> None:
    app = SixNimmtApp(GameConfig(delay=0, seed=3), show_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        start = app.screen
        assert start_label(app) == "Start"
        from textual.widgets import Select

        start.query_one("#lang", Select).value = "sv"
        # The screen tells the app with a message, handled in its turn.
        await settle(pilot, lambda: start_label(app) == "Starta" and app.config.lang == "sv")
        # The redrawn form must have settled before it is changed again: a value set while its
        # new widgets are still being mounted can be lost (this test used to fail now and then).
        await settle(pilot, lambda: app.screen.query_one("#players", Select).is_mounted)
        await pilot.pause()
        app.screen.query_one("#players", Select).value = 5
        await settle(pilot, lambda: len(app.screen.query(".seat-select")) == 4)
        # The language survived the redraw for five players.
        assert start_label(app) == "Starta"
        await pilot.click("#start")
        await settle(pilot, lambda: app.table is not None)
        screen = table(app)
        assert screen.session.game.players == 5 and screen.config.lang == "sv"
        await settle(pilot, lambda: screen.session.asking == 0)
        assert "Rad 1" in text_of(app, "#rows")


async def test_start_screen_rejects_a_bad_target_with_a_message() -> None:
    app = SixNimmtApp(GameConfig(delay=0), show_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        from textual.widgets import Input

        app.screen.query_one("#target", Input).value = ""
        app.screen.query_one("#deals", Input).value = ""
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert "target" in plain(app.screen.query_one("#start-error").content)


@pytest.mark.parametrize("variant", ["logic", "tactics"])
async def test_other_variants_play_through(variant: str) -> None:
    """Logic asks the person to draft from the open deck; Tactics uses the small deck."""
    config = three_seats(variant=variant, deals=1)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        if variant == "logic":
            await settle(pilot, lambda: screen.session.asking == 0)
            assert "open deck" in text_of(app, "#prompt")
            assert "Open draft" in text_of(app, "#status")
            await pilot.press("enter")
            await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.queue)
            # The draft is open, so everyone's hand is public and shown.
            others = text_of(app, "#open-hands")
            ada = screen.session.game.hands[1]
            assert ada and re.search(r"Ada\s+" + r"\s+".join(f"{c}[⁰¹²³⁴⁵⁶⁷⁸⁹]" for c in ada), others)
            assert "You" not in others
            await pilot.press("h")  # a hint works for a draft pick too
            await settle(pilot, lambda: screen.session.hint is not None)
            assert f"take {screen.session.hint.choice}" in text_of(app, "#hint")
        for _ in range(80):
            if isinstance(app.screen, FinalScreen):
                break
            await pilot.press("enter")
            await pilot.pause()
        assert isinstance(app.screen, FinalScreen)
        assert max(max(t["plays"]) for t in app.screen.game.history[0]["turns"]) <= 34


async def test_a_professional_tie_asks_for_the_end() -> None:
    # Rows 50, 54, 10, 90: the 52 is 2 above the 50 and 2 below the 54 (docs/rules.md E8).
    hands = [[52, 1, 2, 3, 4, 5, 6, 7, 8, 9], list(range(91, 101)), [101, 102, 103, 104, 11, 12, 13, 14, 15, 16]]
    config = three_seats(variant="professional")

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [50, 54, 10, 90]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("5", "2", "enter")
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "row-choice")
        decision = screen.session.game.decision_for(0)
        assert decision is not None and decision.reason == "tie" and decision.options == (0, 1)
        assert "as close to two rows" in text_of(app, "#prompt")
        await pilot.press("3")  # not one of the tied rows: ignored
        assert screen.session.row_cursor in (0, 1)
        await pilot.press("2", "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        assert screen.session.shown_rows[1][:2] == [52, 54]  # on the left end of the 54
        assert screen.session.game.penalties[0] == 0


async def test_quitting_needs_a_second_q() -> None:
    app = SixNimmtApp(three_seats(), show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: table(app).session.asking == 0)
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running and app.table is not None
        await pilot.press("right", "q")  # another key in between disarms it
        await pilot.pause()
        assert app.is_running
        await pilot.press("q", "q")
        await settle(pilot, lambda: not app.is_running)


async def test_start_screen_seats_friends_by_name_and_starts_pass_and_play() -> None:
    app = SixNimmtApp(GameConfig(delay=0, seed=3), show_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        from textual.widgets import Input, Select

        app.screen.query_one("#players", Select).value = 3
        await settle(pilot, lambda: len(app.screen.query(".seat-select")) == 2)
        app.screen.query_one("#name", Input).value = "Ana"
        app.screen.query_one("#seat-1", Select).value = "human"
        app.screen.query_one("#seat-name-1", Input).value = "Ben"
        app.screen.query_one("#seat-2", Select).value = "easy"
        await pilot.click("#start")
        await settle(pilot, lambda: app.table is not None)
        screen = table(app)
        assert screen.session.game.seats[:2] == ("Ana", "Ben")
        assert [s.bot for s in screen.config.seats] == [None, None, "easy"]
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))


async def test_start_screen_refuses_two_seats_with_one_name() -> None:
    app = SixNimmtApp(GameConfig(delay=0), show_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        from textual.widgets import Input

        app.screen.query_one("#seat-name-1", Input).value = "Bruno"  # seat 3 is Bruno already
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert "same name" in plain(app.screen.query_one("#start-error").content)


async def test_open_shows_the_cards_played_before_yours() -> None:
    """Open: the marker passes each turn, so in turn 2 the bots play first, face up."""
    config = three_seats(variant="open", deals=1)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        assert "Face up" not in text_of(app, "#revealed")  # seat 0 holds the marker: nothing yet
        await pilot.press(*str(max(screen.session.game.hands[0])), "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and screen.session.asking == 0 and not screen.session.queue)
        face_up = screen.session.game.view(0).face_up
        assert face_up is not None and face_up[0] is None
        shown = text_of(app, "#revealed")
        assert "Face up" in shown
        for seat in (1, 2):
            assert re.search(rf"{screen.session.game.seats[seat]}\s+{face_up[seat]}[⁰¹²³⁴⁵⁶⁷⁸⁹]", shown)


async def test_tournament_passes_the_hands_and_ends_after_one_deal_per_player() -> None:
    config = three_seats(variant="tournament", deals=None, target=66)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        for _ in range(200):
            if isinstance(app.screen, FinalScreen):
                break
            await pilot.press("enter")
            await pilot.pause()
        assert isinstance(app.screen, FinalScreen)
        game = app.screen.game
        assert screen.session.game is game and game.deal_index == 2  # three players: three deals
        # Each deal, the person played another seat's drafted sheet.
        sheets = [{turn["plays"][seat] for turn in game.history[0]["turns"]} for seat in range(3)]
        played = [{turn["plays"][0] for turn in deal["turns"]} for deal in game.history]
        assert played[0] == sheets[0]
        assert sorted(map(sorted, played)) == sorted(map(sorted, sheets))


async def test_double_stacks_a_twin_on_one_place() -> None:
    hands = [[40, 1, 2, 3, 4, 5, 6, 7, 8, 9], list(range(51, 61)), list(range(61, 71))]
    config = three_seats(variant="double", deals=1)

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [10, 20, 30, 40]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("4", "0", "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        assert screen.session.shown_rows[3][:2] == [40, 40]
        assert re.search(r"Row 4\s+40³×2 ", text_of(app, "#rows"))  # two cards, one place


async def test_nifty_two_cards_then_the_order_they_go_down() -> None:
    hands = [list(range(20, 34)), list(range(34, 48)), list(range(81, 95))]
    config = three_seats(variant="nifty", deals=1)

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [10, 19, 48, 95]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        assert "choose two cards" in text_of(app, "#prompt")
        await pilot.press("2", "0", "enter")
        await settle(pilot, lambda: "second card" in text_of(app, "#prompt"))
        assert "20³✓" in text_of(app, "#hand")  # chosen, still in hand until the reveal
        await pilot.press("2", "1", "enter")
        # The 20 is the lowest card revealed: its owner orders their two cards first.
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "order")
        assert "Place first:" in text_of(app, "#options")
        await pilot.press("2", "1", "enter")  # the 21 first (after the 19), then the 20 (after the 10)
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        assert screen.session.shown_rows[1][:2] == [19, 21]
        assert screen.session.shown_rows[0][:2] == [10, 20]
        assert screen.session.game.history[0]["turns"][0]["plays"][0] == [21, 20]


async def test_hand_second_card_pass_and_keeping_a_taken_card() -> None:
    hands = [[1, *range(20, 33)], list(range(33, 47)), list(range(84, 98))]
    config = three_seats(variant="hand")

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [50, 60, 70, 80]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("1", "enter")
        await settle(pilot, lambda: "second card, or pass" in text_of(app, "#prompt"))
        assert "Play: pass" in text_of(app, "#options")
        await pilot.press("0", "enter")  # no second card
        await settle(pilot, lambda: screen.session.game.phase.value == "row-choice" and screen.session.asking == 0)
        await pilot.press("2", "enter")  # take the 60 (3 bullheads) ...
        await settle(pilot, lambda: screen.session.game.phase.value == "keep" and screen.session.asking == 0)
        assert "Keep in hand:" in text_of(app, "#options") and "60" in text_of(app, "#options")
        await pilot.press("6", "0", "enter")  # ... and take it back into the hand
        await settle(pilot, lambda: screen.session.game.phase.value != "keep")
        assert 60 in screen.session.game.hands[0] and screen.session.game.penalties[0] == 0


async def test_pass_and_play_nifty_hides_the_hand_before_ordering() -> None:
    """Ana's second card follows her first without a pass; ordering after the reveal needs one."""
    hands = [list(range(20, 34)), list(range(34, 48)), list(range(81, 95))]
    config = three_seats(seats=(Seat("Ana"), Seat("Ben"), Seat("Ada", "random")), variant="nifty", deals=1)

    app = SixNimmtApp(config, show_start=False, dealer=fixed_deal(hands, [10, 19, 48, 95]))
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        passes: list[str] = []
        for _name, first, second in (("Ana", "20", "21"), ("Ben", "34", "35")):
            await settle(pilot, lambda: isinstance(app.screen, PassScreen))
            passes.append(plain(app.screen.query_one("#pass-title").content))
            await pilot.press("enter")
            await pilot.press(*first, "enter")
            await settle(pilot, lambda: "second card" in text_of(app, "#prompt"))
            assert not isinstance(app.screen, PassScreen)  # same person, no pass
            await pilot.press(*second, "enter")
        # Revealed: Ana holds the lowest card and must order hers, behind a pass screen.
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))
        passes.append(plain(app.screen.query_one("#pass-title").content))
        assert "hidden" in text_of(app, "#hand")
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "order")
        assert "Place first:" in text_of(app, "#options")
        assert [("Ana" in p, "Ben" in p) for p in passes] == [(True, False), (False, True), (True, False)]


async def test_a_record_that_cannot_be_saved_is_reported_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "records"
    blocker.write_text("a file where the folder should be")
    config = three_seats(deals=1, records_dir=blocker)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(60):
            if isinstance(app.screen, FinalScreen):
                break
            await pilot.press("enter")
            await pilot.pause()
        assert isinstance(app.screen, FinalScreen)
        assert app.screen.saved_to is None
        assert f"cannot save the record in {blocker}" in plain(app.screen.query_one("#saved").content)
