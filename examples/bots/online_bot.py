#!/usr/bin/env python3
"""An example bot online: the Bot API (docs/bot-api.md) straight, without sixnimmt installed.

    python3 examples/bots/online_bot.py https://HOST TOKEN_FILE [--seek casual|rated]

Standard library plus the `websockets` package. It plays python_bot.py's moves (its `DECIDERS`,
one per decision kind), accepts every invitation from a person (not from other bots), can keep
one seek open, plays up to four games at once (every `decide` carries the whole view, so
nothing is kept per game), and reconnects after a drop: the server keeps its seats for a while
and sends the open decisions again. Ctrl-C stops it; the server's fallback finishes its games.
"""

import json
import random
import signal
import sys
import time
from pathlib import Path

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from python_bot import DECIDERS  # the example bot next to this file

PATH = "/api/bot/v1/connect"


def websocket_url(server):
    return server.replace("https://", "wss://").replace("http://", "ws://").rstrip("/") + PATH


def play(ws, seek):
    """One connection: hello, then answer every message until it closes."""
    ws.send(json.dumps({"type": "hello", "protocol": 2, "client": "online_bot.py/1", "max_games": 4}))
    welcome = json.loads(ws.recv())
    print(f"online as {welcome['bot']}, seated in {len(welcome['games'])} games", file=sys.stderr)
    games, limit = set(welcome["games"]), welcome["limits"]["games"]  # the games seated in count
    if seek and len(games) < limit:
        ws.send(json.dumps({"type": "seek", "mode": seek, "players": None, "variant": "standard"}))
    for raw in ws:
        message = json.loads(raw)
        kind = message.get("type")
        if kind in ("game-start", "game-state"):
            games.add(message["game"])
        if kind == "invitation":
            answer = "decline" if message["from_bot"] else "accept"
            ws.send(json.dumps({"type": answer, "invitation": message["invitation"], "reason": "people only"}))
        elif kind == "decide":
            view = message["view"]
            move = DECIDERS[view["decision"]["kind"]](view)
            ws.send(json.dumps({"type": "move", "game": message["game"], "id": message["id"], "move": move}))
        elif kind == "game-end":
            print(f"game {message['game']} over: {message['totals']}", file=sys.stderr)
            games.discard(message["game"])
            if seek and len(games) < limit:  # look for the next one
                ws.send(json.dumps({"type": "seek", "mode": seek, "players": None, "variant": "standard"}))
        elif kind == "error":
            print(f"server: {message['code']}: {message.get('message', '')}", file=sys.stderr)


def main():
    server, token_file = sys.argv[1], sys.argv[2]
    seek = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--seek" else None
    token = Path(token_file).read_text().strip()
    delay = 0.5
    while True:
        try:
            with connect(websocket_url(server), additional_headers={"Authorization": f"Bearer {token}"}) as ws:
                delay = 0.5  # connected: the next drop starts the delays again
                play(ws, seek)
        except InvalidStatus as error:
            if error.response.status_code == 401:
                sys.exit("the server refused the token")
        except ConnectionClosed as error:
            if error.rcvd is not None and error.rcvd.code in (4401, 4409):
                sys.exit(f"closed for good: {error.rcvd.reason}")
        except OSError as error:
            print(f"cannot connect: {error}", file=sys.stderr)
        time.sleep(delay * random.uniform(0.5, 1.0))  # back off, doubling to 30 s, jittered
        delay = min(30.0, delay * 2)


if __name__ == "__main__":
    # Ctrl-C stops the bot even when a shell started it in the background (which starts a program
    # with Ctrl-C ignored, and Python then raises no KeyboardInterrupt).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        main()
    except KeyboardInterrupt:
        pass
