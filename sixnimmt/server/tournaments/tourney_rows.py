"""What the database keeps of a tournament: the tournament (its settings, status and the round under
way), its entrants (numbered in seeding order once it starts), and each round's tables (the join
code planned before the table is opened, the entrant in each seat, and the totals once its game is
over). Every change of a tournament's course is one transaction that checks the tournament's
``version`` (a compare-and-swap), so of several processes that advance it at once one wins and the
others find the work done."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    Integer,
    String,
    UniqueConstraint,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..store.rows import Base, utc_now
from ..tables.table_setup import TableError

UPCOMING, RUNNING, FINISHED = "upcoming", "running", "finished"


class TournamentRow(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(16))  # swiss | duplicate | arena
    status: Mapped[str] = mapped_column(String(16), index=True)  # upcoming | running | finished
    #: variant, players, rounds, deals, timer, fill (the fill bot's level), seed (never shown).
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    starts_at: Mapped[float] = mapped_column(Float)  # calendar seconds
    round: Mapped[int] = mapped_column(Integer, default=0)  # rounds started
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    #: A tournament the server announced from a schedule: the schedule and its start (unique, so
    #: every process announcing it makes one tournament).
    schedule_key: Mapped[str | None] = mapped_column(String(200), nullable=True, unique=True)


class EntrantRow(Base):
    __tablename__ = "tournament_entrants"
    __table_args__ = (UniqueConstraint("tournament_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(64))
    account: Mapped[int | None] = mapped_column(Integer, nullable=True)  # a person's or a program's
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)  # a server bot's level
    program: Mapped[bool] = mapped_column(Boolean, default=False)
    rating: Mapped[float] = mapped_column(Float, default=0.0)  # the first round's seeding
    number: Mapped[int | None] = mapped_column(Integer, nullable=True)  # seeding order, from the start
    #: An arena entrant who paused: not seated at new tables until they resume.
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    #: When an arena entrant was last seen (calendar seconds): a person on the tournament's page, a
    #: program connected to the server.
    seen_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class RoundTableRow(Base):
    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(Integer, index=True)
    round: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)  # the first table holds the leaders
    code: Mapped[str] = mapped_column(String(16), unique=True)
    seats: Mapped[list[int]] = mapped_column(JSON)  # entrant numbers; -1: a fill bot
    totals: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)  # once its game is over
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


@dataclass(frozen=True, slots=True)
class Entrant:
    id: int
    name: str
    account: int | None
    bot: str | None
    program: bool
    rating: float
    number: int | None
    paused: bool = False
    seen_at: float | None = None

    @property
    def kind(self) -> str:
        return "program" if self.program else "bot" if self.bot is not None else "person"


@dataclass(frozen=True, slots=True)
class RoundTable:
    round: int
    position: int
    code: str
    seats: tuple[int, ...]
    totals: tuple[int, ...] | None
    game_id: int | None


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as the database holds it, entrants and tables included."""

    id: int
    name: str
    format: str
    status: str
    settings: dict[str, Any]
    starts_at: float
    round: int
    version: int
    created_by: int | None
    entrants: tuple[Entrant, ...]
    tables: tuple[RoundTable, ...]

    def tables_of(self, round_number: int) -> list[RoundTable]:
        return sorted((t for t in self.tables if t.round == round_number), key=lambda t: t.position)

    @property
    def rounds(self) -> int:
        return int(self.settings["rounds"])


def _entrant(row: EntrantRow) -> Entrant:
    return Entrant(row.id, row.name, row.account, row.bot, row.program, row.rating, row.number, bool(row.paused),
                   row.seen_at)


def _table(row: RoundTableRow) -> RoundTable:
    return RoundTable(row.round, row.position, row.code, tuple(row.seats),
                      None if row.totals is None else tuple(row.totals), row.game_id)


