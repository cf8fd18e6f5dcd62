"""The database (SQLAlchemy 2): the rows of every subsystem (tables with their seats and game in
progress, finished games, accounts, the cluster's leases), and the reads and writes the server does,
with the :class:`Writer` that groups table saves. The rooms call it; the game model never touches the
database.

Everything a room needs to come back after a restart is one row of ``tables``: its settings, its seats
(with the *hash* of each seat token, never the token), the game record so far and the cards already
chosen this turn. Finished games are copied to ``games`` for the history pages.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import orjson
from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    false,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.sql.dml import Update

from ..wire import to_json

MIGRATIONS = Path(__file__).with_name("migrations")
log = logging.getLogger("sixnimmt.server")

#: The advisory lock that serialises migrations on PostgreSQL (any fixed 64-bit number: "6nimmt!\0").
MIGRATION_LOCK_KEY = 0x366E696D6D742100

T = TypeVar("T")


class Base(DeclarativeBase):
    pass


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting | playing | finished
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=_now)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=_now)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    current: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: The chat's last lines (None: a row saved before this column, whose chat is in ``current``).
    chat: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    #: Several processes on one database (PostgreSQL): the process that drives the table, and the
    #: fencing epoch its writes must carry (raised by each takeover). Unused by a single process.
    owner: Mapped[str | None] = mapped_column(String(32), nullable=True)
    owner_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ProcessRow(Base):
    """A live server process (several on one database): it owns tables while its lease runs."""

    __tablename__ = "server_processes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    lease_until: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class OutboxRow(Base):
    """A message between processes too large for a NOTIFY payload; the NOTIFY carries its id."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    payload: Mapped[str] = mapped_column(Text)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_code: Mapped[str] = mapped_column(String(16), index=True)
    number: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[dt.datetime] = mapped_column(DateTime, default=_now, index=True)
    variant: Mapped[str] = mapped_column(String(16))
    seats: Mapped[list[str]] = mapped_column(JSON)
    totals: Mapped[list[int]] = mapped_column(JSON)
    winners: Mapped[list[int]] = mapped_column(JSON)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: Who played each seat in each deal (a friend may take a bot's seat over between deals).
    deal_players: Mapped[list[list[dict[str, Any]]] | None] = mapped_column(JSON, nullable=True)
    #: Whether the table was public: a private table's games are listed nowhere, and shown only to
    #: whoever has the table's link (migration 0006).
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ReviewRow(Base):
    """A finished game's review for one seat (:func:`sixnimmt.bots.review.review`), kept once made."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_reviews_game_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, index=True)
    seat: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=_now)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)


#: The ``tables`` table itself, for bulk statements.
Table_: Table = TableRow.__table__  # type: ignore[assignment]


@dataclass(slots=True)
class TableData:
    """One table as stored: plain data, no ORM object escapes this module."""

    code: str
    status: str
    settings: dict[str, Any]
    seats: list[dict[str, Any]]
    game_number: int
    record: dict[str, Any] | None
    current: dict[str, Any] | None
    #: The chat's last lines (None: not known, a row saved before the store had a column for them).
    chat: list[dict[str, Any]] | None = None
    created_at: dt.datetime | None = None
    #: The owner's fencing epoch (several processes): a write carrying an older one is refused.
    epoch: int | None = None
    owner: str | None = None
    #: The columns of :data:`STATE_COLUMNS` a save must write: those that differ from what the
    #: store holds (the others are left as they are). None: all of them.
    changed: frozenset[str] | None = None

    def with_current(self, current: dict[str, Any]) -> TableData:
        """This state with ``current`` changed, as a save that writes only that column."""
        return TableData(
            self.code, self.status, self.settings, self.seats, self.game_number, self.record, current, self.chat,
            self.created_at, self.epoch, self.owner, CURRENT_ONLY,
        )


#: A table's state as a save writes it (``updated_at`` besides).
STATE_COLUMNS = ("status", "settings", "seats", "game_number", "record", "current", "chat")
#: What a save within a turn writes: the turn's answers so far (:meth:`TableData.with_current`).
CURRENT_ONLY = frozenset({"current"})


def changed_columns(stored: TableData, new: TableData) -> frozenset[str]:
    """The columns of ``new`` that differ from ``stored``, the state the store holds. Within a turn
    a move changes only ``current`` (the turn's chosen cards): the record, the largest column, is
    compared by identity (a room keeps the same record object until the record changes), so it is
    written again only when a turn is complete; ``current`` is always written."""
    changed = {"current"}
    if new.record is not stored.record:
        changed.add("record")
    if new.chat is not stored.chat:  # a room makes a new list for each chat line
        changed.add("chat")
    if new.status != stored.status:
        changed.add("status")
    if new.game_number != stored.game_number:
        changed.add("game_number")
    if new.seats != stored.seats:
        changed.add("seats")
    if new.settings != stored.settings:
        changed.add("settings")
    return frozenset(changed)


class LeaseLostError(RuntimeError):
    """Another process took the table over: this process's copy is stale and must be dropped."""


def _table_data(row: TableRow) -> TableData:
    return TableData(
        code=row.code,
        status=row.status,
        settings=dict(row.settings),
        seats=[dict(s) for s in row.seats],
        game_number=row.game_number,
        record=row.record,
        current=row.current,
        chat=row.chat,
        created_at=row.created_at,
        epoch=row.owner_epoch,
        owner=row.owner,
    )


def _game_row(
    code: str, number: int, record: dict[str, Any], winners: list[int],
    deal_players: list[list[dict[str, Any]]] | None, public: bool,
) -> GameRow:
    return GameRow(
        public=public,
        table_code=code,
        number=number,
        variant=record["rules"]["variant"],
        seats=list(record["seats"]),
        totals=list(record.get("scores", [])),
        winners=winners,
        record=record,
        deal_players=deal_players,
    )


def seat_bots(deal_players: list[list[dict[str, Any]]] | None, seats: int) -> list[str | None]:
    """Which seats of a finished game a bot played, for the pages to mark them as the table does:
    per seat, a server bot's level, ``"program"`` for a bot program (docs/bot-api.md), or None for
    a person. It is who played the first deal, the name the game's record holds (a seat that changed
    hands later shows its later players in ``deal_players``). A deleted bot's seat stays a bot under
    the neutral name: that it was a bot was public at the table, and says nothing of whose it was.
    A game stored before its deal players were noted: all None."""
    first = deal_players[0] if deal_players else []
    bots: list[str | None] = [None] * seats
    for seat, player in enumerate(first[:seats]):
        if player.get("program"):
            bots[seat] = "program"
        elif player.get("kind") == "bot":
            bots[seat] = str(player.get("bot") or "bot")
    return bots


def game_summary(row: GameRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "table": row.table_code,
        "number": row.number,
        "finished_at": row.finished_at.isoformat() + "Z",
        "variant": row.variant,
        "seats": list(row.seats),
        "totals": list(row.totals),
        "winners": list(row.winners),
        "bots": seat_bots(row.deal_players, len(row.seats)),
        "target": row.record.get("rules", {}).get("target"),  # for a count-down display
    }


class Store:
    """The database. Methods are synchronous; the server runs them through a :class:`Writer`."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(
            # orjson, as the messages: serializing the record is the largest part of the store's
            # work per move.
            url, future=True, json_serializer=to_json, json_deserializer=orjson.loads
        )
        #: An SQLite file: a commit appends to its write-ahead log, quick enough to run on the event
        #: loop (see :class:`Writer`); the log's checkpoints, which write the file and sync it to
        #: disk, are :meth:`checkpoint`'s, run in a thread.
        self.local_file = self._lock_path() is not None
        self._save_statements: dict[tuple[tuple[str, ...], bool], _SaveStatement] = {}
        #: SQLite: the one connection the saves are written through (see :meth:`save_tables`).
        self._saving: Any = None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)

    def migrate(self) -> None:
        """Bring the schema up to date (Alembic, migrations shipped inside the package), under a lock:
        several processes started at once on a fresh database migrate it once, the others wait and
        then find it up to date. PostgreSQL: a transaction-level advisory lock taken before Alembic
        reads its version table (released by the commit); SQLite: an exclusive lock on a file next to
        the database."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with _file_lock(self._lock_path()), self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def _lock_path(self) -> Path | None:
        if self.engine.dialect.name != "sqlite" or self.engine.url.database in (None, "", ":memory:"):
            return None
        return Path(str(self.engine.url.database)).expanduser().with_suffix(".migrate-lock")

    def close(self) -> None:
        self._drop_saving_connection()
        self.engine.dispose()

    def _drop_saving_connection(self) -> None:
        saving, self._saving = self._saving, None
        if saving is not None:
            saving.close()  # back to the pool, which rolls back whatever it left open

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log into the database file (``PASSIVE``: writers go on
        meanwhile). Connections do not do it by themselves (``wal_autocheckpoint`` is off), so that
        a commit on the event loop never waits for the disk."""
        if self.local_file:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    # ------------------------------------------------------------------ tables

    def create_table(self, data: TableData) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(
                TableRow(
                    code=data.code,
                    status=data.status,
                    settings=data.settings,
                    seats=data.seats,
                    game_number=data.game_number,
                    record=data.record,
                    current=data.current,
                    chat=data.chat,
                    owner=data.owner,
                    owner_epoch=data.epoch or 0,
                )
            )

    def code_taken(self, code: str) -> bool:
        with Session(self.engine) as session:
            return session.scalar(select(TableRow.id).where(TableRow.code == code)) is not None

    def save_table(self, data: TableData) -> None:
        """Write a table's whole state (called after every action that changes it)."""
        with Session(self.engine) as session, session.begin():
            self._write_table(session, data)

    def _write_table(self, session: Session, data: TableData) -> None:
        """Write a table's whole state in ``session``'s transaction. A fenced write (``epoch`` set)
        locks the row before it compares the epoch: a takeover (which raises the epoch by an
        ``UPDATE`` of the same row) then waits for this transaction, or this one sees its epoch, as
        the group commit's ``UPDATE ... WHERE owner_epoch = ...`` does. Without the lock a takeover
        could commit between the comparison and the write, and the stale process's state would
        land over the new owner's."""
        query = select(TableRow).where(TableRow.code == data.code)
        if data.epoch is not None:
            query = query.with_for_update()
        row = session.scalars(query).one()
        if data.epoch is not None and row.owner_epoch != data.epoch:
            raise LeaseLostError(data.code)
        row.status = data.status
        row.settings = data.settings
        row.seats = data.seats
        row.game_number = data.game_number
        row.record = data.record
        row.current = data.current
        row.chat = data.chat
        row.updated_at = _now()

    def save_tables(self, batch: list[TableData]) -> set[str]:
        """Write several tables' states in one transaction (the server's group commit), each only in
        its ``changed`` columns. Returns the codes whose write was refused because another process
        owns them now (a newer epoch: a fenced write, ``epoch`` set, finds no row); the others are
        written.

        The statements are SQLAlchemy's, compiled once for this database (:class:`_SaveStatement`)
        and run by the driver itself: SQLAlchemy's execution of each statement would cost more CPU
        than the commit itself."""
        if not batch:
            return set()
        now = _now()
        groups: dict[tuple[tuple[str, ...], bool], list[TableData]] = {}
        for d in batch:
            groups.setdefault((_columns(d), d.epoch is not None), []).append(d)
        refused: set[str] = set()
        # On an SQLite file the saves run one at a time, on the event loop (:class:`Writer`), so they
        # keep one connection: taking one from the pool and giving it back (with its reset) for
        # each group commit costs about as much CPU as the commit. Elsewhere they run in threads
        # and take one from the pool each time.
        held = self.local_file
        if held:
            if self._saving is None:
                self._saving = self.engine.raw_connection()
            connection = self._saving.driver_connection  # the driver's own (the pool's proxy adds a call to each)
        else:
            connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            for (columns, fenced), tables in groups.items():
                statement = self._save_statement(columns, fenced)
                stamp = statement.stamp(now)
                if not fenced:
                    cursor.executemany(statement.sql, [statement.parameters(d, stamp) for d in tables])
                    continue
                for d in tables:  # one at a time, to learn which rows another process owns now
                    cursor.execute(statement.sql, statement.parameters(d, stamp))
                    if cursor.rowcount != 1:
                        refused.add(d.code)
            cursor.close()
            connection.commit()
        except BaseException as error:
            if held:  # it may be broken: the next save takes a fresh one
                self._drop_saving_connection()
            elif isinstance(error, self.engine.dialect.loaded_dbapi.Error) and self.engine.dialect.is_disconnect(
                error, connection, None
            ):
                # the database went away (a restart): this connection is dead, and so are the others
                # the pool holds; a fresh pool connects again for the next save (SQLAlchemy does the
                # same for its own statements, which this raw connection bypasses)
                connection.invalidate(error)
                self.engine.dispose(close=False)
            else:
                connection.rollback()
            raise
        finally:
            if not held:
                connection.close()  # (back to the pool)
        return refused

    def _save_statement(self, columns: tuple[str, ...], fenced: bool) -> _SaveStatement:
        key = (columns, fenced)
        statement = self._save_statements.get(key)
        if statement is None:
            statement = self._save_statements[key] = _SaveStatement(self.engine.dialect, columns, fenced)
        return statement

    def release_table(self, code: str, epoch: int) -> None:
        """Give a table up (idle, or this process stops): any process may take it over at once."""
        table = Table_
        with self.engine.begin() as connection:
            connection.execute(
                update(table).where(table.c.code == code, table.c.owner_epoch == epoch).values(owner=None)
            )

    def load_table(self, code: str) -> TableData | None:
        with Session(self.engine) as session:
            row = session.scalars(select(TableRow).where(TableRow.code == code)).one_or_none()
            return None if row is None else _table_data(row)

    def playing_with_timer(self, at_least: int) -> list[str]:
        """The codes of the tables whose game runs with a time per move of ``at_least`` seconds or
        more (turn-based tables, whose time runs out with nobody at the table)."""
        with Session(self.engine) as session:
            rows = session.execute(select(TableRow.code, TableRow.settings).where(TableRow.status == "playing"))
            return [code for code, settings in rows if int((settings or {}).get("timer") or 0) >= at_least]

    # ------------------------------------------------------------------ finished games

    def finish_game(
        self,
        data: TableData,
        record: dict[str, Any],
        winners: list[int],
        deal_players: list[list[dict[str, Any]]] | None = None,
        after: Callable[[Session, GameRow], object] | None = None,
    ) -> int:
        """A finished game into the history and its table's new state (which names the game), in one
        transaction: either both are stored or neither is. Returns the game's id. ``after`` runs in
        the same transaction, once the game has its id (the accounts' seats and a rated game's
        ratings, :mod:`~sixnimmt.server.accounts.ratings`)."""
        with Session(self.engine) as session, session.begin():
            # a rated game is public, whatever its table: its result moves ratings everyone sees
            game = _game_row(data.code, data.game_number, record, winners, deal_players,
                             bool(data.settings.get("public") or data.settings.get("rated")))
            session.add(game)
            session.flush()
            current = {**(data.current or {}), "last_game_id": game.id}
            self._write_table(session, replace(data, current=current))
            if after is not None:
                after(session, game)
            return game.id

    def list_games(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The newest finished games of public tables (a private table's games are listed nowhere)."""
        with Session(self.engine) as session:
            rows = session.scalars(
                select(GameRow).where(GameRow.public.is_(True)).order_by(GameRow.id.desc()).limit(limit).offset(offset)
            )
            return [game_summary(r) for r in rows]

    def get_review(self, game_id: int, seat: int) -> dict[str, Any] | None:
        with Session(self.engine) as session:
            row = session.scalars(
                select(ReviewRow).where(ReviewRow.game_id == game_id, ReviewRow.seat == seat)
            ).one_or_none()
            return None if row is None else dict(row.result)

    def add_review(self, game_id: int, seat: int, result: dict[str, Any]) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(ReviewRow(game_id=game_id, seat=seat, result=result))

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        with Session(self.engine) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            return {**game_summary(row), "record": row.record, "deal_players": row.deal_players,
                    "public": row.public}


#: SQLite: the write-ahead log is checkpointed after this many table saves (a few MB of log).
CHECKPOINT_EVERY = 500


class Writer:
    """The store as the event loop uses it: every call runs on one worker thread, in order (SQLite
    wants one writer, and each table's writes keep their order), and table saves are group-committed:
    saves that arrive while a write is running go out together in the next transaction (only each
    table's newest state), and every caller waits for the commit that holds its save.

    On an SQLite file the group commits themselves run on the event loop, in order with the calls
    on the thread: such a commit appends a few pages to the write-ahead log (tens of microseconds),
    less than handing it to a thread and back costs; the log's checkpoints, which wait for the disk,
    run in a thread. And a save that finds the writer idle (nothing queued, nothing being written,
    no call on the thread) is committed then and there, inside :meth:`save`: waking the writer's
    task and then the saver again would cost more CPU than the commit.
    Saves still group while a write or a call on the thread is under way."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._saves_since_checkpoint = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._one_at_a_time = asyncio.Semaphore(1)
        self._unsaved: dict[str, TableData] = {}
        self._waiters: list[tuple[str, asyncio.Future[None]]] = []
        self._committing: list[tuple[str, asyncio.Future[None]]] = []
        self._wanted = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._writing = False  # a batch is being written (by the writer's task)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the worker thread, after the calls before it."""
        async with self._one_at_a_time:
            return await asyncio.to_thread(fn, *args)

    async def run_here(self, fn: Callable[..., T], *args: Any) -> T:
        """A short write (a row or two): on an SQLite file run on the event loop, in order with the
        other calls (as a table's save is, :meth:`save`), rather than handing it to the thread and
        back, which holds every save up meanwhile; elsewhere as :meth:`run`."""
        if not self.store.local_file:
            return await self.run(fn, *args)
        async with self._one_at_a_time:
            return fn(*args)

    async def save(self, data: TableData) -> None:
        """Persist a table's state; returns once it is committed."""
        if self.store.local_file and not (self._unsaved or self._writing or self._one_at_a_time.locked()):
            if data.code in self._save_here([data]):  # the writer is idle: commit now, on the loop
                raise LeaseLostError(data.code)
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        waiting = self._unsaved.get(data.code)
        if waiting is not None and data.changed is not None:
            # the newer state replaces the one not yet written: it must write that one's columns too
            data = replace(data, changed=None if waiting.changed is None else data.changed | waiting.changed)
        self._unsaved[data.code] = data
        self._waiters.append((data.code, done))
        self._wanted.set()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._write_behind())
        await done

    async def _write_behind(self) -> None:
        while True:
            await self._wanted.wait()
            self._wanted.clear()
            batch, waiters = self._unsaved, self._waiters
            self._unsaved, self._waiters = {}, []
            self._committing = waiters
            self._writing = True
            try:
                refused = await self._save_batch(list(batch.values()))
            except Exception as error:
                for _, waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)
                continue
            finally:
                self._writing = False
            for code, waiter in waiters:
                if not waiter.done():
                    if code in refused:
                        waiter.set_exception(LeaseLostError(code))
                    else:
                        waiter.set_result(None)

    async def _save_batch(self, batch: list[TableData]) -> set[str]:
        if not self.store.local_file:
            return await self.run(self.store.save_tables, batch)
        async with self._one_at_a_time:
            return self._save_here(batch)

    def _save_here(self, batch: list[TableData]) -> set[str]:
        """SQLite: write ``batch`` on the event loop (the caller holds the writer, or finds it
        idle), and start a checkpoint of the log when enough saves have gone into it."""
        refused = self.store.save_tables(batch)
        self._saves_since_checkpoint += len(batch)
        if self._saves_since_checkpoint >= CHECKPOINT_EVERY and (
            self._checkpoint is None or self._checkpoint.done()
        ):
            self._saves_since_checkpoint = 0
            self._checkpoint = asyncio.get_running_loop().create_task(self._checkpoint_log())
        return refused

    async def _checkpoint_log(self) -> None:
        try:
            await asyncio.to_thread(self.store.checkpoint)
        except Exception:  # the next one catches up; the log only grows meanwhile
            log.exception("the database's write-ahead log could not be checkpointed")

    async def close(self) -> None:
        """Let the last saves commit, then stop the writer."""
        pending = [w for _, w in self._committing + self._waiters if not w.done()]
        if pending:
            await asyncio.wait(pending, timeout=5)
        if self._task is not None:
            self._task.cancel()
        if self._checkpoint is not None:
            await asyncio.wait([self._checkpoint], timeout=5)


@contextmanager
def _file_lock(path: Path | None) -> Iterator[None]:
    """An exclusive lock on ``path`` for the block (nothing when ``path`` is None, or where the
    platform has no ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # Windows: one process per SQLite file is the supported setup there
        path = None
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _columns(data: TableData) -> tuple[str, ...]:
    """The state columns a save of ``data`` writes, in :data:`STATE_COLUMNS` order."""
    changed = data.changed
    return STATE_COLUMNS if changed is None else tuple(c for c in STATE_COLUMNS if c in changed)


@functools.cache
def _save_statement(columns: tuple[str, ...], fenced: bool) -> Update:
    """The ``UPDATE`` of a table's ``columns`` (and ``updated_at``). ``fenced``: written only by the
    table's owner (several processes), whose epoch must still be its own."""
    where = [Table_.c.code == bindparam("match_code")]
    if fenced:
        where.append(Table_.c.owner_epoch == bindparam("match_epoch"))
    return update(Table_).where(*where).values({name: bindparam(name) for name in (*columns, "updated_at")})


class _SaveStatement:
    """:func:`_save_statement` compiled for one database, with what turns a table's state into the
    driver's parameters: each column's own bind processing (JSON with orjson, dates as the dialect
    stores them), in the order or by the names the driver's parameter style wants."""

    def __init__(self, dialect: Dialect, columns: tuple[str, ...], fenced: bool) -> None:
        compiled = _save_statement(columns, fenced).compile(dialect=dialect)
        self.sql = str(compiled)
        names = [*columns, "updated_at", "match_code", *(("match_epoch",) if fenced else ())]
        self.names = list(compiled.positiontup) if compiled.positiontup is not None else names
        if sorted(self.names) != sorted(names):
            raise RuntimeError(f"unexpected parameters in {self.sql!r}: {self.names}")
        self.positional = compiled.positiontup is not None
        column = {"match_code": "code", "match_epoch": "owner_epoch"}
        processors = [
            Table_.c[column.get(name, name)].type.dialect_impl(dialect).bind_processor(dialect) for name in self.names
        ]
        self._stamp = processors[self.names.index("updated_at")]
        #: For each parameter, the ``TableData`` attribute it comes from (None: the save's time,
        #: processed once per batch by :meth:`stamp`) and its bind processing.
        attribute = {"updated_at": None, "match_code": "code", "match_epoch": "epoch"}
        self._fields = [(attribute.get(name, name), process) for name, process in zip(self.names, processors, strict=True)]

    def stamp(self, now: dt.datetime) -> Any:
        """``now`` as the driver takes it for ``updated_at`` (the same for every table of a batch)."""
        return now if self._stamp is None else self._stamp(now)

    def parameters(self, data: TableData, stamp: Any) -> tuple[Any, ...] | dict[str, Any]:
        values = [
            stamp if attr is None else getattr(data, attr) if process is None else process(getattr(data, attr))
            for attr, process in self._fields
        ]
        return tuple(values) if self.positional else dict(zip(self.names, values, strict=True))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run while a write commits; NORMAL sync is durable across a process kill
    # (only a power loss can drop the last commits), which is what a game server needs.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # see Store.checkpoint
    cursor.close()
