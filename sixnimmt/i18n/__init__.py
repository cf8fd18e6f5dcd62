"""Translations shared by the terminal and web games: the rules texts and the gettext catalogs.

The rules of each variant (those of the starting texts, :data:`VARIANTS`, and :data:`MORE_VARIANTS`)
live as Markdown in ``rules/{lang}/{variant}.md`` (English, German, Spanish,
French, Swedish); the interface strings in standard gettext catalogs, ``locale/{lang}/LC_MESSAGES/sixnimmt.po``
with their compiled ``.mo`` next to them (``python -m sixnimmt.i18n.compile`` rebuilds them).

>>> rules_text("en", "tactics").splitlines()[0]
'# 6 nimmt! — Tactics'
>>> translator("sv").gettext("Row {number}").format(number=2)
'Rad 2'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from importlib import resources

from ..core.variants import VARIANTS as _SPECS

#: The languages every text exists in, with their own names (for menus).
LANGUAGES: dict[str, str] = {
    "en": "English", "de": "Deutsch", "es": "Español", "fr": "Français", "sv": "Svenska",
}
#: The variants of the starting texts, with a rules text each (``rules/{lang}/{spec.i18n_key}.md``).
VARIANTS: tuple[str, ...] = tuple(s.i18n_key for s in _SPECS.values() if s.in_starting_texts)
#: Official variants beyond the starting texts that have a rules text too (the terminal game plays them).
MORE_VARIANTS: tuple[str, ...] = tuple(s.i18n_key for s in _SPECS.values() if not s.in_starting_texts)
DEFAULT_LANGUAGE = "en"
DOMAIN = "sixnimmt"

_PACKAGE = resources.files(__name__)


def _check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        choices = ", ".join(LANGUAGES)
        raise ValueError(f"unknown language {lang!r}: choose one of {choices}")
    return lang


def rules_text(lang: str, variant: str) -> str:
    """The rules of ``variant`` in ``lang``, as Markdown. Raises ``ValueError`` for unknown ones."""
    _check_language(lang)
    known = VARIANTS + MORE_VARIANTS
    if variant not in known:
        raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(known)}")
    return (_PACKAGE / "rules" / lang / f"{variant}.md").read_text(encoding="utf-8")


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The gettext translations for ``lang`` (English is the source language: identity)."""
    _check_language(lang)
    if lang == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    catalog = _PACKAGE / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with catalog.open("rb") as stream:
        return gettext.GNUTranslations(stream)


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the user's locale asks for (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, ``LANGUAGE``
    in gettext's order of precedence), if we have it; else English.

    >>> language_from_environment({"LANG": "sv_SE.UTF-8"})
    'sv'
    >>> language_from_environment({"LC_ALL": "C", "LANG": "es_ES.UTF-8"})
    'en'
    >>> language_from_environment({"LANG": "fr_CA.UTF-8"})
    'fr'
    """
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        # LANGUAGE may list several (``sv:en``); the others hold one locale like ``es_ES.UTF-8``.
        for locale_name in value.split(":"):
            code = locale_name.split(".")[0].split("_")[0].split("@")[0].lower()
            if code in LANGUAGES:
                return code
        if name != "LANGUAGE":
            return DEFAULT_LANGUAGE  # the locale that wins is one we have no text for ("C", "fi_FI")
    return DEFAULT_LANGUAGE


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; it is translated where it is shown."""
    return message


def resolve_language(lang: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``lang`` if given (checked), else the locale's language, else English."""
    if lang:
        return _check_language(lang.lower())
    return language_from_environment(environ)


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "MORE_VARIANTS",
    "N_",
    "VARIANTS",
    "language_from_environment",
    "resolve_language",
    "rules_text",
    "translator",
]
