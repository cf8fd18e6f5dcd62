"""The OpenSpiel example of docs/rl.md (its section "OpenSpiel") runs, as a doctest. Skipped
without the openspiel extra."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def openspiel_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## OpenSpiel\n", 1)[1]
    return section.split("\n## ", 1)[0]  # up to the next section, if one follows


def test_the_openspiel_example_in_docs_rl_runs() -> None:
    section = openspiel_section()
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert 1 <= len([line for line in example.splitlines() if line.startswith(">>> ")]) <= 10
    test = doctest.DocTestParser().get_doctest(example, {}, "docs/rl.md#openspiel", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5 and result.failed == 0
