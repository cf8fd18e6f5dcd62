"""One bot program's seat at one table (docs/bot-api.md), connected to the table as a browser's
socket is: what the table sends the seat (``state``, ``update``, ``chosen``) becomes the local bot
protocol's notifications and ``decide`` requests (:class:`~sixnimmt.protocol.narration.Narrator`, the
code the ``cmd:`` host uses), with the table's code as ``game``; the program's ``move`` becomes the
table's ``play``/``row``/``draft``/``order``/``keep``/``pass``. The gateway
(:mod:`~sixnimmt.server.botapi.gateway`) holds the seats of each program."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ...core import PASS, PlayerView
from ...protocol.narration import Narrator
from ..clock import Clock
from ..cluster.forwarding import Link
from ..cluster.peers import Cluster
from ..refusal import Refusal
from ..tables.rooms import Rooms
from ..tables.table_setup import TableError
from ..wire import to_json

if TYPE_CHECKING:
    from ..tables.room import Room

log = logging.getLogger("sixnimmt.server")

#: The table's move message for each decision kind (``PASS`` is the ``pass`` message).
MOVE_MESSAGES = {"card": ("play", "card"), "row": ("row", "row"), "draft": ("draft", "card"),
                 "order": ("order", "card"), "keep": ("keep", "card")}
#: How a table refuses a connection (too many for the seat), and the pause before a seat whose table
#: moved to another process connects again.
REFUSED_CLOSE_CODE = 4429
REATTACH_SECONDS = 0.5
#: What a table sends a seat that the program does not need to hear.
QUIET = frozenset({"presence", "seats", "chat", "thinking", "pong", "hint", "invite"})


def players(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Who sits in each seat, for a bot (docs/bot-api.md), from the table's public seats: ``kind`` is
    ``person``, ``server-bot`` (with its ``level``), ``program`` (a bot program over this API),
    ``invited`` (kept for someone) or ``open``; ``account`` is the account it plays under (a signed-in
    person's, a program's), else null."""
    out: list[dict[str, Any]] = []
    for seat in seats:
        kind = str(seat.get("kind"))
        if kind == "human":
            kind = "program" if seat.get("program") else "person"
        elif kind == "bot":
            kind = "server-bot"
        who: dict[str, Any] = {"name": seat.get("name") or None, "kind": kind,
                               "account": seat.get("name") if kind == "program" or seat.get("member") else None}
        if kind == "server-bot":
            who["level"] = seat.get("bot")
        out.append(who)
    return out


class BotError(Refusal):
    """A program's message that cannot be followed (it is told why; nothing changes)."""

    def to_message(self) -> dict[str, Any]:
        return self.to_bot_message()


class Programs(Protocol):
    """What a seat link needs of the gateway that holds it (:class:`~.gateway.BotGateway`)."""

    rooms: Rooms
    cluster: Cluster | None
    clock: Clock

    def spawn(self, work: Awaitable[Any]) -> None: ...
    async def finish(self, link: SeatLink) -> None: ...
    def is_online(self, bot_id: int) -> bool: ...
    def tell(self, bot_id: int, out: list[dict[str, Any]]) -> None: ...
    def fallback_move(self, view: dict[str, Any]) -> int: ...


@dataclass(slots=True)
class OpenDecision:
    """The decision a seat's program is asked now: its request id and what it asked."""

    id: int
    key: tuple[Any, ...]
    view: dict[str, Any]
    answered: bool = False  # (a second answer is refused; a refused one asks again)


