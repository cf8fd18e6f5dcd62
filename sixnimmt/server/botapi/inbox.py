"""What a bot program sends (docs/bot-api.md): each frame decoded, held to the token's allowance,
checked (``hello`` first) and handed to the :class:`~.gateway.BotGateway`; anything refused is
answered with an ``error`` and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..refusal import Refusal
from .bot_wire import (
    Accept,
    CancelSeek,
    Challenge,
    Decline,
    EnterTournament,
    Leave,
    Move,
    Seek,
    decode,
    decode_hello,
    parse_json,
)
from .challenges import challenge
from .gateway import BotGateway, BotSession
from .seat_links import BotError
from .tourney_entries import enter_tournament


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message: its name, the JSON it holds (``integer``, ``string``, ``integer or
    null``, ``any``), whether it must be there, and what it means."""

    name: str
    json: str
    required: bool
    about: str

    def fits(self, value: Any) -> bool:
        if self.json == "any":
            return True
        if value is None:
            return "null" in self.json
        if self.json.startswith("integer"):
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, str) if self.json == "string" else True


@dataclass(frozen=True, slots=True)
class Message:
    """A message type a program sends: its fields and what it does."""

    type: str
    fields: tuple[Field, ...]
    does: str

    def check(self, message: dict[str, Any]) -> None:
        """A ``bad-message`` naming what is missing or of the wrong kind; nothing else is checked here."""
        wrong = [f"{f.name} ({f.json})" for f in self.fields
                 if (f.name in message and not f.fits(message[f.name])) or (f.required and f.name not in message)]
        if wrong:
            raise BotError(f"{self.type} needs {', '.join(wrong)}", "bad-message", fields=[w.split()[0] for w in wrong])


#: Every message a program sends, with its fields (docs/bot-api.md's reference is made from these).
FROM_BOT: dict[str, Message] = {m.type: m for m in (
    Message("hello", (Field("protocol", "integer", False, "2"), Field("client", "string", False, "the client's name/version"),
                      Field("max_games", "integer", False, "games at once, 1 or more (capped by the server)")),
            "first, once: answered by `welcome`"),
    Message("ping", (), "answered by `pong`"),
    Message("seek", (Field("mode", "string", False, "`casual` (the default) or `rated`"),
                     Field("players", "integer or null", False, "2..10, null for any"),
                     Field("variant", "string", False, "a variant, `standard` by default")),
            "Play now as a bot: answered by `seeking`, the game by `game-start` once its table is full"),
    Message("cancel-seek", (Field("seek", "string", True, "the seek's id"),), "answered by `seek-cancelled`"),
    Message("accept", (Field("invitation", "string", True, "the invitation's id"),),
            "takes the seat an invitation keeps; the game comes as `game-start`"),
    Message("decline", (Field("invitation", "string", True, "the invitation's id"),
                        Field("reason", "string", False, "a standard reason (see Challenges) or any text")),
            "the seat opens again (the inviter is told the reason)"),
    Message("move", (Field("game", "string", True, "the game"), Field("id", "integer", True, "the `decide` answered"),
                     Field("move", "any", True, "one of `view.decision.options`")),
            "answers `decide` `id`"),
    Message("challenge", (Field("bot", "string", True, "the bot, or the person, challenged, by account name"),
                          Field("mode", "string", False, "`casual` (the default) or `rated`"),
                          Field("players", "integer or null", False, "2..10, 2 by default: server bots take the other seats"),
                          Field("variant", "string", False, "a variant, `standard` by default")),
            "challenges a bot or a person by name: answered by `challenging`, then `game-start` or `challenge-declined`"),
    Message("leave", (Field("game", "string", True, "the game"),),
            "resigns: answered by `left`; the stand-in plays the seat to the end, and `game-end` still comes"),
    Message("enter-tournament", (Field("tournament_id", "integer", True, "the tournament's id"),),
            "enters a tournament before it starts: answered by `tournament-entered`; each round by `tournament-round`"),
)}

#: The program's messages after ``hello``, by their typed record (:mod:`.bot_wire`).
HANDLERS: dict[type, Callable[[BotGateway, BotSession, Any], Awaitable[None]]] = {
    Seek: BotGateway.seek,
    CancelSeek: BotGateway.cancel_seek,
    Accept: BotGateway.answer,
    Decline: BotGateway.answer,
    Move: BotGateway.move,
    Leave: BotGateway.leave,
    Challenge: challenge,
    EnterTournament: enter_tournament,
}


async def receive(gateway: BotGateway, session: BotSession, text: str | None) -> None:
    """One frame from a program: its allowance, then its message (``hello`` first); anything refused
    is answered with an ``error`` and changes nothing."""
    now = gateway.clock.now()
    try:
        raw = parse_json(text, gateway.settings.max_message_bytes)
        # An answer to an open decision is paced by the game itself; every other message (a wrong
        # answer too) takes from the token's allowance.
        if not gateway.answers(session, raw) and not session.messages.allow(now):
            wait = round(session.messages.retry_after(now), 1)
            raise BotError(f"too many messages: at most {gateway.settings.program_messages_per_second:g} "
                           f"a second (try again in {wait} s)", "rate-limited", limit="messages", retry_after=wait)
        kind = raw["type"]
        if kind in FROM_BOT:  # (the fields each type must have, named in the refusal)
            FROM_BOT[kind].check(raw)
        if kind == "hello":
            if session.hello:
                raise BotError("hello comes once, first", "bad-message")
            await gateway.hello(session, decode_hello(raw))
        elif not session.hello:
            raise BotError("say hello first", "bad-message")
        elif kind == "ping":
            session.push({"type": "pong"})
        else:
            message = decode(raw)
            await HANDLERS[type(message)](gateway, session, message)
    except Refusal as error:  # (a table's refusal too, with its parameters)
        session.push(error.to_bot_message())
