"""Accounts: sign up, in and out, password changes, deletion, their errors and their safety."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from sixnimmt.server.accounts.users import NAME_PATTERN, AccountError, check_name, name_key
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.tables.table_setup import name_skeleton

from .conftest import make_client

PASSWORD = "correct horse battery"
ORIGIN = {"Origin": "http://testserver"}


def signed(client: TestClient) -> TestClient:
    client.headers.update(ORIGIN)
    return client


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, object]:
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    return dict(response.json()["user"])


@pytest.fixture
def app_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'accounts.db'}"


@pytest.fixture
def web(app_url: str) -> Iterator[TestClient]:
    with make_client(app_url, ManualClock()) as client:
        yield signed(client)


def test_sign_up_sign_in_sign_out(web: TestClient) -> None:
    user = sign_up(web, "Alice_1")
    assert user["name"] == "Alice_1" and user["kind"] == "person"
    cookie = web.cookies.get("sixnimmt_session")
    assert cookie and web.get("/api/account").json()["user"]["name"] == "Alice_1"
    web.post("/api/account/signout")
    assert web.get("/api/account").json() == {"user": None}
    # the name in any case signs in
    response = web.post("/api/account/signin", json={"name": "alice_1", "password": PASSWORD})
    assert response.status_code == 200, response.text
    assert web.get("/api/account").json()["user"]["name"] == "Alice_1"
    # the old, signed-out token is dead
    web.cookies.set("sixnimmt_session", cookie)
    assert web.get("/api/account").json() == {"user": None}


def test_session_cookie_attributes(app_url: str) -> None:
    with make_client(app_url, ManualClock()) as client:
        signed(client)
        response = client.post("/api/account/signup", json={"name": "carol", "password": PASSWORD})
        header = response.headers["set-cookie"].lower()
        assert "httponly" in header and "samesite=lax" in header and "path=/" in header
        assert "secure" not in header  # plain HTTP (a development server)
    with make_client(app_url, ManualClock()) as client:
        client.base_url = client.base_url.copy_with(scheme="https")
        client.headers.update({"Origin": "https://testserver"})
        response = client.post("/api/account/signin", json={"name": "carol", "password": PASSWORD})
        assert response.status_code == 200, response.text
        assert "secure" in response.headers["set-cookie"].lower()


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("<b>bold</b>", "account-name-invalid"),
        ("al\u202eice", "account-name-invalid"),  # a right-to-left override
        ("\u0430dmin", "account-name-invalid"),  # a Cyrillic letter that looks like "a"
        ("ab", "account-name-invalid"),
        ("x" * 21, "account-name-invalid"),
        (".dot", "account-name-invalid"),
        ("Admin", "account-name-reserved"),
        ("bot-easy", "account-name-reserved"),
        ("GrandMaster", "account-name-reserved"),
    ],
)
def test_bad_names_are_refused(web: TestClient, name: str, code: str) -> None:
    response = web.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 422 and response.json()["code"] == code


def test_names_are_unique_without_regard_to_case(web: TestClient) -> None:
    sign_up(web, "dora")
    response = web.post("/api/account/signup", json={"name": "DORA", "password": PASSWORD})
    assert response.status_code == 409 and response.json()["code"] == "account-name-taken"


#: "Alice" written so that it looks the same: in capitals, its accent a combining mark (after the
#: "e", or on the "A"), precomposed, full-width.
ALICES = ("ALICE", "Alice\u0301", "A\u0301lice", "Alic\u00e9", "\uff21lice")


def test_an_account_name_is_keyed_as_names_at_a_table_are_compared(web: TestClient) -> None:
    """(#53) One normalisation for both: a name written with combining marks or full-width letters
    is the same account's name, to sign up (taken), to sign in and to look it up; and a guess under
    any way of writing the name spends that name's budget."""
    assert {name_key(twin) for twin in ALICES} == {name_key("alice")} == {"alice"}
    assert {name_skeleton(twin) for twin in ALICES} == {name_skeleton("alice")}
    sign_up(web, "alice")
    web.post("/api/account/signout")
    for twin in ALICES:
        assert web.get(f"/api/users/{twin}").json()["user"]["name"] == "alice", twin
        signed_in = web.post("/api/account/signin", json={"name": twin, "password": PASSWORD})
        assert signed_in.status_code == 200, twin
        assert web.post("/api/account/signout").status_code == 200
    burst = web.app.state.settings.signin_name_burst  # type: ignore[attr-defined]
    guesses = [web.post("/api/account/signin", json={"name": ALICES[i % len(ALICES)], "password": f"guess {i}"}
                        ).status_code for i in range(burst + 1)]
    assert guesses[:burst] == [401] * burst and guesses[burst] == 429


@given(st.text(max_size=24) | st.from_regex(NAME_PATTERN, fullmatch=True))
def test_an_accepted_name_keeps_the_key_it_was_stored_under(raw: str) -> None:
    """Every name an account may have is ASCII, which the normalisation leaves as it is: the keys
    stored before it (case folded only) are its keys still, and need no migration."""
    try:
        name = check_name(raw)
    except AccountError:
        return
    assert name.isascii() and name_key(name) == name.casefold()


@pytest.mark.parametrize("password", ["short", "aaaaaaaaaaaaaaa", "1234567890", "my name is erika ok", "x" * 129])
def test_weak_passwords_are_refused(web: TestClient, password: str) -> None:
    response = web.post("/api/account/signup", json={"name": "Erika", "password": password})
    assert response.status_code == 422 and response.json()["code"] == "account-password-weak"


def test_sign_in_error_does_not_say_whether_the_name_exists(web: TestClient) -> None:
    sign_up(web, "frank")
    web.post("/api/account/signout")
    wrong = web.post("/api/account/signin", json={"name": "frank", "password": "not the password"})
    unknown = web.post("/api/account/signin", json={"name": "nobody_here", "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["code"] == "account-signin-failed"


def test_brute_force_on_one_name_is_slowed_then_refused(web: TestClient) -> None:
    sign_up(web, "grace")
    burst = web.app.state.settings.signin_name_burst  # type: ignore[attr-defined]
    codes = [web.post("/api/account/signin", json={"name": "grace", "password": f"guess {i}"}).status_code
             for i in range(burst + 1)]
    assert codes[:burst] == [401] * burst
    assert codes[burst] == 429
    refused = web.post("/api/account/signin", json={"name": "GRACE", "password": PASSWORD})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # the clock moves on: one more try is allowed (slowed, not locked out for good)
    web.app.state.accounts.clock.advance(60)  # type: ignore[attr-defined]
    assert web.post("/api/account/signin", json={"name": "grace", "password": PASSWORD}).status_code == 200


def test_brute_force_from_one_address_is_refused(web: TestClient) -> None:
    burst = web.app.state.settings.signin_burst  # type: ignore[attr-defined]
    codes = [web.post("/api/account/signin", json={"name": f"user{i}", "password": "whatever it is"}).status_code
             for i in range(burst + 1)]
    assert codes[:burst] == [401] * burst and codes[burst] == 429


def test_state_changes_from_other_sites_are_refused(web: TestClient) -> None:
    sign_up(web, "heidi")
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "", "Referer": ""},
                    {"Origin": "", "Referer": "https://evil.example/page"}):
        response = web.post("/api/account/signout", headers=headers)
        assert response.status_code == 403 and response.json()["code"] == "cross-site"
        response = web.post("/api/tables", headers=headers,
                            json={"name": "x", "seats": [{"kind": "bot"}], "rated": True})
        assert response.status_code == 403
    assert web.get("/api/account").json()["user"]["name"] == "heidi"


def test_password_change_ends_every_other_session(app_url: str) -> None:
    with make_client(app_url, ManualClock()) as one, make_client(app_url, ManualClock()) as two:
        signed(one), signed(two)
        sign_up(one, "ivan")
        two.post("/api/account/signin", json={"name": "ivan", "password": PASSWORD})
        old = one.cookies.get("sixnimmt_session")
        assert two.get("/api/account").json()["user"]["name"] == "ivan"
        wrong = one.post("/api/account/password", json={"current": "not it at all", "new": "a brand new phrase"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "account-wrong-password"
        response = one.post("/api/account/password", json={"current": PASSWORD, "new": "a brand new phrase"})
        assert response.status_code == 200, response.text
        assert one.get("/api/account").json()["user"]["name"] == "ivan"  # this device: a new session
        assert two.get("/api/account").json() == {"user": None}  # the other device: signed out
        one.cookies.set("sixnimmt_session", str(old))
        assert one.get("/api/account").json() == {"user": None}  # the cookie from before: dead
        assert two.post("/api/account/signin", json={"name": "ivan", "password": PASSWORD}).status_code == 401
        assert two.post("/api/account/signin", json={"name": "ivan", "password": "a brand new phrase"}).status_code == 200


def test_a_user_cannot_delete_or_rename_another(web: TestClient) -> None:
    sign_up(web, "judy")
    web.post("/api/account/signout")
    sign_up(web, "mallory")
    # the routes act on the session's own account: no name or id of another is taken
    extra = web.post("/api/account/delete", json={"password": PASSWORD, "name": "judy"})
    assert extra.status_code == 422
    assert web.post("/api/users/judy", json={}).status_code == 405
    assert web.post("/api/account/rename", json={"name": "judy2"}).status_code == 404
    # judy's password does not delete mallory's account, nor judy's
    assert web.post("/api/account/delete", json={"password": "judy's guess"}).status_code == 401
    assert web.get("/api/users/judy").status_code == 200
    assert web.get("/api/users/mallory").status_code == 200


def test_deleted_account_cookie_stops_working(app_url: str) -> None:
    with make_client(app_url, ManualClock()) as one, make_client(app_url, ManualClock()) as two:
        signed(one), signed(two)
        sign_up(one, "kate")
        two.post("/api/account/signin", json={"name": "kate", "password": PASSWORD})
        cookie = one.cookies.get("sixnimmt_session")
        assert one.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
        one.cookies.set("sixnimmt_session", str(cookie))
        assert one.get("/api/account").json() == {"user": None}
        assert two.get("/api/account").json() == {"user": None}
        assert two.get("/api/users/kate").status_code == 404
        # the name is free again
        assert two.post("/api/account/signin", json={"name": "kate", "password": PASSWORD}).status_code == 401


def test_passwords_and_tokens_never_reach_the_logs(web: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    sign_up(web, "leo_l")
    token = web.cookies.get("sixnimmt_session")
    web.post("/api/account/signout")
    web.post("/api/account/signin", json={"name": "leo_l", "password": "wrong password here"})
    web.post("/api/account/signin", json={"name": "leo_l", "password": PASSWORD})
    web.post("/api/account/password", json={"current": PASSWORD, "new": "the next long phrase"})
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert token and token not in text
    for secret in (PASSWORD, "wrong password here", "the next long phrase"):
        assert secret not in text


def test_password_hashing_runs_off_the_event_loop(web: TestClient) -> None:
    hasher = web.app.state.accounts.hasher  # type: ignore[attr-defined]
    threads: list[str] = []
    real = hasher.hasher

    class Recording:
        def hash(self, password: str) -> str:
            threads.append(threading.current_thread().name)
            return str(real.hash(password))

        def verify(self, stored: str, password: str) -> bool:
            threads.append(threading.current_thread().name)
            return bool(real.verify(stored, password))

    hasher.hasher = Recording()
    sign_up(web, "mona")
    web.post("/api/account/signin", json={"name": "mona", "password": PASSWORD})
    assert len(threads) == 2
    assert all(name.startswith("sixnimmt-hash") for name in threads), threads


def test_a_full_hash_queue_refuses_at_once(app_url: str) -> None:
    with make_client(app_url, ManualClock(), hash_queue=0) as client:
        response = signed(client).post("/api/account/signup", json={"name": "quinn", "password": PASSWORD})
        assert response.status_code == 503 and response.json()["code"] == "account-busy"
        assert response.headers["Retry-After"] == "5"
        response = client.post("/api/account/signin", json={"name": "quinn", "password": PASSWORD})
        assert response.status_code == 503
