"""The table's own tools in real Chromium: the scoring display (counting down in Spanish, end to
end), the game log and the score sheet, the placement preview, the deal summary shown only once the
board is up to date, the dismissable final ranking, one help line on a phone, and no English left
on the Spanish or Swedish screens (visible text or ARIA labels)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from .test_web_game import FAST, READY, create_table, play_until_over, try_click

STATIC = Path(__file__).resolve().parents[2] / "sixnimmt" / "server" / "static"
ROWS = "() => [...document.querySelectorAll('#board .row')].map((r) => [...r.querySelectorAll('.card:not(.ghost)')].map((c) => +c.dataset.card))"
MINUS = "\u2212"


def finished_game(server: str, code: str) -> dict[str, Any]:
    games = [g for g in httpx.get(f"{server}/api/games?limit=100").json() if g["table"] == code]
    assert len(games) == 1
    return games[0]


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


def english_left(page: Any, lang: str) -> set[str]:
    """Words on the page (text, ARIA labels, titles, placeholders) that only English uses."""
    strings = {code: json.loads((STATIC / "i18n" / f"{code}.json").read_text(encoding="utf-8")) for code in ("en", lang)}
    only_english = words(" ".join(strings["en"].values())) - words(" ".join(strings[lang].values()))
    shown = page.evaluate("""() => [document.body.innerText,
        ...[...document.querySelectorAll('[aria-label], [title], [placeholder]')].flatMap((n) =>
          ['aria-label', 'title', 'placeholder'].map((a) => n.getAttribute(a) || ''))].join(' ')""")
    return words(shown) & only_english


def test_counting_down_in_spanish_end_to_end(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    code = create_table(page, server, "Lucía", ["bot:easy"], players=2, public=True)  # target 10; listed in the history
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.input_value("#count-mode") == "down"  # the Spanish rulebook counts down
    assert page.locator(".player .ptotal").all_inner_texts() == ["10", "10"]
    assert page.get_attribute(".player .ptotal >> nth=0", "title") == "puntos que quedan"
    for label in page.locator("#hand button.card").evaluate_all("b => b.map((x) => x.getAttribute('aria-label'))"):
        _number, heads = re.fullmatch(r"(\d+), (\d+) cabezas? de toro", label).groups()  # type: ignore[union-attr]
        assert label.endswith("cabeza de toro" if heads == "1" else "cabezas de toro"), label
    shots(page, "es-count-down")
    play_until_over(page)
    game = finished_game(server, code)
    totals, names = game["totals"], game["seats"]
    expected = [str(10 - x) if x <= 10 else f"{x - 10} bajo cero" for x in totals]
    ranking = {int(r.get_attribute("data-seat")): r.locator("td.total").inner_text()
               for r in page.locator("#final-ranking tbody tr").all()}
    assert ranking == dict(enumerate(expected))
    assert page.locator("#final-ranking th").last.inner_text() == "Puntos que quedan"
    last_row = page.locator("#final-sheet tbody tr").last.locator(".running").all_inner_texts()
    assert last_row == expected
    deltas = page.locator("#final-sheet .delta").all_inner_texts()
    assert deltas and all(d == "0" or d.startswith(MINUS) for d in deltas)  # points lost, not penalties added
    shots(page, "es-final")
    assert english_left(page, "es") == set()
    # the history and the replay count down too
    page.click("#dialog-over a[href^='#/history/']")
    page.wait_for_selector("#replay-step")
    page.click(".replay-controls button >> nth=4")  # to the final totals
    assert page.inner_text("#replay-totals") == " · ".join(f"{n}: {e}" for n, e in zip(names, expected, strict=True))
    page.goto(server + FAST + "#/history")
    row = page.locator(f"tr[data-game='{game['id']}'] td >> nth=2")
    shown = [f"{n} fácil" if bot else n for n, bot in zip(names, game["bots"], strict=True)]  # the bot's badge
    assert game["bots"] == [None, "easy"]
    assert row.inner_text() == " · ".join(f"{n} {e}" for n, e in zip(shown, expected, strict=True))
    assert english_left(page, "es") == set()
    page.goto(server + FAST + f"#/t/{code}")
    page.wait_for_selector("#dialog-over")
    page.click("#close-over")
    assert page.locator(".player .ptotal").all_inner_texts() == expected
    page.select_option("#count-mode", "up")  # the viewer's choice, kept in this browser
    assert page.locator(".player .ptotal").all_inner_texts() == [str(x) for x in totals]
    page.reload()
    page.wait_for_selector("#board .row")
    assert page.input_value("#count-mode") == "up"
    assert page.locator(".player .ptotal").all_inner_texts() == [str(x) for x in totals]
    past = page.evaluate("""async () => { const m = await import('/static/js/score.js');
        m.setCountMode('down'); const s = m.scoring(66); return [s.total(70), s.total(66), s.delta(5)]; }""")
    assert past == ["4 bajo cero", "0", f"{MINUS}5"]  # never a bare negative "points left"
    assert not errors


def test_game_log_and_score_sheet(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    code = create_table(page, server, "Ana", ["bot:easy"], players=2, public=True)
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.click("#sheet-btn")  # the sheet opens at any time
    assert "No deal has finished yet." in page.inner_text("#dialog-sheet")
    page.keyboard.press("Escape")
    assert page.locator("#dialog-sheet").count() == 0
    page.click("#log summary")
    play_until_over(page)
    game = finished_game(server, code)
    page.click("#close-over")
    lines = page.locator("#log-lines li").all_inner_texts()
    assert lines[0] == "Deal 1 begins"
    reveals = [line for line in lines if line.startswith("Turn ")]
    assert reveals[0].startswith("Turn 1: ") and "Ana" in reveals[0] and len(reveals) >= 10
    assert sum(line.startswith("Placed: ") for line in lines) >= 10
    taken = [0, 0]
    for line in lines:
        took = re.fullmatch(r"(.+) takes row [1-4]: (\d+) (bullheads?)", line)
        if took:
            name, n, unit = took.groups()
            assert unit == ("bullhead" if n == "1" else "bullheads"), line
            taken[game["seats"].index(name)] += int(n)
    assert taken == game["totals"]  # the log accounts for every bullhead taken
    deals = [line for line in lines if re.fullmatch(r"Deal \d+ is over: .*", line)]
    sheet_rows = page.locator("#score-sheet tbody tr")
    page.click("#show-over")
    assert page.locator("#final-sheet tbody tr").count() == len(deals) >= 1
    assert page.locator("#final-sheet tbody tr").last.locator(".running").all_inner_texts() == [str(x) for x in game["totals"]]
    shots(page, "final-sheet")
    page.click("#close-over")
    page.click("#sheet-btn")
    assert sheet_rows.count() == len(deals)
    shots(page, "score-sheet")
    page.keyboard.press("Escape")
    shots(page, "game-log")
    page.reload()  # the log is kept in this browser
    page.wait_for_selector("#log-lines li")
    assert page.locator("#log-lines li").all_inner_texts() == lines
    assert not errors


def expected_preview(rows: list[list[int]], card: int) -> tuple[int | None, bool]:
    """The row `card` joins (None: lower than every row) and whether it would be the sixth card."""
    below = [(row[-1], index) for index, row in enumerate(rows) if row[-1] < card]
    if not below:
        return None, False
    index = max(below)[1]
    return index, len(rows[index]) == 5


def settle(ana: Any, bo: Any) -> None:
    """Answer row choices on either page until Ana may play a card again."""
    ready = ("() => { const t = document.querySelector('#table'); return t.dataset.busy !== '1' && t.dataset.phase === 'play'"
             " && !!document.querySelector('#hand button.card:not([disabled])'); }")
    for _ in range(600):
        for page in (ana, bo):
            if page.query_selector("#table:not([data-busy='1']) .row.pickable"):
                try_click(page, ".row.pickable >> nth=0")
        if ana.evaluate(ready):
            return
        ana.wait_for_timeout(50)
    raise AssertionError("Ana never got to play")


def test_placement_preview(browser: Any, server: str, shots: Any) -> None:
    """Two people: while Bo has not chosen, Ana tries each card of her hand in turn, and the row
    each would join is highlighted (in red, with a warning, for a sixth card; a card lower than
    every row is warned about), as worked out here from the board on the screen."""
    ana, bo = browser.new_context().new_page(), browser.new_context().new_page()
    code = create_table(ana, server, "Ana", ["open"], players=2)
    bo.goto(server + FAST + "#/")
    bo.fill("#join-code", code)
    bo.fill("#join-name", "Bo")
    bo.click("#join button[type=submit]")
    checked = sixth = too_low = 0
    for _turn in range(6):
        settle(ana, bo)
        rows = ana.evaluate(ROWS)
        for card in ana.locator("#hand button.card").evaluate_all("b => b.map((x) => +x.dataset.card)"):
            ana.click(f"#hand button.card[data-card='{card}']")
            ana.wait_for_function(f"() => !!document.querySelector('#hand button.card.selected[data-card=\"{card}\"]')")
            row, is_sixth = expected_preview(rows, card)
            text = ana.inner_text("#preview")
            previewed = ana.locator("#board .row.preview").evaluate_all("r => r.map((x) => +x.dataset.row)")
            if row is None:
                assert previewed == [] and "lower than every row" in text, (card, rows, text)
                too_low += 1
            else:
                assert previewed == [row], (card, rows, previewed)
                assert f"row {row + 1}" in text, text
                warned = ana.locator("#board .row.preview-take").count() == 1 and "6th card" in text
                assert warned == is_sixth, (card, rows, text)
                sixth += is_sixth
            if row is not None and (checked == too_low or (is_sixth and sixth == 1)):  # the first row outlined
                shots(ana, "preview-sixth" if is_sixth else "preview")
            checked += 1
        bo.wait_for_function("() => !!document.querySelector('#hand button.card:not([disabled])')", timeout=30_000)
        before = ana.eval_on_selector("#table", "t => t.dataset.turn")
        bo.click("#hand button.card:not([disabled]) >> nth=0")
        ana.wait_for_function("(b) => document.querySelector('#table').dataset.turn !== b || document.querySelector('#table').dataset.phase !== 'play'",
                              arg=before, timeout=30_000)
    assert checked == 10 + 9 + 8 + 7 + 6 + 5  # every card of every turn was previewed


def test_the_deal_summary_opens_over_the_new_board(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server + FAST + "#/")
    page.fill("#name", "Ana")
    page.select_option("#players", "4")
    page.fill("#target", "66")  # a first deal all but never ends the game (the loop says so if it does)
    page.click("#create-btn")
    for _ in range(3000):
        page.wait_for_function(READY, timeout=30_000)
        if page.query_selector("#dialog-deal"):
            break
        assert not page.query_selector("#dialog-over"), "the game ended without a deal summary"
        if page.query_selector(".row.pickable"):
            try_click(page, ".row.pickable >> nth=0")
        elif not page.query_selector("#hand button.card.selected"):
            try_click(page, "#hand button.card:not([disabled]) >> nth=-1")
        page.wait_for_timeout(30)
    # the summary opens over the next deal's board and prompt, never over the last deal's
    deal = int(re.search(r"\d+", page.inner_text("#dialog-deal h2")).group())  # type: ignore[union-attr]
    assert deal == 1
    assert page.eval_on_selector("#table", "t => [t.dataset.deal, t.dataset.turn, t.dataset.busy]") == ["1", "0", ""]
    assert [len(row) for row in page.evaluate(ROWS)] == [1, 1, 1, 1]
    assert page.locator("#hand button.card").count() == 10
    shots(page, "deal-summary")


def test_the_final_ranking_can_be_put_aside_and_brought_back(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    create_table(page, server, "Ana", ["bot:easy", "bot:easy"], players=3)
    play_until_over(page)
    assert page.is_hidden("#show-over")
    page.click("#close-over")  # put the ranking aside to study the last board
    assert page.locator("#dialog-over").count() == 0
    assert page.locator("#board .row").count() == 4 and page.is_visible("#show-over")
    shots(page, "game-over-aside")
    page.click("#show-over")
    page.wait_for_selector("#dialog-over")
    page.keyboard.press("Escape")
    assert page.locator("#dialog-over").count() == 0
    page.click("#show-over")
    assert page.is_visible("#dialog-over #again")


def test_one_help_line_on_a_phone(browser: Any, server: str, shots: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    create_table(page, server, "Pia", ["bot:medium"], players=2)
    page.wait_for_selector("#hand button.card:not([disabled])")
    help_text = "You can change it until everyone has chosen"
    assert page.evaluate("(t) => document.body.innerText.split(t).length - 1", help_text) == 1
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    # the tools, the log and the score sheet fit the phone too
    page.tap("#hand button.card:not([disabled]) >> nth=0")
    page.wait_for_function(READY, timeout=30_000)
    page.click("#log summary")
    page.wait_for_selector("#log-lines li")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.locator("#log").scroll_into_view_if_needed()
    shots(page, "phone-log")
    page.click("#sheet-btn")
    box = page.locator("#dialog-sheet").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    shots(page, "phone-sheet")


def test_no_english_on_the_swedish_table(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(locale="sv-SE", viewport={"width": 1280, "height": 900}).new_page()
    page.goto(server + FAST + "#/")
    page.wait_for_selector("#create")
    assert english_left(page, "sv") == set()
    create_table(page, server, "Åsa", ["open"], players=2)  # the waiting room, as its host
    page.wait_for_selector("#big-code")
    assert english_left(page, "sv") == set()
    create_table(page, server, "Åsa", ["bot:easy", "bot:easy"], players=3)
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.click("#log summary")
    assert english_left(page, "sv") == set()
    page.click("#hand button.card:not([disabled]) >> nth=0")
    page.wait_for_function(READY, timeout=30_000)
    assert english_left(page, "sv") == set()
    page.click("#sheet-btn")
    assert english_left(page, "sv") == set()
    shots(page, "sv-sheet")
