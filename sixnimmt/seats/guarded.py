"""One seat's bot behind a guard: every host that lets a bot play (the arena, the terminal game, the
web server, :func:`~sixnimmt.seats.play_game`, hints) asks it through a :class:`GuardedSeat`.

The fallback policy, the same everywhere (docs/bot-protocol.md, "When a bot fails"): when the bot
raises, answers something that is not one of ``view.decision.options`` (a bool, a float, a card not
in the options), reports that it has no move (an external program that crashed, timed out or sent
garbage), or answers later than the seat's ``time_limit``, the seat records a :class:`Fault` and
plays a **uniformly random legal option**, drawn from the seat's own ``random.Random(fallback_seed)``
(never from the bot's generator), so the same seed gives the same fallback moves. The game always
goes on; the bot is asked again at its next decision.
"""

from __future__ import annotations

import logging
import numbers
import random
import time
from collections.abc import Callable
from typing import Any

from ..bots.base import Bot
from ..core import Event, PlayerView
from ..protocol.faults import BotFaultError, Fault, FaultKind

log = logging.getLogger("sixnimmt.seats")

#: ``clock() -> seconds``, monotonic; injected by tests so that nothing waits on the wall clock.
Clock = Callable[[], float]


class GuardedSeat:
    """A bot that can do no harm: :meth:`decide` always returns a legal answer.

    ``label`` names the bot in faults (default: the bot's registry spec). ``time_limit`` (seconds,
    ``None`` for none) makes a late answer a fault, replaced by the fallback; the arena sets none
    for in-process bots, so that results never depend on the machine's load (an external program
    has its own per-reply timeout, which interrupts it). Faults are kept in :attr:`faults`, logged,
    and passed to ``on_fault`` as they happen (from the thread that asked the bot). An external
    bot's own protocol faults (a garbage line before a good reply, a late reply dropped) are
    collected here too.
    """

    def __init__(
        self,
        bot: Bot,
        *,
        fallback_seed: int = 0,
        label: str | None = None,
        time_limit: float | None = None,
        clock: Clock = time.perf_counter,
        on_fault: Callable[[Fault], None] | None = None,
    ) -> None:
        self.bot = bot
        self.label = label if label is not None else bot.name
        self.time_limit = time_limit
        self.clock = clock
        self.on_fault = on_fault
        self.faults: list[Fault] = []
        self.decisions = 0  # decisions asked
        self.fallback_moves = 0  # decisions answered by the fallback
        self.think_seconds = 0.0  # total time spent in the bot's decide/explain
        self.last_seconds = 0.0  # time the last decision took (the bot's call only, on ``clock``)
        self._fallback = random.Random(fallback_seed)
        self._bot_faults_seen = 0
        self._closed = False

    # ------------------------------------------------------------------ asking the bot

    def decide(self, view: PlayerView) -> int:
        """The bot's answer to ``view.decision`` if it is legal and in time, else the fallback."""
        return self._ask(view, explain=False)[0]

    def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
        """As :meth:`decide`, with the bot's expected penalty per option (:meth:`Bot.explain`); the
        scores are empty when the fallback answered, so nobody mistakes them for the bot's."""
        return self._ask(view, explain=True)

    def _ask(self, view: PlayerView, *, explain: bool) -> tuple[int, dict[int, float]]:
        decision = view.decision
        if decision is None:
            raise ValueError("the seat has no decision to make now")
        self.decisions += 1
        start = self.clock()
        answer: Any = None
        scores: dict[int, float] = {}
        failed = False
        try:
            if explain:
                answer, scores = self.bot.explain(view)
            else:
                answer = self.bot.decide(view)
        except BotFaultError:
            failed = True  # the bot recorded why in its own faults, collected below
        except Exception as error:
            failed = True
            self._fault(FaultKind.ERROR, f"{type(error).__name__}: {_excerpt(str(error))}", view)
        finally:
            elapsed = self.clock() - start
            self.think_seconds += elapsed
            self.last_seconds = elapsed
            self._collect(view)
        if not failed:
            if isinstance(answer, bool) or not isinstance(answer, numbers.Integral) or int(answer) not in decision.options:
                failed = True
                self._fault(
                    FaultKind.ILLEGAL,
                    f"answered {_excerpt(repr(answer))} to a {decision.kind.value} decision; "
                    f"the options were {list(decision.options)}",
                    view,
                )
            elif self.time_limit is not None and elapsed > self.time_limit:
                failed = True
                self._fault(
                    FaultKind.TIMEOUT, f"answered after {elapsed:.3g}s; the limit is {self.time_limit:g}s", view
                )
        if failed:
            self.fallback_moves += 1
            return self._fallback.choice(decision.options), {}
        try:
            numbers_given = {int(option): float(score) for option, score in scores.items()}
        except (AttributeError, TypeError, ValueError):
            # The move stands; only the explanation is unusable.
            self._fault(
                FaultKind.ILLEGAL, f"explained its move with {_excerpt(repr(scores))}, not numbers", view, fallback=False
            )
            numbers_given = {}
        return int(answer), numbers_given

    # ------------------------------------------------------------------ the bot's other hooks

    @property
    def wants_events(self) -> bool:
        """Whether the bot listens to events (building a view per event costs time, so hosts only
        call :meth:`notify` for those that do)."""
        return type(self.bot).notify is not Bot.notify

    def notify(self, event: Event, view: PlayerView) -> None:
        """Tell the bot about a public event; a bot that raises is a fault, never the host's problem."""
        try:
            self.bot.notify(event, view)
        except Exception as error:
            self._fault(
                FaultKind.ERROR, f"notify raised {type(error).__name__}: {_excerpt(str(error))}", view, fallback=False
            )
        self._collect(view)

    def prepare(self, view: PlayerView) -> None:
        """Let a bot that has a start-up cost pay it now, untimed (an external program starts and
        hears about the game). Bots without a ``prepare`` method are left alone."""
        prepare = getattr(self.bot, "prepare", None)
        if callable(prepare):
            try:
                prepare(view)
            except Exception as error:
                self._fault(
                    FaultKind.ERROR, f"prepare raised {type(error).__name__}: {_excerpt(str(error))}", view, fallback=False
                )
            self._collect(view)

    def close(self) -> None:
        """Close the bot (an external program is stopped with its whole process group). Idempotent;
        never raises: a bot whose ``close`` fails is logged."""
        if self._closed:
            return
        self._closed = True
        try:
            self.bot.close()
        except Exception as error:
            log.warning("bot %r: close() raised %s: %s", self.label, type(error).__name__, _excerpt(str(error)))
        self._collect(None)

    def __enter__(self) -> GuardedSeat:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<GuardedSeat {self.label!r} {len(self.faults)} fault(s)>"

    # ------------------------------------------------------------------ faults

    def _fault(self, kind: FaultKind, message: str, view: PlayerView | None, *, fallback: bool = True) -> None:
        fault = Fault(
            bot=self.label,
            kind=kind,
            message=message,
            deal=view.deal if view is not None else None,
            turn=view.turn if view is not None else None,
            seat=view.seat if view is not None else None,
        )
        log.warning("%s%s", fault.text(), "; a random legal move is played instead" if fallback else "")
        self._record(fault)

    def _collect(self, view: PlayerView | None) -> None:
        """Take in the faults the bot recorded itself (an external program's protocol faults)."""
        own = getattr(self.bot, "faults", None)
        if not isinstance(own, list):
            return
        for fault in own[self._bot_faults_seen :]:
            if isinstance(fault, Fault):
                self._record(fault)
        self._bot_faults_seen = len(own)

    def _record(self, fault: Fault) -> None:
        self.faults.append(fault)
        if self.on_fault is not None:
            self.on_fault(fault)


def _excerpt(text: str, limit: int = 200) -> str:
    """Bounded, one line: a bot's error message or answer may be anything."""
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[:limit] + "..."
