"""Compile the gettext catalogs: ``python -m sixnimmt.i18n.compile`` (needs Babel, a dev dependency).

The compiled ``.mo`` files are committed, so playing needs no Babel; a test checks they match the
``.po`` sources.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

LOCALE_DIR = Path(__file__).with_name("locale")


def compiled(po_path: Path) -> bytes:
    """The ``.mo`` bytes for one ``.po`` catalog (fuzzy entries left out, as msgfmt does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as stream:
        catalog = read_po(stream)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def main() -> int:
    for po_path in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        mo_path.write_bytes(compiled(po_path))
        print(f"compiled {mo_path.relative_to(LOCALE_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
