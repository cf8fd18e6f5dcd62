"""The accounts' rows (SQLAlchemy 2 models, on the store's :class:`~sixnimmt.server.store.rows.Base`):
users and their sign-in sessions, ratings and their history, the rated games applied, the seats of
accounts in finished games, and the tables offered to Play now."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    Boolean,
    ColumnElement,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    or_,
)
from sqlalchemy.orm import Mapped, mapped_column

from ..store.rows import Base


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class UserRow(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    kind: Mapped[str] = mapped_column(String(8), default="person")  # person | bot
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True, unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    password_epoch: Mapped[int] = mapped_column(Integer, default=0)
    seat_key: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    #: A bot program's account (kind "bot", no ``bot_level``): the person who owns it, and what it is.
    owner_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    description: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: Until when a moderator barred the account (docs/web.md, "Moderation"): it cannot sign in, its
    #: sessions and its bots' tokens are refused (None: never barred).
    banned_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)

    @classmethod
    def in_good_standing(cls) -> ColumnElement[bool]:
        """The rows of accounts not banned now (for the ``where`` of a query)."""
        return or_(cls.banned_until.is_(None), cls.banned_until <= now_utc())


class SessionRow(Base):
    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    password_epoch: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)


class RatingRow(Base):
    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("user_id", "variant", name="uq_ratings_user_variant"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(16))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float, index=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class RatingHistoryRow(Base):
    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("game_id", "user_id", name="uq_rating_history_game_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[int] = mapped_column(Integer, index=True)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rank: Mapped[int] = mapped_column(Integer)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class RatedGameRow(Base):
    """One row per rated game, inserted in the transaction that changes its ratings: a second try
    at the same game (another process, a retry after a crash) finds it and changes nothing."""

    __tablename__ = "rated_games"
    __table_args__ = (UniqueConstraint("table_code", "number", name="uq_rated_games_table_number"),)

    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_code: Mapped[str] = mapped_column(String(16))
    number: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(16))
    applied_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class GamePlayerRow(Base):
    """A seat of a finished game played under an account (for the profile's list of games)."""

    __tablename__ = "game_players"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_game_players_game_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(Integer, index=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)


class PlayNowRow(Base):
    """A table "Play now" opened, waiting for people (until its game starts)."""

    __tablename__ = "play_now"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    mode: Mapped[str] = mapped_column(String(8))  # rated | casual
    variant: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc, index=True)
