"""Bots: the interface and the built-in players. Build them by spec with
:func:`sixnimmt.seats.make_bot`, and let them play through :class:`sixnimmt.seats.GuardedSeat`."""

from .base import Bot

__all__ = ["Bot"]
