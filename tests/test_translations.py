"""Every language is complete in both places the project keeps words: the web client's string tables
(``sixnimmt/server/static/i18n/*.json``) and the gettext catalogs of the terminal game and the CLI
(``sixnimmt/i18n/locale``). Every message exists in every language, and a translation names exactly
the placeholders of its English source (``{name}``, ``%s``, ``%(count)d``, …), each as often: a lost
one would drop a word from the screen, an added one would show its braces or fail to format."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from sixnimmt import i18n
from sixnimmt.i18n import LANGUAGES, MORE_VARIANTS, VARIANTS

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "sixnimmt" / "server" / "static"
LOCALE_DIR = Path(i18n.__file__).with_name("locale")
TRANSLATED = sorted(set(LANGUAGES) - {"en"})

#: Brace fields of str.format and JavaScript's t(), and printf-style conversions.
PLACEHOLDER = re.compile(r"\{\w*\}|%(?:\(\w+\))?[sdirf]")


def placeholders(text: str) -> Counter[str]:
    return Counter(PLACEHOLDER.findall(text))


def web_strings(lang: str) -> dict[str, str]:
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_placeholders_are_found_in_both_styles() -> None:
    assert placeholders("{name} took %s and %(count)d, {name}") == Counter(
        {"{name}": 2, "%s": 1, "%(count)d": 1}
    )
    assert placeholders("100% sure {") == Counter()


def test_every_language_is_offered_everywhere() -> None:
    """One list of languages: the Python one, the web client's, its menu, its tables, the catalogs
    and the rules texts all name the same ones."""
    languages = set(LANGUAGES)
    assert {"en", "de", "fr"} <= languages  # the game's home languages
    util = (STATIC / "js" / "util.js").read_text(encoding="utf-8")
    listed = re.search(r"export const LANGS = \[([^\]]*)\]", util)
    assert listed is not None
    assert set(re.findall(r"\"(\w+)\"", listed.group(1))) == languages
    menu = (STATIC / "index.html").read_text(encoding="utf-8")
    assert set(re.findall(r"<option value=\"(\w+)\">", menu)) == languages
    assert {p.stem for p in (STATIC / "i18n").glob("*.json")} == languages
    assert {p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/sixnimmt.po")} == set(TRANSLATED)
    rules_dir = Path(i18n.__file__).with_name("rules")
    assert {p.name for p in rules_dir.iterdir() if p.is_dir()} == languages
    for lang in languages:
        assert {p.stem for p in (rules_dir / lang).glob("*.md")} == set(VARIANTS + MORE_VARIANTS), lang


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_web_client_has_every_string_with_its_placeholders(lang: str) -> None:
    english, other = web_strings("en"), web_strings(lang)
    assert sorted(set(english) - set(other)) == [], "missing"
    assert sorted(set(other) - set(english)) == [], "no English source"
    changed = {key: (text, other[key]) for key, text in english.items() if placeholders(text) != placeholders(other[key])}
    assert changed == {}
    assert [key for key, text in other.items() if not text.strip()] == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogs_have_every_message_with_its_placeholders(lang: str) -> None:
    pytest.importorskip("babel")
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / "es" / "LC_MESSAGES" / "sixnimmt.po").open("rb") as stream:
        reference = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(stream) if m.id}
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "sixnimmt.po").open("rb") as stream:
        catalog = read_po(stream)
    have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog if m.id}
    assert sorted(reference - set(have)) == [], "messages other languages translate"
    changed = []
    for message in have.values():
        if isinstance(message.id, str):
            pairs = [(message.id, str(message.string))]
        else:  # a plural: every form keeps the placeholders of the English plural
            pairs = [(message.id[0] if i == 0 else message.id[1], form) for i, form in enumerate(message.string)]
        for source, text in pairs:
            if not text or placeholders(source) != placeholders(text):
                changed.append((source, text))
    assert changed == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_terminal_game_speaks_each_language(lang: str) -> None:
    """The compiled catalog is the one the game loads: a sentence comes back translated and formats."""
    tr = i18n.translator(lang)
    row = tr.gettext("Row {number}")
    assert row != "Row {number}" and row.format(number=3).count("3") == 1
    assert tr.ngettext("{count} bullhead", "{count} bullheads", 2).format(count=2).startswith("2 ")
