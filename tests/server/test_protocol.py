"""Every inbound message is validated; bad or illegal ones get an error reply and change nothing,
and the table keeps working afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.core import DealSetup, Game, Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.limits import RateLimiter
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import ChooseRow, Play, ProtocolError, decode

from .helpers import create_table, receive_until


@pytest.mark.parametrize(
    "text,reason",
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"card": 5}', "needs a \"type\""),
        ('{"type": "dance"}', "unknown message type"),
        ('{"type": "play"}', "card"),
        ('{"type": "play", "card": "12"}', "card"),
        ('{"type": "play", "card": 105}', "card"),
        ('{"type": "play", "card": true}', "card"),
        ('{"type": "row", "row": 4}', "row"),
        ('{"type": "sync", "extra": 1}', "extra"),
        ('{"type": "play", "card": 5, "pad": "' + "x" * 3000 + '"}', "too large"),
        ("[" * 1000 + "]" * 1000, "nested too deeply"),
        ('{"type": "play", "card": 5, "deal": ' + "[" * 9 + "]" * 9 + "}", "nested too deeply"),
    ],
)
def test_decode_rejects_bad_messages(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        decode(text, 2048)


def test_decode_accepts_each_message_type() -> None:
    assert decode('{"type": "play", "card": 14, "deal": 0, "turn": 3}', 2048) == Play(
        type="play", card=14, deal=0, turn=3
    )
    assert decode('{"type": "row", "row": 2}', 2048) == ChooseRow(type="row", row=2)
    for kind in ("draft", "start", "again", "sync", "ping"):
        body: dict[str, Any] = {"type": kind}
        if kind == "draft":
            body["card"] = 3
        assert decode(json.dumps(body), 2048).type == kind


def test_rate_limiter_allows_a_burst_then_the_rate() -> None:
    limiter = RateLimiter(rate=2.0, burst=3, now=0.0)
    assert [limiter.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow(0.49) is False
    assert limiter.allow(0.5) is True  # one token back after half a second at 2/s


def _first_state(ws: Any) -> dict[str, Any]:
    return receive_until(ws, lambda m: m["type"] in ("state", "update") and m["view"] is not None)


def test_bad_and_illegal_messages_get_errors_and_change_nothing(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    friend = client.post(f"/api/tables/{table['code']}/join", json={"name": "Friend"}).json()
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        state = _first_state(ws)
        view = state["view"]
        hand = view["hand"]
        not_mine = next(c for c in range(1, 105) if c not in hand and all(c not in r for r in view["rows"]))
        bad = [
            ("{oops", "bad-json"),
            ('{"type": "play", "card": NaN}', "bad-json"),  # what Python's json reads, JSON does not have
            ('{"type": "chat", "text": "\\ud800"}', "bad-json"),  # a lone surrogate is no text
            (json.dumps({"type": "play", "card": not_mine}), "not-an-option"),  # card not in hand
            (json.dumps({"type": "row", "row": 0}), "wrong-phase"),
            (json.dumps({"type": "draft", "card": hand[0]}), "wrong-phase"),
            (json.dumps({"type": "play", "card": hand[0], "turn": 7}), "stale-move"),
            (json.dumps({"type": "again"}), "not-over"),
            (json.dumps({"type": "start"}), "already-started"),
            ("x" * 5000, "too-large"),
        ]
        for text, code in bad:
            ws.send_text(text)
            error = receive_until(ws, lambda m: m["type"] == "error")
            assert error["code"] == code and error["message"] and isinstance(error["params"], dict)
        ws.send_json({"type": "sync"})
        after = receive_until(ws, lambda m: m["type"] == "state")["view"]
        assert after["hand"] == hand and after["my_choice"] is None
        assert after["turn"] == view["turn"] and after["rows"] == view["rows"]
        # the table still works: a legal move is accepted, and may be changed until all have chosen
        ws.send_json({"type": "play", "card": hand[0], "deal": view["deal"], "turn": view["turn"]})
        moved = receive_until(ws, lambda m: m["type"] == "chosen" and "own" in m)
        assert moved["own"]["my_choice"] == hand[0] and moved["chosen"][0] is True and moved["own"]["decision"] is None
        ws.send_json({"type": "play", "card": hand[1], "deal": view["deal"], "turn": view["turn"]})
        changed = receive_until(ws, lambda m: m["type"] in ("update", "error"))
        assert changed["type"] == "update" and changed["view"]["my_choice"] == hand[1]
    # a spectator cannot play
    with client.websocket_connect(f"/ws/{table['code']}") as ws:
        spectator = _first_state(ws)
        assert spectator["table"]["you"] is None and spectator["view"]["hand"] == []
        ws.send_json({"type": "play", "card": hand[1]})
        refusal = receive_until(ws, lambda m: m["type"] == "error")
        assert refusal["code"] == "spectator" and "spectators" in refusal["message"]
    assert friend["seat"] == 1


def test_rate_limit_per_seat_across_its_sockets(tmp_path: Path) -> None:
    from .conftest import make_client

    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 'r.db'}", clock, rate_per_second=1.0, rate_burst=3) as client:
        table = create_table(client, [{"kind": "bot", "bot": "random"}])
        url = f"/ws/{table['code']}?token={table['token']}"
        with client.websocket_connect(url) as first, client.websocket_connect(url) as second:
            _first_state(first)
            _first_state(second)
            replies = []
            for ws in (first, second, first, second, first, second):  # one seat, two sockets: one allowance
                ws.send_json({"type": "ping"})
                replies.append(receive_until(ws, lambda m: m["type"] in ("pong", "error")))
            kinds = [m["type"] for m in replies]
            assert kinds == ["pong"] * 3 + ["error"] * 3
            assert replies[-1]["code"] == "rate-limited" and replies[-1]["params"]["retry_after"] == 1.0
            clock.advance(1.0)  # one message's worth of allowance comes back
            second.send_json({"type": "ping"})
            assert receive_until(second, lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
            first.send_json({"type": "ping"})
            assert receive_until(first, lambda m: m["type"] in ("pong", "error"))["code"] == "rate-limited"


@pytest.mark.asyncio
async def test_someone_elses_row_choice_is_refused(tmp_path: Path) -> None:
    """Seat 1's card is too low; seat 0 may not choose the row for them, seat 1 may."""
    rules = Rules(players=2, target=None, deals=1)
    setup = DealSetup(hands=(tuple(range(51, 61)), tuple(range(1, 11))), rows=(70, 80, 90, 100))

    store = Store(f"sqlite:///{tmp_path / 'rows.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0))
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}])
    await room.join("Friend")
    room.table.game = Game(rules, ["Host", "Friend"], dealer=lambda _deal: setup)

    class Conn:
        def __init__(self, seat: int) -> None:
            self.seat, self.messages = seat, []

        def push(self, message: dict[str, Any]) -> None:
            self.messages.append(message)

    host, friend = Conn(0), Conn(1)
    await room.handle(host, Play(type="play", card=51))
    await room.handle(friend, Play(type="play", card=1))
    assert room.table.game.phase.value == "row-choice"
    await room.handle(host, ChooseRow(type="row", row=2))
    refusal = host.messages[-2]
    assert refusal["type"] == "error" and refusal["code"] == "not-your-turn"
    assert refusal["params"] == {"seat": 2, "name": "Friend"} and "seat 2" in refusal["message"]
    assert room.table.game.phase.value == "row-choice" and room.table.game.pending()[0].seat == 1
    await room.handle(friend, ChooseRow(type="row", row=2))
    assert room.table.game.phase.value == "play" and room.table.game.penalties[1] == 3  # took [90]
    await rooms.close()


