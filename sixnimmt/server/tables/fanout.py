"""Sending a change to everyone at a table: each socket gets the message made for its own seat.

A message is built and serialized once per seat (and once for the spectators, once per seat a
spectator is about to take over), whatever the number of sockets, and is only ever keyed by the seat
it was built for, so one seat's view cannot reach another's socket.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from ...core import CardChosen, Event, Game
from ..wire import WIRE_VERSION, Outbound, to_json
from .chat import chat_without

if TYPE_CHECKING:
    from .scheduling import Scheduler
    from .table import TableSession


class Connection(Protocol):
    """One live client. ``push`` queues a message without waiting (a slow client never blocks a room)."""

    seat: int | None

    def push(self, message: dict[str, Any]) -> None: ...


class SharedState:
    """One change's ``update`` messages, made from what every receiver shares: the events, the
    table, and the view fields common to every seat at this moment (those of the spectators' view,
    :meth:`PlayerView.shared_to_dict`), each built and serialized once. A seat's message adds only
    its own part (:data:`~sixnimmt.core.views.OWN_FIELDS`: its seat, hand, own choice and
    decision; the table's ``you`` and ``joining``), serialized on its own and spliced into the same
    text. Nothing of one seat's own part is in another's message: each is made from that seat's
    view alone."""

    def __init__(self, table: dict[str, Any], game: Game | None, events: list[dict[str, Any]],
                 extra: dict[str, Any]) -> None:
        self.table = table
        self.game = game
        self.view = None if game is None else game.view(None).shared_to_dict()
        self.events = events
        self.extra = extra
        self._head = '{"type":"update","events":' + to_json(events) + ',"table":{'
        self._table_rest = "," + to_json(table)[1:] + ',"view":'
        self._view_rest = None if self.view is None else "," + to_json(self.view)[1:]
        self._end = "".join(f",{to_json(key)}:{to_json(value)}" for key, value in extra.items()) + "}"

    def update(self, seat: int | None, joining: int | None) -> Outbound:
        """The ``update`` for ``seat`` (None: a spectator, taking ``joining`` over at the next deal)."""
        own_table = {"you": seat, "joining": joining}
        text = [self._head, to_json(own_table)[1:-1], self._table_rest]
        view: dict[str, Any] | None = None
        if self.game is None or self._view_rest is None or self.view is None:
            text.append("null")
        else:
            own = self.game.view(seat).own_to_dict()
            view = {**own, **self.view}
            text += ["{", to_json(own)[1:-1], self._view_rest]
        text.append(self._end)
        fields = {"type": "update", "events": self.events, "table": {**self.table, **own_table}, "view": view,
                  **self.extra}
        return Outbound.prepared(fields, "".join(text))



def publish(
    receivers: Iterable[Connection],
    game: Game | None,
    events: list[Event],
    table_state: Callable[[], dict[str, Any]],
    joining: Callable[[Connection], int | None],
    actor: int | None = None,
    played_for: dict[str, Any] | None = None,
    hidden: Callable[[Connection], frozenset[int]] | None = None,
) -> None:
    """Send each receiver its own view and the public events. ``table_state`` makes the table part
    all share (called at most once); ``joining`` says which seat a spectator takes over next deal.

    A move that only says "this player has chosen" (most moves) changes nothing in anyone's view but
    who has chosen and who is awaited, and the mover's own part (its choice and what it owes now),
    so nobody gets a whole view: everyone a small ``chosen`` message, and the mover's sockets the
    same with its own part (``own``: :data:`~sixnimmt.core.views.OWN_FIELDS`, from its own view
    alone). ``hidden`` says the seats whose chat lines a receiver does not see (those it blocks): a
    receiver that blocks nobody shares the others' message."""
    public = [e.to_dict() for e in events]
    extra = {} if played_for is None else {"played_for": played_for}
    if actor is not None and events and all(type(e) is CardChosen for e in events):
        assert game is not None
        brief = Outbound(
            type="chosen",
            events=public,
            chosen=[c is not None for c in game.chosen],
            waiting_for=[d.seat for d in game.pending()],
            **extra,
        )
        mine = Outbound(brief, own=game.view(actor).own_to_dict())
        for conn in receivers:
            conn.push(mine if conn.seat == actor else brief)
        return
    updates: dict[tuple[int | None, int | None, frozenset[int]], Outbound] = {}
    shared: dict[frozenset[int], SharedState] = {}
    table: dict[str, Any] | None = None
    for conn in receivers:
        hide = frozenset() if hidden is None else hidden(conn)
        key = (conn.seat, joining(conn), hide)
        update = updates.get(key)
        if update is None:
            state = shared.get(hide)
            if state is None:
                table = table_state() if table is None else table
                state = shared[hide] = SharedState(chat_without(table, hide), game, public, extra)
            update = updates[key] = state.update(conn.seat, key[1])
        conn.push(update)


def table_summary(table: TableSession, spectators: int) -> dict[str, Any]:
    """What the lobby lists of a table with ``spectators`` watching (no seat tokens, no cards)."""
    options = table.options
    return {
        "code": table.code,
        "status": table.status,
        "rules": options.rules.to_dict(),
        "spec": options.rules.spec.to_dict(),  # how the variant is played, as data
        "count": options.count,
        "timer": options.timer,
        "public": options.public,
        **({"rated": True} if options.rated else {}),
        "spectator_chat": options.spectator_chat,
        **({} if options.chat else {"chat_off": True}),
        "seats": [s.public() for s in table.seats],
        "spectators": spectators,
        "open": len(table.joinable_seats()),
        "game_number": table.game_number,
        "last_game_id": table.last_game_id,
        # the home page's "Your move" list reads it for the seats this browser holds
        "waiting_for": table.pending_seats(),
    }


def table_state(summary: dict[str, Any], table: TableSession, turns: Scheduler) -> dict[str, Any]:
    """A state's ``table``: the ``summary`` with the chat and the clocks, but for the receiver's own
    ``you`` and ``joining``."""
    return {
        **summary,
        "chat": table.chat,
        "host": 0,
        "timer_left": turns.timer_left(),
        "away_left": turns.away_left(),  # per seat: seconds until the stand-in plays for an away player
        "away_grace": table.settings.absent_grace,
        "thinking": sorted(turns.long_thinking),
        "wire": WIRE_VERSION,
    }
