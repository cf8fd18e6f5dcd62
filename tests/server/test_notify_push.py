"""Web Push, delivered and decrypted: the test plays a browser and its push service. It makes a
subscription's keys (a P-256 key pair and a 16-byte authentication secret), runs the push
service's endpoint (an HTTP server in its process), and decrypts what the server pushes by the
steps of RFC 8291 (written out here with ``cryptography``, not with the library the server
encrypts with), checking the VAPID header (RFC 8292) against the server's public key."""

from __future__ import annotations

import base64
import json
import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock
from sixnimmt.server.notify.addresses import NotifyError
from sixnimmt.server.notify.phrases import STRINGS
from sixnimmt.server.notify.webpush import check_subscription

from .conftest import make_client
from .test_notify_mail import ORIGIN, settle, sign_up

HOUR = 3600


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt: bytes, key: bytes, info: bytes, length: int) -> bytes:
    return HKDF(hashes.SHA256(), length, salt, info).derive(key)


class Browser:
    """A subscription's keys, and the decryption a browser does with them (RFC 8291, section 3)."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                         serialization.PublicFormat.UncompressedPoint)
        self.auth = bytes(range(16))

    def decrypt(self, body: bytes) -> Any:
        # the aes128gcm header (RFC 8188): salt, record size, the sender's key as the key id
        salt, record_size, id_length = body[:16], struct.unpack("!L", body[16:20])[0], body[20]
        sender = body[21:21 + id_length]
        assert id_length == 65 and sender[0] == 4
        records = body[21 + id_length:]
        assert len(records) <= record_size  # one record
        shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
        ikm = hkdf(self.auth, shared, b"WebPush: info\x00" + self.public + sender, 32)
        cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        plain = AESGCM(cek).decrypt(nonce, records, None)
        data = plain.rstrip(b"\x00")
        assert data.endswith(b"\x02")  # the last record's delimiter
        return json.loads(data[:-1])


class PushService:
    """The push service's endpoint: keeps each POST; answers 201, or 410 for a gone subscription."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, dict(self.headers.items()), body))
                self.send_response(410 if self.path.startswith("/gone") else 201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def take(self) -> list[tuple[str, dict[str, str], bytes]]:
        taken = list(self.received)
        self.received.clear()
        return taken


@pytest.fixture
def service() -> Iterator[PushService]:
    push = PushService()
    push.thread.start()
    yield push
    push.server.shutdown()
    push.server.server_close()


@pytest.fixture
def db(database_url: str) -> str:
    """SQLite, and PostgreSQL where the tests have one."""
    return database_url


@pytest.fixture
def web(db: str) -> Iterator[TestClient]:
    with make_client(db, ManualClock(), push_insecure_endpoints=True, push_contact="mailto:admin@example.org",
                     move_notice_delay=0.0) as client:
        client.headers.update(ORIGIN)
        yield client


def check_vapid(headers: dict[str, str], server_key: str, audience: str, now: float) -> None:
    """RFC 8292: ``vapid t=JWT,k=KEY``, the key the server's, the JWT signed by it (ES256), for the
    push service's origin, expiring within a day, with a contact."""
    scheme, _, params = headers["Authorization"].partition(" ")
    fields = dict(part.split("=", 1) for part in params.split(","))
    assert scheme == "vapid" and fields["k"] == server_key
    header, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(header)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(server_key))
    public.verify(encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:])),
                  f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    body = json.loads(unb64(claims))
    assert body["aud"] == audience and body["sub"] == "mailto:admin@example.org"
    assert now < body["exp"] <= now + 24 * HOUR
    assert headers["Content-Encoding"] == "aes128gcm" and int(headers["TTL"]) > 0


def subscribe(web: TestClient, endpoint: str, browser: Browser, lang: str = "en") -> None:
    response = web.post("/api/notify/push", json={"endpoint": endpoint, "expirationTime": None, "lang": lang,
                                                  "keys": {"p256dh": b64(browser.public), "auth": b64(browser.auth)}})
    assert response.status_code == 200, response.text


