"""Drive a :class:`~sixnimmt.core.Game` with bots, one per seat, until it ends."""

from __future__ import annotations

from collections.abc import Sequence

from ..bots.base import Bot
from ..core import Game
from .guarded import GuardedSeat


def play_game(
    game: Game, bots: Sequence[Bot | GuardedSeat], *, notify: bool = False, fallback_seed: int = 0
) -> Game:
    """Ask each seat's bot for every decision until the game is over; returns the game.

    Every bot is asked through a :class:`GuardedSeat` (a bare bot gets one, with fallback seed
    ``fallback_seed + seat``): a bot that fails gets the seat's fallback move and the game goes on.
    Pass seats to read their faults afterwards. Bots only ever get their own seat's view; with
    ``notify`` each bot also hears every event. The bots are not closed: they belong to the caller.
    """
    if len(bots) != game.players:
        raise ValueError(f"{len(bots)} bots for {game.players} seats")
    seats = [b if isinstance(b, GuardedSeat) else GuardedSeat(b, fallback_seed=fallback_seed + s) for s, b in enumerate(bots)]
    while not game.is_over:
        for decision in game.pending():
            seat = decision.seat
            events = game.act(seat, seats[seat].decide(game.view(seat)))
            if notify:
                for event in events:
                    for s, guarded in enumerate(seats):
                        guarded.notify(event, game.view(s))
    return game
