"""Tournaments on the server (issue #58): Swiss rounds of people and server bots at ordinary tables,
and duplicate rounds in which every table plays the same shuffle. People enter, find their table
and play through the HTTP and WebSocket API as the browser does; the clock is the app's own
(a :class:`ManualClock`), moved by hand."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock

from .bot_clients import BotProgram
from .conftest import make_client
from .helpers import play_out, receive_until
from .test_accounts import sign_up, signed
from .test_bot_api import CONNECT, bearer, make_bot

pytestmark = pytest.mark.timeout(300)

GRACE = 5.0


@pytest.fixture
def web(database_url: str) -> Iterator[TestClient]:
    with make_client(database_url, ManualClock(), absent_grace=GRACE, signup_burst=50,
                     rate_per_second=1000.0, rate_burst=1000) as client:
        yield signed(client)


def _in_app(web: TestClient, step: Any) -> Any:
    assert web.portal is not None
    return web.portal.call(step)


def _advance(web: TestClient, seconds: float) -> None:
    """Move the app's clock on, let the moves it made due land, and let the director look once."""
    app: Any = web.app
    rooms = app.state.rooms

    async def advance() -> None:
        rooms.clock.advance(seconds)
        for room in list(rooms._rooms.values()):
            await room.scheduler.settle()
        await app.state.director.tick()

    _in_app(web, advance)


class Person:
    """A signed-in person's browser: the app's own test client (one event loop for every request)
    with that person's session cookie."""

    def __init__(self, web: TestClient, name: str) -> None:
        self.web = web
        self.name = name
        web.cookies.clear()
        sign_up(web, name)
        self.session = web.cookies.get("sixnimmt_session")
        web.cookies.clear()

    def __enter__(self) -> TestClient:
        self.web.cookies.set("sixnimmt_session", str(self.session))
        return self.web

    def __exit__(self, *_: object) -> None:
        self.web.cookies.clear()

    def get(self, url: str) -> Any:
        with self as browser:
            return browser.get(url)

    def post(self, url: str, json: Any = None) -> Any:
        with self as browser:
            return browser.post(url, json=json)


def _person(web: TestClient, name: str) -> Person:
    return Person(web, name)


def _join(person: Person, web: TestClient, code: str) -> Any:
    """The person takes their seat at ``code``, trying again (as the page does) while the server
    says the table is unavailable for now."""
    for _ in range(20):
        joined = person.post(f"/api/tables/{code}/join", json={"name": person.name})
        if joined.status_code != 503:
            break
        _advance(web, 0.0)
    assert joined.status_code == 200, joined.text
    return joined


def _play_my_table(person: Person, web: TestClient, tournament_id: int) -> None:
    """The person opens the tournament's page, goes to their table, takes their seat and plays the
    game out (the other people there are away: the stand-in plays for them after the grace)."""
    page = person.get(f"/api/tournaments/{tournament_id}").json()
    code = page["your_table"]
    assert code is not None
    joined = _join(person, web, code)
    with web.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as ws:
        first = receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None)
        _advance(web, GRACE + 1)  # the absent are played for from now on
        play_out(ws, first)


def _run_round(web: TestClient, tournament_id: int, player: Person | None) -> dict[str, Any]:
    before = web.get(f"/api/tournaments/{tournament_id}").json()["round"]
    if player is not None:
        _play_my_table(player, web, tournament_id)
    for _ in range(400):
        page = web.get(f"/api/tournaments/{tournament_id}").json()
        if page["round"] > before or page["status"] == "finished":
            return dict(page)
        _advance(web, 2.0)
    raise AssertionError(f"round {before} never ended: {page}")


def _until_away(web: TestClient, code: str, seat: int) -> None:
    """Wait (a bounded number of looks, no clock) until the server has seen the seat's socket close."""
    app: Any = web.app
    rooms = app.state.rooms

    async def connected() -> int:
        room = rooms.local(code)
        return 0 if room is None else int(room.table.seats[seat].connections)

    for _ in range(500):
        if not _in_app(web, connected):
            return
        _advance(web, 0.0)
    raise AssertionError("the server never saw the socket close")


def _placement(totals: list[int]) -> list[float]:
    """Placement points worked out by hand: one for each player with more bullheads, half a tie."""
    return [sum(1.0 if other > mine else 0.5 if other == mine else 0.0
                for j, other in enumerate(totals) if j != i) for i, mine in enumerate(totals)]


