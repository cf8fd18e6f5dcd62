"""The five newer official variants in the web game (tournament, open, nifty, hand, double): the
lobby's options and player ranges, rules pages, whole games over the WebSocket with a client that
answers ORDER, KEEP and PASS, and illegal order/keep/pass/retract messages that change nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.core import Phase, Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Keep, Order, Pass, Play, ProtocolError, Retract, decode

from .conftest import make_client
from .helpers import create_table, play_out, rebuilt, receive_until

NEW = ("tournament", "open", "nifty", "hand", "double")


def test_config_lists_every_variant_with_its_player_range(client: TestClient) -> None:
    config = client.get("/api/config").json()
    assert config["variants"] == ["standard", "tactics", "logic", "professional", *NEW]
    assert config["player_range"]["nifty"] == [2, 7]
    assert config["player_range"]["tournament"] == [2, 5]
    assert config["player_range"]["open"] == [2, 9]
    assert config["player_range"]["standard"] == [2, 10]


@pytest.mark.parametrize("variant,players", [("nifty", 8), ("hand", 8), ("tournament", 6), ("open", 10)])
def test_a_player_count_outside_the_variant_range_is_refused(
    client: TestClient, variant: str, players: int
) -> None:
    seats = [{"kind": "bot", "bot": "random"}] * (players - 1)
    response = client.post("/api/tables", json={"name": "Host", "variant": variant, "seats": seats})
    assert response.status_code == 422
    assert response.json()["detail"] == f"{players} players: {variant} is played by 2 to {players - 1}"
    assert client.get("/api/tables").json() == []  # nothing was created


def test_variant_options_reach_the_table(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}], variant="double", double_deck="doubles")
    rules = client.get(f"/api/tables/{table['code']}").json()["rules"]
    assert rules["variant"] == "double" and rules["double_deck"] == "doubles"
    tournament = create_table(client, [{"kind": "open"}] * 2, variant="tournament", target=40)
    rules = client.get(f"/api/tables/{tournament['code']}").json()["rules"]
    assert rules["target"] is None and rules["deals"] == 3  # one deal per player, no target
    bad = client.post("/api/tables", json={"name": "H", "variant": "double", "double_deck": "three",
                                           "seats": [{"kind": "open"}]})
    assert bad.status_code == 422 and "double_deck" in bad.json()["detail"]


@pytest.mark.parametrize("lang", ["en", "es", "sv"])
def test_rules_pages_for_every_new_variant(client: TestClient, lang: str) -> None:
    titles = set()
    for variant in NEW:
        page = client.get(f"/api/rules/{lang}/{variant}").json()
        assert page["lang"] == lang and page["html"].startswith("<h1>6 nimmt! — ")
        titles.add(page["html"].split("</h1>")[0])
    assert len(titles) == len(NEW)


def test_decode_new_message_types() -> None:
    assert decode('{"type": "order", "card": 31, "turn": 2}', 2048) == Order(type="order", card=31, turn=2)
    assert decode('{"type": "keep", "card": 12}', 2048) == Keep(type="keep", card=12)
    assert decode('{"type": "pass"}', 2048) == Pass(type="pass")
    assert decode('{"type": "retract"}', 2048) == Retract(type="retract")
    for text in ('{"type": "keep", "card": 0}', '{"type": "order"}', '{"type": "pass", "card": 3}'):
        with pytest.raises(ProtocolError):
            decode(text, 2048)


@pytest.mark.parametrize("variant,players", [(v, 3) for v in NEW])
def test_a_whole_game_over_the_websocket(database_url: str, variant: str, players: int) -> None:
    """Seat 1 is a person answering every decision (ORDER, KEEP, PASS included); bots play the rest.
    (The rate limit is lifted: this client answers as fast as the bots, which wait for nobody.)"""
    with make_client(database_url, rate_per_second=1000.0, rate_burst=1000) as client:
        _whole_game(client, variant, players)


def _whole_game(client: TestClient, variant: str, players: int) -> tuple[int, str]:
    """Play a whole game of ``variant``; returns the finished game's id and its (private) table's code."""
    rng = random.Random(7)
    kinds: set[tuple[str, bool]] = set()

    def choose(decision: dict[str, Any]) -> int:
        kinds.add((decision["kind"], 0 in decision["options"]))
        return rng.choice(decision["options"])

    extra: dict[str, Any] = {"target": 20} if variant in ("open", "nifty", "double") else {}
    table = create_table(client, [{"kind": "bot", "bot": "random"}] * (players - 1), variant=variant, **extra)
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        first = receive_until(ws, lambda m: m["type"] in ("state", "update") and m["view"] is not None)
        last = play_out(ws, first, choose)
    view = last["view"]
    assert view["phase"] == "over" and view["winners"]
    assert last["table"]["status"] == "finished"
    if variant == "nifty":
        assert ("order", False) in kinds  # the client placed its own pairs
    if variant == "hand":
        assert ("card", True) in kinds  # offered a second card or PASS
    if variant == "tournament":
        assert ("draft", False) in kinds
    game_id = last["table"]["last_game_id"]
    record = client.get(f"/api/games/{game_id}/record.json", params={"table": table["code"]}).json()
    assert record["rules"]["variant"] == variant
    return game_id, table["code"]


# ---------------------------------------------------------------------- illegal moves, in a room


class Spy:
    """A connection that keeps what it is sent."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(json.loads(json.dumps(message)))


