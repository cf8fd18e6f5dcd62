"""One refusal type for every door: a table's, an account's, a protocol's and a bot program's
refusals are all :class:`Refusal`, made the same way (message, code, parameters), and each door says
the same reason with the same parameters: a table's socket, the HTTP API and the Bot API's socket."""

from __future__ import annotations

from sixnimmt.server.accounts.users import AccountError
from sixnimmt.server.botapi.seat_links import BotError
from sixnimmt.server.limits import too_many
from sixnimmt.server.refusal import Refusal
from sixnimmt.server.tables.table_setup import StoreFailedError, TableError
from sixnimmt.server.wire import ProtocolError


def test_every_refusal_is_one_type_made_the_same_way() -> None:
    for kind in (TableError, AccountError, ProtocolError, BotError):
        refusal = kind("seat 3 is taken", "bad-seat", seat=3)
        assert isinstance(refusal, Refusal) and isinstance(refusal, ValueError)
        assert (str(refusal), refusal.code, refusal.params) == ("seat 3 is taken", "bad-seat", {"seat": 3})
    assert isinstance(StoreFailedError(), Refusal)


def test_each_door_says_the_reason_with_its_parameters() -> None:
    refusal = TableError("the name 'Ann' is taken at this table", "name-taken", name="Ann")
    assert refusal.to_message() == {"type": "error", "code": "name-taken", "params": {"name": "Ann"},
                                    "message": "the name 'Ann' is taken at this table"}
    assert refusal.body() == {"detail": "the name 'Ann' is taken at this table", "code": "name-taken",
                              "params": {"name": "Ann"}}
    assert refusal.to_bot_message() == {"type": "error", "code": "name-taken", "name": "Ann",
                                        "message": "the name 'Ann' is taken at this table"}
    assert BotError("too many seeks", "rate-limited", retry_after=2.0).to_message() == {
        "type": "error", "code": "rate-limited", "message": "too many seeks", "retry_after": 2.0}


def test_a_refusal_knows_its_http_status_and_keeps_its_reason_under_another() -> None:
    assert TableError("full", "table-full").status == 409
    assert AccountError("no such account", "account-gone").status == 422
    assert AccountError("no such account", "account-gone", status=401).status == 401
    refusal = TableError("the server is reconnecting", "table-unavailable", table="ABCDE")
    again = refusal.with_status(503)
    assert (again.status, again.code, again.params, str(again)) == (503, "table-unavailable", {"table": "ABCDE"},
                                                                  "the server is reconnecting")
    assert refusal.status == 409  # (a copy: the refusal itself is unchanged)
    limited = too_many(1.2, "joins")
    assert (limited.status, limited.headers, limited.params) == (429, {"Retry-After": "2"}, {"retry_after": 2})
