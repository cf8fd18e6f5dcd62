"""Every word of the web client is translated: each language's strings differ from English wherever a
word should, and the JavaScript and HTML hold no English of their own
(visible text, ARIA labels, titles and placeholders all go through the string tables)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sixnimmt.i18n import LANGUAGES

STATIC = Path(__file__).resolve().parents[2] / "sixnimmt" / "server" / "static"
#: The languages besides English (tests/test_translations.py checks that each has every string).
TRANSLATED = sorted(set(LANGUAGES) - {"en"})

#: Strings that are rightly the same as in English, per language, and why.
SAME_AS_ENGLISH = {
    ("lobby.bot", "es"): "'Bot' is the word in Spanish too",
    ("lobby.bot", "sv"): "'Bot' is the word in Swedish too",
    ("table.bot", "es"): "as lobby.bot",
    ("table.bot", "sv"): "as lobby.bot",
    ("lobby.timer.s", "es"): "seconds, a unit",
    ("lobby.timer.s", "sv"): "seconds, a unit",
    ("lobby.variant", "sv"): "Swedish 'variant'",
    ("history.variant", "sv"): "Swedish 'variant'",
    ("variant.standard", "sv"): "Swedish 'standard'",
    ("level.expert", "sv"): "Swedish 'expert'",
    ("table.total", "es"): "Spanish 'total'",
    ("variant.nifty", "es"): "a name, as printed on the Spanish box",
    ("variant.nifty", "sv"): "a name, as printed on the Swedish box",
    ("variant.hand", "sv"): "Swedish 'hand'",
    ("board.bot", "es"): "as lobby.bot",
    ("board.bot", "sv"): "as lobby.bot",
    ("board.person", "sv"): "Swedish 'person'",
    ("profile.provisional", "es"): "Spanish 'provisional'",
    ("lobby.bot", "de"): "'Bot' is the word in German too",
    ("history.pause", "de"): "German 'Pause'",
    ("variant.nifty", "de"): "a name, as printed on the German box",
    ("variant.hand", "de"): "German 'Hand'",
    ("speed.normal", "de"): "German 'normal'",
    ("bots.online", "de"): "German 'online'",
    ("bots.onlineGroup", "de"): "German 'Bots online'",
    ("lobby.timer.s", "fr"): "seconds, a unit",
    ("level.expert", "fr"): "French 'expert'",
    ("table.code", "fr"): "French 'table'",
    ("table.bot", "fr"): "as lobby.bot",
    ("board.bot", "fr"): "as lobby.bot",
    ("table.total", "fr"): "French 'total'",
    ("history.pages", "fr"): "French 'pages'",
    ("history.page", "fr"): "French 'page'",
    ("history.pause", "fr"): "French 'pause'",
    ("variant.nifty", "fr"): "a name, as printed on the French box",
    ("variant.double", "fr"): "French 'double'",
    ("score.display", "fr"): "French 'scores'",
    ("table.speed", "fr"): "French 'animations'",
    ("profile.place", "fr"): "French 'place'",
    ("bots.description", "fr"): "French 'description'",
    ("mod.admin", "de"): "German 'Moderation'",
    ("mod.reason-spam", "de"): "'Spam' is the word in German too",
    ("mod.reason-spam", "fr"): "'Spam' is the word in French too",
}


def strings(lang: str) -> dict[str, str]:
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def scripts() -> dict[str, str]:
    return {str(p.relative_to(STATIC)): p.read_text(encoding="utf-8") for p in sorted((STATIC / "js").rglob("*.js"))}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_differ_from_english_where_they_should(lang: str) -> None:
    english, other = strings("en"), strings(lang)
    untranslated = [key for key, text in english.items() if other[key] == text and (key, lang) not in SAME_AS_ENGLISH]
    assert untranslated == []
    stale = [key for key, other_lang in SAME_AS_ENGLISH if other_lang == lang and (key not in english or english[key] != other[key])]
    assert stale == []  # the list above names only strings that really are the same


def test_plural_strings_have_both_forms() -> None:
    english = strings("en")
    stems = {key.rsplit(".", 1)[0] for key in english if key.endswith((".one", ".other"))}
    for stem in stems:
        assert f"{stem}.one" in english and f"{stem}.other" in english, stem
        assert "{n}" in english[f"{stem}.other"], stem


def test_every_key_the_client_names_exists() -> None:
    english = strings("en")
    missing = []
    for name, source in scripts().items():
        for key in re.findall(r"\bt\(\s*\"([^\"]+)\"", source):
            if key not in english:
                missing.append((name, key))
        for key in re.findall(r"\btn\(\s*\"([^\"]+)\"", source):
            if f"{key}.one" not in english or f"{key}.other" not in english:
                missing.append((name, key))
        # keys chosen between two literals: t(x ? "a.b" : "c.d")
        for key in re.findall(r"[?:]\s*\"((?:table|log|error|score|preview|notice|sheet|aria|lobby|history|chat)\.[\w.-]+)\"", source):
            if key not in english and f"{key}.other" not in english:
                missing.append((name, key))
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    for key in re.findall(r"data-i18n(?:-label)?=\"([^\"]+)\"", html):
        if key not in english:
            missing.append(("index.html", key))
    assert missing == []


#: Literal text in the scripts that is not a word of any language.
NOT_WORDS = {"ABCDE"}  # the table code field's example


def test_the_scripts_hold_no_english_of_their_own() -> None:
    found = []
    literal = r"(?:\"([^\"]*)\"|'([^']*)'|`([^`]*)`)"
    patterns = [
        re.compile(r"[\"']?(?:aria-label|title|placeholder|alt)[\"']?\s*:\s*" + literal),  # attributes
        re.compile(r"\bh\(\s*\"[^\"]*\"\s*,\s*\{[^{}]*\}\s*,\s*" + literal),  # an element's first child
        re.compile(r"\b(?:textContent|innerText)\s*=\s*" + literal),
        re.compile(r"\b(?:toast|alert)\(\s*" + literal),
    ]
    for name, source in scripts().items():
        for pattern in patterns:
            for match in pattern.finditer(source):
                text = next(g for g in match.groups() if g is not None)
                if re.search(r"[A-Za-z]{2,}", re.sub(r"\$\{[^}]*\}", "", text)) and text not in NOT_WORDS:
                    found.append((name, text))
    assert found == []


class _Texts(HTMLParser):
    """Text and labels of index.html, each with whether a data-i18n attribute translates it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str | None]] = []
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag not in ("meta", "link", "path", "use", "input", "br"):
            self.stack.append(named | {"__tag": tag})
        for attr in ("aria-label", "title", "placeholder", "alt"):
            if named.get(attr) and "data-i18n-label" not in named:
                self.found.append(f"{tag}[{attr}]={named[attr]}")

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()["__tag"] != tag:
            pass

    def handle_data(self, data: str) -> None:
        text = data.strip()
        if not text or not self.stack or not re.search(r"[A-Za-z]{2,}", text):
            return
        here = self.stack[-1]
        if "data-i18n" in here or here["__tag"] in ("script", "style"):
            return
        self.found.append(f"{here['__tag']}: {text}")


#: index.html text that is the same in every language.
HTML_ANY_LANGUAGE = {
    "title: 6 nimmt!", "span: nimmt!",  # the game's name
    # each language in its own words
    "option: English", "option: Deutsch", "option: Español", "option: Français", "option: Svenska",
}


def test_the_page_holds_no_english_of_its_own() -> None:
    parser = _Texts()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert [text for text in parser.found if text not in HTML_ANY_LANGUAGE] == []
