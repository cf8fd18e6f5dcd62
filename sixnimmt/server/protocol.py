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

``play``/``row``/``draft``/``order``/``keep``/``pass`` may carry ``"deal"`` and ``"turn"``: when they name a turn that is no longer
current, the message is stale and answered with an error and a fresh state, and changes nothing.

Outbound (server -> client), version :data:`WIRE_VERSION` (``table.wire`` in every state): ``state`` (the receiver's own view plus the table), ``update`` (public
events to animate, then the new state), ``chosen`` (someone chose a card: the public ``chosen`` flags
and ``waiting_for``, sent instead of an update when nothing else changed for the receiver), ``error`` (a one-line message; nothing changed), ``hint``
(``choice`` and per-option ``scores``, expected penalty), ``pong``.

Version 2 says who played what without any variant arithmetic: a ``cards-revealed`` event carries
``seat_cards`` (``[seat, card]`` pairs), a view carries ``revealed_by`` and ``played_by`` (the same
for the turn on show and the deal's finished turns), ``turns_per_deal`` (null when a deal has no fixed
length) and ``target`` (null when the variant has none). Version 1's fields are all still sent.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

#: The outbound format's version (see above).
WIRE_VERSION = 2


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _TurnMessage(_Message):
    deal: int | None = Field(default=None, ge=0, le=10_000)
    turn: int | None = Field(default=None, ge=0, le=100)


class Play(_TurnMessage):
    type: Literal["play"]
    card: int = Field(ge=1, le=104)


class ChooseRow(_TurnMessage):
    type: Literal["row"]
    row: int = Field(ge=0, le=3)


class Draft(_TurnMessage):
    type: Literal["draft"]
    card: int = Field(ge=1, le=104)


class Order(_TurnMessage):
    type: Literal["order"]
    card: int = Field(ge=1, le=104)


class Keep(_TurnMessage):
    type: Literal["keep"]
    card: int = Field(ge=1, le=104)


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


Move = Play | ChooseRow | Draft | Order | Keep | Pass | Retract
Inbound = Annotated[
    Play | ChooseRow | Draft | Order | Keep | Pass | Retract | Start | Again | Sync | Ping | Hint,
    Field(discriminator="type"),
]
_INBOUND: TypeAdapter[Inbound] = TypeAdapter(Inbound)


class ProtocolError(ValueError):
    """An inbound message that is not well formed; the text is safe to send back."""


def decode(
    text: str | bytes, max_bytes: int
) -> Play | ChooseRow | Draft | Order | Keep | Pass | Retract | Start | Again | Sync | Ping | Hint:
    """Parse and validate one inbound message, or raise :class:`ProtocolError` with one clear line."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > max_bytes:
        raise ProtocolError(f"message too large: {size} bytes (limit {max_bytes})")
    try:
        data: Any = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ProtocolError("message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message is a JSON object with a \"type\"")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a \"type\" string")
    try:
        return _INBOUND.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "union_tag_invalid":
            raise ProtocolError(f"unknown message type {kind[:40]!r}") from None
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError(f"bad {kind} message: {where}: {first['msg']}") from None


class RateLimiter:
    """A token bucket: ``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = now

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