async def _humans_only(tmp_path: Path, rules: Rules) -> tuple[Rooms, Room, list[Spy]]:
    store = Store(f"sqlite:///{tmp_path / 'variants.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"))
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}] * (rules.players - 1))
    for n in range(1, rules.players):
        await room.join(f"Friend {n}")
    spies = [Spy(seat) for seat in range(rules.players)]
    for spy in spies:
        await room.connect(spy)
    return rooms, room, spies


async def _refused(room: Room, spy: Spy, message: Any, reason: str) -> None:
    """``message`` gets an error naming ``reason`` and a fresh state, and changes nothing."""
    assert room.table.game is not None
    before = (json.dumps(room.table.game.record()), [list(c) for c in room.table.game.choices], room.table.game.phase)
    spy.messages.clear()
    await room.handle(spy, message)
    assert spy.messages[0]["type"] == "error" and reason in spy.messages[0]["message"], spy.messages
    assert spy.messages[1]["type"] == "state"
    assert (json.dumps(room.table.game.record()), [list(c) for c in room.table.game.choices], room.table.game.phase) == before


@pytest.mark.asyncio
async def test_nifty_illegal_order_pass_and_retract_change_nothing(tmp_path: Path) -> None:
    rooms, room, spies = await _humans_only(tmp_path, Rules(players=3, variant="nifty"))
    game = room.table.game
    assert game is not None
    await _refused(room, spies[0], Order(type="order", card=game.hands[0][0]), "cannot order now")
    await _refused(room, spies[0], Pass(type="pass"), "nothing to pass")
    await _refused(room, spies[0], Retract(type="retract"), "no choice to take back")
    await _refused(room, spies[0], Keep(type="keep", card=game.hands[0][0]), "cannot keep now")
    # a pair chosen, taken back, chosen again: only the final pair counts, also after a restart
    first, second, third = game.hands[0][:3]
    for card in (first, second):
        await room.handle(spies[0], Play(type="play", card=card))
    await room.handle(spies[0], Retract(type="retract"))
    assert game.choices[0] == ()
    await room.handle(spies[0], Play(type="play", card=third))
    restored = rebuilt(room, rooms)
    assert restored.table.game is not None and restored.table.game.choices[0] == (third,)
    await room.handle(spies[0], Play(type="play", card=first))
    for seat in (1, 2):
        for card in game.hands[seat][:2]:
            await room.handle(spies[seat], Play(type="play", card=card))
    # the cards are revealed; the owner of the lowest card says which of theirs goes first
    assert game.phase is Phase.ORDER
    due = game.pending()[0]
    other = spies[(due.seat + 1) % 3]
    await _refused(room, other, Order(type="order", card=due.options[0]), "not your turn")
    not_in_pair = next(c for c in game.hands[due.seat] if c not in due.options)
    await _refused(room, spies[due.seat], Order(type="order", card=not_in_pair), "not one of your options")
    await _refused(room, spies[due.seat], Play(type="play", card=due.options[0]), "cannot play now")
    async with room.lock:
        await room.act(due.seat, due.options[1])
    assert game.phase is not Phase.ORDER or game.pending()[0].seat != due.seat
    await rooms.close()


@pytest.mark.asyncio
async def test_a_pair_taken_back_in_a_later_turn_keeps_the_earlier_turns_after_a_restart(tmp_path: Path) -> None:
    """The store keeps the record as of the deal's start and every answer since: taking a pair
    back drops only this turn's answers of that seat, so a restart finds the same game."""

    rooms, room, spies = await _humans_only(tmp_path, Rules(players=3, variant="nifty"))
    game = room.table.game
    assert game is not None
    rng = random.Random(4)
    while game.turn < 2:  # two whole turns, every answer from seat 0's pending decisions too
        decision = game.pending()[0]
        async with room.lock:
            await room.act(decision.seat, rng.choice(decision.options))
    assert game.deal_index == 0 and game.phase is Phase.PLAY
    first, second, third = game.hands[0][:3]
    for card in (first, second):
        await room.handle(spies[0], Play(type="play", card=card))
    await room.handle(spies[0], Retract(type="retract"))
    await room.handle(spies[0], Play(type="play", card=third))
    restored = rebuilt(room, rooms)
    assert restored.table.game is not None
    assert restored.table.game.record() == game.record() and len(game.record()["deals"][0]["turns"]) == 2
    assert restored.table.game.choices == game.choices and game.choices[0] == (third,)
    await rooms.close()