class TournamentStore:
    """The tournaments' rows; each method is one short transaction (run in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, name: str, format_: str, settings: dict[str, Any], starts_at: float,
               created_by: int | None, bots: tuple[tuple[str, str, float], ...] = (),
               schedule_key: str | None = None) -> int | None:
        """A new tournament with its server bots (name, level, rating) entered, in one transaction.
        None: the schedule's tournament of ``schedule_key`` is announced already."""
        try:
            with Session(self.engine) as session, session.begin():
                row = TournamentRow(name=name, format=format_, status=UPCOMING, settings=settings,
                                    starts_at=starts_at, round=0, version=0, created_by=created_by,
                                    schedule_key=schedule_key)
                session.add(row)
                session.flush()
                for bot_name, level, rating in bots:
                    session.add(EntrantRow(tournament_id=row.id, name=bot_name, account=None, bot=level,
                                           program=False, rating=rating))
                return row.id
        except IntegrityError:
            if schedule_key is None:
                raise
            return None

    def announced(self, key: str) -> bool:
        with Session(self.engine) as session:
            return session.scalar(select(TournamentRow.id).where(TournamentRow.schedule_key == key)) is not None

    def enter(self, tournament_id: int, name: str, account: int | None, bot: str | None, program: bool,
              rating: float, stable: tuple[int, ...] = ()) -> None:
        """A new entrant, before the tournament starts (refused after, or under a name taken). In a
        rated tournament, one entrant per ``stable`` (the accounts one person controls: a person and
        their bot programs), as at a rated table: their games together would move no honest rating."""
        try:
            with Session(self.engine) as session, session.begin():
                found = session.execute(select(TournamentRow.status, TournamentRow.settings)
                                        .where(TournamentRow.id == tournament_id).with_for_update()).one_or_none()
                if found is None:
                    raise LookupError(tournament_id)
                status, settings = found
                if status != UPCOMING:
                    raise TableError("this tournament has started: entries are closed", "tournament-started")
                if account is not None and session.scalar(select(EntrantRow.id).where(
                        EntrantRow.tournament_id == tournament_id, EntrantRow.account == account)) is not None:
                    return  # (entered already: a retry)
                mates = set(stable) - {account}
                if settings.get("rated") and mates and session.scalar(select(EntrantRow.id).where(
                        EntrantRow.tournament_id == tournament_id, EntrantRow.account.in_(mates))) is not None:
                    raise TableError("a rated tournament takes one entrant of a person and their bots: "
                                     "another of this stable is entered", "rated-same-owner")
                session.add(EntrantRow(tournament_id=tournament_id, name=name, account=account, bot=bot,
                                       program=program, rating=rating))
        except IntegrityError:
            raise TableError(f"the name {name!r} is entered already", "entrant-name-taken", name=name) from None

    def withdraw(self, tournament_id: int, account: int) -> bool:
        with Session(self.engine) as session, session.begin():
            status = session.scalar(select(TournamentRow.status).where(TournamentRow.id == tournament_id))
            if status != UPCOMING:
                return False
            row = session.scalars(select(EntrantRow).where(
                EntrantRow.tournament_id == tournament_id, EntrantRow.account == account)).one_or_none()
            if row is None:
                return False
            session.delete(row)
            return True

    def pause(self, tournament_id: int, account: int, paused: bool) -> bool:
        """An entrant's own pause (or its end); False if ``account`` is not entered."""
        with Session(self.engine) as session, session.begin():
            moved = session.execute(update(EntrantRow).where(
                EntrantRow.tournament_id == tournament_id, EntrantRow.account == account).values(paused=paused))
            return bool(moved.rowcount)  # type: ignore[attr-defined]

    def seen(self, tournament_id: int, accounts: list[int], now: float) -> None:
        """The entrants of these accounts are here now."""
        if accounts:
            with Session(self.engine) as session, session.begin():
                session.execute(update(EntrantRow).where(EntrantRow.tournament_id == tournament_id,
                                                         EntrantRow.account.in_(accounts)).values(seen_at=now))

    def load(self, tournament_id: int) -> Tournament | None:
        with Session(self.engine) as session:
            row = session.get(TournamentRow, tournament_id)
            if row is None:
                return None
            entrants = session.scalars(select(EntrantRow).where(EntrantRow.tournament_id == tournament_id)
                                       .order_by(EntrantRow.id))
            tables = session.scalars(select(RoundTableRow).where(RoundTableRow.tournament_id == tournament_id))
            return Tournament(row.id, row.name, row.format, row.status, dict(row.settings), row.starts_at,
                              row.round, row.version, row.created_by, tuple(_entrant(e) for e in entrants),
                              tuple(_table(t) for t in tables))

    def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest tournaments of each status, with their entrants counted."""
        with Session(self.engine) as session:
            rows = session.scalars(select(TournamentRow).order_by(TournamentRow.id.desc()).limit(limit)).all()
            counts: dict[int, int] = {}
            for (tid,) in session.execute(select(EntrantRow.tournament_id).where(
                    EntrantRow.tournament_id.in_([r.id for r in rows]))):
                counts[tid] = counts.get(tid, 0) + 1
            return [{"id": r.id, "name": r.name, "format": r.format, "status": r.status,
                     "starts_at": r.starts_at, "round": r.round, "rounds": r.settings.get("rounds"),
                     "variant": r.settings.get("variant"), "players": r.settings.get("players"),
                     "minutes": r.settings.get("minutes"), "rated": bool(r.settings.get("rated")),
                     "entrants": counts.get(r.id, 0)} for r in rows]

    def active(self, now: float) -> list[int]:
        """The tournaments with work to do: running ones, and upcoming ones whose start has come."""
        with Session(self.engine) as session:
            return list(session.scalars(select(TournamentRow.id).where(
                (TournamentRow.status == RUNNING)
                | ((TournamentRow.status == UPCOMING) & (TournamentRow.starts_at <= now))
            ).order_by(TournamentRow.id)))

    def advance(self, tournament_id: int, version: int, status: str, round_number: int,
                tables: list[tuple[str, tuple[int, ...]]], numbers: dict[int, int] | None = None) -> bool:
        """Move the tournament on (a compare-and-swap on ``version``): to ``status`` and round
        ``round_number``, whose ``tables`` (code, seats) are planned in the same transaction;
        ``numbers``: each entrant's seeding number (entrant id -> number), at the start. False if
        another process moved it on first (nothing is written then)."""
        with Session(self.engine) as session, session.begin():
            moved = session.execute(
                update(TournamentRow).where(TournamentRow.id == tournament_id, TournamentRow.version == version)
                .values(status=status, round=round_number, version=version + 1)
            )
            if moved.rowcount != 1:  # type: ignore[attr-defined]
                return False
            for entrant_id, number in (numbers or {}).items():
                session.execute(update(EntrantRow).where(EntrantRow.id == entrant_id).values(number=number))
            for position, (code, seats) in enumerate(tables):
                session.add(RoundTableRow(tournament_id=tournament_id, round=round_number, position=position,
                                          code=code, seats=list(seats)))
            return True

    def record_result(self, code: str, totals: list[int], game_id: int) -> None:
        """A table's game is over: its totals (written once; a second process writes the same)."""
        with Session(self.engine) as session, session.begin():
            session.execute(update(RoundTableRow).where(RoundTableRow.code == code, RoundTableRow.totals.is_(None))
                            .values(totals=totals, game_id=game_id))

    def code_planned(self, code: str) -> bool:
        with Session(self.engine) as session:
            return session.scalar(select(RoundTableRow.id).where(RoundTableRow.code == code)) is not None

    def round_playing(self, code: str) -> bool:
        """Whether ``code`` is a table of a duplicate round that some table of has not finished:
        every table of that round plays the same shuffle, so a finished table's game would show the
        cards the others still hold."""
        with Session(self.engine) as session:
            found = session.execute(select(RoundTableRow.tournament_id, RoundTableRow.round)
                                    .where(RoundTableRow.code == code)).one_or_none()
            if found is None:
                return False
            tournament_id, round_number = found
            if session.scalar(select(TournamentRow.format).where(TournamentRow.id == tournament_id)) != "duplicate":
                return False
            return session.scalar(select(RoundTableRow.id).where(
                RoundTableRow.tournament_id == tournament_id, RoundTableRow.round == round_number,
                RoundTableRow.totals.is_(None)).limit(1)) is not None

    def tournament_of(self, code: str) -> int | None:
        """The tournament whose round table ``code`` is (None: an ordinary table)."""
        with Session(self.engine) as session:
            return session.scalar(select(RoundTableRow.tournament_id).where(RoundTableRow.code == code))
