"""Accounts in real Chromium: sign up, Play now (rated, 4 players), finish the game, and find the new
rating on the profile and the leaderboard; the same account from a second browser context."""

from __future__ import annotations

import re
from typing import Any

from .test_web_game import FAST, READY, close_deal_summary, where

STATE = "() => [...['deal', 'turn', 'phase', 'status'].map((k) => document.querySelector('#table').dataset[k])]"


def play_until_over(page: Any) -> None:
    """Answer this page's decisions (the last card, the first row) until the final ranking shows."""
    for _ in range(2000):
        page.wait_for_function(READY, timeout=60_000)
        if page.query_selector("#dialog-over"):
            return
        if page.query_selector("#dialog-deal"):
            close_deal_summary(page)
            continue
        before = list(where(page))
        if page.query_selector(".row.pickable"):
            page.click(".row.pickable >> nth=0")
        elif not page.query_selector("#hand button.card.selected"):
            page.click("#hand button.card:not([disabled]) >> nth=-1")
        # the others choose too: wait until the table moves on (or the game is over)
        page.wait_for_function(
            f"(b) => !!document.querySelector('#dialog-over') || ({STATE})().join() !== b.join()",
            arg=before, timeout=60_000)
    raise AssertionError("the game did not end")


def test_sign_up_play_now_rated_and_see_the_rating(browser: Any, server: str, shots: Any) -> None:
    name = "Chromium_1"
    page = browser.new_context().new_page()
    page.goto(f"{server}{FAST}#/account")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a long enough phrase")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")
    assert name in page.inner_text("#profile-name")
    assert page.inner_text("#account-link") == name
    shots(page, "account-profile-new")

    page.goto(f"{server}{FAST}#/")
    page.wait_for_selector("#play-now")
    page.select_option("#pn-mode", "rated")
    page.select_option("#pn-players", "4")
    shots(page, "account-play-now")
    page.click("#play-now-btn")
    page.wait_for_url(re.compile(r".*#/t/[A-Z0-9]{5}$"))
    code = page.url.rsplit("/", 1)[1]
    # bots of about the player's rating fill the three empty seats after the wait, and the game starts
    page.wait_for_function("() => document.querySelector('#table')?.dataset.status === 'playing'", timeout=30_000)
    assert page.inner_text("#rated") == "Rated game"
    play_until_over(page)
    shots(page, "account-rated-game-over")

    page.goto(f"{server}{FAST}#/u/{name}")
    rating = page.wait_for_selector(".profile-rating[data-variant='standard'] .rating")
    shown = rating.inner_text()
    assert re.fullmatch(r"-?\d+\?", shown), shown  # a number, provisional after one game
    assert page.inner_text(".profile-rating[data-variant='standard']").count("1") >= 1
    page.wait_for_selector("#profile-games tr[data-game]")
    assert page.query_selector("svg.rating-chart polyline") is not None
    shots(page, "account-profile-rated")

    page.goto(f"{server}{FAST}#/leaderboard/standard/provisional")
    row = page.wait_for_selector(f"#leaderboard tr[data-name='{name}']")
    assert shown in row.inner_text()
    bots = page.query_selector_all("#leaderboard tr .badge.bot")
    assert len(bots) >= 1  # the bots it played are on the ladder too
    shots(page, "account-leaderboard")

    other = browser.new_context().new_page()
    other.goto(f"{server}{FAST}#/account")
    other.fill("#signin-name", name.lower())
    other.fill("#signin-password", "a long enough phrase")
    other.click("#signin-btn")
    other.wait_for_selector("#profile-name")
    assert other.inner_text(".profile-rating[data-variant='standard'] .rating") == shown
    assert other.inner_text("#account-link") == name
    # the table's link on the second device: the account's own seat (the same token), not a watcher's
    other.goto(f"{server}{FAST}#/t/{code}")
    other.wait_for_function("() => document.querySelector('#table')?.dataset.status === 'finished'")
    held = other.evaluate("() => JSON.parse(localStorage.getItem('sixnimmt.seats') || '{}')")
    first = page.evaluate("() => JSON.parse(localStorage.getItem('sixnimmt.seats') || '{}')")
    assert held[code] == first[code] and held[code]["seat"] == 0


def test_account_pages_fit_a_phone_in_spanish(browser: Any, server: str, shots: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, locale="es-ES")
    page = context.new_page()
    page.goto(f"{server}{FAST}#/account")
    page.wait_for_selector("#signup")
    assert page.inner_text("#signup h2") == "Crear una cuenta"
    page.fill("#signup-name", "Telefono")
    page.fill("#signup-password", "otra frase bastante larga")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")
    for hash_ in ("#/u/Telefono", "#/leaderboard/standard/provisional", "#/", "#/account"):
        page.goto(f"{server}{FAST}{hash_}")
        page.wait_for_selector("main h1")
        page.wait_for_timeout(200)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390, hash_
    shots(page, "account-phone-es")
    # a taken name, in Spanish
    other = browser.new_context(locale="es-ES").new_page()
    other.goto(f"{server}{FAST}#/account")
    other.fill("#signup-name", "TELEFONO")
    other.fill("#signup-password", "otra frase bastante larga")
    other.click("#signup-btn")
    other.wait_for_function("() => document.querySelector('#signup-error').textContent !== ''")
    assert other.inner_text("#signup-error") == "Ese nombre de usuario ya existe."
