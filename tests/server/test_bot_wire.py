"""The Bot API's messages from a program, typed and decoded as the browser's are: each type a record,
read from its JSON object by one function, a bad field refused with a clear one-line reason."""

from __future__ import annotations

import pytest

from sixnimmt.server.botapi.bot_wire import (
    DECODERS,
    Accept,
    CancelSeek,
    Decline,
    Leave,
    Move,
    Seek,
    decode,
    decode_hello,
    parse_json,
)
from sixnimmt.server.botapi.inbox import FROM_BOT, HANDLERS
from sixnimmt.server.botapi.seat_links import BotError


def test_each_message_type_is_decoded_into_its_record_and_has_a_handler() -> None:
    assert decode({"type": "seek", "mode": "rated", "players": 4, "variant": "tactics"}) == Seek("rated", 4, "tactics")
    assert decode({"type": "seek"}) == Seek("casual", None, "standard")
    assert decode({"type": "cancel-seek", "seek": "abc"}) == CancelSeek("abc")
    assert decode({"type": "accept", "invitation": "i1"}) == Accept("i1")
    assert decode({"type": "decline", "invitation": "i1", "reason": "x" * 300}) == Decline("i1", "x" * 200)
    assert decode({"type": "move", "game": "ABCDE", "id": 3, "move": 55}) == Move("ABCDE", 3, 55)
    assert decode({"type": "leave", "game": "ABCDE"}) == Leave("ABCDE")
    assert decode_hello({"type": "hello"}).max_games is None
    assert decode_hello({"type": "hello", "max_games": 2}).max_games == 2
    assert {type(decode({"type": kind, "invitation": "i", "game": "G"})) for kind in DECODERS} == set(HANDLERS)


@pytest.mark.parametrize(("raw", "reason"), [
    ({"type": "dance"}, "unknown message type 'dance'"),
    ({"type": "seek", "mode": "ranked"}, "a seek has mode casual or rated"),
    ({"type": "seek", "players": True}, "a seek has mode casual or rated"),
    ({"type": "seek", "variant": "chess"}, "a seek has mode casual or rated"),
])
def test_a_message_that_is_not_one_is_refused_with_its_reason(raw: dict[str, object], reason: str) -> None:
    with pytest.raises(BotError, match=reason) as refused:
        decode(raw)
    assert refused.value.code == "bad-message"


@pytest.mark.parametrize("max_games", [0, -1, 1.5, True, None, "2"])
def test_hello_asks_for_a_whole_number_of_games(max_games: object) -> None:
    with pytest.raises(BotError, match="max_games is a whole number of games, 1 or more"):
        decode_hello({"type": "hello", "max_games": max_games})


@pytest.mark.parametrize(("text", "reason"), [
    (None, "send JSON text frames"), ("x" * 70000, "send JSON text frames"), ("{", "not JSON"),
    ("[1]", "a JSON object with a type"), ('{"type": 3}', "a JSON object with a type"),
])
def test_a_frame_that_is_not_a_message_is_refused(text: str | None, reason: str) -> None:
    with pytest.raises(BotError, match=reason):
        parse_json(text, 65536)


#: A value of each JSON kind the field specs name, as a program would send it.
SAMPLES = {"string": "ABCDE", "integer": 3, "integer or null": None, "any": 55}


def test_the_field_specs_and_the_decoders_describe_the_same_messages() -> None:
    """The two places that know a message's fields (the specs every message is checked against,
    which the docs' reference is made from, and the decoders) agree: the same types, and whatever
    the specs let through with only its required fields decodes (the decoders' defaults fill the rest)."""
    assert set(FROM_BOT) == set(DECODERS) | {"hello", "ping"}
    for kind, spec in FROM_BOT.items():
        raw = {"type": kind, **{f.name: SAMPLES[f.json] for f in spec.fields if f.required}}
        spec.check(raw)
        if kind in DECODERS:
            assert decode(raw).type == kind
        elif kind == "hello":
            assert decode_hello(raw).max_games is None
