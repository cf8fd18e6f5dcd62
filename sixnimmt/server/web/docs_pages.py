"""The Bot API's documentation as a page of the site (``#/docs/bot-api``), so that "My bots" links to
it rather than naming a file: ``docs/bot-api.md`` rendered as the rules pages are (Markdown with raw
HTML disabled, so the page can insert it safely). An installation without the repository's docs
(the package alone) serves the message reference the package itself makes."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter

from ..botapi.reference import reference
from .rules_pages import markdown_html

#: The repository's copy, beside the package in a source checkout.
BOT_API_DOC = Path(__file__).parents[3] / "docs" / "bot-api.md"

docs_api = APIRouter(prefix="/api")


@cache
def bot_api_html() -> str:
    try:
        text = BOT_API_DOC.read_text(encoding="utf-8")
    except OSError:
        text = "# The Bot API\n\n" + reference()
    return markdown_html(text)


@docs_api.get("/docs/bot-api")
def bot_api_page() -> dict[str, Any]:
    return {"html": bot_api_html()}
