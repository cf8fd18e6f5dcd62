"""A first evening that goes smoothly (issue #56), in real Chromium: one test for each point of the
issue a page can fix on its own, numbered as there.

1. signed in, the top bar's name opens an account menu: profile, settings, My bots, sign out;
4. on a phone, the tutorial's instruction never lies under the sticky top bar;
5. when a row must be chosen, the keyboard's focus is on the first row, and stays on the rows;
7. the tutorial speaks to you as "you" in every language, and ends with a tip;
9. signed in, New table and Join are filled with the account's name;
11. on a phone, the top bar is one line, the players' strip lies below it, names are whole and the
    bots' levels are shown;
12. on a 1366 px desktop, the final score sheet of a full table fits without scrolling sideways;
13. the Your-move list's button is not named like the Play now button;
14. the review explains its ⇅ marks, labels each deal on its timeline, and speaks Swedish;
15. the keyboard reaches Create table in fewer steps, and the hand with none after Start;
and the game's home languages: a German and a French table without a word of English.
"""

from __future__ import annotations

import re
from typing import Any

from .test_table_tools import english_left
from .test_table_ux import PHONE, errors_of, finish_game, until_row_choice
from .test_web_game import FAST, READY, create_table, play_until_over

PASSWORD = "a long enough phrase"


def sign_up(page: Any, server: str, name: str) -> None:
    page.goto(f"{server}{FAST}#/account")
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-btn")
    page.wait_for_selector("#profile-name")