class SeatLink:
    """One bot program's seat at one table, connected to the table as a socket is (a
    :class:`~sixnimmt.server.tables.fanout.Connection`): what the table pushes is translated for the
    program, the program's moves for the table."""

    def __init__(self, gateway: Programs, bot_id: int, code: str, token: str) -> None:
        self.gateway = gateway
        self.bot_id = bot_id
        self.code = code
        self.token = token
        self.seat: int | None = None
        self.room: Room | None = None
        self.link: Link | None = None
        self.narrator = Narrator()
        self.started = False
        self.finished = False
        self.departed = False  # the program left the game: it watches for the end, to tell it
        self.view: dict[str, Any] | None = None
        self.open: OpenDecision | None = None
        self.ask_again = False  # the program reconnected: the open decision is asked again
        self.resync = False  # the program reconnected: the next view comes whole, as ``game-state``
        self.players: list[dict[str, Any]] = []  # who sits where (:func:`players`), as last told
        # (decide ids: unique in a game; a fresh link, as on another process, starts far from 0)
        self._next_id = secrets.randbelow(1 << 30) * 1000

    # ------------------------------------------------------------------ the table's side

    async def attach(self) -> None:
        """Connect to the table, wherever it is driven (its ``state`` follows)."""
        rooms = self.gateway.rooms
        target = await rooms.locate(self.code)
        if isinstance(target, str):
            assert self.gateway.cluster is not None
            self.link = self.gateway.cluster.link(self.code, target, self, self.token, "bot")
        else:
            self.room = target
            await target.admit(self, self.token, "bot")

    @property
    def attached(self) -> bool:
        return self.room is not None or self.link is not None

    async def detach(self) -> None:
        room, link, self.room, self.link = self.room, self.link, None, None
        if room is not None:
            await room.disconnect(self)
        elif link is not None and self.gateway.cluster is not None:
            await self.gateway.cluster.unlink(link)

    async def send(self, message: dict[str, Any]) -> None:
        """A message to the table, as the seat's socket would send it."""
        text = to_json(message)
        room = self.room if self.room is not None else (self.link.room if self.link is not None else None)
        if room is not None:
            await room.receive(self, text, "bot")
        elif self.link is not None and self.gateway.cluster is not None:
            self.gateway.cluster.forward(self.link, text)

    def close(self, code: int, reason: str) -> None:
        """The table closed this connection: it moved to another process (connect again, after a
        moment), or refused it (given up)."""
        if code == REFUSED_CLOSE_CODE:
            log.warning("bot %d: table %s refused its seat's connection: %s", self.bot_id, self.code, reason)
            self.gateway.spawn(self.gateway.finish(self))
            return
        self.gateway.spawn(self._reattach())

    def drop(self) -> None:
        self.close(0, "moved")

    async def _reattach(self) -> None:
        await self.detach()
        await self.gateway.clock.sleep(REATTACH_SECONDS)
        if (not self.finished or self.departed) and self.room is None and self.link is None \
                and self.gateway.is_online(self.bot_id):
            try:
                await self.attach()
            except (LookupError, TableError) as error:
                log.info("bot %d: table %s out of reach: %s", self.bot_id, self.code, error)

    def push(self, message: dict[str, Any]) -> None:
        """What the table sends this seat, for the program."""
        kind = message.get("type")
        if self.departed:
            self._watch_the_end(message)
        if self.finished:
            return
        out: list[dict[str, Any]] = []
        seats = message.get("seats") if kind == "seats" else (message.get("table") or {}).get("seats")
        if isinstance(seats, list) and players(seats) != self.players:
            self.players = players(seats)
            if self.started:  # (seats change hands at a deal's start: the bot hears who plays now)
                out.append({"type": "players", "players": self.players})
        if kind in QUIET:
            self.gateway.tell(self.bot_id, [{**m, "game": self.code} for m in out])
            return
        if kind == "error":
            out.append({"type": "error", "code": message.get("code", "table"), "message": message.get("message", ""),
                        "game": self.code})
            self.ask_again = True  # the move was refused: the decision, if still open, is asked again
            if self.view is not None and message.get("code") == "rate-limited":
                out += self._ask(self.view)  # (no fresh state follows this refusal)
        if isinstance(message.get("played_for"), dict) and message["played_for"].get("seat") == self.seat:
            out += self._stood_in(message)
        if kind in ("state", "update"):
            table = message.get("table") or {}
            if table.get("you") is None:
                self.finished = True  # the seat is no longer this program's
                out.append({"type": "error", "code": "unknown-game", "message": "the seat is no longer yours",
                            "game": self.code})
            else:
                self.seat = table.get("you", self.seat)
                view = message.get("view")
                if view is not None:
                    out += self._narrate(view, message.get("events", []) if kind == "update" else [],
                                         table.get("status") == "finished")
        elif kind == "chosen" and self.view is not None and "own" in message:
            self.view = {**self.view, "chosen": message.get("chosen"), "waiting_for": message.get("waiting_for"),
                         **message["own"]}
            out += self._ask(self.view)
        self.gateway.tell(self.bot_id, [{**m, "game": self.code} for m in out])
        if self.finished:
            self.gateway.spawn(self.gateway.finish(self))

    def _watch_the_end(self, message: dict[str, Any]) -> None:
        """After ``leave``: the game's end is the one thing the program still hears of it."""
        view = message.get("view")
        if message.get("type") in ("state", "update") and (message.get("table") or {}).get("status") == "finished" \
                and isinstance(view, dict):
            self.departed = False
            self.gateway.tell(self.bot_id, [{"type": "game-end", "totals": list(view["totals"]),
                                             "winners": list(view["winners"]), "game": self.code}])
            self.gateway.spawn(self.detach())

    def _narrate(self, view: dict[str, Any], events: list[dict[str, Any]], over: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self.view = view
        if not self.started:
            self.started = True
            started = self.narrator.start(PlayerView.from_dict(view))
            started[0]["players"] = self.players  # (game-start: who is who)
            out += [] if self.resync else started
        if self.resync:  # (one whole state instead of the events missed, which may or may not match)
            self.resync = False
            out.append({"type": "game-state", "players": self.players, "view": view})
            events = []
        for event in events:
            out += self.narrator.event(event)
            if event.get("type") == "game-over":
                self.finished = True
        if over and not self.finished:  # (connected again after the end: the result)
            out.append({"type": "game-end", "totals": list(view["totals"]), "winners": list(view["winners"])})
            self.finished = True
        if not self.finished:
            out += self._ask(view)
        return out

    def _ask(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        """A ``decide`` when the seat has a decision it was not asked yet."""
        decision = view.get("decision")
        if decision is None:
            self.open = None
            return []
        key = (view["deal"], view["turn"], to_json(decision))
        if self.open is not None and self.open.key == key:
            if not self.ask_again:
                return []
            self.ask_again = False
            self.open.answered = False
            return [{"type": "decide", "id": self.open.id, "view": view}]  # (the same decision, the same id)
        self._next_id += 1
        self.open, self.ask_again = OpenDecision(self._next_id, key, view), False
        return [*self.narrator.before_decision(view["deal"], view["turn"]),
                {"type": "decide", "id": self._next_id, "view": view}]

    def _stood_in(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """The stand-in played the open decision for the program (its time ran out, or it is away):
        it is told, with the move played."""
        asked, self.open = self.open, None
        if asked is None:
            return []
        reason = {"timer": "late", "away": "away"}.get(str(message["played_for"].get("reason")), "away")
        return [{"type": "stand-in", "id": asked.id, "reason": reason, "move": self._played(message)}]

    def _played(self, message: dict[str, Any]) -> int | None:
        """The move this seat made, as ``message`` shows it (None if it does not)."""
        own = message.get("own") or {}
        if own.get("my_choice") is not None:
            return int(own["my_choice"])
        for event in message.get("events", []):
            if event.get("type") == "cards-revealed":
                played = dict(map(tuple, event.get("seat_cards") or []))
                if self.seat in played:
                    return int(played[self.seat])
            elif event.get("seat") == self.seat and event.get("type") in ("row-taken", "card-placed"):
                return int(event["row"]) if event["type"] == "row-taken" else int(event["card"])
        return None

    # ------------------------------------------------------------------ the program's side

    async def move(self, request: Any, move: Any, bot_name: str) -> None:
        """The program's answer to decision ``request``."""
        asked = self.open
        if asked is None or asked.answered or isinstance(request, bool) or request != asked.id:
            raise BotError(f"decision {str(request)[:20]} is not open: nothing changed", "not-your-decision", game=self.code, id=request if isinstance(request, int) else None)
        decision = asked.view["decision"]
        self.open = OpenDecision(asked.id, asked.key, asked.view, answered=True)
        if isinstance(move, bool) or not isinstance(move, int) or move not in decision["options"]:
            fallback = self.gateway.fallback_move(asked.view)
            log.warning("bot %r at table %s: fault: illegal move %s for a %s decision (options %s): the stand-in "
                        "plays %d", bot_name, self.code, json.dumps(move)[:40], decision["kind"],
                        decision["options"], fallback)
            self.gateway.tell(self.bot_id, [BotError(f"{json.dumps(move)[:40]} is not one of the options {decision['options']}: "
                f"the stand-in played {fallback}", "illegal-move", game=self.code, id=asked.id).to_message(),
                {"type": "stand-in", "id": asked.id, "reason": "illegal", "move": fallback, "game": self.code}])
            move = fallback
        kind, field_name = MOVE_MESSAGES[decision["kind"]]
        passes = move == PASS and decision["kind"] in ("card", "keep")  # (row 0 is a row, not a pass)
        message: dict[str, Any] = {"type": "pass"} if passes else {"type": kind, field_name: move}
        await self.send({**message, "deal": asked.view["deal"], "turn": asked.view["turn"]})
