"""Rated games: who may sit, the ratings at a game's end (exactly once, never half), and the model
checked against OpenSkill itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sixnimmt.core import Game, Rules
from sixnimmt.server.accounts.account_rows import GamePlayerRow, RatedGameRow, RatingRow, UserRow
from sixnimmt.server.accounts.ratings import display, participants, ranks_of, rate, record_game
from sixnimmt.server.accounts.users import Accounts, user_of
from sixnimmt.server.botapi.bot_accounts import BotAccounts
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import GameRow, TableData

from .conftest import QUICK_PLAY, make_client
from .helpers import play_out, receive_until
from .test_accounts import PASSWORD, sign_up, signed


def finished_game(players: int, seed: int) -> Game:
    game = Game(Rules(players=players, deals=1), [f"P{i}" for i in range(players)], seed=seed)
    while not game.is_over:
        decision = game.pending()[0]
        game.act(decision.seat, decision.options[0])
    return game


def test_ranks_keep_ties_as_ties() -> None:
    assert ranks_of([12, 30, 12, 45]) == [1, 3, 1, 4]


def test_the_model_is_openskills_plackett_luce_on_a_recorded_game() -> None:
    game = finished_game(4, seed=7)
    totals = list(game.record()["scores"])
    before = [(25.0, 25 / 3), (27.5, 5.0), (22.0, 7.0), (30.0, 3.0)]
    model = PlackettLuce()
    ranks = [1 + sum(1 for o in totals if o < t) for t in totals]
    expected = model.rate([[model.rating(mu=m, sigma=s)] for m, s in before], ranks=ranks)
    ours = rate(before, totals)
    for (mu, sigma), team in zip(ours, expected):
        assert mu == pytest.approx(team[0].mu, abs=1e-12) and sigma == pytest.approx(team[0].sigma, abs=1e-12)
    # a tie is a tie: two equal totals from equal ratings move equally
    tied = rate([(25.0, 25 / 3)] * 3, [10, 10, 20])
    assert tied[0] == pytest.approx(tied[1]) and tied[0][0] > tied[2][0]
    assert display(25.0, 25 / 3) == 1000


@pytest.fixture
def web(tmp_path: Path) -> Any:
    with make_client(f"sqlite:///{tmp_path / 'rated.db'}", None, **QUICK_PLAY) as client:
        yield signed(client)


def _rated_table(client: TestClient, seats: list[dict[str, Any]]) -> dict[str, Any]:
    response = client.post("/api/tables", json={"name": "ignored", "seats": seats, "rated": True})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_a_rated_table_seats_accounts_only_and_one_seat_each(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seats.db'}"
    with make_client(url) as host, make_client(url) as anonymous, make_client(url) as second:
        signed(host), signed(second)
        sign_up(host, "nina")
        table = _rated_table(host, [{"kind": "open"}, {"kind": "bot", "bot": "easy"}])
        code = table["code"]
        # anonymous: refused a seat, may watch
        refused = anonymous.post(f"/api/tables/{code}/join", json={"name": "Anon"})
        assert refused.status_code == 409 and refused.json()["code"] == "rated-sign-in"
        with anonymous.websocket_connect(f"/ws/{code}") as ws:
            state = receive_until(ws, lambda m: m.get("type") == "state")
            assert state["table"]["you"] is None and state["table"]["rated"] is True
        # the same account on a second device: its own seat again, not a second one
        second.post("/api/account/signin", json={"name": "nina", "password": PASSWORD})
        again = second.post(f"/api/tables/{code}/join", json={"name": "whatever"})
        assert again.status_code == 200, again.text
        assert again.json()["seat"] == 0 and again.json()["token"] == table["token"]
        resumed = second.post(f"/api/tables/{code}/resume")
        assert resumed.status_code == 200 and resumed.json()["token"] == table["token"]
        assert anonymous.post(f"/api/tables/{code}/resume", headers={"Origin": "http://testserver"}).status_code == 401
        summary = host.get(f"/api/tables/{code}").json()
        assert [s["kind"] for s in summary["seats"]] == ["human", "open", "bot"]
        # another account has no seat to resume here (it may join the open one)
        sign_up(signed(anonymous), "oscar")
        nothing = anonymous.post(f"/api/tables/{code}/resume", headers={"Origin": "http://testserver"})
        assert nothing.status_code == 404 and nothing.json()["code"] == "no-seat"
        # nobody may take a rated table's seats from the host's controls
        with host.websocket_connect(f"/ws/{code}?token={table['token']}") as ws:
            receive_until(ws, lambda m: m.get("type") == "state")
            ws.send_json({"type": "release", "seat": 2})
            error = receive_until(ws, lambda m: m.get("type") == "error")
            assert error["code"] == "rated-seats"


def test_anonymous_cannot_create_a_rated_table(web: TestClient) -> None:
    response = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot"}], "rated": True})
    assert response.status_code == 422 and response.json()["code"] == "rated-sign-in"


def test_a_rated_game_changes_every_seats_rating_once(web: TestClient) -> None:
    sign_up(web, "olga")
    table = _rated_table(web, [{"kind": "bot", "bot": "medium"}, {"kind": "bot", "bot": "easy"},
                               {"kind": "bot", "bot": "medium"}])
    with web.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        last = play_out(ws, ws.receive_json())
    totals = last["view"]["totals"]
    profile = web.get("/api/users/olga").json()
    rating = profile["ratings"]["standard"]
    assert rating["games"] == 1 and rating["provisional"] is True
    # the same numbers as OpenSkill's from the defaults: the two medium seats are one account,
    # ranked by their mean total
    mean_medium = (totals[1] + totals[3]) / 2
    expected = rate([(25.0, 25 / 3)] * 3, [totals[0], totals[2], mean_medium])
    assert rating["mu"] == pytest.approx(expected[0][0], abs=1e-3)
    assert rating["sigma"] == pytest.approx(expected[0][1], abs=1e-3)
    assert [p["game"] for p in profile["history"]["standard"]] == [profile["games"][0]["id"]]
    assert profile["games"][0]["rated"] is True and profile["games"][0]["seat"] == 0
    for bot in ("bot-medium", "bot-easy"):
        assert web.get(f"/api/users/{bot}").json()["ratings"]["standard"]["games"] == 1
    board = web.get("/api/leaderboard", params={"variant": "standard", "provisional": True}).json()
    names = {row["name"]: row for row in board["rows"]}
    assert set(names) == {"olga", "bot-medium", "bot-easy"}
    assert names["olga"]["kind"] == "person" and names["bot-easy"]["kind"] == "bot"
    assert web.get("/api/leaderboard", params={"variant": "standard"}).json()["rows"] == []  # none settled
    # exactly once: the same game again changes nothing
    store = web.app.state.store  # type: ignore[attr-defined]
    with Session(store.engine) as session, session.begin():
        game = session.get(GameRow, profile["games"][0]["id"])
        assert game is not None
        data = TableData(game.table_code, "finished", {"rated": True}, [{"kind": "human", "account": 1}] * 4, 1,
                         None, None)
        bots = web.app.state.accounts.bots  # type: ignore[attr-defined]
        who = participants(data, bots)
        who.seats[:] = [r.user_id for r in session.scalars(select(GamePlayerRow).where(
            GamePlayerRow.game_id == game.id).order_by(GamePlayerRow.seat))]
        assert record_game(session, game, who) is False
    assert web.get("/api/users/olga").json()["ratings"]["standard"] == rating


def test_a_deleted_account_leaves_the_leaderboard_and_its_games_stay(web: TestClient) -> None:
    sign_up(web, "petra")
    table = _rated_table(web, [{"kind": "bot", "bot": "easy"}])
    with web.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        play_out(ws, ws.receive_json())
    game_id = web.get("/api/users/petra").json()["games"][0]["id"]
    assert web.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
    board = web.get("/api/leaderboard", params={"provisional": True}).json()
    assert [row["name"] for row in board["rows"]] == ["bot-easy"]
    game = web.get(f"/api/games/{game_id}/events").json()
    assert game["seats"][0] == "Deleted player" and "petra" not in str(game)
    assert web.get(f"/api/games/{game_id}/record.json").status_code == 200


# ---------------------------------------------------------------------- never half, never twice


def _rated_table_row(store: Store, code: str, accounts: list[int], game: Game) -> TableData:
    data = TableData(code, "finished", {"rated": True, "fill_bot": "medium", "rules": game.rules.to_dict()},
                     [{"kind": "human", "name": f"P{i}", "account": a} for i, a in enumerate(accounts)], 1, None, None)
    store.create_table(data)
    return data


def _people(store: Store, names: list[str]) -> list[int]:
    accounts = Accounts(store)
    return [accounts.create(name, "not-a-real-hash").id for name in names]


def _ratings(store: Store) -> dict[int, tuple[float, float, int]]:
    with Session(store.engine) as session:
        return {r.user_id: (r.mu, r.sigma, r.games) for r in session.scalars(select(RatingRow))}


def _archive(store: Store, data: TableData, game: Game, fail_after: int | None = None) -> int:
    who = participants(data, {})

    def after(session: Session, row: GameRow) -> None:
        record_game(session, row, who)
        if fail_after is not None:
            raise RuntimeError("the database went away in the middle")

    return store.finish_game(data, game.record(), list(game.winners), None, after)


def test_an_interrupted_rating_update_leaves_every_rating_as_it_was(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'half.db'}")
    store.migrate()
    ids = _people(store, ["anna", "bert", "cleo"])
    first = finished_game(3, seed=1)
    _archive(store, _rated_table_row(store, "AAAAA", ids, first), first)
    before = _ratings(store)
    second = finished_game(3, seed=2)
    data = _rated_table_row(store, "BBBBB", ids, second)
    with pytest.raises(RuntimeError):
        _archive(store, data, second, fail_after=1)
    assert _ratings(store) == before
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(GameRow)) == 1
        assert session.scalar(select(func.count()).select_from(RatedGameRow)) == 1
    _archive(store, data, second)  # the game ends again (the table was not saved as finished)
    assert all(games == 2 for _, _, games in _ratings(store).values())
    store.close()


KILLED = """
import sys, time
from pathlib import Path
from sixnimmt.core import Game, Rules
from sixnimmt.server.accounts.ratings import participants, record_game
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import TableData
url, flag, seed = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
store = Store(url)
game = Game(Rules(players=3, deals=1), ["P0", "P1", "P2"], seed=seed)
while not game.is_over:
    d = game.pending()[0]
    game.act(d.seat, d.options[0])
