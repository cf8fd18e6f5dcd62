"""The rules page: each variant's rules text (written once, in ``sixnimmt/i18n/rules``) as HTML.

The Markdown is rendered on the server with raw HTML disabled, so the page can insert it safely.
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt

from ...i18n import LANGUAGES as _LANGUAGES
from ...i18n import MORE_VARIANTS as _MORE_VARIANTS
from ...i18n import VARIANTS as _VARIANTS
from ...i18n import rules_text

LANGUAGES: tuple[str, ...] = tuple(_LANGUAGES)
#: Every variant with a rules page: the four of the starting texts, then the five newer official ones.
VARIANTS: tuple[str, ...] = _VARIANTS + _MORE_VARIANTS

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_html(text: str) -> str:
    """The project's own Markdown as HTML, raw HTML in it disabled."""
    html: str = _MARKDOWN.render(text)
    return html


@cache
def rules_html(lang: str, variant: str) -> tuple[str, str]:
    """``(html, language)`` for a variant's rules; English if the text is missing in ``lang``."""
    for candidate in (lang, "en"):
        try:
            return _MARKDOWN.render(rules_text(candidate, variant)), candidate
        except (ValueError, OSError):
            continue
    return "", lang
