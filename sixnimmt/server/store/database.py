"""The database (SQLAlchemy 2): the rows of every subsystem (tables with their seats and game in
progress, finished games, accounts, the cluster's leases), and the reads and writes the server does,
with the :class:`~.writer.Writer` that groups table saves. The rooms call it; the game model never touches the
database.

Everything a room needs to come back after a restart is one row of ``tables``: its settings, its seats
(with the *hash* of each seat token, never the token), the game record so far and the cards already
chosen this turn. Finished games are copied to ``games`` for the history pages.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Table,
    bindparam,
    create_engine,
    event,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect, Engine, make_url
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Update

from ..wire import to_json
from .rows import (
    STATE_COLUMNS,
    GameRow,
    LeaseLostError,
    ReviewRow,
    TableData,
    TableRow,
    game_row,
    game_summary,
    table_data,
    utc_now,
)

MIGRATIONS = Path(__file__).with_name("migrations")

#: The advisory lock that serialises migrations on PostgreSQL (any fixed 64-bit number: "6nimmt!\0").
MIGRATION_LOCK_KEY = 0x366E696D6D742100


#: The ``tables`` table itself, for bulk statements.
Table_: Table = TableRow.__table__  # type: ignore[assignment]


#: Every PostgreSQL connection of the store gives up connecting after a few seconds, waiting for a
#: row lock after a few more, and running one statement after ten: a database that hangs makes a
#: call fail (the table goes back to its saved state, the page tries again) rather than wait for
#: ever. (A backend that cannot answer at all is the cluster's to notice: docs/scaling.md.)
POSTGRES_TIMEOUTS = {"connect_timeout": 5, "options": "-c lock_timeout=5000 -c statement_timeout=10000"}


class Store:
    """The database. Methods are synchronous; the server runs them through a :class:`~.writer.Writer`."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(
            # orjson, as the messages: serializing the record is the largest part of the store's
            # work per move.
            url, future=True, json_serializer=to_json, json_deserializer=orjson.loads,
            connect_args=POSTGRES_TIMEOUTS if make_url(url).get_backend_name() == "postgresql" else {},
        )
        #: An SQLite file: a commit appends to its write-ahead log, quick enough to run on the event
        #: loop (see :class:`~.writer.Writer`); the log's checkpoints, which write the file and sync it to
        #: disk, are :meth:`checkpoint`'s, run in a thread.
        self.local_file = self._lock_path() is not None
        self._save_statements: dict[tuple[tuple[str, ...], bool], _SaveStatement] = {}
        #: SQLite: the one connection the saves are written through (see :meth:`save_tables`).
        self._saving: Any = None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        #: The driver connections in use, with the thread using each (:meth:`cut_off`).
        self._in_use: dict[int, tuple[int, Any]] = {}
        event.listen(self.engine, "checkout", self._checked_out)
        for returned in ("checkin", "close", "invalidate"):  # (an invalidated one is checked in as None)
            event.listen(self.engine, returned, self._checked_in)

    def _checked_out(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        self._in_use[id(dbapi_connection)] = (threading.get_ident(), dbapi_connection)

    def _checked_in(self, dbapi_connection: Any, *_: Any) -> None:
        self._in_use.pop(id(dbapi_connection), None)

    def cut_off(self, threads: list[int]) -> None:
        """The database did not answer the calls running in ``threads``: shut their connections'
        sockets, so that the calls fail at once (a write not yet committing never commits: its
        backend finds its client gone) and their threads come back, and start a fresh pool (its
        other connections may lead to the same hung server; none is waited for)."""
        for thread, dbapi_connection in list(self._in_use.values()):
            if thread not in threads:
                continue
            try:
                with socket.socket(fileno=os.dup(dbapi_connection.pgconn.socket)) as cut:
                    cut.shutdown(socket.SHUT_RDWR)
            except Exception:  # (already closed; or not a PostgreSQL connection)
                pass
        self.engine.dispose(close=False)

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
                    due_at=data.due_at,
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
        row.due_at = data.due_at
        row.updated_at = utc_now()

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
        now = utc_now()
        groups: dict[tuple[tuple[str, ...], bool], list[TableData]] = {}
        for d in batch:
            groups.setdefault((_columns(d), d.epoch is not None), []).append(d)
        refused: set[str] = set()
        # On an SQLite file the saves run one at a time, on the event loop (:class:`~.writer.Writer`), so they
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
            return None if row is None else table_data(row)

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
            game = game_row(data.code, data.game_number, record, winners, deal_players,
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
    """The state columns a save of ``data`` writes, in :data:`STATE_COLUMNS` order, and the due time
    (derived from ``current``, the status and the seats, :attr:`TableData.due_at`) whenever one is written."""
    changed = data.changed
    columns = STATE_COLUMNS if changed is None else tuple(c for c in STATE_COLUMNS if c in changed)
    return (*columns, "due_at") if {"current", "status", "seats"} & set(columns) else columns


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