def _pairs(table: list[str | None]) -> set[frozenset[str]]:
    return {frozenset(p) for p in combinations([n for n in table if n is not None], 2)}


def _fewest_repeats(names: list[str], met: dict[frozenset[str], int], size: int) -> int:
    """The fewest repeat meetings any split of ``names`` into tables of ``size`` has (every split)."""
    best = None

    def split(rest: list[str], tables: list[list[str]]) -> None:
        nonlocal best
        if not rest:
            cost = sum(met.get(frozenset(p), 0) for t in tables for p in combinations(t, 2))
            best = cost if best is None else min(best, cost)
            return
        first = rest[0]
        for mates in combinations(rest[1:], size - 1):
            left = [n for n in rest[1:] if n not in mates]
            split(left, [*tables, [first, *mates]])

    split(names, [])
    assert best is not None
    return best


def test_a_swiss_tournament_of_people_and_bots_at_four_player_tables(web: TestClient) -> None:
    people = ["ada", "bea", "cyd", "dov"]
    browsers = {name: _person(web, name) for name in people}
    levels = ["easy", "medium", "easy", "medium", "easy", "medium", "easy", "medium"]
    made = browsers["ada"].post("/api/tournaments", json={
        "name": "Friday Swiss", "format": "swiss", "players": 4, "rounds": 3, "deals": 1,
        "starts_in": 60, "bots": levels})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for name in people[1:]:
        assert browsers[name].post(f"/api/tournaments/{tid}/join").status_code == 200
    listed = web.get("/api/tournaments").json()
    assert [t["id"] for t in listed["upcoming"]] == [tid] and listed["upcoming"][0]["entrants"] == 12
    late = web.post(f"/api/tournaments/{tid}/join")
    assert late.status_code == 401  # (not signed in)

    _advance(web, 30)
    assert web.get(f"/api/tournaments/{tid}").json()["status"] == "upcoming"  # not yet its time
    _advance(web, 31)
    page = web.get(f"/api/tournaments/{tid}").json()
    assert page["status"] == "running" and page["round"] == 1
    assert browsers["bea"].post(f"/api/tournaments/{tid}/join").status_code == 409  # entries closed
    # the first round is seated by rating: everyone is new, so by when they entered (bots first)
    first = page["rounds_played"][0]["tables"]
    assert [len(t["players"]) for t in first] == [4, 4, 4]

    for number, name in enumerate(["ada", "bea", "cyd"], start=1):
        page = _run_round(web, tid, browsers[name])
        assert page["round"] == min(number + 1, 3) or page["status"] == "finished"
    assert page["status"] == "finished"

    # every table's game was played to its end: the people away were played for and scored
    rounds = [[t["players"] for t in r["tables"]] for r in page["rounds_played"]]
    totals = [[t["totals"] for t in r["tables"]] for r in page["rounds_played"]]
    assert all(t is not None and len(t) == 4 for r in totals for t in r)
    names = sorted(e["name"] for e in page["entrants"])
    assert len(names) == 12

    # pairings: each round repeats no more meetings than the best split of the twelve could
    met: dict[frozenset[str], int] = {}
    for tables in rounds:
        repeats = sum(met.get(p, 0) for t in tables for p in _pairs(t))
        assert repeats == _fewest_repeats(names, met, 4)
        for t in tables:
            for p in _pairs(t):
                met[p] = met.get(p, 0) + 1

    # standings by hand: placement points, then Buchholz (the final points of every table-mate),
    # then fewer bullheads, then the seeding order (the first round's table order, seat order)
    points = dict.fromkeys(names, 0.0)
    bullheads = dict.fromkeys(names, 0)
    mates: dict[str, list[str]] = {n: [] for n in names}
    for tables, scores in zip(rounds, totals, strict=True):
        for seats, table_totals in zip(tables, scores, strict=True):
            for name, placed, taken in zip(seats, _placement(table_totals), table_totals, strict=True):
                points[name] += placed
                bullheads[name] += taken
                mates[name] += [m for m in seats if m != name]
    buchholz = {n: sum(points[m] for m in mates[n]) for n in names}
    seeding = [n for t in rounds[0] for n in t]
    expected = sorted(names, key=lambda n: (-points[n], -buchholz[n], bullheads[n], seeding.index(n)))
    standings = page["standings"]
    assert [s["name"] for s in standings] == expected
    for s in standings:
        assert s["points"] == points[s["name"]] and s["tiebreak"] == buchholz[s["name"]]
        assert s["bullheads"] == bullheads[s["name"]] and s["games"] == 3
    assert page["podium"] == expected[:3]
    assert [t["id"] for t in web.get("/api/tournaments").json()["finished"]] == [tid]


