"""The external-bot adapter against well-behaved and misbehaving programs.

Games are one deal for two players (ten turns), the external bot in seat 0 against a random bot.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from sixnimmt.bots import Bot
from sixnimmt.bots.random_bot import RandomBot
from sixnimmt.core import Game, Rules
from sixnimmt.protocol.external import ExternalBot
from sixnimmt.protocol.faults import FaultKind
from sixnimmt.seats import UnknownBotError, make_bot, play_game

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVING = Path(__file__).with_name("misbehaving_bot.py")
PY = sys.executable


def misbehaving(mode: str, log: Path | None = None, **options: float) -> ExternalBot:
    command = f"{PY} {MISBEHAVING} {mode}" + (f" {log}" if log else "")
    return ExternalBot(command, seed=5, **options)  # type: ignore[arg-type]


def play_one_deal(bot: Bot, seed: int = 3) -> Game:
    game = Game(Rules(players=2, target=None, deals=1), ["ext", "rnd"], seed=seed)
    try:
        play_game(game, [bot, RandomBot(1)], notify=True)
    finally:
        bot.close()
    return game


def seat0_plays(game: Game) -> list[int]:
    return [turn["plays"][0] for turn in game.record()["deals"][0]["turns"]]


def seat0_hand(game: Game) -> list[int]:
    return sorted(game.record()["deals"][0]["hands"][0])


def seat0_decisions(game: Game) -> int:
    """Decisions seat 0 was asked: ten cards plus a row choice for each of its too-low cards."""
    turns = game.record()["deals"][0]["turns"]
    return len(turns) + sum(1 for t in turns if str(t["plays"][0]) in t.get("picks", {}))


def kinds(bot: ExternalBot) -> list[FaultKind]:
    return [f.kind for f in bot.faults]


def test_good_bot_hears_the_whole_exchange(tmp_path: Path) -> None:
    log = tmp_path / "log"
    bot = misbehaving("good", log)
    game = play_one_deal(bot)
    assert game.is_over and bot.faults == [] and bot.fallback_moves == 0
    assert bot.remote_name == "good"
    assert seat0_plays(game) == seat0_hand(game)  # its own choice: always the lowest card
    lines = log.read_text().splitlines()
    plays = [json.loads(line[len("plays "):]) for line in lines if line.startswith("plays ")]
    assert plays == [turn["plays"] for turn in game.record()["deals"][0]["turns"]]
    received = [line for line in lines if not line.startswith("plays ")]
    assert received[:4] == ["hello", "game-start", "deal-start", "decide"]
    assert received.count("deal-start") == 1
    assert received.count("decide") >= 10
    assert received.count("turn-result") == 10
    assert received[-3:] == ["deal-end", "game-end", "bye"]


def test_late_reply_gets_a_fallback_and_is_dropped_later() -> None:
    bot = misbehaving("sleep-once", timeout=2.0)  # the late reply comes while request 2 waits
    game = play_one_deal(bot)
    assert game.is_over
    assert kinds(bot) == [FaultKind.TIMEOUT]  # the late reply itself is not a second fault
    assert bot.faults[0].request is not None and bot.faults[0].turn == 0
    assert bot.fallback_moves == 1
    assert seat0_plays(game)[1:] == sorted(seat0_plays(game)[1:])  # back to its own moves


def test_hanging_bot_is_stopped_after_repeated_timeouts() -> None:
    bot = misbehaving("hang", timeout=0.2, max_timeouts=3)
    start = time.monotonic()
    game = play_one_deal(bot)
    assert game.is_over  # no hang: three short timeouts, then fallback moves
    assert time.monotonic() - start < 30
    assert kinds(bot) == [FaultKind.TIMEOUT] * 4  # three timeouts and the "stopped" notice
    assert "stopped" in bot.faults[-1].message
    assert bot.fallback_moves == seat0_decisions(game)


def test_a_bot_that_stops_reading_cannot_block_the_host() -> None:
    # Never stopped for timeouts, it is sent every request: eight deals of views (~1.5 kB each) and
    # notifications, far more than a pipe holds (64 kB), which would block a host that wrote inline.
    bot = misbehaving("deaf", timeout=0.03, max_timeouts=1000)
    game = Game(Rules(players=2, target=None, deals=8), seed=3)
    try:
        play_game(game, [bot, RandomBot(1)], notify=True)
    finally:
        bot.close()
    assert game.is_over
    assert set(kinds(bot)) == {FaultKind.TIMEOUT} and bot.fallback_moves >= 80


def test_crash_is_a_fault_and_the_game_goes_on() -> None:
    bot = misbehaving("crash")
    game = play_one_deal(bot)
    assert game.is_over and len(game.record()["deals"][0]["turns"]) == 10
    assert kinds(bot) == [FaultKind.CRASH]
    assert "exited with code 3" in bot.faults[0].message
    assert bot.fallback_moves == seat0_decisions(game) - 2  # it answered two, then died
    assert seat0_plays(game)[:2] == seat0_hand(game)[:2]


def test_garbage_lines_are_faults_but_the_real_reply_still_counts() -> None:
    bot = misbehaving("garbage")
    game = play_one_deal(bot)
    assert set(kinds(bot)) == {FaultKind.MALFORMED}
    assert len(bot.faults) >= 10 and "not JSON" in bot.faults[0].message
    assert bot.fallback_moves == 0
    assert seat0_plays(game) == seat0_hand(game)


def test_a_flood_of_junk_does_not_block_the_host() -> None:
    bot = misbehaving("flood", timeout=5)
    game = play_one_deal(bot)
    assert game.is_over and bot.fallback_moves == 0
    assert len(bot.faults) >= 10_000


def test_illegal_move_gets_a_legal_fallback() -> None:
    bot = misbehaving("illegal")
    game = play_one_deal(bot)
    assert game.is_over
    assert kinds(bot)[:10] == [FaultKind.ILLEGAL] * 10
    assert "999" in bot.faults[0].message and "options" in bot.faults[0].message
    assert bot.fallback_moves == len(bot.faults)
    assert sorted(seat0_plays(game)) == seat0_hand(game)  # every card played was really held


def test_reply_to_a_request_never_made() -> None:
    bot = misbehaving("unsolicited")
    game = play_one_deal(bot)
    assert set(kinds(bot)) == {FaultKind.UNSOLICITED}
    assert "99999" in bot.faults[0].message
    assert bot.fallback_moves == 0
    assert seat0_plays(game) == seat0_hand(game)


@pytest.mark.parametrize(("mode", "kind"), [("no-hello", FaultKind.TIMEOUT), ("bad-version", FaultKind.START)])
def test_failed_handshake_benches_the_bot(mode: str, kind: FaultKind) -> None:
    bot = misbehaving(mode, start_timeout=0.5)
    game = play_one_deal(bot)
    assert game.is_over
    assert kinds(bot) == [kind]
    assert bot.fallback_moves == seat0_decisions(game)


def _state(pid: int) -> str | None:
    """The process state letter from /proc (None once the process is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to inspect processes")
def test_close_kills_the_whole_process_group(tmp_path: Path) -> None:
    log = tmp_path / "log"
    bot = misbehaving("spawn", log)
    game = Game(Rules(players=2, target=None, deals=1), seed=1)
    bot.decide(game.view(0))  # starts the program, which starts a sleeping child
    pid = bot.pid
    assert pid is not None
    child = int(next(line for line in log.read_text().splitlines() if line.startswith("child")).split()[1])
    assert _state(child) not in (None, "Z")
    bot.close()
    assert bot.pid is None
    assert _state(pid) is None  # the program was reaped: no zombie of ours
    deadline = time.monotonic() + 5
    while _state(child) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(child) in (None, "Z")  # killed with its group (reaping it is its parent's job)


def test_bot_restarts_for_the_next_game_after_a_crash() -> None:
    bot = misbehaving("crash")
    expected = 0
    try:
        for seed in (1, 2):
            game = Game(Rules(players=2, target=None, deals=1), seed=seed)
            play_game(game, [bot, RandomBot(1)], notify=True)
            expected += seat0_decisions(game) - 2
    finally:
        bot.close()
    assert kinds(bot) == [FaultKind.CRASH, FaultKind.CRASH]  # started afresh, crashed again
    assert bot.fallback_moves == expected


def test_unknown_command_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not found"):
        make_bot("cmd:no-such-program-xyz --flag")
    with pytest.raises(ValueError, match="cannot parse"):
        make_bot('cmd:python3 "unclosed')
    with pytest.raises(UnknownBotError, match="needs something"):
        make_bot("cmd:  ")


def test_python_example_bot_plays_a_clean_game() -> None:
    bot = make_bot(f"cmd:{PY} {ROOT / 'examples/bots/python_bot.py'}", seed=1)
    game = play_one_deal(bot)
    assert isinstance(bot, ExternalBot)
    assert game.is_over and bot.faults == [] and bot.fallback_moves == 0
    assert bot.remote_name == "python-example (snug)"


@pytest.mark.skipif(shutil.which("node") is None, reason="node (Node.js) is not installed")
@pytest.mark.parametrize("variant", ["standard", "logic", "professional"])
def test_node_example_bot_plays_a_clean_game(variant: str) -> None:
    bot = make_bot(f"cmd:node {ROOT / 'examples/bots/node_bot.mjs'}", seed=1)
    game = Game(Rules(players=3, variant=variant, target=None, deals=1), seed=4)
    try:
        play_game(game, [bot, RandomBot(1), RandomBot(2)], notify=True)
    finally:
        bot.close()
    assert isinstance(bot, ExternalBot)
    assert game.is_over and bot.faults == [] and bot.fallback_moves == 0
    assert bot.remote_name == "node-example (low-safe)"


@pytest.mark.parametrize("variant", ["logic", "professional"])
def test_python_example_bot_answers_draft_and_row_decisions(variant: str) -> None:
    bot = make_bot(f"cmd:{PY} {ROOT / 'examples/bots/python_bot.py'}", seed=1)
    game = Game(Rules(players=3, variant=variant, target=None, deals=1), seed=4)
    try:
        play_game(game, [bot, RandomBot(1), RandomBot(2)], notify=True)
    finally:
        bot.close()
    assert isinstance(bot, ExternalBot)
    assert game.is_over and bot.faults == [] and bot.fallback_moves == 0


def test_no_child_processes_left_behind() -> None:
    before = _children()
    play_one_deal(misbehaving("hang", timeout=0.1, max_timeouts=1))
    play_one_deal(misbehaving("good"))
    assert _children() <= before


def _children() -> set[int]:
    """Live child processes of this test process (from /proc)."""
    me = os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == me:
                found.add(int(entry.name))
    return found


def test_prepare_starts_the_program_before_any_decision(tmp_path: Path) -> None:
    log = tmp_path / "log"
    bot = misbehaving("good", log)
    game = Game(Rules(players=2, target=None, deals=1), seed=1)
    try:
        bot.prepare(game.view(0))
        deadline = time.monotonic() + 10
        while log.read_text().split() != ["hello", "game-start", "deal-start"] and time.monotonic() < deadline:
            time.sleep(0.02)
        assert log.read_text().split() == ["hello", "game-start", "deal-start"]
        play_game(game, [bot, RandomBot(1)], notify=True)
    finally:
        bot.close()
    assert log.read_text().split().count("game-start") == 1 and bot.faults == []
