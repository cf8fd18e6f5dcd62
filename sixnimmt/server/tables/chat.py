"""What a table's chat accepts: a short printable line, or one of the quick reactions; and what of it
each receiver sees (nothing of the seats it blocks, docs/web.md "Moderation")."""

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
    if not options.chat:
        raise TableError("the host turned this table's chat off", "chat-off")
    if seat is None and not options.spectator_chat:
        raise TableError("spectators read the chat but cannot write in it here", "chat-closed")
    return content


def chat_without(table: dict[str, Any], hidden: frozenset[int]) -> dict[str, Any]:
    """A table's state with the chat lines of the seats ``hidden`` (those its receiver blocks) left out."""
    if not hidden:
        return table
    return {**table, "chat": [line for line in table.get("chat", ()) if line.get("seat") not in hidden]}
