"""The guarded seat: whatever a bot does, the host gets a legal answer, a fault record and the same
seeded fallback move; the bot is closed once."""

from __future__ import annotations

import random

import pytest

from sixnimmt.bots import Bot
from sixnimmt.bots.random_bot import RandomBot
from sixnimmt.core import Game, PlayerView, Rules
from sixnimmt.protocol.faults import BotFaultError, Fault, FaultKind
from sixnimmt.seats import GuardedSeat, play_game


class Scripted(Bot):
    """Answers from a script: an int (returned), an exception (raised), anything else (returned)."""

    def __init__(self, *answers: object, faults: list[Fault] | None = None) -> None:
        super().__init__(0)
        self.answers = list(answers)
        self.closed = 0
        if faults is not None:
            self.faults = faults

    def decide(self, view: PlayerView) -> int:
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer  # type: ignore[return-value]

    def close(self) -> None:
        self.closed += 1


class FakeClock:
    """Advances by ``step`` seconds on every reading: a bot 'thinks' exactly ``step``."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def view() -> PlayerView:
    return Game(Rules(players=3), seed=4).view(0)


def options() -> tuple[int, ...]:
    decision = view().decision
    assert decision is not None
    return decision.options


def test_a_legal_answer_passes_through_untouched() -> None:
    legal = options()[3]
    seat = GuardedSeat(Scripted(legal))
    assert seat.decide(view()) == legal
    assert seat.faults == [] and seat.fallback_moves == 0 and seat.decisions == 1


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (RuntimeError("boom"), FaultKind.ERROR),
        (999, FaultKind.ILLEGAL),
        (True, FaultKind.ILLEGAL),
        (12.0, FaultKind.ILLEGAL),
        ("12", FaultKind.ILLEGAL),
        (None, FaultKind.ILLEGAL),
    ],
)
def test_a_failure_is_one_fault_and_the_seeded_fallback(answer: object, kind: FaultKind) -> None:
    heard: list[Fault] = []
    seat = GuardedSeat(Scripted(answer), fallback_seed=7, label="scripted", on_fault=heard.append)
    move = seat.decide(view())
    assert move == random.Random(7).choice(options())  # the documented policy: uniform, seeded
    assert [f.kind for f in seat.faults] == [kind] and heard == seat.faults
    assert seat.faults[0].bot == "scripted" and seat.faults[0].seat == 0 and seat.fallback_moves == 1


def test_fallback_moves_repeat_under_the_same_seed() -> None:
    def moves(seed: int) -> list[int]:
        seat = GuardedSeat(Scripted(*[RuntimeError("x")] * 20), fallback_seed=seed)
        return [seat.decide(view()) for _ in range(20)]

    assert moves(3) == moves(3)
    assert moves(3) != moves(4)


def test_a_late_answer_is_a_timeout_on_the_injected_clock() -> None:
    legal = options()[0]
    slow = GuardedSeat(Scripted(legal), time_limit=1.0, clock=FakeClock(2.0), fallback_seed=1)
    assert slow.decide(view()) == random.Random(1).choice(options())
    assert [f.kind for f in slow.faults] == [FaultKind.TIMEOUT] and slow.think_seconds == slow.last_seconds == 2.0
    quick = GuardedSeat(Scripted(legal), time_limit=1.0, clock=FakeClock(0.5))
    assert quick.decide(view()) == legal and quick.faults == [] and quick.think_seconds == 0.5


def test_a_bots_own_faults_are_collected_once_and_its_no_move_signal_is_not_doubled() -> None:
    own: list[Fault] = []
    fault = Fault("ext", FaultKind.CRASH, "the program exited with code 3", seat=0)

    class Reporter(Scripted):
        def decide(self, view: PlayerView) -> int:
            own.append(fault)
            raise BotFaultError(fault)

    seat = GuardedSeat(Reporter(faults=own))
    seat.decide(view())
    seat.notify(Game(Rules(players=3), seed=4).events[0], view())
    assert seat.faults == [fault] and seat.fallback_moves == 1


def test_close_closes_the_bot_once() -> None:
    bot = Scripted()
    with GuardedSeat(bot) as seat:
        seat.close()
    assert bot.closed == 1


def test_a_seat_without_a_decision_is_a_caller_error() -> None:
    game = Game(Rules(players=2), seed=1)
    game.act(0, game.hands[0][0])
    with pytest.raises(ValueError, match="no decision"):
        GuardedSeat(Scripted()).decide(game.view(0))


def test_play_game_finishes_with_a_bot_that_always_fails() -> None:
    broken = GuardedSeat(Scripted(*[RuntimeError("no")] * 200), fallback_seed=2)
    game = play_game(Game(Rules(players=3, target=None, deals=1), seed=5), [broken, RandomBot(1), RandomBot(2)])
    assert game.is_over and broken.fallback_moves == broken.decisions == len(broken.faults) >= 10


def test_an_explanation_that_is_not_numbers_keeps_the_move_and_is_a_fault() -> None:
    legal = options()[2]

    class Muddled(Scripted):
        def explain(self, view: PlayerView) -> tuple[int, dict[int, float]]:
            return legal, {"a card": "good"}  # type: ignore[dict-item]

    seat = GuardedSeat(Muddled())
    assert seat.explain(view()) == (legal, {})
    assert [f.kind for f in seat.faults] == [FaultKind.ILLEGAL] and seat.fallback_moves == 0
