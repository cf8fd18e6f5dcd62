"""Blocks between accounts (docs/web.md, "Moderation"): who blocks whom, each account's list, its
budget, and the questions the tables, the invitations, Play now and the tournaments ask.

A block goes one way (the blocker no longer hears the blocked), but where the server seats people
together it keeps the two apart whichever of them blocked:
:func:`~sixnimmt.server.tables.shield.keeps_apart` is that rule, a pure function of the pairs, for any
seating code (the tournaments' too) to call with the pairs :meth:`Blocks.pairs_among` reads, or
through the book every ``Rooms`` holds (``rooms.blocks.keeps_apart``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..accounts.account_rows import UserRow, now_utc
from ..accounts.users import AccountError, name_key
from ..tables.shield import keeps_apart
from ..tables.table_setup import TableError
from .moderation_rows import BlockRow

if TYPE_CHECKING:
    from ..accounts.account_routes import AccountService

#: The most accounts one account may block, and how many blocks it may add in an hour.
MAX_BLOCKS = 200
BLOCKS_PER_HOUR = 30


class Blocks:
    """The blocks' database calls (synchronous: the routes run them in a thread)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def add(self, blocker: int, blocked: int, now: dt.datetime | None = None) -> None:
        """``blocker`` blocks ``blocked`` (once; a second time changes nothing). Raises
        :class:`AccountError` past :data:`MAX_BLOCKS` or :data:`BLOCKS_PER_HOUR`."""
        now = now or now_utc()
        if blocker == blocked:
            raise AccountError("you cannot block yourself", "block-self")
        with Session(self.engine) as session, session.begin():
            if session.get(BlockRow, (blocker, blocked)) is not None:
                return
            target = session.get(UserRow, blocked)
            if target is None or target.deleted_at is not None:
                raise AccountError("no such player", "no-player", status=404)
            mine = select(func.count()).select_from(BlockRow).where(BlockRow.blocker_id == blocker)
            if (session.scalar(mine) or 0) >= MAX_BLOCKS:
                raise AccountError(f"at most {MAX_BLOCKS} blocks: undo one first", "block-limit", status=409,
                                   limit=MAX_BLOCKS)
            recent = mine.where(BlockRow.created_at > now - dt.timedelta(hours=1))
            if (session.scalar(recent) or 0) >= BLOCKS_PER_HOUR:
                raise AccountError(f"at most {BLOCKS_PER_HOUR} blocks an hour: try again later", "rate-limited",
                                   status=429, retry_after=3600)
            try:
                session.add(BlockRow(blocker_id=blocker, blocked_id=blocked, created_at=now))
                session.flush()
            except IntegrityError:
                pass  # (the same block from two devices at once)

    def add_by_name(self, blocker: int, name: str, now: dt.datetime | None = None) -> dict[str, Any]:
        with Session(self.engine) as session:
            target = session.scalars(select(UserRow).where(
                UserRow.name_key == name_key(name.strip()[:64]), UserRow.deleted_at.is_(None))).one_or_none()
            if target is None:
                raise AccountError("no such player", "no-player", status=404)
            found = {"name": target.name}
            target_id = target.id
        self.add(blocker, target_id, now)
        return found

    def remove(self, blocker: int, name: str) -> None:
        with Session(self.engine) as session, session.begin():
            target = session.scalar(select(UserRow.id).where(UserRow.name_key == name_key(name.strip()[:64])))
            done = None if target is None else session.execute(
                delete(BlockRow).where(BlockRow.blocker_id == blocker, BlockRow.blocked_id == target))
            if done is None or not getattr(done, "rowcount", 0):
                raise AccountError("you do not block that player", "not-blocked", status=404)

    def listed(self, blocker: int) -> list[dict[str, Any]]:
        """The accounts ``blocker`` blocks, newest first (what the account settings list)."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(UserRow.name, BlockRow.created_at).join(UserRow, UserRow.id == BlockRow.blocked_id)
                .where(BlockRow.blocker_id == blocker).order_by(BlockRow.created_at.desc(), UserRow.name))
            return [{"name": name, "since": at.isoformat() + "Z"} for name, at in rows]

    def blocked_by(self, account: int) -> frozenset[int]:
        with Session(self.engine) as session:
            return frozenset(session.scalars(select(BlockRow.blocked_id).where(BlockRow.blocker_id == account)))

    def banned(self, account: int) -> bool:
        with Session(self.engine) as session:
            row = session.get(UserRow, account)
            return row is not None and row.banned_until is not None and row.banned_until > now_utc()

    def pairs_among(self, accounts: Collection[int]) -> frozenset[tuple[int, int]]:
        """Every (blocker, blocked) pair with both accounts among ``accounts``."""
        if not accounts:
            return frozenset()
        with Session(self.engine) as session:
            rows = session.execute(select(BlockRow.blocker_id, BlockRow.blocked_id).where(
                BlockRow.blocker_id.in_(accounts), BlockRow.blocked_id.in_(accounts)))
            return frozenset((int(a), int(b)) for a, b in rows)

    def involving(self, accounts: Collection[int]) -> frozenset[tuple[int, int]]:
        """Every (blocker, blocked) pair with one account among ``accounts``."""
        if not accounts:
            return frozenset()
        with Session(self.engine) as session:
            rows = session.execute(select(BlockRow.blocker_id, BlockRow.blocked_id).where(
                or_(BlockRow.blocker_id.in_(accounts), BlockRow.blocked_id.in_(accounts))))
            return frozenset((int(a), int(b)) for a, b in rows)


class AccountBlocks:
    """The tables' :class:`~sixnimmt.server.tables.shield.BlockBook`: :class:`Blocks` off the event loop."""

    def __init__(self, blocks: Blocks, service: AccountService) -> None:
        self.blocks = blocks
        self.service = service

    async def blocked_by(self, account: int) -> frozenset[int]:
        return await self.service.read(self.blocks.blocked_by, account)

    async def block(self, blocker: int, blocked: int) -> None:
        try:
            await self.service.write(self.blocks.add, blocker, blocked)
        except AccountError as error:
            raise TableError(str(error), error.code, **error.params) from None

    async def banned(self, account: int) -> bool:
        return await self.service.read(self.blocks.banned, account)

    async def keeps_apart(self, one: Iterable[int], other: Iterable[int]) -> bool:
        one, other = list(one), list(other)
        return keeps_apart(await self.service.read(self.blocks.involving, one), one, other)
