"""The shared translations: rules texts for every variant and language, gettext catalogs, locale."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from sixnimmt import i18n
from sixnimmt.core import Rules
from sixnimmt.i18n import (
    LANGUAGES,
    MORE_VARIANTS,
    VARIANTS,
    language_from_environment,
    resolve_language,
    rules_text,
)

LOCALE_DIR = Path(i18n.__file__).with_name("locale")
#: The languages with a gettext catalog (English is the source language).
TRANSLATED = sorted(set(LANGUAGES) - {"en"})


def test_doctests() -> None:
    assert doctest.testmod(i18n).failed == 0


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("variant", VARIANTS + MORE_VARIANTS)
def test_every_rules_text_exists_and_is_markdown(lang: str, variant: str) -> None:
    text = rules_text(lang, variant)
    assert text.startswith("# 6 nimmt!")
    assert len(re.findall(r"^## ", text, re.MULTILINE)) >= 5
    # Every text gives the full bullhead table and the row limit.
    for number in ("55", "171", "66"):
        assert number in text


def test_each_variant_text_is_its_own() -> None:
    for lang in LANGUAGES:
        texts = {variant: rules_text(lang, variant) for variant in VARIANTS + MORE_VARIANTS}
        assert len(set(texts.values())) == len(texts)
        # Professional explains both ends; the basic game does not.
        assert "[40 43 47 50 52]" in texts["professional"]
        assert "[40 43 47 50 52]" not in texts["standard"]


def test_variant_names_match_the_engine() -> None:
    for variant in VARIANTS + MORE_VARIANTS:
        assert Rules(players=4, variant=variant).variant.value == variant


@pytest.mark.parametrize(
    ("lang", "word"),
    [("en", "bullhead"), ("de", "hornochse"), ("es", "cabeza de toro"), ("fr", "tête de bœuf"), ("sv", "tjurskall")],
)
def test_texts_use_each_languages_own_words(lang: str, word: str) -> None:
    assert word in rules_text(lang, "standard").lower()


@pytest.mark.parametrize("lang", ["es", "sv"])
def test_spanish_and_swedish_count_down_from_66(lang: str) -> None:
    goal = rules_text(lang, "standard").split("## ")[1]
    assert "**66" in goal


@pytest.mark.parametrize(
    ("lang", "variant", "named"),
    [("fi", "standard", "'fi'"), ("en", "chess", "'chess'"), ("", "logic", "''")],
)
def test_unknown_language_or_variant_is_a_clear_value_error(lang: str, variant: str, named: str) -> None:
    with pytest.raises(ValueError, match=f"unknown .*{re.escape(named)}: choose one of"):
        rules_text(lang, variant)


def test_packaged_files_cover_exactly_the_languages_and_variants() -> None:
    rules_dir = Path(i18n.__file__).with_name("rules")
    found = {(p.parent.name, p.stem) for p in rules_dir.glob("*/*.md")}
    assert found == {(lang, variant) for lang in LANGUAGES for variant in VARIANTS + MORE_VARIANTS}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "sv_SE.UTF-8"}, "sv"),
        ({"LC_ALL": "sv_SE.UTF-8", "LANG": "es_ES.UTF-8"}, "sv"),
        ({"LANG": "de_AT.UTF-8"}, "de"),
        ({"LC_ALL": "fi_FI.UTF-8", "LANG": "es_ES.UTF-8"}, "en"),
        ({"LANGUAGE": "fi:fr:es", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LANG": "C.UTF-8"}, "en"),
    ],
)
def test_language_from_environment(environ: dict[str, str], expected: str) -> None:
    assert language_from_environment(environ) == expected


def test_flag_wins_over_locale_and_is_checked() -> None:
    assert resolve_language("SV", {"LANG": "es_ES.UTF-8"}) == "sv"
    assert resolve_language(None, {"LANG": "es_ES.UTF-8"}) == "es"
    with pytest.raises(ValueError, match="unknown language 'fi'"):
        resolve_language("fi", {})


@pytest.mark.parametrize("lang", TRANSLATED)
def test_committed_catalogs_are_compiled_from_their_sources(lang: str) -> None:
    pytest.importorskip("babel")
    from sixnimmt.i18n.compile import compiled

    po_path = LOCALE_DIR / lang / "LC_MESSAGES" / "sixnimmt.po"
    assert po_path.with_suffix(".mo").read_bytes() == compiled(po_path), (
        "run: python -m sixnimmt.i18n.compile"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalogs_are_complete(lang: str) -> None:
    pytest.importorskip("babel")
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / lang / "LC_MESSAGES" / "sixnimmt.po").open("rb") as stream:
        catalog = read_po(stream)
    missing = [m.id for m in catalog if m.id and (not m.string or m.fuzzy)]
    assert missing == []  # and each keeps its placeholders: tests/test_translations.py


def test_catalogs_hold_exactly_the_strings_the_code_asks_for() -> None:
    """Every string marked in ``sixnimmt/tui`` has a translation, and no translation is left over."""
    pytest.importorskip("babel")
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    keywords = {"g": None, "gettext": None, "N_": None, "ngettext": (1, 2), "n": (1, 2)}
    tui_dir = Path(i18n.__file__).parent.parent / "tui"
    wanted = {
        message[2] if isinstance(message[2], str) else message[2][0]
        for message in extract_from_dir(str(tui_dir), keywords=keywords)
    }
    # The variants' names: their specs' titles, which the table translates (render.variant_name).
    from sixnimmt.core.variants import VARIANTS

    wanted |= {spec.title for spec in VARIANTS.values()}
    assert len(wanted) > 50
    for lang in TRANSLATED:
        with (LOCALE_DIR / lang / "LC_MESSAGES" / "sixnimmt.po").open("rb") as stream:
            catalog = read_po(stream)
        have = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        assert wanted - have == set(), f"{lang}: untranslated"
        assert have - wanted == set(), f"{lang}: translations no code uses"


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("de", "1 Hornochse", "3 Hornochsen"),
        ("es", "1 cabeza de toro", "3 cabezas de toro"),
        ("fr", "1 tête de bœuf", "3 têtes de bœuf"),
        ("sv", "1 tjurskalle", "3 tjurskallar"),
    ],
)
def test_plurals(lang: str, one: str, many: str) -> None:
    tr = i18n.translator(lang)
    assert tr.ngettext("{count} bullhead", "{count} bullheads", 1).format(count=1) == one
    assert tr.ngettext("{count} bullhead", "{count} bullheads", 3).format(count=3) == many


def test_every_variant_the_terminal_plays_has_its_rules_in_every_language() -> None:
    from sixnimmt.tui.config import TUI_VARIANTS

    for variant in TUI_VARIANTS:
        for lang in LANGUAGES:
            assert rules_text(lang, variant).startswith("# 6 nimmt!")


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_key_bar_fits_80_columns(lang: str) -> None:
    from sixnimmt.tui import render
    from sixnimmt.tui.replay import KEYS_REPLAY
    from sixnimmt.tui.start import KEYS_START

    bars = [getattr(render, name) for name in dir(render) if name.startswith("KEYS_")]
    assert len(bars) >= 10
    for keys in [*bars, KEYS_REPLAY, KEYS_START]:
        assert render.key_bar(i18n.translator(lang), keys).cell_len <= 80, keys
