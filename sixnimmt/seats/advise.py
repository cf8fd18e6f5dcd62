"""Hints for people: which move a bot recommends, and why (its expected penalty per option).

The terminal and web games call :func:`advise` for their hint button; ``sixnimmt advise`` prints it.

>>> from sixnimmt.core import Game, Rules
>>> view = Game(Rules(players=4), seed=3).view(0)
>>> advice = advise(view, bot="medium", seed=1)
>>> advice.choice in view.decision.options
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core import PlayerView
from .guarded import GuardedSeat
from .registry import HINT_LEVEL, make_bot


class NothingToAdviseError(ValueError):
    """The view has no pending decision for its seat."""


class FaultyAdvisorError(ValueError):
    """The advising bot failed (raised, answered illegally, or, for an external program, crashed,
    timed out or sent garbage): there is no advice, as a fallback move is not one."""


@dataclass(frozen=True, slots=True)
class Advice:
    """A bot's recommendation for ``view.decision``.

    ``scores`` maps each option the bot evaluated (a card, a row index or a draft card) to its
    expected penalty for this deal, lower is better; empty when the bot does not estimate.
    """

    choice: int
    scores: dict[int, float] = field(default_factory=dict)
    bot: str = HINT_LEVEL

    def to_dict(self) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "scores": {str(k): round(v, 3) for k, v in sorted(self.scores.items())},
            "bot": self.bot,
        }


def advise(view: PlayerView, bot: str = HINT_LEVEL, seed: int | None = None, *, timeout: float | None = None) -> Advice:
    """Ask the bot ``bot`` (any spec: ``expert``, ``expert:samples=400``, ``cmd:...``; by default
    the strongest level, :data:`~sixnimmt.seats.registry.HINT_LEVEL`) what to answer to
    ``view.decision``; ``timeout`` is an external program's seconds per reply. A bot that
    fails raises :class:`FaultyAdvisorError` naming the fault, rather than passing off the guard's
    fallback move as its advice."""
    if view.decision is None:
        who = "the spectator" if view.seat is None else f"seat {view.seat}"
        raise NothingToAdviseError(f"{who} has no decision to make now")
    player = make_bot(bot, seed)
    if timeout is not None and hasattr(player, "timeout"):
        player.timeout = timeout
    with GuardedSeat(player, fallback_seed=seed or 0) as seat:
        seat.prepare(view)
        choice, scores = seat.explain(view)
    if seat.faults:
        more = f" (and {len(seat.faults) - 1} more)" if len(seat.faults) > 1 else ""
        first = seat.faults[0]
        raise FaultyAdvisorError(f"bot {seat.label!r} failed, so there is no advice: {first.kind.value}: {first.message}{more}")
    return Advice(choice=choice, scores=scores, bot=bot)
