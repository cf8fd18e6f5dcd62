"""What a save writes: within a turn only the chosen cards (``current``), the record when a turn is
complete, the chat when someone writes in it, and still everything a restart needs; saves queued
together write every column either of them changed; on SQLite the write-ahead log is checkpointed
off the event loop."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import event

from sixnimmt.core import Phase, Rules, Variant
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store import writer as store_module
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import CURRENT_ONLY, STATE_COLUMNS, TableData
from sixnimmt.server.store.writer import Writer
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Chat, Play, SpectatorChat

from .conftest import Listener
from .helpers import answer


class RecordingStore(Store):
    """A store that notes which columns each table save was asked to write."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.saved_columns: list[frozenset[str] | None] = []

    def save_tables(self, batch: list[TableData]) -> set[str]:
        self.saved_columns += [d.changed for d in batch]
        return super().save_tables(batch)



def stored(store: Store, code: str) -> TableData:
    data = store.load_table(code)
    assert data is not None
    return data


async def _three_at_a_table(store: Store) -> tuple[Rooms, Room, list[Listener]]:
    """A table of three people on ``store`` (migrated here), each with a connection: the game runs."""
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0), ManualClock())
    room, _ = await rooms.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}] * 2)
    for name in ("Ana", "Bo"):
        await room.join(name)
    players = [Listener(seat) for seat in range(3)]
    for conn in players:
        await room.connect(conn)
    return rooms, room, players


@pytest.mark.asyncio
async def test_a_choice_within_a_turn_writes_only_the_chosen_cards(database_url: str) -> None:
    store = RecordingStore(database_url)
    rooms, room, players = await _three_at_a_table(store)
    game = room.table.game
    assert game is not None
    record_before = stored(store, room.code).record
    chosen = {}
    for seat in (0, 1):  # two of three choose: the turn stays open
        card = game.hands[seat][0]
        chosen[seat] = card
        store.saved_columns.clear()
        await room.handle(players[seat], Play(type="play", card=card))
        assert store.saved_columns == [frozenset({"current"})]
        row = stored(store, room.code)
        assert row.record == record_before  # the record was not written again
        assert row.current is not None and [seat, card] in row.current["log"]

    # The process dies here: another one loads the table and has both chosen cards.
    again = Store(database_url)
    reloaded = await Rooms(again, Settings(database_url=database_url, bot_delay=0.0), ManualClock()).get(room.code)
    assert reloaded.table.game is not None
    assert [reloaded.table.game.chosen[seat] for seat in (0, 1, 2)] == [chosen[0], chosen[1], None]
    again.close()

    store.saved_columns.clear()
    await room.handle(players[2], Play(type="play", card=game.hands[2][0]))  # the turn is revealed
    assert store.saved_columns and all(c is not None and "record" in c for c in store.saved_columns)
    assert stored(store, room.code).record == room.table.to_store().record
    await rooms.close()


def test_a_save_leaves_the_columns_it_does_not_name_as_they_were(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'columns.db'}")
    store.migrate()
    data = TableData("ABCDE", "waiting", {"a": 1}, [{"kind": "open"}], 0, {"deals": []}, {"log": []})
    store.create_table(data)
    changed = dataclasses.replace(data, status="playing", record={"deals": [1]}, current={"log": [[0, 7]]},
                                  changed=frozenset({"current"}))
    store.save_tables([changed])
    row = stored(store, "ABCDE")
    assert (row.status, row.record, row.current) == ("waiting", {"deals": []}, {"log": [[0, 7]]})
    store.save_tables([dataclasses.replace(changed, changed=None)])
    row = stored(store, "ABCDE")
    assert (row.status, row.record, row.current) == ("playing", {"deals": [1]}, {"log": [[0, 7]]})


@pytest.mark.asyncio
async def test_saves_queued_together_write_what_either_changed(tmp_path: Path) -> None:
    """Two saves of one table before the commit (they queue while a call holds the writer's
    thread): only the newer is written, with the older's columns too (here the record, which the
    newer alone would not write), and in one commit."""

    store = RecordingStore(f"sqlite:///{tmp_path / 'merge.db'}")
    store.migrate()
    data = TableData("ABCDE", "playing", {}, [], 1, {"deals": []}, {"log": []})
    store.create_table(data)
    writer = Writer(store)
    record = {"deals": [{"turns": [1]}]}
    first = dataclasses.replace(data, record=record, current={"log": []}, changed=frozenset({"record", "current"}))
    second = dataclasses.replace(first, current={"log": [[0, 9]]}, changed=frozenset({"current"}))
    release = threading.Event()
    busy = asyncio.ensure_future(writer.run(release.wait, 5))
    await asyncio.sleep(0)  # the call holds the writer now
    saves = asyncio.gather(writer.save(first), writer.save(second))
    await asyncio.sleep(0.01)
    assert store.saved_columns == []  # both wait behind the call
    release.set()
    await asyncio.gather(busy, saves)
    assert store.saved_columns == [frozenset({"record", "current"})]  # one write, both saves' columns
    row = stored(store, "ABCDE")
    assert (row.record, row.current) == (record, {"log": [[0, 9]]})
    await writer.close()
    store.close()


