"""The WebSocket protocol: typed, tagged messages, decoded by one table.

Inbound (client -> server), one JSON object per message, at most ``Settings.max_message_bytes``:

``{"type": "play", "card": 14}``        choose (or change) this turn's card
``{"type": "row", "row": 2}``           answer a row choice (too-low card, Professional tie)
``{"type": "draft", "card": 7}``        Logic, Tournament: take a card from the open draft
``{"type": "retract"}``                 Nifty: take back this turn's chosen cards (to choose again)
``{"type": "order", "card": 31}``       Nifty: of your two cards, place this one first
``{"type": "keep", "card": 12}``        Hand: move this card of the row you just took into your hand
``{"type": "pass"}``                    Hand: play no second card, or keep no more taken cards ("Done")
``{"type": "start"}``                   the host starts now; open seats get bots
``{"type": "again"}``                   play again at the same table once the game is over
``{"type": "sync"}``                    ask for a fresh state (after a gap, or when unsure)
``{"type": "hint"}``                    ask a strong bot what it would do (answered to this connection only)
``{"type": "ping"}``                    keep-alive
``{"type": "invite", "seat": 2, "name": "Ana"}``   host: keep a seat for a named friend (reply: ``invite``)
``{"type": "release", "seat": 2}``      host: free a bot's or a vanished player's seat (next deal, once started)
``{"type": "chat", "text": "..."}``     a chat line; ``{"type": "react", "emoji": "👍"}`` a quick reaction
``{"type": "spectator-chat", "allow": true}``   host: let spectators write in the chat
``{"type": "table-chat", "allow": false}``   host: turn the table's chat off (or on again)
``{"type": "block", "seat": 2, "block": true}``   hide that seat's chat from me (false: show it again)
``{"type": "remove-spectator", "spectator": 3}``   host: remove the spectator numbered 3 in the chat

``play``/``row``/``draft``/``order``/``keep``/``pass`` may carry ``"deal"`` and ``"turn"``: when they name a turn that is no longer
current, the message is stale and answered with an error and a fresh state, and changes nothing.

Outbound (server -> client), version :data:`WIRE_VERSION` (``table.wire`` in every state): ``state`` (the receiver's own view plus the table), ``update`` (public
events to animate, then the new state), ``chosen`` (someone chose a card: the public ``chosen`` flags
and ``waiting_for``, sent instead of an update when nothing else changed; the chooser's own sockets
get it with ``own``, the chooser's own view fields), ``error`` (a one-line message; nothing changed), ``hint``
(``choice`` and per-option ``scores``, expected penalty), ``pong``, ``presence`` and ``seats``
(deltas), ``chat``, ``invite`` (to the host). docs/web.md lists every field and error code.

Version 2 says who played what without any variant arithmetic: a ``cards-revealed`` event carries
``seat_cards`` (``[seat, card]`` pairs), a view carries ``revealed_by`` and ``played_by`` (the same
for the turn on show and the deal's finished turns), ``turns_per_deal`` (null when a deal has no fixed
length) and ``target`` (null when the variant has none). Version 1's fields are all still sent.

Version 3: a move that only chooses a card is answered to the chooser, too, with ``chosen`` and its
own part of the view (``own``: ``seat``, ``hand``, ``my_choice``, ``my_choices``, ``decision``),
not with a whole ``update``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..core import DECK_SIZE, ROW_COUNT
from .refusal import Refusal

#: The outbound format's version (see above).
WIRE_VERSION = 3
#: WebSocket close code telling a page to reconnect (its table moved to another server process).
MOVED_CLOSE_CODE = 1012


class Outbound(dict[str, Any]):
    """One server -> client message. Its JSON text is made on first use and kept, so a message the
    room pushes to many sockets (an update to a seat's every socket, a ``chosen`` to every other
    player and spectator) is serialized once and the same text goes to each. Build a new message
    for every change; never modify one once it has been pushed."""

    __slots__ = ("_text",)

    def text(self) -> str:
        try:
            return self._text
        except AttributeError:
            self._text: str = to_json(self)
            return self._text

    @classmethod
    def prepared(cls, fields: dict[str, Any], text: str) -> Outbound:
        """A message whose JSON text is already made: ``text`` is ``fields`` as JSON (spliced from
        parts serialized once for many messages, :class:`~sixnimmt.server.tables.room.SharedState`)."""
        message = cls(fields)
        message._text = text
        return message


def to_json(value: Any) -> str:
    """Compact JSON (orjson: several times quicker than ``json`` on the server's messages; integer
    keys become strings as ``json`` would make them)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def wire_text(message: dict[str, Any]) -> str:
    """What goes on the wire for ``message``: an :class:`Outbound`'s kept text, else made now."""
    return message.text() if isinstance(message, Outbound) else to_json(message)


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _TurnMessage(_Message):
    deal: int | None = Field(default=None, ge=0, le=10_000)
    turn: int | None = Field(default=None, ge=0, le=100)


