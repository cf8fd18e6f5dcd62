"""Drive a :class:`~sixnimmt.core.Game` with bots, one per seat, until it ends."""

from __future__ import annotations

from collections.abc import Sequence

from ..core import Game
from .base import Bot


def play_game(game: Game, bots: Sequence[Bot], *, notify: bool = False) -> Game:
    """Ask each seat's bot for every decision until the game is over; returns the game.

    Bots only ever get their own seat's view. With ``notify`` each bot also hears every event.
    """
    if len(bots) != game.players:
        raise ValueError(f"{len(bots)} bots for {game.players} seats")
    while not game.is_over:
        for decision in game.pending():
            seat = decision.seat
            events = game.act(seat, bots[seat].decide(game.view(seat)))
            if notify:
                for event in events:
                    for s, bot in enumerate(bots):
                        bot.notify(event, game.view(s))
    return game
