"""Report and block from the table, on a phone, in real Chromium (docs/web.md, "Moderation"): the
Players dialog reports a player with a reason and a note, and a block hides their chat (what they
said before, and what they say after) in the blocker's browser only. (That a state sent after the
block carries none of their lines is tested in tests/server/test_moderation_table.py.)"""

from __future__ import annotations

from typing import Any

from .test_friends import new_table
from .test_web_game import FAST

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def say(page: Any, text: str) -> None:
    """Send a chat line and wait until the server has relayed it back (it is in the log)."""
    page.fill("#chat-text", text)
    page.click("#chat-send")
    page.wait_for_selector(f"#log-lines li.log-chat >> text={text}")


def test_report_and_block_from_the_table_on_a_phone(browser: Any, server: str, shots: Any) -> None:
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
