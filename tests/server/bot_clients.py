"""A small bot program for the Bot API tests: it plays its games over one WebSocket (starlette's
test client, or any object with ``send_json`` and ``receive_json``), answering each decision with
its first option unless told otherwise, and keeps every message it got."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class BotProgram:
    def __init__(self, ws: Any, choose: Callable[[dict[str, Any]], Any] | None = None) -> None:
        self.ws = ws
        self.choose = choose or (lambda view: view["decision"]["options"][0])
        self.messages: list[dict[str, Any]] = []
        self.ended: dict[str, dict[str, Any]] = {}

    def hello(self, max_games: int = 4) -> dict[str, Any]:
        self.ws.send_json({"type": "hello", "protocol": 2, "client": "test/1", "max_games": max_games})
        return self.until(lambda m: m["type"] == "welcome")

    def until(self, predicate: Callable[[dict[str, Any]], bool], limit: int = 5000,
              answer: bool = True) -> dict[str, Any]:
        """Read (answering decisions, unless ``answer`` is False for the one ``predicate`` accepts)
        until a message ``predicate`` accepts."""
        for _ in range(limit):
            message: dict[str, Any] = self.ws.receive_json()
            self.messages.append(message)
            if not answer and predicate(message):
                return message
            if message["type"] == "decide":
                self.ws.send_json({"type": "move", "game": message["game"], "id": message["id"],
                                   "move": self.choose(message["view"])})
            elif message["type"] == "game-end":
                self.ended[message["game"]] = message
            if predicate(message):
                return message
        raise AssertionError("the message never came")

    def play_games(self, count: int = 1) -> None:
        self.until(lambda m: m["type"] == "game-end" and len(self.ended) >= count)

    def in_thread(self, count: int = 1) -> threading.Thread:
        thread = threading.Thread(target=self.play_games, args=(count,), daemon=True)
        thread.start()
        return thread
