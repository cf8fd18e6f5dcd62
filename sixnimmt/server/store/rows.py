"""The rows the server keeps of its tables and games (SQLAlchemy 2 models): tables with their seats and
game in progress, finished games and their reviews, the cluster's processes and outbox; the accounts and
the Bot API add theirs to the same :class:`Base`. And :class:`TableData`, one table's row as the rooms
hand it to the store and get it back."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting | playing | finished
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
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
    #: When the current decision runs out with nobody at the table (calendar seconds; None: no
    #: such timer): what any live process of a cluster takes due tables by (:attr:`TableData.due_at`).
    due_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)


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
    finished_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now, index=True)
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
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)


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

    @property
    def due_at(self) -> float | None:
        """When the current decision runs out with nobody at the table, as calendar seconds (a
        turn-based game's deadline, kept in ``current``; a game without people, bot programs' and
        the server's bots': at once, so that a live process always drives it); None: nothing is due
        without a player."""
        if self.status != "playing" or not self.current:
            return None
        if not any(seat.get("kind") == "human" and not seat.get("program") for seat in self.seats):
            return 0.0  # (no person: nobody to wait for, its bots and programs' stand-ins play on at once)
        deadline = self.current.get("deadline")
        return None if deadline is None else float(deadline)

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


def table_data(row: TableRow) -> TableData:
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


def game_row(
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
