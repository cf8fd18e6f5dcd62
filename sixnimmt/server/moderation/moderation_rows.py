"""Moderation's rows (migration 0010): reports, blocks, address bans, moderators, voided rated games
and the moderation log. An account's ban is ``users.banned_until``
(:class:`~sixnimmt.server.accounts.account_rows.UserRow`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..accounts.account_rows import now_utc
from ..store.rows import Base


class ReportRow(Base):
    """A player's report of another, with what was said and played around it when it was made."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc, index=True)
    reporter_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    reporter_address: Mapped[str] = mapped_column(String(64), index=True)
    target_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    target_name: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(String(500))
    place: Mapped[str] = mapped_column(String(16))  # table | chat | profile | game
    table_code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The chat lines and the game's record as they were when the report was made.
    context: Mapped[dict[str, Any]] = mapped_column(JSON)
    resolved_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    resolution: Mapped[str | None] = mapped_column(String(500), nullable=True)


class BlockRow(Base):
    """``blocker`` blocks ``blocked``: no chat, reaction, invitation or challenge from them, and no
    seat together where there is a choice."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True,
                                            index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class AddressBanRow(Base):
    __tablename__ = "address_bans"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    until: Mapped[dt.datetime] = mapped_column(DateTime)
    reason: Mapped[str] = mapped_column(String(500))


class ModeratorRow(Base):
    __tablename__ = "moderators"

    user_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    since: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class VoidedGameRow(Base):
    """A rated game a moderator voided: the ratings are replayed without it."""

    __tablename__ = "voided_games"

    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


class LogRow(Base):
    """One moderator's action: who, when, what, to whom and why."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc, index=True)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(128))
    reason: Mapped[str] = mapped_column(String(500))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