def test_hint_goes_to_the_asker_only_and_is_a_legal_option(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    client.post(f"/api/tables/{table['code']}/join", json={"name": "Friend"})
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws, \
            client.websocket_connect(f"/ws/{table['code']}") as spectator:
        view = _first_state(ws)["view"]
        _first_state(spectator)
        ws.send_json({"type": "hint"})
        hint = receive_until(ws, lambda m: m["type"] == "hint")
        assert hint["choice"] in view["decision"]["options"] and hint["kind"] == "card"
        assert set(hint["scores"]) <= {str(c) for c in view["hand"]}
        spectator.send_json({"type": "hint"})
        assert "spectators" in receive_until(spectator, lambda m: m["type"] == "error")["message"]
        spectator.send_json({"type": "sync"})
        # the spectator never received the hint
        assert receive_until(spectator, lambda m: m["type"] in ("state", "hint"))["type"] == "state"


def test_seat_token_as_subprotocol_keeps_it_out_of_the_url(client: TestClient) -> None:
    table = create_table(client, [{"kind": "bot", "bot": "random"}])
    with client.websocket_connect(f"/ws/{table['code']}", subprotocols=["sixnimmt", f"token.{table['token']}"]) as ws:
        assert ws.accepted_subprotocol == "sixnimmt"
        assert _first_state(ws)["table"]["you"] == 0
    with client.websocket_connect(f"/ws/{table['code']}", subprotocols=["sixnimmt", "token.forged"]) as ws:
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "unknown-token"
        assert _first_state(ws)["table"]["you"] is None  # an unknown token only watches


def test_others_hear_only_that_a_card_was_chosen(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    friend = client.post(f"/api/tables/{table['code']}/join", json={"name": "Friend"}).json()
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as host, \
            client.websocket_connect(f"/ws/{table['code']}?token={friend['token']}") as guest:
        view = _first_state(host)["view"]
        _first_state(guest)
        card = view["hand"][0]
        host.send_json({"type": "play", "card": card})
        # the chooser hears its own part of the view, and no whole view; the others not even that
        mine = receive_until(host, lambda m: m["type"] in ("chosen", "update") and m.get("chosen", [False])[0])
        assert mine["type"] == "chosen" and "view" not in mine and mine["chosen"][0] is True
        assert mine["own"] == {"seat": 0, "hand": view["hand"], "my_choice": card, "my_choices": [card], "decision": None}
        brief = receive_until(guest, lambda m: m["type"] == "chosen" and m["chosen"][0])
        assert "view" not in brief and "own" not in brief and "hand" not in json.dumps(brief)
        assert [e["type"] for e in brief["events"]] == ["card-chosen"] and 0 not in brief["waiting_for"]
