"""The session shown in docs/bot-api.md, recorded by really running it: a person makes a bot and a
token, two bot programs connect and each seeks a 2-player casual game, and one of them plays it to
the end (lowest option each time; the other plays its highest). Prints the HTTP calls and every
frame of the first bot's connection, the middle of the game cut.

    .venv/bin/python benchmarks/bot_api_session.py > /tmp/session.txt
"""

from __future__ import annotations

import json
import tempfile
import threading
from typing import Any

from fastapi.testclient import TestClient

from sixnimmt.server.config import Settings
from sixnimmt.server.web.app import create_app

CONNECT = "/api/bot/v1/connect"
#: Frames shown before and after the cut.
HEAD, TAIL = 12, 8


def _other(ws: Any) -> None:
    """The second bot: it joins the first one's table and plays its highest option."""
    ws.send_json({"type": "hello", "protocol": 2, "max_games": 1})
    ws.receive_json()
    ws.send_json({"type": "seek", "mode": "casual", "players": 2})
    while True:
        message = ws.receive_json()
        if message["type"] == "decide":
            ws.send_json({"type": "move", "game": message["game"], "id": message["id"],
                          "move": message["view"]["decision"]["options"][-1]})
        if message["type"] == "game-end":
            return


def main() -> None:
    folder = tempfile.mkdtemp()
    app = create_app(Settings(database_url=f"sqlite:///{folder}/session.db", bot_delay=0.0, play_now_wait=600.0))
    lines: list[str] = []
    with TestClient(app) as web:
        web.headers.update({"Origin": "http://testserver"})
        web.post("/api/account/signup", json={"name": "ada", "password": "correct horse battery"})
        tokens = {}
        for name in ("Moo", "Other"):
            body = {"name": name, "description": "plays the lowest card"}
            made = web.post("/api/bots", json=body)
            token = web.post(f"/api/bots/{name}/tokens", json={"label": "laptop"})
            tokens[name] = token.json()["token"]
            if name == "Moo":
                lines += [f"POST /api/bots {json.dumps(body)}", f"  -> {made.status_code} {json.dumps(made.json())}",
                          'POST /api/bots/Moo/tokens {"label": "laptop"}',
                          f"  -> {token.status_code} {json.dumps(token.json())}"]
        frames: list[tuple[str, dict[str, Any]]] = []
        with web.websocket_connect(CONNECT, headers={"Authorization": f"Bearer {tokens['Moo']}"}) as ws, \
                web.websocket_connect(CONNECT, headers={"Authorization": f"Bearer {tokens['Other']}"}) as other:

            def send(message: dict[str, Any]) -> None:
                frames.append((">", message))
                ws.send_json(message)

            def receive() -> dict[str, Any]:
                message: dict[str, Any] = ws.receive_json()
                frames.append(("<", message))
                return message

            send({"type": "hello", "protocol": 2, "client": "sixnimmt-bot-connect/1", "max_games": 4})
            receive()
            send({"type": "seek", "mode": "casual", "players": 2, "variant": "standard"})
            receive()
            second = threading.Thread(target=_other, args=(other,), daemon=True)
            second.start()
            while (message := receive())["type"] != "game-end":
                if message["type"] == "decide":
                    send({"type": "move", "game": message["game"], "id": message["id"],
                          "move": message["view"]["decision"]["options"][0]})
            send({"type": "ping"})
            receive()
            second.join(60)
        listed = web.get("/api/bots/Moo/tokens")
        lines += ["GET /api/bots/Moo/tokens", f"  -> {listed.status_code} {json.dumps(listed.json())}", ""]
    shown = [*frames[:HEAD], None, *frames[-TAIL:]]
    for frame in shown:
        if frame is None:
            lines.append("…  (the game goes on: a decide and a move for each decision, a turn-result for each turn, "
                         "a deal-end for each deal)")
            continue
        direction, message = frame
        lines.append(("bot    > " if direction == ">" else "server < ") + json.dumps(message, separators=(", ", ": ")))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
