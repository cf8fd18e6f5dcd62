"""Moderation over HTTP and at the operator's command line (docs/web.md, "Moderation"): reports reach
the operator's list with their context and have budgets; an account's blocks hide the blocked
player's chat and refuse their invitations; a ban ends the account's sessions, refuses its sign-in
and takes its bots offline; a voided rated game leaves every rating as if it had not been played;
every action is in the moderation log, and nothing of it reaches anyone but the moderators."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from sixnimmt.cli import run
from sixnimmt.server.accounts.account_rows import RatingRow
from sixnimmt.server.accounts.users import AccountError, Accounts
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.moderation.blocking import BLOCKS_PER_HOUR, Blocks
from sixnimmt.server.moderation.reports import REPORTS_PER_ADDRESS_PER_DAY, Report
from sixnimmt.server.moderation.sanctions import Moderation
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import GameRow
from sixnimmt.server.tables.shield import keeps_apart

from .conftest import fresh_postgres_url, make_client
from .helpers import receive_until
from .test_accounts import PASSWORD, sign_up, signed
from .test_ratings import _archive, _rated_table_row, finished_game

COOKIE = "sixnimmt_session"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'moderation.db'}"


@pytest.fixture
def web(url: str) -> Iterator[TestClient]:
    with make_client(url, ManualClock()) as client:
        yield signed(client)


def people(web: TestClient, *names: str) -> dict[str, str]:
    """Sign each up; returns each one's session cookie (set one to act as that person)."""
    cookies = {}
    for name in names:
        web.cookies.clear()
        sign_up(web, name)
        cookies[name] = str(web.cookies.get(COOKIE))
    web.cookies.clear()
    return cookies


def as_(web: TestClient, cookie: str) -> TestClient:
    web.cookies.clear()
    web.cookies.set(COOKIE, cookie)
    return web


def admin(url: str, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = run(["admin", "--database-url", url, *args])
    out, err = capsys.readouterr()
    return status, out, err


def table_of(web: TestClient, host: str, guest: str) -> tuple[str, str, str]:
    """A table ``host`` opens and ``guest`` joins (both signed in): its code and their seat tokens."""
    as_(web, host)
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}, {"kind": "bot"}]})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    as_(web, guest)
    joined = web.post(f"/api/tables/{code}/join", json={"name": "y"})
    assert joined.status_code == 200, joined.text
    return code, made.json()["token"], joined.json()["token"]


def heard(ws: Any) -> list[str]:
    """The chat lines a socket receives until the answer to a ping (all that was sent before it)."""
    ws.send_json({"type": "ping"})
    lines = []
    while (message := ws.receive_json())["type"] != "pong":
        if message["type"] == "chat":
            lines.append(message.get("text", message.get("emoji")))
    return lines


# ---------------------------------------------------------------------- reports


