"""The messages between server processes and the calls one asks another to run: typed records,
each named on the wire by a tag, decoded back into the same records, and refused with a clear error
when a batch or a call is not one."""

from __future__ import annotations

import pytest

from sixnimmt.server.calls import (
    CALLS,
    AccountBanned,
    AccountRenamed,
    AddressBansChanged,
    BlocksChanged,
    BotConnected,
    BotsOnline,
    InviteBot,
    InviteProgram,
    Join,
    Listing,
    RemoteCall,
    Summary,
    WithdrawInvitation,
    call_from_dict,
    call_to_dict,
)
from sixnimmt.server.cluster.mail import (
    Ask,
    Close,
    Frame,
    Gone,
    Mail,
    Open,
    Push,
    Refuse,
    Reply,
    decode_batch,
    encode_batch,
)
from sixnimmt.server.wire import Outbound

EVERY_CALL: list[RemoteCall] = [
    Summary(), Join("Ann", "inv", 7, "tok", True, "k" * 22, True), InviteProgram("host", 2, "Bot"),
    WithdrawInvitation("inv"), Listing(5), BotsOnline(), InviteBot(3, "ABCDE", "tok", {"from": "Ann"}), BotConnected(3),
    AccountBanned(4, (5, 6)), BlocksChanged(4), AddressBansChanged(), AccountRenamed(4, "Nice_Name"),
]


def test_every_call_comes_back_as_the_same_record() -> None:
    assert {type(call) for call in EVERY_CALL} == set(CALLS.values())
    for call in EVERY_CALL:
        assert call_from_dict(call_to_dict(call)) == call


@pytest.mark.parametrize("data", [{"op": "drop-tables"}, {}, {"op": "join"}, {"op": "listing", "limit": 1, "x": 2}])
def test_a_call_that_is_not_one_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="call"):
        call_from_dict(data)


def test_every_message_comes_back_as_the_same_record_and_a_shared_message_travels_once() -> None:
    shared = Outbound(type="chosen", seat=1)
    items: list[Mail] = [
        Open("ABCDE", 1, "tok", 3, "127.0.0.1"), Frame("ABCDE", 1, '{"type":"ping"}'), Frame("ABCDE", 2, None),
        Close("ABCDE", 1), Push(1, shared, 3), Push(2, shared, 3), Gone(1, 3),
        Refuse(2, {"type": "error", "code": "full"}, 4429, 3), Ask(9, "ABCDE", Join("Ann", key="k" * 22), 12.5),
        Reply(9, {"result": [1, "tok", False]}),
    ]
    text = encode_batch("proc-a", items)
    assert text.count('"chosen"') == 1
    sender, decoded = decode_batch(text)
    assert sender == "proc-a"
    assert decoded == items
    pushed = [item for item in decoded if isinstance(item, Push)]
    assert pushed[0].message is pushed[1].message and isinstance(pushed[0].message, Outbound)


@pytest.mark.parametrize("text", ["", "[]", '{"from": "a"}', '{"from": "a", "messages": [], "items": [{"t": "nope"}]}',
                                  '{"from": "a", "messages": [], "items": [{"t": "push", "conn": 1, "message": 4, "epoch": 1}]}',
                                  '{"from": "a", "messages": [], "items": [{"t": "gone", "conn": 1}]}'])
def test_a_batch_that_is_not_one_is_refused_with_a_clear_error(text: str) -> None:
    with pytest.raises(ValueError, match="not a batch of messages between processes"):
        decode_batch(text)
