"""Bot accounts and their API tokens (docs/bot-api.md, "Bot accounts and tokens").

A bot account is a row of ``users`` of kind "bot" without a bot level (those are the server's own
bots) and without a password, so it can never sign in; ``owner_id`` is the person who made it. Its
name follows the people's rules and shares their namespace. Each API token is ``snb_`` and 32
random bytes, shown once; the database keeps its SHA-256 only, with a label, when it was last used
and when it was revoked. A revoked token, or a token of a deleted bot, is refused at once.

``bot_games`` holds the tables each bot program is seated at (while their game runs), so that the
process it reconnects to, whichever it is, resumes them. Every call here is synchronous (the server
runs them off the event loop).
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Integer, String, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..accounts.account_rows import UserRow, now_utc
from ..accounts.users import AccountError, Accounts, User, check_name, name_key, user_of
from ..store.rows import Base
from ..tables.table_setup import hash_token

#: Every token starts with this, so a leaked one is recognised (and redacted from logs).
TOKEN_PREFIX = "snb_"
#: The most bots one person may own, and tokens one bot may have alive.
MAX_BOTS_PER_OWNER = 20
MAX_TOKENS_PER_BOT = 10
DESCRIPTION_MAX = 200
LABEL_MAX = 40


class BotTokenRow(Base):
    __tablename__ = "bot_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(LABEL_MAX))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class BotGameRow(Base):
    __tablename__ = "bot_games"

    bot_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now_utc)


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """Who a valid token speaks for: the bot's account, its owner's name, the token's id, and the
    bot's description."""

    bot: User
    owner: str
    token_id: int
    description: str = ""


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def shown_token(token: str) -> str:
    """What a log may show of a token: its first 8 characters."""
    return token[:8] + "..."


def check_description(raw: object) -> str:
    if not isinstance(raw, str):
        raise AccountError("a description is text", "bot-description-invalid", max=DESCRIPTION_MAX)
    text = " ".join("".join(ch for ch in raw if ch.isprintable()).split())
    if len(text) > DESCRIPTION_MAX:
        raise AccountError(f"a description has at most {DESCRIPTION_MAX} characters", "bot-description-invalid",
                           max=DESCRIPTION_MAX)
    return text


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"


