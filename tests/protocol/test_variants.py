"""Protocol 2: every variant's decisions and turn results reach external bots, and both example bots
answer every decision of every variant legally (and the obvious ones sensibly).

Games are short: one deal for three players (Tournament: its three deals; Hand: its one long deal).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sixnimmt.bots import Bot
from sixnimmt.bots.random_bot import RandomBot
from sixnimmt.core import PASS, CardsKept, Game, Rules, Variant
from sixnimmt.protocol.external import ExternalBot
from sixnimmt.protocol.faults import FaultKind
from sixnimmt.seats import GuardedSeat, make_bot

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVING = Path(__file__).with_name("misbehaving_bot.py")
PY = sys.executable
EXAMPLES = {
    "python": f"cmd:{PY} {ROOT / 'examples/bots/python_bot.py'}",
    "node": f"cmd:node {ROOT / 'examples/bots/node_bot.mjs'}",
}
VARIANTS = [v.value for v in Variant]


def short_rules(variant: str, players: int = 3) -> Rules:
    """One deal (Tournament and Hand have their own fixed length)."""
    if variant in ("tournament", "hand"):
        return Rules(players=players, variant=variant)
    return Rules(players=players, variant=variant, target=None, deals=1)


def play(game: Game, bot: Bot, seed: int = 1) -> Counter[tuple[str, bool]]:
    """Play ``game`` with ``bot`` in seat 0 and random bots elsewhere, every bot hearing every
    event; returns the decisions seat 0 was asked, as (kind, PASS among the options)."""
    bots = [GuardedSeat(b, fallback_seed=s) for s, b in enumerate([bot] + [RandomBot(seed + s) for s in range(1, game.players)])]
    asked: Counter[tuple[str, bool]] = Counter()
    try:
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                if decision.seat == 0:
                    asked[(decision.kind.value, PASS in decision.options)] += 1
                events = game.act(decision.seat, bots[decision.seat].decide(view))
                for event in events:
                    for s, b in enumerate(bots):
                        b.notify(event, game.view(s))
    finally:
        bot.close()
    return asked


def example(name: str) -> ExternalBot:
    if name == "node" and shutil.which("node") is None:
        pytest.skip("node (Node.js) is not installed")
    bot = make_bot(EXAMPLES[name], seed=1)
    assert isinstance(bot, ExternalBot)
    return bot


@pytest.mark.parametrize("name", sorted(EXAMPLES))
@pytest.mark.parametrize("variant", VARIANTS)
def test_example_bots_play_every_variant_without_faults(name: str, variant: str) -> None:
    bot = example(name)
    game = Game(short_rules(variant), ["ext", "rnd1", "rnd2"], seed=4)
    asked = play(game, bot)
    assert game.is_over
    assert bot.faults == [] and bot.fallback_moves == 0
    assert bot.protocol == 2
    if variant == "nifty":
        assert asked[("order", False)] == 7 and asked[("card", False)] == 14  # two cards a turn
    if variant == "hand":
        assert asked[("card", True)] > 0  # the optional second card, PASS among the options
    if variant in ("logic", "tournament"):
        assert asked[("draft", False)] == 10


def hand_take_position() -> Game:
    """Hand, seat 0 to play: every card of its hand is too low, and every row holds one cheap card."""
    return Game.from_position(
        Rules(players=2, variant="hand"),
        hands=[[2, 3, 4], [60, 61, 62]],
        rows=[[12], [23], [34], [47]],
        current=0,
    )


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_bots_keep_cheap_taken_cards_in_hand(name: str) -> None:
    game = hand_take_position()
    asked = play(game, example(name))
    assert asked[("keep", True)] >= 1
    kept = [e for e in game.events if isinstance(e, CardsKept) and e.seat == 0]
    assert kept and kept[0].cards == (12,)  # the row of one one-bullhead card, back into the hand


def load_python_example() -> Any:
    spec = importlib.util.spec_from_file_location("python_bot", ROOT / "examples/bots/python_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_example_bot_orders_nifty_cards_by_what_they_cost() -> None:
    bot = load_python_example()
    rows = [[33], [69], [35], [17, 34, 52, 61, 68]]
    # 14 first: too low, takes the cheapest row [69] (1 bullhead); then 91 is the sixth card after
    # 68 (5 more). 91 first: it goes after 69; then 14 takes the cheapest row, [35] (2). So 91 first.
    assert bot.choose_order({"rows": rows, "decision": {"options": [14, 91]}}) == 91
    # Both orders cost the same (each card fits safely): the lowest goes first.
    assert bot.choose_order({"rows": rows, "decision": {"options": [36, 70]}}) == 36


def test_python_example_bot_plays_a_second_hand_card_only_when_it_is_safe() -> None:
    bot = load_python_example()
    rows = [[10], [20], [30], [40, 41, 42, 43, 44]]
    second = {"rows": rows, "hand": [45, 46], "decision": {"kind": "card", "options": [PASS, 45, 46]}}
    assert bot.choose_card(second) == PASS  # both would be the sixth card of row 3
    second["decision"]["options"] = [PASS, 12, 45]
    assert bot.choose_card(second) == 12  # fits safely after 10


# ---------------------------------------------------------------------- what the bot hears


def transcript(variant: str, tmp_path: Path, seed: int = 4) -> tuple[Game, list[dict[str, Any]]]:
    """One game with the logging bot in seat 0; every message it received, in order."""
    log = tmp_path / f"{variant}.log"
    bot = ExternalBot(f"{PY} {MISBEHAVING} transcript {log}", seed=5)
    game = Game(short_rules(variant), ["ext", "rnd1", "rnd2"], seed=seed)
    play(game, bot)
    assert bot.faults == [] and bot.fallback_moves == 0
    return game, [json.loads(line) for line in log.read_text().splitlines()]


def check_turn_results_come_between_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each turn's result arrives after its last event and before any request of a later turn,
    exactly once per turn, in order; returns the turn results."""
    results: list[dict[str, Any]] = []
    for message in messages:
        if message["type"] == "turn-result":
            results.append(message)
        elif message["type"] == "decide":
            view = message["view"]
            done = [(r["deal"], r["turn"]) for r in results if r["deal"] == view["deal"]]
            assert done == [(view["deal"], t) for t in range(view["turn"])]
    return results


