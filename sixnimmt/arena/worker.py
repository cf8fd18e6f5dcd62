"""Play one scheduled game in a worker, never trusting the bots.

Every bot plays through a :class:`~sixnimmt.seats.GuardedSeat`: whatever it does (raise, return an
illegal move, or, for an external program, hang, crash or print garbage), the game goes on, the
fault is logged and recorded, the seat's seeded fallback move is played instead, and every bot is
closed at the end (external processes included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot
from ..core import DealScored, Game, Rules
from ..seats import GuardedSeat, make_bot
from .schedule import DuplicateDealer, GameTask, derive_seed


@dataclass(slots=True)
class GameResult:
    """What one game produced, in plain data (it travels back from worker processes)."""

    set_index: int
    seating_index: int
    seating: tuple[int, ...]  # bot index per seat
    deal_penalties: list[list[int]]  # per deal, per seat
    totals: list[int]
    winners: list[int]
    decisions: list[int]  # per seat
    think_seconds: list[float]  # per seat, total time spent in decide()
    faults: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[int, int]:
        return (self.set_index, self.seating_index)


def make_arena_bot(spec: str, seed: int, timeout: float) -> Bot:
    """A bot from its spec; external programs get the arena's reply timeout."""
    bot = make_bot(spec, seed)
    if hasattr(bot, "timeout"):
        bot.timeout = timeout
    return bot


def play_task(task: GameTask) -> GameResult:
    """Play one game of the schedule to its end and summarise it."""
    rules = Rules.from_dict(task.rules)
    seats: list[GuardedSeat] = []
    try:
        for seat, bot_index in enumerate(task.seating):
            bot = make_arena_bot(task.bots[bot_index], task.bot_seed(seat), task.timeout)
            fallback_seed = derive_seed(task.seed, "fallback", task.set_index, task.seating_index, seat)
            seats.append(GuardedSeat(bot, fallback_seed=fallback_seed, label=task.labels[bot_index]))
        game = Game(
            rules,
            [s.label for s in seats],
            dealer=DuplicateDealer(rules, task.seed, task.set_index),
        )
        listeners = [(seat, s) for seat, s in enumerate(seats) if s.wants_events]
        for seat, s in enumerate(seats):
            s.prepare(game.view(seat))  # external programs start here, untimed
        while not game.is_over:
            for decision in game.pending():
                events = game.act(decision.seat, seats[decision.seat].decide(game.view(decision.seat)))
                for event in events:
                    for seat, listener in listeners:
                        listener.notify(event, game.view(seat))
    finally:
        for s in seats:
            s.close()
    return GameResult(
        set_index=task.set_index,
        seating_index=task.seating_index,
        seating=task.seating,
        deal_penalties=[list(e.penalties) for e in game.events if isinstance(e, DealScored)],
        totals=list(game.totals),
        winners=list(game.winners),
        decisions=[s.decisions for s in seats],
        think_seconds=[s.think_seconds for s in seats],
        faults=[f.to_dict() for s in seats for f in s.faults],
        record=game.record() if task.save_record else None,
    )
