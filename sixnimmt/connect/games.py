"""One game a connected bot plays: the server's messages for it, turned into the calls a local bot takes.

The server sends the local bot protocol's host messages (docs/bot-protocol.md) with a ``game`` field.
Every bot the registry builds, an in-process one or an external program (``cmd:``), is driven the
same way, through a :class:`~sixnimmt.seats.GuardedSeat`: a ``decide`` carries the complete view
(:meth:`PlayerView.from_dict`), and a bot that listens to events (an external program does, to pass
them on as its own protocol lines) hears the events of ``deal-start``, ``turn-result``, ``deal-end``
and ``game-end`` rebuilt with :func:`~sixnimmt.core.event_from_dict`. So an external program sees the
very lines it would see in the arena, written by the same code.

The methods here block (a search thinks, a program is started and asked): the client calls them
from a worker thread, one message at a time per game, in the order the server sent them.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from ..core import DealScored, DealStarted, Event, GameOver, PlayerView, Rules, event_from_dict
from ..seats import Clock, Fault, GuardedSeat, make_bot

log = logging.getLogger("sixnimmt.connect")


@dataclass
class GameStatus:
    """What the status line shows of one game (read by the event loop, written by the game's worker;
    each field is replaced whole, so a reader never sees half an update)."""

    game: str
    seats: tuple[str, ...] = ()
    seat: int | None = None
    rules: Rules | None = None
    deal: int = 0
    turn: int = 0
    totals: tuple[int, ...] = ()
    decisions: int = 0
    last_ms: float = 0.0
    faults: int = 0
    winners: tuple[int, ...] | None = None  # set once the game is over
    left: bool = False  # resigned (a second Ctrl-C): the server's fallback plays the seat


class RemoteGame:
    """The bot ``spec`` in one server game ``game``; :meth:`handle` takes each message for it."""

    def __init__(self, game: str, spec: str, *, seed: int | None = None, clock: Clock = time.perf_counter) -> None:
        self.id = game
        self.spec = spec
        self.seat = GuardedSeat(make_bot(spec, seed), fallback_seed=seed or 0, label=spec, clock=clock)
        self.status = GameStatus(game)
        self._view: PlayerView | None = None  # the view the bot last saw: where it thinks the game is
        self._start: dict[str, Any] | None = None  # the game-start message, until the bot is prepared
        self._answers: dict[int, int] = {}  # decide id -> the move sent (a resent decide gets it again)
        self._closed = False

    @property
    def over(self) -> bool:
        return self.status.winners is not None

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Take one server message for this game; the ``move`` to send back, if it asks for one."""
        kind = message.get("type")
        if kind == "decide":
            return self._decide(message)
        if kind == "game-start":
            self.status.seats = tuple(message.get("seats", ()))
            self.status.seat = message.get("seat")
            self.status.rules = Rules.from_dict(message["rules"])
            self._start = message
        elif kind == "game-state":  # after a reconnect: the game whole, as it is now
            view = PlayerView.from_dict(message["view"])
            self.status.seats, self.status.seat, self.status.rules = tuple(view.seats), view.seat, view.rules
            self.status.deal, self.status.turn = view.deal, view.turn
            if self._view is None:
                self.seat.prepare(view)
            self._view = view
        elif kind == "stand-in":
            log.info("game %s: the stand-in played %s for decision %s (%s)", self.id, message.get("move"),
                     message.get("id"), message.get("reason"))
        elif kind == "deal-start":
            self.status.deal = int(message["deal"])
            if self._view is None and self._start is not None and self.seat.wants_events:
                # A bot that listens hears the game from its start, as in the arena, even when its
                # first decision comes turns later (Open, Hand): it is introduced to the game now.
                self._view = _start_view(self._start, message)
                self.seat.prepare(self._view)
            else:
                self._tell([DealStarted(int(message["deal"]), tuple(tuple(row) for row in message["rows"]))])
        elif kind == "turn-result":
            self.status.turn = int(message["turn"]) + 1
            self._tell([event_from_dict(data) for data in message.get("events", ())])
        elif kind == "deal-end":
            self.status.totals = tuple(message["totals"])
            self._tell([DealScored(int(message["deal"]), tuple(message["penalties"]), tuple(message["totals"]))])
        elif kind == "game-end":
            self.status.totals = tuple(message["totals"])
            self._tell([GameOver(tuple(message["totals"]), tuple(message["winners"]))])
            self.status.winners = tuple(message["winners"])
            self.close()
        return None

    def _decide(self, message: dict[str, Any]) -> dict[str, Any]:
        request = int(message["id"])
        move = self._answers.get(request)
        if move is None:  # a decide resent after a reconnect was answered already: the same move again
            view = PlayerView.from_dict(message["view"])
            if self._view is None:
                self.seat.prepare(view)  # an external program starts and hears game-start and deal-start
            self._view = view
            move = self.seat.decide(view)
            self._answers = {request: move}  # ids only grow: the last one is all a resend can ask for
            self.status.decisions += 1
            self.status.last_ms = self.seat.last_seconds * 1000
            self.status.deal, self.status.turn = view.deal, view.turn
            self.status.totals = tuple(t + p for t, p in zip(view.totals, view.penalties, strict=True))
            self.status.faults = len(self.seat.faults)
        return {"type": "move", "game": self.id, "id": request, "move": move}

    def _tell(self, events: list[Event]) -> None:
        """Pass events on to a bot that listens to them, once it has seen the game (its first
        decision): before that, the view it is prepared with says all the events would."""
        if self._view is None or self._closed or not self.seat.wants_events:
            return
        for event in events:
            self.seat.notify(event, self._view)
        self.status.faults = len(self.seat.faults)

    @property
    def faults(self) -> list[Fault]:
        return self.seat.faults

    def close(self) -> None:
        """Stop the bot (an external program gets ``bye``). Idempotent."""
        if not self._closed:
            self._closed = True
            self.seat.close()


def _start_view(start: dict[str, Any], deal: dict[str, Any]) -> PlayerView:
    """What ``game-start`` and ``deal-start`` say, as a view: enough to introduce the game to a bot
    (its seat, the table, the rules, the rows); its hand comes with its first decision."""
    players = len(start["seats"])
    return PlayerView.from_dict({
        "seat": start["seat"], "seats": start["seats"], "rules": start["rules"], "phase": "play",
        "deal": deal["deal"], "turn": 0, "hand": [], "rows": deal["rows"], "totals": [0] * players,
        "penalties": [0] * players, "taken": [[] for _ in range(players)], "hand_sizes": [0] * players,
        "played": [], "chosen": [False] * players,
    })