def test_every_table_of_a_duplicate_round_plays_the_same_shuffle(web: TestClient) -> None:
    host = _person(web, "hal")
    made = host.post("/api/tournaments", json={
        "name": "Duplicate night", "format": "duplicate", "players": 4, "rounds": 2, "deals": 1,
        "starts_in": 0, "bots": ["easy"] * 9})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _advance(web, 1)
    page = _run_round(web, tid, None)
    page = _run_round(web, tid, None)
    assert page["status"] == "finished"
    for played in page["rounds_played"]:
        tables = played["tables"]
        assert len(tables) == 3  # ten entrants and two fill bots
        deals = [web.get(f"/api/games/{t['game_id']}?table={t['code']}").json()["record"]["deals"][0]
                 for t in tables]
        assert all((d["hands"], d["rows"]) == (deals[0]["hands"], deals[0]["rows"]) for d in deals)
    a, b = (web.get(f"/api/games/{r['tables'][0]['game_id']}?table={r['tables'][0]['code']}").json()
            ["record"]["deals"][0]["hands"] for r in page["rounds_played"])
    listed = web.get("/api/games").json()
    assert not any(g["id"] in {t["game_id"] for r in page["rounds_played"] for t in r["tables"]}
                   for g in (listed if isinstance(listed, list) else listed.get("games", [])))
    assert a != b  # each round a shuffle of its own

    # duplicate scores by hand: each entrant against those who held its seat's hand elsewhere
    score: dict[str, float] = {}
    for played in page["rounds_played"]:
        for t, table in enumerate(played["tables"]):
            for seat, name in enumerate(table["players"]):
                if name is None:
                    continue
                mine = table["totals"][seat]
                others = [o["totals"][seat] for u, o in enumerate(played["tables"])
                          if u != t and o["players"][seat] is not None]
                won = sum(1.0 if o > mine else 0.5 if o == mine else 0.0 for o in others)
                score[name] = score.get(name, 0.0) + (won / len(others) if others else 0.5)
    assert {s["name"]: s["points"] for s in page["standings"]} == pytest.approx(score)


def test_bad_tournaments_are_refused_with_one_line(web: TestClient) -> None:
    host = _person(web, "ivo")
    assert host.post("/api/tournaments", json={"name": "x", "players": 11}).status_code == 422
    refused = host.post("/api/tournaments", json={"name": "x", "variant": "chess"})
    assert refused.status_code == 422 and refused.json()["code"] == "bad-option"
    refused = host.post("/api/tournaments", json={"name": "x", "bots": ["godlike"]})
    assert refused.status_code == 422 and "godlike" in refused.json()["detail"]
    assert web.post("/api/tournaments", json={"name": "x"}).status_code == 401
    assert web.get("/api/tournaments/999").status_code == 404


def test_a_bot_program_enters_through_the_bot_api_and_plays_every_round(web: TestClient) -> None:
    sign_up(web, "owen")
    token = make_bot(web, "Prog")
    made = web.post("/api/tournaments", json={
        "name": "Programs welcome", "players": 4, "rounds": 2, "deals": 1, "starts_in": 60,
        "bots": ["easy"] * 6, "enter": False})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json({"type": "enter-tournament", "tournament_id": 999})
        refused = program.until(lambda m: m["type"] == "error")
        assert refused["code"] == "tournament-unknown"
        ws.send_json({"type": "enter-tournament", "tournament_id": tid})
        entered = program.until(lambda m: m["type"] == "tournament-entered")
        assert entered["tournament_id"] == tid and entered["rounds"] == 2 and entered["starts_in"] == 60
        assert "Prog" in [e["name"] for e in web.get(f"/api/tournaments/{tid}").json()["entrants"]]
        for number in (1, 2):
            _advance(web, 61 if number == 1 else 2)
            told = program.until(lambda m: m["type"] == "tournament-round")
            assert (told["tournament_id"], told["round"]) == (tid, number)
            start = program.until(lambda m: m["type"] == "game-start")
            assert start["game"] == told["game"]
            program.until(lambda m: m["type"] == "game-end")
            for _ in range(50):
                page = web.get(f"/api/tournaments/{tid}").json()
                if page["round"] > number or page["status"] == "finished":
                    break
                _advance(web, 2)
    assert page["status"] == "finished"
    mine = next(s for s in page["standings"] if s["name"] == "Prog")
    assert mine["games"] == 2


