"""What a table's chat accepts: a short printable line, or one of the quick reactions."""

from __future__ import annotations

from typing import Any

from ..config import Settings
from .table_setup import REACTIONS, TableError, TableOptions


def chat_content(
    seat: int | None, options: TableOptions, settings: Settings, text: str | None = None, emoji: str | None = None
) -> dict[str, Any]:
    """What a chat line from ``seat`` (None: a spectator) says: ``text`` with its spaces tidied and
    unprintable characters dropped, or the reaction ``emoji``. Raises :class:`TableError` if it may
    not be said."""
    if emoji is not None:
        if emoji not in REACTIONS:
            raise TableError("that is not one of the quick reactions", "bad-reaction")
        content: dict[str, Any] = {"emoji": emoji}
    else:
        text = " ".join("".join(ch for ch in text or "" if ch.isprintable()).split())
        if not text:
            raise TableError("a chat line needs some text", "chat-empty")
        limit = settings.chat_max_chars
        if len(text) > limit:
            raise TableError(f"a chat line has at most {limit} characters", "chat-too-long", limit=limit)
        content = {"text": text}
    if seat is None and not options.spectator_chat:
        raise TableError("spectators read the chat but cannot write in it here", "chat-closed")
    return content
