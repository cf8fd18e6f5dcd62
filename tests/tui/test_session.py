"""The table's flow of play without Textual: the session alone, driven as the screen drives it."""

from __future__ import annotations

from pathlib import Path

from sixnimmt.core import CardsRevealed, DealScored, DecisionKind, Phase, RowTaken
from sixnimmt.tui import GameConfig, Seat
from sixnimmt.tui.panels import Layout, layout_for, prompt_text
from sixnimmt.tui.session import Advance, GameSession

from .conftest import fixed_deal, plain


def config(**changes: object) -> GameConfig:
    settings: dict[str, object] = {
        "seats": (Seat("You"), Seat("Ada", "easy"), Seat("Bruno", "easy")),
        "deals": 1,
        "target": None,
        "delay": 0,
        "seed": 5,
    }
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


def run(session: GameSession) -> Advance:
    """Show every queued event and let the bots answer, until a person is asked or the game ends."""
    while True:
        while session.next_event() is not None:
            pass
        step = session.advance()
        if step.jobs:
            session.bots_answered(session.think(step.jobs))
            continue
        return step


HANDS = [list(range(31, 41)), list(range(41, 51)), list(range(51, 61))]


def new_session(**changes: object) -> GameSession:
    session = GameSession(config(**changes), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    run(session)
    assert session.asking == 0
    return session


def test_a_typed_number_not_in_the_hand_plays_nothing() -> None:
    session = new_session()
    cursor = session.cursor
    session.type_digit("5")
    session.type_digit("5")  # "55": nobody holds it here
    assert session.typed == "55" and session.error is not None and "55" in session.error
    assert session.cursor == cursor  # the cursor did not move to some other card
    assert session.confirm() is False  # Enter plays nothing
    assert list(session.game.hands[0]) == HANDS[0] and not session.game.played
    assert session.decision() is not None and session.decision().kind is DecisionKind.CARD  # type: ignore[union-attr]
    assert "55 is not in your hand" in plain(prompt_text(session, session.view()))
    # Corrected with Backspace, the number that is in the hand plays.
    session.backspace()
    session.backspace()
    session.type_digit("3")
    session.type_digit("7")
    assert session.error is None
    assert session.confirm() is True
    run(session)
    assert session.game.played[0][0] == 37


def test_a_prefix_of_a_card_is_not_a_card() -> None:
    session = new_session()
    session.type_digit("4")  # no 4 in the hand (31..40); 40 starts with it
    assert session.error is None
    assert session.confirm() is False and session.error is not None
    assert not session.game.played


def test_a_digit_after_an_error_starts_a_new_number() -> None:
    session = new_session()
    for digit in "99":
        session.type_digit(digit)
    assert session.error is not None
    session.type_digit("3")
    session.type_digit("3")
    assert session.typed == "33" and session.error is None
    assert session.card_options()[session.cursor] == 33


def test_clicking_a_card_selects_it_and_a_second_click_plays_it() -> None:
    session = new_session()
    assert session.click_card(36) is False
    assert session.card_options()[session.cursor] == 36 and not session.game.played
    assert session.click_card(99) is False  # not a card of the hand: nothing
    assert session.click_card(36) is True
    run(session)
    assert session.game.played[0][0] == 36


def test_with_confirm_the_first_enter_asks() -> None:
    session = new_session(confirm=True)
    session.move_to(2)
    assert session.confirm() is False and session.confirming == 33
    assert "Enter again" in plain(prompt_text(session, session.view()))
    assert not session.game.played
    assert session.confirm() is True
    run(session)
    assert session.game.played[0][0] == 33


def test_a_choice_may_be_changed_until_the_last_player_has_chosen() -> None:
    # Two people at the keyboard would be pass-and-play; one person and a bot that has not answered
    # yet is the case: the person chooses first, then changes their mind.
    session = GameSession(config(), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    while session.next_event() is not None:
        pass
    step = session.advance()  # the bots are asked but have not answered yet
    assert step.jobs and session.asking == 0
    session.move_to(0)
    assert session.confirm() is True  # 31
    while session.next_event() is not None:  # "You have chosen"
        pass
    assert session.may_change()
    session.type_digit("3")
    session.type_digit("9")
    assert session.confirm() is True  # changed to 39 before the reveal
    session.bots_answered(session.think(step.jobs))
    run(session)
    assert session.game.played[0][0] == 39


def test_u_takes_a_chosen_card_back_until_the_last_player_has_chosen() -> None:
    session = GameSession(config(), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    while session.next_event() is not None:
        pass
    step = session.advance()  # the bots are asked but have not answered yet
    session.move_to(0)
    assert session.confirm() is True  # 31
    while session.next_event() is not None:
        pass
    assert session.game.view(0).my_choice == 31
    assert session.take_back() is True
    view = session.game.view(0)
    assert view.my_choice is None and view.decision is not None  # asked for a card again
    assert session.decision() is not None and not session.may_change()
    assert session.take_back() is False  # nothing chosen: nothing to take back
    session.move_to(2)
    assert session.confirm() is True  # 33 instead
    session.bots_answered(session.think(step.jobs))
    run(session)
    assert session.game.played[0][0] == 33
    assert session.take_back() is False  # revealed: too late


def test_digits_typed_during_the_reveal_wait_for_the_next_choice() -> None:
    session = new_session()
    session.move_to(0)
    assert session.confirm()  # the bots have chosen: the reveal is queued at once
    assert session.animating
    assert session.confirm() is False  # Enter during the reveal never plays
    session.type_digit("3")
    session.type_digit("8")
    assert session.typed == "38"
    run(session)
    assert session.asking == 0
    assert session.card_options()[session.cursor] == 38  # the typed card is chosen now
    assert session.confirm()
    run(session)
    assert session.game.played[1][0] == 38


def test_a_too_low_card_asks_for_a_row_and_a_click_on_a_row_takes_it() -> None:
    hands = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]
    session = GameSession(config(), dealer=fixed_deal(hands, [50, 60, 70, 80]))
    run(session)
    preview = session.preview(1)
    assert preview is not None and preview.row is None  # too low: a row of the player's choice
    session.move_to(0)
    assert session.confirm()
    run(session)
    decision = session.decision()
    assert decision is not None and decision.kind is DecisionKind.ROW
    assert session.click_row(7) is False  # no such row
    assert session.click_row(2) is True
    events = list(session.queue)
    taken = [e for e in events if isinstance(e, RowTaken)]
    assert taken and taken[0].row == 2 and taken[0].seat == 0 and taken[0].cards == (70,)
    run(session)
    assert any("Row 3 goes to You" in plain(line) and "70" in plain(line) for line in session.log)


def test_the_preview_names_the_row_and_warns_of_a_sixth_card() -> None:
    session = new_session()
    session.shown_rows = [[1, 5, 8, 9, 10], [2], [3], [30]]
    sixth = session.preview(11)
    assert sixth is not None and sixth.row == 0 and sixth.sixth and sixth.bullheads == 1 + 2 + 1 + 1 + 3
    quiet = session.preview(36)
    assert quiet is not None and not quiet.sixth and quiet.row == 3


def test_the_deal_summary_lists_each_players_taken_cards() -> None:
    session = GameSession(config(), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    scored: DealScored | None = None
    summary: list[list[int]] = []
    taken_by_event: list[list[int]] = [[] for _ in range(3)]
    while scored is None:
        while (event := session.next_event()) is not None:
            if isinstance(event, RowTaken):
                taken_by_event[event.seat].extend(event.cards)
            if isinstance(event, DealScored):
                scored, summary = event, session.deal_summary(event)
                break
        if scored is None:
            step = session.advance()
            if step.jobs:
                session.bots_answered(session.think(step.jobs))
            elif session.asking is not None:
                session.move_to(0)
                session.confirm()
    assert summary == [sorted(cards) for cards in taken_by_event]
    assert any(summary)  # somebody took a row in ten turns
    from sixnimmt.core import BULLHEADS

    assert [sum(BULLHEADS[c] for c in cards) for cards in summary] == list(scored.penalties)


def test_a_finished_resumed_game_removes_its_unfinished_file(tmp_path: Path) -> None:
    from sixnimmt.core.record import replay

    session = GameSession(config(records_dir=tmp_path), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    run(session)
    session.move_to(0)
    session.confirm()
    run(session)
    saved = session.save_unfinished()
    assert saved is not None and saved.name.endswith("-unfinished.json")
    record = __import__("json").loads(saved.read_text())
    game = replay(record, partial=True).game
    resumed = GameSession(config(records_dir=tmp_path), game=game, resumed_from=saved)
    while not resumed.game.is_over:
        step = run(resumed)
        if step.finished:
            break
        resumed.move_to(0)
        resumed.confirm()
    resumed.finish()
    assert resumed.saved_to is not None and resumed.saved_to.exists()
    assert not saved.exists()  # it cannot be resumed a second time
    assert [p.name for p in tmp_path.iterdir()] == [resumed.saved_to.name]


def test_layouts_by_size() -> None:
    assert layout_for(79, 40) is Layout.TOO_SMALL and layout_for(120, 23) is Layout.TOO_SMALL
    assert layout_for(80, 24) is Layout.COMPACT and layout_for(99, 40) is Layout.COMPACT
    assert layout_for(100, 30) is Layout.NORMAL and layout_for(159, 60) is Layout.NORMAL
    assert layout_for(160, 50) is Layout.ROOMY


def test_the_reveal_pairs_each_card_with_its_player() -> None:
    session = new_session()
    session.move_to(0)
    session.confirm()
    while (event := session.next_event()) is not None:
        if isinstance(event, CardsRevealed):
            break
    assert session.revealed is not None
    owners = {card: seat for seat, card in session.revealed}
    assert owners[31] == 0
    assert {seat for seat, _ in session.revealed} == {0, 1, 2}
    run(session)
    assert session.game.phase is Phase.PLAY


def test_the_hint_names_the_bot_in_the_players_language_and_never_breaks_an_option() -> None:
    from rich.console import Console

    from sixnimmt.seats.advise import Advice
    from sixnimmt.tui.panels import hint_text

    session = GameSession(config(lang="es"), dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    run(session)
    decision = session.decision()
    assert decision is not None
    session.hint_ready(session.hint_key(0), Advice(choice=34, scores={c: c / 10 for c in decision.options}, bot="hard"))
    text = hint_text(session)
    assert "(difícil)" in text.plain and "hard" not in text.plain
    console = Console(width=40, color_system=None, record=True)
    with console.capture() as capture:
        console.print(text)
    for line in capture.get().splitlines():  # wrapped at 40 columns: each option whole on a line
        assert not line.rstrip().endswith(("→", ":")) and not line.lstrip().startswith("→")
    assert session.card_options()[session.cursor] == 34
