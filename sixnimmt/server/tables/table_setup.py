"""What a table is made of before any game runs on it: its seats (who sits where, held by which
token) and the options its host chose. Plain data with validation; no asyncio, no game."""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Any

from confusable_homoglyphs import confusables

from ...core import Rules, RulesError
from ...seats import LEVELS, available
from ..refusal import Refusal

NAME_LIMIT = 24
BOT_LEVELS = LEVELS  # the registry's list, weakest first
TIMER_CHOICES = (0, 15, 30, 45, 60, 90, 120, 3600, 12 * 3600, 24 * 3600)
#: A per-move time of this many seconds or more makes a turn-based table: players come and go
#: between moves, nobody is played for for being away, and the time runs out whether or not anyone
#: is connected.
TURN_BASED = 3600
#: The quick reactions of the table chat.
REACTIONS = ("👍", "👏", "😂", "😮", "😢", "🐮")

#: Names bots sit down with (their level is shown next to the name).
BOT_NAMES = ("Bella", "Otto", "Luna", "Max", "Ivy", "Finn", "Nora", "Leo", "Mia", "Hugo")


class TableError(Refusal):
    """A request about a table that cannot be met (full, unknown, bad options); safe to show."""

    def __init__(self, message: str, code: str = "table", **params: Any) -> None:
        super().__init__(message, code, **params)


class StoreFailedError(TableError):
    """The store refused a change: the table went back to its last saved state, nothing changed."""

    def __init__(self) -> None:
        super().__init__("the server could not save that: nothing changed, please try again", "store-failed")


class TableMovedError(TableError):
    """Another server process drives the table now; the client reconnects (and reaches it)."""

    def __init__(self) -> None:
        super().__init__("this table moved to another server process: reconnecting", "table-unavailable")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: Characters that print as nothing though Unicode counts them as letters or symbols (Hangul
#: fillers, the blank Braille pattern): a name of only these would look empty.
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def clean_name(raw: object) -> str:
    """A display name: NFKC-normalised (so full-width or styled letters become plain ones),
    trimmed, 1..24 printable characters, at least one of them visible, and written in one alphabet
    where alphabets have letters that look alike (``confusable_homoglyphs``: a Cyrillic "B" and "o"
    before a Latin "b" pass for "Bob"). Shown as text, never as HTML."""
    if not isinstance(raw, str):
        raise TableError("a name is text", "name-empty")
    text = unicodedata.normalize("NFKC", raw)
    name = " ".join("".join(ch for ch in text if ch.isprintable() and unicodedata.category(ch) != "Cf").split())
    if not any(not ch.isspace() and ch not in BLANK_LOOKING for ch in name):
        raise TableError("please enter a name", "name-empty")
    if len(name) > NAME_LIMIT:
        raise TableError(f"a name has at most {NAME_LIMIT} characters", "name-too-long", limit=NAME_LIMIT)
    if confusables.is_dangerous(name):
        raise TableError("a name mixes alphabets whose letters look alike: write it in one",
                         "name-mixed-scripts")
    return name


@functools.lru_cache(maxsize=4096)
def _looks_like(ch: str) -> str:
    """The Latin letter ``ch`` looks like (itself if none)."""
    found = confusables.is_confusable(ch, preferred_aliases=["latin"])
    if found:
        for glyph in found[0]["homoglyphs"]:
            twin = str(glyph["c"])  # (some look-alikes are two characters: "rn" for "m")
            if len(twin) == 1 and unicodedata.name(twin, "").startswith("LATIN"):
                return twin
    return ch


def name_skeleton(name: str) -> str:
    """What a name looks like, for telling whether two names could be taken for each other: case
    folded, and every letter that looks like a Latin one as that letter (a Cyrillic "Bob" looks like
    the Latin one)."""
    # (capitals first: more of them have a Latin twin than small letters do, as the Cyrillic "B")
    return "".join(_looks_like(ch) for ch in unicodedata.normalize("NFKC", name).upper()).casefold()


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
    """One place at the table.

    ``kind`` is "human" (held by the token whose hash is ``token_hash``), "bot", "open" (waiting for
    anyone with the table's link) or "invited" (kept for the friend holding ``invite_hash``, named
    ``name``). While a game runs, every seat that is not "human" is played by a bot (its ``bot``
    level). Seat changes asked for during a game wait for the next deal: ``leaving`` (the host
    released the seat) and ``joining`` (a person who takes the seat over, with ``joining_hash``)."""

    index: int
    kind: str
    name: str
    bot: str | None = None  # level, for seats a bot plays
    token_hash: str | None = None
    invite_hash: str | None = None
    leaving: bool = False
    joining: str | None = None
    joining_hash: str | None = None
    #: The account a signed-in player sits under (its seat token is derived from the account).
    account: int | None = None
    #: A bot program playing over the Bot API (docs/bot-api.md) holds this "human" seat: it is
    #: shown as a bot, has its own time per decision and grace, and is played for as a person is.
    program: bool = False
    #: The account of the person taking the seat over at the next deal (``joining``), if signed in.
    joining_account: int | None = None
    # runtime only
    connections: int = 0
    away_since: float | None = None

    @property
    def person(self) -> bool:
        return self.kind == "human"

    def to_store(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "bot": self.bot, "token_hash": self.token_hash,
            "invite_hash": self.invite_hash, "leaving": self.leaving, "joining": self.joining,
            "joining_hash": self.joining_hash, **({"account": self.account} if self.account is not None else {}),
            **({"program": True} if self.program else {}),
            **({"joining_account": self.joining_account} if self.joining_account is not None else {}),
        }

    @classmethod
    def from_store(cls, index: int, data: dict[str, Any], now: float) -> Seat:
        seat = cls(
            index, data["kind"], data["name"], data.get("bot"), data.get("token_hash"), data.get("invite_hash"),
            bool(data.get("leaving")), data.get("joining"), data.get("joining_hash"), data.get("account"),
            bool(data.get("program")),
            data.get("joining_account"),
        )
        if seat.kind == "human":
            seat.away_since = now  # nobody is connected right after a load
        return seat

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name, "kind": self.kind, "bot": self.bot, "connected": self.connections > 0,
            "leaving": self.leaving, "joining": self.joining, **({"member": True} if self.account is not None else {}),
            **({"program": True} if self.program else {}),
        }

    def become_human(self, name: str, token_hash: str, now: float, account: int | None = None) -> None:
        self.kind, self.name, self.bot, self.token_hash, self.account = "human", name, None, token_hash, account
        self.program = False
        self.invite_hash, self.leaving, self.joining, self.joining_hash = None, False, None, None
        self.joining_account, self.away_since = None, now

    def become_open(self) -> None:
        self.kind, self.name, self.token_hash, self.invite_hash, self.account = "open", "", None, None, None
        self.program = False
        self.leaving, self.joining, self.joining_hash, self.away_since = False, None, None, None
        self.joining_account = None

    def become_invited(self, name: str, invite_hash: str) -> None:
        self.kind, self.name, self.token_hash, self.invite_hash, self.account = "invited", name, None, invite_hash, None
        self.program = False
        self.leaving, self.joining, self.joining_hash, self.away_since = False, None, None, None
        self.joining_account = None


