"""The cluster's statements (several server processes on one PostgreSQL database: docs/scaling.md):
leases, ownership, due tables, balancing and the outbox, written with the models of :mod:`.rows`,
so the schema has one owner. Each is compiled once for PostgreSQL's driver and run by the driver
itself on the cluster's own connections (:func:`connect`), as the store's table saves are: the
cluster runs a statement for nearly every action (a message between processes), and SQLAlchemy's
execution of each would cost more CPU than the statement. Nothing here runs a statement itself."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    ARRAY,
    Float,
    Integer,
    Interval,
    String,
    Table,
    and_,
    any_,
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from .rows import OutboxRow, ProcessRow, TableRow

if TYPE_CHECKING:
    import psycopg

_tables: Table = TableRow.__table__  # type: ignore[assignment]
_processes: Table = ProcessRow.__table__  # type: ignore[assignment]
_outbox: Table = OutboxRow.__table__  # type: ignore[assignment]
_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]


class Statement:
    """One statement compiled for PostgreSQL's driver: its SQL, and its parameters by name, those
    the caller gives (:attr:`names`) and those the statement fixes (a constant in it)."""

    def __init__(self, statement: ClauseElement) -> None:
        compiled = statement.compile(dialect=_DIALECT)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self.names = frozenset(name for name, bind in compiled.binds.items() if bind.required)
        self._fixed = {name: value for name, value in compiled.params.items() if name not in self.names}

    def params(self, values: dict[str, Any]) -> dict[str, Any]:
        """The driver's parameters, given the caller's ``values`` (exactly :attr:`names`)."""
        if values.keys() != self.names:
            raise TypeError(f"{self.sql!r} takes {sorted(self.names)}, not {sorted(values)}")
        return {**self._fixed, **values} if self._fixed else values


def _codes(name: str = "codes") -> Any:
    return any_(bindparam(name, type_=ARRAY(String)))


_alive = and_(_processes.c.id == _tables.c.owner, _processes.c.lease_until > func.now())
_with_owner = _tables.outerjoin(_processes, _alive)

# ---------------------------------------------------------------- a process's lease

#: Whether process ``me``'s lease still runs (no row: it never had one).
LEASE_RUNS = Statement(select(_processes.c.lease_until > func.now()).where(_processes.c.id == bindparam("me")))
#: Process ``me``'s lease, renewed for ``lease`` (an interval) from the database's now.
RENEW = Statement(
    insert(_processes)
    .values(id=bindparam("me"), host=bindparam("host"), pid=bindparam("pid"), started_at=func.now(),
            lease_until=func.now() + bindparam("lease", type_=Interval))
    .on_conflict_do_update(index_elements=[_processes.c.id],
                           set_={"lease_until": insert(_processes).excluded.lease_until})
)
#: Process ``me`` leaves.
LEAVE = Statement(delete(_processes).where(_processes.c.id == bindparam("me")))
#: Leases that ran out longer than ``age`` ago (processes that died).
FORGET_DEAD = Statement(delete(_processes).where(_processes.c.lease_until < func.now() - bindparam("age", type_=Interval)))
#: The number of live processes.
LIVE_COUNT = Statement(select(func.count()).select_from(_processes).where(_processes.c.lease_until > func.now()))
#: The live processes among ``ids``.
ALIVE = Statement(select(_processes.c.id).where(_processes.c.id == _codes("ids"), _processes.c.lease_until > func.now()))
#: The live processes other than ``me``.
OTHERS = Statement(select(_processes.c.id).where(_processes.c.lease_until > func.now(), _processes.c.id != bindparam("me")))

# ---------------------------------------------------------------- who drives which table

#: Table ``code``'s owner, epoch, and whether the owner is alive.
OWNER = Statement(
    select(_tables.c.owner, _tables.c.owner_epoch, _processes.c.id.is_not(None))
    .select_from(_with_owner).where(_tables.c.code == bindparam("code"))
)
#: The live owner of each of ``codes`` (None: nobody alive drives it).
LIVE_OWNERS = Statement(select(_tables.c.code, _processes.c.id).select_from(_with_owner).where(_tables.c.code == _codes()))
#: Process ``me`` takes table ``code`` over if its epoch is still ``epoch``: the new epoch, or no row.
CLAIM = Statement(
    update(_tables).where(_tables.c.code == bindparam("code"), _tables.c.owner_epoch == bindparam("epoch"))
    .values(owner=bindparam("me"), owner_epoch=_tables.c.owner_epoch + 1).returning(_tables.c.owner_epoch)
)
#: Process ``owner`` hands table ``code`` (epoch ``epoch``) to process ``to``: the new epoch, or no row.
HAND_OVER = Statement(
    update(_tables)
    .where(_tables.c.code == bindparam("code"), _tables.c.owner == bindparam("owner"),
           _tables.c.owner_epoch == bindparam("epoch"))
    .values(owner=bindparam("to"), owner_epoch=_tables.c.owner_epoch + 1).returning(_tables.c.owner_epoch)
)
#: Table ``code``'s epoch if process ``me`` owns it.
MY_EPOCH = Statement(select(_tables.c.owner_epoch).where(_tables.c.code == bindparam("code"), _tables.c.owner == bindparam("me")))
#: Those of ``codes`` that process ``me`` does not own (any more).
NOT_MINE = Statement(select(_tables.c.code).where(_tables.c.code == _codes(), _tables.c.owner.is_distinct_from(bindparam("me"))))
_dropped = func.unnest(bindparam("codes", type_=ARRAY(String)), bindparam("epochs", type_=ARRAY(Integer))).table_valued(
    "code", "epoch").render_derived(name="dropped")
#: Process ``me`` gives up the tables ``codes``, each if its epoch is still the one in ``epochs``.
GIVE_UP = Statement(
    update(_tables)
    .where(_tables.c.code == _dropped.c.code, _tables.c.owner_epoch == _dropped.c.epoch, _tables.c.owner == bindparam("me"))
    .values(owner=None)
)
#: At most ``limit`` tables whose deadline falls by ``before`` (calendar seconds), whose game is in
#: play, and which no live process holds but ``me``: the earliest first, locked (rows another
#: transaction holds are skipped).
DUE = Statement(
    select(_tables.c.code).select_from(_with_owner)
    .where(_tables.c.due_at <= bindparam("before", type_=Float), _tables.c.status == "playing",
           or_(_processes.c.id.is_(None), _tables.c.owner == bindparam("me")))
    .order_by(_tables.c.due_at).limit(bindparam("limit", type_=Integer)).with_for_update(of=_tables, skip_locked=True)
)
#: Each live process with the number of games in play it drives.
GAMES_PER_PROCESS = Statement(
    select(_processes.c.id, func.count(_tables.c.code))
    .select_from(_processes.outerjoin(_tables, and_(_tables.c.owner == _processes.c.id, _tables.c.status == "playing")))
    .where(_processes.c.lease_until > func.now()).group_by(_processes.c.id)
)

# ---------------------------------------------------------------- messages (docs/scaling.md, the bus)

#: A NOTIFY of ``payload`` on ``channel``.
NOTIFY = Statement(select(func.pg_notify(bindparam("channel", type_=String), bindparam("payload", type_=String))))
#: A message too large for a NOTIFY: its row's id.
POST = Statement(_outbox.insert().values(created_at=func.now(), payload=bindparam("payload")).returning(_outbox.c.id))
#: Message ``id``, taken out of the outbox.
TAKE = Statement(delete(_outbox).where(_outbox.c.id == bindparam("id")).returning(_outbox.c.payload))
#: Messages older than ``age`` (their receiver died before taking them).
FORGET_OLD = Statement(delete(_outbox).where(_outbox.c.created_at < func.now() - bindparam("age", type_=Interval)))

#: How long a dead process's lease row and an untaken message are kept.
DEAD_LEASES_KEPT = dt.timedelta(days=1)
MESSAGES_KEPT = dt.timedelta(minutes=1)


def listen(channel: str) -> str:
    """The ``LISTEN`` of ``channel`` (a channel is a name, not a parameter)."""
    return f'LISTEN "{channel}"'


async def connect(engine: Engine, connect_timeout: int, lock_timeout_ms: int, statement_timeout_ms: int,
                  ) -> psycopg.AsyncConnection[Any]:
    """A connection of the cluster's: the driver's own asynchronous one, made with the arguments the
    store's ``engine`` makes its connections with (its URL: host, database, user, options such as
    ``application_name``), in autocommit, with the cluster's own timeouts."""
    import psycopg

    args, kwargs = engine.dialect.create_connect_args(engine.url)
    kwargs.pop("context", None)  # (SQLAlchemy's type adapters: the cluster's statements need none)
    return await psycopg.AsyncConnection.connect(
        *args, **kwargs, autocommit=True, connect_timeout=connect_timeout,
        options=f"-c lock_timeout={lock_timeout_ms} -c statement_timeout={statement_timeout_ms}")
