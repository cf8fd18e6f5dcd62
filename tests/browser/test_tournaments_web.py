"""Tournaments in real Chromium (issue #58): a signed-in person creates a tournament with server
bots, enters it, finds their table from the tournament's page when the round starts, plays it, and
sees the standings and the podium; the same page on a phone fits its width."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .test_web_game import FAST, play_until_over

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def _sign_up(page: Any, server: str, name: str) -> None:
    page.goto(f"{server}{FAST}#/account")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a long enough phrase")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")


def _screenshot(page: Any, shots: Any, name: str) -> None:
    shots(page, name)
    folder = os.environ.get("SIXNIMMT_DOC_SCREENSHOTS")  # docs/screenshots/ when made for the docs
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_a_tournament_from_the_list_to_the_podium_on_desktop_and_phone(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context().new_page()
    _sign_up(page, server, "Cup_Host")
    page.goto(f"{server}{FAST}#/tournaments")
    page.wait_for_selector("#new-tournament")
    page.fill("#tourney-name", "Evening cup")
    page.fill("#tourney-rounds", "1")
    page.fill("#tourney-deals", "1")
    page.fill("#tourney-starts", "0")
    page.fill(".tourney-bots input[data-level='easy']", "7")
    page.click("#new-tournament button[type=submit]")
    page.wait_for_selector(".tourney-page h1")
    assert page.inner_text(".tourney-page h1") == "Evening cup"
    tournament = page.url.rsplit("/", 1)[-1]
    # the round starts by itself (the director looks every few seconds); the page shows my table
    page.wait_for_selector("#tourney-your-table", timeout=60_000)
    _screenshot(page, shots, "web-tournament-running")
    page.click("#tourney-your-table")
    page.wait_for_selector("#table")
    play_until_over(page)
    page.goto(f"{server}{FAST}#/tournaments/{tournament}")
    page.wait_for_selector("#podium", timeout=60_000)
    rows = page.query_selector_all("#standings tbody tr")
    assert len(rows) == 8
    assert "Cup_Host" in page.inner_text("#standings")
    assert len(page.query_selector_all("#podium li")) == 3
    replay = page.query_selector(".tourney-links a[href^='#/history/']")
    assert replay is not None
    assert page.query_selector(".tourney-links a[href^='#/review/']") is not None  # (my own seat's review)
    _screenshot(page, shots, "web-tournament-podium")
    # the list: the tournament is among the finished ones
    page.goto(f"{server}{FAST}#/tournaments")
    page.wait_for_selector(f"#tl-finished ~ ul li[data-tournament='{tournament}']")
    listed = page.inner_text(f"#tl-finished ~ ul li[data-tournament='{tournament}']")
    assert "· 1 round ·" in listed and "· 8 entrants" in listed, listed  # (one round, not "1 rounds")
    _screenshot(page, shots, "web-tournaments")
    # on a phone, in German: the page fits its width (the standings scroll inside their own box)
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{server}{FAST}#/tournaments/{tournament}")
    phone.wait_for_selector("#podium")
    phone.select_option("#lang", "de")
    phone.wait_for_function("() => document.querySelector('#standings caption')?.textContent === 'Tabelle'")
    assert "· 1 Runde ·" in phone.inner_text(".tourney-page p.muted")
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    _screenshot(phone, shots, "web-phone-tournament")
