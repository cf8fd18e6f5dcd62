"""What a table is made of before any game runs on it: its seats (who sits where, held by which
token) and the options its host chose. Plain data with validation; no asyncio, no game."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..core import Rules, RulesError
from ..seats import LEVELS, available

NAME_LIMIT = 24
BOT_LEVELS = LEVELS  # the registry's list, weakest first
TIMER_CHOICES = (0, 15, 30, 45, 60, 90, 120)

#: Names bots sit down with (their level is shown next to the name).
BOT_NAMES = ("Bella", "Otto", "Luna", "Max", "Ivy", "Finn", "Nora", "Leo", "Mia", "Hugo")


class TableError(ValueError):
    """A request about a table that cannot be met (full, unknown, bad options); safe to show.

    ``code`` names the reason for the client to translate, ``params`` fill its text in; the
    English ``str(error)`` stays readable for scripts and logs."""

    def __init__(self, message: str, code: str = "table", **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def to_message(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "params": self.params, "message": str(self)}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    """A display name: trimmed, 1..24 printable characters. Shown as text, never as HTML."""
    if not isinstance(raw, str):
        raise TableError("a name is text", "name-empty")
    name = " ".join("".join(ch for ch in raw if ch.isprintable()).split())
    if not name:
        raise TableError("please enter a name", "name-empty")
    if len(name) > NAME_LIMIT:
        raise TableError(f"a name has at most {NAME_LIMIT} characters", "name-too-long", limit=NAME_LIMIT)
    return name


def bot_spec(level: str) -> str:
    """The registry name for a bot level; levels not registered (yet) play as ``random``."""
    return level if level in available() else "random"


def bot_label(index: int, taken: set[str]) -> str:
    """A friendly name for the bot in seat ``index``, distinct (ignoring case) from ``taken``."""
    folded = {name.casefold() for name in taken}
    for offset in range(len(BOT_NAMES)):
        name = BOT_NAMES[(index - 1 + offset) % len(BOT_NAMES)]
        if name.casefold() not in folded:
            return name
    return f"Bot {index + 1}"


@dataclass(slots=True)
class Seat:
    index: int
    kind: str  # "human", "bot" or "open" (waiting for a friend to join)
    name: str
    bot: str | None = None  # level, for bots
    token_hash: str | None = None
    # runtime only
    connections: int = 0
    away_since: float | None = None

    def to_store(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "bot": self.bot, "token_hash": self.token_hash}

    @classmethod
    def from_store(cls, index: int, data: dict[str, Any], now: float) -> Seat:
        seat = cls(index, data["kind"], data["name"], data.get("bot"), data.get("token_hash"))
        if seat.kind == "human":
            seat.away_since = now  # nobody is connected right after a load
        return seat

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "bot": self.bot, "connected": self.connections > 0}


@dataclass(slots=True)
class TableOptions:
    """What the creator chose; validated here (rules through :class:`Rules`)."""

    rules: Rules
    count: str = "up"  # display totals counting "up" (penalties) or "down" (points left)
    timer: int = 0  # seconds per decision, 0 = no timer
    fill_bot: str = "medium"  # level given to seats still open when the host starts

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "count": self.count,
            "timer": self.timer,
            "fill_bot": self.fill_bot,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        try:
            rules = Rules.from_dict(data["rules"])
        except RulesError as error:
            raise TableError(str(error), "bad-rules") from None
        count = data.get("count", "up")
        if count not in ("up", "down"):
            raise TableError("count is 'up' or 'down'", "bad-option", option="count")
        timer = data.get("timer", 0)
        if timer not in TIMER_CHOICES:
            raise TableError(
                f"timer must be one of {', '.join(map(str, TIMER_CHOICES))} seconds",
                "bad-option",
                option="timer",
            )
        fill_bot = data.get("fill_bot", "medium")
        if fill_bot not in BOT_LEVELS:
            raise TableError(
                f"unknown bot level {fill_bot!r}: choose one of {', '.join(BOT_LEVELS)}",
                "bad-option",
                option="fill_bot",
            )
        return cls(rules, count, timer, fill_bot)
