"""The table's log after a page reload mid-game, in real Chromium: it shows what it showed before
(what this player saw: the reveals, placements and rows taken, never a card still hidden)."""

from __future__ import annotations

from typing import Any

from .test_web_game import create_table

TURN_TWO = ("() => { const t = document.querySelector('#table'); return !!t && t.dataset.turn === '2' && t.dataset.busy !== '1'"
            " && !!document.querySelector('#hand button.card:not([disabled])'); }")


def test_the_log_after_a_reload_mid_game_shows_what_it_showed_before(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    create_table(page, server, "Lea", ["bot:easy"], players=2)
    page.click("#log summary")
    for turn in ("1", "2"):  # two turns played: the log holds their reveals
        page.wait_for_selector("#hand button.card:not([disabled])")
        page.click("#hand button.card:not([disabled]) >> nth=0")
        page.wait_for_function(
            f"() => document.querySelector('#table')?.dataset.turn === '{turn}' || !!document.querySelector('.row.pickable')")
        if page.query_selector(".row.pickable"):  # the card was too low: take a row first
            page.click(".row.pickable >> nth=0")
    page.wait_for_function(TURN_TWO)
    before = page.locator("#log-lines li").all_inner_texts()
    assert before[0] == "Deal 1 begins" and sum(line.startswith("Turn ") for line in before) == 2, before
    page.reload()
    page.wait_for_function(TURN_TWO)
    assert page.locator("#log-lines li").all_inner_texts() == before
    assert not errors
