"""Names people sit down with: normalised (NFKC), never blank-looking, written in one alphabet where
alphabets look alike, and never a look-alike of a name already at the table."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.server.tables.table_setup import TableError, clean_name, name_skeleton

from .helpers import create_table


@pytest.mark.parametrize(("raw", "name"), [
    ("  Ana  ", "Ana"),
    ("\uff21\uff4e\uff41", "Ana"),  # full-width letters
    ("A\u200bn\u200da", "Ana"),  # invisible joiners and spaces
    ("Lucía Ñúñez", "Lucía Ñúñez"),
    ("Иван", "Иван"),  # one alphabet: fine
    ("李小龙", "李小龙"),
])
def test_names_are_normalised(raw: str, name: str) -> None:
    assert clean_name(raw) == name


@pytest.mark.parametrize(("raw", "code"), [
    ("\u3164", "name-empty"),  # the Hangul filler looks like nothing
    ("\u2800\u2800", "name-empty"),  # the blank Braille pattern
    (" \u200b ", "name-empty"),
    ("B\u043eb", "name-mixed-scripts"),  # a Cyrillic o in a Latin name
    ("\u0391nna", "name-mixed-scripts"),  # a Greek capital alpha
])
def test_blank_looking_and_mixed_script_names_are_refused(raw: str, code: str) -> None:
    with pytest.raises(ValueError) as refused:
        clean_name(raw)
    assert getattr(refused.value, "code", None) == code


def test_a_look_alike_of_a_name_at_the_table_is_refused(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "open"}])
    code = table["code"]
    assert client.post(f"/api/tables/{code}/join", json={"name": "ABBA"}).json()["seat"] == 1
    taken = client.post(f"/api/tables/{code}/join", json={"name": "\u0410\u0412\u0412\u0410"})  # in Cyrillic
    assert taken.status_code == 409 and taken.json()["code"] == "name-taken"
    assert client.post(f"/api/tables/{code}/join", json={"name": "hOST"}).json()["code"] == "name-taken"
    blank = client.post(f"/api/tables/{code}/join", json={"name": "\u3164"})
    assert blank.status_code == 409 and blank.json()["code"] == "name-empty"
    assert client.post(f"/api/tables/{code}/join", json={"name": "Ｂｏｂ"}).json()["seat"] == 2
    assert client.get(f"/api/tables/{code}").json()["seats"][2]["name"] == "Bob"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_a_name_or_a_clear_refusal(raw: str) -> None:
    try:
        name = clean_name(raw)
    except TableError as refusal:
        assert refusal.code in ("name-empty", "name-too-long", "name-mixed-scripts")
        return
    assert name == name.strip() and 1 <= len(name) <= 24
    assert isinstance(name_skeleton(name), str)  # every character has a look (or is its own)
