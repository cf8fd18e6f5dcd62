#!/usr/bin/env python3
"""A bot online, written from docs/bot-api.md alone, as a stranger to the project would write it:
nothing but the standard library, the ``websockets`` package and the messages the docs describe.

It checks every message the server sends against the docs' message reference (the types, and for
each its fields, those that may be left out marked): a message the docs do not describe stops it
with exit status 1 and the message on stderr. Otherwise it plays ``--games`` games it seeks (casual,
2 players, each decision answered with its first option), cuts its own connection once in the
middle of game ``--cut-at`` and connects again (the docs promise the game back, whole, as
``game-state``, then the open ``decide``), then challenges ``--challenge`` by name and plays that
game too; with ``--take-challenges N`` it accepts that many challenges after its seeks instead.
At the end it prints one JSON line: the games it played, the one it cut, and what it received.

    python3 examples/bots/outsider_bot.py http://127.0.0.1:8000 bot.token --games 10 --cut-at 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import websockets

#: docs/bot-api.md, "Message reference", from the server: each type, its fields ("?": may be left out).
DOCUMENTED = {
    "welcome": "bot owner limits games",
    "pong": "",
    "seeking": "seek game",
    "seek-cancelled": "seek game",
    "challenging": "bot game invitation person",
    "challenge-declined": "game reason message",
    "invitation": "invitation game from from_bot challenge? rated rules seats players expires_in",
    "invitation-withdrawn": "invitation reason",
    "game-start": "game seat seats players rules",
    "game-state": "game players view",
    "players": "game players",
    "deal-start": "game deal rows",
    "decide": "game id view",
    "turn-result": "game deal turn seat_cards plays events",
    "deal-end": "game deal penalties totals",
    "game-end": "game totals winners",
    "stand-in": "game id reason move",
    "left": "game",
    "error": "code message game? id? fields? limit? retry_after? bot?",
}
#: "Who is who": each entry of ``players`` ("level" for a server bot).
PLAYER = "name kind account level?"


class Undocumented(Exception):
    pass


def check(message: dict[str, Any]) -> None:
    """Raise :class:`Undocumented` unless the docs describe ``message`` exactly."""
    kind = message.get("type")
    if kind not in DOCUMENTED:
        raise Undocumented(f"type {kind!r}: {message}")
    _fields(f"{kind}", {k: v for k, v in message.items() if k != "type"}, DOCUMENTED[kind])
    for player in message.get("players") or []:
        _fields(f"{kind}.players", player, PLAYER)


def _fields(where: str, got: dict[str, Any], spec: str) -> None:
    names = spec.split()
    required = {n for n in names if not n.endswith("?")}
    allowed = required | {n[:-1] for n in names if n.endswith("?")}
    if required - set(got) or set(got) - allowed:
        raise Undocumented(f"{where}: missing {sorted(required - set(got))}, not described {sorted(set(got) - allowed)}")


class Outsider:
    def __init__(self, url: str, token: str, args: argparse.Namespace) -> None:
        self.url = url.replace("http", "ws", 1).rstrip("/") + "/api/bot/v1/connect"
        self.token, self.args = token, args
        self.finished: list[str] = []
        self.seeks = 0  # games sought so far
        self.cut: str | None = None  # the game whose connection was cut
        self.resynced = False
        self.challenge_game: str | None = None
        self.taken = 0  # challenges accepted
        self.declined = 0  # challenges of its own declined
        self.types: dict[str, int] = {}
        self.errors: list[dict[str, Any]] = []

    def wanted(self) -> int:
        return self.args.games + (1 if self.args.challenge else self.args.take_challenges)

    async def run(self) -> None:
        while len(self.finished) < self.wanted():
            async with websockets.connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                                          max_size=1 << 20) as ws:
                if await self.session(ws):
                    return

    async def receive(self, ws: Any) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await ws.recv())
        check(message)
        self.types[message["type"]] = self.types.get(message["type"], 0) + 1
        return message

    async def send(self, ws: Any, message: dict[str, Any]) -> None:
        await ws.send(json.dumps(message))

    async def session(self, ws: Any) -> bool:
        """One connection: True when every game is played, False to connect again."""
        await self.send(ws, {"type": "hello", "protocol": 2, "client": "outsider/1", "max_games": 1})
        welcome = await self.receive(ws)
        assert welcome["type"] == "welcome", welcome
        if self.cut is not None and not self.resynced:
            assert welcome["games"] == [self.cut], welcome  # the game cut off is still ours
        await self.send(ws, {"type": "ping"})
        playing = bool(welcome["games"])
        if not playing:
            await self.next_game(ws)
        decisions = 0
        while True:
            message = await self.receive(ws)
            kind = message["type"]
            if kind == "game-state":
                self.resynced = True
            elif kind == "decide":
                assert self.cut is None or self.resynced or message["game"] != self.cut
                decisions += 1
                if self.cut is None and len(self.finished) + 1 == self.args.cut_at and decisions == 3:
                    self.cut = message["game"]  # cut off with a decision open: it must come back
                    return False
                options = message["view"]["decision"]["options"]
                await self.send(ws, {"type": "move", "game": message["game"], "id": message["id"], "move": options[0]})
            elif kind == "invitation":
                free = len(self.finished) >= self.args.games  # (its own games first: one at a time)
                take = message.get("challenge") and self.taken < self.args.take_challenges and free
                await self.send(ws, {"type": "accept" if take else "decline", "invitation": message["invitation"],
                                     **({} if take else {"reason": "later" if free else "too-many-games"})})
                self.taken += bool(take)
            elif kind == "challenging":
                self.challenge_game = message["game"]
            elif kind == "challenge-declined" or (kind == "error" and "bot" in message):
                # (the other is still busy with a game: ask again)
                print(f"outsider: challenge not taken: {message}", file=sys.stderr)
                self.declined += 1
                if self.declined > 60:
                    raise SystemExit(f"outsider: the challenge was declined: {message}")
                await asyncio.sleep(1)
                self.challenge_game = None
                await self.next_game(ws)
            elif kind == "error" and message["code"] == "rate-limited" and message.get("limit") == "seeks":
                await asyncio.sleep(message["retry_after"])  # (as the docs say: wait, then seek again)
                self.seeks -= 1
                await self.next_game(ws)
            elif kind == "error":
                print(f"outsider: {message}", file=sys.stderr)
                self.errors.append(message)
            elif kind == "game-end":
                self.finished.append(message["game"])
                print(f"outsider: game {message['game']} over ({len(self.finished)})", file=sys.stderr)
                decisions = 0
                if len(self.finished) >= self.wanted():
                    return True
                await self.next_game(ws)

    async def next_game(self, ws: Any) -> None:
        if self.seeks < self.args.games:
            self.seeks += 1
            await self.send(ws, {"type": "seek", "mode": "casual", "players": 2, "variant": "standard"})
        elif self.args.challenge and self.challenge_game is None:
            await self.send(ws, {"type": "challenge", "bot": self.args.challenge})
        # (else: wait for the challenges to take)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("token_file")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--cut-at", type=int, default=0, help="cut the connection once in this game (1-based)")
    parser.add_argument("--challenge", default="", help="then challenge this bot or person by name")
    parser.add_argument("--take-challenges", type=int, default=0, help="then accept this many challenges")
    args = parser.parse_args()
    bot = Outsider(args.url, Path(args.token_file).read_text().strip(), args)
    try:
        asyncio.run(bot.run())
    except Undocumented as error:
        print(f"outsider: a message the docs do not describe: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"games": bot.finished, "cut": bot.cut, "resynced": bot.resynced,
                      "challenge": bot.challenge_game, "types": bot.types, "errors": bot.errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
