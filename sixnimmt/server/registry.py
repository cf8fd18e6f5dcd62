"""The registry of rooms: every room in memory, loaded from the store on first use and dropped again
when idle; creates tables (with fresh join codes) and lists them for the lobby."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from .clock import Clock, LoopClock
from .config import Settings
from .room import Room
from .scheduling import BotThreads
from .seats import BOT_LEVELS, Seat, TableError, TableOptions, bot_label, clean_name, hash_token
from .store import Store, Writer

#: Letters for join codes: no 0/O, 1/I/L, so a code read aloud or off a phone is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5


class Rooms:
    """Every room in memory, loaded from the store on first use; creates tables."""

    def __init__(self, store: Store, settings: Settings, clock: Clock | None = None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock or LoopClock()
        self.db = Writer(store)
        #: The threads every table's bots and hints think in (a cap on searches at once).
        self.threads = BotThreads(settings.think_threads, settings.think_niceness)
        self._rooms: dict[str, Room] = {}
        self._last_sweep = self.clock.now()
        self._loading = asyncio.Lock()

    async def _archive(
        self, code: str, number: int, record: dict[str, Any], winners: list[int], players: list[list[dict[str, Any]]]
    ) -> int:
        return await self.db.run(self.store.add_game, code, number, record, winners, players)

    def _room(self, code: str, options: TableOptions, seats: list[Seat]) -> Room:
        return Room(code, options, seats, self.settings, self.clock, self.db.save, self._archive, self.threads)

    async def get(self, code: str) -> Room:
        code = code.strip().upper()
        await self._evict_idle()
        if code in self._rooms:
            room = self._rooms[code]
            room.last_active = self.clock.now()  # about to be used: not idle
            return room
        async with self._loading:
            if code in self._rooms:
                return self._rooms[code]
            data = await self.db.run(self.store.load_table, code) if valid_code(code) else None
            if data is None:
                raise LookupError(f"no table with code {code[:CODE_LENGTH + 3]!r}")
            room = Room.from_store(data, self.settings, self.clock, self.db.save, self._archive, self.threads)
            self._rooms[code] = room
            return room

    async def create(self, options: TableOptions, host_name: str, seats: list[dict[str, Any]]) -> tuple[Room, str]:
        """A new table with the host in seat 0; ``seats`` describes seats 1.. ("open" or a bot)."""
        players = options.rules.players
        if len(seats) != players - 1:
            raise TableError(
                f"{players} players need {players - 1} seats besides the host's", "seat-count", players=players
            )
        host = clean_name(host_name)
        token = secrets.token_urlsafe(24)
        room_seats = [Seat(0, "human", host, None, hash_token(token), away_since=self.clock.now())]
        for index, spec in enumerate(seats, start=1):
            kind = spec.get("kind")
            if kind == "open":
                room_seats.append(Seat(index, "open", ""))
            elif kind == "bot":
                level = spec.get("bot", "medium")
                if level not in BOT_LEVELS:
                    raise TableError(
                        f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}",
                        "bad-option",
                        option="bot",
                    )
                taken = {s.name for s in room_seats}
                room_seats.append(Seat(index, "bot", bot_label(index, taken), level))
            else:
                raise TableError(f"seat {index + 1} must be 'open' or 'bot'", "bad-option", option="seats")
        async with self._loading:
            code = await self._new_code()
            room = self._room(code, options, room_seats)
            await self.db.run(self.store.create_table, room.to_store())
            self._rooms[code] = room
        if not room.open_seats():
            async with room.lock:
                await room.start_game()
        return room, token

    async def _evict_idle(self) -> None:
        """Drop rooms nobody has used for a while from memory (their state is in the store).
        Runs at most every few seconds, from :meth:`get`."""
        now = self.clock.now()
        if now - self._last_sweep < min(30.0, self.settings.idle_evict / 2):
            return
        self._last_sweep = now
        for code, room in list(self._rooms.items()):
            if room.idle(now, self.settings.idle_evict):
                async with room.lock:
                    if room.idle(now, self.settings.idle_evict):
                        await room.close()
                        del self._rooms[code]

    def loaded(self) -> int:
        return len(self._rooms)

    async def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._rooms and not await self.db.run(self.store.code_taken, code):
                return code

    def listing(self, limit: int = 40) -> list[dict[str, Any]]:
        """The lobby: public tables, waiting or playing, that someone is connected to (a table is in
        memory while anyone is), open ones first, then the busiest. Private tables are reached by
        their link or code only."""
        listed = [
            room for room in self._rooms.values()
            if room.options.public and room.connections and room.status in ("waiting", "playing")
        ]
        listed.sort(key=lambda r: (r.status != "waiting", -len(r.connections), r.code))
        return [room.summary() for room in listed[:limit]]

    async def close(self) -> None:
        for room in self._rooms.values():
            await room.close()
        self.threads.close()
        await self.db.close()


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)
