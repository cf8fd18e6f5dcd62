"""Rated play people can trust (issue #53): a rated game is a contract (leaving does not escape its
rating), and a person cannot farm rating with their own bots or with rules made to be farmed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock

from .conftest import QUICK_PLAY, make_client
from .helpers import play_out, receive_until
from .test_accounts import PASSWORD, sign_up, signed

#: A socket that waits for a message the server never sends fails the test instead of hanging it.
pytestmark = pytest.mark.timeout(180)


def _rated_table(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> Any:
    return client.post("/api/tables", json={"name": "ignored", "seats": seats, "rated": True, **options})


def test_leaving_a_rated_game_does_not_escape_its_rating(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'leave.db'}"
    with make_client(url, **QUICK_PLAY) as host:
        leaver = signed(TestClient(host.app))  # a second browser on the same server
        signed(host)
        sign_up(host, "olga")
        sign_up(leaver, "oscar")
        made = _rated_table(host, [{"kind": "open"}, {"kind": "bot", "bot": "easy"}])
        assert made.status_code == 201, made.text
        table = made.json()
        code = table["code"]
        joined = leaver.post(f"/api/tables/{code}/join", json={"name": "oscar"})
        assert joined.status_code == 200, joined.text  # the last open seat: the game starts
        with host.websocket_connect(f"/ws/{code}?token={table['token']}") as ws:
            first = receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None)
            assert first["view"]["deal"] == 0
            with host.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as oscar:  # (its own token)
                receive_until(oscar, lambda m: m.get("type") == "state")
                oscar.send_json({"type": "leave"})
                receive_until(oscar, lambda m: m.get("type") == "error")
            last = play_out(ws, first)
        assert last["view"]["deal"] > 0  # the stand-in played later deals for the leaver
    with make_client(url) as watcher:
        summary = watcher.get(f"/api/tables/{code}").json()
        assert summary["seats"][1]["name"] == "oscar" and summary["seats"][1].get("left") is True
        oscar_profile = watcher.get("/api/users/oscar").json()
        assert oscar_profile["ratings"]["standard"]["games"] == 1
        assert len(oscar_profile["games"]) == 1 and oscar_profile["games"][0]["rated"] is True
        assert oscar_profile["games"][0]["seat"] == 1
        assert oscar_profile["games"][0]["totals"][1] == last["view"]["totals"][1]
        # the fill bot was not rated in the leaver's place
        fill = watcher.get("/api/users/bot-medium")
        assert fill.status_code == 404 or "standard" not in fill.json()["ratings"]
        assert watcher.get("/api/users/bot-easy").json()["ratings"]["standard"]["games"] == 1


def test_a_rated_table_plays_the_variants_own_game_against_rated_bots(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'rules.db'}") as client:
        sign_up(signed(client), "rita")
        random_bot = _rated_table(client, [{"kind": "bot", "bot": "random"}])
        assert random_bot.status_code == 422 and random_bot.json()["code"] == "rated-bot"
        random_fill = _rated_table(client, [{"kind": "open"}], fill_bot="random")
        assert random_fill.status_code == 422 and random_fill.json()["code"] == "rated-bot"
        for made_up in ({"target": 1}, {"target": 200}, {"end": "above"}, {"deals": 1}):
            refused = _rated_table(client, [{"kind": "bot", "bot": "easy"}], **made_up)
            assert refused.status_code == 422 and refused.json()["code"] == "rated-rules", made_up
        # the same options at a casual table are the host's choice
        casual = client.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "random"}],
                                                  "target": 1, "deals": 1})
        assert casual.status_code == 201
        assert _rated_table(client, [{"kind": "bot", "bot": "easy"}]).status_code == 201


def test_a_rated_table_plays_the_variants_own_number_of_deals(tmp_path: Path) -> None:
    """The host chooses no number of deals for a rated table: a shorter (or longer) game than the
    variant's own is refused; the variant's own is played, whether it has a count (Tournament, a
    deal per player) or none (Standard, to its target)."""
    with make_client(f"sqlite:///{tmp_path / 'deals.db'}") as client:
        sign_up(signed(client), "dora")
        for deals in (1, 2, 5, 100):
            refused = _rated_table(client, [{"kind": "bot", "bot": "easy"}], deals=deals)
            assert refused.status_code == 422 and refused.json()["code"] == "rated-rules", deals
            casual = client.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}],
                                                      "deals": deals})
            assert casual.status_code == 201 and client.get(
                f"/api/tables/{casual.json()['code']}").json()["rules"]["deals"] == deals
        standard = _rated_table(client, [{"kind": "bot", "bot": "easy"}])
        assert standard.status_code == 201, standard.text
        rules = client.get(f"/api/tables/{standard.json()['code']}").json()["rules"]
        assert (rules["deals"], rules["target"]) == (None, 66)
        tournament = _rated_table(client, [{"kind": "bot", "bot": "easy"}] * 2, variant="tournament")
        assert tournament.status_code == 201, tournament.text
        assert client.get(f"/api/tables/{tournament.json()['code']}").json()["rules"]["deals"] == 3


def test_a_bot_program_never_sits_at_a_rated_table_with_its_owner_or_its_stablemates(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'farm.db'}") as owner:
        other = signed(TestClient(owner.app))
        sign_up(signed(owner), "nina")
        for bot in ("ninabot", "ninabot2"):
            assert owner.post("/api/bots", json={"name": bot}).status_code == 201
        # on creation: with its owner, or with another bot of the same owner
        mine = _rated_table(owner, [{"kind": "program", "name": "ninabot"}])
        assert mine.status_code == 422 and mine.json()["code"] == "rated-same-owner"
        sign_up(other, "oscar")
        pair = _rated_table(other, [{"kind": "program", "name": "ninabot"}, {"kind": "program", "name": "ninabot2"}])
        assert pair.status_code == 422 and pair.json()["code"] == "rated-same-owner"
        # on invitation: the owner hosts a rated table and invites its own bot
        made = _rated_table(owner, [{"kind": "open"}, {"kind": "bot", "bot": "easy"}])
        assert made.status_code == 201, made.text
        table = made.json()
        invited = owner.post(f"/api/tables/{table['code']}/invite-bot",
                             json={"seat": 1, "bot": "ninabot", "token": table["token"]})
        assert invited.status_code == 409 and invited.json()["code"] == "rated-same-owner"
        summary = owner.get(f"/api/tables/{table['code']}").json()
        assert summary["seats"][1]["kind"] == "open"  # nothing kept for it


# ---------------------------------------------------------------------- sign-in that cannot lock the owner out


def test_strangers_wrong_guesses_never_lock_the_owner_out(tmp_path: Path) -> None:
    clock = ManualClock()  # time stands still: no budget refills during the test
    with make_client(f"sqlite:///{tmp_path / 'guess.db'}", clock) as owner:
        sign_up(signed(owner), "alice")
        wrong = {"name": "Alice", "password": "not the password at all"}
        for i in range(50):  # fifty addresses, a guess each
            guesser = signed(TestClient(owner.app, client=(f"10.0.0.{i + 1}", 4000)))
            assert guesser.post("/api/account/signin", json=wrong).status_code == 401
        # the owner, signed in already, changes the password: not charged to the name's budget
        changed = owner.post("/api/account/password", json={"current": PASSWORD, "new": PASSWORD + " again"})
        assert changed.status_code == 200, changed.text
        # and from a device of theirs that has not been guessing, signs in with the right password
        device = signed(TestClient(owner.app, client=("192.0.2.7", 4000)))
        signed_in = device.post("/api/account/signin", json={"name": "alice", "password": PASSWORD + " again"})
        assert signed_in.status_code == 200, signed_in.text
        # guessing from one address is still limited, on this name and on a fresh one
        attacker = signed(TestClient(owner.app, client=("198.51.100.9", 4000)))
        answers = [attacker.post("/api/account/signin", json=wrong).status_code for _ in range(8)]
        assert answers[0] == 401 and answers[-1] == 429
        sign_up(signed(TestClient(owner.app, client=("192.0.2.8", 4000))), "bruno")
        other = {"name": "bruno", "password": "not the password at all"}
        answers = [attacker.post("/api/account/signin", json=other).status_code for _ in range(8)]
        assert answers[:5] == [401] * 5 and answers[-1] == 429


# ---------------------------------------------------------------------- every route that takes a table code


def test_resume_and_invite_bot_answer_alike_for_live_and_dead_codes_within_the_lookup_budget(tmp_path: Path) -> None:
    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 'scan.db'}", clock, lookup_per_minute=60.0, lookup_burst=6,
                     miss_per_minute=6.0, miss_burst=3) as host:
        sign_up(signed(host), "vera")
        assert host.post("/api/bots", json={"name": "vera_bot"}).status_code == 201
        code = host.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}]}).json()["code"]
        dead = "ZZZZZ" if code != "ZZZZZ" else "YYYYY"
        stranger = signed(TestClient(host.app, client=("203.0.113.5", 4000)))
        sign_up(stranger, "walt")
        live_resume, dead_resume = (stranger.post(f"/api/tables/{c}/resume") for c in (code, dead))
        assert live_resume.status_code == dead_resume.status_code == 404
        assert live_resume.json() == dead_resume.json()
        invite = {"seat": 1, "bot": "vera_bot", "token": "not the host's token"}
        live_invite, dead_invite = (stranger.post(f"/api/tables/{c}/invite-bot", json=invite) for c in (code, dead))
        assert live_invite.status_code == dead_invite.status_code == 403
        assert live_invite.json() == dead_invite.json()
        # a scan of codes through either route is held to the budget of misses (3 here)
        for address, route, body in (("203.0.113.6", "resume", None), ("203.0.113.7", "invite-bot", invite)):
            scanner = signed(TestClient(host.app, client=(address, 4000)))
            if route == "resume":
                sign_up(scanner, "xena")
            answers = [scanner.post(f"/api/tables/{guess}/{route}", json=body).status_code
                       for guess in ("AAAAA", "BBBBB", "CCCCC", "DDDDD", "EEEEE")]
            assert answers == [404 if route == "resume" else 403] * 3 + [429] * 2, route


# ---------------------------------------------------------------------- hardening


def test_a_name_with_a_combining_accent_does_not_sit_beside_its_plain_twin(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'names.db'}") as client:
        code = client.post("/api/tables", json={"name": "Alice", "seats": [{"kind": "open"}, {"kind": "open"}]}
                           ).json()["code"]
        for twin in ("Alice\u0301", "A\u0301lice"):
            taken = client.post(f"/api/tables/{code}/join", json={"name": twin})
            assert taken.status_code == 409 and taken.json()["code"] == "name-taken", twin


def test_an_origin_of_another_scheme_is_another_site(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'origin.db'}") as client:
        made = client.post("/api/account/signup", json={"name": "hugo", "password": PASSWORD},
                           headers={"Origin": "https://testserver"})
        assert made.status_code == 403 and made.json()["code"] == "cross-site"
        assert client.post("/api/account/signup", json={"name": "hugo", "password": PASSWORD},
                           headers={"Origin": "http://testserver"}).status_code == 201


def test_a_rated_table_stored_with_a_shorter_game_plays_the_variants_own_when_played_again(tmp_path: Path) -> None:
    """The rules are checked when a table is made: one stored before (a rated game of one deal to 1
    point) ends the game under way by its own rules, and plays the variant's own game from the next."""
    db = tmp_path / "again.db"
    url = f"sqlite:///{db}"
    with make_client(url, **QUICK_PLAY) as client:
        sign_up(signed(client), "greta")
        made = _rated_table(client, [{"kind": "bot", "bot": "easy"}])
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]
    shorter = {"target": 1, "deals": 1}
    with sqlite3.connect(db) as store:  # as a table made before the rules were checked was stored
        settings, record = store.execute("SELECT settings, record FROM tables WHERE code = ?", (code,)).fetchone()
        settings, record = json.loads(settings), json.loads(record)
        settings["rules"].update(shorter)
        record["rules"].update(shorter)
        store.execute("UPDATE tables SET settings = ?, record = ? WHERE code = ?",
                      (json.dumps(settings), json.dumps(record), code))
    with make_client(url, **QUICK_PLAY) as client:
        with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
            first = receive_until(ws, lambda m: m.get("type") == "state" and m.get("view") is not None)
            last = play_out(ws, first)
            assert last["view"]["deal"] == 0  # the game under way ended by its own rules: one deal
            ws.send_json({"type": "again"})
            receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None
                          and m["view"]["phase"] != "over")
        rules = client.get(f"/api/tables/{code}").json()["rules"]
        assert (rules["target"], rules["end"], rules["deals"]) == (66, "at-least", None)