def test_a_rated_tournament_takes_one_entrant_of_a_person_and_their_bots(web: TestClient) -> None:
    """As at a rated table, a person and their own bot program never meet in rated play: the
    second of one stable to enter a rated tournament is refused; an unrated one takes both."""
    sign_up(web, "oona")
    token = make_bot(web, "Pet")
    tids = {}
    for rated in (True, False):
        made = web.post("/api/tournaments", json={
            "name": f"Cup {rated}", "players": 4, "rounds": 1, "starts_in": 60, "rated": rated,
            "bots": ["easy"] * 3, "enter": True})
        assert made.status_code == 201, made.text
        tids[rated] = made.json()["id"]
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json({"type": "enter-tournament", "tournament_id": tids[True]})
        refused = program.until(lambda m: m["type"] == "error")
        assert refused["code"] == "rated-same-owner"
        ws.send_json({"type": "enter-tournament", "tournament_id": tids[False]})
        program.until(lambda m: m["type"] == "tournament-entered")
    names = {rated: [e["name"] for e in web.get(f"/api/tournaments/{tid}").json()["entrants"]] for rated, tid in tids.items()}
    assert "Pet" not in names[True] and {"oona", "Pet"} <= set(names[False])


def test_an_arena_seats_whoever_waits_and_adds_up_points_over_every_game(web: TestClient) -> None:
    host = _person(web, "ari")
    made = host.post("/api/tournaments", json={
        "name": "Quick arena", "format": "arena", "players": 4, "minutes": 2, "deals": 1, "starts_in": 0,
        "bots": ["easy"] * 6, "enter": False})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _advance(web, 1)
    page = web.get(f"/api/tournaments/{tid}").json()
    assert page["status"] == "running" and page["ends_at"] == page["starts_at"] + 120
    first = page["rounds_played"][0]["tables"]
    assert len(first) == 1 and None not in first[0]["players"]  # four seated at once, two wait
    for _ in range(400):
        page = web.get(f"/api/tournaments/{tid}").json()
        if page["status"] == "finished":
            break
        _advance(web, 2)
    assert page["status"] == "finished"
    tables = [t for r in page["rounds_played"] for t in r["tables"]]
    assert len(tables) > 1 and all(None not in t["players"] and t["totals"] is not None for t in tables)
    # points by hand: placement points added up over every game each entrant played
    points: dict[str, float] = {}
    games: dict[str, int] = {}
    for table in tables:
        for name, placed in zip(table["players"], _placement(table["totals"]), strict=True):
            points[name] = points.get(name, 0.0) + placed
            games[name] = games.get(name, 0) + 1
    assert {s["name"]: (s["points"], s["games"]) for s in page["standings"]} == {
        n: (points.get(n, 0.0), games.get(n, 0)) for n in points}
    assert sum(games.values()) == 4 * len(tables)


def test_a_rated_tournament_rates_its_games_and_a_rated_duplicate_is_refused(web: TestClient) -> None:
    rita = _person(web, "rita")
    refused = rita.post("/api/tournaments", json={"name": "No", "format": "duplicate", "rated": True})
    assert refused.status_code == 422 and refused.json()["code"] == "rated-rules"
    refused = rita.post("/api/tournaments", json={"name": "No", "rated": True, "fill": "random"})
    assert refused.status_code == 422 and refused.json()["code"] == "rated-bot"
    made = rita.post("/api/tournaments", json={
        "name": "Rated cup", "players": 4, "rounds": 1, "starts_in": 0, "rated": True,
        "bots": ["easy", "medium", "easy"]})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _advance(web, 1)
    page = _run_round(web, tid, rita)
    assert page["status"] == "finished" and page["rated"] is True
    profile = web.get("/api/users/rita").json()
    assert profile["ratings"]["standard"]["games"] == 1
    assert profile["games"][0]["rated"] is True


