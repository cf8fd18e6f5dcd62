"""The pure parts of ``sixnimmt bot connect``'s client: reconnection delays, addresses, accept policy."""

from __future__ import annotations

import random

import pytest

from sixnimmt.connect import AcceptPolicy, GameStatus, backoff, connect_url
from sixnimmt.connect.status import game_line
from sixnimmt.core import Rules


def test_backoff_doubles_from_half_a_second_to_thirty_with_jitter() -> None:
    rng = random.Random(5)
    delays = [backoff(n, rng) for n in range(12)]
    assert 0.25 <= delays[0] <= 0.5
    assert 0.5 <= delays[1] <= 1.0
    assert all(15.0 <= d <= 30.0 for d in delays[7:])
    assert len({round(backoff(0, random.Random(s)), 6) for s in range(10)}) > 1  # jitter


def test_connect_url_derives_the_websocket_address() -> None:
    assert connect_url("https://nimmt.example") == "wss://nimmt.example/api/bot/v1/connect"
    assert connect_url("http://127.0.0.1:8000/") == "ws://127.0.0.1:8000/api/bot/v1/connect"
    assert connect_url("localhost:8000") == "ws://localhost:8000/api/bot/v1/connect"
    assert connect_url("wss://h/api/bot/v1/connect") == "wss://h/api/bot/v1/connect"
    with pytest.raises(ValueError, match="not a server address"):
        connect_url("ftp://h")


def test_accept_policy() -> None:
    assert AcceptPolicy.parse("all").accepts("bot9", True)
    assert AcceptPolicy.parse("people").accepts("ada", False)
    assert not AcceptPolicy.parse("people").accepts("bot9", True)
    assert not AcceptPolicy.parse("none").accepts("ada", False)
    listed = AcceptPolicy.parse("Ada, bob")
    assert listed.accepts("ada", False) and listed.accepts("BOB", True) and not listed.accepts("cy", False)
    with pytest.raises(ValueError, match="all, people, none"):
        AcceptPolicy.parse(" , ")


def test_a_game_line_says_where_the_game_is_and_how_the_bot_does() -> None:
    status = GameStatus("K7QF", seats=("a", "b", "c", "d"), seat=1, rules=Rules(players=4), deal=0, turn=4,
                        totals=(3, 12, 7, 9), decisions=9, last_ms=41.2)
    assert game_line(status) == (
        "K7QF  standard, 4 players, seat 2  deal 1 turn 5  12 bullheads (best other 3)  9 moves, last 41 ms"
    )
    over = GameStatus("M4TT", seat=0, rules=Rules(players=2), totals=(31, 44), winners=(0,), decisions=41, faults=2)
    assert game_line(over) == "M4TT  standard, 2 players, seat 1  over  31 bullheads (best other 44)  won  41 moves, last 0.0 ms  2 faults"
