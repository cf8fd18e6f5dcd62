"""The table people enjoy (issue #43), in real Chromium: one test for each of the ten points a
game-night group noticed, and the review, the guided first game and "My games".

1. a second tap on a row sends nothing: the choice is final on screen once sent;
2. on a phone the row choice keeps the prompt, the four rows and the scores in sight;
3. the tab's title and icon, a sound and (opt-in) a notification say it is your move;
4. the review is one click from the final screen and from the history;
5. a hint says why; a guided first game teaches the rules;
6. a take moves to the taker's seat, and the log shows the last action while closed;
7. "My games" lists the games this browser played; the history pages beyond the first;
8. an invitation link carries the friend's name; the lobby says open seats, target and timer;
9. on a phone the final score sheet fits or says that it scrolls;
10. Leave, "confirm my card", and the countdown for a player who is away.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import httpx

from .test_table_tools import english_left
from .test_web_game import (
    FAST,
    READY,
    close_deal_summary,
    confirm_card,
    create_table,
    play_until_over,
    try_click,
)

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2}


def errors_of(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def until_row_choice(page: Any, scroll_down: bool = False) -> None:
    """Play the lowest card each turn until this seat must choose a row (a card lower than every
    row); a game that ends first is played again. ``scroll_down``: after each card, scroll down while
    the turn is revealed until the first row lies half under the top bar, as a player on a phone
    does to see the hand (at the normal animation speed, the reveal lasts well over a second)."""
    for _ in range(400):
        page.wait_for_function(READY, timeout=30_000)
        if page.query_selector(".row.pickable"):
            return
        if page.query_selector("#dialog-over"):
            page.click("#again")
            page.wait_for_function("() => !document.querySelector('#dialog-over')")
            continue
        if page.query_selector("#dialog-deal"):
            close_deal_summary(page)
            continue
        if page.query_selector("#hand button.card.selected"):
            page.wait_for_timeout(50)
            continue
        before = page.eval_on_selector("#table", "t => t.dataset.deal + '.' + t.dataset.turn + '.' + t.dataset.phase")
        try_click(page, "#hand button.card:not([disabled]) >> nth=0")
        confirm_card(page)
        if scroll_down:  # the first row half under the top bar, the hand in sight
            page.evaluate("() => window.scrollBy(0, document.querySelector('#board').getBoundingClientRect().top - 20)")
        page.wait_for_function(
            "(b) => { const d = document.querySelector('#table').dataset; return d.deal + '.' + d.turn + '.' + d.phase !== b"
            " || !!document.querySelector('.row.pickable') || !!document.querySelector('#dialog-over'); }", arg=before, timeout=30_000)
    raise AssertionError("no row choice came")


def finish_game(browser: Any, server: str, name: str = "Vera") -> dict[str, Any]:
    """A private game against one bot, played to the end in a page of its own: {id, code, page}."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    code = create_table(page, server, name, ["bot:easy"], players=2)
    page.wait_for_selector("#hand button.card:not([disabled])")
    play_until_over(page)
    page.wait_for_selector("#dialog-over a[href^='#/history/']")
    href = page.get_attribute("#dialog-over a[href^='#/history/']", "href")
    game_id = int(re.match(r"#/history/(\d+)", href).group(1))  # type: ignore[union-attr]
    return {"id": game_id, "code": code, "page": page}


# ---------------------------------------------------------------- 1. a second tap


