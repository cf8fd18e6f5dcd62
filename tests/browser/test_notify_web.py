"""E-mail and push in real Chromium: where the server sends mail, sign-up takes an address, its
mail (caught by an SMTP server in the test's process) links to a page that confirms it, and the
account's settings offer the address, "your move" mails and this browser's push switch; where
it sends none, no e-mail field or link shows, and push is still offered."""

from __future__ import annotations

import email
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller

from .conftest import LAUNCH, free_port


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # (aiosmtpd calls it by this name)
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Inbox]]:
    """The real server, with an SMTP server (in this process) named in its settings."""
    inbox = Inbox()
    smtp_port, port = free_port(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    folder = tmp_path_factory.mktemp("mailweb")
    env = {**os.environ, "SIXNIMMT_SMTP_HOST": "127.0.0.1", "SIXNIMMT_SMTP_PORT": str(smtp_port),
           "SIXNIMMT_SMTP_FROM": "game@example.org", "SIXNIMMT_SMTP_SECURITY": "none",
           "SIXNIMMT_PUBLIC_URL": f"http://127.0.0.1:{port}"}
    with (folder / "server.log").open("ab") as log:
        process = subprocess.Popen([sys.executable, "-c", LAUNCH, f"sqlite:///{folder / 'web.db'}", str(port)],
                                   stdout=log, stderr=subprocess.STDOUT, env=env)
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail("the server did not start")
    yield f"http://127.0.0.1:{port}", inbox
    process.terminate()
    process.wait(timeout=10)
    controller.stop()


def sign_up(page: Any, server: str, name: str, address: str | None = None) -> None:
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#signup-name")
    if address is not None:
        page.wait_for_selector("#signup-email")
        page.fill("#signup-email", address)
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a long enough phrase")
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")


def test_sign_up_with_an_address_confirm_it_and_find_the_settings(
    browser: Any, mail_server: tuple[str, Inbox], shots: Any, tmp_path: Path
) -> None:
    server, inbox = mail_server
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#forgot-link")  # the server sends mail: a way back into an account
    sign_up(page, server, "Mailer_1", "mailer@example.org")
    # (the page asks for the confirmation mail before it shows the profile: the mail is here)
    [mail] = [m for m in inbox.messages if m["To"] == "mailer@example.org"]
    body = mail.get_payload(decode=True).decode()
    link = re.search(r"http://\S+#/mail/confirm\?token=[\w-]+", body)
    assert link, body
    page.goto(link.group(0))
    page.wait_for_selector("#mail-done")
    assert "mailer@example.org" in page.inner_text("#mail-done")
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#notify-email")
    assert page.input_value("#notify-email") == "mailer@example.org"
    page.wait_for_selector("#notify-move-mails:checked")
    page.wait_for_selector("#notify-push")  # this browser may be notified of its moves
    page.locator("#notify").scroll_into_view_if_needed()
    shots(page, "account-notifications")
    # another player challenges this one from the profile: the table opens, and the challenge is mailed
    rival = browser.new_context().new_page()
    rival.on("pageerror", lambda e: errors.append(str(e)))
    sign_up(rival, server, "Rival_2")
    rival.goto(f"{server}/#/u/Mailer_1")
    rival.click("#challenge-btn")
    rival.wait_for_url(re.compile(r".*#/t/[A-Z0-9]{5}$"))
    code = rival.url.rsplit("/", 1)[1]
    challenge = arrival(inbox, lambda m: m["Subject"] == "Rival_2 challenges you to 6 nimmt!")
    assert f"#/t/{code}" in challenge.get_payload(decode=True).decode()
    assert not errors


def arrival(inbox: Inbox, wanted: Any) -> Message:
    """The mail ``wanted`` picks, once the server's task has sent it (an event, waited for as the
    page's own waits do, up to a bound)."""
    for _ in range(300):
        found = [m for m in inbox.messages if wanted(m)]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError("the mail did not arrive")


def test_without_a_mail_server_the_email_features_are_hidden(browser: Any, server: str) -> None:
    assert httpx.get(f"{server}/api/notify/config").json()["email"] is False
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#signup-name")
    sign_up(page, server, "NoMail_1")
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#notify-push")  # push needs no mail server
    assert page.locator("#notify-email").count() == 0
    page.click("#signout")
    page.wait_for_function("() => location.hash === '#/'")
    page.goto(f"{server}/#/account")
    page.wait_for_selector("#signin-name")
    assert page.locator("#signup-email").count() == 0 and page.locator("#forgot-link").count() == 0
    page.goto(f"{server}/#/mail/forgot")
    page.wait_for_selector("#main h1")
    assert page.locator("#forgot").count() == 0  # says that the server sends no mail
    assert not errors


def test_a_push_reaches_the_app_with_its_tab_closed_and_shows_the_move(browser: Any, server: str) -> None:
    """The service worker's side of a push: Chromium's DevTools hand the worker a push message, as
    a push service would, after the game's tab was closed; the worker shows the notification, whose
    click would open the table."""
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server)
    tab = context.new_page()
    tab.goto(server + "/")
    tab.evaluate("() => navigator.serviceWorker.ready.then(r => r.scope)")
    other = context.new_page()  # (a page of no site, to reach the browser's DevTools after the tab is gone)
    devtools = context.new_cdp_session(other)
    registrations: list[dict[str, Any]] = []
    devtools.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    devtools.send("ServiceWorker.enable")
    for _ in range(100):  # (the registrations arrive as events)
        if any(r["scopeURL"] == server + "/" for r in registrations):
            break
        other.wait_for_timeout(50)
    [registration] = [r for r in registrations if r["scopeURL"] == server + "/" and not r["isDeleted"]]
    tab.close()
    payload = {"kind": "move", "table": "ABCDE", "title": "6 nimmt!: your move",
               "body": "It is your move at table ABCDE.", "url": "/#/t/ABCDE"}
    devtools.send("ServiceWorker.deliverPushMessage", {"origin": server, "registrationId": registration["registrationId"],
                                                       "data": json.dumps(payload)})
    page = context.new_page()
    page.goto(server + "/")
    shown = "() => navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => [n.title, n.body, n.tag, n.data.url]))"
    page.wait_for_function(f"() => ({shown})().then(ns => ns.length > 0)")
    assert page.evaluate(shown) == [[payload["title"], payload["body"], "ABCDE", "/#/t/ABCDE"]]
    context.close()
