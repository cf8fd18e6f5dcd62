"""Who hides whom at a table, and the host's hold on its chat (docs/web.md, "Moderation").

A player blocks another from the seat they sit at: the blocked seat's chat lines and reactions no
longer reach the blocker's sockets, neither as they are said nor in the chat a state carries. An
anonymous player's block holds at this table, for as long as both keep their seats; between two
accounts it is also kept as the accounts' block (the :class:`BlockBook` the server gives the
tables), so it holds at every table and in invitations, challenges and Play now. The tables never
reach the database for this themselves: the book does, and the shield keeps, for each account seated
here, whom it blocks.

The host turns the chat off for everyone or for the spectators (:mod:`.chat` refuses the lines), and
removes a spectator: each spectator who writes is known by a number in its lines, the host names that
number, and the spectator's socket is told, forgotten by the room and closed
(:mod:`.host_tools` has the messages' handlers).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from .fanout import Connection
from .seat import Seat


def keeps_apart(pairs: Collection[tuple[int, int]], one: Iterable[int], other: Iterable[int]) -> bool:
    """Whether an account of ``one`` and an account of ``other`` block each other, in either
    direction, by the (blocker, blocked) ``pairs``: where the server seats people together (Play
    now, tournaments), such accounts sit apart while there is a choice."""
    left, right = set(one), set(other)
    return any((a in left and b in right) or (a in right and b in left) for a, b in pairs)


class BlockBook(Protocol):
    """The accounts' blocks and bans, as the server keeps them (``server/moderation``)."""

    async def blocked_by(self, account: int) -> frozenset[int]:
        """The accounts ``account`` blocks."""
        ...

    async def block(self, blocker: int, blocked: int) -> None:
        """Keep ``blocker``'s block of ``blocked`` (raises :class:`TableError` past the budget)."""
        ...

    async def keeps_apart(self, one: Iterable[int], other: Iterable[int]) -> bool:
        """Whether an account of ``one`` blocks one of ``other`` (or the other way round)."""
        ...

    async def banned(self, account: int) -> bool:
        """Whether a moderator banned ``account`` (its seats may not be taken up again)."""
        ...


class NoBlocks:
    """The book of a server that keeps no blocks (a table on its own, in a test)."""

    async def blocked_by(self, account: int) -> frozenset[int]:
        return frozenset()

    async def block(self, blocker: int, blocked: int) -> None:
        return None

    async def keeps_apart(self, one: Iterable[int], other: Iterable[int]) -> bool:
        return False

    async def banned(self, account: int) -> bool:
        return False


class Shield:
    """One table's blocks and removed spectators."""

    def __init__(self, book: BlockBook | None = None) -> None:
        self.book: BlockBook = book or NoBlocks()
        #: Per seat token hash: the token hashes of the seats it blocks at this table.
        self._seat_blocks: dict[str, set[str]] = {}
        #: Per account seated here: the accounts it blocks (from the book, as its socket connected).
        self._accounts: dict[int, frozenset[int]] = {}
        self._spectators: dict[Connection, int] = {}
        self._numbered = 0
        self.removed: set[Connection] = set()
        #: The addresses of the spectators the host removed: they may not watch again.
        self.barred: set[str] = set()

    async def learn(self, account: int | None) -> None:
        """Read whom ``account`` blocks (its socket connects, or it blocked someone)."""
        if account is not None:
            self._accounts[account] = await self.book.blocked_by(account)

    def hidden(self, seat: int | None, seats: Sequence[Seat]) -> frozenset[int]:
        """The seats whose chat the holder of ``seat`` does not see (a spectator blocks nobody)."""
        if seat is None or not 0 <= seat < len(seats):
            return frozenset()
        mine = seats[seat]
        tokens = self._seat_blocks.get(mine.token_hash or "", set())
        accounts = self._accounts.get(mine.account, frozenset()) if mine.account is not None else frozenset()
        return frozenset(i for i, other in enumerate(seats) if i != seat and (
            (other.token_hash is not None and other.token_hash in tokens)
            or (other.account is not None and other.account in accounts)))

    def number(self, conn: Connection, chat: Sequence[dict[str, object]]) -> int:
        """The number a spectator's chat lines carry (the host removes it by this number): never one
        that a line of the table's ``chat`` already names (kept over a restart)."""
        if conn not in self._spectators:
            said = [n for line in chat if isinstance(n := line.get("spectator"), int)]
            self._numbered = max([self._numbered, *said]) + 1
            self._spectators[conn] = self._numbered
        return self._spectators[conn]

    def spectator(self, number: int) -> Connection | None:
        return next((c for c, n in self._spectators.items() if n == number), None)

    def forget(self, conn: Connection) -> None:
        self._spectators.pop(conn, None)
        self.removed.discard(conn)

    def block_seat(self, blocker: Seat, blocked: Seat, block: bool) -> None:
        assert blocker.token_hash is not None and blocked.token_hash is not None
        kept = self._seat_blocks.setdefault(blocker.token_hash, set())
        if block:
            kept.add(blocked.token_hash)
        else:
            kept.discard(blocked.token_hash)
