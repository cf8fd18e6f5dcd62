"""What a bot hears of its game between decisions: the host's notifications (``game-start``,
``deal-start``, ``turn-result``, ``deal-end``, ``game-end``), made from the seat's view and the
game's public events as they come.

One narrator per game and seat. It works on the events' and views' dictionaries
(:meth:`Event.to_dict <sixnimmt.core.events.Event.to_dict>`, :meth:`PlayerView.to_dict`), so the
same code serves a program on a pipe (:class:`~sixnimmt.protocol.external.ExternalBot`, which
sees the engine's events) and a bot online (the server's bot gateway, which sees a table's
messages)."""

from __future__ import annotations

from typing import Any

from ..core import PlayerView
from . import messages


class Narrator:
    """Turns one seat's game into the host's notifications (see the module docstring)."""

    def __init__(self) -> None:
        self._turn_events: list[dict[str, Any]] = []  # the public events of the turn under way
        self._turn_place: tuple[int, int] = (-1, -1)  # (deal, turn) of those events
        self._announced_deal = -1

    def start(self, view: PlayerView) -> list[dict[str, Any]]:
        """A new game: ``game-start``, and its first deal (which started before anyone could be told)."""
        self._turn_events, self._turn_place, self._announced_deal = [], (-1, -1), -1  # (reused for the next game)
        return [messages.game_start(view), *self.deal_start(view.deal, view.rows)]

    def deal_start(self, deal: int, rows: Any) -> list[dict[str, Any]]:
        if deal == self._announced_deal:
            return []
        self._announced_deal = deal
        return [{"type": "deal-start", "deal": deal, "rows": [list(r) for r in rows]}]

    def before_decision(self, deal: int, turn: int) -> list[dict[str, Any]]:
        """A decision of (``deal``, ``turn``) is about to be asked: a turn before it that is over is
        reported first."""
        if self._turn_events and (deal, turn) != self._turn_place:
            return self.flush()
        return []

    def event(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """One public event (as a dictionary): the notifications it completes."""
        out: list[dict[str, Any]] = []
        turn = data.get("turn")
        if self._turn_events and (turn is None or (data["deal"], turn) != self._turn_place):
            # The turn under way is over (a later turn's event, or the deal's end): report it. A
            # turn's end is only known then, as a Nifty order or a Hand keep may still follow the
            # last placement; the bot hears it in any case before its next request.
            out += self.flush()
        kind = data["type"]
        if kind == "deal-started":
            out += self.deal_start(data["deal"], data["rows"])
        elif kind == "deal-scored":
            out.append({"type": "deal-end", "deal": data["deal"], "penalties": list(data["penalties"]),
                        "totals": list(data["totals"])})
        elif kind == "game-over":
            out.append({"type": "game-end", "totals": list(data["totals"]), "winners": list(data["winners"])})
        elif turn is not None and kind != "card-chosen":
            # A turn's public events (face-up plays, reveal, orders, row choices, takes, keeps,
            # placements), sent together once the turn is over. Which card a player chose stays
            # secret until the reveal, so "card-chosen" (who has chosen) is not sent at all.
            self._turn_events.append(data)
            self._turn_place = (data["deal"], turn)
        return out

    def flush(self) -> list[dict[str, Any]]:
        events, self._turn_events = self._turn_events, []
        return [messages.turn_result(events)] if events else []
