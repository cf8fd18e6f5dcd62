"""My bots in real Chromium: make a bot whose description is markup (shown as text, never run),
take a token (shown once), revoke it."""

from __future__ import annotations

from typing import Any

from .test_web_game import FAST

MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b>'


def test_my_bots_shows_a_token_once_and_never_runs_a_description(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context().new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{server}{FAST}#/account")
    page.fill("#signup-name", "Botmaker_1")
    page.fill("#signup-password", "a long enough phrase")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")
    page.goto(f"{server}{FAST}#/account")
    page.wait_for_selector("#new-bot")
    page.fill("#bot-name", "Markup_Bot")
    page.fill("#bot-description", MARKUP)
    page.click("#new-bot button[type=submit]")
    item = page.wait_for_selector(".bot-item")
    assert MARKUP in item.inner_text()  # the description as text
    assert page.query_selector("#my-bots img, #my-bots b") is None
    assert page.evaluate("() => window.pwned") is None
    page.fill(".bot-item form input", "laptop")
    page.click(".bot-item form button[type=submit]")
    shown = page.wait_for_selector(".token-once code")
    assert shown.inner_text().startswith("snb_")
    page.wait_for_selector(".token-list li")
    assert "laptop" in page.inner_text(".token-list")
    shots(page, "my-bots-token")
    page.click(".token-list button")
    page.wait_for_function("() => !document.querySelector('.token-list li')")
    # its profile: a bot, its owner, its description as text
    page.goto(f"{server}{FAST}#/u/Markup_Bot")
    page.wait_for_selector("#profile-owner")
    assert "Botmaker_1" in page.inner_text("#profile-owner")
    assert page.inner_text("#profile-description") == MARKUP
    assert page.query_selector("#profile-description img") is None and page.evaluate("() => window.pwned") is None