def test_a_report_reaches_the_operators_list_with_the_chat_lines(web: TestClient, url: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    who = people(web, "Alice", "Bob", "Carol")
    code, bob_token, _alice_token = table_of(web, who["Bob"], who["Alice"])
    with web.websocket_connect(f"/ws/{code}?token={bob_token}") as bob:
        receive_until(bob, lambda m: m["type"] == "state")
        bob.send_json({"type": "chat", "text": "you play like a potato"})
        line = receive_until(bob, lambda m: m["type"] == "chat")
    reported = as_(web, who["Alice"]).post("/api/reports", json={
        "reason": "abuse", "place": "chat", "table": code, "seat": 0, "line": line["id"], "note": "rude"})
    assert reported.status_code == 201, reported.text
    assert reported.json() == {"report": 1}  # (nothing of the context comes back)
    # the operator's list, and the report with its chat line
    status, out, _ = admin(url, "reports", capsys=capsys)
    assert status == 0 and "#1" in out and "'Bob'" in out and "abuse" in out and "by Alice" in out
    status, out, _ = admin(url, "report", "1", capsys=capsys)
    assert status == 0 and "> [1] Bob: you play like a potato" in out
    # a moderator sees the same on the admin page; nobody else sees the page at all
    for path in ("/api/admin/reports", "/api/admin/reports/1", "/api/admin/log", "/api/admin/me"):
        assert as_(web, who["Alice"]).get(path).status_code == 404, path  # (not even that the page exists)
    web.cookies.clear()
    assert web.get("/api/admin/reports/1").status_code == 404
    assert admin(url, "moderator", "Carol", "--reason", "club moderator", capsys=capsys)[0] == 0
    page = as_(web, who["Carol"]).get("/api/admin/reports/1").json()
    assert page["target"] == "Bob" and [c["text"] for c in page["context"]["chat"]] == ["you play like a potato"]
    assert page["context"]["line"] == line["id"]
    resolved = web.post("/api/admin/reports/1/resolve", json={"reason": "warned Bob"})
    assert resolved.status_code == 200, resolved.text
    assert web.get("/api/admin/reports").json() == []
    assert admin(url, "resolve", "1", "--reason", "again", capsys=capsys)[2].strip() == (
        "sixnimmt admin resolve: report 1 is resolved already")
    log = web.get("/api/admin/log").json()
    assert [(e["actor"], e["action"], e["reason"]) for e in log] == [
        ("Carol", "resolve", "warned Bob"), ("operator", "moderator", "club moderator")]


def test_reports_have_budgets_and_refuse_bad_input(web: TestClient) -> None:
    who = people(web, "Alice", "Bob")
    as_(web, who["Alice"])
    assert web.post("/api/reports", json={"reason": "abuse", "place": "profile", "name": "Bob"}).status_code == 201
    again = web.post("/api/reports", json={"reason": "spam", "place": "profile", "name": "Bob"})
    assert again.status_code == 429 and again.json()["code"] == "report-again"
    # listed in the account settings, and taken back there (it still counts in the budget)
    mine = web.get("/api/account/reports").json()
    assert [(r["target"], r["reason"], r["open"]) for r in mine] == [("Bob", "abuse", True)]
    assert web.delete(f"/api/account/reports/{mine[0]['id']}").status_code == 200
    assert web.get("/api/account/reports").json()[0]["open"] is False
    assert web.delete(f"/api/account/reports/{mine[0]['id']}").json()["code"] == "report-resolved"
    assert web.delete("/api/account/reports/999").json()["code"] == "no-report"
    bad = web.post("/api/reports", json={"reason": "ugly", "place": "profile", "name": "Bob"})
    assert bad.status_code == 422 and bad.json()["code"] == "report-reason"
    nobody = web.post("/api/reports", json={"reason": "abuse", "place": "profile", "name": "Nobody"})
    assert nobody.status_code == 404 and nobody.json()["code"] == "no-player"
    assert web.post("/api/reports", json={"reason": "abuse", "place": "profile", "name": "Alice"}).json()["code"] == (
        "report-self")
    assert web.post("/api/reports", json={"reason": "abuse", "place": "profile"}).json()["code"] == "report-whom"
    assert web.post("/api/reports", json={"reason": "abuse", "place": "x", "name": "Bob", "seat": 99}).status_code == 422
    # anonymous players share their address's budget (Alice's report above counts): a flood is
    # refused, not kept
    web.cookies.clear()
    for _ in range(REPORTS_PER_ADDRESS_PER_DAY - 1):
        assert web.post("/api/reports", json={"reason": "spam", "place": "profile", "name": "Bob"}).status_code == 201
    flood = web.post("/api/reports", json={"reason": "spam", "place": "profile", "name": "Bob"})
    assert flood.status_code == 429 and flood.json()["code"] == "rate-limited"


# ---------------------------------------------------------------------- blocks


def test_a_blocked_players_chat_does_not_reach_the_blocker_and_their_invitation_is_refused(web: TestClient) -> None:
    who = people(web, "Alice", "Bob", "Carol")
    blocked = as_(web, who["Alice"]).post("/api/account/blocks", json={"name": "bob"})
    assert blocked.status_code == 201 and blocked.json() == {"name": "Bob"}
    assert [b["name"] for b in web.get("/api/account/blocks").json()] == ["Bob"]
    code, bob_token, alice_token = table_of(web, who["Bob"], who["Alice"])
    with web.websocket_connect(f"/ws/{code}?token={alice_token}") as alice, \
            web.websocket_connect(f"/ws/{code}?token={bob_token}") as bob:
        receive_until(alice, lambda m: m["type"] == "state")
        receive_until(bob, lambda m: m["type"] == "state")
        bob.send_json({"type": "chat", "text": "hello there"})
        bob.send_json({"type": "react", "emoji": "👍"})
        assert heard(bob) == ["hello there", "👍"]
        alice.send_json({"type": "chat", "text": "hi"})
        assert heard(alice) == ["hi"]  # Bob's line and reaction never came
        assert "hi" in heard(bob)
    # Bob's invitation of Alice's bot is refused; Carol's reaches it (offline here, so she is told that)
    as_(web, who["Alice"]).post("/api/bots", json={"name": "AliceBot"}).raise_for_status()
    as_(web, who["Bob"])
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}]}).json()
    refused = web.post(f"/api/tables/{made['code']}/invite-bot", json={"seat": 1, "bot": "AliceBot",
                                                                       "token": made["token"]})
    assert refused.status_code == 403 and refused.json()["code"] == "blocked"
    as_(web, who["Carol"])
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}]}).json()
    asked = web.post(f"/api/tables/{made['code']}/invite-bot", json={"seat": 1, "bot": "AliceBot",
                                                                     "token": made["token"]})
    assert asked.json()["code"] == "bot-offline"
    # undone in the account settings
    as_(web, who["Alice"])
    assert web.delete("/api/account/blocks/Bob").status_code == 200
    assert web.get("/api/account/blocks").json() == []
    assert web.delete("/api/account/blocks/Bob").json()["code"] == "not-blocked"
    assert web.post("/api/account/blocks", json={"name": "Alice"}).json()["code"] == "block-self"


