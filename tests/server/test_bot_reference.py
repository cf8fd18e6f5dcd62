"""docs/bot-api.md's message reference is the one the typed messages make (it cannot drift)."""

from __future__ import annotations

from pathlib import Path

from sixnimmt.server.botapi.bot_wire import DECODERS
from sixnimmt.server.botapi.inbox import FROM_BOT, HANDLERS
from sixnimmt.server.botapi.reference import reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-api.md"


def test_the_docs_reference_is_the_generated_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    held = text.split("<!-- reference:start -->\n", 1)[1].split("<!-- reference:end -->", 1)[0]
    assert held == reference(), "run python -m sixnimmt.server.botapi.reference and paste its output"


def test_every_message_a_bot_may_send_is_typed() -> None:
    assert {kind.type for kind in HANDLERS} | {"hello", "ping"} == set(FROM_BOT) == set(DECODERS) | {"hello", "ping"}
