"""What a table is made of before any game runs on it: its seats (who sits where, held by which
token) and the options its host chose. Plain data with validation; no asyncio, no game."""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from dataclasses import dataclass, replace
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


def plain_letters(name: str) -> str:
    """``name`` without its combining marks, NFKC-normalised: an "Alicé" whose accent is a mark of
    its own, or a precomposed one, is "Alice"; a full-width A (U+FF21) is an A. Names that differ
    only in what this drops cannot be told apart on a screen, so none is compared without it
    (account names and names at a table alike)."""
    bare = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    return unicodedata.normalize("NFKC", bare)


def name_skeleton(name: str) -> str:
    """What a name looks like, for telling whether two names could be taken for each other: its
    :func:`plain_letters`, case folded, and every letter that looks like a Latin one as that letter
    (a Cyrillic "Bob" looks like the Latin one)."""
    # (capitals first: more of them have a Latin twin than small letters do, as the Cyrillic "B")
    return "".join(_looks_like(ch) for ch in plain_letters(name).upper()).casefold()


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


def check_bot_level(level: object, option: str) -> str:
    """``level`` if it is one of the server's bot levels, else a clear refusal naming ``option``."""
    if level not in BOT_LEVELS:
        raise TableError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}",
                         "bad-option", option=option)
    assert isinstance(level, str)
    return level


#: Bot levels that never sit at a rated table: a bot that plays at random gives rating away.
UNRATED_LEVELS = frozenset({"random"})


def rated_game(rules: Rules) -> Rules:
    """``rules`` as a rated table plays them: the variant's own target, end, number of deals and cards."""
    own = Rules(players=rules.players, variant=rules.variant)
    return replace(rules, target=own.target, end=own.end, deals=own.deals, size=own.size)


def check_rated_rules(rules: Rules, levels: list[str]) -> None:
    """A rated table plays its variant's own game: its target, end and number of deals (a game to 1
    point, or of one deal, measures too little to rate) with its own cards, against bots of the rated
    levels (``levels``: those of its seats and of its fill bot); else a clear refusal."""
    if rules != rated_game(rules):
        raise TableError("a rated table plays its variant's own game: its target and number of deals",
                         "rated-rules")
    for level in levels:
        if level in UNRATED_LEVELS:
            raise TableError(f"the {level!r} bot does not play rated games", "rated-bot", bot=level)


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
    chat: bool = True  # anyone may write in the chat (the host can turn it off for the whole table)
    #: The shuffle's seed (None: a fresh one each game). A tournament's duplicate round gives every
    #: table of the round the same one; it is never sent to anyone, or the cards would be known.
    seed: int | None = None
    #: The tournament whose round this table plays (None: an ordinary table). Its game goes on with
    #: nobody connected (the stand-in plays the absent), and it plays one game.
    tourney: int | None = None

    def keep_rated_rules(self) -> None:
        """A rated table's game as rated play fixes it, for a table stored before its rules were
        checked at creation (a shorter game, the ``random`` fill bot): the next game plays the
        variant's own, and the table stays rated."""
        if self.rated:
            self.rules = rated_game(self.rules)
            if self.fill_bot in UNRATED_LEVELS:
                self.fill_bot = "medium"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "count": self.count,
            "timer": self.timer,
            "fill_bot": self.fill_bot,
            "public": self.public,
            "spectator_chat": self.spectator_chat,
            **({"rated": True} if self.rated else {}),
            **({} if self.chat else {"chat": False}),
            **({"seed": self.seed} if self.seed is not None else {}),
            **({"tourney": self.tourney} if self.tourney is not None else {}),
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
        seed, tourney = data.get("seed"), data.get("tourney")
        return cls(rules, count, timer, fill_bot, bool(data.get("public", False)), bool(data.get("spectator_chat", False)),
                   bool(data.get("rated", False)), bool(data.get("chat", True)),
                   seed=seed if isinstance(seed, int) else None, tourney=tourney if isinstance(tourney, int) else None)
