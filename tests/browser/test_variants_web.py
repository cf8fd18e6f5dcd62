"""The newer variants in real Chromium: a whole Nifty game against two bots (two cards a turn, a
choice taken back, the order of one's own pair), and a Hand game played until a row was taken and
its cards kept or passed on (one player at a time, a second card or Pass, Done)."""

from __future__ import annotations

from typing import Any

from .test_web_game import FAST, close_deal_summary

STATE = """() => { const t = document.querySelector('#table'); const d = t.dataset;
  return [d.deal, d.turn, d.phase, d.decision, document.querySelectorAll('#hand button.card.selected').length].join(); }"""
READY = """() => { const t = document.querySelector('#table');
  if (!t || t.dataset.busy === '1') return false;
  return !!(document.querySelector('#dialog-over') || document.querySelector('#dialog-deal') || t.dataset.decision); }"""


def new_table(page: Any, server: str, variant: str, players: int, target: str | None = None) -> None:
    page.goto(server + FAST + "#/")
    page.fill("#name", "Ana")
    page.select_option("#variant", variant)
    page.select_option("#players", str(players))
    for index in range(1, players):
        page.select_option(f"#seats select[data-seat='{index}']", "bot:easy")
    if target is not None:
        page.fill("#target", target)
    page.click("#create-btn")
    page.wait_for_selector("#table")


def answer(page: Any) -> str:
    """Answer this seat's decision by clicking; returns its kind ('' when the game is over).

    A click can land just as an update redraws the table (and be lost with the old button): when
    nothing has changed after a while and the same decision is still due, it is clicked again."""
    page.wait_for_function(READY, timeout=30_000)
    if page.query_selector("#dialog-over"):
        return ""
    if page.query_selector("#dialog-deal"):
        close_deal_summary(page)
        return "deal"
    before = page.evaluate(STATE)
    kind = page.eval_on_selector("#table", "t => t.dataset.decision")
    selector = {"row": ".row.pickable >> nth=0", "order": "#choices button.card >> nth=0",
                "keep": "#choices button.card >> nth=0", "card-second": "#pass",
                "draft": "#reveal button.card >> nth=0"}.get(
        kind, "#hand button.card:not([disabled]):not(.selected) >> nth=0")
    changed = f"() => ({STATE})() !== {before!r} || !!document.querySelector('#dialog-over')"
    for _ in range(6):
        page.click(selector, timeout=10_000)
        try:
            page.wait_for_function(changed, timeout=5_000)
            return kind
        except Exception:
            page.wait_for_function(READY, timeout=30_000)
            if page.evaluate(STATE) != before:
                return kind
    raise AssertionError(f"answering {kind!r} changed nothing")


def test_a_whole_nifty_game(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + FAST + "#/")
    page.select_option("#variant", "nifty")
    assert page.locator("#players option").all_inner_texts() == [str(n) for n in range(2, 8)]
    assert "2" in page.inner_text("#range-note") and "7" in page.inner_text("#range-note")
    new_table(page, server, "nifty", 3, target="8")
    page.wait_for_selector("#table[data-decision='card']")
    assert page.locator("#hand button.card").count() == 14
    # a card chosen and tapped again is taken back; then two are chosen
    first = page.locator("#hand button.card >> nth=0")
    first.click()
    page.wait_for_selector("#hand button.card.selected")
    assert "1" in page.inner_text("#prompt")  # "1 of 2 chosen"
    page.click("#hand button.card.selected")
    page.wait_for_function("() => !document.querySelector('#hand button.card.selected')")
    page.click("#hand button.card >> nth=1")
    page.wait_for_selector("#hand button.card.selected")
    shots(page, "nifty-one-chosen")
    kinds: list[str] = []
    for _ in range(400):
        page.wait_for_function(READY, timeout=30_000)
        if page.eval_on_selector("#table", "t => t.dataset.decision") == "order" and "order" not in kinds:
            shots(page, "nifty-order")
            assert page.locator("#choices button.card").count() == 2
        kind = answer(page)
        if not kind:
            break
        kinds.append(kind)
    page.wait_for_selector("#dialog-over")
    shots(page, "nifty-final")
    assert "order" in kinds
    assert page.locator("#dialog-over #final-ranking tbody tr").count() == 3
    # the replay shows each turn's six cards, two under each player's name
    page.click("#dialog-over a[href^='#/history/']")
    page.wait_for_selector("#replay-step")
    page.click("#next")
    names = page.locator(".reveal .played > span").all_inner_texts()
    assert len(names) == 6 and sorted(set(names)) == ["Ana", "Bella", "Otto"]
    assert all(names.count(name) == 2 for name in names)
    shots(page, "nifty-replay")
    assert not errors


def test_hand_turns_second_card_and_keeping(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + FAST + "#/")
    page.select_option("#variant", "hand")
    assert page.is_hidden("#target-field") and page.is_visible("#no-target")
    new_table(page, server, "hand", 3)
    page.wait_for_function("() => document.querySelector('#table')?.dataset.phase")
    assert "round" in page.inner_text(".tbar .where")
    seen: set[str] = set()
    for _ in range(400):
        page.wait_for_function(READY, timeout=30_000)
        decision = page.eval_on_selector("#table", "t => t.dataset.decision")
        if decision and decision not in seen:
            shots(page, f"hand-{decision}")
        if decision == "card-second":
            assert page.is_visible("#pass")
        if decision == "keep":
            assert page.is_visible("#done") and page.locator("#choices button.card").count() >= 1
        kind = answer(page)
        seen.add(kind)
        if not kind or {"card", "card-second", "keep"} <= seen:
            break
    assert {"card", "card-second", "keep"} <= seen, seen
    assert not errors


def test_open_double_and_tournament_tables(browser: Any, server: str, shots: Any) -> None:
    """A few turns of each: Open's face-up cards and whose turn it is, Double's table, Tournament's
    draft then play with no target shown."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + FAST + "#/")
    page.select_option("#variant", "double")
    assert page.is_visible("#deck-field")
    page.select_option("#variant", "open")
    assert page.is_hidden("#deck-field")

    new_table(page, server, "open", 4, target="30")
    page.wait_for_selector(".player.thinking")  # whoever's turn it is
    kinds = [answer(page) for _ in range(6)]
    assert "card" in kinds
    page.wait_for_function(READY, timeout=30_000)
    shots(page, "open")

    new_table(page, server, "double", 3, target="30")
    for _ in range(8):
        answer(page)
    page.wait_for_function(READY, timeout=30_000)
    shots(page, "double")

    new_table(page, server, "tournament", 3)
    page.wait_for_function(READY, timeout=30_000)
    shots(page, "tournament-draft")
    assert page.locator(".ptotal").count() == 3
    kinds = [answer(page) for _ in range(14)]
    assert "draft" in kinds and "card" in kinds
    assert "of 3" in page.inner_text(".tbar .where")  # Deal 1 of 3: one deal per player
    shots(page, "tournament")
    assert not errors