@pytest.mark.asyncio
async def test_sqlite_save_to_an_idle_writer_commits_without_yielding(tmp_path: Path) -> None:
    """With nothing queued or being written, a save on an SQLite file is committed inside the call:
    nothing else on the event loop runs before it returns (a callback scheduled just before it is
    still waiting), and the row holds the new state."""

    store = Store(f"sqlite:///{tmp_path / 'idle.db'}")
    store.migrate()
    data = TableData("ABCDE", "playing", {}, [], 1, None, {"log": []})
    store.create_table(data)
    writer = Writer(store)
    ran: list[int] = []
    for n in range(3):
        asyncio.get_running_loop().call_soon(ran.append, n)
        await writer.save(dataclasses.replace(data, current={"log": [[0, n]]}, changed=frozenset({"current"})))
        assert ran == list(range(n))  # this round's callback has not run yet
        assert stored(store, "ABCDE").current == {"log": [[0, n]]}
        await asyncio.sleep(0)
    await writer.close()
    store.close()


@pytest.mark.asyncio
async def test_sqlite_checkpoints_its_log_in_a_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections never checkpoint by themselves (that would wait for the disk on the event loop);
    the writer does it in a thread every CHECKPOINT_EVERY saves."""
    monkeypatch.setattr(store_module, "CHECKPOINT_EVERY", 3)
    store = Store(f"sqlite:///{tmp_path / 'wal.db'}")
    store.migrate()
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    checkpoints: list[int] = []
    checkpoint = store.checkpoint

    def spy() -> None:
        checkpoints.append(threading.get_ident())
        checkpoint()

    monkeypatch.setattr(store, "checkpoint", spy)
    data = TableData("ABCDE", "playing", {}, [], 1, None, {"log": []})
    store.create_table(data)

    writer = Writer(store)
    for n in range(7):
        await writer.save(dataclasses.replace(data, current={"log": [[0, n]]}, changed=frozenset({"current"})))
        await asyncio.sleep(0.01)  # (a checkpoint runs in the background)
    await writer.close()
    assert stored(store, "ABCDE").current == {"log": [[0, 6]]}
    assert len(checkpoints) == 2 and threading.get_ident() not in checkpoints
    store.close()


def test_sqlite_saves_keep_one_connection_and_take_a_fresh_one_after_a_failure(tmp_path: Path) -> None:
    """On an SQLite file the saves (one at a time, on the event loop) write through one connection
    instead of taking one from the pool for each commit; a save that fails gives it up, and the next
    save writes through a fresh one."""
    store = Store(f"sqlite:///{tmp_path / 'held.db'}")
    store.migrate()
    data = TableData("ABCDE", "playing", {}, [], 1, None, {"log": []})
    store.create_table(data)
    checkouts: list[int] = []
    event.listen(store.engine, "checkout", lambda dbapi, record, proxy: checkouts.append(id(dbapi)))
    for n in range(5):
        store.save_tables([dataclasses.replace(data, current={"log": [[0, n]]}, changed=frozenset({"current"}))])
    assert len(checkouts) == 1
    assert stored(store, "ABCDE").current == {"log": [[0, 4]]}
    with pytest.raises(sqlite3.IntegrityError):  # a status the schema refuses
        store.save_tables([dataclasses.replace(data, status=None, changed=frozenset({"status"}))])  # type: ignore[arg-type]
    checkouts.clear()
    store.save_tables([dataclasses.replace(data, current={"log": [[1, 5]]}, changed=frozenset({"current"}))])
    store.save_tables([dataclasses.replace(data, current={"log": [[1, 6]]}, changed=frozenset({"current"}))])
    assert len(checkouts) == 1  # a fresh connection after the failure, then kept
    assert stored(store, "ABCDE").current == {"log": [[1, 6]]}
    store.close()


@pytest.mark.asyncio
async def test_the_chat_is_written_when_someone_writes_in_it_and_not_with_every_move(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'chat.db'}"

    store = RecordingStore(url)
    rooms, room, players = await _three_at_a_table(store)
    game = room.table.game
    assert game is not None
    store.saved_columns.clear()
    await room.handle(players[1], Chat(type="chat", text="good luck"))
    assert store.saved_columns and all(c is not None and "chat" in c for c in store.saved_columns)
    row = stored(store, room.code)
    assert [line["text"] for line in row.chat or []] == ["good luck"]
    assert row.current is not None and "chat" not in row.current  # not written again with the moves
    store.saved_columns.clear()
    await room.handle(players[0], Play(type="play", card=game.hands[0][0]))
    assert store.saved_columns == [frozenset({"current"})]
    reloaded = await Rooms(Store(url), Settings(database_url=url, bot_delay=0.0), ManualClock()).get(room.code)
    assert [line["text"] for line in reloaded.table.chat] == ["good luck"] and reloaded.table.chat[0]["name"] == "Ana"
    await rooms.close()


@pytest.mark.asyncio
async def test_a_table_saved_with_its_chat_in_current_loads_it_and_moves_it_to_its_column(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old-chat.db'}"

    rooms, room, _ = await _three_at_a_table(Store(url))
    code = room.code
    await rooms.close()
    # as the store held a table before the chat had a column of its own
    old_line = {"id": 7, "seat": 0, "name": "Host", "text": "from before"}
    with sqlite3.connect(tmp_path / "old-chat.db") as db:
        current = json.loads(db.execute("SELECT current FROM tables WHERE code = ?", (code,)).fetchone()[0])
        db.execute("UPDATE tables SET chat = NULL, current = ? WHERE code = ?",
                   (json.dumps({**current, "chat": [old_line]}), code))
    again = Store(url)
    rooms = Rooms(again, Settings(database_url=url, bot_delay=0.0), ManualClock())
    loaded = await rooms.get(code)
    assert loaded.table.chat == [old_line]
    players = [Listener(seat) for seat in range(3)]
    for conn in players:
        await loaded.connect(conn)
    await loaded.handle(players[1], Chat(type="chat", text="and now"))
    row = stored(again, code)
    assert [line["text"] for line in row.chat or []] == ["from before", "and now"]
    assert [line["id"] for line in row.chat or []] == [7, 8]  # the numbering goes on
    await rooms.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", [v.value for v in Variant])
async def test_a_turn_only_save_holds_the_whole_state(tmp_path: Path, variant: str) -> None:
    """A save that writes only the turn's chosen cards (a card chosen, the turn still open) starts
    from the state last saved: so at every such save, that state with the new ``current`` must be
    exactly what the room holds now, column by column, whatever came before (chat lines, the
    spectators' chat switched, changes of mind, whole turns and deals), in every variant."""
    extra = {"double_deck": "doubles"} if variant == "double" else {}
    rules = Rules(players=3, variant=variant, target=None, deals=2, **extra)

    store = Store(f"sqlite:///{tmp_path / 'turn.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0), ManualClock())
    save = rooms.db.save
    checked: list[str] = []

    async def checking_save(data: TableData) -> None:
        if data.changed == CURRENT_ONLY:
            whole = room.table.to_store()
            for column in STATE_COLUMNS:
                assert getattr(data, column) == getattr(whole, column), column
            checked.append(data.code)
        await save(data)

    rooms.db.save = checking_save  # type: ignore[method-assign]  # every table saves through it
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}] * 2)
    for name in ("Ana", "Bo"):
        await room.join(name)
    conns = [Listener(seat) for seat in range(3)]
    for conn in conns:
        await room.connect(conn)
    game = room.table.game
    assert game is not None
    rng = random.Random(variant)
    for step in range(3000):
        if game.is_over:
            break
        if step % 7 == 0:
            await room.handle(conns[step % 3], Chat(type="chat", text=f"line {step}"))
        if step % 11 == 0:
            await room.handle(conns[0], SpectatorChat(type="spectator-chat", allow=step % 2 == 0))
        decision = rng.choice(game.pending())
        await room.handle(conns[decision.seat], answer(decision.kind.value, rng.choice(decision.options)))
        if game.phase is Phase.PLAY and rules.cards_per_turn == 1 and rng.random() < 0.2:
            chooser = next((s for s in range(3) if game.chosen[s] is not None and game.hands[s]), None)
            if chooser is not None:  # a change of mind: another card, also a turn-only save
                await room.handle(conns[chooser], Play(type="play", card=rng.choice(game.hands[chooser])))
    assert game.is_over
    # (in Open each card is placed as it is played: no turn stays open)
    assert len(checked) > 20 or variant == "open"
    await rooms.close()