def covered_by_top_bar(page: Any, selector: str) -> bool:
    """Whether the element's top edge lies under the sticky top bar (or above the screen)."""
    return bool(page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.top < document.querySelector('.topbar').getBoundingClientRect().bottom - 1; }""", selector))


# ---------------------------------------------------------------- 1. the account menu


def test_1_the_account_menu_reaches_profile_settings_my_bots_and_sign_out(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(viewport={"width": 1366, "height": 800}).new_page()
    errors = errors_of(page)
    sign_up(page, server, "Menu_1")
    menu = "#account-items"
    assert page.inner_text("#account-link") == "Menu_1"
    assert not page.is_visible(menu)
    page.click("#account-link")
    assert page.get_attribute("#account-link", "aria-expanded") == "true"
    assert page.locator(f"{menu} a, {menu} button").all_inner_texts() == ["Profile", "Settings", "My bots", "Sign out"]
    shots(page, "account-menu")
    page.keyboard.press("Escape")  # closes, and the focus goes back to the name
    assert not page.is_visible(menu) and page.evaluate("() => document.activeElement.id") == "account-link"
    page.click("#account-link")
    page.click("#menu-bots")
    page.wait_for_selector("#bots-title")
    assert page.evaluate("() => document.activeElement.id") == "bots-title" and not page.is_visible(menu)
    page.click("#account-link")
    page.click("#menu-settings")
    page.wait_for_selector("#password")
    page.click("#account-link")
    page.click("#menu-profile")
    page.wait_for_selector("#profile-name")
    page.click("#account-link")
    page.click("#menu-signout")
    page.wait_for_function("() => document.querySelector('#account-link')?.textContent === 'Sign in'")
    assert page.get_attribute("#account-link", "href") == "#/account"
    assert not errors


# ---------------------------------------------------------------- 4 and 7. the tutorial


LESSONS = """window.__lessons = [];
new MutationObserver(() => { const node = document.querySelector('#tutorial-lesson');
  if (node && node.innerText && window.__lessons.at(-1) !== node.innerText) window.__lessons.push(node.innerText); })
  .observe(document, { childList: true, subtree: true, characterData: true });"""


def test_4_and_7_the_tutorial_on_a_phone_in_every_language(browser: Any, server: str) -> None:
    page = browser.new_context(**PHONE, is_mobile=True, has_touch=True).new_page()
    page.add_init_script(LESSONS)
    errors = errors_of(page)
    for lang in ("en", "de", "es", "fr", "sv"):
        page.goto(server + FAST + "#/")
        page.select_option("#lang", lang)
        page.reload()
        page.goto(server + FAST + "#/tutorial")
        for step in range(3):
            page.wait_for_selector(f"#tutorial[data-step='{step}'] #hand .card.hinted:not([disabled])")
            page.wait_for_timeout(100)  # (any scrolling done)
            assert not covered_by_top_bar(page, "#tutorial-lesson"), (lang, step)  # 4: the instruction in sight
            assert page.is_visible("#hand .card.hinted")
            page.click("#hand .card.hinted")
            if step == 2:
                page.wait_for_selector("#tutorial[data-picking='1'] .row.pickable")
                assert not covered_by_top_bar(page, "#tutorial-lesson")
                page.click(".row.pickable >> nth=1")
        page.wait_for_selector("#tutorial[data-step='done'] #tutorial-tip")
        you = page.evaluate("() => document.querySelector('#tutorial .player.me .pname').textContent")
        lessons = page.evaluate("() => window.__lessons")
        sixth = [text for text in lessons if "36" in text and text != lessons[0]]
        assert sixth, (lang, lessons)
        # 7: never the name "You" made a possessive or a receiver ("You's 36", "go to You", "La 36 de Tú")
        for text in sixth:
            assert f"{you}'s" not in text and f"{you}s " not in text and f"to {you}" not in text, (lang, text)
            assert f"de {you}" not in text and f"à {you}" not in text and f"an {you}" not in text, (lang, text)
        assert len(page.inner_text("#tutorial-tip")) > 40  # a closing tip
    assert not errors


# ---------------------------------------------------------------- 5. focus on the rows


def test_5_a_row_to_choose_has_the_focus(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = errors_of(page)
    create_table(page, server, "Rosa", ["bot:easy", "bot:easy", "bot:easy", "bot:easy"])
    until_row_choice(page)
    page.wait_for_timeout(400)  # the redraws that follow (bots' news, the reveal's end)
    focused = page.evaluate("() => document.activeElement.matches('#board .row.pickable') && document.activeElement.dataset.row")
    assert focused == page.get_attribute("#board .row.pickable >> nth=0", "data-row")
    page.keyboard.press("Tab")  # the next row is one key away
    assert page.evaluate("() => document.activeElement.matches('#board .row.pickable')")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#table').dataset.decision !== 'row'")
    assert not errors


# ---------------------------------------------------------------- 9 and 13. the lobby signed in


def test_9_and_13_signed_in_the_lobby_knows_the_name_and_names_its_buttons(browser: Any, server: str) -> None:
    page = browser.new_context(viewport={"width": 1366, "height": 800}).new_page()
    errors = errors_of(page)
    sign_up(page, server, "Lobby_9")
    page.goto(f"{server}{FAST}#/")
    page.wait_for_function("() => document.querySelector('#name').value === 'Lobby_9'")
    assert page.input_value("#join-name") == "Lobby_9"
    # a table waiting for this player's move (a friend's seat keeps the game waiting for it)
    page.fill("#target", "10")
    page.select_option("#seats select[data-seat='1']", "bot:easy")
    page.click("#create-btn")
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.goto(f"{server}{FAST}#/")
    page.wait_for_selector("#your-move-list li.my-move a.btn")
    assert page.inner_text("#your-move-list li.my-move a.btn") != page.inner_text("#play-now-btn")
    assert page.inner_text("#your-move-list li.my-move a.btn") == "Make your move"
    assert not errors


# ---------------------------------------------------------------- 11. the phone's top bar and players


def test_11_phone_top_bar_is_one_line_and_the_players_are_whole(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(**PHONE, is_mobile=True, has_touch=True).new_page()
    errors = errors_of(page)
    page.goto(server + FAST + "#/")
    page.wait_for_selector("#play-now")
    one_line = page.evaluate("""() => { const bar = document.querySelector('.topbar').getBoundingClientRect();
        const parts = [...document.querySelectorAll('.topbar > *')].filter((n) => n.getBoundingClientRect().height > 0)
          .map((n) => n.getBoundingClientRect());
        return { height: bar.height, tops: parts.map((r) => Math.round(r.top + r.height / 2)) }; }""")
    assert one_line["height"] <= 60 and max(one_line["tops"]) - min(one_line["tops"]) <= 4, one_line
    page.click("#menu-btn")  # the sections, one tap away
    shown = [a.get_attribute("href") for a in page.locator("#nav a:visible").all()]
    assert shown == ["#/", "#/history", "#/rules", "#/leaderboard", "#/tournaments"], shown
    page.click("#nav a[href='#/rules']")
    page.wait_for_url(re.compile(r".*#/rules$"))
    assert not page.is_visible("#nav a")
    create_table(page, server, "Tapio Virtanen", ["bot:easy", "bot:hard", "bot:expert"])
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.evaluate("() => window.scrollTo(0, 400)")
    page.wait_for_timeout(100)
    assert not covered_by_top_bar(page, "#table .players")  # the strip sticks below the bar
    names = page.evaluate("""() => [...document.querySelectorAll('#table .player .pname')].map((n) =>
        ({ text: n.textContent, whole: n.scrollWidth <= n.clientWidth + 1 && n.scrollHeight <= n.clientHeight + 1 }))""")
    assert names[0]["text"] == "Tapio Virtanen" and all(n["whole"] for n in names), names
    badges = page.locator("#table .player .badge.bot:visible").all_inner_texts()
    assert badges == ["easy", "hard", "expert"]
    shots(page, "phone-top-bar")
    assert not errors


# ---------------------------------------------------------------- 12. the final sheet on a desktop


def test_12_the_final_score_sheet_fits_a_1366_desktop(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 800})
    errors = errors_of(page)
    create_table(page, server, "Maximiliana Wolkenstein", ["bot:easy"] * 9)  # ten players: the widest sheet
    page.wait_for_selector("#hand button.card:not([disabled])")
    play_until_over(page)
    page.wait_for_selector("#final-sheet th")
    page.wait_for_timeout(200)
    seen = page.evaluate("""() => { const wrap = document.querySelector('#final-sheet .sheet-wrap');
        const note = document.querySelector('#sheet-scroll-note');
        const dialog = document.querySelector('#dialog-over').getBoundingClientRect();
        return { fits: wrap.scrollWidth <= wrap.clientWidth + 1, note: !note.hidden,
                 inside: dialog.left >= 0 && dialog.right <= innerWidth }; }""")
    assert seen == {"fits": True, "note": False, "inside": True}
    assert not errors


# ---------------------------------------------------------------- 14. the review


def test_14_the_review_explains_its_marks_and_labels_the_deals(browser: Any, server: str) -> None:
    game = finish_game(browser, server, name="Ulla")
    page = game["page"]
    errors = errors_of(page)
    page.click("#review-btn")
    page.wait_for_selector("#review-timeline .mark", timeout=120_000)
    labels = page.locator("#review-timeline .deal-label").all_inner_texts()
    deals = page.evaluate("() => [...document.querySelectorAll('#review-timeline .deal-label')].map((l) => Number(l.dataset.deal))")
    assert labels and labels == [f"Deal {d}" for d in deals] and deals == sorted(set(deals))
    first = page.evaluate("() => document.querySelector('#review-timeline li').matches('.deal-label')")
    assert first  # the first mark is under a label
    assert "⇅" in page.inner_text("#review-marks-meaning")
    rows = page.locator("#review-timeline .mark", has_text="⇅")
    if rows.count():
        assert "row" in (rows.first.get_attribute("title") or "")
    page.select_option("#lang", "sv")
    page.wait_for_selector("#review-marks-meaning")
    page.wait_for_function("() => /inexakthet/.test((document.querySelector('.legend')?.innerText ?? ''))", timeout=120_000)
    assert "osäk" not in page.inner_text("#review")
    assert "Giv" in page.inner_text("#review-timeline") or "giv" in page.inner_text("#review-timeline")
    page.select_option("#lang", "en")
    assert not errors


# ---------------------------------------------------------------- 15. fewer Tab stops


def test_15_the_keyboard_reaches_create_table_and_the_hand_sooner(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 800})
    errors = errors_of(page)
    page.goto(server + FAST + "#/")
    page.wait_for_selector("#create-btn")
    presses = 0
    while page.evaluate("() => document.activeElement.id") != "create-btn":
        page.keyboard.press("Tab")
        presses += 1
        assert presses < 40
    assert presses <= 16, presses  # past the top bar: Play now, the guided game, then the form
    # a table with a friend's open seat waits for Start; after it, the keys are on the hand
    page.select_option("#seats select[data-seat='1']", "open")
    page.fill("#name", "Keyla")
    page.click("#create-btn")
    page.wait_for_selector("#start")
    page.focus("#start")
    page.keyboard.press("Enter")
    page.wait_for_function(READY, timeout=30_000)
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.evaluate("() => document.activeElement.matches('#hand button.card')")
    assert not errors


# ---------------------------------------------------------------- German and French


def test_german_and_french_tables_have_no_english(browser: Any, server: str, shots: Any) -> None:
    for locale, lang, name in (("de-DE", "de", "Jürgen"), ("fr-FR", "fr", "Aurélie")):
        page = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900}).new_page()
        errors = errors_of(page)
        page.goto(server + FAST + "#/")
        page.wait_for_selector("#create")
        assert page.input_value("#lang") == lang  # the browser's language by default
        assert english_left(page, lang) == set()
        create_table(page, server, name, ["bot:easy", "bot:medium", "bot:hard"])
        page.wait_for_selector("#hand button.card:not([disabled])")
        page.click("#log summary")
        assert english_left(page, lang) == set()
        page.click("#hand button.card:not([disabled]) >> nth=0")
        page.wait_for_function(READY, timeout=30_000)
        assert english_left(page, lang) == set()
        bulls = page.get_attribute("#hand button.card >> nth=0", "aria-label") or ""
        assert ("Hornochse" if lang == "de" else "tête") in bulls
        if lang == "de":
            shots(page, "de-table")
        page.goto(server + FAST + "#/rules/standard")
        page.wait_for_selector("#rules-text h1")
        assert ("Hornochsen" if lang == "de" else "têtes de bœuf") in page.inner_text("#rules-text")
        assert not errors
