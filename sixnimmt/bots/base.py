"""The bot interface. A bot sees only a :class:`~sixnimmt.core.PlayerView` and answers its decision."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from ..core import Event, PlayerView


class Bot(ABC):
    """A player program. Subclasses implement :meth:`decide`; the rest is optional.

    ``decide`` receives the seat's view, whose ``decision`` says what is asked (a card from
    ``decision.options``, a row index, or a Logic draft pick) and returns one of the options. A bot
    draws any randomness from ``self.rng``, seeded at construction, so a seeded bot plays the same
    way every time.
    """

    #: The registry name (``random``, ``mcs100``, ...), set by the registry.
    name: str = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def decide(self, view: PlayerView) -> int:
        """The answer to ``view.decision`` (never ``None`` when this is called)."""

    def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        """The answer to ``view.decision`` with the bot's numbers: expected penalty (lower is better)
        per option it evaluated. Bots that do not estimate anything return an empty dict."""
        return self.decide(view), {}

    def notify(self, event: Event, view: PlayerView) -> None:  # noqa: B027 - optional hook
        """Called after each public event with the bot's fresh view; most bots ignore it."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (external processes, worker pools)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