def test_nifty_turn_results_orders_and_requests(tmp_path: Path) -> None:
    game, messages = transcript("nifty", tmp_path)
    results = check_turn_results_come_between_turns(messages)
    turns = game.record()["deals"][0]["turns"]
    assert len(results) == len(turns) == 7
    for result, turn in zip(results, turns, strict=True):
        plays = result["plays"]
        assert len(plays) == 6  # two cards per seat: plays[2 * seat], plays[2 * seat + 1]
        assert [sorted(plays[2 * s : 2 * s + 2]) for s in range(3)] == [sorted(p) for p in turn["plays"]]
        orders = [e for e in result["events"] if e["type"] == "order-chosen"]
        assert [o["cards"] for o in sorted(orders, key=lambda o: o["seat"])] == turn["plays"]
        assert sum(e["type"] == "card-placed" for e in result["events"]) == 6
    orders = [m["view"] for m in messages if m["type"] == "decide" and m["view"]["decision"]["kind"] == "order"]
    assert len(orders) == 7
    for view in orders:  # the request names both of our cards, which are also our choices
        assert view["phase"] == "order" and view["decision"]["options"] == sorted(view["my_choices"])


def test_hand_turn_results_name_the_player_and_the_kept_cards(tmp_path: Path) -> None:
    game, messages = transcript("hand", tmp_path, seed=2)
    results = check_turn_results_come_between_turns(messages)
    turns = game.record()["deals"][0]["turns"]
    assert len(results) == len(turns) > 10  # one long deal of single players' turns
    for result, turn in zip(results, turns, strict=True):
        assert result["seat"] == turn["seat"] and result["plays"] == turn["plays"]
        kept = sorted(c for e in result["events"] if e["type"] == "cards-kept" for c in e["cards"])
        assert kept == sorted(c for cards in turn.get("keeps", {}).values() for c in cards)
    assert any(turn.get("keeps") for turn in turns)  # somebody took a row and split it
    requests = [m["view"] for m in messages if m["type"] == "decide"]
    assert all(v["current"] == 0 for v in requests if v["phase"] == "play")  # asked only on its turn
    assert messages[-3]["type"] == "deal-end" and messages[-2]["type"] == "game-end"


def test_open_turn_results_show_the_cards_in_play_order(tmp_path: Path) -> None:
    _, messages = transcript("open", tmp_path)
    results = check_turn_results_come_between_turns(messages)
    assert len(results) == 10
    for k, result in enumerate(results):
        shown = [e for e in result["events"] if e["type"] == "card-shown"]
        first = k % 3  # the marker passes on every turn, from seat 0
        assert [e["seat"] for e in shown] == [(first + i) % 3 for i in range(3)]
        assert sorted(e["card"] for e in shown) == sorted(result["plays"])
    requests = [m["view"] for m in messages if m["type"] == "decide" and m["view"]["phase"] == "play"]
    for view in requests:  # the cards already played face up this turn are in the request
        face_up = view["face_up"]
        assert face_up[0] is None and view["current"] == 0
        assert sum(c is not None for c in face_up) == (view["turn"] % 3 and 3 - view["turn"] % 3)


def test_a_protocol_1_bot_plays_the_original_variants_but_not_the_new_ones() -> None:
    old = ExternalBot(f"{PY} {MISBEHAVING} v1", seed=5)
    game = Game(short_rules("professional"), seed=3)
    play(game, old)
    assert old.protocol == 1 and old.faults == [] and old.fallback_moves == 0
    old = ExternalBot(f"{PY} {MISBEHAVING} v1", seed=5)
    game = Game(short_rules("nifty"), seed=3)
    asked = play(game, old)
    assert game.is_over
    assert [f.kind for f in old.faults] == [FaultKind.START]
    assert "protocol 1" in old.faults[0].message and "nifty" in old.faults[0].message
    assert old.fallback_moves == sum(asked.values())  # random legal moves in its place


def test_random_fallback_moves_answer_pass_decisions() -> None:
    """A bot that cannot start plays seeded random legal moves, PASS included, through a Hand game."""
    missing = ExternalBot(f"{PY} {MISBEHAVING} no-hello", seed=5, start_timeout=0.3)
    game = Game(short_rules("hand"), seed=2)
    asked = play(game, missing)
    assert game.is_over and [f.kind for f in missing.faults] == [FaultKind.TIMEOUT]
    assert missing.fallback_moves == sum(asked.values()) and asked[("card", True)] > 0
