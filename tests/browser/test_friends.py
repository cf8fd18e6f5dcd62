"""Playing with friends in real Chromium: private tables stay out of the lobby and public ones are
listed, an invitation link gives a seat to the named friend, a friend who arrives late takes over a
bot's seat at the next deal, chat between two browsers (escaped, muted per browser), a server error
shown in Spanish, and the notice when the timer plays for you."""

from __future__ import annotations

import re
from typing import Any

from .test_web_game import FAST, READY


def lobby_codes(page: Any, server: str) -> list[str]:
    page.goto(server + FAST + "#/")
    page.reload()  # the same address again: load the list afresh
    page.wait_for_selector("#open-tables li")
    return [str(c) for c in page.locator("#open-tables li[data-code]").evaluate_all("l => l.map((x) => x.dataset.code)")]


def new_table(page: Any, server: str, name: str, seats: list[str], public: bool = False, target: str = "66") -> str:
    page.goto(server + FAST + "#/")
    page.fill("#name", name)
    page.select_option("#players", str(len(seats) + 1))
    for index, value in enumerate(seats, start=1):
        page.select_option(f"#seats select[data-seat='{index}']", value)
    page.fill("#target", target)
    if public:
        page.check("#public")
    page.click("#create-btn")
    page.wait_for_selector("#table")
    return str(page.url.rsplit("/", 1)[-1])


def invite(host: Any, seat: int, name: str) -> str:
    """The host invites `name` to `seat` (0-based) and returns the link the friend is sent."""
    host.fill(f"[data-invite-name='{seat}']", name)
    host.click(f"button[data-invite='{seat}']")
    host.wait_for_selector(f"[data-invite-link='{seat}']")
    return str(host.input_value(f"[data-invite-link='{seat}']"))


def test_private_tables_stay_out_of_the_lobby_and_public_ones_are_listed(browser: Any, server: str, shots: Any) -> None:
    host = browser.new_context().new_page()
    private = new_table(host, server, "Ana", ["open"])
    host.wait_for_selector("#big-code")
    assert "private" in host.inner_text(".waiting")
    other = browser.new_context().new_page()
    assert private not in lobby_codes(other, server)
    shots(host, "private-table")
    listed = browser.new_context().new_page()
    public = new_table(listed, server, "Bea", ["open"], public=True)
    listed.wait_for_selector("#big-code")
    assert public in lobby_codes(other, server)
    assert private not in lobby_codes(other, server)
    shots(other, "lobby-public")
    # the link still reaches the private table
    other.goto(server + FAST + f"#/t/{private}")
    other.wait_for_selector("#join-form")


def test_an_invitation_link_seats_the_named_friend(browser: Any, server: str, shots: Any) -> None:
    host = browser.new_context().new_page()
    code = new_table(host, server, "Ana", ["open", "bot:easy"])
    host.wait_for_selector("#host-seats")
    link = invite(host, 1, "Bo")
    # the link carries the token and the name the host typed (#43: the friend's form is filled in)
    assert re.search(rf"#/t/{code}\?invite=[\w-]+&name=Bo$", link), link
    shots(host, "invite-link")
    stranger = browser.new_context().new_page()
    stranger.goto(server + FAST + f"#/t/{code}")
    stranger.wait_for_selector("#waiting-seats")
    assert stranger.locator("#join-form").count() == 0  # the seat is kept for Bo
    host.click("button[data-release='2']")  # the bot's seat becomes free: the stranger may take it
    stranger.wait_for_selector("#join-form")
    friend = browser.new_context().new_page()
    friend.goto(link.replace(server + "/", server + FAST))
    friend.fill("#join-name", "Bo")
    friend.click("#join-btn")
    friend.wait_for_function("() => !location.hash.includes('invite')")
    friend.wait_for_selector("#waiting-seats .badge >> text=you")
    host.click("#start")  # a bot takes the free seat
    for page in (host, friend):
        page.wait_for_selector("#hand button.card:not([disabled])")
    assert friend.locator(".player.me .pname").inner_text() == "Bo"
    assert friend.get_attribute(".player.me", "data-seat") == "1"


