"""Tournaments the server announces by itself, from its settings (``sixnimmt serve --tournament
"every hour, swiss, standard, 5 players, 4 rounds"``, docs/web.md, "Tournaments").

A schedule is a line of comma-separated parts, in any order after the first:

- ``every N minutes`` / ``every N min`` / ``every hour`` / ``every N hours`` (first; at least 5 minutes);
- ``swiss``, ``duplicate`` or ``arena`` (default swiss);
- a variant (default standard);
- ``N players`` (the table size, default 4), ``N rounds`` (default 3), ``N deals`` (per game);
- ``N minutes long`` (an arena's length, default half the period);
- ``N BOTLEVEL bots`` (server bots entered, as ``4 medium bots``); ``rated``.

Each schedule always has its next tournament announced: the one starting at the next multiple of
its period (calendar time, from the Unix epoch, so every process agrees on it). Every process looks;
the tournament's ``schedule_key`` (the schedule and the start) is unique in the database, so one
tournament is announced whichever processes look.
"""

from __future__ import annotations

import logging
import math
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from ...core import RulesError
from ...core.variants import VARIANTS
from ..accounts.matchmaking import BOT_PRIOR
from ..accounts.ratings import default_rating
from ..clock import Clock
from ..tables.rooms import Rooms
from ..tables.table_setup import BOT_LEVELS, TableError, check_rated_rules
from .director import round_rules
from .tourney_rows import TournamentStore

log = logging.getLogger("sixnimmt.server")

FORMATS = ("swiss", "duplicate", "arena")
SHORTEST_PERIOD = 5 * 60


@dataclass(frozen=True)
class Scheduled:
    """One schedule line, read."""

    text: str
    period: int  # seconds
    format: str = "swiss"
    variant: str = "standard"
    players: int = 4
    rounds: int = 3
    deals: int | None = None
    minutes: int | None = None
    rated: bool = False
    bots: tuple[str, ...] = field(default_factory=tuple)

    def next_start(self, now: float) -> float:
        """The next start after ``now`` (calendar seconds)."""
        return (math.floor(now / self.period) + 1) * self.period

    def key(self, start: float) -> str:
        return f"{self.text}@{int(start)}"[:200]

    def name(self, start: float) -> str:
        import datetime as dt

        at = dt.datetime.fromtimestamp(start, dt.UTC).strftime("%H:%M")
        return f"{self.format.capitalize()} {self.variant} {at} UTC"


_EVERY = re.compile(r"^every\s+(?:(\d+)\s*)?(minutes?|min|hours?|h)$")
_COUNT = re.compile(r"^(\d+)\s+(players?|rounds?|deals?|minutes long|min long)$")
_BOTS = re.compile(r"^(\d+)\s+(\w+)\s+bots?$")


def parse_schedule(text: str) -> Scheduled:
    """A schedule line read (:class:`ValueError` with one line naming what is wrong otherwise)."""
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    every = _EVERY.match(parts[0]) if parts else None
    if every is None:
        raise ValueError(f"a schedule starts with 'every N minutes' or 'every hour': {text!r}")
    amount = int(every.group(1) or 1)
    period = amount * (3600 if every.group(2).startswith("h") else 60)
    if period < SHORTEST_PERIOD:
        raise ValueError(f"a schedule runs every {SHORTEST_PERIOD // 60} minutes at most often: {text!r}")
    found: dict[str, Any] = {"text": text.strip(), "period": period}
    bots: list[str] = []
    variants = {v.value for v in VARIANTS}
    for part in parts[1:]:
        count, many = _COUNT.match(part), _BOTS.match(part)
        if part in FORMATS:
            found["format"] = part
        elif part in variants:
            found["variant"] = part
        elif part == "rated":
            found["rated"] = True
        elif count is not None:
            word = count.group(2).split()[0].rstrip("s")
            found[{"player": "players", "round": "rounds", "deal": "deals", "minute": "minutes",
                   "min": "minutes"}[word]] = int(count.group(1))
        elif many is not None and many.group(2) in BOT_LEVELS:
            bots += [many.group(2)] * int(many.group(1))
        else:
            raise ValueError(f"unknown part {part!r} of the schedule {text!r}")
    if found.get("format") == "arena" and "minutes" not in found:
        found["minutes"] = max(1, period // 120)
    return Scheduled(**found, bots=tuple(bots))


def bot_entrants(levels: list[str] | tuple[str, ...]) -> tuple[tuple[str, str, float], ...]:
    """Server bots entered by level: a name of each one's own, its level, its rating's prior."""
    return tuple((f"{level.capitalize()} {number}", level, BOT_PRIOR.get(level, default_rating()[0]))
                 for number, level in enumerate(levels, start=1))


def tournament_settings(format_: str, variant: str, players: int, rounds: int, deals: int | None, minutes: int,
                        timer: int, fill: str, rated: bool, levels: list[str]) -> dict[str, Any]:
    """A tournament's settings, checked (a clear refusal otherwise): the rules its tables play,
    and a rated tournament's rules and bots as a rated table's."""
    if variant not in {v.value for v in VARIANTS}:
        raise TableError(f"unknown variant {variant!r}", "bad-option", option="variant")
    settings = {"variant": variant, "players": players, "rounds": 1 if format_ == "arena" else rounds,
                "deals": deals, "timer": timer, "fill": fill, "seed": secrets.randbits(62),
                **({"minutes": minutes} if format_ == "arena" else {}), **({"rated": True} if rated else {})}
    rules = round_rules({**settings, "format": format_})  # (refuses a table size the variant does not seat)
    if rated:
        check_rated_rules(rules, [fill, *levels])
    return settings


class Announcer:
    """Announces each schedule's next tournament (run by the director before each look)."""

    def __init__(self, rooms: Rooms, store: TournamentStore, schedules: list[Scheduled], clock: Clock) -> None:
        self.rooms = rooms
        self.store = store
        self.schedules = schedules
        self.clock = clock

    async def announce(self) -> None:
        for scheduled in self.schedules:
            start = scheduled.next_start(self.clock.wall())
            key = scheduled.key(start)
            if await self.rooms.db.run(self.store.announced, key):
                continue
            try:
                settings = tournament_settings(scheduled.format, scheduled.variant, scheduled.players,
                                               scheduled.rounds, scheduled.deals, scheduled.minutes or 30, 0,
                                               "medium", scheduled.rated, list(scheduled.bots))
            except (TableError, RulesError, ValueError) as error:
                log.warning("tournament schedule %r: %s", scheduled.text, error)
                continue
            made = await self.rooms.db.run(self.store.create, scheduled.name(start), scheduled.format, settings,
                                           start, None, bot_entrants(scheduled.bots), key)
            if made is not None:
                log.info("tournament %d announced for %s (%s)", made, scheduled.name(start), scheduled.text)
