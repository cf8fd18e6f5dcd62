"""The Bot API (docs/bot-api.md): bot accounts and their tokens, the bot program's connection, and
what a bad, revoked or someone else's token gets."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from sixnimmt.core.variants import VARIANTS
from sixnimmt.server.clock import ManualClock

from .bot_clients import BotProgram
from .conftest import QUICK_PLAY, make_client
from .helpers import create_table, play_out, receive_until
from .test_accounts import sign_up, signed

CONNECT = "/api/bot/v1/connect"


def make_bot(client: TestClient, name: str, description: str = "plays fair") -> str:
    """A bot account of the signed-in person, and a token for it."""
    made = client.post("/api/bots", json={"name": name, "description": description})
    assert made.status_code == 201, made.text
    token = client.post(f"/api/bots/{name}/tokens", json={"label": "laptop"})
    assert token.status_code == 201, token.text
    return str(token.json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def hello(ws: Any, max_games: int = 4) -> dict[str, Any]:
    ws.send_json({"type": "hello", "protocol": 2, "client": "test/1", "max_games": max_games})
    welcome: dict[str, Any] = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return welcome


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(f"sqlite:///{tmp_path / 'bots.db'}", ManualClock()) as client:
        yield signed(client)


def test_a_person_makes_a_bot_whose_token_is_shown_once(web: TestClient) -> None:
    sign_up(web, "ada_owner")
    token = make_bot(web, "Deep_Cow", "<b>bold</b> moves")
    assert token.startswith("snb_") and len(token) > 40
    assert web.get("/api/bots").json() == [
        {"name": "Deep_Cow", "description": "<b>bold</b> moves", "owner": "ada_owner",
         "created": web.get("/api/bots").json()[0]["created"], "online": False}]
    listed = web.get("/api/bots/Deep_Cow/tokens").json()
    assert [t["label"] for t in listed] == ["laptop"] and "token" not in listed[0]
    assert listed[0]["last_used"] is None
    # a bot is marked as one on its profile, with its owner; it can never sign in
    profile = web.get("/api/users/Deep_Cow").json()["user"]
    assert profile["kind"] == "bot" and profile["owner"] == "ada_owner"
    refused = web.post("/api/account/signin", json={"name": "Deep_Cow", "password": "anything at all 1"})
    assert refused.status_code == 401
    # people and bots share one namespace
    assert web.post("/api/bots", json={"name": "ada_owner"}).status_code == 409
    assert web.post("/api/bots", json={"name": "bot-easy"}).status_code == 422


def test_a_bot_connects_with_its_token_and_is_online(web: TestClient) -> None:
    sign_up(web, "bea_owner")
    token = make_bot(web, "Cowculator")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        welcome = hello(ws, max_games=50)
        assert welcome["bot"] == "Cowculator" and welcome["owner"] == "bea_owner"
        assert welcome["limits"]["games"] == 8 and welcome["games"] == []  # capped by the server
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        online = web.get("/api/bots/online").json()
        assert [(b["name"], b["owner"], b["max_games"]) for b in online] == [("Cowculator", "bea_owner", 8)]
        ws.send_json({"type": "move", "game": "ABCDE", "id": 1, "move": 3})
        assert ws.receive_json()["code"] == "unknown-game"
    assert web.get("/api/bots/Cowculator/tokens").json()[0]["last_used"] is not None
    assert web.get("/api/bots/online").json() == []


@pytest.mark.parametrize("how", ["wrong", "missing", "revoked", "in-url", "deleted", "a-person's-session"])
def test_a_bad_token_gets_401_and_is_never_logged_in_full(
    web: TestClient, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    sign_up(web, "cid_owner")
    token = make_bot(web, "Moo_Bot")
    caplog.set_level(logging.DEBUG)
    headers = bearer(token)
    url = CONNECT
    if how == "wrong":
        headers = bearer("snb_" + "x" * 43)
    elif how == "missing":
        headers = {}
    elif how == "revoked":
        token_id = web.get("/api/bots/Moo_Bot/tokens").json()[0]["id"]
        assert web.delete(f"/api/bots/Moo_Bot/tokens/{token_id}").status_code == 204
    elif how == "a-person's-session":  # another account's secret is no bot token
        headers = bearer(str(web.cookies.get("sixnimmt_session")))
    elif how == "in-url":
        url, headers = f"{CONNECT}?token={token}", {}
    else:
        assert web.delete("/api/bots/Moo_Bot").status_code == 204
    with pytest.raises(WebSocketDenialResponse) as refused:
        with web.websocket_connect(url, headers=headers):
            pass
    assert refused.value.status_code == 401
    assert refused.value.json()["code"] in ("bad-token", "token-in-url")
    assert token not in caplog.text and token[8:20] not in caplog.text


def test_another_owners_bot_is_not_yours(web: TestClient) -> None:
    sign_up(web, "dan_owner")
    make_bot(web, "Dans_Bot")
    web.post("/api/account/signout")
    sign_up(web, "eve_other")
    assert web.get("/api/bots/Dans_Bot/tokens").status_code == 403
    assert web.post("/api/bots/Dans_Bot/tokens", json={"label": "mine now"}).status_code == 403
    assert web.delete("/api/bots/Dans_Bot").status_code == 403
    assert web.delete("/api/bots/Dans_Bot/tokens/1").status_code == 403


def test_a_revoked_token_closes_its_connection_at_once(web: TestClient) -> None:
    sign_up(web, "fay_owner")
    token = make_bot(web, "Revokee")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        hello(ws)
        token_id = web.get("/api/bots/Revokee/tokens").json()[0]["id"]
        assert web.delete(f"/api/bots/Revokee/tokens/{token_id}").status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_a_second_connection_replaces_the_first(web: TestClient) -> None:
    sign_up(web, "gus_owner")
    token = make_bot(web, "Twice")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as first:
        hello(first)
        with web.websocket_connect(CONNECT, headers=bearer(token)) as second:
            with pytest.raises(WebSocketDisconnect) as closed:
                first.receive_json()
            assert closed.value.code == 4409
            assert hello(second)["bot"] == "Twice"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[TestClient]:
    """The app on the real clock (a table's allowance of messages refills as time passes), with
    "Play now" waiting long for people before its own bots fill a table, and a person's seat
    allowed a whole rated game answered at once."""
    with make_client(f"sqlite:///{tmp_path / 'live.db'}", play_now_wait=600.0, **QUICK_PLAY) as client:
        yield signed(client)


def test_two_bots_seek_a_game_and_play_it_to_the_end(live: TestClient) -> None:
    web = live
    sign_up(web, "hal_owner")
    tokens = [make_bot(web, "Seeker_A"), make_bot(web, "Seeker_B")]
    with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one, \
            web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        programs = [BotProgram(one), BotProgram(two)]
        for program in programs:
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2, "variant": "standard"})
            seeking = program.until(lambda m: m["type"] == "seeking")
        code = seeking["game"]
        threads = [program.in_thread() for program in programs]
        for thread in threads:
            thread.join(60)
        assert not any(thread.is_alive() for thread in threads)
        for seat, program in enumerate(programs):
            kinds = [m["type"] for m in program.messages if m.get("game") == code]
            assert kinds[kinds.index("game-start") + 1] == "deal-start"
            assert {"decide", "turn-result", "deal-end", "game-end"} <= set(kinds)
            start = next(m for m in program.messages if m["type"] == "game-start")
            assert start["seat"] == seat and start["seats"] == ["Seeker_A", "Seeker_B"]
            # each decide shows the seat's own hand only (no hidden card of the other seat)
            decide = next(m for m in program.messages if m["type"] == "decide")
            assert decide["view"]["seat"] == seat and decide["view"]["hands"] is None
            other = next(m for m in programs[1 - seat].messages if m["type"] == "decide")
            assert not set(decide["view"]["hand"]) & set(other["view"]["hand"])
            assert not any(m["type"] == "error" for m in program.messages), [m for m in program.messages if m["type"] == "error"]
        assert programs[0].ended[code]["totals"] == programs[1].ended[code]["totals"]
        summary = web.get(f"/api/tables/{code}").json()
        assert summary["status"] == "finished"
        assert [s.get("program") for s in summary["seats"]] == [True, True]
        programs[0].ws.send_json({"type": "ping"})
        assert programs[0].until(lambda m: m["type"] == "pong")
        assert web.get("/api/bots").json()[0]["online"] is True


def test_a_person_invites_two_bots_to_a_rated_table_and_ratings_change(live: TestClient) -> None:
    web = live
    tokens = []
    for owner, bot in (("ann_owner", "Rated_A"), ("bea_owner", "Rated_B")):  # (two bots of one owner never
        maker = signed(TestClient(web.app))                                 # sit at one rated table)
        sign_up(maker, owner)
        tokens.append(make_bot(maker, bot))
    sign_up(web, "ivy_host")
    with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one, \
            web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        programs = [BotProgram(one), BotProgram(two)]
        for program in programs:
            program.hello()
        assert [b["name"] for b in web.get("/api/bots/online").json()] == ["Rated_A", "Rated_B"]
        made = create_table(web, [{"kind": "program", "name": "Rated_A"}, {"kind": "program", "name": "rated_b"}],
                            rated=True)
        assert len(made["invitations"]) == 2
        for program in programs:
            invitation = program.until(lambda m: m["type"] == "invitation")
            assert invitation["rated"] is True and invitation["from"] == "ivy_host" and invitation["game"] == made["code"]
            program.ws.send_json({"type": "accept", "invitation": invitation["invitation"]})
        threads = [program.in_thread() for program in programs]
        with web.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as person:
            first = receive_until(person, lambda m: m.get("type") in ("state", "update")
                                  and m["table"]["status"] == "playing")
            seats = first["table"]["seats"]
            assert [(s["name"], s.get("program", False)) for s in seats] == [
                ("ivy_host", False), ("Rated_A", True), ("Rated_B", True)]
            last = play_out(person, first)
        for thread in threads:
            thread.join(60)
        assert not any(thread.is_alive() for thread in threads)
        assert all(p.ended[made["code"]]["totals"] == last["view"]["totals"] for p in programs)
    for name in ("ivy_host", "Rated_A", "Rated_B"):
        ratings = web.get(f"/api/users/{name}").json()["ratings"]
        assert ratings["standard"]["games"] == 1, name
    assert not any(m["type"] == "error" for p in programs for m in p.messages)


def test_a_bot_cut_off_mid_game_reconnects_and_finishes_without_a_fault(
    live: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    web = live
    sign_up(web, "jon_owner")
    tokens = [make_bot(web, "Flaky"), make_bot(web, "Steady")]
    caplog.set_level(logging.INFO)
    with web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        steady = BotProgram(two)
        steady.hello()
        with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one:
            flaky = BotProgram(one)
            flaky.hello()
            for program in (flaky, steady):  # (one after the other: the second finds the first's table)
                program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
                code = program.until(lambda m: m["type"] == "seeking")["game"]
            thread = steady.in_thread()
            # three decisions answered, then a fourth asked and left open: the connection drops
            asked = flaky.until(lambda m: m["type"] == "decide" and len(
                [d for d in flaky.messages if d["type"] == "decide"]) == 4, answer=False)
        for _ in range(200):  # the table shows the seat away (once the server has seen the close)
            seat = web.get(f"/api/tables/{code}").json()["seats"][0]
            if not seat["connected"]:
                break
        assert seat["name"] == "Flaky" and seat["program"] is True and not seat["connected"]
        with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as again:
            back = BotProgram(again)
            assert back.hello()["games"] == [code]
            resumed = back.until(lambda m: m["type"] == "decide", answer=False)
            assert resumed["id"] == asked["id"]  # the same decision again, the same id
            assert resumed["view"]["decision"] == asked["view"]["decision"]
            kinds = [m["type"] for m in back.messages]
            assert kinds[1:3] == ["game-state", "decide"]  # one whole state, then the open decision
            state = back.messages[1]["view"]
            assert state["rows"] == server_rows(web, code) and state["hand"] == resumed["view"]["hand"]
            assert state["deal"] == asked["view"]["deal"] and state["turn"] == asked["view"]["turn"] > 0
            back.ws.send_json({"type": "move", "game": code, "id": resumed["id"],
                               "move": resumed["view"]["decision"]["options"][0]})
            back.play_games()
            thread.join(60)
            assert not thread.is_alive()
            assert back.ended[code]["totals"] == steady.ended[code]["totals"]
    assert "fault" not in caplog.text


def server_rows(web: TestClient, code: str) -> list[list[int]]:
    """The rows of the game at ``code`` as the server has them now."""
    app: Any = web.app

    async def rows() -> list[list[int]]:
        room = app.state.bot_gateway.rooms.local(code)
        return [list(row) for row in room.table.game.rows]

    assert web.portal is not None
    return web.portal.call(rows)


def _connections(web: TestClient, names: tuple[str, str]) -> tuple[Any, ...]:
    """The connections (to open) of two new bots of the signed-in person."""
    return tuple(web.websocket_connect(CONNECT, headers=bearer(make_bot(web, name))) for name in names)


def test_bad_answers_change_nothing_or_are_faults(live: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    web = live
    sign_up(web, "kim_owner")
    caplog.set_level(logging.INFO)
    one_ws, two_ws = _connections(web, ("Careful", "Sloppy"))
    with one_ws as one, two_ws as two:
        careful, sloppy = BotProgram(one), BotProgram(two)
        for program in (careful, sloppy):
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
            code = program.until(lambda m: m["type"] == "seeking")["game"]
        asked = sloppy.until(lambda m: m["type"] == "decide", answer=False)
        # a move for another game, for a decision never asked: refused, nothing changes
        sloppy.ws.send_json({"type": "move", "game": "ZZZZZ", "id": asked["id"], "move": asked["view"]["decision"]["options"][0]})
        assert sloppy.until(lambda m: m["type"] == "error")["code"] == "unknown-game"
        sloppy.ws.send_json({"type": "move", "game": code, "id": asked["id"] + 1, "move": 1})
        refused = sloppy.until(lambda m: m["type"] == "error")
        assert refused["code"] == "not-your-decision" and refused["game"] == code
        # an illegal move: a fault, logged, and the stand-in's move is played for it
        hand = asked["view"]["hand"]
        illegal = next(card for card in range(1, 105) if card not in hand)
        sloppy.ws.send_json({"type": "move", "game": code, "id": asked["id"], "move": illegal})
        fault = sloppy.until(lambda m: m["type"] == "error")
        assert fault["code"] == "illegal-move" and fault["id"] == asked["id"]
        assert "fault: illegal move" in caplog.text
        # the same decision answered again: no longer open, nothing changes
        sloppy.ws.send_json({"type": "move", "game": code, "id": asked["id"], "move": hand[0]})
        assert sloppy.until(lambda m: m["type"] == "error")["code"] == "not-your-decision"
        # the stand-in's card was played: the turn goes on when the other bot answers
        careful.until(lambda m: m["type"] == "decide")
        result = sloppy.until(lambda m: m["type"] == "turn-result", answer=False)
        mine = dict(map(tuple, result["seat_cards"]))[1]
        assert mine in hand and mine != illegal


def test_floods_are_refused_naming_the_limit(web: TestClient) -> None:
    sign_up(web, "lea_owner")
    token = make_bot(web, "Flooder")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        program = BotProgram(ws)
        program.hello(max_games=8)
        for _ in range(41):  # the burst of the token's allowance (the clock stands still)
            ws.send_json({"type": "cancel-seek", "seek": "nothing"})
        errors = [program.until(lambda m: m["type"] == "error") for _ in range(41)]
        assert errors[-1]["code"] == "rate-limited" and errors[-1]["limit"] == "messages"
        assert {e["code"] for e in errors[:39]} == {"unknown-seek"}


def test_seeks_past_the_allowance_and_games_past_the_limit_are_refused(web: TestClient) -> None:
    sign_up(web, "max_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Greedy"))) as ws:
        program = BotProgram(ws)
        assert program.hello(max_games=2)["limits"]["games"] == 2
        answers = []
        for players in (3, 4, 5):
            ws.send_json({"type": "seek", "mode": "casual", "players": players})
            answers.append(program.until(lambda m: m["type"] in ("seeking", "error")))
        assert [a["type"] for a in answers] == ["seeking", "seeking", "error"]
        assert answers[2]["code"] == "too-many-games" and answers[2]["limit"] == 2
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Eager"))) as ws:
        program = BotProgram(ws)
        program.hello(max_games=8)
        codes = []
        for _ in range(7):
            ws.send_json({"type": "seek", "mode": "casual", "players": 3})
            codes.append(program.until(lambda m: m["type"] in ("seeking", "error")))
        assert codes[-1]["code"] == "rate-limited" and codes[-1]["limit"] == "seeks"


def test_invitations_past_the_allowance_get_429(web: TestClient) -> None:
    sign_up(web, "ned_host")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Popular"))) as ws:
        program = BotProgram(ws)
        program.hello(max_games=8)
        statuses = []
        made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}]})
        for _ in range(11):
            invited = web.post(f"/api/tables/{made.json()['code']}/invite-bot",
                               json={"seat": 1, "bot": "Popular", "token": made.json()["token"]})
            statuses.append(invited)
            if invited.status_code == 200:
                invitation = program.until(lambda m: m["type"] == "invitation")
                ws.send_json({"type": "decline", "invitation": invitation["invitation"], "reason": "busy"})
        assert [s.status_code for s in statuses[:10]] == [200] * 10
        refused = statuses[-1]
        assert refused.status_code == 429 and refused.json()["params"]["limit"] == "invitations"
        assert "Retry-After" in refused.headers
        # the declined seat is open again
        assert web.get(f"/api/tables/{made.json()['code']}").json()["seats"][1]["kind"] == "open"


def test_a_deleted_bots_games_stay_replayable(live: TestClient) -> None:
    web = live
    sign_up(web, "oli_owner")
    one_ws, two_ws = _connections(web, ("Goner", "Stayer"))
    with one_ws as one, two_ws as two:
        programs = [BotProgram(one), BotProgram(two)]
        for program in programs:
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
            code = program.until(lambda m: m["type"] == "seeking")["game"]
        threads = [program.in_thread() for program in programs]
        for thread in threads:
            thread.join(60)
    game_id = web.get(f"/api/tables/{code}").json()["last_game_id"]
    assert web.delete("/api/bots/Goner").status_code == 204
    game = web.get(f"/api/games/{game_id}", params={"table": code}).json()
    assert game["seats"] == ["Deleted player", "Stayer"]
    assert web.get(f"/api/games/{game_id}/events", params={"table": code}).status_code == 200
    assert [b["name"] for b in web.get("/api/bots").json()] == ["Stayer"]


def _advance(web: TestClient, seconds: float) -> None:
    """Move the app's manual clock on, in the app's own thread (its timers run there)."""
    clock = web.app.state.bot_gateway.clock  # type: ignore[attr-defined]

    async def advance() -> None:
        clock.advance(seconds)

    web.portal.call(advance)  # type: ignore[union-attr]


def test_a_late_answer_is_a_fault_and_the_stand_in_plays(web: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    sign_up(web, "pat_owner")
    caplog.set_level(logging.INFO)
    one_ws, two_ws = _connections(web, ("Slowpoke", "Quick"))
    with one_ws as one, two_ws as two:
        slow, quick = BotProgram(one), BotProgram(two)
        for program in (slow, quick):
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
            code = program.until(lambda m: m["type"] == "seeking")["game"]
        asked = slow.until(lambda m: m["type"] == "decide", answer=False)
        quick.until(lambda m: m["type"] == "decide")  # (answered)
        assert "fault" not in caplog.text
        # (the other bot goes on answering: a row to choose, if its card is too low)
        other = threading.Thread(target=quick.until, args=(lambda m: m["type"] == "turn-result",), daemon=True)
        other.start()
        _advance(web, 10.5)  # past the bot's time per decision (the table has no timer)
        result = slow.until(lambda m: m["type"] == "turn-result", answer=False)
        other.join(30)
        assert result["game"] == code and dict(map(tuple, result["seat_cards"]))[0] in asked["view"]["hand"]
        assert "bot 'Slowpoke'" in caplog.text and "fault: no answer in time" in caplog.text
        slow.ws.send_json({"type": "move", "game": code, "id": asked["id"], "move": asked["view"]["hand"][0]})
        assert slow.until(lambda m: m["type"] == "error")["code"] == "not-your-decision"


def test_after_the_grace_the_stand_in_plays_a_dropped_bot_to_the_end(
    web: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    sign_up(web, "quin_owner")
    caplog.set_level(logging.INFO)
    dropper_token = make_bot(web, "Dropper")
    one_ws = web.websocket_connect(CONNECT, headers=bearer(dropper_token))
    two_ws = web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Stayer2")))
    with two_ws as two:
        stayer = BotProgram(two)
        with one_ws as one:
            dropper = BotProgram(one)
            for program in (dropper, stayer):
                program.hello()
                program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
                code = program.until(lambda m: m["type"] == "seeking")["game"]
            dropper.until(lambda m: m["type"] == "decide", answer=False)
        for _ in range(200):  # (once the server has seen the close)
            seat = web.get(f"/api/tables/{code}").json()["seats"][0]
            if not seat["connected"]:
                break
        assert not seat["connected"]
        thread = stayer.in_thread()
        _advance(web, 61)  # past the grace: the stand-in plays every decision of the dropped bot at once
        thread.join(60)
        assert not thread.is_alive() and code in stayer.ended
        assert "fault: away past its grace" in caplog.text
        assert web.get(f"/api/tables/{code}").json()["status"] == "finished"
    # back after the end: the game again, and its result
    with web.websocket_connect(CONNECT, headers=bearer(dropper_token)) as again:
        back = BotProgram(again)
        assert back.hello()["games"] == [code]
        end = back.until(lambda m: m["type"] == "game-end")
        assert end["game"] == code and end["totals"] == stayer.ended[code]["totals"]
        assert [m["type"] for m in back.messages][1:3] == ["game-state", "game-end"]


def test_a_token_revoked_by_another_process_closes_within_the_check(web: TestClient) -> None:
    sign_up(web, "ray_owner")
    token = make_bot(web, "Watched")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        hello(ws)
        # (as another process would: the database only, this process is not told)
        bots = web.app.state.bot_accounts  # type: ignore[attr-defined]
        owner = web.app.state.accounts.accounts.user_by_name("ray_owner")  # type: ignore[attr-defined]
        bots.revoke(owner, "Watched", bots.tokens(owner, "Watched")[0]["id"])
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # (still open: nobody has checked yet)
        _advance(web, 3.0)  # Settings.program_token_check_seconds
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_a_bot_that_leaves_is_played_by_the_stand_in_to_the_end(live: TestClient) -> None:
    web = live
    sign_up(web, "sam_owner")
    one_ws, two_ws = _connections(web, ("Quitter", "Finisher"))
    with one_ws as one, two_ws as two:
        quitter, finisher = BotProgram(one), BotProgram(two)
        for program in (quitter, finisher):
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
            code = program.until(lambda m: m["type"] == "seeking")["game"]
        quitter.until(lambda m: m["type"] == "decide", answer=False)
        quitter.ws.send_json({"type": "leave", "game": code})
        finisher.play_games()
        assert web.get(f"/api/tables/{code}").json()["status"] == "finished"
        quitter.ws.send_json({"type": "move", "game": code, "id": 1, "move": 1})
        assert quitter.until(lambda m: m["type"] == "error")["code"] == "unknown-game"
        # it left, and still hears how the game ended, once, after ``left``
        told = [m["type"] for m in quitter.messages if m["type"] in ("left", "game-end")]
        assert told == ["left", "game-end"] and quitter.ended[code] == finisher.ended[code]
        online = {b["name"]: b["games"] for b in web.get("/api/bots/online").json()}
        assert online == {"Quitter": 0, "Finisher": 0}


def test_one_bot_plays_two_games_at_once(live: TestClient) -> None:
    web = live
    sign_up(web, "tia_owner")
    tokens = {name: make_bot(web, name) for name in ("Juggler", "First_Foe", "Second_Foe")}
    with web.websocket_connect(CONNECT, headers=bearer(tokens["Juggler"])) as j, \
            web.websocket_connect(CONNECT, headers=bearer(tokens["First_Foe"])) as f1, \
            web.websocket_connect(CONNECT, headers=bearer(tokens["Second_Foe"])) as f2:
        juggler, first, second = BotProgram(j), BotProgram(f1), BotProgram(f2)
        for program in (juggler, first, second):
            program.hello(max_games=2)
        codes = []
        for foe in (first, second):  # each time the juggler opens a table and a foe joins it
            seats = []
            for program in (juggler, foe):
                program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
                seats.append(program.until(lambda m: m["type"] == "seeking")["game"])
            assert seats[0] == seats[1]
            codes.append(seats[0])
        assert codes[0] != codes[1]
        threads = [juggler.in_thread(2), first.in_thread(), second.in_thread()]
        for thread in threads:
            thread.join(60)
        assert not any(thread.is_alive() for thread in threads)
        assert set(juggler.ended) == set(codes)
        assert juggler.ended[codes[0]]["totals"] == first.ended[codes[0]]["totals"]
        assert juggler.ended[codes[1]]["totals"] == second.ended[codes[1]]["totals"]
        # every game message names its game, and each game's decisions were its own
        assert all("game" in m for m in juggler.messages if m["type"] in ("decide", "turn-result", "game-start"))
        assert not any(m["type"] == "error" for m in juggler.messages)


@pytest.mark.parametrize("variant", [v.value for v in VARIANTS])
def test_two_bots_play_every_variant(live: TestClient, variant: str) -> None:
    """Every decision kind (card, row, draft, order, keep, and the pass) goes through the gateway;
    the bots choose the last option, so a pass (0, the first option where it is one) is tried too."""
    web = live
    sign_up(web, "uma_owner")
    one_ws, two_ws = _connections(web, ("Var_One", "Var_Two"))
    with one_ws as one, two_ws as two:
        programs = [BotProgram(one, lambda view: view["decision"]["options"][-1]),
                    BotProgram(two, lambda view: view["decision"]["options"][0])]
        for program in programs:
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 2, "variant": variant})
            code = program.until(lambda m: m["type"] == "seeking")["game"]
        threads = [program.in_thread() for program in programs]
        for thread in threads:
            thread.join(120)
        assert not any(thread.is_alive() for thread in threads)
        assert programs[0].ended[code]["totals"] == programs[1].ended[code]["totals"]
        assert not any(m["type"] == "error" for p in programs for m in p.messages)


def test_a_seek_is_cancelled_while_its_table_waits(web: TestClient) -> None:
    """Even the seek that opened the table: nobody is left waiting for a bot that went."""
    sign_up(web, "vic_owner")
    one_ws, two_ws = _connections(web, ("Opener", "Canceller"))
    with one_ws as one, two_ws as two:
        opener, canceller = BotProgram(one), BotProgram(two)
        seeks = []
        for program in (opener, canceller):
            program.hello()
            program.ws.send_json({"type": "seek", "mode": "casual", "players": 3})
            seeks.append(program.until(lambda m: m["type"] == "seeking"))
        code = seeks[0]["game"]
        assert seeks[1]["game"] == code
        for program, seek in ((opener, seeks[0]), (canceller, seeks[1])):
            program.ws.send_json({"type": "cancel-seek", "seek": seek["seek"]})
            assert program.until(lambda m: m["type"] in ("seek-cancelled", "error")) == {
                "type": "seek-cancelled", "seek": seek["seek"], "game": code}
        assert [s["kind"] for s in web.get(f"/api/tables/{code}").json()["seats"]] == ["open"] * 3
        canceller.ws.send_json({"type": "cancel-seek", "seek": seeks[1]["seek"]})
        assert canceller.until(lambda m: m["type"] == "error")["code"] == "unknown-seek"
        _advance(web, 6.0)  # past Play now's wait: a table nobody sits at does not start
        assert web.get(f"/api/tables/{code}").json()["status"] == "waiting"
        opener.ws.send_json({"type": "ping"})
        opener.until(lambda m: m["type"] == "pong")
        assert not any(m["type"] == "game-start" for m in opener.messages + canceller.messages)


def test_a_connection_replaced_mid_game_resumes_it_and_the_seat_stays_one(live: TestClient) -> None:
    web = live
    sign_up(web, "wes_owner")
    token = make_bot(web, "Restless")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Patient"))) as two:
        patient = BotProgram(two)
        patient.hello()
        with web.websocket_connect(CONNECT, headers=bearer(token)) as first:
            restless = BotProgram(first)
            restless.hello()
            for program in (restless, patient):
                program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
                code = program.until(lambda m: m["type"] == "seeking")["game"]
            thread = patient.in_thread()
            asked = restless.until(lambda m: m["type"] == "decide", answer=False)
            with web.websocket_connect(CONNECT, headers=bearer(token)) as second:  # (the first not closed yet)
                again = BotProgram(second)
                assert again.hello()["games"] == [code]
                resumed = again.until(lambda m: m["type"] == "decide", answer=False)
                assert resumed["id"] == asked["id"]
                seat = web.get(f"/api/tables/{code}").json()["seats"][0]
                assert seat["connected"]
                again.ws.send_json({"type": "move", "game": code, "id": resumed["id"],
                                    "move": resumed["view"]["decision"]["options"][0]})
                again.until(lambda m: m["type"] == "decide", answer=False)
            # the only connection is gone: the seat is away (it was held once, not twice)
            for _ in range(200):
                seat = web.get(f"/api/tables/{code}").json()["seats"][0]
                if not seat["connected"]:
                    break
            assert not seat["connected"]
        with web.websocket_connect(CONNECT, headers=bearer(token)) as third:
            last = BotProgram(third)
            last.hello()
            last.play_games()
        thread.join(60)
        assert not thread.is_alive() and last.ended[code]["totals"] == patient.ended[code]["totals"]


def test_the_history_marks_a_bot_programs_seat_and_a_server_bots_seat(live: TestClient) -> None:
    """Every answer the history, replay and review pages read says, per seat, whether a bot played
    it: a server bot's level, "program" for a bot program, None for a person; and a deleted bot's
    seat stays a bot under the neutral name."""
    web = live
    sign_up(web, "pia_host")
    token = make_bot(web, "Marked_Bot")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        program = BotProgram(ws)
        program.hello()
        made = create_table(web, [{"kind": "program", "name": "Marked_Bot"}, {"kind": "bot", "bot": "easy"}],
                            public=True, target=10)
        invitation = program.until(lambda m: m["type"] == "invitation")
        ws.send_json({"type": "accept", "invitation": invitation["invitation"]})
        thread = program.in_thread()
        with web.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as person:
            play_out(person, receive_until(person, lambda m: m.get("type") in ("state", "update")
                                           and m["table"]["status"] == "playing"))
        thread.join(60)
        assert not thread.is_alive()
    game_id = web.get(f"/api/tables/{made['code']}").json()["last_game_id"]
    marks = [None, "program", "easy"]
    listed = next(g for g in web.get("/api/games").json() if g["id"] == game_id)
    assert listed["seats"][:2] == ["pia_host", "Marked_Bot"] and listed["bots"] == marks
    game = web.get(f"/api/games/{game_id}").json()
    assert game["bots"] == marks
    assert [(p["kind"], p.get("program", False)) for p in game["deal_players"][0]] == [
        ("human", False), ("human", True), ("bot", False)]
    assert web.get(f"/api/games/{game_id}/events").json()["bots"] == marks
    mine = next(g for g in web.get("/api/account/games").json() if g["id"] == game_id)
    assert mine["bots"] == marks and mine["seat"] == 0
    # nothing private comes with the mark: no account id, owner or token of the bot
    assert not {"account", "owner", "token", "token_hash"} & {k for p in game["deal_players"][0] for k in p}
    assert web.delete("/api/bots/Marked_Bot").status_code == 204
    after = web.get(f"/api/games/{game_id}/events").json()
    assert after["seats"][1] == "Deleted player" and after["bots"] == marks
    assert after["deal_players"][0][1]["name"] == "Deleted player"


def test_pending_invitations_do_not_fill_a_bots_games(web: TestClient) -> None:
    """(#53) Strangers' invitations waiting for an answer are not games: the bot still seeks, and
    it is accepting one past its limit that is refused."""
    sign_up(web, "pia_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Popular"))) as ws:
        program = BotProgram(ws)
        program.hello(max_games=1)
        for _ in range(3):  # three tables invite it, and it answers none yet
            table = create_table(web, [{"kind": "open"}])
            invited = web.post(f"/api/tables/{table['code']}/invite-bot",
                               json={"seat": 1, "bot": "Popular", "token": table["token"]})
            assert invited.status_code == 200, invited.text
        invitations = [program.until(lambda m: m["type"] == "invitation") for _ in range(3)]
        ws.send_json({"type": "seek", "mode": "casual", "players": 3})
        assert program.until(lambda m: m["type"] in ("seeking", "error"))["type"] == "seeking"
        ws.send_json({"type": "accept", "invitation": invitations[0]["invitation"]})
        refused = program.until(lambda m: m["type"] == "error")
        assert refused["code"] == "too-many-games"


def test_play_now_never_seats_a_person_with_their_own_bot_at_a_rated_table(web: TestClient) -> None:
    """(#53) A bot's rated seek opens a table; its owner's rated Play now does not join it."""
    sign_up(web, "quin_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Quinbot"))) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json({"type": "seek", "mode": "rated", "players": 2})
        seeking = program.until(lambda m: m["type"] in ("seeking", "error"))
        assert seeking["type"] == "seeking", seeking
        mine = web.post("/api/play-now", json={"mode": "rated", "players": 2})
        assert mine.status_code == 200, mine.text
        assert mine.json()["code"] != seeking["game"] and mine.json()["opened"] is True
        stranger = signed(TestClient(web.app))
        sign_up(stranger, "rex_player")
        theirs = stranger.post("/api/play-now", json={"mode": "rated", "players": 2})
        assert theirs.status_code == 200 and theirs.json()["opened"] is False  # a stranger meets either
