"""A bot's challenge to a person in real Chromium (docs/bot-api.md, "Challenging a person"): the
signed-in person sees a notice under the top bar, declines the first with a reason (the bot is told
it), accepts the second, and sits down at the bot's table through the challenge's invitation."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

import httpx
from websockets.sync.client import connect

from .test_web_game import FAST


def _challenger(server: str, name: str, person: str, told: queue.Queue[dict[str, Any]]) -> threading.Thread:
    """A bot program that challenges ``person`` (on the site) twice, puts what it is told about each challenge in ``told``, and plays the game that starts."""
    with httpx.Client(base_url=server, headers={"Origin": server}) as owner:
        assert owner.post("/api/account/signup", json={"name": f"{name}_owner", "password": "a long enough phrase"}).status_code == 201
        assert owner.post("/api/bots", json={"name": name, "description": "challenges"}).status_code == 201
        token = owner.post(f"/api/bots/{name}/tokens", json={"label": "test"}).json()["token"]

    def play() -> None:
        url = server.replace("http", "ws", 1) + "/api/bot/v1/connect"
        with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": 2, "client": "test/1", "max_games": 1}))
            challenges = 0
            for _ in range(5000):
                message = json.loads(ws.recv(timeout=60))
                kind = message["type"]
                if kind == "welcome":
                    ws.send(json.dumps({"type": "challenge", "bot": person}))
                elif kind == "challenge-declined":
                    told.put(message)
                    if challenges < 2:
                        ws.send(json.dumps({"type": "challenge", "bot": person}))
                elif kind == "challenging":
                    challenges += 1
                elif kind == "game-start":
                    told.put(message)
                elif kind == "decide":
                    ws.send(json.dumps({"type": "move", "game": message["game"], "id": message["id"],
                                        "move": message["view"]["decision"]["options"][0]}))
                elif kind == "game-end":
                    return

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread


def test_a_person_declines_then_accepts_a_bots_challenge_from_the_notice(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}{FAST}#/account")
    page.fill("#signup-name", "Challenged_1")
    page.fill("#signup-password", "a long enough phrase")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")
    page.goto(f"{server}{FAST}#/")
    page.evaluate("() => fetch('/api/challenges')")  # (the page's own asking, now: the person is on the site)
    told: queue.Queue[dict[str, Any]] = queue.Queue()
    _challenger(server, "Dare_Bot", "Challenged_1", told)
    notice = page.wait_for_selector(".bot-challenge", timeout=30_000)
    assert "Dare_Bot" in notice.inner_text()
    shots(page, "bot-challenge-notice")
    page.select_option(".bot-challenge select", "variant")
    page.click(".bot-challenge button:not(.primary)")
    declined = told.get(timeout=30)
    assert declined["type"] == "challenge-declined" and declined["reason"] == "variant"
    page.click(".bot-challenge button.primary", timeout=30_000)  # the second challenge: accepted
    page.wait_for_selector("#join-btn")
    page.click("#join-btn")
    page.wait_for_selector("#hand button.card")  # seated: the game has started
    started = told.get(timeout=30)
    assert started["type"] == "game-start"
    assert [p["kind"] for p in started["players"]] == ["program", "person"]
    assert not errors
