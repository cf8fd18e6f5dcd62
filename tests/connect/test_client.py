"""``sixnimmt bot connect``'s client against a fake server that keeps the Bot API's contract.

Nothing here waits on the wall clock: the reconnection delays go through an injected sleep that
returns at once, and every wait is for something the fake server or the client does.
"""

from __future__ import annotations

import asyncio
import random
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from sixnimmt.connect import AcceptPolicy, BotClient, ConnectError, Seek
from sixnimmt.core import Rules

from .fake_server import TOKEN, FakeServer

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVING = ROOT / "tests" / "protocol" / "misbehaving_bot.py"


async def no_wait(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[FakeServer]:
    fake = FakeServer()
    await fake.start()
    yield fake
    await fake.close()


def client_for(server: FakeServer, spec: str = "easy", **options: object) -> BotClient:
    return BotClient(server.url, TOKEN, spec, sleep=no_wait, rng=random.Random(1), seed=3, **options)  # type: ignore[arg-type]


async def until(condition: object, what: str) -> None:
    """Yield to the event loop until ``condition()`` holds (bounded by pytest's timeout)."""
    for _ in range(100_000):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


async def online(client: BotClient) -> asyncio.Task[None]:
    task = asyncio.create_task(client.run())
    await until(lambda: client.connections >= 1 or task.done(), "the client is online")
    return task


# ---------------------------------------------------------------------- against the fake server


async def test_hello_then_an_invited_game_played_to_the_end(server: FakeServer) -> None:
    client = client_for(server, "easy")
    task = await online(client)
    assert server.hellos[0] == {"type": "hello", "protocol": 2, "client": "sixnimmt-bot-connect/1", "max_games": 4}
    assert client.bot == "robo" and client.owner == "ada"
    answer = await server.invite("ada")
    assert answer["type"] == "accept"
    await server.wait_games()
    await until(lambda: client.finished, "the client saw the game end")
    assert server.finished == ["G001"] and server.illegal == 0
    status = client.finished[0].status
    assert status.winners is not None and status.seat == 0 and status.decisions == server.decides >= 10
    client.interrupt()  # nothing in progress: the first Ctrl-C ends it
    await task
    assert not client.games


@pytest.mark.parametrize("spec", ["learned", "mcs:samples=4", "grandmaster:samples=4"])
async def test_every_kind_of_bot_plays_online_unchanged(server: FakeServer, spec: str) -> None:
    client = client_for(server, spec)
    task = await online(client)
    await server.invite("ada")
    await server.wait_games()
    await until(lambda: client.finished, "the game is over")
    assert server.finished == ["G001"] and server.illegal == 0 and client.finished[0].faults == []
    client.interrupt()
    await task


async def test_invitations_follow_the_policy_and_the_game_limit(server: FakeServer) -> None:
    client = client_for(server, "easy", accept=AcceptPolicy.parse("people"), max_games=1)
    task = await online(client)
    declined = await server.invite("otherbot", from_bot=True)
    assert declined["type"] == "decline" and declined["reason"] == "not-bots"
    assert (await server.invite("ada"))["type"] == "accept"
    busy = await server.invite("bob")  # the one game allowed is in progress (or just ended)
    assert busy["type"] == "decline" or server.finished
    await server.wait_games()
    client.interrupt()
    await task


async def test_several_games_at_once_each_played_by_its_own_bot(server: FakeServer) -> None:
    client = client_for(server, "medium")
    task = await online(client)
    answers = await asyncio.gather(server.invite("ada"), server.invite("bob"), server.invite("cy"))
    assert [a["type"] for a in answers] == ["accept"] * 3
    await until(lambda: len(client.games) + len(client.finished) == 3, "three games under way")
    await server.wait_games()
    await until(lambda: len(client.finished) == 3, "three games over")
    assert sorted(server.finished) == ["G001", "G002", "G003"] and server.illegal == 0
    client.interrupt()
    await task


async def test_a_cmd_bot_hears_exactly_the_local_protocol(server: FakeServer, tmp_path: Path) -> None:
    log = tmp_path / "heard.txt"
    client = client_for(server, f"cmd:{sys.executable} {MISBEHAVING} good {log}")
    task = await online(client)
    await server.invite("ada")
    await server.wait_games()
    await until(lambda: client.finished, "the game is over")
    heard = log.read_text().split()
    assert heard[:4] == ["hello", "game-start", "deal-start", "decide"]
    assert heard.count("decide") == server.decides and heard.count("turn-result") == 10  # one deal, ten turns
    assert heard[-3:] == ["deal-end", "game-end", "bye"]
    assert client.finished[0].faults == [] and server.illegal == 0
    client.interrupt()
    await task


async def test_a_drop_mid_game_reconnects_and_finishes_without_asking_twice(server: FakeServer) -> None:
    server.drop_on_move = 4  # the answer to the fourth decide is lost with the connection
    client = client_for(server, "easy")
    task = await online(client)
    await server.invite("ada")
    await server.wait_games()
    await until(lambda: client.finished, "the game is over")
    assert client.connections == 2 and server.connections == 2
    assert server.finished == ["G001"] and server.illegal == 0
    # The fourth decide was sent again after the welcome, and answered again without asking the bot.
    assert server.resent == 1 and client.finished[0].status.decisions == server.decides
    assert [m["id"] for m in server.received if m["type"] == "move"].count(4) == 2
    assert client.finished[0].faults == []
    client.interrupt()
    await task


async def test_the_first_ctrl_c_finishes_the_games_the_second_leaves_them(server: FakeServer) -> None:
    client = client_for(server, "easy")
    task = await online(client)
    server.rules = Rules(players=3, deals=3)
    await server.invite("ada")
    await until(lambda: client.games, "the game started")
    client.interrupt()
    assert (await server.invite("bob"))["reason"] == "going-offline"
    assert not task.done()
    client.interrupt()
    await task
    assert server.left == ["G001"]


async def test_ctrl_c_with_a_game_in_progress_waits_for_its_end(server: FakeServer) -> None:
    client = client_for(server, "easy")
    task = await online(client)
    await server.invite("ada")
    await until(lambda: client.games, "the game started")
    client.interrupt()
    await task  # returns only once the game is over
    assert server.finished == ["G001"] and server.left == []


async def test_a_seat_taken_away_ends_that_game_and_frees_its_room(server: FakeServer) -> None:
    server.rules = Rules(players=3, deals=3)
    client = client_for(server, "easy", max_games=1)
    task = await online(client)
    await server.invite("ada")
    await until(lambda: server.decides >= 2, "the game is under way")
    await server.take_seat_away("G001")
    await until(lambda: client.finished, "the game is given up")
    assert client.games == {} and (await server.invite("bob"))["type"] == "accept"
    client.interrupt()
    client.interrupt()
    await task


async def test_seeks_keep_one_open_while_there_is_room(server: FakeServer) -> None:
    client = client_for(server, "easy", seek=Seek("rated", 3), max_games=1)
    task = await online(client)
    await until(lambda: server.finished, "the sought game was played")
    seeks = [m for m in server.received if m["type"] == "seek"]
    assert seeks[0] == {"type": "seek", "mode": "rated", "players": 3, "variant": "standard"}
    client.interrupt()
    await task


async def test_a_bad_token_is_refused_for_good(server: FakeServer) -> None:
    client = BotClient(server.url, "snb_wrong", "easy", sleep=no_wait)
    with pytest.raises(ConnectError, match="refused the token"):
        await client.run()
    assert server.connections == 0


async def test_no_server_means_retrying_with_backoff_until_ctrl_c() -> None:
    waits: list[float] = []
    client: BotClient

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 4:
            client.interrupt()
        await asyncio.sleep(0)

    client = BotClient("http://127.0.0.1:9", TOKEN, "easy", sleep=sleep, rng=random.Random(2))
    await client.run()
    assert len(waits) == 4 and waits[0] < waits[1] < waits[2] < waits[3]
    assert client.state == "stopping"



# ---------------------------------------------------------------------- the command, as a process

SIXNIMMT = Path(sys.executable).parent / "sixnimmt"


async def start_command(server: FakeServer, tmp_path: Path, spec: str) -> asyncio.subprocess.Process:
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    process = await asyncio.create_subprocess_exec(
        str(SIXNIMMT), "bot", "connect", server.url, "--token-file", str(token), spec,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    await server.connected.wait()
    return process


async def read_until(stream: asyncio.StreamReader | None, text: str) -> str:
    assert stream is not None
    seen = ""
    while text not in seen:
        line = await stream.readline()
        assert line, f"the output ended before {text!r}: {seen}"
        seen += line.decode()
    return seen


async def test_the_command_exits_cleanly_on_ctrl_c_after_finishing_its_game(server: FakeServer, tmp_path: Path) -> None:
    process = await start_command(server, tmp_path, "easy")
    assert (await server.invite("ada"))["type"] == "accept"
    await until(lambda: server.decides >= 1, "the game is under way")
    process.send_signal(signal.SIGINT)
    await read_until(process.stderr, "stopping: finishing 1 game(s)")
    assert await process.wait() == 0
    assert server.finished == ["G001"] and server.left == []


async def test_a_second_ctrl_c_resigns_and_exits(server: FakeServer, tmp_path: Path) -> None:
    server.rules = Rules(players=3, deals=5)
    process = await start_command(server, tmp_path, f"cmd:{sys.executable} {ROOT / 'examples/bots/python_bot.py'}")
    await server.invite("ada")
    await until(lambda: server.decides >= 1, "the game is under way")
    process.send_signal(signal.SIGINT)
    await read_until(process.stderr, "stopping")
    process.send_signal(signal.SIGINT)
    assert await process.wait() == 0
    assert server.left == ["G001"]


async def test_the_standalone_example_plays_through_the_api(server: FakeServer, tmp_path: Path) -> None:
    """examples/bots/online_bot.py: the API with the standard library and websockets only."""
    token = tmp_path / "token"
    token.write_text(TOKEN)
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "examples" / "bots" / "online_bot.py"), server.url, str(token),
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(120):  # (a hang fails here, with its place, not at the suite's limit)
            await standalone_game(server, process)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            async with asyncio.timeout(10):  # (a bot that ignores Ctrl-C must not hang the suite)
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()
            raise AssertionError("the example did not stop on Ctrl-C") from None


async def standalone_game(server: FakeServer, process: asyncio.subprocess.Process) -> None:
    """The example declines a bot's invitation, accepts a person's, and plays the game to its end."""
    await server.connected.wait()
    assert server.hellos[0]["client"] == "online_bot.py/1"
    declined = await server.invite("otherbot", from_bot=True)
    assert declined["type"] == "decline"
    assert (await server.invite("ada"))["type"] == "accept"
    await server.wait_games()
    assert server.finished == ["G002"] and server.illegal == 0
    await read_until(process.stderr, "game G002 over")


async def test_sigterm_resigns_and_exits_as_two_ctrl_c_do(server: FakeServer, tmp_path: Path) -> None:
    server.rules = Rules(players=3, deals=5)
    process = await start_command(server, tmp_path, "easy")
    await server.invite("ada")
    await until(lambda: server.decides >= 1, "the game is under way")
    process.send_signal(signal.SIGTERM)
    assert await process.wait() == 0
    assert server.left == ["G001"]


async def test_ctrl_c_while_a_seek_waits_cancels_it_before_going(server: FakeServer) -> None:
    """The seek's seat opens (the server gives it up): no table waits for a bot that went."""
    server.seek_waits = True
    client = client_for(server, "easy", seek=Seek("casual", 4, "standard"))
    task = await online(client)
    await until(lambda: any(m["type"] == "seek" for m in server.received), "the seek was sent")
    await until(lambda: client._seek_id == "S1", "the seek is open")
    client.interrupt()
    await task
    assert server.received[-1] == {"type": "cancel-seek", "seek": "S1"}


async def test_challenge_names_a_bot_once_online(server: FakeServer) -> None:
    client = BotClient(server.url, TOKEN, "easy", sleep=no_wait, rng=random.Random(1),
                       challenge=("Champion", Seek("rated", 3, "tactics")))
    task = await online(client)
    await until(lambda: any(m["type"] == "challenge" for m in server.received), "the challenge was sent")
    assert [m for m in server.received if m["type"] == "challenge"] == [
        {"type": "challenge", "bot": "Champion", "mode": "rated", "players": 3, "variant": "tactics"}]
    client.interrupt()
    await task


async def test_tournament_enters_once_online(server: FakeServer) -> None:
    client = BotClient(server.url, TOKEN, "easy", sleep=no_wait, rng=random.Random(1), tournament=7)
    task = await online(client)
    await until(lambda: any(m["type"] == "enter-tournament" for m in server.received), "the entry was sent")
    assert [m for m in server.received if m["type"] == "enter-tournament"] == [
        {"type": "enter-tournament", "tournament_id": 7}]
    client.interrupt()
    await task