def test_a_late_friend_takes_over_a_bots_seat_at_the_next_deal(browser: Any, server: str, shots: Any) -> None:
    host = browser.new_context().new_page()
    new_table(host, server, "Ana", ["bot:easy"])
    host.wait_for_selector("#hand button.card:not([disabled])")
    host.click("#seats-btn")
    link = invite(host, 1, "Cy")
    host.keyboard.press("Escape")
    friend = browser.new_context().new_page()
    friend.goto(link.replace(server + "/", server + FAST))
    friend.wait_for_selector("#late-join:not([hidden]) #join-name")
    friend.fill("#join-name", "Cy")
    friend.click("#join-btn")
    friend.wait_for_selector("#notice:not([hidden])")
    assert "next deal" in friend.inner_text("#notice")
    shots(friend, "late-friend-waiting")
    assert friend.locator("#hand button.card").count() == 0  # watching until the deal ends
    for _ in range(3000):  # the host plays the first deal out (the bot plays seat 2 meanwhile)
        host.wait_for_function(READY, timeout=30_000)
        if host.get_attribute("#table", "data-deal") == "1":
            break
        if host.query_selector("#dialog-deal"):
            host.click("#dialog-deal button")
        elif host.query_selector(".row.pickable"):
            host.click(".row.pickable >> nth=0")
        elif not host.query_selector("#hand button.card.selected"):
            host.click("#hand button.card:not([disabled]) >> nth=0")
        host.wait_for_timeout(30)
    friend.wait_for_selector("#hand button.card:not([disabled])", timeout=30_000)
    assert friend.get_attribute(".player.me", "data-seat") == "1"
    assert friend.locator(".player.me .pname").inner_text() == "Cy"
    assert host.locator(".player[data-seat='1'] .pname").inner_text() == "Cy"
    shots(friend, "late-friend-playing")


def test_chat_between_two_browsers(browser: Any, server: str, shots: Any) -> None:
    ana = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    code = new_table(ana, server, "Ana", ["open"])
    bo = browser.new_context().new_page()
    bo.goto(server + FAST + "#/")
    bo.fill("#join-code", code)
    bo.fill("#join-name", "Bo")
    bo.click("#join button[type=submit]")
    bo.wait_for_selector("#chat-text:not([disabled])")
    ana.click("#log summary")
    bo.click("#log summary")
    message = "hola <b>amigo</b> & <img src=x onerror=alert(1)>"
    ana.fill("#chat-text", message)
    ana.click("#chat-send")
    bo.wait_for_selector(f"#log-lines li.log-chat >> text={message}")
    assert bo.locator("#log-lines b, #log-lines img").count() == 0  # text, never HTML
    bo.click("#chat .react >> nth=0")
    emoji = bo.get_attribute("#chat .react >> nth=0", "data-emoji")
    ana.wait_for_selector(f"#log-lines li.log-chat >> text=Bo {emoji}")
    ana.locator("#chat").scroll_into_view_if_needed()
    shots(ana, "chat")
    bo.click("#mute")
    assert bo.get_attribute("#mute", "aria-pressed") == "true"
    ana.fill("#chat-text", "are you there?")
    ana.click("#chat-send")
    ana.wait_for_selector("#log-lines li.log-chat >> text=are you there?")
    bo.reload()
    bo.wait_for_selector("#mute")
    assert bo.get_attribute("#mute", "aria-pressed") == "true"  # remembered in this browser
    assert "are you there?" not in bo.inner_text("body")
    bo.click("#mute")
    if not bo.locator("#log[open]").count():
        bo.click("#log summary")
    bo.wait_for_selector("#log-lines li.log-chat >> text=are you there?")
    # a spectator reads but may not write (the host has not allowed it)
    watcher = browser.new_context().new_page()
    watcher.goto(server + FAST + f"#/t/{code}")
    watcher.wait_for_selector("#chat-text")
    assert watcher.is_disabled("#chat-text")
    ana.click("#seats-btn")  # the host lets spectators write
    ana.check("#spectator-chat")
    watcher.wait_for_selector("#chat-text:not([disabled])")
    watcher.fill("#chat-text", "thanks!")
    watcher.click("#chat-send")
    bo.wait_for_selector("#log-lines li.log-chat >> text=thanks!")


def test_a_server_error_in_spanish(browser: Any, server: str) -> None:
    host = browser.new_context(locale="es-ES").new_page()
    code = new_table(host, server, "Ana", ["open"])
    friend = browser.new_context(locale="es-ES").new_page()
    friend.goto(server + FAST + "#/")
    friend.fill("#join-code", code)
    friend.fill("#join-name", "ANA")  # names are unique at a table, ignoring case
    friend.click("#join button[type=submit]")
    friend.wait_for_function("() => document.querySelector('#join .error').textContent !== ''")
    assert friend.inner_text("#join .error") == "Alguien en esta mesa ya se llama ANA."


def test_a_notice_when_the_timer_plays_for_you(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page()
    page.goto(server + FAST + "#/")
    page.fill("#name", "Tim")
    page.select_option("#players", "2")
    page.select_option("#timer", "15")
    page.click("#create-btn")
    page.wait_for_selector("#hand button.card:not([disabled])")
    # play nothing: the timer runs out and a card is played for Tim
    page.wait_for_selector("#notice:not([hidden])", timeout=40_000)
    assert re.search(r"time ran out", page.inner_text("#notice"), re.I)
    page.click("#log summary")
    assert page.locator("#log-lines li.log-timer >> text=Tim").count() >= 1
    page.evaluate("window.scrollTo(0, 0)")
    shots(page, "timer-notice")
    page.click("#notice-close")
    assert page.is_hidden("#notice")
