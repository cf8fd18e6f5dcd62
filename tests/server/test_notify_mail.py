"""E-mail, end to end against a real SMTP server in the test's process (aiosmtpd): an address
confirmed by the link its mail carries, a password set again by mail (the link works once, and
not after it expires), "your move" mails for a turn-based table (at most one per table per
period) and the one-click unsubscribe they carry. Time is a :class:`ManualClock`."""

from __future__ import annotations

import email
import email.policy
import json
import re
import socket
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient

from sixnimmt.server.accounts.account_routes import COOKIE
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.notify.mailer import mail_enabled, mail_missing
from sixnimmt.server.notify.phrases import STRINGS
from sixnimmt.server.web.logs import redact

from .conftest import make_client

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new phrase"
ORIGIN = {"Origin": "http://testserver"}
HOUR = 3600.0
SITE = "https://game.example.org"


class Inbox:
    """aiosmtpd's handler: every message the server hands over, in order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # (aiosmtpd calls it by this name)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message["X-Envelope-To"] = ",".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def take(self) -> list[Message]:
        taken, self.messages = self.messages, []
        return taken


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


@pytest.fixture
def web(database_url: str, inbox: tuple[Inbox, int]) -> Iterator[TestClient]:
    """The app on SQLite, and on PostgreSQL where the tests have one."""
    with make_client(database_url, ManualClock(), smtp_host="127.0.0.1", smtp_port=inbox[1],
                     smtp_from="6 nimmt! <game@example.org>", smtp_security="none", public_url=SITE,
                     move_notice_delay=0.0) as client:
        client.headers.update(ORIGIN)
        yield client


def body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def link_in(message: Message, pattern: str) -> str:
    found = re.search(pattern, body(message))
    assert found, body(message)
    return found.group(0)


def token_of(link: str) -> str:
    return link.rsplit("token=", 1)[1]


def sign_up(web: TestClient, name: str) -> None:
    web.cookies.clear()
    response = web.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text


def settle(web: TestClient, advance: float = 0.0, notices: bool = True) -> None:
    """Move the app's clock on (in the app's thread, where its timers run), let the bots' moves it
    caused land, and (``notices``) let every mail and push under way go out."""
    app: Any = web.app

    async def run() -> None:
        if advance:
            app.state.rooms.clock.advance(advance)
        for code in app.state.rooms.loaded_codes():
            room = app.state.rooms.local(code)
            if room is not None:
                await room.scheduler.settle()
        if notices:
            await app.state.notifier.settle()

    assert web.portal is not None
    web.portal.call(run)


def confirmed_address(web: TestClient, inbox: Inbox, name: str, address: str) -> None:
    """Sign ``name`` up, give the address and follow the link of the mail that confirms it."""
    sign_up(web, name)
    response = web.post("/api/notify/email", json={"address": address})
    assert response.status_code == 200, response.text
    [mail] = inbox.take()
    assert mail["To"] == address and "Confirm" in mail["Subject"]
    link = link_in(mail, re.escape(SITE) + r"/#/mail/confirm\?token=[\w-]+")
    assert web.post("/api/notify/email/confirm", json={"token": token_of(link)}).json() == {
        "email": address, "confirmed": True}


def test_an_address_is_confirmed_by_the_link_in_its_mail(web: TestClient, inbox: tuple[Inbox, int]) -> None:
    mails, _ = inbox
    assert web.get("/api/notify/config").json()["email"] is True
    sign_up(web, "Ann_1")
    assert web.get("/api/notify/settings").json()["email"] is None
    bad = web.post("/api/notify/email", json={"address": "ann at example"})
    assert bad.status_code == 422 and bad.json()["code"] == "notify-address-invalid"
    assert web.post("/api/notify/email", json={"address": "ann@example.org\r\nBcc: x@y.org"}).status_code == 422
    assert mails.take() == []
    assert web.post("/api/notify/email", json={"address": "ann@example.org"}).status_code == 200
    [mail] = mails.take()
    assert mail["X-Envelope-To"] == "ann@example.org" and mail["From"] == "6 nimmt! <game@example.org>"
    assert "Ann_1" in body(mail)
    link = link_in(mail, re.escape(SITE) + r"/#/mail/confirm\?token=[\w-]+")
    assert web.get("/api/notify/settings").json()["confirmed"] is False
    # the link opens the web client, whose page posts the token
    assert web.get(link.split("#", 1)[0].replace(SITE, "")).status_code == 200
    done = web.post("/api/notify/email/confirm", json={"token": token_of(link)})
    assert done.status_code == 200, done.text
    assert web.get("/api/notify/settings").json() == {"email": "ann@example.org", "confirmed": True,
                                                      "move_mails": True, "push_endpoints": []}
    again = web.post("/api/notify/email/confirm", json={"token": token_of(link)})
    assert again.status_code == 410 and again.json()["code"] == "notify-link-dead"
    # a new address is unconfirmed until its own link is followed; the old link confirms nothing
    assert web.post("/api/notify/email", json={"address": "ann@example.net"}).status_code == 200
    [second] = mails.take()
    assert second["To"] == "ann@example.net"
    assert web.get("/api/notify/settings").json()["confirmed"] is False
    # nobody else sees the address
    sign_up(web, "Bob_2")
    assert web.get("/api/notify/settings").json()["email"] is None
    assert "ann@" not in web.get("/api/users/Ann_1").text
    # a page in German: the mail is in German
    assert web.post("/api/notify/email", json={"address": "bob@example.de", "lang": "de"}).status_code == 200
    [german] = mails.take()
    strings = json.loads((STRINGS / "de.json").read_text(encoding="utf-8"))
    assert german["Subject"] == strings["notify.mailConfirmSubject"] and "ä" in german["Subject"]
    assert body(german).startswith(strings["notify.mailConfirm"].split("{name}")[0] + "Bob_2")


def test_a_password_is_set_again_by_mail_once_and_not_after_the_link_expires(
    web: TestClient, inbox: tuple[Inbox, int]
) -> None:
    mails, _ = inbox
    confirmed_address(web, mails, "Ann_1", "ann@example.org")
    web.cookies.clear()
    # an unknown name gets the same answer and no mail
    assert web.post("/api/notify/reset/request", json={"name": "nobody_here"}).status_code == 202
    settle(web)
    assert mails.take() == []
    assert web.post("/api/notify/reset/request", json={"name": "ann_1"}).status_code == 202
    settle(web)  # (mailed after the answer, which is the same for any name)
    [mail] = mails.take()
    link = link_in(mail, re.escape(SITE) + r"/#/mail/reset\?token=[\w-]+")
    weak = web.post("/api/notify/reset", json={"token": token_of(link), "password": "short"})
    assert weak.status_code == 422 and weak.json()["code"] == "account-password-weak"  # the link still works
    done = web.post("/api/notify/reset", json={"token": token_of(link), "password": NEW_PASSWORD})
    assert done.status_code == 200, done.text
    old = web.post("/api/account/signin", json={"name": "Ann_1", "password": PASSWORD})
    assert old.status_code == 401
    assert web.post("/api/account/signin", json={"name": "Ann_1", "password": NEW_PASSWORD}).status_code == 200
    again = web.post("/api/notify/reset", json={"token": token_of(link), "password": "yet another phrase"})
    assert again.status_code == 410 and again.json()["code"] == "notify-link-dead"
    # a link followed after it expired does nothing
    web.cookies.clear()
    assert web.post("/api/notify/reset/request", json={"name": "Ann_1"}).status_code == 202
    settle(web)
    [late] = mails.take()
    settle(web, advance=HOUR + 1)
    expired = web.post("/api/notify/reset", json={"token": token_of(link_in(late, r"token=[\w-]+")),
                                                  "password": "yet another phrase"})
    assert expired.status_code == 410
    assert web.post("/api/account/signin", json={"name": "Ann_1", "password": NEW_PASSWORD}).status_code == 200


def test_your_move_mails_at_most_one_per_table_per_period_and_one_click_unsubscribe(
    web: TestClient, inbox: tuple[Inbox, int]
) -> None:
    mails, _ = inbox
    confirmed_address(web, mails, "Ann_1", "ann@example.org")
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}],
                                         "target": 1000, "timer": int(HOUR)})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    settle(web)
    [first] = mails.take()
    assert first["Subject"] == f"Your move at table {code} (6 nimmt!)"
    assert f"{SITE}/#/t/{code}" in body(first)
    unsubscribe = link_in(first, re.escape(SITE) + r"/api/notify/unsubscribe\?\S+")
    assert first["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert first["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # each hour the time runs out, the stand-in plays, and a new move is Ann's: no mail for 6 hours
    turns = []
    for _ in range(5):
        settle(web, advance=HOUR)
        turns.append(web.get(f"/api/tables/{code}").json()["waiting_for"])
        assert mails.take() == []
    assert all(0 in waiting for waiting in turns)
    settle(web, advance=HOUR)
    [second] = mails.take()
    assert second["Subject"] == first["Subject"]
    # one click (the mail client's POST, without a session) and no more mails
    web.cookies.clear()
    assert web.post(unsubscribe.replace(SITE, "")).status_code == 200
    for _ in range(7):
        settle(web, advance=HOUR)
    assert mails.take() == []
    assert web.get(unsubscribe.replace(SITE, "") + "x").status_code == 404  # a wrong key changes nothing


def test_no_mail_server_no_mail_features(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'none.db'}", ManualClock()) as web:
        web.headers.update(ORIGIN)
        config = web.get("/api/notify/config").json()
        assert config["email"] is False and config["push"] is True
        sign_up(web, "Ann_1")
        refused = web.post("/api/notify/email", json={"address": "ann@example.org"})
        assert refused.status_code == 404 and refused.json()["code"] == "notify-no-mail"
        assert web.post("/api/notify/reset/request", json={"name": "Ann_1"}).status_code == 404
        assert web.cookies.get(COOKIE)


def test_a_deleted_account_takes_its_address_along_and_no_key_reaches_a_log(
    web: TestClient, inbox: tuple[Inbox, int]
) -> None:
    mails, _ = inbox
    confirmed_address(web, mails, "Ann_1", "ann@example.org")
    assert web.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
    web.cookies.clear()
    assert web.post("/api/notify/reset/request", json={"name": "Ann_1"}).status_code == 202
    settle(web)
    assert mails.take() == []  # no account, no address: nothing is mailed
    sign_up(web, "Ann_1")  # the name is free again, and the new account has no address
    assert web.get("/api/notify/settings").json()["email"] is None
    line = redact('"GET /api/notify/unsubscribe?user=7&key=Secret_Key-1 HTTP/1.1" 200')
    assert "Secret_Key" not in line and "user=7" in line


def test_a_mail_server_that_is_down_is_a_clear_error_and_the_game_goes_on(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'down.db'}", ManualClock(), smtp_host="127.0.0.1", smtp_port=free_port(),
                     smtp_from="game@example.org", smtp_security="none", public_url=SITE, move_notice_delay=0.0) as web:
        web.headers.update(ORIGIN)
        sign_up(web, "Ann_1")
        refused = web.post("/api/notify/email", json={"address": "ann@example.org"})
        assert refused.status_code == 503 and refused.json()["code"] == "notify-mail-failed"
        made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}], "timer": int(HOUR)})
        assert made.status_code == 201, made.text
        settle(web, advance=HOUR)
        assert web.get(f"/api/tables/{made.json()['code']}").json()["status"] == "playing"


def test_mail_settings_that_cannot_work_turn_mail_off_and_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(database_url="sqlite://", smtp_host="mail.example.org", smtp_from="game@example.org",
                        public_url=SITE, smtp_security="ssl")
    assert not mail_enabled(settings) and "SIXNIMMT_SMTP_SECURITY" in mail_missing(settings)
    settings.smtp_security, settings.public_url = "tls", ""
    assert mail_missing(settings) == "SIXNIMMT_PUBLIC_URL"
    settings.public_url = SITE
    assert mail_enabled(settings)
    monkeypatch.setenv("SIXNIMMT_SMTP_PORT", "smtp")
    with pytest.raises(ValueError, match="SIXNIMMT_SMTP_PORT is a port number"):
        Settings()
