"""Report and block from the table, on a phone, in real Chromium (docs/web.md, "Moderation"): the
Players dialog reports a player with a reason and a note, and a block hides their chat (what they
said before, and what they say after) in the blocker's browser only (that a state sent after the
block carries none of their lines is tested in tests/server/test_moderation_table.py); a profile's
Report and Block, the blocked players in the settings, and the moderators' admin page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sixnimmt.cli import run

from .conftest import free_port, start_server
from .test_first_evening import sign_up
from .test_friends import new_table
from .test_web_game import FAST

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def say(page: Any, text: str) -> None:
    """Send a chat line and wait until the server has relayed it back (it is in the log)."""
    page.fill("#chat-text", text)
    page.click("#chat-send")
    page.wait_for_selector(f"#log-lines li.log-chat >> text={text}")


def test_report_and_block_from_the_table_on_a_phone(browser: Any, tmp_path: Path, shots: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    process = start_server(port, tmp_path)  # (its own server: the operator's command reads its database)
    try:
        report_and_block(browser, f"http://127.0.0.1:{port}", shots)
        assert run(["admin", "--database-url", f"sqlite:///{tmp_path / 'web.db'}", "report", "1"]) == 0
        shown = capsys.readouterr().out
        assert "'Bo', abuse, from the chat of table" in shown and "note: insults in the chat" in shown
        assert "> [1] Bo: you play like a potato" in shown  # the line the report points at, with the chat
    finally:
        process.terminate()
        process.wait(timeout=10)


def report_and_block(browser: Any, server: str, shots: Any) -> None:
    ana = browser.new_context(**PHONE).new_page()
    code = new_table(ana, server, "Ana", ["open", "open"])
    bo, cy = browser.new_context(**PHONE).new_page(), browser.new_context().new_page()
    for page, name in ((bo, "Bo"), (cy, "Cy")):
        page.goto(server + FAST + "#/")
        page.fill("#join-code", code)
        page.fill("#join-name", name)
        page.click("#join button[type=submit]")
        page.wait_for_selector("#chat-text:not([disabled])")
    for page in (ana, bo, cy):
        page.click("#log summary")
    say(bo, "you play like a potato")
    ana.wait_for_selector("#log-lines li.log-chat >> text=you play like a potato")
    # the report: from the Players dialog, with a reason and a note
    ana.click("#players-btn")
    ana.wait_for_selector("#dialog-players li[data-seat='1']")
    box = ana.locator("#dialog-players").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390  # it fits the phone
    shots(ana, "phone-players")
    ana.click("#dialog-players li[data-seat='1'] button[data-action='report']")
    ana.select_option("#report-reason", "abuse")
    ana.fill("#report-note", "insults in the chat")
    shots(ana, "phone-report")
    ana.click("#report-send")
    ana.wait_for_selector(".toast >> text=the moderators have your report")
    assert ana.locator("#dialog-report").count() == 0
    # the block: Bo's earlier line leaves Ana's log, and his next ones never reach her
    ana.click("#players-btn")
    ana.click("#dialog-players li[data-seat='1'] button[data-action='block']")
    ana.wait_for_selector(".toast >> text=You no longer see Bo's chat")
    ana.wait_for_selector("#dialog-players li[data-seat='1'] button[data-action='block'] >> text=Unblock")
    ana.keyboard.press("Escape")
    assert "potato" not in ana.inner_text("#log-lines")
    say(bo, "still here?")
    cy.wait_for_selector("#log-lines li.log-chat >> text=still here?")  # the others still hear Bo
    say(ana, "anyone else?")  # (sent after Bo's line was relayed: had it reached Ana, it would show by now)
    assert "still here?" not in ana.inner_text("#log-lines")
    assert ana.evaluate("document.scrollingElement.scrollWidth") <= 390
    shots(ana, "phone-blocked")


def test_a_profiles_report_and_block_the_settings_list_and_the_admin_page(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    process = start_server(port, tmp_path)  # (its own server: the operator's command needs its database)
    server = f"http://127.0.0.1:{port}"
    try:
        mona, rudy, pest = (browser.new_context().new_page() for _ in range(3))
        for page, name in ((mona, "Mona"), (rudy, "Rudy"), (pest, "Pest")):
            sign_up(page, server, name)
        assert run(["admin", "--database-url", f"sqlite:///{tmp_path / 'web.db'}", "moderator", "Mona",
                    "--reason", "club moderator"]) == 0
        # Rudy reports and blocks Pest from Pest's profile
        rudy.goto(f"{server}{FAST}#/u/Pest")
        rudy.click("#report-profile")
        rudy.select_option("#report-reason", "name")
        rudy.click("#report-send")
        rudy.wait_for_selector(".toast >> text=the moderators have your report")
        rudy.click("#block-profile")
        rudy.wait_for_selector(".toast >> text=You no longer see Pest's chat")
        # listed in Rudy's settings, and undone there
        rudy.goto(f"{server}{FAST}#/account")
        rudy.wait_for_selector("#blocks-list li[data-name='Pest']")
        assert "Pest" in rudy.inner_text("#reports-list li[data-report='1']")  # and the report made
        assert rudy.locator("#admin-link").count() == 0  # (not a moderator: no admin page)
        rudy.click("#blocks-list li[data-name='Pest'] button")
        rudy.wait_for_selector("#blocks-list li.muted")
        # the moderator's page: the report, resolved with a reason, then in the log
        mona.goto(f"{server}{FAST}#/account")
        mona.click("#admin-link")
        mona.wait_for_selector("#admin-reports section[data-report='1'] >> text=Pest")
        mona.fill("#admin-reports section[data-report='1'] input", "asked Pest to rename")
        mona.click("#admin-reports section[data-report='1'] .actions button")
        mona.wait_for_selector("#admin-log li >> text=asked Pest to rename")
        assert mona.locator("#admin-reports section").count() == 0
        rudy.goto(f"{server}{FAST}#/admin")
        rudy.wait_for_selector("p.error")  # anyone else finds no page
    finally:
        process.terminate()
        process.wait(timeout=10)