def test_1_a_second_tap_on_a_row_sends_nothing(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = errors_of(page)
    create_table(page, server, "Dora", ["bot:easy", "bot:easy", "bot:easy", "bot:easy"])
    until_row_choice(page)
    # two clicks in a row, before the server can answer the first
    after = page.evaluate("""() => { const row = document.querySelector('.row.pickable');
        row.click(); row.click();
        return { pickable: document.querySelectorAll('.row.pickable').length, prompt: document.querySelector('#prompt').innerText }; }""")
    assert after["pickable"] == 0  # the rows are no longer offered...
    assert after["prompt"].startswith("Sent")  # ...and the prompt says the choice is made
    page.wait_for_function("() => document.querySelector('#table').dataset.decision !== 'row'")
    page.wait_for_timeout(800)  # the answer to a second move would have come by now
    bad = page.locator(".toast.bad").all_inner_texts()
    assert not [text for text in bad if "Too late" in text], bad
    assert not errors


# ---------------------------------------------------------------- 2. the phone's row choice


VISIBLE = """(selector) => [...document.querySelectorAll(selector)].map((node) => {
  const r = node.getBoundingClientRect();
  const x = r.left + Math.min(12, r.width / 2), y = r.top + r.height / 2;
  const onScreen = r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  const top = document.elementFromPoint(x, y);
  return onScreen && !!top && (node === top || node.contains(top));
})"""


def test_2_phone_row_choice_keeps_prompt_rows_and_scores_in_sight(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(**PHONE).new_page()
    errors = errors_of(page)
    code = create_table(page, server, "Pia", ["bot:easy"] * 9)  # a full table: ten scores to keep in sight
    page.goto(f"{server}/?speed=1#/t/{code}")  # animations at their normal speed
    until_row_choice(page, scroll_down=True)  # the row choice comes while the page is scrolled down
    page.wait_for_timeout(300)  # (any scrolling done)
    rows = page.evaluate(VISIBLE, "#board .row")
    assert rows == [True] * 4  # every row on screen, under no bar
    assert page.evaluate(VISIBLE, "#prompt") == [True]
    assert page.evaluate(VISIBLE, ".player .ptotal") == [True] * 10  # every score in sight
    shots(page, "phone-row-choice")
    assert not errors


# ---------------------------------------------------------------- 3. your move


STUBS = """
window.__notes = [];
window.__hidden = false;
Object.defineProperty(document, 'visibilityState', { get: () => (window.__hidden ? 'hidden' : 'visible') });
Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
window.Notification = class { constructor(title, options) { window.__notes.push({ title, body: options && options.body }); }
  close() {} static get permission() { return 'granted'; } static requestPermission() { return Promise.resolve('granted'); } };
"""


def test_3_your_move_shows_in_title_icon_sound_and_notification(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(STUBS)
    errors = errors_of(page)
    icon = "() => document.querySelector(\"link[rel='icon']\").getAttribute('href')"
    page.goto(server + FAST + "#/")
    plain_icon = page.evaluate(icon)
    create_table(page, server, "Tove", ["bot:easy"], players=2)
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.title().startswith("● Your move")
    assert page.evaluate(icon) != plain_icon  # the tab's icon shows it too
    assert int(page.get_attribute("#table", "data-chimes") or 0) >= 1  # and a sound played
    assert page.is_checked("#sound")
    page.check("#notify")  # opt-in
    page.evaluate("() => { window.__hidden = true; }")  # the tab goes to the background
    turn = page.get_attribute("#table", "data-turn")
    page.click("#hand button.card:not([disabled]) >> nth=-1")
    page.wait_for_function("(t) => document.querySelector('#table').dataset.turn !== t || !!document.querySelector('.row.pickable')", arg=turn)
    page.wait_for_function("() => window.__notes.length >= 1")
    notes = page.evaluate("() => window.__notes")
    assert notes[0]["title"] == "Your move"
    chimes = int(page.get_attribute("#table", "data-chimes") or 0)
    page.uncheck("#sound")
    page.click(".row.pickable >> nth=0") if page.query_selector(".row.pickable") else page.click("#hand button.card:not([disabled]) >> nth=-1")
    page.wait_for_function("(t) => document.querySelector('#table').dataset.turn !== t && document.querySelector('#table').dataset.yourMove === '1'", arg=turn)
    assert int(page.get_attribute("#table", "data-chimes") or 0) == chimes  # the sound is a setting
    page.goto(server + FAST + "#/")
    assert page.title() == "6 nimmt!" and page.evaluate(icon) == plain_icon
    assert not errors


# ---------------------------------------------------------------- 4. the review


def test_4_review_from_the_final_screen_and_the_history(browser: Any, server: str, shots: Any) -> None:
    game = finish_game(browser, server)
    page = game["page"]
    errors = errors_of(page)
    page.click("#review-btn")
    page.wait_for_selector("#review-timeline .mark", timeout=120_000)
    marks = page.locator("#review-timeline .mark")
    grades = marks.evaluate_all("m => m.map((x) => x.dataset.grade)")
    assert len(grades) >= 5 and set(grades) <= {"good", "inaccuracy", "mistake"}
    assert page.locator("#review-board .row").count() == 4
    assert re.search(r"\d", page.inner_text("#review-played")) and "expected" in page.inner_text("#review-played")
    marks.nth(0).click()
    assert page.get_attribute("#review-timeline .mark >> nth=0", "aria-current") == "step"
    assert page.locator("#review-hand .card").count() == 10  # the hand before the first card
    shots(page, "review")
    # from the history: My games lists it, with its review
    page.goto(server + FAST + "#/history/mine")
    page.wait_for_selector(f"tr[data-game='{game['id']}'] a[data-review]")
    page.click(f"tr[data-game='{game['id']}'] a[data-review]")
    page.wait_for_selector("#review-timeline .mark")
    # on a phone: nothing wider than the screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 391
    assert not errors


# ---------------------------------------------------------------- 5. hints that say why; the tutorial


def test_5_a_hint_says_why_and_a_guided_first_game_teaches(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = errors_of(page)
    create_table(page, server, "Hugo", ["bot:easy", "bot:easy"])
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.click("#hint")
    page.wait_for_selector("#hint-why:not([hidden])", timeout=60_000)
    why = page.inner_text("#hint-why")
    card = page.get_attribute("#hand .hinted", "data-card")
    assert why.startswith(f"Hint: play {card}: ")
    assert re.search(r"row \d|lower than every row", why) and "Expected" in why  # the reason, in one line
    # the guided first game, from the home page, in Spanish and Swedish too
    for lang in ("en", "es", "sv"):
        page.goto(server + FAST + "#/")
        page.select_option("#lang", lang)
        page.click("#tutorial-link")
        page.wait_for_selector("#tutorial[data-step='0']")
        lessons = []
        for step in range(3):
            page.wait_for_selector(f"#tutorial[data-step='{step}'] #hand .card.hinted:not([disabled])")
            lessons.append(page.inner_text("#tutorial-lesson"))
            page.click("#hand .card.hinted")
            if step == 2:  # the card lower than every row: choose a row
                page.wait_for_selector("#tutorial[data-picking='1'] .row.pickable")
                if lang == "en":
                    shots(page, "tutorial")
                page.click(".row.pickable >> nth=1")  # the cheapest, as the lesson says
        page.wait_for_selector("#tutorial[data-step='done']")
        lessons.append(page.inner_text("#tutorial-lesson"))
        if lang == "en":
            assert "row 3, after 47" in lessons[0]  # where a card goes
            assert "five" in lessons[1] and "sixth" in lessons[1]  # the sixth card
            assert "lower than the end of every row" in lessons[2]  # the card too low
            assert "You took 9" in lessons[3]  # 8 for the sixth card, 1 for the row chosen
        else:
            assert english_left(page, lang) == set()
            assert "47" in lessons[0] and all(lessons)  # each lesson in the page's language
    page.select_option("#lang", "en")
    assert not errors


# ---------------------------------------------------------------- 6. takes you can follow


FLIGHTS = """
window.__flights = [];
new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
  if (n.classList && n.classList.contains('flying')) window.__flights.push({ seat: n.dataset.toSeat, card: n.dataset.card }); })
  .observe(document, { childList: true, subtree: true });
"""


FLIGHT_LENGTH = """() => Math.max(0, ...document.getAnimations().filter((a) => a.effect?.target?.classList.contains('flying'))
  .map((a) => { const frames = a.effect.getKeyframes();
    const m = /translate\\(([-\\d.]+)px, ([-\\d.]+)px\\)/.exec(frames[frames.length - 1].transform || '');
    return m ? Math.hypot(Number(m[1]), Number(m[2])) : 0; }))"""
HALFWAY = """() => document.getAnimations().filter((a) => a.effect?.target?.classList.contains('flying')).forEach((a) => {
  const timing = a.effect.getTiming();
  a.pause();
  a.currentTime = (timing.delay || 0) + timing.duration * 0.72;  // (ease-in: about half the way)
})"""


def test_6_a_take_moves_to_the_taker_and_the_log_shows_the_last_action(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(FLIGHTS)
    errors = errors_of(page)
    # quick, or slow enough to photograph a take in motion when the pictures are asked for
    speed = "2.5" if os.environ.get("SIXNIMMT_SCREENSHOTS") else "0.6"
    page.goto(server + f"/?speed={speed}#/")
    page.evaluate("() => localStorage.setItem('sixnimmt.logOpen', '0')")
    create_table(page, server, "Iris", ["bot:easy", "bot:easy", "bot:easy", "bot:easy"])
    page.goto(server + f"/?speed={speed}#/t/" + page.url.rsplit("/", 1)[-1])
    page.wait_for_selector("#hand button.card:not([disabled])")
    picture = bool(os.environ.get("SIXNIMMT_SCREENSHOTS"))  # then a take across the table is waited for
    passed_over = 0  # takes too short for the picture (the taker's seat right above the row)
    for _ in range(300):
        if not picture and page.evaluate("() => window.__flights.length"):
            break  # a take whose cards flew (a take that did not fly is passed over: the loop goes on)
        if page.query_selector("#dialog-over"):
            page.click("#again")
        if page.query_selector("#dialog-deal"):
            close_deal_summary(page)
        if page.query_selector(".row.pickable"):
            try_click(page, ".row.pickable >> nth=0")
        elif page.query_selector("#hand button.card:not([disabled])") and not page.query_selector("#hand button.card.selected"):
            try_click(page, "#hand button.card:not([disabled]) >> nth=0")
            confirm_card(page)
        try:
            page.wait_for_function("() => window.__flights.length > 0 && !!document.querySelector('.card.flying')", timeout=1500)
        except Exception:
            continue
        if not picture:
            break
        if page.evaluate(FLIGHT_LENGTH) > 300 or passed_over > 40:
            # the picture: each flying card held halfway between the row and the taker's seat
            page.evaluate(HALFWAY)
            shots(page, "take-in-motion")
            page.evaluate("() => document.getAnimations().forEach((a) => a.play())")
            break
        passed_over += 1
        page.wait_for_function("() => !document.querySelector('.card.flying')")
    flights = page.evaluate("() => window.__flights")
    assert flights, "no take happened"
    seat = flights[0]["seat"]
    assert page.locator(f".player[data-seat='{seat}']").count() == 1  # the cards flew to a seat
    page.wait_for_function("() => document.querySelector('#table').dataset.busy !== '1'")
    page.wait_for_function(f"() => document.querySelector(\".player[data-seat='{seat}'] .pdeal\").textContent.trim() !== ''")
    # the log is closed, yet its last line is on show
    assert page.get_attribute("#log", "open") is None
    last = page.inner_text("#log-last")
    assert last and last == page.locator("#log-lines li").last.text_content()
    assert page.locator("#log-last").is_visible()
    assert not errors


# ---------------------------------------------------------------- 7. my games; pages


def test_7_my_games_and_the_history_beyond_a_hundred(browser: Any, server: str) -> None:
    game = finish_game(browser, server, "Wim")
    page = game["page"]
    errors = errors_of(page)
    page.goto(server + FAST + "#/history/mine")
    row = page.wait_for_selector(f"tr[data-game='{game['id']}']")
    assert "Wim" in row.inner_text()
    # a private table's game is in My games, never in the public list
    page.goto(server + FAST + "#/history")
    page.wait_for_selector("#tab-mine")
    assert page.locator(f"tr[data-game='{game['id']}']").count() == 0
    # the public list goes on page after page (the server's list is stood in for: 130 games)
    games = [{"id": 1000 + i, "table": "PUBLC", "number": 1, "finished_at": "2026-01-01T00:00:00Z", "variant": "standard",
              "seats": ["A", "B"], "totals": [3, 70], "winners": [0], "target": 66} for i in range(130)]
    asked: list[int] = []

    def fulfil(route: Any) -> None:
        params = dict(httpx.URL(route.request.url).params)
        limit, offset = int(params["limit"]), int(params.get("offset", 0))
        asked.append(offset)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(games[offset:offset + limit]))

    page.route("**/api/games?*", fulfil)
    page.goto(server + FAST + "#/history?page=1")
    page.wait_for_selector("tr[data-game='1000']")
    assert page.locator("tbody tr").count() == 25
    page.click("#older")
    page.wait_for_selector("tr[data-game='1025']")
    assert page.locator("tbody tr").count() == 25 and page.inner_text("#page-no") == "Page 2"
    assert asked[-1] == 25
    for number in range(3, 7):  # on past the hundredth game, to the last page
        page.click("#older")
        page.wait_for_function("(n) => document.querySelector('#page-no')?.textContent === `Page ${n}`", arg=number)
    page.wait_for_selector("tr[data-game='1125']")
    assert page.locator("tbody tr").count() == 5 and page.inner_text("#page-no") == "Page 6"
    assert page.locator("#older").count() == 0 and asked[-1] == 125
    page.click("#newer")
    page.wait_for_selector("tr[data-game='1100']")
    assert not errors


def turn_based_table(page: Any, server: str, hours: int) -> str:
    """A turn-based table (``hours`` per move) against one bot, open at your move; returns its code."""
    page.goto(server + FAST + "#/")
    page.fill("#name", "Kim")
    page.select_option("#players", "2")
    page.select_option("#seats select[data-seat='1']", "bot:easy")
    page.fill("#target", "10")
    page.select_option("#timer", str(hours * 3600))
    page.click("#create-btn")
    page.wait_for_selector("#hand button.card:not([disabled])")
    return str(page.url.rsplit("/", 1)[-1])


def your_move_times(page: Any, codes: list[str]) -> dict[str, tuple[int, str]]:
    """The home page's "Your move": for each table, the seconds left and how they read."""
    for code in codes:
        page.wait_for_selector(f"#your-move-list li[data-code='{code}'][data-move='1'] .time-left")
    return {code: (int(page.get_attribute(f"#your-move-list li[data-code='{code}'] .time-left", "data-left")),
                   page.inner_text(f"#your-move-list li[data-code='{code}'] .time-left")) for code in codes}


def test_7b_your_move_shows_the_time_left_at_each_table(browser: Any, server: str) -> None:
    page = browser.new_context().new_page()
    errors = errors_of(page)
    hour, day = turn_based_table(page, server, 1), turn_based_table(page, server, 24)
    page.goto(server + FAST + "#/")
    times = your_move_times(page, [hour, day])
    assert 3000 < times[hour][0] <= 3600 and re.fullmatch(r"(\d+ min|1 h 0 min) left", times[hour][1]), times
    assert 23 * 3600 < times[day][0] <= 24 * 3600 and re.fullmatch(r"2[34] h \d+ min left", times[day][1]), times
    assert not errors


def sign(page: Any, server: str, name: str, up: bool) -> None:
    form = "signup" if up else "signin"
    page.goto(f"{server}{FAST}#/account")
    page.fill(f"#{form}-name", name)
    page.fill(f"#{form}-password", "a long enough phrase")
    page.click(f"#{form}-btn")
    page.wait_for_selector("#profile-name")


def test_7c_your_move_and_my_games_follow_the_account_to_another_browser(browser: Any, server: str) -> None:
    home = browser.new_context().new_page()
    errors = errors_of(home)
    sign(home, server, "Kim_7c", up=True)
    code = turn_based_table(home, server, 12)
    create_table(home, server, "Kim", ["bot:easy"], players=2)
    home.wait_for_selector("#hand button.card:not([disabled])")
    play_until_over(home)
    href = home.wait_for_selector("#dialog-over a[href^='#/history/']").get_attribute("href")
    game_id = int(re.match(r"#/history/(\d+)", href).group(1))  # type: ignore[union-attr]
    # a second browser, holding no seat token: signed in, it sees the same move and the same games
    away = browser.new_context().new_page()
    errors += errors_of(away)
    sign(away, server, "Kim_7c", up=False)
    assert away.evaluate("() => localStorage.getItem('sixnimmt.seats')") is None
    away.goto(server + FAST + "#/")
    left, text = your_move_times(away, [code])[code]
    assert 11 * 3600 < left <= 12 * 3600 and text.endswith("min left")
    away.goto(server + FAST + "#/history/mine")
    row = away.wait_for_selector(f"tr[data-game='{game_id}']")
    assert "Kim_7c" in row.inner_text()
    # its Play link takes the account's seat in this browser too
    away.goto(server + FAST + "#/")
    away.click(f"#your-move-list li[data-code='{code}'] a")
    away.wait_for_selector("#hand button.card:not([disabled])")
    assert code in json.loads(away.evaluate("() => localStorage.getItem('sixnimmt.seats')"))
    assert not errors


# ---------------------------------------------------------------- 8. invitations; the lobby


def test_8_an_invitation_carries_the_name_and_the_lobby_says_seats_target_timer(browser: Any, server: str) -> None:
    host = browser.new_context().new_page()
    errors = errors_of(host)
    code = create_table(host, server, "Hana", ["open", "open"], public=True)
    host.wait_for_selector("[data-invite-name='1']")
    host.fill("[data-invite-name='1']", "Bo Ek")
    host.click("[data-invite='1']")
    link = host.wait_for_selector("[data-invite-link='1']").input_value()
    assert link.endswith("&name=Bo%20Ek")
    friend = browser.new_context().new_page()
    friend.goto(link.replace("/#/", "/?speed=0.05#/"))
    friend.wait_for_selector("#join-name")
    assert friend.input_value("#join-name") == "Bo Ek"  # the name the host typed, ready to join
    lobby = browser.new_context().new_page()
    lobby.goto(server + FAST + "#/")
    item = lobby.wait_for_selector(f"#open-tables li[data-code='{code}']")
    text = item.inner_text()
    assert "·, ·" not in text and "1 open seat" in text  # seat 2 is kept for Bo, seat 3 is open
    assert "to 10" in text and "no timer" in text
    assert not errors


# ---------------------------------------------------------------- 9. the phone's score sheet


def test_9_the_final_score_sheet_on_a_phone_fits_or_says_it_scrolls(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_context(**PHONE).new_page()
    errors = errors_of(page)
    create_table(page, server, "Maximiliana", ["bot:easy", "bot:easy", "bot:easy", "bot:easy"])
    page.wait_for_selector("#hand button.card:not([disabled])")
    play_until_over(page)
    page.wait_for_selector("#final-sheet th")
    page.wait_for_timeout(200)
    seen = page.evaluate("""() => { const wrap = document.querySelector('#final-sheet .sheet-wrap') || document.querySelector('#final-sheet');
        const box = wrap.getBoundingClientRect();
        const all = [...document.querySelectorAll('#final-sheet th')].every((th) => { const r = th.getBoundingClientRect(); return r.left >= box.left - 1 && r.right <= box.right + 1; });
        const note = document.querySelector('#sheet-scroll-note');
        return { all, note: !!note && !note.hidden && note.getBoundingClientRect().height > 0 }; }""")
    assert seen["all"] or seen["note"], seen  # every column in sight, or a word that it scrolls
    shots(page, "phone-final-sheet")
    assert not errors


# ---------------------------------------------------------------- 10. leave; confirm; away


def test_10_leave_confirm_my_card_and_the_away_countdown(browser: Any, server: str) -> None:
    # confirm my card: on by default on a touch screen, where the tap would end the turn
    phone = browser.new_context(**PHONE, is_mobile=True, has_touch=True).new_page()
    errors = errors_of(phone)
    code = create_table(phone, server, "Leo", ["bot:easy"], players=2)
    phone.wait_for_selector("#hand button.card:not([disabled])")
    phone.wait_for_selector(".player[data-seat='1'].done")  # the bot has chosen
    assert phone.is_checked("#confirm-setting")
    turn = phone.get_attribute("#table", "data-turn")
    first = phone.locator("#hand button.card").nth(0)
    first.tap()
    phone.wait_for_selector("#confirm-card")
    assert phone.locator("#hand .card.held").count() == 1 and phone.get_attribute("#table", "data-turn") == turn
    phone.tap("#confirm-cancel")  # a mis-tap, taken back
    assert phone.locator("#hand .card.held").count() == 0 and phone.locator("#confirm-card").count() == 0
    phone.locator("#hand button.card").nth(1).tap()
    phone.tap("#confirm-card")
    phone.wait_for_function("(t) => document.querySelector('#table').dataset.turn !== t || !!document.querySelector('.row.pickable')", arg=turn)
    # Leave: a bot takes the seat, this browser forgets it
    phone.click("#leave")
    phone.click("#leave-confirm")
    phone.wait_for_selector("#create")
    assert code not in json.loads(phone.evaluate("() => localStorage.getItem('sixnimmt.seats')"))
    assert not errors
    # a player who drops out of an untimed table: everyone sees the time before a bot plays for them
    ana, bo = browser.new_context().new_page(), browser.new_context().new_page()
    code = create_table(ana, server, "Ana", ["open"], players=2)
    ana.wait_for_selector("#big-code")
    bo.goto(server + FAST + "#/")
    bo.fill("#join-code", code)
    bo.fill("#join-name", "Bo")
    bo.click("#join button[type=submit]")
    ana.wait_for_selector("#hand button.card:not([disabled])")
    bo.wait_for_selector("#hand button.card:not([disabled])")
    ana.click("#hand button.card:not([disabled]) >> nth=0")
    bo.close()
    ana.wait_for_function("() => /\\d+ s/.test(document.querySelector(\".player[data-seat='1'] .paway\")?.textContent || '')")
    assert re.fullmatch(r"a bot plays in \d+ s", ana.inner_text(".player[data-seat='1'] .paway"))