def test_a_move_due_and_a_challenge_are_pushed_and_decrypted(web: TestClient, service: PushService) -> None:
    config = web.get("/api/notify/config").json()
    assert config["push"] is True
    key = config["push_key"]
    assert len(unb64(key)) == 65
    browser = Browser()
    sign_up(web, "Ann_1")
    subscribe(web, f"{service.origin}/push/ann", browser, lang="de")  # (a page in German)
    assert web.get("/api/notify/settings").json()["push_endpoints"] == [f"{service.origin}/push/ann"]
    # a turn-based table whose first move is Ann's, with nobody of hers at the table
    made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}],
                                         "target": 1000, "timer": HOUR})
    code = made.json()["code"]
    settle(web)
    [(path, headers, body)] = service.take()
    assert path == "/push/ann"
    now = web.app.state.rooms.clock.wall()  # type: ignore[attr-defined]
    check_vapid(headers, key, service.origin, now)
    payload = browser.decrypt(body)
    assert payload["kind"] == "move" and payload["table"] == code and payload["url"] == f"/#/t/{code}"
    german = json.loads((STRINGS / "de.json").read_text(encoding="utf-8"))
    assert payload["body"] == german["notify.pushMove"].replace("{table}", code)
    # the next move (the stand-in played when the hour ran out) is pushed too, once
    settle(web, advance=HOUR)
    [(_, _, body)] = service.take()
    assert browser.decrypt(body)["kind"] == "move"
    # Bob challenges Ann: she is pushed the table's link
    sign_up(web, "Bob_2")
    challenge = web.post("/api/notify/challenge", json={"name": "ann_1"})
    assert challenge.status_code == 201, challenge.text
    settle(web)
    [(_, _, body)] = service.take()
    payload = browser.decrypt(body)
    assert payload == {**payload, "kind": "challenge", "from": "Bob_2", "table": challenge.json()["code"]}
    assert payload["body"] == german["notify.pushChallenge"].replace("{name}", "Bob_2")
    # the challenge is no one else's to read: a stranger's keys do not open it
    with pytest.raises(InvalidTag):
        Browser().decrypt(body)
    # bad challenges get clear errors
    assert web.post("/api/notify/challenge", json={"name": "Bob_2"}).json()["code"] == "no-user"
    assert web.post("/api/notify/challenge", json={"name": "nobody_x"}).status_code == 404
    assert web.post("/api/notify/challenge", json={"name": "Ann_1", "timer": 60}).status_code == 422


def test_a_gone_subscription_is_forgotten_and_bad_ones_are_refused(web: TestClient, service: PushService) -> None:
    sign_up(web, "Ann_1")
    subscribe(web, f"{service.origin}/gone/ann", Browser())
    web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}], "timer": HOUR})
    settle(web)
    assert len(service.take()) == 1  # answered 410: the subscription is gone
    assert web.get("/api/notify/settings").json()["push_endpoints"] == []
    bad = web.post("/api/notify/push", json={"endpoint": f"{service.origin}/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}})
    assert bad.status_code == 422 and bad.json()["code"] == "notify-push-invalid"
    assert web.post("/api/notify/push", json={"endpoint": "x"}).status_code == 422
    web.cookies.clear()
    browser = Browser()
    keys = {"p256dh": b64(browser.public), "auth": b64(browser.auth)}
    assert web.post("/api/notify/push", json={"endpoint": f"{service.origin}/x", "keys": keys}).status_code == 401


def test_who_opens_the_table_within_a_minute_is_not_told(db: str, service: PushService) -> None:
    """The host of a new turn-based table is at it: no push. Away when the next move comes, a
    minute later they are."""
    with make_client(db, ManualClock(), push_insecure_endpoints=True) as web:
        web.headers.update(ORIGIN)
        assert web.app.state.settings.move_notice_delay == 60  # type: ignore[attr-defined]
        browser = Browser()
        sign_up(web, "Ann_1")
        subscribe(web, f"{service.origin}/push/ann", browser)
        made = web.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}], "timer": HOUR}).json()
        with web.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as ws:
            ws.receive_json()
            settle(web, advance=61)
            assert service.take() == []
        # gone: the stand-in plays when the hour runs out, and the next move waits for Ann
        settle(web, advance=HOUR, notices=False)
        assert service.take() == []  # (not yet: the minute has not passed)
        settle(web, advance=61)
        [(_, _, body)] = service.take()
        assert browser.decrypt(body)["table"] == made["code"]


def test_a_real_server_takes_only_https_endpoints_on_public_hosts() -> None:
    browser = Browser()
    with pytest.raises(NotifyError):
        check_subscription("http://push.example.org/x", b64(browser.public), b64(browser.auth))
    with pytest.raises(NotifyError):
        check_subscription("https://push.example.org/x", b64(browser.public[:-1] + b"\x00"), b64(browser.auth))
    for inside in ("https://127.0.0.1/x", "https://10.1.2.3/x", "https://[::1]/x", "https://localhost/x",
                   "https://a.localhost/x", "https://169.254.169.254/x"):
        with pytest.raises(NotifyError):
            check_subscription(inside, b64(browser.public), b64(browser.auth))
    assert check_subscription("https://push.example.org/x", b64(browser.public), b64(browser.auth)).auth


def test_the_vapid_key_is_made_once_and_kept(db: str) -> None:
    keys = []
    for _ in range(2):
        with make_client(db, ManualClock()) as client:
            keys.append(client.get("/api/notify/config").json()["push_key"])
    assert keys[0] == keys[1] and keys[0]
