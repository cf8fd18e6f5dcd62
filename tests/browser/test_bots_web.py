"""My bots in real Chromium: make a bot whose description is markup (shown as text, never run),
take a token (shown once), revoke it; a bot program's seat marked as a bot in the history, the
replay and the review."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
from websockets.sync.client import connect

from .test_web_game import FAST, create_table, play_until_over

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


def _bot_program(server: str, name: str) -> tuple[threading.Event, threading.Thread]:
    """A bot account ``name`` (of a new owner) and its program, online over the Bot API: it takes
    the invitation that comes and plays the game with each decision's first option. Returns an
    event set once it is online, and its thread (ended with the game)."""
    origin = {"Origin": server}
    with httpx.Client(base_url=server, headers=origin) as owner:
        made = owner.post("/api/account/signup", json={"name": f"{name}_owner", "password": "a long enough phrase"})
        assert made.status_code == 201, made.text
        assert owner.post("/api/bots", json={"name": name, "description": MARKUP}).status_code == 201
        token = owner.post(f"/api/bots/{name}/tokens", json={"label": "test"}).json()["token"]
    online = threading.Event()

    def play() -> None:
        url = server.replace("http", "ws", 1) + "/api/bot/v1/connect"
        with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": 2, "client": "test/1", "max_games": 1}))
            for _ in range(5000):
                message = json.loads(ws.recv(timeout=60))
                if message["type"] == "welcome":
                    online.set()
                elif message["type"] == "invitation":
                    ws.send(json.dumps({"type": "accept", "invitation": message["invitation"]}))
                elif message["type"] == "decide":
                    ws.send(json.dumps({"type": "move", "game": message["game"], "id": message["id"],
                                        "move": message["view"]["decision"]["options"][0]}))
                elif message["type"] == "game-end":
                    return

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return online, thread


def test_a_bot_programs_seat_is_marked_in_the_history_replay_and_review(browser: Any, server: str) -> None:
    online, program = _bot_program(server, "Marked_Bot")
    assert online.wait(30)
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    host = "<b>Ann</b>"  # a person's name that is markup: shown as text, never parsed
    code = create_table(page, server, host, ["program:Marked_Bot", "bot:easy"], public=True)
    page.wait_for_selector("#hand button.card:not([disabled])")  # the game starts once the program takes its seat
    home = page.context.new_page()  # the same browser's home: "Your move" names the program a bot
    home.goto(f"{server}{FAST}#/")
    who = home.wait_for_selector(f"#your-move-list li[data-code='{code}'] .who")
    assert "Marked_Bot (bot)" in who.inner_text() and host in who.inner_text()
    home.close()
    play_until_over(page)
    program.join(60)
    assert not program.is_alive()
    # the final ranking and score sheet mark the bots as the table does
    assert page.locator("#final-ranking .badge.bot").count() == 2
    assert page.locator("#final-sheet th .badge.bot").count() == 2
    game = next(g for g in httpx.get(f"{server}/api/games?limit=100").json() if g["table"] == code)
    assert game["seats"][:2] == [host, "Marked_Bot"] and game["bots"] == [None, "program", "easy"]
    page.goto(f"{server}{FAST}#/history")
    row = page.wait_for_selector(f"tr[data-game='{game['id']}']")
    names = row.query_selector_all(".seat-name")
    assert [n.query_selector(".badge.bot") is not None for n in names] == [False, True, True]
    assert names[0].inner_text() == host and names[1].inner_text().startswith("Marked_Bot ")
    assert names[1].query_selector(".badge.bot").get_attribute("title") == "a bot program playing online"  # type: ignore[union-attr]
    assert row.query_selector("b") is None
    page.goto(f"{server}{FAST}#/history/{game['id']}")
    page.wait_for_selector("#replay-step")
    marked = [page.locator(f".hrow[data-seat='{i}'] .seat-name .badge.bot").count() for i in range(3)]
    assert marked == [0, 1, 1]
    assert page.inner_text(".hrow[data-seat='0'] .seat-name") == host and page.query_selector(".hrow b") is None
    page.goto(f"{server}{FAST}#/review/{game['id']}")
    page.wait_for_selector("#review-seats")
    assert page.locator("#review-seats a[data-seat='1'] .badge.bot").count() == 1
    assert page.locator("#review-seats a[data-seat='0'] .badge.bot").count() == 0
    assert not errors
