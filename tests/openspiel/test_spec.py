"""The bot spec ``openspiel:...`` is parsed where every other spec is, and says what is missing when
the openspiel extra is not installed. Runs with or without the extra."""

from __future__ import annotations

import sys

import pytest

from sixnimmt.seats import UnknownBotError, check_bot, parse_spec, prefixes


def test_openspiel_is_a_registered_prefix() -> None:
    assert "openspiel" in prefixes()
    spec = parse_spec("openspiel:ismcts:simulations=50")
    assert spec.is_prefix and spec.name == "openspiel" and spec.argument == "ismcts:simulations=50"


def test_without_the_extra_the_spec_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # an import of pyspiel now fails, as without the extra
    with pytest.raises(UnknownBotError, match=r"pip install 'sixnimmt\[openspiel\]'"):
        check_bot("openspiel:ismcts")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel:alphazero", "unknown OpenSpiel algorithm 'alphazero': choose one of ismcts"),
        ("openspiel:ismcts:simulations=0", "simulations must be positive"),
        ("openspiel:ismcts:depth=3", "openspiel:ismcts takes simulations=100, uct_c=10.0, rollouts=1, policy=max_visit_count"),
        ("openspiel:ismcts:simulations=many", "simulations is a int, not 'many'"),
        ("openspiel:ismcts:policy=best", "policy is max_visit_count or max_value"),
    ],
)
def test_a_bad_openspiel_spec_is_refused_in_one_line(spec: str, message: str) -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")
    with pytest.raises(UnknownBotError, match=message.replace("[", r"\[").replace("(", r"\(")):
        check_bot(spec)