data = store.load_table("KILLD")
def after(session, row):
    record_game(session, row, participants(data, {}))
    session.flush()
    flag.write_text("in the middle")
    time.sleep(600)
store.finish_game(data, game.record(), list(game.winners), None, after)
"""


def test_killing_the_process_during_a_rating_update_loses_and_doubles_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    store = Store(url)
    store.migrate()
    ids = _people(store, ["dirk", "edda", "fynn"])
    game = finished_game(3, seed=5)
    data = _rated_table_row(store, "KILLD", ids, game)
    flag = tmp_path / "flag"
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED), url, str(flag), "5"],
                               env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    for _ in range(600):
        if flag.exists() or process.poll() is not None:
            break
        time.sleep(0.1)
    assert flag.exists(), "the worker never reached the rating update"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert _ratings(store) == {}  # nothing of the half-done update
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(GameRow)) == 0
    # the game ends again when the table is loaded (its last saved state is before the end)
    _archive(store, data, game)
    once = _ratings(store)
    assert sorted(games for _, _, games in once.values()) == [1, 1, 1]
    with Session(store.engine) as session, session.begin():
        row = session.scalars(select(GameRow)).one()
        assert record_game(session, row, participants(data, {})) is False
    assert _ratings(store) == once
    with Session(store.engine) as session:
        assert {u.id for u in session.scalars(select(UserRow))} >= set(ids)
    store.close()


def test_an_account_deleted_during_a_rated_game_is_not_rated_nor_named(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'gone.db'}")
    store.migrate()
    ids = _people(store, ["gina", "hugo", "ines"])
    game = finished_game(3, seed=3)
    data = _rated_table_row(store, "GONEE", ids, game)
    Accounts(store).delete(ids[1])
    game_id = _archive(store, data, game)
    ratings = _ratings(store)
    assert set(ratings) == {ids[0], ids[2]} and all(games == 1 for _, _, games in ratings.values())
    stored = store.get_game(game_id)
    assert stored is not None and stored["seats"][1] == "Deleted player"
    assert stored["record"]["seats"][1] == "Deleted player"
    store.close()


def test_a_game_with_a_person_and_their_own_bot_moves_no_rating(tmp_path: Path) -> None:
    """(#53) The tables refuse it; should a game have them anyway, the rating refuses it too."""
    store = Store(f"sqlite:///{tmp_path / 'farm.db'}")
    store.migrate()
    ids = _people(store, ["jana", "karl"])
    bots = BotAccounts(Accounts(store))
    with Session(store.engine) as session:
        row = session.get(UserRow, ids[0])
        assert row is not None
        owner = user_of(row)
    bots.create(owner, "janabot", "")
    found = bots.bot_named("janabot")
    assert found is not None
    game = finished_game(3, seed=5)
    data = _rated_table_row(store, "FARMS", [ids[0], found[0].id, ids[1]], game)
    _archive(store, data, game)
    assert _ratings(store) == {}
    with Session(store.engine) as session:  # the game is in their histories, as unrated
        assert {p.rated for p in session.scalars(select(GamePlayerRow))} == {False}
    store.close()
