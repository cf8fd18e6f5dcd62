"""The pushes' texts in the subscriber's language: the web client's own string tables
(``static/i18n/LANG.json``, the ``notify.push…`` keys), so a translation lives in one place."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

STRINGS = Path(__file__).parents[1] / "static" / "i18n"


@functools.cache
def languages() -> frozenset[str]:
    return frozenset(path.stem for path in STRINGS.glob("*.json"))


@functools.cache
def _table(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STRINGS / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def phrase(lang: str, key: str, **params: Any) -> str:
    """The text of ``key`` in ``lang`` (English where the language or the key is missing), its
    ``{name}`` fields filled from ``params``."""
    english = _table("en")
    text = (_table(lang) if lang in languages() else english).get(key) or english[key]
    for name, value in params.items():
        text = text.replace(f"{{{name}}}", str(value))
    return text