class BotAccounts:
    """The bot accounts' database calls (see the module docstring)."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    @property
    def engine(self) -> Any:
        return self.accounts.engine

    # ------------------------------------------------------------------ bots

    def create(self, owner: User, name: str, description: str) -> dict[str, Any]:
        name = check_name(name)
        description = check_description(description)
        with Session(self.engine) as session, session.begin():
            owned = session.scalars(select(UserRow.id).where(
                UserRow.owner_id == owner.id, UserRow.deleted_at.is_(None))).all()
            if len(owned) >= MAX_BOTS_PER_OWNER:
                raise AccountError(f"at most {MAX_BOTS_PER_OWNER} bots per account", "bot-limit", status=409, limit=MAX_BOTS_PER_OWNER)
            row = UserRow(name=name, name_key=name_key(name), kind="bot", bot_level=None, password_hash=None,
                          seat_key=secrets.token_hex(32), created_at=now_utc(), owner_id=owner.id,
                          description=description)
            session.add(row)
            try:
                session.flush()
            except IntegrityError:
                raise AccountError("that name is taken", "account-name-taken", status=409) from None
            return self._public(row, owner.name)

    @staticmethod
    def _public(row: UserRow, owner: str) -> dict[str, Any]:
        return {"name": row.name, "description": row.description or "", "owner": owner,
                "created": _iso(row.created_at)}

    def owned(self, owner: User) -> list[dict[str, Any]]:
        with Session(self.engine) as session:
            rows = session.scalars(select(UserRow).where(
                UserRow.owner_id == owner.id, UserRow.kind == "bot", UserRow.deleted_at.is_(None)
            ).order_by(UserRow.id))
            return [self._public(row, owner.name) for row in rows]

    def _owned_row(self, session: Session, owner: User, name: str) -> UserRow:
        """Bot ``name`` of ``owner``: 404 if there is no such bot, 403 if it is someone else's."""
        row = session.scalars(select(UserRow).where(
            UserRow.name_key == name_key(name[:64]), UserRow.kind == "bot", UserRow.bot_level.is_(None),
            UserRow.deleted_at.is_(None))).one_or_none()
        if row is None:
            raise AccountError("no such bot", "no-bot", status=404)
        if row.owner_id != owner.id:
            raise AccountError("this bot is not yours", "not-your-bot", status=403)
        return row

    def delete(self, owner: User, name: str) -> int:
        """Delete ``owner``'s bot ``name`` (as a person's account is deleted: its games stay under a
        neutral name, its ratings go) and stop its tokens. Returns the bot's id."""
        with Session(self.engine) as session:
            bot_id = self._owned_row(session, owner, name).id
        self.accounts.delete(bot_id)
        with Session(self.engine) as session, session.begin():
            session.execute(update(BotTokenRow).where(BotTokenRow.bot_id == bot_id, BotTokenRow.revoked_at.is_(None))
                            .values(revoked_at=now_utc()))
            session.execute(delete(BotGameRow).where(BotGameRow.bot_id == bot_id))
        return bot_id

    def bot_named(self, name: str) -> tuple[User, str] | None:
        """A bot program's account by name (not a person's, not one of the server's levels), with
        its owner's name."""
        with Session(self.engine) as session:
            row = session.scalars(select(UserRow).where(
                UserRow.name_key == name_key(name[:64]), UserRow.kind == "bot", UserRow.bot_level.is_(None),
                UserRow.deleted_at.is_(None))).one_or_none()
            if row is None:
                return None
            owner = session.get(UserRow, row.owner_id) if row.owner_id is not None else None
            return user_of(row), owner.name if owner is not None else ""

    def about(self, user_id: int) -> dict[str, Any] | None:
        """What a bot program's profile adds: its owner and description (None: not such a bot)."""
        with Session(self.engine) as session:
            row = session.get(UserRow, user_id)
            if row is None or row.kind != "bot" or row.bot_level is not None:
                return None
            owner = session.get(UserRow, row.owner_id) if row.owner_id is not None else None
            return {"owner": owner.name if owner is not None and owner.deleted_at is None else None,
                    "description": row.description or ""}

    # ------------------------------------------------------------------ tokens

    def new_token(self, owner: User, name: str, label: str) -> dict[str, Any]:
        label = " ".join(label.split())[:LABEL_MAX] or "token"
        token = new_token()
        with Session(self.engine) as session, session.begin():
            bot = self._owned_row(session, owner, name)
            if user_of(bot).banned():
                raise AccountError("a moderator closed this bot", "bot-closed", status=403)
            alive = session.scalars(select(BotTokenRow.id).where(
                BotTokenRow.bot_id == bot.id, BotTokenRow.revoked_at.is_(None))).all()
            if len(alive) >= MAX_TOKENS_PER_BOT:
                raise AccountError(f"at most {MAX_TOKENS_PER_BOT} tokens per bot: revoke one first", "token-limit", status=409, limit=MAX_TOKENS_PER_BOT)
            row = BotTokenRow(bot_id=bot.id, token_hash=hash_token(token), label=label, created_at=now_utc())
            session.add(row)
            session.flush()
            return {"id": row.id, "label": label, "token": token}

    def tokens(self, owner: User, name: str) -> list[dict[str, Any]]:
        with Session(self.engine) as session:
            bot = self._owned_row(session, owner, name)
            rows = session.scalars(select(BotTokenRow).where(
                BotTokenRow.bot_id == bot.id, BotTokenRow.revoked_at.is_(None)).order_by(BotTokenRow.id))
            return [{"id": r.id, "label": r.label, "created": _iso(r.created_at), "last_used": _iso(r.last_used_at)}
                    for r in rows]

    def revoke(self, owner: User, name: str, token_id: int) -> None:
        with Session(self.engine) as session, session.begin():
            bot = self._owned_row(session, owner, name)
            done = session.execute(update(BotTokenRow).where(
                BotTokenRow.id == token_id, BotTokenRow.bot_id == bot.id, BotTokenRow.revoked_at.is_(None)
            ).values(revoked_at=now_utc()))
            if not getattr(done, "rowcount", 0):
                raise AccountError("no such token", "no-token", status=404)

    def authenticate(self, token: str) -> BotIdentity | None:
        """The bot a token speaks for (None: unknown, revoked, or its bot deleted); notes the use."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            return None
        with Session(self.engine) as session, session.begin():
            found = session.execute(
                select(BotTokenRow, UserRow).join(UserRow, UserRow.id == BotTokenRow.bot_id)
                .where(BotTokenRow.token_hash == hash_token(token), BotTokenRow.revoked_at.is_(None),
                       UserRow.deleted_at.is_(None), UserRow.kind == "bot", UserRow.in_good_standing())
            ).one_or_none()
            if found is None:
                return None
            row, bot = found
            row.last_used_at = now_utc()
            owner = session.get(UserRow, bot.owner_id) if bot.owner_id is not None else None
            return BotIdentity(user_of(bot), owner.name if owner is not None else "", row.id, bot.description or "")

    def live_tokens(self, ids: list[int]) -> set[int]:
        """Of the tokens ``ids``, those that still work (not revoked, their bot not deleted)."""
        if not ids:
            return set()
        with Session(self.engine) as session:
            rows = session.scalars(
                select(BotTokenRow.id).join(UserRow, UserRow.id == BotTokenRow.bot_id)
                .where(BotTokenRow.id.in_(ids), BotTokenRow.revoked_at.is_(None), UserRow.deleted_at.is_(None),
                       UserRow.in_good_standing()))
            return set(rows)

    # ------------------------------------------------------------------ the tables a bot is seated at

    def add_game(self, bot_id: int, code: str) -> None:
        with Session(self.engine) as session, session.begin():
            if session.get(BotGameRow, (bot_id, code)) is None:
                session.add(BotGameRow(bot_id=bot_id, code=code, created_at=now_utc()))

    def drop_game(self, bot_id: int, code: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(BotGameRow).where(BotGameRow.bot_id == bot_id, BotGameRow.code == code))

    def games_of(self, bot_id: int) -> list[str]:
        with Session(self.engine) as session:
            return list(session.scalars(select(BotGameRow.code).where(BotGameRow.bot_id == bot_id)
                                        .order_by(BotGameRow.created_at, BotGameRow.code)))
