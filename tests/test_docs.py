"""docs/python.md runs: every example on the page is a doctest, so the page cannot drift from the
library it describes (a changed output, a renamed export or a broken example fails the build)."""

from __future__ import annotations

import doctest
from pathlib import Path

import sixnimmt

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python.md"


def test_the_python_page_runs_as_written() -> None:
    result = doctest.testfile(
        str(PAGE),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
        raise_on_error=False,
    )
    assert result.attempted >= 30, f"only {result.attempted} examples found in {PAGE.name}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of docs/python.md failed (above)"


def test_every_public_name_is_documented_and_importable() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for name in sixnimmt.__all__:
        if name == "__version__":
            continue
        value = getattr(sixnimmt, name)
        assert f"`{name}`" in page, f"sixnimmt.{name} is not in docs/python.md's table"
        if callable(value):
            assert (value.__doc__ or "").strip(), f"sixnimmt.{name} has no docstring"


def test_importing_the_package_loads_nothing_else() -> None:
    import subprocess
    import sys

    code = "import sys, sixnimmt; print(sorted(m for m in sys.modules if m.startswith('sixnimmt')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['sixnimmt']"
