"""The Bot API's messages from a bot program (docs/bot-api.md), typed as the browser's are: a tagged
union of small records, one per ``type``, each decoded from its JSON object by one function with the
checks and the refusal (:class:`~.seat_links.BotError`, ``bad-message``) that say what was wrong.

A field the gateway looks up rather than checks (a game's code, a seek's or an invitation's id, a
decision's id and the move) is kept as sent: an unknown one is refused where it is looked up, with
the reason that names it (``unknown-game``, ``unknown-seek``...), and a move that is not one of the
options is a fault the stand-in answers for."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ...core.variants import VARIANTS
from .seat_links import BotError

VARIANT_NAMES = frozenset(v.value for v in VARIANTS)

#: The standard reasons to decline an invitation or a challenge (any other text is ``generic``).
DECLINE_REASONS = ("generic", "later", "variant", "players", "rated", "casual", "too-many-games", "not-bots",
                   "going-offline")


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message: at most ``max_games`` games at once (None: the server's limit)."""

    type: ClassVar[str] = "hello"
    max_games: int | None


@dataclass(frozen=True, slots=True)
class Seek:
    """Look for a game of ``players`` (None: any number) in ``variant``, casual or rated."""

    type: ClassVar[str] = "seek"
    mode: str
    players: int | None
    variant: str


@dataclass(frozen=True, slots=True)
class CancelSeek:
    type: ClassVar[str] = "cancel-seek"
    seek: str


@dataclass(frozen=True, slots=True)
class Accept:
    type: ClassVar[str] = "accept"
    invitation: str


@dataclass(frozen=True, slots=True)
class Decline:
    type: ClassVar[str] = "decline"
    invitation: str
    reason: str


@dataclass(frozen=True, slots=True)
class Move:
    """The answer ``move`` to decision ``id`` at game ``game`` (each as sent)."""

    type: ClassVar[str] = "move"
    game: Any
    id: Any
    move: Any


@dataclass(frozen=True, slots=True)
class Leave:
    type: ClassVar[str] = "leave"
    game: Any


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the bot named ``bot`` to a game of ``players`` (None: two) in ``variant``."""

    type: ClassVar[str] = "challenge"
    bot: str
    mode: str
    players: int | None
    variant: str


@dataclass(frozen=True, slots=True)
class EnterTournament:
    """Enter the tournament ``tournament`` (docs/bot-api.md, "Tournaments"; as sent: the inbox has
    checked that it is a whole number)."""

    type: ClassVar[str] = "enter-tournament"
    tournament: Any


#: The messages after ``hello`` (``ping`` is answered before any of them is read).
BotMessage = Seek | CancelSeek | Accept | Decline | Move | Leave | Challenge | EnterTournament


def parse_json(text: str | None, max_bytes: int) -> dict[str, Any]:
    """A frame as a JSON object with a ``type`` (refused: too long, not JSON, not such an object)."""
    if text is None or len(text) > max_bytes:
        raise BotError(f"send JSON text frames of at most {max_bytes} bytes", "bad-message")
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise BotError("not JSON", "bad-message") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BotError("a message is a JSON object with a type", "bad-message")
    return message


def decode_hello(raw: dict[str, Any]) -> Hello:
    if "max_games" not in raw:
        return Hello(None)
    wanted = raw["max_games"]
    if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 1:
        raise BotError("max_games is a whole number of games, 1 or more", "bad-message")
    return Hello(wanted)


def _seek(raw: dict[str, Any]) -> Seek:
    mode, players, variant = raw.get("mode", "casual"), raw.get("players"), raw.get("variant", "standard")
    if mode not in ("casual", "rated") or variant not in VARIANT_NAMES or not (
        players is None or (isinstance(players, int) and not isinstance(players, bool))
    ):
        raise BotError("a seek has mode casual or rated, players 2..10 or null, and a variant", "bad-message")
    return Seek(mode, players, variant)


def _challenge(raw: dict[str, Any]) -> Challenge:
    mode, players, variant = raw.get("mode", "casual"), raw.get("players"), raw.get("variant", "standard")
    if mode not in ("casual", "rated"):
        raise BotError("a challenge is casual or rated", "bad-message", fields=["mode"])
    if variant not in VARIANT_NAMES:
        raise BotError(f"no variant {str(variant)[:20]!r}", "bad-message", fields=["variant"])
    return Challenge(str(raw.get("bot")), mode, players, variant)


#: How each message type is read from its JSON object (``hello`` and ``ping`` come first, apart).
DECODERS: dict[str, Callable[[dict[str, Any]], BotMessage]] = {
    "seek": _seek,
    "cancel-seek": lambda raw: CancelSeek(str(raw.get("seek"))),
    "accept": lambda raw: Accept(str(raw.get("invitation"))),
    "decline": lambda raw: Decline(str(raw.get("invitation")), str(raw.get("reason", ""))[:200]),
    "move": lambda raw: Move(raw.get("game"), raw.get("id"), raw.get("move")),
    "leave": lambda raw: Leave(raw.get("game")),
    "challenge": _challenge,
    "enter-tournament": lambda raw: EnterTournament(raw.get("tournament_id")),
}


def decode(raw: dict[str, Any]) -> BotMessage:
    """The typed message of a JSON object with a ``type`` (refused: an unknown type, a bad field)."""
    kind = raw["type"]
    decoder = DECODERS.get(kind)
    if decoder is None:
        raise BotError(f"unknown message type {kind[:30]!r}", "bad-message")
    return decoder(raw)
