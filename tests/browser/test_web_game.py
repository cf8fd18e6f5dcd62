"""The web game in real Chromium: whole games against bots, two browsers against each other, a
refresh mid-game, a phone-sized screen, the language switch, and names shown as text."""

from __future__ import annotations

from typing import Any

FAST = "/?speed=0.05"
READY = """() => {
  const t = document.querySelector('#table');
  if (!t || t.dataset.busy === '1') return false;
  return !!(document.querySelector('#dialog-over') || document.querySelector('#dialog-deal')
    || document.querySelector('.row.pickable') || document.querySelector('#hand button.card:not([disabled])'));
}"""


def try_click(page: Any, selector: str) -> None:
    """Click if the element is (still) there; the table may have moved on, which is fine."""
    try:
        page.click(selector, timeout=1500)
    except Exception:
        pass


def close_deal_summary(page: Any) -> None:
    """The deal summary closes by itself after a few seconds, or on its button."""
    try_click(page, "#dialog-deal button")


def where(page: Any) -> tuple[str, ...]:
    return tuple(page.eval_on_selector("#table", "t => [t.dataset.deal, t.dataset.turn, t.dataset.phase, t.dataset.status]"))


def play_by_keyboard(page: Any, before: tuple[str, ...]) -> bool:
    """Focus the first card, move right, press Enter; False when the press played nothing (an
    update redrew the hand between the focus and the key, so the key went elsewhere)."""
    page.focus("#hand button.card:not([disabled]) >> nth=0")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    try:
        page.wait_for_function(
            "(b) => !!document.querySelector('#hand button.card.selected') || !!document.querySelector('#reveal .played:not(.past)')"
            " || [...['deal', 'turn', 'phase', 'status'].map((k) => document.querySelector('#table').dataset[k])].join() !== b.join()",
            arg=list(before), timeout=5_000)
    except Exception:
        return False
    return True


def confirm_card(page: Any) -> None:
    """Where the card just chosen waits for a confirmation (the confirm-my-card setting, on by
    default on touch screens when every other seat has chosen), confirm it."""
    if page.query_selector("#confirm-card"):
        try_click(page, "#confirm-card")


def play_until_over(page: Any, shots: Any = None, prefix: str = "", keyboard: bool = False) -> None:
    """Answer every decision on this page (cards by click or keyboard, rows by click) to the end."""
    saw_row = saw_reveal = False
    for _ in range(600):
        page.wait_for_function(READY, timeout=30_000)
        if page.query_selector("#dialog-over"):
            return
        if page.query_selector("#dialog-deal"):
            close_deal_summary(page)
            continue
        before = where(page)
        if page.query_selector(".row.pickable"):
            if shots and not saw_row:
                shots(page, f"{prefix}row-choice")
                saw_row = True
            page.click(".row.pickable >> nth=0")
        else:
            chosen = page.query_selector("#hand button.card.selected")
            if chosen:  # already chose: wait for the others
                page.wait_for_function(
                    "(b) => { const d = document.querySelector('#table').dataset;"
                    " return [d.deal, d.turn, d.phase, d.status].join() !== b.join() || !document.querySelector('#hand button.card.selected'); }",
                    arg=list(before), timeout=30_000)
                continue
            if keyboard and not play_by_keyboard(page, before):
                continue  # the hand was redrawn under the key press: look again
            if not keyboard:
                page.click("#hand button.card:not([disabled]) >> nth=-1")
            confirm_card(page)
            if shots and not saw_reveal:
                page.wait_for_selector("#reveal .played", timeout=30_000)  # a hard bot on a busy machine
                page.wait_for_timeout(250)  # let the flip animation finish for the picture
                shots(page, f"{prefix}reveal")
                saw_reveal = True
        page.wait_for_function(
            "(b) => { const t = document.querySelector('#table'); const d = t.dataset;"
            " return [d.deal, d.turn, d.phase, d.status].join() !== b.join() || !!document.querySelector('#hand button.card.selected')"
            " || !!document.querySelector('#dialog-over') || !!document.querySelector('#dialog-deal'); }",
            arg=list(before), timeout=30_000,
        )
    raise AssertionError("the game did not end")


def create_table(page: Any, server: str, name: str, seats: list[str], players: int | None = None, public: bool = False) -> str:
    page.goto(server + FAST + "#/")
    page.fill("#name", name)
    page.select_option("#players", str(players or len(seats) + 1))
    for index, value in enumerate(seats, start=1):
        page.select_option(f"#seats select[data-seat='{index}']", value)
    page.fill("#target", "10")  # short games: the first deal that reaches 10 ends it
    if public:
        page.check("#public")  # listed in the lobby
    page.click("#create-btn")
    page.wait_for_selector("#table")
    return page.url.rsplit("/", 1)[-1]