def test_blocks_have_a_budget_and_keep_players_apart_both_ways(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'blocks.db'}")
    store.migrate()
    accounts = Accounts(store)
    me, *others = [accounts.create(f"Player{i}", "not-a-real-hash").id for i in range(BLOCKS_PER_HOUR + 2)]
    blocks = Blocks(store.engine)
    start = dt.datetime(2026, 12, 4, 12, 0)
    for other in others[:BLOCKS_PER_HOUR]:
        blocks.add(me, other, start)
    with pytest.raises(AccountError, match="an hour"):
        blocks.add(me, others[-1], start + dt.timedelta(minutes=59))
    blocks.add(me, others[-1], start + dt.timedelta(minutes=61))
    assert blocks.blocked_by(me) == frozenset(others)
    pairs = blocks.pairs_among({me, others[0], others[1]})
    assert keeps_apart(pairs, [others[0]], [me]) and keeps_apart(pairs, [me], [others[1]])
    assert not keeps_apart(pairs, [others[0]], [others[1]])
    store.close()


# ---------------------------------------------------------------------- bans


def test_a_banned_account_cannot_sign_in_or_play_its_sessions_end_and_its_bots_go_offline(
        web: TestClient, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    who = people(web, "Bob", "Carol", "Dave")
    as_(web, who["Bob"]).post("/api/bots", json={"name": "BobBot"}).raise_for_status()
    token = web.post("/api/bots/BobBot/tokens", json={"label": "laptop"}).json()["token"]
    admin(url, "moderator", "Carol", "--reason", "club moderator", capsys=capsys)
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}, {"kind": "bot"}]}).json()
    headers = {"Authorization": f"Bearer {token}"}
    with web.websocket_connect("/api/bot/v1/connect", headers=headers) as bot, \
            web.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as seat:
        bot.send_json({"type": "hello", "protocol": 2, "client": "test/1"})
        receive_until(bot, lambda m: m["type"] == "welcome")
        receive_until(seat, lambda m: m["type"] == "state")
        banned = as_(web, who["Carol"]).post("/api/admin/ban", json={"name": "Bob", "length": "7d",
                                                                     "reason": "abuse in chat"})
        assert banned.status_code == 200 and banned.json()["tokens"] == 1
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(50):
                bot.receive_json()
        assert closed.value.code == 4401  # its bot is offline at once
        assert receive_until(seat, lambda m: m["type"] == "error")["code"] == "account-banned"
        with pytest.raises(WebSocketDisconnect):
            for _ in range(50):
                seat.receive_json()  # and its seat's socket closed
    with web.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as seat:
        assert seat.receive_json()["code"] == "account-banned"  # its seat may not be taken up again
    with pytest.raises(WebSocketDisconnect), web.websocket_connect("/api/bot/v1/connect", headers=headers) as again:
        again.receive_json()  # and its token no longer connects
    assert as_(web, who["Bob"]).get("/api/account").json() == {"user": None}  # the session ended
    web.cookies.clear()
    refused = web.post("/api/account/signin", json={"name": "Bob", "password": PASSWORD})
    assert refused.status_code == 403 and refused.json()["code"] == "account-banned"
    wrong = web.post("/api/account/signin", json={"name": "Bob", "password": "not the password"})
    assert wrong.json()["code"] == "account-signin-failed"  # (the ban is told only to whoever knows the password)
    # at the command line, on the database: the same for Dave, at once
    assert admin(url, "ban", "Dave", "--for", "2w", "--reason", "spam", capsys=capsys)[0] == 0
    assert as_(web, who["Dave"]).get("/api/account").json() == {"user": None}
    assert admin(url, "unban", "Bob", "--reason", "appeal granted", capsys=capsys)[0] == 0
    web.cookies.clear()
    assert web.post("/api/account/signin", json={"name": "Bob", "password": PASSWORD}).status_code == 200
    _status, out, _ = admin(url, "log", capsys=capsys)
    assert [line.split(" ", 1)[1] for line in out.splitlines()] == [
        "operator: unban Bob: appeal granted", "operator: ban Dave: spam", "Carol: ban Bob: abuse in chat",
        "operator: moderator Carol: club moderator"]