@pytest.mark.parametrize("how", ["leave", "disconnect"])
def test_a_person_who_leaves_or_disconnects_is_played_by_the_stand_in_and_scored(web: TestClient, how: str) -> None:
    lena = _person(web, "lena")
    made = lena.post("/api/tournaments", json={
        "name": "Short cup", "players": 4, "rounds": 1, "deals": 2, "starts_in": 0, "bots": ["easy"] * 3})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _advance(web, 1)
    code = lena.get(f"/api/tournaments/{tid}").json()["your_table"]
    joined = _join(lena, web, code)
    seat = joined.json()["seat"]
    with web.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as ws:
        first = receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None
                              and m["view"].get("decision") is not None)
        view = first["view"]
        ws.send_json({"type": "play", "card": view["decision"]["options"][0], "deal": view["deal"], "turn": view["turn"]})
        # her next decision (a row to take, or the next turn's card): the table waits for her alone,
        # nothing is being saved, and the socket closes on a quiet table
        receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None
                      and m["view"].get("decision") not in (None, view["decision"]))
        if how == "leave":
            ws.send_json({"type": "leave"})
            receive_until(ws, lambda m: m.get("type") == "error" or m.get("type") == "state")
        ws.close(1000)  # (the page goes away; the server is given time to see it before the test's
        _until_away(web, code, seat)  # client tears the connection down)
    stranger = _person(web, "sam")
    refused = stranger.post(f"/api/tables/{code}/join", json={"name": "sam"})
    assert refused.status_code != 200 and refused.json()["code"] == "tournament-seat"
    page = _run_round(web, tid, None)
    assert page["status"] == "finished"
    table = page["rounds_played"][0]["tables"][0]
    assert table["players"][seat] == "lena" and table["totals"] is not None
    mine = next(s for s in page["standings"] if s["name"] == "lena")
    assert mine["games"] == 1 and mine["bullheads"] == table["totals"][seat]
    game = web.get(f"/api/games/{table['game_id']}").json()
    assert len(game["record"]["deals"]) == 2  # both deals played, lena's seat kept for her (the stand-in)
    assert all(players[seat]["name"] == "lena" for players in game["deal_players"])


def test_a_duplicate_rounds_games_are_refused_until_every_table_of_the_round_has_finished(web: TestClient) -> None:
    """A finished table's game holds the shuffle the round's other tables still play: its record,
    events, review and download are refused to anyone, its own table's code given or not, until the
    last table of the round has finished."""
    dora = _person(web, "dora")
    made = dora.post("/api/tournaments", json={
        "name": "Quiet cup", "format": "duplicate", "players": 4, "rounds": 1, "deals": 1, "starts_in": 0,
        "bots": ["easy"] * 7})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _advance(web, 1)
    app: Any = web.app
    mine = dora.get(f"/api/tournaments/{tid}").json()["your_table"]
    for _ in range(400):  # the bots' table plays out; dora's waits for her (the clock stands still)
        stored = app.state.tournaments.load(tid)
        done = [t for t in stored.tables if t.totals is not None]
        if done:
            break
        _advance(web, 0.0)
    assert done and done[0].code != mine
    assert any(t.totals is None for t in stored.tables)
    game, code = done[0].game_id, done[0].code
    doors = [("get", f"/api/games/{game}?table={code}"), ("get", f"/api/games/{game}/events?table={code}"),
             ("get", f"/api/games/{game}/record.json?table={code}"),
             ("get", f"/api/games/{game}/review?seat=0&table={code}"),
             ("post", f"/api/games/{game}/review?table={code}")]
    for method, url in doors:
        for asker in (web, dora):  # a stranger, and a player of the table still playing
            answer = asker.post(url, json={"seat": 0}) if method == "post" else asker.get(url)
            assert answer.status_code == 409, (url, answer.text)
            assert answer.json()["code"] == "round-playing" and "\n" not in answer.json()["detail"]
    assert dora.get(f"/api/games/{game}").status_code == 404  # (without the code: no such game, as ever)
    # nor are the round's tables' codes on the page (watching a table ahead shows the same cards):
    # nobody sees one but their own
    assert [t["code"] for t in web.get(f"/api/tournaments/{tid}").json()["rounds_played"][0]["tables"]] == [None, None]
    assert {t["code"] for t in dora.get(f"/api/tournaments/{tid}").json()["rounds_played"][0]["tables"]} == {mine, None}

    page = _run_round(web, tid, None)  # dora's seat is played by the stand-in: the round ends
    assert page["status"] == "finished"
    for _, url in doors[:3]:
        assert web.get(url).status_code == 200, url
    assert None not in [t["code"] for t in page["rounds_played"][0]["tables"]]


