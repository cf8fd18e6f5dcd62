"""What a bot program sends (docs/bot-api.md): each frame decoded, held to the token's allowance,
checked (``hello`` first) and handed to the :class:`~.gateway.BotGateway`; anything refused is
answered with an ``error`` and changes nothing."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..refusal import Refusal
from .gateway import BotGateway, BotSession
from .seat_links import BotError

#: The program's messages, by type.
HANDLERS: dict[str, Callable[[BotGateway, BotSession, dict[str, Any]], Awaitable[None]]] = {
    "seek": BotGateway.seek,
    "cancel-seek": BotGateway.cancel_seek,
    "accept": lambda g, s, m: g.answer(s, m, True),
    "decline": lambda g, s, m: g.answer(s, m, False),
    "move": BotGateway.move,
    "leave": BotGateway.leave,
}


def _decode(gateway: BotGateway, text: str | None) -> dict[str, Any]:
    if text is None or len(text) > gateway.settings.max_message_bytes:
        raise BotError(f"send JSON text frames of at most {gateway.settings.max_message_bytes} bytes", "bad-message")
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise BotError("not JSON", "bad-message") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BotError("a message is a JSON object with a type", "bad-message")
    return message


async def receive(gateway: BotGateway, session: BotSession, text: str | None) -> None:
    """One frame from a program: its allowance, then its message (``hello`` first); anything refused
    is answered with an ``error`` and changes nothing."""
    now = gateway.clock.now()
    try:
        message = _decode(gateway, text)
        # An answer to an open decision is paced by the game itself; every other message (a wrong
        # answer too) takes from the token's allowance.
        if not gateway.answers(session, message) and not session.messages.allow(now):
            wait = round(session.messages.retry_after(now), 1)
            raise BotError(f"too many messages: at most {gateway.settings.program_messages_per_second:g} "
                           f"a second (try again in {wait} s)", "rate-limited", limit="messages", retry_after=wait)
        kind = message["type"]
        if kind == "ping":
            session.push({"type": "pong"})
        elif kind == "hello":
            if session.hello:
                raise BotError("hello comes once, first", "bad-message")
            await gateway.hello(session, message)
        elif not session.hello:
            raise BotError("say hello first", "bad-message")
        elif kind in HANDLERS:
            await HANDLERS[kind](gateway, session, message)
        else:
            raise BotError(f"unknown message type {kind[:30]!r}", "bad-message")
    except Refusal as error:  # (a table's refusal too, with its parameters)
        session.push(error.to_bot_message())
