"""The table session on its own: no room, no socket, no store but a list of what was saved."""

from __future__ import annotations

import random

import pytest

from sixnimmt.core import Phase, Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.rows import CURRENT_ONLY, STATE_COLUMNS, TableData
from sixnimmt.server.tables.seat import Seat
from sixnimmt.server.tables.seating import take_seat
from sixnimmt.server.tables.table import TableSession
from sixnimmt.server.tables.table_setup import StoreFailedError, TableOptions

pytestmark = pytest.mark.asyncio


class Steps:
    """Counts what the table tells its turn driver."""

    def __init__(self) -> None:
        self.bots_made = 0
        self.steps = 0
        self.finished = False

    def make_bots(self) -> None:
        self.bots_made += 1

    def new_step(self, timer: int, resume_at: float | None = None) -> None:
        self.steps += 1

    def deadline_at(self) -> float | None:
        return None

    def finish(self) -> None:
        self.finished = True


def _session(rules: Rules, saved: list[TableData], fail: list[bool] | None = None) -> TableSession:
    async def save(data: TableData) -> None:
        if fail and fail[0]:
            raise OSError("the disk is full")
        saved.append(data)

    async def archive(data: TableData, record: object, winners: object, players: object) -> int:
        saved.append(data)
        return 7

    seats = [Seat(index=0, kind="human", name="Host")] + [
        Seat(index=i, kind="open", name="") for i in range(1, rules.players)
    ]
    table = TableSession("ABCDE", TableOptions(rules), seats, Settings(bot_delay=0.0), ManualClock(),
                         save, archive, Steps())
    table.saved = table.to_store()
    return table


@pytest.mark.parametrize("variant", ["standard", "nifty", "hand", "tactics"])
async def test_a_turn_only_save_is_the_whole_state_on_the_session_alone(variant: str) -> None:
    """Every turn-only save (only ``current`` written) equals, column by column, the whole state the
    session holds at that moment; the game is played to its end through the session's own methods."""
    saved: list[TableData] = []
    table = _session(Rules(players=3, variant=variant, target=None, deals=2), saved)
    for name in ("Ana", "Bo"):
        await take_seat(table, name)
    game = table.game
    assert game is not None and table.status == "playing"
    rng = random.Random(variant)
    turn_only = 0
    while not game.is_over:
        if rng.random() < 0.1:
            await table.say(rng.randrange(3), {"text": "hello"})
        decision = rng.choice(game.pending())
        before = len(saved)
        await table.act(decision.seat, rng.choice(decision.options))
        assert len(saved) == before + 1  # every change is saved, once
        data = saved[-1]
        if data.changed == CURRENT_ONLY:
            turn_only += 1
            whole = table.to_store()
            for column in STATE_COLUMNS:
                assert getattr(data, column) == getattr(whole, column), column
    assert turn_only > 0 and table.status == "finished" and table.last_game_id == 7


async def test_a_refused_save_rolls_the_session_back_to_what_the_store_holds() -> None:
    saved: list[TableData] = []
    fail = [False]
    table = _session(Rules(players=2, target=None, deals=1), saved, fail)
    await take_seat(table, "Ana")
    game = table.game
    assert game is not None and game.phase is Phase.PLAY
    decision = game.pending()[0]
    fail[0] = True
    with pytest.raises(StoreFailedError):
        await table.act(decision.seat, decision.options[0])
    assert table.game is not game  # rebuilt from the saved record
    assert table.game is not None and table.game.chosen == [None, None] and table.turn_log == []