def test_games_stored_before_privacy_take_their_tables_setting(tmp_path: Path) -> None:
    """Migration 0006: a game stored before games knew whether they were public takes its table's
    setting; a game whose table is gone counts as private (tables were private by default)."""
    from alembic import command
    from alembic.config import Config

    from sixnimmt.server.store.database import MIGRATIONS

    store = Store(f"sqlite:///{tmp_path / 'old-games.db'}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
    with sqlite3.connect(tmp_path / "old-games.db") as db:
        for code, public in (("PUBLC", True), ("PRIVT", False)):
            db.execute("INSERT INTO tables (code, status, created_at, updated_at, settings, seats, game_number, owner_epoch)"
                       " VALUES (?, 'finished', '2026-01-01', '2026-01-01', ?, '[]', 1, 0)",
                       (code, json.dumps({"public": public})))
        for code in ("PUBLC", "PRIVT", "GONE2"):
            db.execute("INSERT INTO games (table_code, number, finished_at, variant, seats, totals, winners, record)"
                       " VALUES (?, 1, '2026-01-01', 'standard', '[]', '[]', '[]', '{}')", (code,))
    store.migrate()
    assert [g["table"] for g in store.list_games()] == ["PUBLC"]
    assert [store.get_game(i)["public"] for i in (1, 2, 3)] == [True, False, False]  # type: ignore[index]
    store.close()
