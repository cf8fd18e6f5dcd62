"""The record reader against thousands of mutated records, in every variant: whatever the bytes, it
answers with a :class:`RecordError` whose message is one short printable line, or replays."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import RecordError, Variant
from sixnimmt.core.record import MAX_ERROR_CHARS, loads, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "records"
RECORDS = {path.stem: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.glob("*.json"))}

#: Values a mutation puts in place of another: every JSON type, edge numbers, awkward strings.
ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2, 3, 5, 7, 10, 55, 103, 104, 105, 208, 10**9, -(10**11), 1.0, 8.5,
    "", "7", "0", "banana", "\x1b[31mred\x1b[0m", "a\nb", "é" * 5, [], [1], [[1]], [1, 2], {}, {"7": 1},
    {"seat": 0}, [[], []], [None],
]


#: Per example record (9 of them): structural mutants, then text mutants (each read twice).
MUTANTS = 220
TEXT_MUTANTS = 50


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found.extend(_paths(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(_paths(child, (*path, index)))
    return found


def _parent(record: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        record = record[step]
    return record


def mutate(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One to three structural changes at random places of a copy of ``record``."""
    bad = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(bad) if p]
        path = rng.choice(paths)
        parent, key = _parent(bad, path), path[-1]
        how = rng.randrange(7)
        if how == 0:
            parent[key] = rng.choice(ODD_VALUES)
        elif how == 1 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] += rng.choice((-2, -1, 1, 2, 13))
        elif how == 2:
            del parent[key]
        elif how == 3 and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif how == 4 and isinstance(parent, list) and len(parent) > 1:
            other = rng.randrange(len(parent))
            parent[key], parent[other] = parent[other], parent[key]
        elif how == 5 and isinstance(parent, dict):
            parent[rng.choice(("note", "7", "seat", "keeps", "picks", "draft"))] = rng.choice(ODD_VALUES)
        else:
            parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return bad


def mutate_text(text: str, rng: random.Random) -> str:
    """A change to the JSON text itself: a cut, a flipped character, an inserted bracket."""
    at = rng.randrange(len(text))
    how = rng.randrange(3)
    if how == 0:
        return text[:at]
    if how == 1:
        return text[:at] + rng.choice('[]{}",:0-e.\x00\\') + text[at + 1 :]
    return text[:at] + rng.choice(("[" * 50, "1" * 30, '"' + "x" * 300 + '"', "\ud800", "NaN")) + text[at:]


def check(text: str | bytes, *, partial: bool) -> bool:
    """Read and replay; True if the record was accepted. Only a bounded RecordError may escape."""
    try:
        replay(loads(text), partial=partial, seed=0)
    except RecordError as error:
        message = str(error)
        assert message and len(message) <= MAX_ERROR_CHARS, message
        assert message.isprintable(), message
        return False
    return True


def test_every_variant_has_an_example_record() -> None:
    variants = {json.loads(text)["rules"]["variant"] for text in RECORDS.values()}
    assert variants == {v.value for v in Variant}
    for name, text in RECORDS.items():
        assert check(text, partial=False), name


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_mutated_records_get_a_bounded_record_error(name: str) -> None:
    rng = random.Random(f"fuzz-{name}")
    record = json.loads(RECORDS[name])
    accepted = 0
    for i in range(MUTANTS):
        mutant = mutate(record, rng)
        accepted += check(json.dumps(mutant), partial=bool(i % 2))
    for _ in range(TEXT_MUTANTS):
        text = mutate_text(RECORDS[name], rng)
        check(text.encode("utf-8", "surrogatepass"), partial=False)
        check(text, partial=True)
    # Most mutants are caught; a few are harmless (a swapped seat name, an equal pick...).
    assert accepted < MUTANTS // 2