def test_whole_game_against_three_bots(browser: Any, server: str, shots: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + FAST + "#/")
    page.fill("#name", "Ana")
    shots(page, "lobby")
    code = create_table(page, server, "Ana", ["bot:easy", "bot:medium", "bot:hard"])
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.locator("#hand button.card").count() == 10
    assert page.locator("#board .row").count() == 4
    assert page.locator(".player").count() == 4
    shots(page, "table")
    play_until_over(page, shots, keyboard=True)
    shots(page, "final-ranking")
    ranking = page.locator("#dialog-over #final-ranking")
    assert ranking.locator("tbody tr").count() == 4
    assert ranking.locator("tr.win").count() >= 1
    totals = [int(x) for x in ranking.locator("tbody td.num").all_inner_texts()]
    assert totals == sorted(totals) and max(totals) >= 10
    # the replay of this game is one click away
    page.click("#dialog-over a[href^='#/history/']")
    page.wait_for_selector("#replay-step")
    page.click("#next")
    assert "2/" in page.inner_text("#replay-step")
    # (a private table's game: the link carries the table's code, which shows it)
    assert page.get_attribute("#download", "href").endswith(f"/record.json?table={code}")
    shots(page, "replay")
    assert not errors


def test_two_browsers_play_each_other(browser: Any, server: str) -> None:
    ana_context, bo_context = browser.new_context(), browser.new_context()
    ana, bo = ana_context.new_page(), bo_context.new_page()
    code = create_table(ana, server, "Ana", ["open"], players=2)
    ana.wait_for_selector("#big-code")
    assert ana.inner_text("#big-code") == code
    bo.goto(server + FAST + "#/")
    bo.fill("#join-code", code.lower())
    bo.fill("#join-name", "Bo")
    bo.click("#join button[type=submit]")
    for page in (ana, bo):
        page.wait_for_selector("#hand button.card:not([disabled])")
    assert ana.locator(".player.me .pname").inner_text() == "Ana"
    assert bo.locator(".player.me .pname").inner_text() == "Bo"
    # each sees only their own hand
    ana_hand = set(ana.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)"))
    bo_hand = set(bo.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)"))
    assert len(ana_hand) == 10 and len(bo_hand) == 10 and not ana_hand & bo_hand
    # Playwright's sync API is bound to one thread: alternate the two pages on this one.
    for _ in range(2000):
        done = 0
        for page in (ana, bo):
            if page.query_selector("#dialog-over"):
                done += 1
                continue
            if page.query_selector("#dialog-deal"):
                close_deal_summary(page)
            elif page.evaluate(READY):
                # the other browser may move the game on between the check and the click,
                # so a click that finds nothing to click is simply tried again next round
                if page.query_selector(".row.pickable"):
                    try_click(page, ".row.pickable >> nth=0")
                elif not page.query_selector("#hand button.card.selected"):
                    try_click(page, "#hand button.card:not([disabled]) >> nth=0")
        if done == 2:
            break
        ana.wait_for_timeout(30)
    winners = [p.inner_text("#winners") for p in (ana, bo)]
    assert winners[0] == winners[1]


def test_refresh_mid_game_resumes_the_seat(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    create_table(page, server, "Rafa", ["bot:easy"], players=2)
    page.wait_for_selector("#hand button.card:not([disabled])")
    page.click("#hand button.card:not([disabled]) >> nth=0")
    turn_two = "() => document.querySelector('#table').dataset.turn === '1' && document.querySelector('#table').dataset.busy !== '1'"
    page.wait_for_function(f"() => ({turn_two})() || !!document.querySelector('.row.pickable')")
    if page.query_selector(".row.pickable"):  # the card was too low: take a row first
        page.click(".row.pickable >> nth=0")
    page.wait_for_function(turn_two)
    hand = page.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)")
    page.reload()
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.locator(".player.me .pname").inner_text() == "Rafa"
    assert page.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)") == hand
    assert page.get_attribute("#table", "data-turn") == "1"


def test_phone_sized_screen(browser: Any, server: str, shots: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server + FAST + "#/")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    shots(page, "phone-lobby")
    create_table(page, server, "Pia", ["bot:medium", "bot:medium", "bot:medium"])
    page.wait_for_selector("#hand button.card:not([disabled])")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    # measured in one go inside the page, so a redraw cannot slip in between
    boxes = page.evaluate("""() => ['#board .row', '#hand button.card', '.player'].flatMap((sel) =>
        [...document.querySelectorAll(sel)].map((n) => { const r = n.getBoundingClientRect(); return [sel, r.left, r.right]; }))""")
    assert len(boxes) == 4 + 10 + 4
    for selector, left, right in boxes:
        assert left >= 0 and right <= 390, (selector, left, right)
    page.tap("#hand button.card:not([disabled]) >> nth=0")
    confirm_card(page)  # a touch screen: the card that ends the turn waits for "Play it"
    page.wait_for_selector("#reveal .played")
    shots(page, "phone-table")


