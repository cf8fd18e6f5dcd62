"""Play one scheduled game in a worker, never trusting the bots.

Whatever a bot does (raise, return an illegal move, or, for an external program, hang, crash or
print garbage), the game goes on: the fault is logged and recorded, a seeded random move is played
instead, and every bot is closed at the end (external processes included).
"""

from __future__ import annotations

import logging
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot, make_bot
from ..bots.random_bot import RandomBot
from ..core import DealScored, Game, PlayerView, Rules
from ..protocol.faults import Fault, FaultKind
from .schedule import DuplicateDealer, GameTask, derive_seed

log = logging.getLogger("sixnimmt.arena")


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


def _wants_events(bot: Bot) -> bool:
    """Only bots that override ``notify`` hear events (building a view per event costs time)."""
    return type(bot).notify is not Bot.notify


class _Seat:
    """One seat's bot behind a guard that turns any failure into a fault and a fallback move."""

    def __init__(self, bot: Bot, label: str, seat: int, fallback_seed: int) -> None:
        self.bot = bot
        self.label = label
        self.seat = seat
        self.fallback = RandomBot(fallback_seed)
        self.faults: list[Fault] = []
        self.decisions = 0
        self.think = 0.0

    def _fault(self, kind: FaultKind, message: str, view: PlayerView) -> None:
        fault = Fault(self.label, kind, message, deal=view.deal, turn=view.turn, seat=self.seat)
        log.warning("%s; playing a random legal move instead", fault.text())
        self.faults.append(fault)

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None
        start = time.perf_counter()
        try:
            move: Any = self.bot.decide(view)
        except Exception as error:
            self._fault(FaultKind.ERROR, f"{type(error).__name__}: {error}", view)
            return self.fallback.decide(view)
        finally:
            self.think += time.perf_counter() - start
            self.decisions += 1
        if isinstance(move, bool) or not isinstance(move, numbers.Integral) or int(move) not in decision.options:
            self._fault(
                FaultKind.ILLEGAL,
                f"answered {move!r} to a {decision.kind.value} decision; options {list(decision.options)}",
                view,
            )
            return self.fallback.decide(view)
        return int(move)

    def notify(self, game: Game, events: Sequence[Any]) -> None:
        for event in events:
            try:
                self.bot.notify(event, game.view(self.seat))
            except Exception as error:
                self._fault(FaultKind.ERROR, f"notify raised {type(error).__name__}: {error}", game.view(self.seat))


def make_arena_bot(spec: str, seed: int, timeout: float) -> Bot:
    """A bot from its spec; external programs get the arena's reply timeout."""
    bot = make_bot(spec, seed)
    if hasattr(bot, "timeout"):
        bot.timeout = timeout
    return bot


def play_task(task: GameTask) -> GameResult:
    """Play one game of the schedule to its end and summarise it."""
    rules = Rules.from_dict(task.rules)
    seats: list[_Seat] = []
    try:
        for seat, bot_index in enumerate(task.seating):
            bot = make_arena_bot(task.bots[bot_index], task.bot_seed(seat), task.timeout)
            fallback_seed = derive_seed(task.seed, "fallback", task.set_index, task.seating_index, seat)
            seats.append(_Seat(bot, task.labels[bot_index], seat, fallback_seed))
        game = Game(
            rules,
            [s.label for s in seats],
            dealer=DuplicateDealer(rules, task.seed, task.set_index),
        )
        listeners = [s for s in seats if _wants_events(s.bot)]
        for s in seats:
            prepare = getattr(s.bot, "prepare", None)  # external programs start here, untimed
            if callable(prepare):
                prepare(game.view(s.seat))
        while not game.is_over:
            for decision in game.pending():
                player = seats[decision.seat]
                events = game.act(decision.seat, player.decide(game.view(decision.seat)))
                for listener in listeners:
                    listener.notify(game, events)
    finally:
        for s in seats:
            try:
                s.bot.close()
            except Exception as error:
                log.warning("bot %r: close() raised %s", s.label, error)
    faults = [f for s in seats for f in s.faults]
    for s in seats:
        faults.extend(getattr(s.bot, "faults", ()))
    return GameResult(
        set_index=task.set_index,
        seating_index=task.seating_index,
        seating=task.seating,
        deal_penalties=[list(e.penalties) for e in game.events if isinstance(e, DealScored)],
        totals=list(game.totals),
        winners=list(game.winners),
        decisions=[s.decisions for s in seats],
        think_seconds=[s.think for s in seats],
        faults=[f.to_dict() for f in faults],
        record=game.record() if task.save_record else None,
    )