def test_an_arena_seats_an_entrant_only_while_present_and_not_paused(web: TestClient) -> None:
    """lichess's rule: an arena pairs only those who are there. A person who pauses, or who is no
    longer seen on the tournament's page (they closed it, or lost their connection), is not seated
    at new tables; back on the page (or resumed), they are."""
    pia = _person(web, "pia")
    made = pia.post("/api/tournaments", json={
        "name": "Present arena", "format": "arena", "players": 2, "minutes": 60, "deals": 1, "starts_in": 0,
        "bots": ["easy"] * 3})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    app: Any = web.app
    window = app.state.director.settings.arena_presence

    def seated(page: dict[str, Any], after: int) -> list[list[str | None]]:
        """The tables seated after round ``after``."""
        return [t["players"] for r in page["rounds_played"] if r["round"] > after for t in r["tables"]]

    def play_until(pia_seated: bool, after: int, visit: bool) -> dict[str, Any]:
        """Play on (pia's page asking, or not) until a table is seated after round ``after``
        with pia at it or, if ``pia_seated`` is False, three tables without her."""
        for _ in range(300):
            page = (pia.get if visit else web.get)(f"/api/tournaments/{tid}").json()
            tables = seated(page, after)
            if pia_seated and any("pia" in t for t in tables):
                return dict(page)
            if not pia_seated:
                assert not any("pia" in t for t in tables), tables
                if len(tables) >= 3:
                    return dict(page)
            _advance(web, 2.0)
        raise AssertionError(f"never: {page}")

    pia.get(f"/api/tournaments/{tid}")  # on the page as it starts
    _advance(web, 1)
    page = pia.get(f"/api/tournaments/{tid}").json()
    assert any("pia" in t for t in seated(page, 0))  # everyone is here: all four seated at once

    assert pia.post(f"/api/tournaments/{tid}/pause").json() == {"paused": True}
    paused_at = pia.get(f"/api/tournaments/{tid}").json()
    assert paused_at["paused"]
    page = play_until(False, paused_at["round"], visit=True)  # on the page, but paused: not seated
    assert pia.post(f"/api/tournaments/{tid}/resume").json() == {"paused": False}
    page = play_until(True, page["round"], visit=True)

    gone = page["round"]  # her page closes: seen no more
    for _ in range(int(window / 2) + 2):
        _advance(web, 2.0)
    page = play_until(False, web.get(f"/api/tournaments/{tid}").json()["round"], visit=False)
    assert page["round"] > gone
    # (free to be seated: her last game is over, played for her by the stand-in)
    assert all(t["totals"] is not None for r in page["rounds_played"] for t in r["tables"] if "pia" in t["players"])
    page = play_until(True, page["round"], visit=True)  # back on the page: seated again

    stranger = _person(web, "quin")
    assert stranger.post(f"/api/tournaments/{tid}/pause").json()["code"] == "not-entered"
    swiss = pia.post("/api/tournaments", json={"name": "Swiss", "starts_in": 60}).json()["id"]
    assert pia.post(f"/api/tournaments/{swiss}/pause").json()["code"] == "not-arena"


def test_an_arena_seats_a_bot_program_only_while_it_is_connected(web: TestClient) -> None:
    sign_up(web, "olga")
    token = make_bot(web, "Arena_Prog")
    made = web.post("/api/tournaments", json={
        "name": "Program arena", "format": "arena", "players": 2, "minutes": 60, "deals": 1, "starts_in": 60,
        "bots": ["easy"], "enter": False})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json({"type": "enter-tournament", "tournament_id": tid})
        program.until(lambda m: m["type"] == "tournament-entered")
        _advance(web, 61)
        told = program.until(lambda m: m["type"] == "tournament-round")
        program.until(lambda m: m["type"] == "game-end")
    for _ in range(300):  # gone: the games it was seated at (in the few looks it still counts as
        gone = web.get(f"/api/tournaments/{tid}").json()["rounds_played"]  # here) played out
        if all(t["totals"] is not None for r in gone for t in r["tables"]):
            break
        _advance(web, 2)
    for _ in range(10):  # and the server bot waits alone
        _advance(web, 2)
    assert web.get(f"/api/tournaments/{tid}").json()["rounds_played"] == gone
    assert all(t["totals"] is not None for r in gone for t in r["tables"]) and gone[0]["tables"][0]["code"] == told["game"]
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:  # back: seated again
        program = BotProgram(ws)
        program.hello()
        _advance(web, 2)
        again = program.until(lambda m: m["type"] == "tournament-round")
        assert again["game"] != told["game"]
        program.until(lambda m: m["type"] == "game-end")
