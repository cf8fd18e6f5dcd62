"""Play now: one request, and the player sits at a table within seconds.

The request names a mode (rated or casual), a variant and a player count (or any). The server tries
the tables "Play now" opened in the last :attr:`Settings.play_now_offer` seconds for the same mode,
variant and count, nearest in rating first (rows of ``play_now``, shared by every process: a table
another process drives is joined through it). If none has a free seat, it opens one with the player
in the first seat and every other seat open; after :attr:`Settings.play_now_wait` seconds the
process that drives it fills the seats still empty with bots of about the table's rating and the
game starts. A table whose game starts leaves ``play_now``.

Bots "of about your rating": each bot level's rating in the variant (its account plays rated games),
or, while that is provisional, the level's prior in :data:`BOT_PRIOR`; the levels whose μ is nearest
the player's are chosen, different levels first.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any

from ...core import Rules, Variant
from ...core.variants import VARIANTS
from ..calls import Join
from ..clock import Clock
from ..config import Settings
from ..tables.rooms import Rooms
from ..tables.table_setup import BOT_LEVELS, TableError, TableOptions, bot_label
from .account_rows import now_utc
from .ratings import PROVISIONAL_GAMES, Ratings, default_rating
from .users import Accounts, User, seat_token

log = logging.getLogger("sixnimmt.server")

#: A bot level's μ before its own rating settles (OpenSkill's scale; a newcomer is 25).
BOT_PRIOR = {"easy": 20.0, "medium": 25.0, "hard": 28.0, "expert": 31.0, "grandmaster": 34.0}
#: Players at a table "Play now" opens when the request says "any".
DEFAULT_PLAYERS = 4


class PlayNow:
    def __init__(self, rooms: Rooms, accounts: Accounts, ratings: Ratings, settings: Settings, clock: Clock) -> None:
        self.rooms = rooms
        self.accounts = accounts
        self.ratings = ratings
        self.settings = settings
        self.clock = clock
        self._timers: dict[str, Any] = {}
        self._bots_due: dict[str, float] = {}  # table code -> when its empty seats get bots (clock time)
        self._tasks: set[asyncio.Task[None]] = set()

    async def _mu(self, user: User | None, variant: str) -> float:
        if user is None:
            return default_rating()[0]
        mine = await self.rooms.db.run(self.ratings.ratings_of, user.id, variant)
        return float(mine[variant]["mu"]) if variant in mine else default_rating()[0]

    async def play(self, mode: str, variant: str, players: int | None, name: str, user: User | None,
                   program: bool = False, besides: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Seat the caller: at a waiting table, or at a new one. Returns code, seat, token, and
        ``bots_in``: the seconds before bots fill the seats still empty (None where this process
        does not keep that table's time; the page counts down "bots join in N s").
        ``program``: the caller is a bot program seeking a game (docs/bot-api.md), already seated
        at the tables ``besides`` (a seek is for another game)."""
        if mode == "rated" and user is None:
            raise TableError("sign in to play rated games", "rated-sign-in")
        low, high = VARIANTS[Variant(variant)].player_range
        if players is not None and not low <= players <= high:
            raise TableError(f"{variant} is played by {low} to {high} players", "seat-count", players=players)
        mu = await self._mu(user, variant)
        since = now_utc() - dt.timedelta(seconds=self.settings.play_now_offer)
        codes = await self.rooms.db.run(self.accounts.play_now_candidates, mode, variant, players, since, mu)
        # (at a rated table nobody meets their own bots: docs/web.md, "Rated play")
        stable = await self.rooms.db.run(self.accounts.stable, user.id) if user is not None and codes else ()
        for code in codes:
            if code in besides or (user is not None and await self._kept_apart(code, stable or (user.id,))):
                continue
            join = Join(user.name if user else name) if user is None else Join(
                user.name, account=user.id, token=seat_token(user.seat_key, code), program=program, stable=stable)
            try:
                seat, token, later = await self.rooms.call(code, join)
            except LookupError:
                await self.rooms.db.run(self.accounts.drop_play_now, code)
                continue
            except TableError as error:
                if error.code in ("table-full", "rated-sign-in", "invite-invalid"):
                    await self.rooms.db.run(self.accounts.drop_play_now, code)
                continue  # (a name taken at that table, a table changing hands: try the next)
            due = self._bots_due.get(code)
            return {"code": code, "seat": seat, "token": token, "from_next_deal": later, "opened": False,
                    "bots_in": None if due is None else max(0.0, round(due - self.clock.now(), 1))}
        count = players or DEFAULT_PLAYERS
        count = max(low, min(high, count))
        options = TableOptions(Rules(players=count, variant=Variant(variant)), fill_bot=self.levels_near(mu, 1)[0],
                               rated=mode == "rated")
        room, token = await self._create(options, user, name, count, program)
        await self.rooms.db.run(self.accounts.add_play_now, room.code, mode, variant, count, mu)
        loop = asyncio.get_running_loop()
        self._timers[room.code] = self.clock.call_later(
            self.settings.play_now_wait, lambda: self._spawn(loop, room.code, mu)
        )
        self._bots_due[room.code] = self.clock.now() + self.settings.play_now_wait
        return {"code": room.code, "seat": 0, "token": token, "from_next_deal": False, "opened": True,
                "bots_in": self.settings.play_now_wait}

    async def _kept_apart(self, code: str, mine: tuple[int, ...]) -> bool:
        """Whether someone seated at ``code`` and the caller (or its stable) block each other
        (docs/web.md, "Moderation"): Play now seats them elsewhere, or opens a table."""
        room = self.rooms.local(code)
        seats = [s.to_store() for s in room.table.seats] if room is not None else None
        if seats is None:
            data = await self.rooms.db.run(self.rooms.store.load_table, code)
            seats = [] if data is None else data.seats
        there = {int(s["account"]) for s in seats if s.get("account") is not None}
        return bool(there) and await self.rooms.blocks.keeps_apart(mine, there)

    async def _create(self, options: TableOptions, user: User | None, name: str, count: int, program: bool) -> Any:
        seats = [{"kind": "open"} for _ in range(count - 1)]
        if user is None:
            return await self.rooms.create(options, name, seats)
        key = user.seat_key
        return await self.rooms.create(options, user.name, seats, account=user.id,
                                       token_for=lambda code: seat_token(key, code), program=program)

    def _spawn(self, loop: asyncio.AbstractEventLoop, code: str, mu: float) -> None:
        task = loop.create_task(self.fill(code, mu))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def levels_near(mu: float, count: int, known: dict[str, float] | None = None) -> list[str]:
        """``count`` bot levels whose μ is nearest ``mu`` (distinct while there are enough)."""
        table = {**BOT_PRIOR, **(known or {})}
        order = sorted(table, key=lambda level: (abs(table[level] - mu), level))
        return [order[i % len(order)] for i in range(count)]

    async def _bot_mus(self, variant: str) -> dict[str, float]:
        ids = await self.rooms.db.run(self.accounts.bot_ids)
        known: dict[str, float] = {}
        for level, uid in ids.items():
            if level not in BOT_PRIOR:
                continue
            mine = await self.rooms.db.run(self.ratings.ratings_of, uid, variant)
            if variant in mine and mine[variant]["games"] >= PROVISIONAL_GAMES:
                known[level] = float(mine[variant]["mu"])
        return known

    async def fill(self, code: str, mu: float) -> None:
        """The wait is over: bots of about ``mu`` take the empty seats of ``code`` and the game starts
        (if this process still drives the table and its game has not started)."""
        self._timers.pop(code, None)
        self._bots_due.pop(code, None)
        room = self.rooms.local(code)
        try:
            if room is None:
                return
            variant = room.table.options.rules.variant.value
            known = await self._bot_mus(variant)
            async with room.lock:
                if room.table.status != "waiting" or room.table.closed:
                    return
                if not any(seat.held for seat in room.table.seats):
                    return  # everyone gave the table up (a bot program's seek cancelled): nobody waits for it
                empty = room.table.open_seats()
                levels = self.levels_near(mu, len(empty), known)
                for index, level in zip(empty, levels):
                    seat = room.table.seats[index]
                    seat.become_bot(level, bot_label(index, {s.name for s in room.table.seats}))
                await room.start_game()
        except TableError as error:
            log.warning("play now: table %s could not start: %s", code, error)
        except Exception:
            log.exception("play now: table %s could not start", code)
        finally:
            await self.rooms.db.run(self.accounts.drop_play_now, code)

    async def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._bots_due.clear()
        for task in list(self._tasks):
            task.cancel()


__all__ = ["BOT_LEVELS", "BOT_PRIOR", "PlayNow"]
