"""What a misbehaving bot did wrong: one :class:`Fault` per incident, kept for the arena's report."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class FaultKind(StrEnum):
    TIMEOUT = "timeout"  # no reply within the time limit
    MALFORMED = "malformed"  # a reply that is not the JSON object the protocol asks for
    ILLEGAL = "illegal"  # a well-formed reply whose move is not one of the options
    UNSOLICITED = "unsolicited"  # a reply to a request the host never made (or made long ago)
    CRASH = "crash"  # the program exited or closed its output
    START = "start"  # the program could not be started, or failed the handshake
    ERROR = "error"  # an in-process bot raised an exception


@dataclass(frozen=True, slots=True)
class Fault:
    """One incident: which bot, what went wrong, for which request (deal and turn are 0-based,
    ``None`` outside a game), and what the host did about it."""

    bot: str
    kind: FaultKind
    message: str
    request: int | None = None
    deal: int | None = None
    turn: int | None = None
    seat: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value
        return data

    def text(self) -> str:
        """One log line naming the bot and the request."""
        where = []
        if self.seat is not None:
            where.append(f"seat {self.seat}")
        if self.deal is not None:
            where.append(f"deal {self.deal + 1}")
        if self.turn is not None:
            where.append(f"turn {self.turn + 1}")
        if self.request is not None:
            where.append(f"request {self.request}")
        place = f" ({', '.join(where)})" if where else ""
        return f"bot {self.bot!r}{place}: {self.kind.value}: {self.message}"


class BotFaultError(Exception):
    """Raised by a bot's ``decide`` when it has no move to give, after recording why in its own
    ``faults`` (an external program that crashed, timed out or answered garbage). The host's
    :class:`~sixnimmt.seats.GuardedSeat` plays its fallback instead: one fallback policy for all."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.text())
        self.fault = fault
