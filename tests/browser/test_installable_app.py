"""The installable app, in real Chromium: the page links a valid web manifest whose icons are the
sizes they claim, its service worker registers for the whole site, keeps the app shell (and never
an API answer), and opens the app with the network gone."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx
from PIL import Image

STATIC = Path(__file__).resolve().parents[2] / "sixnimmt" / "server" / "static"
CACHE_URLS = "() => caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))" \
    ".then(lists => lists.flat().map(r => new URL(r.url).pathname))"


def test_every_file_of_the_front_end_is_in_the_app_shell() -> None:
    """The worker's list of the shell names every script, style, string table and icon (a file it
    missed would be absent when the app opens offline)."""
    source = (STATIC / "sw.js").read_text(encoding="utf-8")
    listed = set(source.split("const SHELL = [", 1)[1].split("];", 1)[0].replace('"', " ").replace(",", " ").split())
    files = {f"/static/{p.relative_to(STATIC).as_posix()}" for p in STATIC.rglob("*")
             if p.is_file() and p.suffix in (".js", ".css", ".json", ".png", ".svg")}
    files.discard("/static/sw.js")  # the worker itself, served at /sw.js
    assert files - listed == set()
    assert listed - files == {"/"}  # and the page


def test_manifest_is_linked_and_valid(browser: Any, server: str) -> None:
    page = browser.new_page()
    page.goto(server + "/")
    href = page.get_attribute("link[rel=manifest]", "href")
    assert href
    response = httpx.get(server + href)
    assert response.status_code == 200
    manifest = json.loads(response.text)
    assert manifest["name"] and manifest["short_name"] and len(manifest["short_name"]) <= 12
    assert manifest["start_url"] == "/" and manifest["scope"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"] == page.get_attribute("meta[name=theme-color]", "content")
    sizes = set()
    for icon in manifest["icons"]:
        image = httpx.get(server + icon["src"])
        assert image.status_code == 200 and image.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            width, height = Image.open(io.BytesIO(image.content)).size
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes.add(width)
    assert {192, 512} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])


def test_service_worker_registers_keeps_the_shell_and_opens_offline(browser: Any, server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    scope = page.evaluate("() => navigator.serviceWorker.ready.then(r => r.active && r.scope)")
    assert scope == server + "/"
    page.reload()  # now under the worker's control
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.wait_for_selector("#main h1, #main h2")
    page.evaluate("() => fetch('/api/config').then(r => r.json())")  # through the controlled page
    cached = set(page.evaluate(CACHE_URLS))
    assert {"/", "/static/js/app.js", "/static/css/style.css", "/static/i18n/en.json"} <= cached
    assert [url for url in cached if url.startswith("/api") or url.startswith("/ws")] == []
    assert not errors
    page.select_option("#lang", "de")
    page.wait_for_function("() => document.querySelector('.nav a[href=\"#/\"]')?.textContent === 'Spielen'")
    context.set_offline(True)
    page.reload()
    # The page, its scripts and its German strings come from the cache (the API's answers do not).
    page.wait_for_function("() => document.querySelector('.nav a[href=\"#/\"]')?.textContent === 'Spielen'")
    assert page.locator("#lang option").count() == 5
    context.close()
