"""docs/bot-protocol.md stays true: its example request is a real view, and its exchange is valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sixnimmt.core import PASS, DecisionKind, PlayerView
from sixnimmt.protocol.messages import PROTOCOL_VERSION

DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"


def test_example_request_is_a_player_view() -> None:
    block = re.search(r"```json\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert block is not None
    message = json.loads(block.group(1))
    assert message["type"] == "decide" and isinstance(message["id"], int)
    view = PlayerView.from_dict(message["view"])
    assert view.decision is not None and view.decision.kind is DecisionKind.CARD
    assert view.decision.options == view.hand and len(view.hand) == 10


def test_example_exchange_lines_are_json_with_known_types() -> None:
    exchange = re.search(r"## A complete exchange.*?```\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert exchange is not None
    host_types = {"hello", "game-start", "deal-start", "decide", "turn-result", "deal-end", "game-end", "bye"}
    seen = []
    for line in exchange.group(1).splitlines():
        if not line.startswith(("> ", "< ")) or "..." in line:
            continue  # abbreviated lines
        message = json.loads(line[2:])
        if line.startswith("> "):
            assert message["type"] in host_types
            seen.append(message["type"])
        else:
            assert isinstance(message["id"], int)
    assert seen[0] == "hello" and seen[-1] == "bye"
    hello = json.loads(exchange.group(1).splitlines()[0][2:])
    assert hello["protocol"] == PROTOCOL_VERSION


def test_every_example_request_is_a_legal_decision_and_order_and_keep_are_shown() -> None:
    kinds = []
    for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.DOTALL):
        message = json.loads(block)
        view = PlayerView.from_dict(message["view"])
        assert view.decision is not None and view.decision.seat == view.seat
        if view.decision.kind is DecisionKind.ORDER:
            assert sorted(view.decision.options) == sorted(view.my_choices)
        if view.decision.kind is DecisionKind.KEEP:
            assert view.decision.options[0] == PASS and view.rules.variant.value == "hand"
        kinds.append(view.decision.kind)
    assert kinds == [DecisionKind.CARD, DecisionKind.ORDER, DecisionKind.KEEP]
