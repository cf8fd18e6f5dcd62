"""Who drives which table, as the database says: a table claimed by the epoch's compare-and-swap,
the live owners and processes, the tables whose deadline falls with nobody driving them, and this
process's share of the per-address budgets. Every statement is one of the store's
(:mod:`~sixnimmt.server.store.leases`), run through the cluster's
:meth:`~sixnimmt.server.cluster.peers.Cluster._sql` (its timeouts, its "try again" when the
database is out of reach).

- **Ownership** is a lease with a fencing epoch, kept in PostgreSQL. Each process has a row in
  ``server_processes`` that it renews every ``heartbeat_seconds``; it is alive while that row's
  ``lease_until`` (the database's clock) has not passed. A table's row names its owner and an epoch.
  A process takes a table over when it has no owner or its owner is dead, by a compare-and-swap
  that raises the epoch; every write of a table then carries the epoch, and the store refuses a
  write with an older one (:class:`~sixnimmt.server.store.database.LeaseLostError`), so a process that was
  paused or cut off and comes back can never overwrite the new owner's state. One lease row per
  *process*, not per table, keeps the heartbeat at one small write per process per second.
- **Deadlines**: a turn-based table's deadline is in its row (``tables.due_at``); every heartbeat
  each process takes the due tables whose owner is dead (:meth:`.Ownership.take_due`), so a game moves
  on time whichever process lives.
- **Fencing**: a process acts for a table only while its lease is current by its own clock (a
  process paused past its lease does nothing with what it queued meanwhile), every write carries
  the epoch (refused if another process took the table over), and every message from an owner to a
  forwarding process carries the owner's epoch (:mod:`.forwarding`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..limits import BUDGET_SHARE
from ..store import leases
from ..tables.table_setup import TableError
from .bus import Sql
from .forwarding import Forwarding

if TYPE_CHECKING:
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")

#: How many due tables one heartbeat takes at most (the rest wait for the next one, or another process).
DUE_BATCH = 20

class Ownership:
    """The questions of ownership this process asks the database."""

    def __init__(self, me: str, rooms: Rooms, sql: Sql, forwarding: Forwarding, heartbeat: float) -> None:
        self.me = me
        self.rooms = rooms
        self._sql = sql
        self.forwarding = forwarding
        self.heartbeat = heartbeat

    async def claim(self, code: str) -> tuple[str, int]:
        """Who drives ``code`` and with which epoch: this process's id (:attr:`me`) once it took the
        table over (nobody alive drove it), else the live owner's id (its epoch kept for
        :meth:`link`). Raises :class:`LookupError` if there is no such table."""
        for _ in range(5):
            rows = await self._sql(leases.OWNER, code=code)
            if not rows:
                raise LookupError(code)
            owner, epoch, alive = rows[0]
            if alive and owner != self.me:
                self.forwarding.epochs[code] = epoch
                return owner, epoch
            won = await self._sql(leases.CLAIM, code=code, epoch=epoch, me=self.me)
            if won:
                log.info("process %s drives table %s (epoch %d)", self.me, code, won[0][0])
                return self.me, int(won[0][0])
        raise TableError("the table is changing hands: try again", "table-unavailable")

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """The live owner of each table (None: nobody alive drives it)."""
        rows = await self._sql(leases.LIVE_OWNERS, codes=codes)
        return dict(rows)

    async def alive(self, processes: list[str]) -> set[str]:
        rows = await self._sql(leases.ALIVE, ids=processes)
        return {row[0] for row in rows}

    async def others(self) -> list[str]:
        """The other live processes."""
        rows = await self._sql(leases.OTHERS, me=self.me)
        return [row[0] for row in rows]

    async def take_due(self) -> list[str]:
        """Take the tables whose time runs out with nobody at them (``tables.due_at``, a turn-based
        game's deadline) within the next two heartbeats (the caller holds its lease) and that no live process has in hand: their
        owner died, or it is this process, which does not hold them in memory. Each is claimed (the
        epoch's compare-and-swap: of several processes one wins) and loaded, which schedules it, so
        its stand-in plays on time whichever process lives. Rows a transaction holds (a save under
        way) are skipped. Returns the codes this process took."""
        rows = await self._sql(leases.DUE, before=self.rooms.clock.wall() + 2 * self.heartbeat, me=self.me,
                               limit=DUE_BATCH)
        taken: list[str] = []
        for (code,) in rows:
            if self.rooms.local(code) is not None:
                continue
            try:
                room = await self.rooms.locate(code)
            except (LookupError, TableError) as error:
                log.warning("process %s: due table %s not taken: %s", self.me, code, error)
                continue
            if not isinstance(room, str):
                log.info("process %s took due table %s", self.me, code)
                taken.append(code)
        return taken

    async def share_budgets(self) -> None:
        """Grant this process's share of every per-address budget: one over the live processes."""
        live = await self._sql(leases.LIVE_COUNT)
        BUDGET_SHARE.processes = max(1, int(live[0][0]))