def test_admin_refuses_bad_input_in_one_line(web: TestClient, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    who = people(web, "Carol")
    admin(url, "moderator", "Carol", "--reason", "club moderator", capsys=capsys)
    assert admin(url, "ban", "Nobody", "--reason", "x", capsys=capsys)[1:] == (
        "", "sixnimmt admin ban: no account named 'Nobody'\n")
    assert admin(url, "ban", "Carol", "--for", "soon", "--reason", "x", capsys=capsys)[2].startswith(
        "sixnimmt admin ban: 'soon' is no duration")
    assert admin(url, "ban-address", "300.1.1.1", "--reason", "x", capsys=capsys)[2] == (
        "sixnimmt admin ban-address: '300.1.1.1' is not an IP address\n")
    assert admin(url, "void", "99", "--reason", "x", capsys=capsys)[2] == (
        "sixnimmt admin void: game 99 is not a rated game\n")
    assert admin(url, "rename", "Carol", "x", "--reason", "x", capsys=capsys)[0] == 1
    as_(web, who["Carol"])
    assert web.post("/api/admin/ban", json={"name": "Carol", "length": "1y", "reason": "x"}).json()["code"] == (
        "bad-duration")
    assert web.post("/api/admin/ban", json={"name": "Carol", "reason": " "}).json()["code"] == "reason-missing"
    assert web.post("/api/admin/ban", json={"reason": "x"}).json()["code"] == "ban-whom"


def test_a_banned_address_is_refused_at_the_door(web: TestClient, url: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert web.get("/api/tables").status_code == 200
    moderation = Moderation(web.app.state.store.engine)  # type: ignore[attr-defined]
    moderation.ban_address("operator", "127.0.0.1", dt.timedelta(days=1), "flood")
    web.app.state.address_gate.forget()  # type: ignore[attr-defined]
    assert web.get("/api/tables").status_code == 200  # (the test client's address is "testclient")
    admin(url, "ban-address", "::1", "--reason", "flood", capsys=capsys)
    assert moderation.banned_addresses() == frozenset({"127.0.0.1", "::1"})


def test_a_forced_rename_frees_the_old_name(web: TestClient, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    people(web, "Rude_Name")
    status, out, _ = admin(url, "rename", "rude_name", "Player_7", "--reason", "offensive name", capsys=capsys)
    assert status == 0 and out == "Rude_Name is now Player_7\n"
    web.cookies.clear()
    assert web.post("/api/account/signin", json={"name": "Player_7", "password": PASSWORD}).status_code == 200
    assert web.get("/api/users/Rude_Name").status_code == 404


# ---------------------------------------------------------------------- voiding a rated game


#: Who plays each rated game (indexes into the accounts): overlapping tables, so a voided game's
#: players carry its effect into later games with others.
GAMES = [(0, 1, 2), (2, 3, 4), (0, 3, 5), (1, 4, 5, 0), (2, 5), (6, 1, 3)]
VOIDED = 2  # players 0, 3 and 5; player 6 plays only the last game


def _rated_history(url: str, skip: int | None) -> tuple[Store, list[int], list[int]]:
    """A store with the rated games of :data:`GAMES` but ``skip``: the store, the accounts, the games."""
    store = Store(url)
    store.migrate()
    accounts = Accounts(store)
    ids = [accounts.create(f"Rated{i}", "not-a-real-hash").id for i in range(7)]
    game_ids = []
    for n, seats in enumerate(GAMES):
        if n == skip:
            continue
        game = finished_game(len(seats), seed=100 + n)
        data = _rated_table_row(store, f"R{n}", [ids[i] for i in seats], game)
        game_ids.append(_archive(store, data, game))
    return store, ids, game_ids


def _ratings(store: Store) -> dict[int, tuple[float, float, int]]:
    with Session(store.engine) as session:
        return {r.user_id: (r.mu, r.sigma, r.games) for r in session.scalars(select(RatingRow))}


def test_a_voided_rated_game_leaves_every_rating_as_if_it_had_not_been_played(database_url: str, tmp_path: Path) -> None:
    played, ids, game_ids = _rated_history(database_url, None)
    before = _ratings(played)
    Moderation(played.engine).void("operator", game_ids[VOIDED], "thrown game")
    other = f"sqlite:///{tmp_path / 'never.db'}" if database_url.startswith("sqlite") else fresh_postgres_url()
    never, _, _ = _rated_history(other, VOIDED)
    after, expected = _ratings(played), _ratings(never)
    assert after.keys() == expected.keys()
    for account, (mu, sigma, games) in expected.items():
        assert after[account][0] == pytest.approx(mu, abs=1e-9)
        assert after[account][1] == pytest.approx(sigma, abs=1e-9)
        assert after[account][2] == games
    # a player of the voided game has one game less; one who only met its players later, as many
    # games as before, and another rating
    assert after[ids[0]][2] == before[ids[0]][2] - 1
    assert after[ids[1]][2] == before[ids[1]][2] and after[ids[1]][:2] != before[ids[1]][:2]
    with pytest.raises(AccountError, match="voided already"):
        Moderation(played.engine).void("operator", game_ids[VOIDED], "again")
    entry = Moderation(played.engine).log()[0]
    assert (entry["action"], entry["target"], entry["reason"]) == ("void", f"game {game_ids[VOIDED]}", "thrown game")
    # a report from a finished game keeps the game's record
    reports = Moderation(played.engine).reports
    number = reports.file(Report("throwing", "game", "lost on purpose", game=game_ids[0], seat=1), ids[0], "10.0.0.1")
    shown = reports.shown(number)
    assert shown["target"] == "P1" and shown["context"]["game"]["record"]["seats"] == ["P0", "P1", "P2"]
    played.close()
    never.close()


def test_play_now_seats_blocked_players_apart_where_there_is_a_choice(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'now.db'}", play_now_wait=600.0) as web:
        signed(web)
        who = people(web, "Alice", "Bob", "Carol")
        as_(web, who["Alice"]).post("/api/account/blocks", json={"name": "Bob"}).raise_for_status()
        first = web.post("/api/play-now", json={"mode": "casual", "players": 3}).json()
        second = as_(web, who["Bob"]).post("/api/play-now", json={"mode": "casual", "players": 3}).json()
        assert second["code"] != first["code"] and second["opened"] is True  # Bob is offered his own table
        third = as_(web, who["Carol"]).post("/api/play-now", json={"mode": "casual", "players": 3}).json()
        assert third["code"] in (first["code"], second["code"]) and third["opened"] is False


def test_a_forced_rename_reaches_the_accounts_finished_games(tmp_path: Path) -> None:
    store, ids, game_ids = _rated_history(f"sqlite:///{tmp_path / 'names.db'}", None)
    Moderation(store.engine).rename("operator", "Rated1", "Nice_1", "offensive name")
    with Session(store.engine) as session:
        for game_id, seats in zip(game_ids, GAMES):
            game = session.get(GameRow, game_id)
            assert game is not None
            expected = ["Nice_1" if ids[player] == ids[1] else f"P{i}" for i, player in enumerate(seats)]
            assert game.seats == expected and game.record["seats"] == expected
    assert Moderation(store.engine).log()[0]["detail"] == {"to": "Nice_1", "games": 3}
    store.close()


@pytest.mark.asyncio
async def test_the_address_gate_refuses_a_banned_address_and_reads_the_bans_again_in_time() -> None:
    import httpx

    from sixnimmt.server.moderation.address_gate import REFRESH_SECONDS, AddressBans, AddressGate

    async def game(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    clock = ManualClock()
    banned = {"10.0.0.9"}
    bans = AddressBans(clock.now)
    bans.load = lambda: frozenset(banned)
    gate = AddressGate(game, bans)

    async def get(address: str, path: str = "/api/tables") -> httpx.Response:
        transport = httpx.ASGITransport(app=gate, client=(address, 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path)

    refused = await get("10.0.0.9")
    assert refused.status_code == 403 and refused.json()["code"] == "address-banned"
    assert (await get("10.0.0.8")).status_code == 200
    assert (await get("10.0.0.9", "/")).status_code == 200  # (the page itself; only the game's doors)
    banned.clear()
    assert (await get("10.0.0.9")).status_code == 403  # read again only after a while
    clock.advance(REFRESH_SECONDS)
    assert (await get("10.0.0.9")).status_code == 200