class Play(_TurnMessage):
    type: Literal["play"]
    card: int = Field(ge=1, le=DECK_SIZE)


class ChooseRow(_TurnMessage):
    type: Literal["row"]
    row: int = Field(ge=0, le=ROW_COUNT - 1)


class Draft(_TurnMessage):
    type: Literal["draft"]
    card: int = Field(ge=1, le=DECK_SIZE)


class Order(_TurnMessage):
    type: Literal["order"]
    card: int = Field(ge=1, le=DECK_SIZE)


class Keep(_TurnMessage):
    type: Literal["keep"]
    card: int = Field(ge=1, le=DECK_SIZE)


class Pass(_TurnMessage):
    type: Literal["pass"]


class Retract(_TurnMessage):
    type: Literal["retract"]


class Start(_Message):
    type: Literal["start"]


class Again(_Message):
    type: Literal["again"]


class Sync(_Message):
    type: Literal["sync"]


class Ping(_Message):
    type: Literal["ping"]


class Hint(_Message):
    type: Literal["hint"]


class Invite(_Message):
    type: Literal["invite"]
    seat: int = Field(ge=0, le=9)
    name: str = Field(max_length=200)


class Release(_Message):
    type: Literal["release"]
    seat: int = Field(ge=0, le=9)


class Leave(_Message):
    """A player gives their own seat up: a bot plays it from now on (the seat opens at the next deal)."""

    type: Literal["leave"]


class Chat(_Message):
    type: Literal["chat"]
    text: str = Field(max_length=2000)


class React(_Message):
    type: Literal["react"]
    emoji: str = Field(max_length=16)


class SpectatorChat(_Message):
    type: Literal["spectator-chat"]
    allow: bool


class TableChat(_Message):
    type: Literal["table-chat"]
    allow: bool


class BlockSeat(_Message):
    type: Literal["block"]
    seat: int = Field(ge=0, le=15)
    block: bool = True


class RemoveSpectator(_Message):
    type: Literal["remove-spectator"]
    spectator: int = Field(ge=1)


Move = Play | ChooseRow | Draft | Order | Keep | Pass | Retract
Message = (
    Play | ChooseRow | Draft | Order | Keep | Pass | Retract | Start | Again | Sync | Ping | Hint
    | Invite | Release | Leave | Chat | React | SpectatorChat | TableChat | BlockSeat | RemoveSpectator
)
Inbound = Annotated[Message, Field(discriminator="type")]
_INBOUND: TypeAdapter[Inbound] = TypeAdapter(Inbound)


class ProtocolError(Refusal):
    """An inbound message that is not well formed; the text is safe to send back (see docs/web.md,
    "Error codes")."""

    status = 422


def json_depth_over(text: str, limit: int) -> bool:
    """Whether ``text`` nests JSON arrays/objects deeper than ``limit`` (checked before parsing, so a
    thousand nested brackets cost a scan, not a recursion)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def decode(text: str, max_bytes: int, max_depth: int = 8) -> Message:
    """Parse and validate one inbound message, or raise :class:`ProtocolError` with one clear line."""
    size = len(text.encode())
    if size > max_bytes:
        raise ProtocolError(
            f"message too large: {size} bytes (limit {max_bytes})", "too-large", size=size, limit=max_bytes
        )
    if json_depth_over(text, max_depth):
        raise ProtocolError(f"message nested too deeply (limit {max_depth})", "too-deep", limit=max_depth)
    try:  # orjson, as for what the server sends: one JSON library on a move's path, not two
        data: Any = orjson.loads(text)
    except orjson.JSONDecodeError:  # (also NaN, Infinity, numbers beyond a double, lone surrogates)
        raise ProtocolError("message is not valid JSON", "bad-json") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message is a JSON object with a \"type\"", "not-an-object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a \"type\" string", "not-an-object")
    try:
        return _INBOUND.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "union_tag_invalid":
            raise ProtocolError(f"unknown message type {kind[:40]!r}", "unknown-type", type=kind[:40]) from None
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError(
            f"bad {kind} message: {where}: {first['msg']}", "bad-field", type=kind, field=where
        ) from None