def test_language_switch(browser: Any, server: str) -> None:
    page = browser.new_context(locale="sv-SE").new_page()
    page.goto(server + "/#/")
    page.wait_for_selector("#create")
    assert page.inner_text(".nav a >> nth=0") == "Spela"  # the browser's language by default
    page.select_option("#lang", "es")
    page.wait_for_function("() => document.querySelector('.nav a').textContent === 'Jugar'")
    assert page.inner_text("#create h2") == "Nueva mesa"
    page.goto(server + "/#/rules/logic")
    page.wait_for_selector("#rules-text h1")
    assert page.get_attribute("html", "lang") == "es"
    spanish = page.inner_text("#rules-text")
    page.select_option("#lang", "en")
    page.wait_for_function("(old) => document.querySelector('#rules-text h1') && document.querySelector('#rules-text').innerText !== old", arg=spanish)
    assert "Logic" in page.inner_text("#rules-text h1")


def test_names_are_shown_as_text(browser: Any, server: str) -> None:
    page = browser.new_page()
    payload = "<img src onerror=z=1>"
    create_table(page, server, payload, ["open"], players=2, public=True)
    page.wait_for_selector("#waiting-seats")
    assert payload in page.inner_text("#waiting-seats")
    lobby = browser.new_page()  # the host stays at the table: the lobby lists tables someone is at
    lobby.goto(server + "/#/")
    lobby.wait_for_selector("#open-tables li[data-code]")
    assert payload in lobby.inner_text("#open-tables")
    for shown in (page, lobby):
        assert shown.evaluate("typeof window.z") == "undefined"
        assert shown.locator("img").count() == 0


def test_spectator_sees_the_table_without_a_hand_and_the_timer_runs(browser: Any, server: str) -> None:
    player = browser.new_context().new_page()
    player.goto(server + FAST + "#/")
    player.fill("#name", "Tim")
    player.select_option("#players", "2")
    player.select_option("#timer", "30")
    player.click("#create-btn")
    player.wait_for_selector("#hand button.card:not([disabled])")
    first = int(player.inner_text("#timer").split()[0])
    assert 0 < first <= 30
    player.wait_for_function("(t) => parseInt(document.querySelector('#timer').textContent) < t", arg=first, timeout=5000)
    code = player.url.rsplit("/", 1)[-1]
    watcher = browser.new_context().new_page()
    watcher.goto(server + FAST + f"#/t/{code}")
    watcher.wait_for_selector("#board .row")
    assert watcher.locator("#hand button.card").count() == 0
    assert not watcher.is_visible("#hand")
    assert watcher.locator(".player.me").count() == 0 and watcher.locator(".player").count() == 2


def test_the_page_reconnects_by_itself_after_a_server_restart(browser: Any, tmp_path: Any) -> None:
    """Kill the server mid-game (SIGKILL) and start it again: the open page reconnects, shows the
    same seat, hand and turn, and the game goes on."""
    import signal

    from .conftest import free_port, start_server

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(port, tmp_path)
    try:
        page = browser.new_page()
        create_table(page, base, "Kim", ["bot:easy"], players=2)
        page.wait_for_selector("#hand button.card:not([disabled])")
        page.click("#hand button.card:not([disabled]) >> nth=0")
        idle_at_turn_two = ("() => { const t = document.querySelector('#table'); return t.dataset.turn === '1'"
                            " && t.dataset.busy !== '1' && !!document.querySelector('#hand button.card:not([disabled])'); }")
        page.wait_for_function(f"() => ({idle_at_turn_two})() || !!document.querySelector('.row.pickable')")
        if page.query_selector(".row.pickable"):
            page.click(".row.pickable >> nth=0")
        page.wait_for_function(idle_at_turn_two)
        hand = page.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)")
        rows = page.locator("#board .row").evaluate_all("r => r.map(x => x.innerText)")
        server.send_signal(signal.SIGKILL)
        server.wait()
        page.wait_for_function("() => document.querySelector('#table').dataset.status === 'reconnecting'")
        # Checked before the restart: once the server is back the page may reconnect at once.
        assert page.locator("#hand button.card:not([disabled])").count() == 0  # locked while offline
        server = start_server(port, tmp_path)
        page.wait_for_function(f"() => document.querySelector('#table').dataset.status === 'playing' && ({idle_at_turn_two})()",
                               timeout=20_000)  # back, by itself
        assert page.locator("#hand button.card").evaluate_all("b => b.map(x => x.dataset.card)") == hand
        assert page.locator("#board .row").evaluate_all("r => r.map(x => x.innerText)") == rows
        assert page.locator(".player.me .pname").inner_text() == "Kim"
        page.click("#hand button.card:not([disabled]) >> nth=0")
        page.wait_for_function(
            "() => document.querySelector('#table').dataset.turn === '2' || !!document.querySelector('.row.pickable')"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
