"""Helpers for the web server tests: drive a table through the WebSocket protocol."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from sixnimmt.server.store.rows import TableData
from sixnimmt.server.tables.handlers import HANDLERS
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.wire import ChooseRow, Draft, Keep, Order, Pass, Play


def create_table(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json={"name": "Host", "seats": seats, **options})
    assert response.status_code == 201, response.text
    return response.json()


def receive_until(ws: Any, predicate: Any, limit: int = 2000) -> dict[str, Any]:
    """Read messages until one satisfies ``predicate``; return it."""
    for _ in range(limit):
        message = ws.receive_json()
        if predicate(message):
            return message
    raise AssertionError("no matching message")


def merged(message: dict[str, Any], last: dict[str, Any] | None) -> dict[str, Any]:
    """A ``chosen`` message applied to the last whole state, as the browser applies it (who has
    chosen, who is awaited, and the chooser's own part, ``own``); any other message as it is."""
    if message.get("type") != "chosen" or last is None or last.get("view") is None:
        return message
    view = {**last["view"], "chosen": message["chosen"], "waiting_for": message["waiting_for"], **message.get("own", {})}
    return {**last, "type": "update", "events": message["events"], "view": view}


def my_decision(message: dict[str, Any]) -> dict[str, Any] | None:
    view = message.get("view")
    if message.get("type") in ("state", "update") and view:
        return view.get("decision")
    return None


def play_out(ws: Any, first: dict[str, Any], choose: Any = None) -> dict[str, Any]:
    """Answer this seat's decisions (first option, or ``choose(decision)``) until the game is over;
    returns the last state message."""
    message = last = first

    def receive() -> dict[str, Any]:
        nonlocal last
        message = merged(ws.receive_json(), last)
        if message.get("type") in ("state", "update"):
            last = message
        return message

    while True:
        view = message.get("view")
        if message.get("type") in ("state", "update") and view and view["phase"] == "over":
            return message
        decision = my_decision(message)
        if decision is not None:
            value = choose(decision) if choose else decision["options"][0]
            key = {"card": ("play", "card"), "row": ("row", "row"), "draft": ("draft", "card"),
                   "order": ("order", "card"), "keep": ("keep", "card")}[decision["kind"]]
            if value == 0 and decision["kind"] in ("card", "keep"):  # PASS: no second card, keep no more
                ws.send_json({"type": "pass", "deal": view["deal"], "turn": view["turn"]})
            else:
                ws.send_json({"type": key[0], key[1]: value, "deal": view["deal"], "turn": view["turn"]})
            def moved_on(m: dict[str, Any], asked: Any = decision, seen: Any = view) -> bool:
                return m.get("type") in ("update", "state", "error") and (
                    m.get("type") == "error" or m["view"] is None or m["view"].get("decision") != asked
                    or m["view"]["turn"] != seen["turn"] or m["view"]["deal"] != seen["deal"]
                )

            for _ in range(2000):
                message = receive()
                if moved_on(message):
                    break
            else:
                raise AssertionError("the game did not move on")
            assert message["type"] != "error", message
        else:
            message = receive()


def answer(kind: str, value: int) -> Any:
    """The message that answers a decision of ``kind`` with ``value`` (0 is a pass)."""
    if kind == "row":
        return ChooseRow(type="row", row=value)
    if value == 0:
        return Pass(type="pass")
    return {"card": Play, "draft": Draft, "order": Order, "keep": Keep}[kind](type=kind if kind != "card" else "play",
                                                                          card=value)


async def _never_archive(data: TableData, record: dict[str, Any], winners: list[int], players: list[list[dict[str, Any]]]) -> int:
    raise AssertionError("a room rebuilt to be looked at never finishes a game")


def rebuilt(room: Room, rooms: Rooms) -> Room:
    """A second room rebuilt from what ``room`` would store now, as a restarted server loads it."""
    return Room.from_store(room.table.to_store(), room.settings, rooms.clock, rooms.db.save, _never_archive,
                          HANDLERS)