def reseat(seats: list[Seat], fill_bot: str, now: float) -> bool:
    """At a deal's start: apply the seat changes asked for during the last one (a bot of the seat's
    level, else ``fill_bot``, takes a seat given up). Returns whether any seat changed hands."""
    changed = False
    for seat in seats:
        if seat.joining is not None and seat.joining_hash is not None:
            seat.become_human(seat.joining, seat.joining_hash, now, seat.joining_account)
            changed = True
        elif seat.leaving:
            invite = seat.invite_hash
            level = seat.bot or fill_bot
            if invite is not None:
                seat.become_invited(seat.name, invite)
            else:
                seat.become_open()
                seat.name = bot_label(seat.index, {s.name for s in seats})
            seat.bot = level
            changed = True
    return changed


def check_bot_level(level: object, option: str) -> str:
    """``level`` if it is one of the server's bot levels, else a clear refusal naming ``option``."""
    if level not in BOT_LEVELS:
        raise TableError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}",
                         "bad-option", option=option)
    assert isinstance(level, str)
    return level


def names_clash(name: str, seats: list[Seat], besides: int | None = None) -> bool:
    """Whether ``name`` is taken at the table, ignoring case and letters that look alike: by a
    seat's name (bots' too) or a person about to take a seat over. Seat ``besides`` (the one being taken) does not count."""
    looks = name_skeleton(name)
    for seat in seats:
        if seat.index == besides:
            continue
        if (seat.kind != "open" and name_skeleton(seat.name) == looks) or (
            seat.joining is not None and name_skeleton(seat.joining) == looks
        ):
            return True
    return False


@dataclass(slots=True)
class TableOptions:
    """What the creator chose; validated here (rules through :class:`Rules`)."""

    rules: Rules
    count: str = "up"  # display totals counting "up" (penalties) or "down" (points left)
    timer: int = 0  # seconds per decision, 0 = no timer
    fill_bot: str = "medium"  # level given to seats still open when the host starts
    public: bool = False  # listed in the lobby (while someone is at the table); else reached by link only
    spectator_chat: bool = False  # spectators may write in the chat (the host can switch it)
    rated: bool = False  # only accounts and the server's bots sit here; each game changes ratings

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "count": self.count,
            "timer": self.timer,
            "fill_bot": self.fill_bot,
            "public": self.public,
            "spectator_chat": self.spectator_chat,
            **({"rated": True} if self.rated else {}),
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
        fill_bot = check_bot_level(data.get("fill_bot", "medium"), "fill_bot")
        return cls(rules, count, timer, fill_bot, bool(data.get("public", False)), bool(data.get("spectator_chat", False)),
                   bool(data.get("rated", False)))
