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


def examples() -> list[str]:
    return [block.split("```", 1)[0] for block in openspiel_section().split("```python\n")[1:]]


def test_the_section_has_an_example_for_each_algorithm() -> None:
    text = "".join(examples())
    for name in ("evaluate_bots", "ismcts.ISMCTSBot", "mcts.MCTSBot", "CFRPlusSolver"):
        assert name in text


@pytest.mark.parametrize("index", range(len(examples())))
def test_each_openspiel_example_in_docs_rl_runs(index: int) -> None:
    """Each example is at most ten lines and runs as written."""
    example = examples()[index]
    assert 1 <= len([line for line in example.splitlines() if line.startswith(">>> ")]) <= 10
    test = doctest.DocTestParser().get_doctest(example, {}, f"docs/rl.md#openspiel[{index}]", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5 and result.failed == 0