@pytest.mark.asyncio
async def test_hand_illegal_pass_keep_and_play_change_nothing(tmp_path: Path) -> None:
    rooms, room, spies = await _humans_only(tmp_path, Rules(players=3, variant="hand"))
    game = room.table.game
    assert game is not None
    rng = random.Random(3)
    turn_seat = game.pending()[0].seat
    waiting = spies[(turn_seat + 1) % 3]
    await _refused(room, spies[turn_seat], Pass(type="pass"), "nothing to pass")  # a first card is due
    await _refused(room, waiting, Play(type="play", card=game.hands[waiting.seat][0]), "turn")
    await _refused(room, spies[turn_seat], Retract(type="retract"), "no choice to take back")
    await _refused(room, spies[turn_seat], Order(type="order", card=game.hands[turn_seat][0]), "cannot order now")
    checked_keep = False
    for _ in range(5000):
        if game.is_over or checked_keep:
            break
        decision = game.pending()[0]
        spy = spies[decision.seat]
        if decision.kind.value == "keep":
            stranger = spies[(decision.seat + 1) % 3]
            await _refused(room, stranger, Keep(type="keep", card=decision.options[1]), "not your turn")
            not_taken = next(c for c in range(1, 105) if c not in decision.options)
            await _refused(room, spy, Keep(type="keep", card=not_taken), "not one of your options")
            await _refused(room, spy, Play(type="play", card=game.hands[decision.seat][0]), "cannot play now")
            await room.handle(spy, Keep(type="keep", card=decision.options[1]))
            assert decision.options[1] in game.hands[decision.seat]
            checked_keep = True
        elif decision.kind.value == "card" and decision.reason == "second":
            await room.handle(spy, Pass(type="pass") if rng.random() < 0.5 else Play(type="play", card=decision.options[1]))
        else:
            async with room.lock:
                await room.act(decision.seat, rng.choice(decision.options))
    assert checked_keep
    await rooms.close()


def test_replay_events_give_tournament_hands_for_every_deal(database_url: str) -> None:
    """The history page shows each deal's starting hands: in Tournament the later deals' hands (passed
    round, not in the record) are rebuilt from the reveals, ten cards each, the first deal's drafted."""
    with make_client(database_url, rate_per_second=1000.0, rate_burst=1000) as client:
        game_id, code = _whole_game(client, "tournament", 3)
        replay = client.get(f"/api/games/{game_id}/events", params={"table": code}).json()
    assert len(replay["hands"]) == 3
    first = sorted(c for hand in replay["hands"][0] for c in hand)
    for deal in replay["hands"]:
        assert [len(hand) for hand in deal] == [10, 10, 10]
        assert sorted(c for hand in deal for c in hand) == first  # the same thirty cards, passed round
    hands = [[sorted(hand) for hand in deal] for deal in replay["hands"]]
    assert hands[1] != hands[0] and sorted(hands[1]) == sorted(hands[0])  # the hands moved seats


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", NEW)
async def test_a_table_rebuilt_from_the_store_mid_turn_is_the_same(tmp_path: Path, variant: str) -> None:
    """After any move (a Nifty pair half chosen, an order due, Hand's first card or a keep under way,
    Open's face-up cards, a draft pick), the table as saved rebuilds to the very same game."""

    rules = Rules(players=3, variant=variant, target=15)  # Tournament and Hand ignore the target
    rooms, room, _spies = await _humans_only(tmp_path, rules)
    game = room.table.game
    assert game is not None
    rng = random.Random(11)
    phases: set[str] = set()
    for step in range(400):
        if game.is_over:
            break
        decision = game.pending()[0]
        async with room.lock:
            await room.act(decision.seat, rng.choice(decision.options))
        phases.add(game.phase.value)
        if step % 3 == 0:
            restored = rebuilt(room, rooms)
            assert restored.table.game is not None
            for seat in (None, 0, 1, 2):
                assert restored.table.game.view(seat).to_dict() == game.view(seat).to_dict(), (step, seat)
            await restored.close()
    expected = {"nifty": "order", "hand": "keep", "tournament": "draft"}.get(variant)
    assert expected is None or expected in phases
    await rooms.close()
