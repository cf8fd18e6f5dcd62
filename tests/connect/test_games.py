"""A game's messages, as the server sends them, turned into a local bot's calls (connect/games.py).

The messages are made from real games by the bot protocol's own narrator, as the server makes
them; a bot that listens must hear every public event of its game, in order, in every variant, and
a bot that only decides must answer exactly as it does at a local table."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from sixnimmt.bots import Bot
from sixnimmt.bots.heuristics import CautiousBot
from sixnimmt.connect import RemoteGame
from sixnimmt.core import Event, Game, PlayerView, Rules, Variant
from sixnimmt.protocol import messages
from sixnimmt.protocol.narration import Narrator
from sixnimmt.seats import register, unregister

HEARD = ("deal-started", "deal-scored", "game-over")  # the events told outside a turn-result


class Listener(CautiousBot):
    """Decides as ``cautious`` does, and keeps what it is told."""

    instances: ClassVar[list[Listener]] = []  # every one made, so the test finds the bot the game built

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.prepared: list[PlayerView] = []
        self.events: list[Event] = []
        Listener.instances.append(self)

    def prepare(self, view: PlayerView) -> None:
        self.prepared.append(view)

    def notify(self, event: Event, view: PlayerView) -> None:
        self.events.append(event)


@pytest.fixture
def listener() -> Iterator[None]:
    register("listener", Listener, "a test bot that keeps the events it hears")
    Listener.instances = []
    yield
    unregister("listener")


def play_online(spec: str, rules: Rules, seat: int, seed: int) -> tuple[Game, RemoteGame, list[int]]:
    """A game whose seat ``seat`` is played through a RemoteGame fed the server's messages; the
    others play random moves. Returns the game, the RemoteGame and the moves it sent."""
    game = Game(rules, seed=seed)
    remote = RemoteGame("G1", spec, seed=seed)
    narrator = Narrator()
    others = random.Random(seed)
    sent: list[int] = []

    def deliver(out: list[dict[str, Any]]) -> None:
        for message in out:
            assert remote.handle({**message, "game": "G1"}) is None

    deliver(narrator.start(game.view(seat)))
    request = 0
    while not game.is_over:
        for decision in game.pending():
            if decision.seat == seat:
                view = game.view(seat)
                deliver(narrator.before_decision(view.deal, view.turn))
                request += 1
                reply = remote.handle({**messages.decide(request, view), "game": "G1"})
                assert reply is not None and reply["id"] == request and reply["game"] == "G1"
                move = reply["move"]
                sent.append(move)
            else:
                move = others.choice(decision.options)
            for event in game.act(decision.seat, move):
                deliver(narrator.event(event.to_dict()))
    return game, remote, sent


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_a_listening_bot_hears_every_public_event_of_its_game(listener: None, variant: str) -> None:
    rules = Rules(players=3, variant=Variant(variant))
    game, remote, _ = play_online("listener", rules, seat=1, seed=4)
    bot = Listener.instances[0]
    told = [e for e in game.events if e.type in HEARD or (getattr(e, "turn", None) is not None and e.type != "card-chosen")]
    # Introduced to the game at its first deal's start (not at its first decision, turns later in
    # Open and Hand), then every public event after it.
    assert len(bot.prepared) == 1 and bot.prepared[0].seat == 1 and bot.prepared[0].deal == 0
    assert bot.prepared[0].rows == told[0].rows  # type: ignore[attr-defined]
    assert bot.events == told[1:]
    assert remote.over and remote.status.winners == game.winners and remote.faults == []


@pytest.mark.parametrize("variant", ["standard", "hand", "nifty"])
def test_a_bot_answers_online_as_it_does_at_a_local_table(variant: str) -> None:
    rules = Rules(players=4, variant=Variant(variant))
    game, _, sent = play_online("medium", rules, seat=2, seed=9)
    # The same game again, the same bot asked directly with the engine's views.
    local = Game(rules, seed=9)
    bot: Bot = CautiousBot(9)
    others = random.Random(9)
    asked: list[int] = []
    while not local.is_over:
        for decision in local.pending():
            if decision.seat == 2:
                move = bot.decide(local.view(2))
                asked.append(move)
            else:
                move = others.choice(decision.options)
            local.act(decision.seat, move)
    assert sent == asked and local.totals == game.totals
