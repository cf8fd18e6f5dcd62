"""Writing a generated table into a page of docs/, between two HTML comments that mark its place
(used by baselines.py and openspiel_ismcts.py, run from this folder)."""

from __future__ import annotations

import sys
from pathlib import Path


def fill(doc: Path, mark: str, end: str, table: str) -> None:
    """Replace what stands between ``mark`` and ``end`` in ``doc`` with ``table``."""
    text = doc.read_text(encoding="utf-8")
    if mark not in text or end not in text:
        sys.exit(f"{doc} has no {mark} ... {end} section to fill")
    head, rest = text.split(mark, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{mark}\n{table}\n{end}{tail}", encoding="utf-8")
